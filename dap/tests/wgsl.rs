//! F5 on a `.wgsl` file: the built-in host renders it, the agent debugs the
//! WGSL (not naga's GLSL), and the adapter shows WGSL lines, WGSL function
//! names in the stack and WGSL type names; a WGSL condition decides the
//! stop on the GPU; stepping goes into the helper and back. Values are
//! checked against the same computation on the CPU.

mod client;

use std::path::{Path, PathBuf};

use client::{single_pass, Client};
use serde_json::{json, Value};

fn rings(tag: &str) -> (PathBuf, PathBuf) {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/examples/rings.wgsl");
    let file = shaderdbg_test_support::fresh_copy(&example, &format!("dap-wgsl-{tag}"));
    let dir = file.parent().expect("its directory").to_path_buf();
    (dir, file)
}

fn line_of(file: &Path, needle: &str) -> i64 {
    let text = std::fs::read_to_string(file).expect("read");
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i as i64 + 1)
        .unwrap_or_else(|| panic!("no {needle:?}"))
}

fn frames(c: &mut Client) -> Vec<Value> {
    c.frames()
}

fn locals(c: &mut Client) -> serde_json::Map<String, Value> {
    c.scope_vars("Locals")
}

fn step(c: &mut Client, command: &str) -> Value {
    c.ok(command, json!({"threadId": 1}));
    c.event("stopped");
    frames(c)[0].clone()
}

/// F5 on `file` at 64x64 for `pixel` with `breakpoint` in it, to the
/// first stop; the breakpoint as set.
fn stop_in(file: &Path, pixel: [u32; 2], breakpoint: Value) -> (Client, Value) {
    let mut c = Client::start();
    c.ok("initialize", json!({"adapterID": "shaderdbg"}));
    c.ok(
        "launch",
        json!({"program": file, "args": ["--size", "64x64"], "pixel": pixel}),
    );
    let set = c.ok(
        "setBreakpoints",
        json!({"source": {"path": file}, "breakpoints": [breakpoint]}),
    );
    c.ok("configurationDone", Value::Null);
    assert_eq!(c.event("stopped")["body"]["reason"], "breakpoint");
    (c, set["breakpoints"][0].clone())
}

