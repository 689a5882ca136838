//! Full DAP sessions against the real adapter binary over a real pipe, on a
//! real program (`single_pass` from the test apps) under the real agent.
//!
//! `single_pass.frag` line 9 is `float ring = ...`, line 10 `color = ...`;
//! at pixel (x, y) of frame f: p = (x + 0.5, y + 0.5) / 32, t = f * 0.125.

mod client;

use client::{repo_root, shader_file, single_pass, Client};
use serde_json::{json, Value};

fn launch_args(extra: Value) -> Value {
    let mut a = json!({
        "program": single_pass(),
        "args": ["3", "64"],
    });
    for (k, v) in extra.as_object().expect("object") {
        a[k] = v.clone();
    }
    a
}

/// initialize + launch + the breakpoint at line 9 with `condition` +
/// configurationDone; returns the client and the setBreakpoints body.
fn start(extra: Value, condition: Option<&str>) -> (Client, Value) {
    let mut c = Client::start();
    let caps = c.ok(
        "initialize",
        json!({"clientID": "test", "adapterID": "shaderdbg", "linesStartAt1": true}),
    );
    assert_eq!(caps["supportsConfigurationDoneRequest"], true);
    c.event("initialized");
    c.ok("launch", launch_args(extra));
    let mut bp = json!({"line": 9});
    if let Some(cond) = condition {
        bp["condition"] = json!(cond);
    }
    let set = c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader_file()}, "breakpoints": [bp]}),
    );
    c.ok("configurationDone", Value::Null);
    (c, set)
}

fn top_frame(c: &mut Client) -> Value {
    c.frames()[0].clone()
}

/// name -> variable, of one scope of the top frame.
fn scope_vars(c: &mut Client, scope: &str) -> serde_json::Map<String, Value> {
    c.scope_vars(scope)
}

fn evaluate(c: &mut Client, expr: &str, context: &str) -> Value {
    c.ok("evaluate", json!({"expression": expr, "context": context}))
}

fn stopped(c: &mut Client) -> Value {
    c.event("stopped")["body"].clone()
}

/// `command` on thread 1, then its stop: the top frame there.
fn step(c: &mut Client, command: &str) -> Value {
    c.ok(command, json!({"threadId": 1}));
    stopped(c);
    top_frame(c)
}

