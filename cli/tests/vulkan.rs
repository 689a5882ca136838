//! Stops in a Vulkan program through the command line: `shaderdbg run
//! --break vk_triangle.frag:LINE:COND -- vk_triangle` on lavapipe stops at
//! the first fragment where the condition holds, with the values the
//! shader computes there (checked against the same formulas on the CPU),
//! and the frames are the ones the program renders alone.

mod common;

use std::path::PathBuf;

use common::{
    debug_session, events_ok, f32s, frames, frames_alone, json_events, line_of, of_kind,
    program_output, run_program, shaderdbg,
};
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
    run_program(&bp, &app(), args)
}

/// `ring` of `vk_triangle.frag` at pixel (x, y), frame time `t`.
fn ring(x: u32, y: u32, t: f32) -> f32 {
    let p = [(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0];
    let d = ((p[0] - 1.0).powi(2) + (p[1] - 1.0).powi(2)).sqrt();
    let v = d * 2.0 - t;
    v - v.floor()
}

/// The first fragment in row order of a 64x64 `vk_triangle` frame at time
/// `t` where `ring > 0.9 && p.x > 1.0` holds.
fn first_bright_ring_right_of_centre(t: f32) -> (u32, u32) {
    let holds = |x: u32, y: u32| ring(x, y, t) > 0.9 && (x as f32 + 0.5) / 32.0 > 1.0;
    (0..64)
        .flat_map(|y| (0..64).map(move |x| (x, y)))
        .find(|&(x, y)| holds(x, y))
        .expect("some fragment")
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
            assert_eq!((x, y), first_bright_ring_right_of_centre(t), "{stop}");
            let locals = &stop["locals"];
            assert_eq!(
                f32s(&locals["p"]["value"]),
                [(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0]
            );
            assert_eq!(locals["t"]["value"].as_f64().map(|v| v as f32), Some(t));
            let r = locals["ring"]["value"].as_f64().expect("ring") as f32;
            assert!((r - ring(x, y, t)).abs() < 1e-5, "{r} vs {}", ring(x, y, t));
        }
        assert_eq!(
            frames(program_output(&events).into_iter()),
            frames_alone(&app(), &["2", "64", debug_info]),
            "frames differ under the debugger"
        );
    }
}

