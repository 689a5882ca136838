//! DAP sessions for hit counts, logpoints, threads, exception filters,
//! pause, loaded sources and the custom requests of the VS Code extension,
//! against the real adapter, agent and test programs.
//!
//! `single_pass.frag` (64x64): line 9 `float ring = ...`, line 10
//! `color = ...`; at pixel (x, y) of frame f: p = (x + 0.5, y + 0.5) / 32,
//! t = f * 0.125; hits come primitive by primitive, row by row.

mod client;

use base64::Engine as _;
use client::{app, shader_file, single_pass, Client};
use serde_json::{json, Value};

fn init(c: &mut Client, progress: bool) -> Value {
    let caps = c.ok(
        "initialize",
        json!({"adapterID": "shaderdbg", "linesStartAt1": true, "supportsProgressReporting": progress}),
    );
    c.event("initialized");
    caps
}

/// A session launched with `launch`, configured by `requests` (each must
/// succeed), then started with `configurationDone`.
fn launched(progress: bool, launch: Value, requests: &[(&str, Value)]) -> Client {
    let mut c = Client::start();
    init(&mut c, progress);
    c.ok("launch", launch);
    for (command, args) in requests {
        c.ok(command, args.clone());
    }
    c.ok("configurationDone", Value::Null);
    c
}

/// `setBreakpoints` in single_pass.frag.
fn in_single_pass(breakpoints: Value) -> (&'static str, Value) {
    (
        "setBreakpoints",
        json!({"source": {"path": shader_file()}, "breakpoints": breakpoints}),
    )
}

/// A single_pass session with these breakpoints in single_pass.frag.
fn single(breakpoints: Value, extra: Value) -> Client {
    let mut args = json!({"program": single_pass(), "args": ["3", "64"]});
    for (k, v) in extra.as_object().expect("object") {
        args[k] = v.clone();
    }
    launched(false, args, &[in_single_pass(breakpoints)])
}

fn stopped(c: &mut Client) -> Value {
    c.event("stopped")["body"].clone()
}

/// A session launched with `launch` that stops on the exceptions of
/// `filter`.
fn breaking_on(filter: &str, launch: Value) -> Client {
    let filters = json!({ "filters": [filter] });
    launched(false, launch, &[("setExceptionBreakpoints", filters)])
}

/// The next stop, which must be an exception's.
#[track_caller]
fn exception(c: &mut Client) -> Value {
    let s = stopped(c);
    assert_eq!(s["reason"], "exception", "{s}");
    s
}

/// The program exits with code 0; the session ends.
fn exits_with_0(mut c: Client) {
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.disconnect();
}

fn top(c: &mut Client, thread: i64) -> Value {
    c.ok("stackTrace", json!({"threadId": thread}))["stackFrames"][0].clone()
}

fn eval(c: &mut Client, expr: &str) -> String {
    c.ok("evaluate", json!({"expression": expr, "context": "watch"}))["result"]
        .as_str()
        .unwrap()
        .to_string()
}

fn p_of(x: u32, y: u32) -> String {
    format!(
        "vec2({:?}, {:?})",
        (x as f32 + 0.5) / 32.0,
        (y as f32 + 0.5) / 32.0
    )
}

fn finish(mut c: Client) {
    c.ok("disconnect", json!({"terminateDebuggee": true}));
    assert!(c.wait_closed().success());
}

fn b64(s: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(s.as_str().expect("base64 text"))
        .expect("base64")
}

#[test]
fn capabilities_declare_what_works() {
    let mut c = Client::start();
    let caps = init(&mut c, false);
    for k in [
        "supportsConditionalBreakpoints",
        "supportsHitConditionalBreakpoints",
        "supportsLogPoints",
        "supportsLoadedSourcesRequest",
        "supportsStepBack",
    ] {
        assert_eq!(caps[k], true, "{k}: {caps}");
    }
    let filters: Vec<_> = caps["exceptionBreakpointFilters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["filter"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        filters,
        [
            "nan_inf",
            "gl_error",
            "compile_error",
            "sanitize_oob",
            "sanitize_uninit",
            "sanitize_race"
        ]
    );
    let r = c.ok(
        "setExceptionBreakpoints",
        json!({"filters": ["nan_inf", "bogus"]}),
    );
    assert_eq!(r["breakpoints"][0]["verified"], true);
    assert_eq!(r["breakpoints"][1]["verified"], false);
    let msg = c.fails("shaderdbg/frameImage", json!({}));
    assert!(msg.contains("not stopped"), "{msg}");
    let msg = c.fails("shaderdbg/valuesImage", json!({"expression": "p"}));
    assert!(msg.contains("not stopped"), "{msg}");
    c.disconnect();
}

