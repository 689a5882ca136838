//! Vulkan programs through the DAP server: the VS Code extension's values
//! image (the layer's watch image has Vulkan's origin, gl_FragCoord y
//! down, and the adapter sends it upright, bottom row first, like a GL
//! one, saying the origin so that pixels are named as the shader names
//! them), threads switching between the invocations of one stop, a
//! breakpoint set in a decompiled module's text (`sourceReference`), and
//! WGSL in a wgpu program (the NaN/Inf filter, a WGSL expression's values
//! image against the CPU's).

mod client;

use std::path::PathBuf;

use base64::Engine as _;
use client::{app, Client};
use serde_json::{json, Value};

/// `wgpu_quad.wgsl` and the line (1-based) of `needle` in it.
fn wgpu_shader_line(needle: &str) -> (PathBuf, u64) {
    let shader = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/wgpu-apps/shaders/wgpu_quad.wgsl")
        .canonicalize()
        .expect("shader file");
    let text = std::fs::read_to_string(&shader).expect("read");
    let line = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?}")) as u64
        + 1;
    (shader, line)
}

/// The values image of `expr` at the stop: its body, width and height.
fn values_image(c: &mut Client, expr: &str) -> (Value, Vec<u8>, usize, usize) {
    let v = c.ok("shaderdbg/valuesImage", json!({"expression": expr}));
    let (w, h) = (
        v["width"].as_u64().expect("width") as usize,
        v["height"].as_u64().expect("height") as usize,
    );
    let data = base64::engine::general_purpose::STANDARD
        .decode(v["data"].as_str().expect("data"))
        .expect("base64");
    (v, data, w, h)
}

#[test]
fn a_vulkan_values_image_is_upright_and_says_its_origin() {
    let (mut c, stopped) = vk_triangle_stopped(&["1", "64"], json!([{"line": 12}]));
    assert_eq!(stopped["reason"], "breakpoint");
    let (v, data, w, h) = values_image(&mut c, "gl_FragCoord.y");
    assert_eq!(v["origin"], "topLeft");
    assert_eq!((w, h), (64, 64));
    let at = |x: usize, row: usize| {
        let i = (row * w + x) * 4;
        f32::from_le_bytes(data[i..i + 4].try_into().unwrap())
    };
    // Row 0 of the body is the bottom of the picture: in Vulkan, the
    // fragments with the largest gl_FragCoord.y.
    assert_eq!(at(0, 0), 63.5);
    assert_eq!(at(10, 63), 0.5);
    assert_eq!(at(10, 63 - 20), 20.5);
    // The frame view's image is the submission's, done, and names its
    // pixels from the top (a click used to debug the mirrored pixel).
    let img = c.ok("shaderdbg/frameImage", json!({}));
    assert_eq!(
        (&img["shows"], &img["origin"]),
        (&json!("afterSubmission"), &json!("topLeft"))
    );
    c.disconnect();
}

/// The `nan_inf` exception filter in a wgpu program: with a scale of 0
/// every colour `wgpu_quad.wgsl` returns is NaN; the first fragment stops
/// at the WGSL `return`, in the user's file (a launch source file), with
/// the infinite `p` that made it.
#[test]
fn nan_inf_in_a_wgpu_program_stops_at_the_wgsl_return() {
    let (shader, line) = wgpu_shader_line("return vec4<f32>(fract(p.x + t), r");
    // A breakpoint whose condition never holds binds the file; the stop
    // is the filter's (both in one hit test).
    let mut c = Client::launched(
        json!({"program": app("wgpu_quad"), "args": ["1", "16", "debug", "0"]}),
        &[
            (
                "setBreakpoints",
                json!({"source": {"path": shader}, "breakpoints": [{"line": line, "condition": "t < 0.0"}]}),
            ),
            ("setExceptionBreakpoints", json!({"filters": ["nan_inf"]})),
        ],
    );
    let s = c.event("stopped")["body"].clone();
    assert_eq!(s["reason"], "exception", "{s}");
    let threads = c.ok("threads", Value::Null);
    let name = threads["threads"][0]["name"].as_str().expect("name");
    assert!(name.starts_with("fragment (0,0)"), "{name}");
    let top = c.frames()[0].clone();
    assert_eq!(top["line"], line, "{top}");
    assert_eq!(top["source"]["path"], shader.to_str().expect("utf-8"));
    let locals = c.scope_vars("Locals");
    assert_eq!(locals["p"]["value"], "vec2<f32>(inf, inf)", "{locals:?}");
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.disconnect();
}

