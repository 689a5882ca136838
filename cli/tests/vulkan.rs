//! Stops in a Vulkan program through the command line: `shaderdbg run
//! --break vk_triangle.frag:LINE:COND -- vk_triangle` on lavapipe stops at
//! the first fragment where the condition holds, with the values the
//! shader computes there (checked against the same formulas on the CPU),
//! and the frames are the ones the program renders alone.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{json_events, of_kind, shaderdbg};
use serde_json::Value;

fn fragment_shader() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vk-apps/shaders/vk_triangle.frag")
        .canonicalize()
        .expect("shader")
}

fn app() -> PathBuf {
    shaderdbg_test_support::app("vk_triangle")
}

/// `shaderdbg run --json --break vk_triangle.frag:BREAKPOINT -- vk_triangle ARGS`.
fn run_json(breakpoint: &str, args: &[&str]) -> (std::process::Output, String) {
    let bp = format!("{}:{breakpoint}", fragment_shader().display());
    let app = app();
    let mut all = vec![
        "run",
        "--json",
        "--break",
        &bp,
        "--",
        app.to_str().expect("path"),
    ];
    all.extend_from_slice(args);
    shaderdbg(all)
}

fn frames(lines: impl Iterator<Item = String>) -> Vec<String> {
    lines.filter(|l| l.starts_with("frame ")).collect()
}

/// The frame lines `program ARGS` prints alone.
fn frames_alone(program: &std::path::Path, args: &[&str]) -> Vec<String> {
    let out = Command::new(program).args(args).output().expect("runs");
    frames(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string),
    )
}

/// The program's own output lines among `run --json` events.
fn program_output(events: &[Value]) -> Vec<String> {
    of_kind(events, "output")
        .iter()
        .filter_map(|e| e["text"].as_str().map(str::to_string))
        .collect()
}

fn f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_f64())
                .map(|x| x as f32)
                .collect()
        })
        .unwrap_or_default()
}

/// `ring` of `vk_triangle.frag` at pixel (x, y), frame time `t`.
fn ring(x: u32, y: u32, t: f32) -> f32 {
    let p = [(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0];
    let d = ((p[0] - 1.0).powi(2) + (p[1] - 1.0).powi(2)).sqrt();
    let v = d * 2.0 - t;
    v - v.floor()
}

#[test]
fn a_conditional_breakpoint_stops_at_the_first_fragment_where_it_holds() {
    for debug_info in ["source", "nonsemantic"] {
        let (out, text) = run_json("12:ring > 0.9 && p.x > 1.0", &["2", "64", debug_info]);
        let events = json_events(&text);
        let stops = of_kind(&events, "stopped");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stops.len(),
            2,
            "one stop per frame ({debug_info}):\n{text}\n{stderr}"
        );
        for (frame, stop) in stops.iter().enumerate() {
            assert_eq!(stop["line"], 12);
            assert_eq!(stop["stage"], "fragment");
            assert_eq!(stop["frame"], frame as u64);
            let t = frame as f32 * 0.125;
            let [x, y] = [stop["pixel"][0].as_u64(), stop["pixel"][1].as_u64()]
                .map(|v| v.expect("pixel") as u32);
            // The first fragment in row order where the condition holds.
            let holds = |x: u32, y: u32| ring(x, y, t) > 0.9 && (x as f32 + 0.5) / 32.0 > 1.0;
            let first = (0..64)
                .flat_map(|y| (0..64).map(move |x| (x, y)))
                .find(|&(x, y)| holds(x, y))
                .expect("some fragment");
            assert_eq!((x, y), first, "{stop}");
            let locals = &stop["locals"];
            assert_eq!(
                f32s(&locals["p"]["value"]),
                [(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0]
            );
            assert_eq!(locals["t"]["value"].as_f64().map(|v| v as f32), Some(t));
            let r = locals["ring"]["value"].as_f64().expect("ring") as f32;
            assert!((r - ring(x, y, t)).abs() < 1e-5, "{r} vs {}", ring(x, y, t));
        }
        let alone = Command::new(app())
            .args(["2", "64", debug_info])
            .output()
            .expect("runs");
        let alone = String::from_utf8_lossy(&alone.stdout);
        assert_eq!(
            frames(program_output(&events).into_iter()),
            frames(alone.lines().map(str::to_string)),
            "frames differ under the debugger"
        );
    }
}

#[test]
fn a_condition_that_does_not_compile_leaves_the_breakpoint_unverified_with_why() {
    let (out, text) = run_json("11:ring > 0.5", &["1", "32"]);
    assert!(out.status.success(), "{text}");
    let events = json_events(&text);
    let bound = of_kind(&events, "breakpoint");
    assert_eq!(bound.len(), 1, "{text}");
    assert_eq!(bound[0]["verified"], false);
    let message = bound[0]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("undeclared identifier `ring`"),
        "{message}"
    );
    assert!(of_kind(&events, "stopped").is_empty());
}