/// With a condition and a hit count, the program stops at the third
/// invocation where the condition holds, not before; the count goes on
/// across draws ("% 3" stops again in the next frame).
#[test]
fn hit_condition_counts_invocations_across_draws() {
    let mut c = single(
        json!([{"line": 9, "condition": "p.x > 1.5 && p.y < 0.1", "hitCondition": "% 40"}]),
        json!({}),
    );
    // Where the condition holds: x >= 48 in rows 0..=2, 48 invocations per
    // frame, row by row. The 40th is (55, 2) in frame 0, the 80th (63, 1)
    // in frame 1, the 120th (55, 1) in frame 2.
    for (frame, x, y) in [(0, 55, 2), (1, 63, 1), (2, 55, 1)] {
        let s = stopped(&mut c);
        assert_eq!(s["reason"], "breakpoint");
        let threads = c.ok("threads", Value::Null);
        let name = threads["threads"][0]["name"].as_str().unwrap().to_string();
        assert!(name.starts_with(&format!("fragment ({x},{y})")), "{name}");
        let st = c.ok("stackTrace", json!({"threadId": 1}));
        let frames = st["stackFrames"].as_array().unwrap();
        assert_eq!(frames[0]["line"], 9);
        assert_eq!(
            frames.last().unwrap()["name"],
            format!("draw 0, frame {frame}")
        );
        assert_eq!(eval(&mut c, "p"), p_of(x, y));
        c.ok("continue", json!({"threadId": 1}));
    }
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    let stops = c.events.iter().filter(|e| e["event"] == "stopped").count();
    assert_eq!(stops, 3);
    c.disconnect();
}

/// A logpoint prints for every invocation that reaches it, values computed
/// from the recorded trace, and the program never stops.
#[test]
fn logpoints_print_and_do_not_stop() {
    let mut c = single(
        json!([{"line": 10, "condition": "p.x > 1.96 && p.y < 0.05", "logMessage": "ring={ring} p={p} {{raw}}"}]),
        json!({}),
    );
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    assert!(
        !c.events.iter().any(|e| e["event"] == "stopped"),
        "a logpoint never stops"
    );
    let logs: Vec<String> = c
        .events
        .iter()
        .filter(|e| e["event"] == "output" && e["body"]["category"] == "console")
        .map(|e| e["body"]["output"].as_str().unwrap().to_string())
        .filter(|o| o.starts_with("[fragment"))
        .collect();
    // x = 63, y = 0 and 1, in each of 3 frames.
    assert_eq!(logs.len(), 6, "{logs:?}");
    for (i, line) in logs.iter().enumerate() {
        let (frame, y) = ((i / 2) as f32, (i % 2) as u32);
        let (px, py) = (63.5f32 / 32.0, (y as f32 + 0.5) / 32.0);
        let t = frame * 0.125;
        let ring = (((px - 1.0).powi(2) + (py - 1.0).powi(2)).sqrt() * 2.0 - t).fract();
        assert!(
            line.starts_with(&format!("[fragment (63,{y}) prim")),
            "{line}"
        );
        let got: f32 = line
            .split("ring=")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!((got - ring).abs() < 1e-5, "{line}: ring {ring}");
        assert!(line.contains(&format!("p={}", p_of(63, y))), "{line}");
        assert!(line.trim_end().ends_with("{raw}"), "{line}");
    }
    c.disconnect();
}