#[test]
fn f5_on_a_wgsl_file_stops_steps_and_shows_wgsl_types() {
    single_pass(); // builds the agent and the host
    let (dir, file) = rings("f5");
    let line = line_of(&file, "glow += weights[i]");
    let helper = line_of(&file, "let edge = abs(");

    let (mut c, set) = stop_in(&file, [3, 4], json!({"line": line, "condition": "i == 2"}));
    assert_eq!(set["line"], line);
    let top = frames(&mut c)[0].clone();
    assert_eq!(
        (top["name"].as_str(), top["line"].as_i64()),
        (Some("fs"), Some(line)),
        "{top}"
    );
    assert_eq!(top["source"]["path"], file.to_str().expect("utf-8"));

    // The CPU's values before the third iteration.
    let uv = [3.5f32 / 64.0, 4.5f32 / 64.0];
    let p = [uv[0] * 2.0 - 1.0, uv[1] * 2.0 - 1.0];
    let d = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let ring = |radius: f32| (1.0 - (d - radius).abs() / 0.1).clamp(0.0, 1.0);
    let glow = ring(0.2) + 0.5 * ring(0.4);

    let l = locals(&mut c);
    assert_eq!(l["uv"]["type"], "vec2<f32>");
    assert_eq!(
        l["uv"]["value"],
        format!("vec2<f32>({:?}, {:?})", uv[0], uv[1])
    );
    assert_eq!(l["i"]["type"], "i32");
    assert_eq!(l["i"]["value"], "2");
    assert_eq!(l["count"]["type"], "u32");
    assert_eq!(l["count"]["value"], "2u");
    assert_eq!(l["weights"]["type"], "array<f32, 4>");
    assert_eq!(
        l["weights"]["value"],
        "array<f32, 4>(1.0, 0.5, 0.25, 0.125)"
    );
    assert_eq!(l["r"]["type"], "Ring");
    assert_eq!(l["r"]["value"], format!("Ring({:?}, 0.1)", 3.0f32 * 0.2));
    let fields = c.ok(
        "variables",
        json!({"variablesReference": l["r"]["variablesReference"]}),
    );
    assert_eq!(fields["variables"][0]["name"], "radius");
    assert_eq!(fields["variables"][0]["type"], "f32");
    for (name, want) in [("glow", glow), ("d", d)] {
        let got: f32 = l[name]["value"]
            .as_str()
            .expect("text")
            .parse()
            .expect("a number");
        assert!((got - want).abs() < 1e-5, "{name}: {got} vs {want}");
    }
    // (expression, context, result, type)
    let radius = format!("{:?}", 3.0f32 * 0.2);
    for (expr, context, result, ty) in [
        ("r.radius", "hover", radius.as_str(), "f32"),
        // WGSL syntax and rules: constructors with template lists, `select`,
        // suffixed literals, abstract numbers concretized.
        (
            "vec2<f32>(r.width, f32(i) * 0.5)",
            "watch",
            "vec2<f32>(0.1, 1.0)",
            "vec2<f32>",
        ),
        ("select(0u, count + 1u, i == 2)", "repl", "3u", "u32"),
    ] {
        let e = c.ok("evaluate", json!({"expression": expr, "context": context}));
        assert_eq!(e["result"], result, "{expr}");
        assert_eq!(e["type"], ty, "{expr}");
    }
    // (expression, context, what the error says)
    for (expr, context, said) in [
        // Derivatives go to the GPU, which evaluates at the first reach of a
        // line only: this stop is the third.
        ("dpdx(d)", "watch", &["first reaches line"][..]),
        // So do calls of the shader's functions.
        ("ring(d, r)", "hover", &["ring()", "first reaches line"]),
        ("weights[i + 5]", "watch", &["index"]),
    ] {
        let msg = c.fails("evaluate", json!({"expression": expr, "context": context}));
        assert!(said.iter().all(|s| msg.contains(s)), "{expr}: {msg}");
    }

    // The values image: a WGSL expression over every fragment of the draw
    // (before the line first runs), its type spelled the WGSL way.
    let v = c.ok(
        "shaderdbg/valuesImage",
        json!({"expression": "uv * vec2<f32>(1.0, 2.0)"}),
    );
    assert_eq!(v["type"], "vec2<f32>");
    assert_eq!(v["line"], line);
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(64), Some(64))
    );
    let data = base64_decode(v["data"].as_str().expect("data"));
    let at = |x: usize, y: usize, k: usize| {
        let i = ((y * 64 + x) * 2 + k) * 4;
        f32::from_le_bytes(data[i..i + 4].try_into().expect("4 bytes"))
    };
    assert_eq!(at(10, 20, 0), 10.5 / 64.0);
    assert_eq!(at(10, 20, 1), 2.0 * (20.5 / 64.0));

    // Into the helper: WGSL function names in the stack.
    let inner = step(&mut c, "stepIn");
    assert_eq!(
        (inner["name"].as_str(), inner["line"].as_i64()),
        (Some("ring"), Some(helper))
    );
    let fs = frames(&mut c);
    assert_eq!(
        (fs[1]["name"].as_str(), fs[1]["line"].as_i64()),
        (Some("fs"), Some(line))
    );
    let back_out = step(&mut c, "stepOut");
    assert_eq!(back_out["name"], "fs");
    assert_eq!(step(&mut c, "stepBack")["name"], "ring");
    assert_eq!(step(&mut c, "reverseContinue")["line"], line);

    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.disconnect();
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// At a line the invocation reaches once, expressions the CPU cannot
/// evaluate faithfully are watched on the GPU: a call of the shader's
/// `ring`, what a WGSL constant cannot be (a float beyond f32's range: an
/// infinity at run time), a built-in naga does not evaluate as a constant;
/// each against the CPU.
#[test]
fn wgsl_expressions_the_cpu_cannot_evaluate_go_to_the_gpu() {
    single_pass();
    let (dir, file) = rings("gpu");
    let line = line_of(&file, "let inside = d < 0.5;");
    let (mut c, _) = stop_in(&file, [40, 21], json!({"line": line}));
    assert_eq!(frames(&mut c)[0]["line"], line);
    let uv = [40.5f32 / 64.0, 21.5f32 / 64.0];
    let p = [uv[0] * 2.0 - 1.0, uv[1] * 2.0 - 1.0];
    let d = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let ring = |radius: f32| (1.0 - (d - radius).abs() / 0.1).clamp(0.0, 1.0);
    assert!(
        ring(0.4) > 0.0 && ring(0.4) < 1.0,
        "a pixel inside the ring's edge"
    );
    let eval = |c: &mut Client, e: &str| {
        let r = c.ok("evaluate", json!({"expression": e, "context": "watch"}));
        (
            r["result"].as_str().expect("result").to_string(),
            r["type"].as_str().expect("type").to_string(),
        )
    };
    let (v, ty) = eval(&mut c, "ring(d, Ring(0.4, 0.1))");
    assert_eq!(ty, "f32");
    let v: f32 = v.parse().expect("a number");
    assert!((v - ring(0.4)).abs() < 1e-6, "{v} vs {}", ring(0.4));
    // Beyond f32's range: an infinity at run time.
    assert_eq!(
        eval(&mut c, "d * 1e38 * 10.0"),
        ("inf".into(), "f32".into())
    );
    // A built-in naga does not evaluate as a constant.
    let snorm = |v: f32| u32::from((v.clamp(-1.0, 1.0) * 127.0).round() as i8 as u8);
    let packed = snorm(d) | snorm(-d) << 8 | snorm(1.0) << 16 | snorm(0.0) << 24;
    assert_eq!(
        eval(&mut c, "pack4x8snorm(vec4<f32>(d, -d, 1.0, 0.0))"),
        (format!("{packed}u"), "u32".into())
    );
    // What the CPU evaluates stays there.
    assert_eq!(eval(&mut c, "count * 2u"), ("8u".into(), "u32".into()));
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.disconnect();
    std::fs::remove_dir_all(&dir).expect("clean up");
}

