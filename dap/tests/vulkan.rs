//! The VS Code extension's values image of a Vulkan program: the layer's
//! watch image has Vulkan's origin (gl_FragCoord y down), and the adapter
//! sends it upright, bottom row first, like a GL one, saying the origin so
//! that pixels are named as the shader names them. A wgpu program's WGSL
//! gets the same: a WGSL expression's values image against the CPU's.

mod client;

use std::path::PathBuf;

use base64::Engine as _;
use client::{app, Client};
use serde_json::{json, Value};

/// A session of the test program `program` with `args`, launched, with
/// `breakpoints` in `shader` and configuration done.
fn launch(program: &str, args: &[&str], shader: &PathBuf, breakpoints: Value) -> Client {
    let mut c = Client::start();
    c.ok(
        "initialize",
        json!({"adapterID": "shaderdbg", "linesStartAt1": true}),
    );
    c.event("initialized");
    c.ok("launch", json!({"program": app(program), "args": args}));
    c.ok(
        "setBreakpoints",
        json!({"source": {"path": shader}, "breakpoints": breakpoints}),
    );
    c
}

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
    let shader = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vk-apps/shaders/vk_triangle.frag")
        .canonicalize()
        .expect("shader file");
    let mut c = launch("vk_triangle", &["1", "64"], &shader, json!([{"line": 12}]));
    c.ok("configurationDone", Value::Null);
    assert_eq!(c.event("stopped")["body"]["reason"], "breakpoint");
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
    let mut c = launch(
        "wgpu_quad",
        &["1", "16", "debug", "0"],
        &shader,
        json!([{"line": line, "condition": "t < 0.0"}]),
    );
    c.ok("setExceptionBreakpoints", json!({"filters": ["nan_inf"]}));
    c.ok("configurationDone", Value::Null);
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

/// The values image at a stop in a wgpu program's WGSL: a WGSL expression
/// over every fragment of the draw equals the CPU's per pixel, upright
/// (bottom row first) with Vulkan's origin (`@builtin(position)` y down).
#[test]
fn a_wgsl_values_image_in_a_wgpu_program_is_the_cpu_s_per_pixel() {
    let (shader, line) = wgpu_shader_line("let r = ring(p, t);");
    // One frame (t = 0) of 64x64, scale 32: p = position.xy / 32.
    let mut c = launch("wgpu_quad", &["1", "64"], &shader, json!([{"line": line}]));
    c.ok("configurationDone", Value::Null);
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