/// frameImage, valuesImage (values checked against the pixel), loadedSources,
/// a breakpoint in a shader that exists only as a string, debugPixel.
#[test]
fn custom_requests_and_loaded_sources() {
    let mut c = launched(
        true,
        json!({"program": single_pass(), "args": ["3", "64"]}),
        &[in_single_pass(
            json!([{"line": 10, "condition": "p.x > 1.5"}]),
        )],
    );
    assert_eq!(stopped(&mut c)["reason"], "breakpoint");
    assert!(
        c.events.iter().any(|e| e["event"] == "progressStart"),
        "launch progress"
    );

    let img = c.ok("shaderdbg/frameImage", json!({}));
    assert_eq!(
        (img["width"].as_u64(), img["height"].as_u64()),
        (Some(64), Some(64))
    );
    assert_eq!(img["frame"], 0);
    assert_eq!(img["draw"], 0);
    assert_eq!(
        (&img["shows"], &img["origin"]),
        (&json!("beforeDraw"), &json!("bottomLeft"))
    );
    let png = b64(&img["png"]);
    assert_eq!(&png[1..4], b"PNG");

    let v = c.ok("shaderdbg/valuesImage", json!({"expression": "p"}));
    assert_eq!(v["type"], "vec2");
    assert_eq!(v["line"], 10);
    assert_eq!(v["components"], 2);
    let (w, h) = (
        v["width"].as_u64().unwrap() as usize,
        v["height"].as_u64().unwrap() as usize,
    );
    assert_eq!((w, h), (64, 64));
    let data = b64(&v["data"]);
    let covered = b64(&v["covered"]);
    assert_eq!(data.len(), w * h * 2 * 4);
    assert!(covered.iter().all(|&c| c == 1), "a full-screen draw");
    let at = |x: usize, y: usize, k: usize| {
        let i = ((y * w + x) * 2 + k) * 4;
        f32::from_le_bytes(data[i..i + 4].try_into().unwrap())
    };
    assert_eq!(at(10, 20, 0), 10.5 / 32.0);
    assert_eq!(at(10, 20, 1), 20.5 / 32.0);
    assert_eq!(v["min"], json!([0.5 / 32.0, 0.5 / 32.0]));
    assert_eq!(v["max"], json!([63.5 / 32.0, 63.5 / 32.0]));
    assert_eq!((v["nan"].as_u64(), v["inf"].as_u64()), (Some(0), Some(0)));
    let ring = c.ok("shaderdbg/valuesImage", json!({"expression": "ring > 0.5"}));
    assert_eq!(ring["type"], "bool");
    let msg = c.fails("shaderdbg/valuesImage", json!({"expression": "nope + 1.0"}));
    assert!(msg.contains("nope"), "{msg}");

    // The vertex shader has no file: a sourceReference, with its text.
    let sources = c.ok("loadedSources", json!({}))["sources"].clone();
    let sources = sources.as_array().unwrap();
    assert!(
        sources
            .iter()
            .any(|s| s["path"] == json!(shader_file().display().to_string())),
        "{sources:?}"
    );
    let vert = sources
        .iter()
        .find(|s| s["sourceReference"].as_i64().is_some_and(|r| r > 0))
        .unwrap_or_else(|| panic!("a shader without a file: {sources:?}"))
        .clone();
    let text = c.ok(
        "source",
        json!({"source": vert, "sourceReference": vert["sourceReference"]}),
    );
    let text = text["content"].as_str().unwrap().to_string();
    assert!(text.contains("gl_Position"), "{text}");
    let line = text
        .lines()
        .position(|l| l.contains("gl_Position"))
        .unwrap() as i64
        + 1;
    let set = c.ok(
        "setBreakpoints",
        json!({"source": vert, "breakpoints": [{"line": line}]}),
    );
    let id = set["breakpoints"][0]["id"].clone();
    assert_eq!(
        set["breakpoints"][0]["source"]["sourceReference"],
        vert["sourceReference"]
    );
    let bound = c.wait("the breakpoint in the shader text verified", |m| {
        m["event"] == "breakpoint" && m["body"]["breakpoint"]["id"] == id
    });
    assert_eq!(bound["body"]["breakpoint"]["verified"], true, "{bound}");
    c.ok("setBreakpoints", json!({"source": vert, "breakpoints": []}));

    // Pixel history of (5, 7) in the next frame: the draw covering it stops at main.
    let r = c.ok("shaderdbg/debugPixel", json!({"x": 5, "y": 7}));
    assert_eq!(r["frame"], 1);
    let s = stopped(&mut c);
    assert_eq!(s["reason"], "entry", "{s}");
    assert_eq!(s["description"], "Pixel (5, 7) history");
    let threads = c.ok("threads", Value::Null);
    assert!(threads["threads"][0]["name"]
        .as_str()
        .unwrap()
        .starts_with("fragment (5,7)"));
    let st = c.ok("stackTrace", json!({"threadId": 1}));
    assert_eq!(
        st["stackFrames"].as_array().unwrap().last().unwrap()["name"],
        "draw 0, frame 1"
    );
    c.ok("next", json!({"threadId": 1}));
    stopped(&mut c);
    assert_eq!(eval(&mut c, "p"), p_of(5, 7));
    // Continue: the rest of frame 1 is filtered to the pixel; after it the
    // previous filter comes back (from the agent's next look at its
    // messages: frame 2's draw may come first), so the program either stops
    // at the breakpoint in frame 2 or runs to its end.
    c.ok("continue", json!({"threadId": 1}));
    let m = c.wait("a stop or the exit", |m| {
        m["event"] == "stopped" || m["event"] == "exited"
    });
    if m["event"] == "stopped" {
        assert_eq!(m["body"]["reason"], "breakpoint", "{m}");
        let st = c.ok("stackTrace", json!({"threadId": 1}));
        assert_eq!(
            st["stackFrames"].as_array().unwrap().last().unwrap()["name"],
            "draw 0, frame 2"
        );
    }
    finish(c);
}