#[test]
fn conditional_breakpoint_step_inspect_continue_to_exit() {
    let (mut c, set) = start(json!({}), Some("p.x > 1.5"));
    let b = &set["breakpoints"][0];
    assert_eq!(b["verified"], false, "unverified until bound: {set}");
    assert_eq!(b["line"], 9);

    let bound = c.event("breakpoint")["body"].clone();
    assert_eq!(bound["reason"], "changed");
    assert_eq!(bound["breakpoint"]["id"], b["id"]);
    assert_eq!(bound["breakpoint"]["verified"], true, "{bound}");
    assert_eq!(bound["breakpoint"]["line"], 9);

    let s = stopped(&mut c);
    assert_eq!(s["reason"], "breakpoint");
    assert_eq!(s["threadId"], 1);
    assert_eq!(s["allThreadsStopped"], true);
    assert_eq!(s["hitBreakpointIds"], json!([b["id"]]));

    // The first fragment where p.x > 1.5 holds: x = 48 in row 0.
    let threads = c.ok("threads", Value::Null)["threads"].clone();
    let threads = threads.as_array().unwrap();
    assert_eq!(threads[0]["id"], 1);
    let name = threads[0]["name"].as_str().unwrap();
    assert!(name.starts_with("fragment (48,0)"), "{name}");
    assert!(threads.len() > 1, "every invocation that hit is a thread");
    assert!(threads[1]["name"]
        .as_str()
        .unwrap()
        .starts_with("fragment (49,0)"));
    // Another thread: recorded when first asked for, with its own values.
    let other = threads[1]["id"].clone();
    let st = c.ok("stackTrace", json!({"threadId": other}));
    let frame2 = st["stackFrames"][0].clone();
    assert_eq!(frame2["line"], 9);
    let p2 = c.ok(
        "evaluate",
        json!({"expression": "p", "frameId": frame2["id"], "context": "watch"}),
    );
    assert_eq!(
        p2["result"],
        format!("vec2({:?}, {:?})", 49.5f32 / 32.0, 0.5f32 / 32.0)
    );
    let msg = c.fails("stackTrace", json!({"threadId": 999}));
    assert!(msg.contains("no thread 999"), "{msg}");

    let st = c.ok("stackTrace", json!({"threadId": 1}));
    let frames = st["stackFrames"].as_array().unwrap();
    assert_eq!(frames[0]["name"], "main");
    assert_eq!(frames[0]["line"], 9);
    assert_eq!(
        frames[0]["source"]["path"],
        json!(shader_file().display().to_string())
    );
    let label = frames.last().unwrap();
    assert_eq!(label["name"], "draw 0, frame 0");
    assert_eq!(label["presentationHint"], "label");

    let locals = scope_vars(&mut c, "Locals");
    let p = &locals["p"];
    assert_eq!(p["type"], "vec2");
    let (px, py) = (48.5f32 / 32.0, 0.5f32 / 32.0);
    assert_eq!(p["value"], format!("vec2({px:?}, {py:?})"));
    assert_eq!(locals["t"]["value"], "0.0");
    let parts = c.ok(
        "variables",
        json!({"variablesReference": p["variablesReference"]}),
    );
    let parts = parts["variables"].as_array().unwrap();
    assert_eq!(parts[0]["name"], "x");
    assert_eq!(parts[0]["value"], format!("{px:?}"));
    assert_eq!(parts[1]["evaluateName"], "p.y");
    let builtins = scope_vars(&mut c, "Built-ins");
    assert!(builtins.contains_key("gl_FragCoord"), "{builtins:?}");
    let inputs = scope_vars(&mut c, "Inputs & Uniforms");
    assert_eq!(inputs["frame"]["value"], "0", "{inputs:?}");

    assert_eq!(
        evaluate(&mut c, "p.x", "hover")["result"],
        format!("{px:?}")
    );
    let yx = evaluate(&mut c, "p.yx", "watch");
    assert_eq!(yx["result"], format!("vec2({py:?}, {px:?})"));
    assert_eq!(yx["type"], "vec2");
    assert_eq!(evaluate(&mut c, "p.x > 1.5", "repl")["result"], "true");
    // Built-in functions: evaluated, or said not to be (evaluator-dependent).
    let r = c.request(
        "evaluate",
        json!({"expression": "length(p)", "context": "repl"}),
    );
    if r["success"] == true {
        let len: f32 = r["body"]["result"].as_str().unwrap().parse().unwrap();
        assert!((len - (px * px + py * py).sqrt()).abs() < 1e-5, "{len}");
    } else {
        assert!(r["message"].as_str().unwrap().contains("length"), "{r}");
    }
    let msg = c.fails(
        "evaluate",
        json!({"expression": "nope", "context": "hover"}),
    );
    assert!(msg.contains("no variable") && msg.contains("nope"), "{msg}");

    // Errors in the middle of a session are answered and change nothing.
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    let bad = c.wait("the malformed frame's response", |v| {
        v["type"] == "response" && v["success"] == false && v["request_seq"] == 0
    });
    assert!(
        bad["message"].as_str().unwrap().contains("malformed JSON"),
        "{bad}"
    );
    let msg = c.fails("frobnicate", json!({}));
    assert!(msg.contains("unknown"), "{msg}");
    let msg = c.fails("next", json!({"thread": 1}));
    assert!(msg.contains("invalid arguments for `next`"), "{msg}");
    // Already stopped: pause changes nothing.
    c.ok("pause", json!({"threadId": 1}));

    c.ok("next", json!({"threadId": 1}));
    assert_eq!(stopped(&mut c)["reason"], "step");
    assert_eq!(top_frame(&mut c)["line"], 10);
    let locals = scope_vars(&mut c, "Locals");
    let t = 0.0f32;
    let ring =
        ((((px - 1.0) * (px - 1.0) + (py - 1.0) * (py - 1.0)).sqrt() * 2.0 - t).fract()) as f64;
    let got: f64 = locals["ring"]["value"].as_str().unwrap().parse().unwrap();
    assert!((got - ring).abs() < 1e-5, "ring {got} vs {ring}");

    assert_eq!(step(&mut c, "stepBack")["line"], 9);
    assert_eq!(step(&mut c, "stepIn")["line"], 10);
    c.ok("reverseContinue", json!({"threadId": 1}));
    assert_eq!(stopped(&mut c)["reason"], "breakpoint");
    assert_eq!(top_frame(&mut c)["line"], 9);
    assert_eq!(
        step(&mut c, "stepOut")["line"],
        9,
        "main has no caller: stays"
    );

    // A breakpoint added during the stop goes to the running program (and
    // is verified when it binds); continue within the recorded trace
    // honours it too (its condition evaluated over the recorded values).
    let set = c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader_file()}, "breakpoints": [
            {"line": 9, "condition": "p.x > 1.5"}, {"line": 10, "condition": "ring >= 0.0"}]}),
    );
    assert_eq!(
        set["breakpoints"][0]["id"], b["id"],
        "unchanged: same breakpoint"
    );
    assert_eq!(set["breakpoints"][0]["verified"], true);
    assert_eq!(set["breakpoints"][1]["verified"], false);
    let late_id = set["breakpoints"][1]["id"].clone();
    let bound = c.wait("the late breakpoint verified", |v| {
        v["event"] == "breakpoint" && v["body"]["breakpoint"]["id"] == late_id
    });
    assert_eq!(bound["body"]["breakpoint"]["verified"], true, "{bound}");
    assert_eq!(bound["body"]["breakpoint"]["line"], 10);
    let r = c.ok("continue", json!({"threadId": 1}));
    assert_eq!(r["allThreadsContinued"], false);
    let s = stopped(&mut c);
    assert_eq!(s["reason"], "breakpoint");
    assert_eq!(s["hitBreakpointIds"], json!([set["breakpoints"][1]["id"]]));
    assert_eq!(top_frame(&mut c)["line"], 10);
    c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader_file()}, "breakpoints": [{"line": 9, "condition": "p.x > 1.5"}]}),
    );

    // No later breakpoint step in this trace: the program runs to the next
    // draw that hits, in the next frame.
    let r = c.ok("continue", json!({"threadId": 1}));
    assert_eq!(r["allThreadsContinued"], true);
    assert_eq!(stopped(&mut c)["reason"], "breakpoint");
    let st = c.ok("stackTrace", json!({"threadId": 1}));
    let frames = st["stackFrames"].as_array().unwrap();
    assert_eq!(frames.last().unwrap()["name"], "draw 0, frame 1");
    assert_eq!(scope_vars(&mut c, "Locals")["t"]["value"], "0.125");
    // Every breakpoint removed: the program no longer stops.
    c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader_file()}, "breakpoints": []}),
    );
    let stops_before = c.events.iter().filter(|e| e["event"] == "stopped").count();
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    let stops_after = c.events.iter().filter(|e| e["event"] == "stopped").count();
    assert_eq!(stops_before, stops_after, "no stop at a removed breakpoint");
    c.event("terminated");
    c.disconnect();
    let out = c.stdout_lines();
    assert_eq!(out.len(), 3, "the program's own output is forwarded");
}

