//! `shaderdbg run effect.wgsl` end to end: the built-in host renders a WGSL
//! file (naga's GLSL, with the header naming the WGSL), the agent debugs
//! the WGSL with the WGSL engine, and stops, lines, values and type names
//! are WGSL's. Values are checked against the same computation on the CPU.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{assert_has, decode_png, events_ok, host_image, line_of, of_kind, shaderdbg};

/// The example, copied to a fresh directory (breakpoints bind by file).
fn rings(tag: &str) -> PathBuf {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/examples/rings.wgsl");
    shaderdbg_test_support::fresh_copy(&example, &format!("wgsl-{tag}"))
}

/// The example's values at pixel (x, y) of the host's default 640x360
/// frame, before iteration `iter` of the loop: (uv, d, glow).
fn cpu(x: u32, y: u32, iter: usize) -> ([f32; 2], f32, f32) {
    let uv = [(x as f32 + 0.5) / 640.0, (y as f32 + 0.5) / 360.0];
    let p = [uv[0] * 2.0 - 1.0, uv[1] * 2.0 - 1.0];
    let d = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let weights = [1.0f32, 0.5, 0.25, 0.125];
    let mut glow = 0.0f32;
    for (i, w) in weights.iter().enumerate().take(iter) {
        let radius = (i as f32 + 1.0) * 0.2;
        let edge = (d - radius).abs();
        glow += w * (1.0 - edge / 0.1).clamp(0.0, 1.0);
    }
    (uv, d, glow)
}

/// `shaderdbg run ARGS FILE` (it must succeed): its standard output, the
/// file's path replaced by `FILE`.
#[track_caller]
fn run_text(args: &[&str], file: &Path) -> String {
    let f = file.to_str().expect("utf-8 path");
    let (out, text) = shaderdbg(args.iter().chain([&f]));
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.replace(f, "FILE")
}

#[track_caller]
fn close(got: &Value, want: f32) {
    let g = got
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {got}")) as f32;
    assert!(
        (g - want).abs() <= 1e-5 * want.abs().max(1.0),
        "{g} != {want}"
    );
}

#[test]
fn a_wgsl_breakpoint_stops_at_its_line_with_wgsl_values_and_types() {
    let file = rings("json");
    let line = line_of(&file, "glow += weights[i]");
    let bp = format!("{}:{line}", file.display());
    let f = file.to_str().expect("utf-8 path");
    let (events, text) = events_ok(shaderdbg([
        "run", "--json", "--break", &bp, "--pixel", "100,200", f,
    ]));
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{text}");
    let s = stops[0];
    assert_eq!(s["file"], f, "{s}");
    assert_eq!(s["line"], line, "{s}");
    assert_eq!(s["pixel"], serde_json::json!([100, 200]));
    let locals = &s["locals"];
    let (uv, d, glow) = cpu(100, 200, 0);
    assert_eq!(locals["uv"]["type"], "vec2<f32>", "{locals}");
    close(&locals["uv"]["value"][0], uv[0]);
    close(&locals["uv"]["value"][1], uv[1]);
    assert_eq!(locals["d"]["type"], "f32");
    close(&locals["d"]["value"], d);
    assert_eq!(locals["glow"]["type"], "f32");
    close(&locals["glow"]["value"], glow);
    assert_eq!(locals["i"]["type"], "i32");
    assert_eq!(locals["i"]["value"], 0);
    assert_eq!(locals["count"]["type"], "u32");
    assert_eq!(locals["count"]["value"], 0);
    assert_eq!(locals["weights"]["type"], "array<f32, 4>");
    assert_eq!(
        locals["weights"]["value"],
        serde_json::json!([1.0, 0.5, 0.25, 0.125])
    );
    assert_eq!(locals["r"]["type"], "Ring");
    close(&locals["r"]["value"]["radius"], 0.2);
    close(&locals["r"]["value"]["width"], 0.1);
    let globals = &s["globals"];
    assert_eq!(globals["pos"]["type"], "vec4<f32>", "{globals}");
    close(&globals["pos"]["value"][0], 100.5);
    assert_eq!(s["globals"]["host"]["type"], "Host", "{s}");
}