/// Threads are the invocations that hit; each is recorded when asked for
/// and shows its own values.
#[test]
fn threads_switch_invocations() {
    let mut c = single(
        json!([{"line": 10, "condition": "p.y > 1.9"}]),
        json!({"frame": 0}),
    );
    stopped(&mut c);
    let threads = c.ok("threads", Value::Null)["threads"].clone();
    let threads = threads.as_array().unwrap().clone();
    assert!(threads.len() >= 3, "{threads:?}");
    for t in &threads[..3] {
        let id = t["id"].as_i64().unwrap();
        let name = t["name"].as_str().unwrap();
        let xy: Vec<u32> = name["fragment (".len()..]
            .split(')')
            .next()
            .unwrap()
            .split(',')
            .map(|n| n.parse().unwrap())
            .collect();
        let frame = top(&mut c, id);
        assert_eq!(frame["line"], 10);
        let p = c.ok(
            "evaluate",
            json!({"expression": "p", "frameId": frame["id"], "context": "hover"}),
        );
        assert_eq!(p["result"], p_of(xy[0], xy[1]), "{name}");
        let ring = c.ok(
            "evaluate",
            json!({"expression": "ring", "frameId": frame["id"]}),
        )["result"]
            .as_str()
            .unwrap()
            .parse::<f32>()
            .unwrap();
        let (px, py) = ((xy[0] as f32 + 0.5) / 32.0, (xy[1] as f32 + 0.5) / 32.0);
        let want = (((px - 1.0).powi(2) + (py - 1.0).powi(2)).sqrt() * 2.0).fract();
        assert!((ring - want).abs() < 1e-5, "{name}: {ring} vs {want}");
        // Stepping a thread moves that thread.
        c.ok("next", json!({"threadId": id}));
        let s = stopped(&mut c);
        assert_eq!(s["threadId"], id);
    }
    finish(c);
}