/// `print` of what only the GPU computes (derivatives) at a Vulkan stop
/// goes to the layer as a watch: the submission runs again with the value
/// captured for every fragment, and the stopped fragment's is shown.
#[test]
fn derivatives_at_a_vulkan_stop_are_evaluated_on_the_gpu() {
    use std::io::Write;
    common::single_pass();
    let bp = format!("{}:12", fragment_shader().display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .args(["debug", "--break", &bp, "--"])
        .arg(app())
        .args(["1", "64"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("shaderdbg debug runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"run\nprint dFdx(p.x * p.y)\nprint dFdy(p.y)\ncontinue\n")
        .expect("commands");
    let out = child.wait_with_output().expect("waits");
    let text = String::from_utf8_lossy(&out.stdout);
    // Stopped at fragment (0,0): p = (0.5, 0.5) / 32; across a pixel in x,
    // p.x * p.y changes by p.y / 32, and p.y by 1 / 32 across one in y.
    let p_y = 0.5f32 / 32.0;
    let value = |name: &str| -> f32 {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("float {name} = ")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| {
                panic!(
                    "no {name} in:\n{text}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
    };
    assert!(
        (value("dFdx(p.x * p.y)") - p_y / 32.0).abs() < 1e-7,
        "{text}"
    );
    assert_eq!(value("dFdy(p.y)"), 1.0 / 32.0, "{text}");
}

/// A compute shader writing a storage buffer: the layer keeps the bound
/// storage as it was before the dispatch (a snapshot), runs the hit test in
/// place of the application's dispatch, and puts the storage back before
/// the recording runs it again. The stop has the invocation's values, and
/// the buffer ends as it does alone (its checksums per frame).
#[test]
fn a_compute_breakpoint_stops_and_the_storage_ends_as_without_the_debugger() {
    let shader = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vk-apps/shaders/vk_compute.comp")
        .canonicalize()
        .expect("shader");
    let bp = format!("{}:15:i == 100u", shader.display());
    let program = shaderdbg_test_support::app("vk_compute");
    let (out, text) = shaderdbg([
        "run",
        "--json",
        "--break",
        &bp,
        "--",
        program.to_str().expect("path"),
        "3",
        "256",
    ]);
    assert!(out.status.success(), "{text}");
    let events = json_events(&text);
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 3, "one stop per frame: {text}");
    for (frame, stop) in stops.iter().enumerate() {
        assert_eq!(stop["stage"], "compute");
        assert_eq!(stop["line"], 15);
        assert_eq!(stop["invocation_id"], serde_json::json!([100, 0, 0]));
        // v = i * 2654435761 + frame, in 32 bits.
        let v = 100u32.wrapping_mul(2654435761).wrapping_add(frame as u32);
        assert_eq!(stop["locals"]["v"]["value"], v, "{stop}");
    }
    assert_eq!(
        frames(program_output(&events).into_iter()),
        frames_alone(&program, &["3", "256"]),
        "the storage differs after the stops"
    );
}

/// `--frame` and `--pixel` apply in Vulkan programs as in GL: one stop,
/// in that frame, at that fragment. Pixels are named as the shader's
/// `gl_FragCoord` names them (Vulkan's origin is top-left): the stop at
/// `--pixel 10,20` reports (10, 20) and its `p` is `gl_FragCoord.xy / 32`
/// there.
#[test]
fn frame_and_pixel_filters_pick_the_stop() {
    let bp = format!("{}:12", fragment_shader().display());
    let app = app();
    let (out, text) = shaderdbg([
        "run",
        "--json",
        "--frame",
        "1",
        "--pixel",
        "10,20",
        "--break",
        &bp,
        "--",
        app.to_str().expect("path"),
        "3",
        "64",
    ]);
    assert!(out.status.success(), "{text}");
    let events = json_events(&text);
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{text}");
    assert_eq!(stops[0]["frame"], 1);
    assert_eq!(stops[0]["pixel"], serde_json::json!([10, 20]));
    assert_eq!(
        f32s(&stops[0]["locals"]["p"]["value"]),
        [10.5 / 32.0, 20.5 / 32.0]
    );
    let t = 0.125f32;
    assert_eq!(
        stops[0]["locals"]["t"]["value"].as_f64().map(|v| v as f32),
        Some(t)
    );
}

/// Several draws in one submission (`vk_triangle`'s DRAWS: full-screen
/// draws at times `frame * 0.125 + i * 0.25`): the stop names the first
/// draw of the submission in which the condition holds, and its values are
/// that draw's (the recording runs the submission again with only that
/// draw writing the debug buffer: the same pixel in the other draws has
/// other times).
#[test]
fn a_stop_names_its_draw_in_the_submission_and_has_its_values() {
    let (out, text) = run_json("12:t > 0.3", &["2", "64", "source", "4"]);
    assert!(out.status.success(), "{text}");
    let events = json_events(&text);
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 2, "one stop per frame: {text}");
    // Frame 0 draws at t = 0, 0.25, 0.5, 0.75; frame 1 at 0.125, 0.375, ...
    for (stop, (draw, t)) in stops.iter().zip([(2, 0.5f32), (1, 0.375)]) {
        assert_eq!(stop["draw"], draw, "{stop}");
        assert_eq!(stop["pixel"], serde_json::json!([0, 0]), "{stop}");
        assert_eq!(
            stop["locals"]["t"]["value"].as_f64().map(|v| v as f32),
            Some(t),
            "{stop}"
        );
        let r = stop["locals"]["ring"]["value"].as_f64().expect("ring") as f32;
        assert!((r - ring(0, 0, t)).abs() < 1e-5, "{r} vs {}", ring(0, 0, t));
    }
    assert_eq!(
        frames(program_output(&events).into_iter()),
        frames_alone(&app(), &["2", "64", "source", "4"]),
        "frames differ under the debugger"
    );
}