/// The readable stop of a conditional WGSL breakpoint, as people see it
/// (a snapshot: `name: type = value`, WGSL type names, the WGSL line).
#[test]
fn a_conditional_wgsl_breakpoint_reads_the_wgsl_way() {
    let file = rings("text");
    let line = line_of(&file, "glow += weights[i]");
    let bp = format!("{}:{line}:i == 2 && count == 2u", file.display());
    let text = run_text(&["run", "--break", &bp, "--pixel", "380,200"], &file);
    let (uv, d, glow) = cpu(380, 200, 2);
    assert_has(
        &text,
        &[
            format!("stopped at FILE:{line} in fragment (380,200) (draw 0, frame 0; 1 invocation(s) hit)"),
            format!("{line:>5} |         glow += weights[i] * ring(d, r);"),
            format!("  uv: vec2<f32> = ({:?}, {:?})", uv[0], uv[1]),
            format!("  d: f32 = {d:?}"),
            format!("  glow: f32 = {glow:?}"),
        ],
    );
    let expected = [
        "  weights: array<f32, 4> = (1.0, 0.5, 0.25, 0.125)",
        &format!("  glow: f32 = {glow:?}"),
        "  count: u32 = 2u",
        "  i: i32 = 2",
        "  r: Ring = {radius: 0.6, width: 0.1}",
        "inputs & uniforms:",
        "  host: Host = {resolution: (640.0, 360.0), time: 0.0, time_delta: 0.016666668, \
         frame: 0u, mouse: (0.0, 0.0, 0.0, 0.0)}",
        "built-ins:",
        "  pos: vec4<f32> = (380.5, 200.5, 0.5, 1.0)",
        "",
    ]
    .join("\n");
    assert_has(&text, &[expected]);
}

/// `shaderdbg debug --pixel 400,180 FILE` with `commands` piped in: its
/// output, the file's path replaced by `FILE`.
fn debug(file: &Path, commands: &str) -> String {
    let (ok, text, stderr) = common::debug_session(
        [
            "--pixel".as_ref(),
            "400,180".as_ref(),
            "--".as_ref(),
            file.as_os_str(),
        ],
        commands,
    );
    let text = text.replace(&file.display().to_string(), "FILE");
    assert!(ok, "{text}\n{stderr}");
    text
}

/// Derivatives need the GPU: a watch of the expression in the stopped
/// draw, read at this pixel (where the invocation first reaches the line).
#[test]
fn wgsl_derivatives_are_evaluated_on_the_gpu() {
    let file = rings("gpu");
    let line = line_of(&file, "let d = length(p);");
    let commands = format!(
        "break {}:{line}\n\
         run\n\
         print dpdx(p.x) * 640.0\n\
         print dpdy(uv.y) * 360.0\n\
         continue\n",
        file.display(),
    );
    let text = debug(&file, &commands);
    // p = uv * 2 - 1, uv = pos.xy / (640, 360): the neighbours' differences.
    for (expr, want) in [("dpdx(p.x) * 640.0", 2.0f32), ("dpdy(uv.y) * 360.0", 1.0)] {
        let prefix = format!("{expr}: f32 = ");
        let got: f32 = text
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .unwrap_or_else(|| panic!("no {expr} in:\n{text}"))
            .parse()
            .expect("a number");
        assert!((got - want).abs() < 1e-3, "{expr} = {got}\n{text}");
    }
}

/// `shaderdbg debug` on a WGSL file: break with a WGSL condition, print
/// WGSL expressions, list the locals the WGSL way, step into the helper.
#[test]
fn the_interactive_debugger_speaks_wgsl() {
    let file = rings("interactive");
    let f = file.display();
    let line = line_of(&file, "glow += weights[i]");
    let helper = line_of(&file, "let edge = abs(");
    let commands = format!(
        "break {f}:{line} if i == 1\n\
         run\n\
         print vec2<f32>(r.radius, f32(i))\n\
         print weights[i] * 2.0\n\
         info locals\n\
         step\n\
         where\n\
         continue\n"
    );
    let text = debug(&file, &commands);
    let (uv, _, glow) = cpu(400, 180, 1);
    assert_has(
        &text,
        &[
            "vec2<f32>(r.radius, f32(i)): vec2<f32> = vec2<f32>(0.4, 1.0)".to_string(),
            "weights[i] * 2.0: f32 = 1.0".to_string(),
            format!("uv: vec2<f32> = ({:?}, {:?})", uv[0], uv[1]),
            format!("glow: f32 = {glow:?}"),
            "i: i32 = 1".to_string(),
            "r: Ring = {radius: 0.4, width: 0.1}".to_string(),
            format!("#0  ring at FILE:{helper}"),
            format!("#1  fs at FILE:{line}"),
        ],
    );
}

