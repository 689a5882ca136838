//! A full DAP session on a real application we did not write: glmark2's
//! phong shading scene under Xvfb, a conditional breakpoint in its
//! `light-phong.frag` (which glmark2 loads with a header prepended).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

mod client;
use client::{single_pass, Client};

const SHADER: &str = "/usr/share/glmark2/shaders/light-phong.frag";

/// An X server of our own on a free display, ended when dropped.
struct Xvfb(Child, String);

impl Xvfb {
    fn start() -> Xvfb {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "640x480x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb (installed by `cargo xtask setup`)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("display number");
        let display = format!(":{}", line.trim());
        Xvfb(child, display)
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn conditional_breakpoint_in_glmark2_stops_with_values_and_steps() {
    single_pass();
    shaderdbg_test_support::require_installed(&["/usr/bin/glmark2", SHADER]);
    let x = Xvfb::start();
    let mut c = Client::start();
    c.ok(
        "initialize",
        json!({"adapterID": "shaderdbg", "linesStartAt1": true}),
    );
    c.event("initialized");
    c.ok(
        "launch",
        json!({
            "program": "/usr/bin/glmark2",
            "args": ["-b", "shading:shading=phong:duration=0.5", "--size", "160x120"],
            "env": {"DISPLAY": x.1},
        }),
    );
    let bps = c.ok(
        "setBreakpoints",
        json!({"source": {"path": SHADER}, "breakpoints": [{"line": 18, "condition": "normalized_normal.z > 0.5"}]}),
    );
    assert_eq!(bps["breakpoints"].as_array().map(Vec::len), Some(1));
    c.ok("configurationDone", Value::Null);
    // What glmark2 compiled from the file, for the language server: its
    // header declares what the file uses, its lights replace `$DO_LIGHTS$`.
    let runtime = c.event("shaderdbg/runtimeSource")["body"].clone();
    assert_eq!(runtime["path"], SHADER);
    let source = runtime["source"].as_str().expect("source");
    assert!(source.contains("vec4 MaterialDiffuse ="), "{source}");
    assert!(!source.contains("$DO_LIGHTS$"), "{source}");
    let stop = c.event("stopped")["body"].clone();
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    let thread = stop["threadId"].as_i64().expect("thread");
    let frame = c.ok("stackTrace", json!({"threadId": thread}))["stackFrames"][0].clone();
    assert_eq!(frame["line"], 18, "{frame}");
    assert_eq!(frame["source"]["path"], SHADER);
    // The recorded normal is a unit vector that satisfies the condition.
    let n = c.ok(
        "evaluate",
        json!({"expression": "normalized_normal", "frameId": frame["id"], "context": "hover"}),
    )["result"]
        .as_str()
        .expect("a value")
        .to_string();
    let xyz: Vec<f32> = n
        .trim_start_matches("vec3(")
        .trim_end_matches(')')
        .split(", ")
        .map(|v| v.parse().expect("a float"))
        .collect();
    let len = xyz.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!((len - 1.0).abs() < 1e-4, "{n}");
    assert!(xyz[2] > 0.5, "{n}");
    // The evaluator agrees with itself on the recorded values.
    let z = c.ok(
        "evaluate",
        json!({"expression": "normalized_normal.z > 0.5 && length(normalized_normal) > 0.99", "frameId": frame["id"]}),
    );
    assert_eq!(z["result"], "true");
    // Step forward and back again.
    c.ok("next", json!({"threadId": thread}));
    c.event("stopped");
    let after = c.ok("stackTrace", json!({"threadId": thread}))["stackFrames"][0]["line"].clone();
    assert_ne!(after, 18);
    c.ok("stepBack", json!({"threadId": thread}));
    c.event("stopped");
    let back = c.ok("stackTrace", json!({"threadId": thread}))["stackFrames"][0]["line"].clone();
    assert_eq!(back, 18);
    // Disconnecting lets glmark2 run to its own end.
    c.ok("disconnect", json!({"terminateDebuggee": false}));
    assert!(c.wait_closed().success());
}