#[test]
fn a_condition_that_does_not_compile_leaves_the_breakpoint_unverified_with_why() {
    let (events, text) = events_ok(run_json("11:ring > 0.5", &["1", "32"]));
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
    let bp = format!("{}:12", fragment_shader().display());
    let app = app();
    let (_, text, stderr) = debug_session(
        ["--break", &bp, "--", app.to_str().expect("path"), "1", "64"],
        "run\nprint dFdx(p.x * p.y)\nprint dFdy(p.y)\ncontinue\n",
    );
    // Stopped at fragment (0,0): p = (0.5, 0.5) / 32; across a pixel in x,
    // p.x * p.y changes by p.y / 32, and p.y by 1 / 32 across one in y.
    let p_y = 0.5f32 / 32.0;
    let value = |name: &str| -> f32 {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("float {name} = ")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in:\n{text}\n{stderr}"))
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
    let (events, text) = events_ok(run_program(&bp, &program, &["3", "256"]));
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
    let (events, text) = events_ok(shaderdbg([
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
    ]));
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

/// A shader that `#include`s a file (`vk_include.frag`, its rings in
/// `include/vk_rings.glsl`; `-g` records one `OpSource` per file, `-gVS`
/// one `DebugSource`): each of the user's files binds by content to the
/// part of the module that is its own, a breakpoint in the included file's
/// function stops there at the first fragment where its condition holds
/// (its values as the CPU computes them), one in the main file stops in
/// the main file, and the frames are the program's alone.
#[test]
fn breakpoints_in_an_included_file_and_in_its_includer_stop_in_each() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vk-apps/shaders");
    let main = dir.join("vk_include.frag").canonicalize().expect("shader");
    let included = dir
        .join("include/vk_rings.glsl")
        .canonicalize()
        .expect("included file");
    let program = shaderdbg_test_support::app("vk_include");
    let return_line = line_of(&included, "return ring;");
    let color_line = line_of(&main, "color = ");
    for debug_info in ["source", "nonsemantic"] {
        let args = ["2", "64", debug_info];
        let at = |file: &PathBuf, line: u32, condition: &str| {
            let bp = format!("{}:{line}:{condition}", file.display());
            let (events, text) = events_ok(run_program(&bp, &program, &args));
            assert_eq!(
                frames(program_output(&events).into_iter()),
                frames_alone(&program, &args),
                "frames differ under the debugger ({debug_info})"
            );
            let stops: Vec<Value> = of_kind(&events, "stopped").into_iter().cloned().collect();
            assert_eq!(stops.len(), 2, "one stop per frame ({debug_info}):\n{text}");
            for stop in &stops {
                assert_eq!(stop["file"], file.display().to_string(), "{stop}");
                assert_eq!(stop["line"], line, "{stop}");
            }
            stops
        };
        let in_included = at(&included, return_line, "ring > 0.9 && p.x > 1.0");
        for (frame, stop) in in_included.iter().enumerate() {
            let t = frame as f32 * 0.125;
            let first = first_bright_ring_right_of_centre(t);
            let pixel = [0, 1].map(|i| stop["pixel"][i].as_u64().expect("pixel") as u32);
            assert_eq!((pixel[0], pixel[1]), first, "{stop}");
            let locals = &stop["locals"];
            let p = [(first.0 as f32 + 0.5) / 32.0, (first.1 as f32 + 0.5) / 32.0];
            assert_eq!(f32s(&locals["p"]["value"]), p, "{stop}");
            let r = locals["ring"]["value"].as_f64().expect("ring") as f32;
            assert!((r - ring(first.0, first.1, t)).abs() < 1e-5, "{stop}");
        }
        let in_main = at(&main, color_line, "ring > 0.9");
        let r = in_main[0]["locals"]["ring"]["value"]
            .as_f64()
            .expect("ring") as f32;
        assert!(r > 0.9, "{}", in_main[0]);
    }
}

/// A vertex shader breakpoint: `vk_triangle.vert` makes its full-screen
/// triangle from `gl_VertexIndex` alone, so the first vertex where the
/// condition holds, and its `uv`, are computed here from the index.
#[test]
fn a_vertex_breakpoint_stops_at_the_first_vertex_where_it_holds_with_its_values() {
    let shader = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vk-apps/shaders/vk_triangle.vert")
        .canonicalize()
        .expect("shader");
    let line = line_of(&shader, "gl_Position =");
    // `uv` of vertex i: ((i << 1) & 2, i & 2).
    let uv = |i: i32| [((i << 1) & 2) as f32, (i & 2) as f32];
    for (condition, holds) in [
        (
            "uv.y > 0.0",
            (|[_, y]: [f32; 2]| y > 0.0) as fn([f32; 2]) -> bool,
        ),
        ("uv.x > 0.0", |[x, _]: [f32; 2]| x > 0.0),
        ("true", |_: [f32; 2]| true),
    ] {
        let bp = format!("{}:{line}:{condition}", shader.display());
        let (events, text) = events_ok(run_program(&bp, &app(), &["2", "32"]));
        let stops = of_kind(&events, "stopped");
        assert_eq!(stops.len(), 2, "one stop per frame ({condition}):\n{text}");
        let first = (0..3).find(|&i| holds(uv(i))).expect("a vertex");
        let hits = (0..3).filter(|&i| holds(uv(i))).count();
        for stop in stops {
            assert_eq!(stop["stage"], "vertex", "{stop}");
            assert_eq!(stop["line"], line, "{stop}");
            assert_eq!(stop["vertex"], first, "{condition}: {stop}");
            assert_eq!(stop["hits"], hits, "{condition}: {stop}");
            assert_eq!(f32s(&stop["locals"]["uv"]["value"]), uv(first), "{stop}");
            assert_eq!(stop["globals"]["gl_VertexIndex"]["value"], first, "{stop}");
        }
    }
}

/// Hit counts and logpoints in a Vulkan program, as in GL: the condition
/// `p.x > 1.5` holds for 16 of the 64 columns, so 1024 invocations reach
/// line 12 in each frame; gdb's `ignore 1 1024` skips frame 0's, `== 1025`
/// stops once, at the first of frame 1; a logpoint at one pixel of one
/// frame prints its values (exact in f32) and never stops.
#[test]
fn hit_counts_and_logpoints_work_in_a_vulkan_program() {
    let file = fragment_shader();
    let bp = format!("{}:12:p.x > 1.5", file.display());
    let frames_of = |extra: &[&str]| -> Vec<u64> {
        let mut args = vec!["run", "--json", "--break", bp.as_str()];
        args.extend_from_slice(extra);
        let program = app();
        args.extend_from_slice(&["--", program.to_str().expect("path"), "3", "64"]);
        let (events, _) = events_ok(shaderdbg(args));
        of_kind(&events, "stopped")
            .iter()
            .map(|s| {
                assert_eq!(s["breakpoints"], serde_json::json!([1]), "{s}");
                s["frame"].as_u64().expect("frame")
            })
            .collect()
    };
    assert_eq!(frames_of(&["--ignore", "1:1024"]), [1, 2]);
    assert_eq!(frames_of(&["--hit-condition", "1:== 1025"]), [1]);
    assert_eq!(frames_of(&["--hit-condition", "1:% 1024"]), [0, 1, 2]);

    let log = format!("{}:11:p={{p}} t={{t}} q={{nope}}", file.display());
    let program = app();
    let (events, text) = events_ok(shaderdbg([
        "run",
        "--json",
        "--dprintf",
        &log,
        "--pixel",
        "50,10",
        "--frame",
        "1",
        "--",
        program.to_str().expect("path"),
        "3",
        "64",
    ]));
    assert!(of_kind(&events, "stopped").is_empty(), "{text}");
    let logs = of_kind(&events, "log");
    assert_eq!(logs.len(), 1, "{text}");
    assert_eq!(logs[0]["line"], 11);
    // gl_FragCoord (50.5, 10.5) / 32 (Vulkan's y down) and frame 1 * 0.125.
    assert_eq!(
        logs[0]["text"],
        "[fragment (50,10)] p=vec2(1.578125, 0.328125) t=0.125 q=<nope: no variable named nope in scope>"
    );
}

/// Pixel history (`--pixel X,Y` without breakpoints) on the swapchain
/// image of vkcube (Debian's vulkan-tools) under Xvfb: the draw that shades
/// the pixel stops in every frame, at that pixel, with a texture
/// coordinate inside the cube's face; a pixel of the background (cleared,
/// shaded by no draw) never stops.
#[test]
fn pixel_history_on_vkcube_stops_where_a_draw_shades_the_pixel() {
    shaderdbg_test_support::require_installed(&["/usr/bin/vkcube", "/usr/bin/spirv-cross"]);
    let history = |pixel: &str| {
        let out = shaderdbg_test_support::xvfb_run(640, 480)
            .arg(env!("CARGO_BIN_EXE_shaderdbg"))
            .args([
                "run", "--json", "--pixel", pixel, "--", "vkcube", "--c", "3",
            ])
            .output()
            .expect("runs shaderdbg under xvfb-run");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let (events, text) = events_ok((out, text));
        let stops: Vec<Value> = of_kind(&events, "stopped").into_iter().cloned().collect();
        (stops, text)
    };
    // vkcube's 500x500 window: the cube covers its centre.
    let (stops, text) = history("250,250");
    let frames: Vec<u64> = stops
        .iter()
        .map(|s| s["frame"].as_u64().expect("frame"))
        .collect();
    assert_eq!(frames, [0, 1, 2], "{text}");
    for stop in &stops {
        assert_eq!(stop["reason"], "pixel_history", "{stop}");
        assert_eq!(stop["stage"], "fragment", "{stop}");
        assert_eq!(stop["pixel"], serde_json::json!([250, 250]), "{stop}");
        let texcoord = f32s(&stop["globals"]["texcoord"]["value"]);
        assert!(
            texcoord.len() == 4 && texcoord[..2].iter().all(|c| (0.0..=1.0).contains(c)),
            "{stop}"
        );
    }
    let (stops, text) = history("3,3");
    assert!(stops.is_empty(), "{text}");
}

/// Pixel history in a draw into a colour attachment other than the first,
/// and in every draw of a submission that shades the pixel: `vk_subpass`'s
/// first subpass draws `vk_triangle.frag` into attachment 1, the second
/// reads it and draws attachment 0. Each frame stops at the pixel in both
/// draws, in submission order, and the recordings' values there are the
/// ones the CPU computes (the second reads what the first drew).
#[test]
fn pixel_history_stops_in_each_draw_of_a_submission_into_any_colour_attachment() {
    let program = shaderdbg_test_support::app("vk_subpass");
    let (events, text) = events_ok(shaderdbg([
        "run",
        "--json",
        "--trace",
        "--pixel",
        "10,20",
        "--",
        program.to_str().expect("path"),
        "2",
        "64",
    ]));
    assert_eq!(
        frames(program_output(&events).into_iter()),
        frames_alone(&program, &["2", "64"]),
    );
    let writes = |stop: &Value, name: &str| -> Option<Value> {
        let steps = stop["steps"].as_array()?;
        steps.iter().find_map(|s| s["writes"].get(name).cloned())
    };
    let stops = of_kind(&events, "stopped");
    let at: Vec<(u64, u64)> = stops
        .iter()
        .map(|s| {
            (
                s["frame"].as_u64().unwrap_or(99),
                s["draw"].as_u64().unwrap_or(99),
            )
        })
        .collect();
    assert_eq!(at, [(0, 0), (0, 1), (1, 0), (1, 1)], "{text}");
    for pair in stops.chunks(2) {
        let t = pair[0]["frame"].as_u64().expect("frame") as f32 * 0.125;
        for stop in pair {
            assert_eq!(stop["reason"], "pixel_history", "{stop}");
            assert_eq!(stop["pixel"], serde_json::json!([10, 20]), "{stop}");
        }
        // The first subpass's draw: its trace writes `ring`.
        let p = writes(pair[0], "p").expect("p");
        assert_eq!(f32s(&p), [10.5 / 32.0, 20.5 / 32.0], "{}", pair[0]);
        let r = writes(pair[0], "ring")
            .and_then(|r| r.as_f64())
            .expect("ring") as f32;
        assert!((r - ring(10, 20, t)).abs() < 1e-5, "{}", pair[0]);
        // The second's reads the first's colour (8-bit unorm): its green is
        // `ring`.
        let seen = f32s(&writes(pair[1], "seen").expect("seen"));
        let stored = (ring(10, 20, t) * 255.0).round() / 255.0;
        assert!(
            seen.len() == 4 && (seen[1] - stored).abs() < 1e-3,
            "{seen:?} vs {stored}: {}",
            pair[1]
        );
    }
}

/// Several draws in one submission (`vk_triangle`'s DRAWS: full-screen
/// draws at times `frame * 0.125 + i * 0.25`): the submission stops once in
/// each draw where the condition holds, in order, each stop naming its draw
/// and with that draw's values (the recording runs the submission again
/// with only that draw writing the debug buffer: the same pixel in the
/// other draws has other times).
#[test]
fn a_stop_names_its_draw_in_the_submission_and_has_its_values() {
    let (events, text) = events_ok(run_json("12:t > 0.3", &["2", "64", "source", "4"]));
    let stops = of_kind(&events, "stopped");
    // Frame 0 draws at t = 0, 0.25, 0.5, 0.75; frame 1 at 0.125, 0.375, ...
    let want = [
        (0, 2, 0.5f32),
        (0, 3, 0.75),
        (1, 1, 0.375),
        (1, 2, 0.625),
        (1, 3, 0.875),
    ];
    assert_eq!(
        stops.len(),
        want.len(),
        "one stop per draw that hits: {text}"
    );
    for (stop, (frame, draw, t)) in stops.iter().zip(want) {
        assert_eq!(stop["frame"], frame, "{stop}");
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