#[test]
fn pixel_frame_values_and_disconnect_mid_stop() {
    let (mut c, _) = start(json!({"pixel": [50, 10], "frame": 1}), Some("p.x > 1.5"));
    assert_eq!(stopped(&mut c)["reason"], "breakpoint");
    let threads = c.ok("threads", Value::Null);
    assert_eq!(threads["threads"].as_array().unwrap().len(), 1);
    assert_eq!(threads["threads"][0]["name"], "fragment (50,10) prim 0");
    let locals = scope_vars(&mut c, "Locals");
    let (px, py) = (50.5f32 / 32.0, 10.5f32 / 32.0);
    assert_eq!(locals["p"]["value"], format!("vec2({px:?}, {py:?})"));
    assert_eq!(locals["t"]["value"], "0.125");
    assert_eq!(
        evaluate(&mut c, "p.y", "hover")["result"],
        format!("{py:?}")
    );

    // Disconnect while the program is blocked in the draw: it is released
    // and runs to its normal end.
    let seq = c.send("disconnect", json!({}));
    let exited = c.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0);
    let r = c.response(seq);
    assert_eq!(r["success"], true);
    c.event("terminated");
    assert!(c.wait_closed().success());
    let stdout = c.stdout_lines().len();
    assert_eq!(stdout, 3, "all frames rendered after the disconnect");
}

