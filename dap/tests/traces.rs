//! Recordings through the real adapter: `restart` of a replayed `.trace`
//! comes back to the stop the user was at, `restart` of a live program
//! starts it again, and the frames and draws the debugger names are those
//! `apitrace dump` shows for the same trace.
//!
//! `single_pass.frag` line 9 is `float ring = ...`; at pixel (x, y) of frame
//! f: p = (x + 0.5, y + 0.5) / 32, t = f * 0.125.

mod client;

use std::path::{Path, PathBuf};
use std::process::Command;

use client::{app, shader_file, single_pass, Client};
use serde_json::{json, Value};
use shaderdbg_session::trace::{capture_command, DumpFrames, TraceApi};

/// A temporary directory of this test.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("shaderdbg-dap-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Records `program args` into `dir/NAME.trace` with apitrace (installed
/// by `cargo xtask setup`).
fn capture(dir: &Path, program: &Path, args: &[&str]) -> PathBuf {
    let name = program.file_name().expect("name").to_string_lossy();
    let trace = dir.join(format!("{name}.trace"));
    let mut cmd = vec![program.display().to_string()];
    cmd.extend(args.iter().map(|a| a.to_string()));
    let cmd = capture_command(TraceApi::Egl, &trace, &cmd);
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .output()
        .expect("running apitrace (Debian package `apitrace`)");
    assert!(
        out.status.success() && trace.is_file(),
        "apitrace trace failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    trace
}

/// initialize + launch `program` + breakpoints at `lines` of `file` (with
/// `condition`) + configurationDone.
fn start(program: Value, extra: Value, file: &Path, lines: &[(u32, Option<&str>)]) -> Client {
    let mut c = Client::start();
    let caps = c.ok(
        "initialize",
        json!({"clientID": "test", "adapterID": "shaderdbg", "linesStartAt1": true}),
    );
    assert_eq!(caps["supportsRestartRequest"], true, "{caps}");
    c.event("initialized");
    let mut launch = json!({"program": program});
    for (k, v) in extra.as_object().expect("object") {
        launch[k] = v.clone();
    }
    c.ok("launch", launch);
    let bps: Vec<Value> = lines
        .iter()
        .map(|(line, cond)| match cond {
            Some(c) => json!({"line": line, "condition": c}),
            None => json!({"line": line}),
        })
        .collect();
    c.ok(
        "setBreakpoints",
        json!({"source": {"path": file}, "breakpoints": bps}),
    );
    c.ok("configurationDone", Value::Null);
    c
}

/// What a stop shows: thread 1's name, the top frame's name and line, the
/// draw's label, and the locals (name = value).
#[derive(Debug, PartialEq)]
struct Shown {
    thread: String,
    frame: (String, i64),
    label: String,
    locals: Vec<(String, String)>,
}

fn shown(c: &mut Client) -> Shown {
    let threads = c.ok("threads", Value::Null)["threads"].clone();
    let thread = threads[0]["name"].as_str().expect("name").to_string();
    let st = c.ok("stackTrace", json!({"threadId": 1}));
    let frames = st["stackFrames"].as_array().expect("frames").clone();
    let top = &frames[0];
    let label = frames.last().expect("label")["name"]
        .as_str()
        .expect("label")
        .to_string();
    let scopes = c.ok("scopes", json!({"frameId": top["id"]}));
    let locals = scopes["scopes"]
        .as_array()
        .expect("scopes")
        .iter()
        .find(|s| s["name"] == "Locals")
        .expect("Locals")["variablesReference"]
        .clone();
    let vars = c.ok("variables", json!({"variablesReference": locals}));
    let locals = vars["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_string(),
                v["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    Shown {
        thread,
        frame: (
            top["name"].as_str().unwrap_or_default().to_string(),
            top["line"].as_i64().unwrap_or_default(),
        ),
        label,
        locals,
    }
}

fn stopped(c: &mut Client) -> Value {
    c.event("stopped")["body"].clone()
}

fn console(c: &Client) -> String {
    c.events
        .iter()
        .filter(|e| e["event"] == "output" && e["body"]["category"] == "console")
        .filter_map(|e| e["body"]["output"].as_str())
        .collect()
}

/// Replays with `WAFFLE_PLATFORM=surfaceless_egl` (no display needed).
fn headless() -> Value {
    json!({"env": {"WAFFLE_PLATFORM": "surfaceless_egl"}})
}

#[test]
fn restart_of_a_trace_returns_to_the_same_stop() {
    let dir = TempDir::new("restart");
    let trace = capture(&dir.0, single_pass(), &["3", "64"]);
    let mut c = start(
        json!(trace),
        headless(),
        &shader_file(),
        &[(9, Some("p.x > 1.5"))],
    );
    // The first stop, then the second.
    stopped(&mut c);
    let first = shown(&mut c);
    assert!(
        first.label.starts_with("draw 0, frame 0, call "),
        "{first:?}"
    );
    c.ok("continue", json!({"threadId": 1}));
    let s = stopped(&mut c);
    assert_eq!(s["reason"], "breakpoint");
    let second = shown(&mut c);
    assert!(second.thread.starts_with("fragment (48,0)"), "{second:?}");
    assert!(
        second.label.starts_with("draw 0, frame 1, call "),
        "{second:?}"
    );
    assert!(
        second
            .locals
            .contains(&("t".to_string(), "0.125".to_string())),
        "{second:?}"
    );

    // Restart: the replay starts again and comes back to the second stop
    // (the first passes unseen).
    c.ok("restart", json!({}));
    let s = stopped(&mut c);
    assert_eq!(s["reason"], "breakpoint", "{s}");
    let again = shown(&mut c);
    assert_eq!(again, second);
    let said = console(&c);
    assert!(said.contains("back to stop 2"), "{said}");
    let stops = c.events.iter().filter(|e| e["event"] == "stopped").count();
    assert_eq!(stops, 3, "the first stop of the new replay is not shown");
    assert!(
        !c.events.iter().any(|e| e["event"] == "terminated"),
        "the session goes on"
    );

    // A step within the stop is kept too: the next line, after another restart.
    c.ok("next", json!({"threadId": 1}));
    stopped(&mut c);
    let stepped = shown(&mut c);
    assert_eq!(stepped.frame.1, 10, "{stepped:?}");
    c.ok("restart", json!({}));
    stopped(&mut c);
    assert_eq!(shown(&mut c), stepped);

    // It goes on as before: the third stop, then the end.
    c.ok("continue", json!({"threadId": 1}));
    stopped(&mut c);
    assert!(shown(&mut c).label.starts_with("draw 0, frame 2, call "));

    // A restart whose configuration (sent with it, as VS Code does) only
    // stops in frame 0 cannot come back to the third stop: the console says
    // so and the replay stops at its first stop.
    let mut only_frame_0 = headless();
    only_frame_0["program"] = json!(trace);
    only_frame_0["frame"] = json!(0);
    c.ok("restart", json!({"arguments": only_frame_0}));
    stopped(&mut c);
    assert_eq!(shown(&mut c), first);
    let said = console(&c);
    assert!(said.contains("ended before stop 3"), "{said}");
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.event("terminated");
    c.disconnect();
}

#[test]
fn restart_of_a_live_program_starts_it_again() {
    let mut c = Client::start();
    c.ok(
        "initialize",
        json!({"clientID": "test", "adapterID": "shaderdbg", "linesStartAt1": true}),
    );
    c.event("initialized");
    let message = c.fails("restart", json!({}));
    assert_eq!(message, "the program is not running");
    c.ok(
        "launch",
        json!({"program": single_pass(), "args": ["3", "64"]}),
    );
    // Launched, not started: nothing runs yet.
    c.fails("restart", json!({}));
    c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader_file()}, "breakpoints": [{"line": 9, "condition": "p.x > 1.5"}]}),
    );
    c.ok("configurationDone", Value::Null);
    stopped(&mut c);
    let first = shown(&mut c);
    c.ok("continue", json!({"threadId": 1}));
    stopped(&mut c);
    assert_eq!(shown(&mut c).label, "draw 0, frame 1");
    let pid = |c: &Client| -> Vec<i64> {
        c.events
            .iter()
            .filter(|e| e["event"] == "process")
            .filter_map(|e| e["body"]["systemProcessId"].as_i64())
            .collect()
    };

    // From the beginning: the first stop again, in a new process.
    c.ok("restart", json!({}));
    stopped(&mut c);
    assert_eq!(shown(&mut c), first);
    let pids = pid(&c);
    assert_eq!(pids.len(), 2, "{pids:?}");
    assert_ne!(pids[0], pids[1]);
    assert!(console(&c).contains("restarting"), "{}", console(&c));
    c.ok("disconnect", json!({"terminateDebuggee": true}));
}