const INF_AT_ONE_PIXEL: &str = "\
@fragment
fn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let hot = pos.x == 2.5 && pos.y == 3.5;
    let k = select(1.0, 0.0, hot);
    let v = 1.0 / k;
    return vec4<f32>(v, k, 0.0, 1.0);
}
";

/// The `nan_inf` exception filter on a WGSL file: the fragment that
/// returns an infinity stops, at the WGSL `return`, with WGSL values.
#[test]
fn nan_inf_in_a_wgsl_file_stops_at_its_return() {
    single_pass();
    let dir = std::env::temp_dir().join(format!("shaderdbg-dap-wgsl-inf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("inf.wgsl");
    std::fs::write(&file, INF_AT_ONE_PIXEL).expect("write");
    let mut c = Client::start();
    c.ok("initialize", json!({"adapterID": "shaderdbg"}));
    c.ok(
        "launch",
        json!({"program": file, "args": ["--size", "8x8"]}),
    );
    c.ok("setExceptionBreakpoints", json!({"filters": ["nan_inf"]}));
    c.ok("configurationDone", Value::Null);
    let s = c.event("stopped")["body"].clone();
    assert_eq!(s["reason"], "exception", "{s}");
    let threads = c.ok("threads", Value::Null);
    let name = threads["threads"][0]["name"]
        .as_str()
        .expect("name")
        .to_string();
    assert!(name.starts_with("fragment (2,3)"), "{name}");
    let top = frames(&mut c)[0].clone();
    assert_eq!(top["line"], line_of(&file, "return vec4"), "{top}");
    assert_eq!(top["source"]["path"], file.to_str().expect("utf-8"));
    let l = locals(&mut c);
    assert_eq!(l["hot"]["value"], "true");
    assert_eq!(l["v"]["value"], "inf");
    assert_eq!(l["k"]["type"], "f32");
    c.ok("continue", json!({"threadId": 1}));
    assert_eq!(c.event("exited")["body"]["exitCode"], 0);
    c.disconnect();
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// The bytes of a base64 string of a response.
fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("base64")
}