#[test]
fn a_client_that_goes_away_mid_stop_releases_the_program() {
    let (mut c, _) = start(json!({}), Some("p.x > 1.5"));
    stopped(&mut c);
    c.close_input();
    assert!(c.wait_closed().success());
    let exited = c.events.iter().find(|e| e["event"] == "exited");
    assert_eq!(
        exited.map(|e| e["body"]["exitCode"].clone()),
        Some(json!(0))
    );
    let stdout = c.stdout_lines().len();
    assert_eq!(stdout, 3, "the program ran to its end");
}

#[test]
fn terminate_ends_the_program() {
    let (mut c, _) = start(json!({}), None);
    stopped(&mut c);
    c.ok("terminate", json!({}));
    let exited = c.event("exited");
    assert_ne!(exited["body"]["exitCode"], 0, "killed: {exited}");
    c.event("terminated");
    c.disconnect();
}

#[test]
fn bad_requests_get_error_responses() {
    let mut c = Client::start();
    let msg = c.fails("launch", json!({"program": "/bin/true"}));
    assert!(msg.contains("before `initialize`"), "{msg}");
    c.send_raw(b"Content-Length: 4\r\n\r\n[1,2");
    let r = c.wait("an error for a malformed body", |v| v["type"] == "response");
    assert_eq!(r["success"], false);
    c.send_raw(b"X-Nonsense: 1\r\n\r\n");
    let r = c.wait("an error for a frame without length", |v| {
        v["type"] == "response"
    });
    assert!(
        r["message"].as_str().unwrap().contains("Content-Length"),
        "{r}"
    );
    c.send_raw(b"Content-Length: 2\r\n\r\n{}");
    let r = c.wait("an error for a non-request", |v| v["type"] == "response");
    assert!(
        r["message"].as_str().unwrap().contains("not a DAP request"),
        "{r}"
    );

    c.ok("initialize", json!({"adapterID": "shaderdbg"}));
    c.event("initialized");
    let msg = c.fails("initialize", json!({}));
    assert!(msg.contains("already"), "{msg}");
    let msg = c.fails("configurationDone", Value::Null);
    assert!(msg.contains("launch"), "{msg}");
    let msg = c.fails("launch", json!({"program": "/nonexistent/program"}));
    assert!(msg.contains("/nonexistent/program does not exist"), "{msg}");
    let msg = c.fails("launch", json!({"args": []}));
    assert!(msg.contains("missing field `program`"), "{msg}");
    let msg = c.fails("launch", json!({"program": "/bin/true", "pixel": [1]}));
    assert!(msg.contains("invalid arguments"), "{msg}");
    let msg = c.fails("threads2", json!({}));
    assert!(msg.contains("unknown"), "{msg}");
    let msg = c.fails("next", json!({"threadId": 1}));
    assert!(msg.contains("not stopped"), "{msg}");

    // A breakpoint in a file that does not exist, one with a hit condition.
    let set = c.ok(
        "setBreakpoints",
        json!({"source": {"path": "/nonexistent/a.frag"}, "breakpoints": [{"line": 3}]}),
    );
    assert_eq!(set["breakpoints"][0]["verified"], false);
    assert!(set["breakpoints"][0]["message"]
        .as_str()
        .unwrap()
        .contains("cannot read"));
    let set = c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader_file()}, "breakpoints": [{"line": 9, "hitCondition": "lots"}]}),
    );
    assert_eq!(set["breakpoints"][0]["verified"], false);
    assert!(set["breakpoints"][0]["message"]
        .as_str()
        .unwrap()
        .contains("expected N"));
    c.disconnect();
}