/// Bad input: a breakpoint in a file no shader uses stays unverified; a
/// condition that does not parse comes back unverified with the parser's
/// message; the program ends normally.
#[test]
fn unusable_breakpoints_are_unverified_with_a_reason() {
    let dir = std::env::temp_dir().join(format!("shaderdbg-dap-features-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let other = dir.join("unused.frag");
    std::fs::write(&other, "void main() {\n    gl_FragColor = vec4(1.0);\n}\n").unwrap();
    let mut c = Client::start();
    init(&mut c, false);
    c.ok(
        "launch",
        json!({"program": single_pass(), "args": ["2", "64"]}),
    );
    let unused = c.ok(
        "setBreakpoints",
        json!({"source": {"path": other}, "breakpoints": [{"line": 2}]}),
    );
    let set = c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader_file()}, "breakpoints": [{"line": 9, "condition": "p.x >"}]}),
    );
    c.ok("configurationDone", Value::Null);
    let id = set["breakpoints"][0]["id"].clone();
    let b = c.wait("the bad condition's breakpoint event", |m| {
        m["event"] == "breakpoint" && m["body"]["breakpoint"]["id"] == id
    });
    assert_eq!(b["body"]["breakpoint"]["verified"], false);
    let msg = b["body"]["breakpoint"]["message"].as_str().unwrap();
    assert!(msg.contains("p.x >"), "{msg}");
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    let unused_id = unused["breakpoints"][0]["id"].clone();
    assert!(!c
        .events
        .iter()
        .any(|e| e["event"] == "breakpoint" && e["body"]["breakpoint"]["id"] == unused_id));
    assert!(!c.events.iter().any(|e| e["event"] == "stopped"));
    c.disconnect();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The program dies while stopped: exited and terminated, no hang.
#[test]
fn a_program_killed_mid_stop_ends_the_session() {
    let mut c = single(json!([{"line": 9}]), json!({}));
    stopped(&mut c);
    let pid = c.event("process")["body"]["systemProcessId"]
        .as_i64()
        .unwrap();
    // SAFETY: a plain kill(2) of the program this test started.
    unsafe { libc_kill(pid as i32) };
    let exited = c.event("exited");
    assert_ne!(exited["body"]["exitCode"], 0);
    c.event("terminated");
    let msg = c.fails("next", json!({"threadId": 1}));
    assert!(msg.contains("not stopped"), "{msg}");
    c.disconnect();
}

unsafe fn libc_kill(pid: i32) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    kill(pid, 9);
}

/// `pause` while running stops at the next draw, at the start of main.
#[test]
fn pause_stops_at_the_next_draw() {
    let mut c = launched(
        false,
        json!({"program": app("features"), "args": ["plain", "100000", "32", "32"]}),
        &[],
    );
    c.event("process");
    c.ok("pause", json!({"threadId": 1}));
    let s = stopped(&mut c);
    assert_eq!(s["reason"], "pause", "{s}");
    let frame = top(&mut c, 1);
    assert_eq!(frame["name"], "main");
    finish(c);
}

const BROKEN: &str = "#version 330 core
out vec4 color;
void main() {
    vec2 uv = gl_FragCoord.xy / 64.0;
    color = vec4(uv, undefined_thing, 1.0);
}
";