/// For every draw of `dump_text`'s frames: the program in use (the last
/// `glUseProgram` before it).
fn programs_of_draws(dump_text: &str, frames: &DumpFrames) -> Vec<Vec<u64>> {
    let mut uses: Vec<(u64, u64)> = Vec::new();
    for line in dump_text.lines() {
        let Some((call, rest)) = line.split_once(" glUseProgram(program = ") else {
            continue;
        };
        let (Ok(call), Some(p)) = (call.parse(), rest.split(')').next()) else {
            continue;
        };
        uses.push((call, p.parse().expect("program")));
    }
    frames
        .frames
        .iter()
        .map(|f| {
            f.draws
                .iter()
                .map(|(call, _)| {
                    uses.iter()
                        .rev()
                        .find(|(u, _)| u < call)
                        .map_or(0, |(_, p)| *p)
                })
                .collect()
        })
        .collect()
}

/// The program a fragment shader whose source contains `text` is attached to.
fn program_with(dump_text: &str, text: &str) -> u64 {
    let source_at = dump_text
        .find(text)
        .expect("the shader's source in the dump");
    let line_start = dump_text[..source_at]
        .rfind(" glShaderSource(shader = ")
        .expect("glShaderSource");
    let shader: u64 = dump_text[line_start + " glShaderSource(shader = ".len()..]
        .split(',')
        .next()
        .and_then(|s| s.parse().ok())
        .expect("shader");
    let attach = format!(", shader = {shader})");
    let line = dump_text
        .lines()
        .find(|l| l.contains(" glAttachShader(program = ") && l.ends_with(&attach))
        .expect("glAttachShader");
    line.split("program = ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .expect("program")
}

#[test]
fn frames_and_draws_are_numbered_as_apitrace_dump_shows_them() {
    let dir = TempDir::new("dump");
    let multi_pass = app("multi_pass");
    let trace = capture(&dir.0, &multi_pass, &["3", "64"]);
    let out = Command::new("apitrace")
        .args(["dump", "--color=never"])
        .arg(&trace)
        .output()
        .expect("apitrace dump");
    let dump_text = String::from_utf8_lossy(&out.stdout).to_string();
    let frames = DumpFrames::parse(&dump_text);
    // Three frames, each ended by its eglSwapBuffers; two passes in each.
    assert_eq!(frames.frames.len(), 3, "{frames:?}");
    assert!(frames
        .frames
        .iter()
        .all(|f| f.swap.is_some() && f.draws.len() == 2));
    assert_eq!(DumpFrames::of(&trace).expect("apitrace dump"), frames);

    // The post pass, as the dump shows it: (frame, draw) of the draws made
    // with its program.
    let post_file = shader_file().with_file_name("multi_pass_post.frag");
    let post = program_with(&dump_text, "1.0 - s.r");
    let expected: Vec<(usize, usize)> = programs_of_draws(&dump_text, &frames)
        .iter()
        .enumerate()
        .flat_map(|(f, programs)| {
            programs
                .iter()
                .enumerate()
                .filter(|(_, p)| **p == post)
                .map(move |(d, _)| (f, d))
        })
        .collect();
    // Named as the debugger names them: draw D of frame F, and the draw's
    // call number in the dump.
    let expected: Vec<String> = expected
        .into_iter()
        .map(|(f, d)| {
            let call = frames.frames[f].draws[d].0;
            format!("draw {d}, frame {f}, call {call}")
        })
        .collect();
    assert_eq!(expected.len(), 3, "{expected:?}");

    // What the debugger says when it stops there, in every frame.
    let mut c = start(
        json!(trace),
        json!({"env": {"WAFFLE_PLATFORM": "surfaceless_egl"}, "pixel": [10, 10]}),
        &post_file,
        &[(11, None)],
    );
    let mut labels = Vec::new();
    loop {
        let e = c.wait("a stop or the exit", |v| {
            v["type"] == "event" && (v["event"] == "stopped" || v["event"] == "exited")
        });
        if e["event"] == "exited" {
            break;
        }
        labels.push(shown(&mut c).label);
        c.ok("continue", json!({"threadId": 1}));
    }
    assert_eq!(labels, expected);

    // `frame` names a frame of the dump: only frame 2's draw stops.
    let mut c2 = start(
        json!(trace),
        json!({"env": {"WAFFLE_PLATFORM": "surfaceless_egl"}, "pixel": [10, 10], "frame": 2}),
        &post_file,
        &[(11, None)],
    );
    stopped(&mut c2);
    assert_eq!(shown(&mut c2).label, expected[2]);
    c2.ok("continue", json!({"threadId": 1}));
    c2.event("exited");
    c.disconnect();
    c2.disconnect();
}