#[test]
fn serves_tcp_on_loopback() {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shaderdbg-dap"))
        .args(["--port", "0"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("adapter");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .expect(&line)
        .to_string();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    for (seq, cmd) in [(1, "initialize"), (2, "disconnect")] {
        let body =
            json!({"seq": seq, "type": "request", "command": cmd, "arguments": {}}).to_string();
        write!(s, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    }
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    assert!(all.contains(r#""command":"initialize""#), "{all}");
    assert!(all.contains(r#""event":"initialized""#), "{all}");
    assert!(all.contains(r#""command":"disconnect""#), "{all}");
    assert!(child.wait().unwrap().success());
}

/// A short session, message by message; volatile parts normalised, the
/// program's output and process events left out (their timing varies).
#[test]
fn transcript_snapshot() {
    let (mut c, _) = start(json!({"pixel": [50, 10], "frame": 1}), Some("p.x > 1.5"));
    stopped(&mut c);
    c.ok("threads", Value::Null);
    let frame = top_frame(&mut c);
    let scopes = c.ok("scopes", json!({"frameId": frame["id"]}));
    let locals = scopes["scopes"][0]["variablesReference"].clone();
    c.ok("variables", json!({"variablesReference": locals}));
    evaluate(&mut c, "p.x", "hover");
    evaluate(&mut c, "p.yx", "watch");
    c.ok("next", json!({"threadId": 1}));
    stopped(&mut c);
    c.ok("stackTrace", json!({"threadId": 1, "levels": 1}));
    c.ok("stepBack", json!({"threadId": 1}));
    stopped(&mut c);
    c.ok("stackTrace", json!({"threadId": 1, "levels": 1}));
    let seq = c.send("disconnect", json!({}));
    c.response(seq);
    c.event("terminated");
    c.wait_closed();

    let root = repo_root().display().to_string();
    let mut text = String::new();
    for (sent, v) in &c.transcript {
        // The program's output and exit race with the messages around them.
        if ["output", "process", "exited"].contains(&v["event"].as_str().unwrap_or("")) {
            continue;
        }
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            if !sent {
                o.remove("seq");
            }
        }
        let line = v
            .to_string()
            .replace(&single_pass().display().to_string(), "$APP")
            .replace(&root, "$ROOT");
        text.push_str(if *sent { "-> " } else { "<- " });
        text.push_str(&line);
        text.push('\n');
    }
    expect_test::expect_file!["snapshots/session.dap"].assert_eq(&text);
}

const HOSTED: &str = "#version 330 core
out vec4 color;
struct Light { vec2 pos; float k; };
float shade(vec2 q, Light l) {
    float d = distance(q, l.pos) * l.k;
    return d;
}
void main() {
    vec2 uv = gl_FragCoord.xy / 64.0;
    Light l = Light(vec2(0.5, 0.25), 2.0);
    float w[2] = float[2](uv.x, uv.y);
    float s = shade(uv, l);
    color = vec4(uv, s + w[1], 1.0);
}
";

/// A shader file as the program runs in the built-in host; stepping into,
/// out of and back through a function; structs and arrays expand.
#[test]
fn shader_file_in_the_builtin_host_with_a_call() {
    single_pass(); // builds the host too
    let dir = std::env::temp_dir().join(format!("shaderdbg-dap-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shader = dir.join("hosted.frag");
    std::fs::write(&shader, HOSTED).unwrap();

    let mut c = Client::start();
    c.ok("initialize", json!({"adapterID": "shaderdbg"}));
    c.ok(
        "launch",
        json!({"program": shader, "args": ["--size", "64x64"], "pixel": [3, 4]}),
    );
    c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader}, "breakpoints": [{"line": 12}]}),
    );
    c.ok("configurationDone", Value::Null);
    assert_eq!(stopped(&mut c)["reason"], "breakpoint");
    assert_eq!(top_frame(&mut c)["line"], 12);
    let (ux, uy) = (3.5f32 / 64.0, 4.5f32 / 64.0);

    let locals = scope_vars(&mut c, "Locals");
    assert_eq!(locals["uv"]["value"], format!("vec2({ux:?}, {uy:?})"));
    assert_eq!(locals["l"]["type"], "Light");
    assert_eq!(locals["l"]["value"], "Light(vec2(0.5, 0.25), 2.0)");
    let fields = c.ok(
        "variables",
        json!({"variablesReference": locals["l"]["variablesReference"]}),
    );
    assert_eq!(fields["variables"][0]["name"], "pos");
    assert_eq!(fields["variables"][0]["evaluateName"], "l.pos");
    assert_ne!(fields["variables"][0]["variablesReference"], 0);
    assert_eq!(locals["w"]["type"], "float[2]");
    let items = c.ok(
        "variables",
        json!({"variablesReference": locals["w"]["variablesReference"]}),
    );
    assert_eq!(items["variables"][1]["name"], "[1]");
    assert_eq!(items["variables"][1]["value"], format!("{uy:?}"));
    assert_eq!(evaluate(&mut c, "l.pos.y", "hover")["result"], "0.25");
    assert_eq!(
        evaluate(&mut c, "w[1]", "watch")["result"],
        format!("{uy:?}")
    );

    // Into the call: two GLSL frames and the draw's label.
    c.ok("stepIn", json!({"threadId": 1}));
    stopped(&mut c);
    let st = c.ok("stackTrace", json!({"threadId": 1}));
    let frames = st["stackFrames"].as_array().unwrap().clone();
    assert_eq!(frames.len(), 3, "{st}");
    assert_eq!(
        (frames[0]["name"].as_str(), frames[0]["line"].as_i64()),
        (Some("shade"), Some(5))
    );
    assert_eq!(
        (frames[1]["name"].as_str(), frames[1]["line"].as_i64()),
        (Some("main"), Some(12))
    );
    let q = c.ok(
        "evaluate",
        json!({"expression": "q", "frameId": frames[0]["id"], "context": "watch"}),
    );
    assert_eq!(q["result"], format!("vec2({ux:?}, {uy:?})"));
    let uv = c.ok(
        "evaluate",
        json!({"expression": "uv.y", "frameId": frames[1]["id"], "context": "watch"}),
    );
    assert_eq!(uv["result"], format!("{uy:?}"));
    let msg = c.fails(
        "evaluate",
        json!({"expression": "uv", "frameId": frames[0]["id"]}),
    );
    assert!(msg.contains("no variable") && msg.contains("uv"), "{msg}");

    assert_eq!(step(&mut c, "next")["line"], 6);
    let d = scope_vars(&mut c, "Locals")["d"]["value"]
        .as_str()
        .unwrap()
        .parse::<f32>()
        .unwrap();
    let expect = ((ux - 0.5).powi(2) + (uy - 0.25).powi(2)).sqrt() * 2.0;
    assert!((d - expect).abs() < 1e-5, "{d} vs {expect}");
    assert_eq!(step(&mut c, "stepOut")["line"], 13);
    assert_eq!(step(&mut c, "stepBack")["name"], "shade");
    assert_eq!(step(&mut c, "reverseContinue")["line"], 12);
    assert_eq!(step(&mut c, "next")["line"], 13, "next steps over the call");

    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.disconnect();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A pixel and no breakpoints: every draw covering it stops at `main`; the
/// shader, in no file the client named, comes by `sourceReference`.
/// `stopOnEntry`: the first stop shows the start of `main`; continue goes on
/// to the breakpoint's step in the same recording.
#[test]
fn pixel_history_source_reference_and_stop_on_entry() {
    let mut c = Client::start();
    c.ok("initialize", json!({"adapterID": "shaderdbg"}));
    c.ok("launch", launch_args(json!({"pixel": [5, 5], "frame": 2})));
    c.ok("configurationDone", Value::Null);
    let s = stopped(&mut c);
    assert_eq!(s["reason"], "pixel history");
    let top = top_frame(&mut c);
    assert_eq!(top["line"], 7);
    // No breakpoint file names the shader: its runtime text is served.
    let reference = top["source"]["sourceReference"].clone();
    assert!(reference.as_i64().is_some_and(|r| r > 0), "{top}");
    let text = c.ok(
        "source",
        json!({"source": top["source"], "sourceReference": reference}),
    );
    let text = text["content"].as_str().unwrap();
    assert_eq!(
        text.lines().nth(6).unwrap().trim(),
        "vec2 p = gl_FragCoord.xy / 32.0;"
    );
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.disconnect();

    let (mut c, _) = start(
        json!({"pixel": [50, 10], "frame": 0, "stopOnEntry": true}),
        Some("p.x > 1.5"),
    );
    assert_eq!(stopped(&mut c)["reason"], "entry");
    assert_eq!(top_frame(&mut c)["line"], 7);
    let locals = scope_vars(&mut c, "Locals");
    assert!(
        locals
            .get("p")
            .is_none_or(|p| p["value"] == "not written yet"),
        "{locals:?}"
    );
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(stopped(&mut c)["reason"], "breakpoint");
    assert_eq!(top_frame(&mut c)["line"], 9);
    c.ok("disconnect", json!({"terminateDebuggee": true}));
    assert!(c.wait_closed().success());
}