/// A pixel and no breakpoints: pixel history stops at the first step of
/// the WGSL entry point (not `main`), located in the file.
#[test]
fn pixel_history_starts_at_the_wgsl_entry_point() {
    let file = rings("history");
    let f = file.to_str().expect("utf-8 path");
    let (events, text) = events_ok(shaderdbg(["run", "--json", "--pixel", "3,4", f]));
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{text}");
    assert_eq!(stops[0]["file"], f);
    assert_eq!(stops[0]["line"], line_of(&file, "let uv = pos.xy"));
    assert_eq!(stops[0]["reason"], "pixel_history", "{}", stops[0]);
}

/// A logpoint in a WGSL file prints WGSL expressions the WGSL way, once
/// per iteration, and never stops.
#[test]
fn wgsl_logpoints_print_wgsl_values() {
    let file = rings("dprintf");
    let line = line_of(&file, "glow += weights[i]");
    let msg = format!(
        "{}:{line}:i={{i}} r2={{r.radius * 2.0}} v={{vec2<f32>(f32(count), 1.0)}}",
        file.display()
    );
    let text = run_text(&["run", "--dprintf", &msg, "--pixel", "100,100"], &file);
    assert_has(
        &text,
        &[
            format!("FILE:{line}: [fragment (100,100)] i=0 r2=0.4 v=vec2<f32>(0.0, 1.0)"),
            format!("FILE:{line}: [fragment (100,100)] i=3 r2=1.6 v=vec2<f32>(3.0, 1.0)"),
        ],
    );
    assert!(!text.contains("stopped at"), "{text}");
}

/// The frame is the same with and without the debugger: stopped at a
/// WGSL breakpoint (hit test, recording: debug draws of the instrumented
/// WGSL), the frame the host drew equals the one it draws alone.
#[test]
fn a_wgsl_frame_is_the_same_under_the_debugger() {
    let file = rings("frame");
    let dir = file.parent().expect("dir").to_path_buf();
    let line = line_of(&file, "glow += weights[i]");
    let bp = format!("{}:{line}:i == 3", file.display());
    let ours = dir.join("ours.png");
    let f = file.to_str().expect("utf-8 path");
    let o = ours.to_str().expect("utf-8 path");
    let (events, text) = events_ok(shaderdbg([
        "run",
        "--json",
        "--break",
        &bp,
        "--pixel",
        "320,180",
        "--screenshot",
        o,
        f,
    ]));
    assert!(events.iter().any(|e| e["event"] == "stopped"), "{text}");
    assert!(events.iter().any(|e| e["event"] == "screenshot"), "{text}");
    let (w, h, a) = decode_png(&ours);
    let (w2, h2, b) = host_image(&file, &dir.join("host.png"));
    assert_eq!((w, h), (w2, h2));
    assert!(a == b, "the frame differs under the debugger");
}

/// A WGSL condition that does not compile leaves its breakpoint
/// unverified with naga's reason and the column; the program runs on.
#[test]
fn a_bad_wgsl_condition_is_reported_with_its_column() {
    let file = rings("badcond");
    let line = line_of(&file, "glow += weights[i]");
    let bp = format!("{}:{line}:count > nope", file.display());
    let text = run_text(&["run", "--break", &bp, "--pixel", "100,100"], &file);
    assert_has(
        &text,
        &[
            format!("breakpoint FILE:{line} unverified: breakpoint condition `count > nope`: column 9: "),
            "program exited with code 0".to_string(),
        ],
    );
    assert!(text.contains("`nope`"), "{text}");
    assert!(!text.contains("stopped at"), "{text}");
}

/// Two breakpoints on one line with different conditions: each hears its
/// own status (the bad condition's breakpoint alone is unverified) and the
/// stop is for the good one.
#[test]
fn breakpoints_on_one_line_get_their_own_status() {
    let file = rings("sameline");
    let line = line_of(&file, "glow += weights[i]");
    let bad = format!("{}:{line}:nope > 1.0", file.display());
    let good = format!("{}:{line}:i == 1", file.display());
    let f = file.to_str().expect("utf-8 path");
    let (events, text) = events_ok(shaderdbg([
        "run", "--json", "--break", &bad, "--break", &good, "--pixel", "100,100", f,
    ]));
    let statuses = of_kind(&events, "breakpoint");
    assert_eq!(statuses.len(), 2, "{text}");
    let verified: Vec<bool> = statuses
        .iter()
        .map(|e| e["verified"].as_bool().expect("verified"))
        .collect();
    assert_eq!(verified, [false, true], "{text}");
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{text}");
    assert_eq!(stops[0]["breakpoints"], serde_json::json!([2]));
    assert_eq!(stops[0]["locals"]["i"]["value"], 1);
}