/// `compile_error`: the program halts in the compile of a shader that
/// fails, at the error's line of the file, the info log as description.
#[test]
fn compile_error_exception_stops_at_the_line() {
    single_pass();
    let dir = std::env::temp_dir().join(format!("shaderdbg-dap-broken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shader = dir.join("broken.frag");
    std::fs::write(&shader, BROKEN).unwrap();
    let shader = shader.canonicalize().unwrap();
    let mut c = breaking_on(
        "compile_error",
        json!({"program": shader, "args": ["--size", "16x16"]}),
    );
    let s = exception(&mut c);
    assert!(
        s["description"]
            .as_str()
            .unwrap()
            .contains("undefined_thing"),
        "{s}"
    );
    assert!(
        s["text"].as_str().unwrap().contains("failed to compile"),
        "{s}"
    );
    let st = c.ok("stackTrace", json!({"threadId": 1}));
    let f = &st["stackFrames"][0];
    assert_eq!(f["line"], 5, "{st}");
    assert_eq!(f["source"]["path"], json!(shader.display().to_string()));
    let scopes = c.ok("scopes", json!({"frameId": f["id"]}));
    assert_eq!(scopes["scopes"], json!([]));
    c.ok("continue", json!({"threadId": 1}));
    let code = c.event("exited")["body"]["exitCode"].clone();
    assert_ne!(code, 0, "the host fails on a broken shader");
    c.disconnect();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `nan_inf`: the fragment at (2, 3) of frame 1 writes an infinity.
#[test]
fn nan_inf_exception_stops_at_the_writing_fragment() {
    let mut c = breaking_on(
        "nan_inf",
        json!({"program": app("features"), "args": ["nan", "3", "32", "32"]}),
    );
    let s = exception(&mut c);
    assert_eq!(s["description"], "NaN or Inf written to an output");
    let threads = c.ok("threads", Value::Null);
    assert!(threads["threads"][0]["name"]
        .as_str()
        .unwrap()
        .starts_with("fragment (2,3)"));
    let st = c.ok("stackTrace", json!({"threadId": 1}));
    let frames = st["stackFrames"].as_array().unwrap();
    assert_eq!(frames.last().unwrap()["name"], "draw 0, frame 1");
    assert_eq!(eval(&mut c, "d"), "0.0");
    c.ok("continue", json!({"threadId": 1}));
    exits_with_0(c);
}

/// `sanitize_oob`: the off-by-one kernel of `oob_compute` stops as an
/// exception, described like the command line's report, with the reported
/// invocation as the thread and its trace at the reported statement; each
/// report of the dispatch is a stop of its own.
#[test]
fn sanitizer_exception_stops_at_the_out_of_bounds_statement() {
    let mut c = breaking_on(
        "sanitize_oob",
        json!({"program": app("oob_compute"), "args": ["2"]}),
    );
    // One stop per report: `continue` goes to the next report of the
    // dispatch (the agent stays at it), then to the next dispatch (frame 1
    // has the same two bugs), then the program ends.
    for frame in 0..2 {
        for (array, line) in [("src", 12), ("dst", 13)] {
            let s = exception(&mut c);
            let d = s["description"].as_str().unwrap();
            assert_eq!(
                d.split(" at ").next(),
                Some(format!("out-of-bounds index 32 into {array}[] (32 elements)").as_str()),
                "frame {frame}: {d}"
            );
            assert!(d.ends_with(&format!(":{line} in compute (7,0,0)")), "{d}");
            let threads = c.ok("threads", Value::Null);
            let threads = threads["threads"].as_array().unwrap();
            assert_eq!(threads.len(), 1, "one invocation: {threads:?}");
            assert!(threads[0]["name"]
                .as_str()
                .unwrap()
                .starts_with("compute (7,0,0)"));
            let frame = top(&mut c, s["threadId"].as_i64().expect("thread"));
            assert_eq!(frame["line"], line, "{frame}");
            assert_eq!(eval(&mut c, "base"), "28u");
            // At the execution that went out of bounds (the loop's last).
            assert_eq!(eval(&mut c, "k"), "4u");
            c.ok("continue", json!({"threadId": 1}));
        }
    }
    exits_with_0(c);
}

/// A draw whose fragments each make three out-of-bounds reports (an
/// invocation keeps two; `tests/apps/shaders/lost_reports.frag`): the
/// debug console says, with the first stop,
/// that the others were lost.
#[test]
fn sanitizer_reports_lost_to_the_cap_are_told_on_the_console() {
    let frag = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/apps/shaders/lost_reports.frag");
    let mut c = breaking_on(
        "sanitize_oob",
        json!({"program": app("sanitize_draw"), "args": [frag]}),
    );
    let lost = "sanitizer: more reports than the agent keeps were found at this dispatch or draw";
    let console = |c: &Client| -> Vec<String> {
        c.events
            .iter()
            .filter(|e| e["event"] == "output" && e["body"]["category"] == "console")
            .filter_map(|e| e["body"]["output"].as_str().map(str::to_string))
            .filter(|o| o.starts_with("sanitizer: "))
            .collect()
    };
    for report in 0..2 {
        exception(&mut c);
        let said = console(&c);
        assert_eq!(
            said.iter().filter(|o| o.starts_with(lost)).count(),
            1,
            "report {report}: {said:?}"
        );
        c.ok("continue", json!({"threadId": 1}));
    }
    exits_with_0(c);
}

/// `sanitize_race`: the reduction of `race_compute` misses a barrier; it
/// stops as an exception whose description names the shared element, both
/// invocations and both lines, with the reading invocation as the thread at
/// its read.
#[test]
fn sanitizer_race_stops_with_both_invocations_in_the_description() {
    let mut c = breaking_on(
        "sanitize_race",
        json!({"program": app("race_compute"), "args": ["1"]}),
    );
    let s = exception(&mut c);
    let d = s["description"].as_str().unwrap();
    assert!(d.starts_with("data race on shared float tile["), "{d}");
    assert!(d.contains(",0,0) wrote at line 19, invocation ("), "{d}");
    assert!(
        d.ends_with(",0,0) read at line 18, no barrier between"),
        "{d}"
    );
    // Both invocations are threads: the reader at its read, the writer
    // at its write.
    let threads = c.ok("threads", Value::Null);
    let threads = threads["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 2, "{threads:?}");
    let named = |who: &str| who.split(' ').next().unwrap_or_default().to_string();
    let mut parts = d.split("invocation ").skip(1);
    let (writer, reader) = (
        named(parts.next().unwrap_or_default()),
        named(parts.next().unwrap_or_default()),
    );
    for (thread, (who, line)) in threads.iter().zip([(reader, 18), (writer, 19)]) {
        let name = thread["name"].as_str().unwrap();
        assert!(
            name.starts_with(&format!("compute {who}")),
            "{threads:?} {d}"
        );
        let frame = top(&mut c, thread["id"].as_i64().expect("thread"));
        assert_eq!(frame["line"], line, "{name}: {frame}");
    }
    c.ok("continue", json!({"threadId": 1}));
    exits_with_0(c);
}

/// A race stop, message by message (the transcript): the
/// exception stop with its description, both invocations as threads, the
/// stack of each, the reader's locals, `continue` to the program's end.
/// Paths and work groups normalised, the program's output and process
/// events left out.
#[test]
fn sanitizer_race_transcript_snapshot() {
    let program = app("race_compute");
    let mut c = breaking_on("sanitize_race", json!({"program": program, "args": ["1"]}));
    stopped(&mut c);
    let threads = c.ok("threads", Value::Null);
    let ids: Vec<i64> = threads["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .filter_map(|t| t["id"].as_i64())
        .collect();
    assert_eq!(ids.len(), 2, "{threads}");
    let mut frames = Vec::new();
    for id in &ids {
        let st = c.ok("stackTrace", json!({"threadId": id}));
        frames.push(st["stackFrames"][0].clone());
    }
    let scopes = c.ok("scopes", json!({"frameId": frames[0]["id"]}));
    let locals = scopes["scopes"][0]["variablesReference"].clone();
    c.ok("variables", json!({"variablesReference": locals}));
    // Each further report of the dispatch is a stop of its own.
    loop {
        c.ok("continue", json!({"threadId": 1}));
        let e = c.wait("a stop or the end", |v| {
            v["type"] == "event" && (v["event"] == "stopped" || v["event"] == "exited")
        });
        if e["event"] == "exited" {
            assert_eq!(e["body"]["exitCode"], 0, "{e}");
            break;
        }
    }
    c.event("terminated");
    c.disconnect();

    let root = client::repo_root().display().to_string();
    let text =
        c.render(|v| !["output", "process", "exited"].contains(&v["event"].as_str().unwrap_or("")));
    let text = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(&l[3..]).expect("json");
            if l.starts_with("<- ") {
                if let Some(o) = v.as_object_mut() {
                    o.remove("seq");
                }
            }
            format!(
                "{}{}\n",
                &l[..3],
                v.to_string()
                    .replace(&program.display().to_string(), "$APP")
                    .replace(&root, "$ROOT")
            )
        })
        .collect::<String>();
    expect_test::expect_file!["snapshots/race.dap"].assert_eq(&within_work_group(&text, 16));
}

/// Compute invocations `(x,0,0)` as `(x mod size,0,0)`: which of
/// race_compute's two work groups reports the race first varies (llvmpipe
/// runs them on threads of their own), the race within it does not.
fn within_work_group(text: &str, size: u32) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('(') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        match rest[..digits].parse::<u32>() {
            Ok(x) if rest[digits..].starts_with(",0,0)") => {
                out.push_str(&(x % size).to_string());
                rest = &rest[digits..];
            }
            _ => {}
        }
    }
    out.push_str(rest);
    out
}

/// `gl_error`: the program halts in the call that raised the error; the
/// stack is one label frame naming it.
#[test]
fn gl_error_exception_names_the_call() {
    let mut c = breaking_on(
        "gl_error",
        json!({"program": app("features"), "args": ["glerror", "1", "32", "32"]}),
    );
    let s = exception(&mut c);
    let d = s["description"].as_str().unwrap();
    assert!(
        d.contains("GL_INVALID_VALUE") && d.contains("glUseProgram"),
        "{d}"
    );
    let threads = c.ok("threads", Value::Null);
    assert_eq!(threads["threads"][0]["name"], "GL error in glUseProgram");
    let st = c.ok("stackTrace", json!({"threadId": 1}));
    let frames = st["stackFrames"].as_array().unwrap();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["presentationHint"], "label");
    assert!(frames[0]["name"]
        .as_str()
        .unwrap()
        .starts_with("glUseProgram"));
    let msg = c.fails("evaluate", json!({"expression": "x"}));
    assert!(msg.contains("outside a draw"), "{msg}");
    // The app raises a second error (in a call the agent does not
    // intercept: reported at the next one it does).
    c.ok("continue", json!({"threadId": 1}));
    loop {
        let m = c.wait("a stop or the exit", |m| {
            m["event"] == "stopped" || m["event"] == "exited"
        });
        if m["event"] == "exited" {
            assert_eq!(m["body"]["exitCode"], 0);
            break;
        }
        assert_eq!(m["body"]["reason"], "exception");
        c.ok("continue", json!({"threadId": 1}));
    }
    c.disconnect();
}