/// A session on `vk_triangle ARGS` with these `breakpoints` in
/// `vk_triangle.frag`, started, waiting for its first stop (its body).
fn vk_triangle_stopped(args: &[&str], breakpoints: Value) -> (Client, Value) {
    let shader = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vk-apps/shaders/vk_triangle.frag")
        .canonicalize()
        .expect("shader file");
    let launch = json!({"program": app("vk_triangle"), "args": args});
    let set = json!({"source": {"path": shader}, "breakpoints": breakpoints});
    let mut c = Client::launched(launch, &[("setBreakpoints", set)]);
    let stopped = c.event("stopped")["body"].clone();
    (c, stopped)
}

/// The value of `expr` in frame `frame` of a stop, as the adapter shows it.
fn value_in(c: &mut Client, frame: &Value, expr: &str) -> String {
    let r = c.ok(
        "evaluate",
        json!({"expression": expr, "frameId": frame["id"], "context": "hover"}),
    );
    r["result"].as_str().expect("a result").to_string()
}

/// One stop of a Vulkan submission carries every invocation that hit
/// (`Stopped::hits`): they are the threads, and switching to one records
/// it in the same stop (the submission runs again) with its own values,
/// `p` and `ring` as the CPU computes them at its pixel; stepping a
/// thread moves that thread.
#[test]
fn threads_switch_between_the_invocations_of_a_vulkan_stop() {
    // p.y > 1.9: the bottom three rows of the 64x64 frame, y down.
    let (mut c, _) = vk_triangle_stopped(
        &["1", "64"],
        json!([{"line": 12, "condition": "p.y > 1.9"}]),
    );
    let threads = c.ok("threads", Value::Null)["threads"].clone();
    let threads = threads.as_array().expect("threads").clone();
    assert!(threads.len() >= 3, "{threads:?}");
    for thread in threads.iter().rev().take(3) {
        let id = thread["id"].as_i64().expect("id");
        let name = thread["name"].as_str().expect("name");
        let pixel: Vec<u32> = name
            .strip_prefix("fragment (")
            .and_then(|n| n.split(')').next())
            .unwrap_or_else(|| panic!("{name}"))
            .split(',')
            .map(|n| n.parse().expect("a coordinate"))
            .collect();
        assert!(pixel[1] >= 61, "{name}");
        let frame = c.ok("stackTrace", json!({"threadId": id}))["stackFrames"][0].clone();
        assert_eq!(frame["line"], 12, "{name}");
        let p = [pixel[0], pixel[1]].map(|v| (v as f32 + 0.5) / 32.0);
        assert_eq!(
            value_in(&mut c, &frame, "p"),
            format!("vec2({:?}, {:?})", p[0], p[1]),
            "{name}"
        );
        let ring: f32 = value_in(&mut c, &frame, "ring").parse().expect("a float");
        let want = (((p[0] - 1.0).powi(2) + (p[1] - 1.0).powi(2)).sqrt() * 2.0).fract();
        assert!((ring - want).abs() < 1e-5, "{name}: {ring} vs {want}");
        c.ok("stepBack", json!({"threadId": id}));
        assert_eq!(c.event("stopped")["body"]["threadId"], id);
    }
    c.disconnect();
}

/// A module without source (`vk_triangle plain`) is decompiled and listed
/// among the loaded sources by `sourceReference`: a breakpoint set in that
/// text verifies and stops there, its frame naming the same reference.
#[test]
fn a_breakpoint_in_a_decompiled_vulkan_source_stops_there() {
    let mut c = Client::launched(
        json!({"program": app("vk_triangle"), "args": ["10", "32", "plain"]}),
        &[],
    );
    // Both modules are announced before the first submission, which the
    // pause stops (the program waits for the debugger at each module).
    c.ok("pause", json!({"threadId": 1}));
    assert_eq!(c.event("stopped")["body"]["reason"], "pause");
    let sources = c.ok("loadedSources", json!({}))["sources"].clone();
    let mut frag = None;
    for source in sources.as_array().expect("sources") {
        let reference = &source["sourceReference"];
        let text = c.ok(
            "source",
            json!({"source": source, "sourceReference": reference}),
        )["content"]
            .as_str()
            .expect("content")
            .to_string();
        if text.contains("gl_FragCoord") {
            frag = Some((source.clone(), text));
        }
    }
    let (source, text) = frag.expect("the decompiled fragment shader");
    let line = text
        .lines()
        .position(|l| l.contains("gl_FragCoord"))
        .expect("a line reading gl_FragCoord") as i64
        + 1;
    let set = c.ok(
        "setBreakpoints",
        json!({"source": source, "breakpoints": [{"line": line}]}),
    );
    assert_eq!(
        set["breakpoints"][0]["source"]["sourceReference"],
        source["sourceReference"]
    );
    c.ok("continue", json!({"threadId": 1}));
    let stopped = c.wait("the stop at the breakpoint", |m| {
        m["event"] == "stopped" && m["body"]["reason"] == "breakpoint"
    });
    assert_eq!(stopped["body"]["reason"], "breakpoint");
    let top = c.frames()[0].clone();
    assert_eq!(top["line"], line, "{top}");
    assert_eq!(
        top["source"]["sourceReference"], source["sourceReference"],
        "{top}"
    );
    c.disconnect();
}

/// The values image at a stop in a wgpu program's WGSL: a WGSL expression
/// over every fragment of the draw equals the CPU's per pixel, upright
/// (bottom row first) with Vulkan's origin (`@builtin(position)` y down).
#[test]
fn a_wgsl_values_image_in_a_wgpu_program_is_the_cpu_s_per_pixel() {
    let (shader, line) = wgpu_shader_line("let r = ring(p, t);");
    // One frame (t = 0) of 64x64, scale 32: p = position.xy / 32.
    let mut c = Client::launched(
        json!({"program": app("wgpu_quad"), "args": ["1", "64"]}),
        &[(
            "setBreakpoints",
            json!({"source": {"path": shader}, "breakpoints": [{"line": line}]}),
        )],
    );
    assert_eq!(c.event("stopped")["body"]["reason"], "breakpoint");
    let (v, data, w, h) = values_image(
        &mut c,
        "vec2<f32>(fract(p.x * 3.0 + p.y), in.position.y) + vec2<f32>(t)",
    );
    assert_eq!(v["type"], "vec2<f32>");
    assert_eq!(v["line"], line);
    assert_eq!(v["origin"], "topLeft");
    assert_eq!((w, h), (64, 64));
    assert_eq!(data.len(), w * h * 2 * 4);
    let at = |x: usize, row: usize, k: usize| {
        let i = ((row * w + x) * 2 + k) * 4;
        f32::from_le_bytes(data[i..i + 4].try_into().expect("4 bytes"))
    };
    let mut wrong = Vec::new();
    for y in 0..h {
        // Row 0 of the body is the bottom of the picture: Vulkan's last y.
        let row = h - 1 - y;
        for x in 0..w {
            let p = [(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0];
            let s = p[0] * 3.0 + p[1];
            let want = [s - s.floor(), y as f32 + 0.5];
            let got = [at(x, row, 0), at(x, row, 1)];
            if (got[0] - want[0]).abs() > 1e-6 || got[1] != want[1] {
                wrong.push(format!("({x}, {y}): {got:?} vs {want:?}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} pixels differ: {:?}",
        wrong.len(),
        w * h,
        &wrong[..wrong.len().min(8)]
    );
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.disconnect();
}