/// What the CPU cannot evaluate faithfully is watched on the GPU in the
/// stopped draw: p = gl_FragCoord.xy / 32, so dFdx(p.x) = 1/32 everywhere.
#[test]
fn derivatives_are_evaluated_on_the_gpu() {
    let mut c = single(
        json!([{"line": 10, "condition": "p.y > 1.9"}]),
        json!({"frame": 0}),
    );
    stopped(&mut c);
    let d: f32 = eval(&mut c, "dFdx(p.x)").parse().expect("a float");
    assert_eq!(d, 1.0 / 32.0);
    // Mixed: the CPU evaluates around the GPU's part.
    let v = eval(&mut c, "vec2(dFdy(p.y) * 32.0, p.y > 1.9)");
    assert_eq!(v, "vec2(1.0, 1.0)");
    finish(c);
}

/// Regression: a NaN written by the second statement of a line stopped on
/// the line's first statement (the hit named only the line), where `a` was
/// not written yet. The hit now names its step.
#[test]
fn nan_inf_stop_is_on_the_writing_statement_of_a_shared_line() {
    let dir = std::env::temp_dir().join(format!("shaderdbg-dap-nan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shader = dir.join("nan.frag");
    std::fs::write(
        &shader,
        "#version 330 core\n\
         out vec4 color;\n\
         void main() {\n\
         \x20   float zero = gl_FragCoord.x - gl_FragCoord.x;\n\
         \x20   float a = 2.0; color = vec4(a / zero);\n\
         }\n",
    )
    .expect("shader");
    let mut c = breaking_on("nan_inf", json!({"program": shader, "frame": 0}));
    let s = exception(&mut c);
    let frame = top(&mut c, s["threadId"].as_i64().expect("thread"));
    assert_eq!(frame["line"], 5, "{frame}");
    assert_eq!(eval(&mut c, "a"), "2.0");
    finish(c);
}
