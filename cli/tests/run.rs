//! `shaderdbg run` end to end: a real program (`single_pass`, from the test
//! apps) under the real agent, driven by the command line in `--json` mode.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{
    assert_has, decode_png, events_of, events_ok, host_image, json_events, of_kind, one_stop,
    run_test_app, shaderdbg, single_pass, GLMARK2_PHONG,
};

fn shader_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/apps/shaders/single_pass.frag")
        .canonicalize()
        .expect("shader file")
}

fn run(args: &[&str]) -> (Output, Vec<Value>) {
    run_app(args, &["3", "64"])
}

/// `shaderdbg run ARGS --json -- single_pass APP_ARGS`: its output and events.
fn run_app(args: &[&str], app_args: &[&str]) -> (Output, Vec<Value>) {
    let app = single_pass().to_str().expect("utf-8 path").to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .arg("run")
        .args(args)
        .args(["--json", "--", &app])
        .args(app_args)
        .output()
        .expect("shaderdbg run");
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    (out, events)
}

/// The JSON events among `text`'s lines (the rest is the program's own output).
#[test]
fn conditional_breakpoint_at_a_pixel_with_trace() {
    let bp = format!("{}:9:p.x > 1.5", shader_file().display());
    let (out, events) = run(&[
        "--break", &bp, "--pixel", "50,10", "--frame", "1", "--trace",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{events:#?}");
    let s = stops[0];
    assert_eq!(s["line"], 9);
    assert_eq!(s["stage"], "fragment");
    assert_eq!(s["pixel"], serde_json::json!([50, 10]));
    assert_eq!(s["frame"], 1);
    assert_eq!(s["locals"]["p"]["type"], "vec2");
    assert_eq!(
        s["locals"]["p"]["value"],
        serde_json::json!([50.5 / 32.0, 10.5 / 32.0])
    );
    assert_eq!(s["locals"]["t"]["value"], serde_json::json!(0.125));
    let steps = s["steps"].as_array().expect("steps");
    let lines: Vec<u64> = steps
        .iter()
        .map(|st| st["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![7, 8, 9, 10]);
    assert_eq!(
        steps[3]["writes"]["color"].as_array().map(Vec::len),
        Some(4)
    );
    let exited = of_kind(&events, "exited");
    assert_eq!(exited[0]["code"], 0);
    assert_eq!(
        of_kind(&events, "output").len(),
        3,
        "the program's own output is forwarded"
    );
}

#[test]
fn pixel_history_and_max_stops() {
    let (out, events) = run(&["--pixel", "5,5", "--frame", "2"]);
    assert!(out.status.success());
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "one draw covers the pixel in frame 2");
    assert_eq!(stops[0]["line"], 7, "stops at the start of main");
    assert_eq!(stops[0]["frame"], 2);

    let bp = format!("{}:10", shader_file().display());
    let (out, events) = run(&["--break", &bp, "--max-stops", "2"]);
    assert!(out.status.success());
    let stops = of_kind(&events, "stopped");
    assert_eq!(
        stops.len(),
        2,
        "the third frame runs without the breakpoint"
    );
    assert_eq!(stops[0]["frame"], 0);
    assert_eq!(stops[1]["frame"], 1);
}

#[test]
fn bad_conditions_and_files_are_reported_not_fatal() {
    let bp = format!("{}:9:nope > 1.0", shader_file().display());
    let (out, events) = run(&["--break", &bp]);
    assert!(out.status.success());
    let b = of_kind(&events, "breakpoint");
    assert_eq!(b[0]["verified"], false);
    assert!(
        b[0]["message"]
            .as_str()
            .unwrap()
            .contains("undeclared identifier `nope`"),
        "{b:?}"
    );
    assert!(of_kind(&events, "stopped").is_empty());

    let other = std::env::temp_dir().join(format!("shaderdbg-unused-{}.frag", std::process::id()));
    std::fs::write(&other, "void main() {\n  gl_FragColor = vec4(1.0);\n}\n").unwrap();
    let bp = format!("{}:2", other.display());
    let (out, events) = run(&["--break", &bp]);
    std::fs::remove_file(&other).unwrap();
    assert!(out.status.success());
    assert!(of_kind(&events, "stopped").is_empty());
    assert_eq!(of_kind(&events, "exited").len(), 1);

    let (out, _) = shaderdbg(["run", "--", "/nonexistent/program"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /nonexistent/program"));
}

/// A program that ends without using OpenGL or Vulkan (piglit's
/// shader_runner when a test is skipped, a wrapper script, a typo in the
/// arguments) is no error: its output and exit status are the user's, and a
/// note says there was nothing to debug. It was "exited before the agent
/// connected", exit 2, its output lost.
#[test]
fn a_program_that_never_uses_gl_keeps_its_output_and_exit_status() {
    let (out, text) = shaderdbg([
        "run",
        "--json",
        "--",
        "/bin/sh",
        "-c",
        "echo hello; echo oops >&2; exit 3",
    ]);
    let events = json_events(&text);
    let output: Vec<(&str, &str)> = of_kind(&events, "output")
        .iter()
        .map(|e| (e["stream"].as_str().unwrap(), e["text"].as_str().unwrap()))
        .collect();
    assert!(output.contains(&("stdout", "hello")), "{text}");
    assert!(output.contains(&("stderr", "oops")), "{text}");
    let notes = of_kind(&events, "error");
    assert!(
        notes.len() == 1
            && notes[0]["message"]
                .as_str()
                .unwrap()
                .contains("never connected"),
        "{text}"
    );
    assert_eq!(of_kind(&events, "exited")[0]["code"], 3, "{text}");
    assert_eq!(out.status.code(), Some(3));
}

/// glmark2 (GLX under Xvfb; shaders loaded from files with a header prepended
/// and `$DO_LIGHTS$` replaced at run time): a breakpoint set in the shader file
/// binds, hits, and records values consistent with the condition.
#[test]
fn glmark2_breakpoint_in_light_phong_hits_and_records() {
    single_pass();
    shaderdbg_test_support::require_installed(&[
        "/usr/bin/glmark2",
        "/usr/share/glmark2/shaders/light-phong.frag",
    ]);
    let out = shaderdbg_test_support::xvfb_run(640, 480)
        .arg(env!("CARGO_BIN_EXE_shaderdbg"))
        .args([
            "run",
            "--json",
            "--max-stops",
            "1",
            "--break",
            "/usr/share/glmark2/shaders/light-phong.frag:18:normalized_normal.z > 0.5",
            "--",
        ])
        .args(GLMARK2_PHONG)
        .output()
        .expect("xvfb-run shaderdbg");
    let (s, _) = one_stop(&out);
    assert_eq!(s["file"], "/usr/share/glmark2/shaders/light-phong.frag");
    assert_eq!(s["line"], 18);
    let n: Vec<f64> = s["locals"]["normalized_normal"]["value"]
        .as_array()
        .expect("normalized_normal recorded")
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    assert!((len - 1.0).abs() < 1e-4, "{n:?}");
    assert!(n[2] > 0.5, "the condition held: {n:?}");
}

/// The README's main command: the built-in host under the agent, a
/// conditional breakpoint at one pixel, the stop and its trace printed.
#[test]
fn demo_stops_in_the_built_in_host_and_prints_the_trace() {
    let (out, text) = shaderdbg(["demo"]);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_has(
        &text,
        &[
            "demo.frag:21 in fragment (200,150)",
            "float falloff = ",
            "trace:",
            "program exited with code 0",
        ],
    );
    // The locals at the stop satisfy the condition.
    let falloff: f32 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("float falloff = "))
        .and_then(|v| v.parse().ok())
        .expect("falloff printed");
    assert!(falloff > 0.5, "{falloff}");
}

/// Regression: an unconditional breakpoint with `--pixel` on a draw with more
/// hits than the agent's hit buffer holds (every fragment of 640x360 hits)
/// never stopped, because the pixel was filtered after the buffer filled with
/// other pixels' hits.
#[test]
fn pixel_filter_finds_its_pixel_in_a_draw_where_every_fragment_hits() {
    let file = common::demo_shader("pixel-filter");
    let bp = format!("{}:21", file.display());
    let (out, text) = shaderdbg([
        "run",
        "--json",
        "--max-stops",
        "1",
        "--pixel",
        "600,350",
        "--break",
        &bp,
        "--",
        file.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{text}");
    let events = json_events(&text);
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{text}");
    assert_eq!(stops[0]["pixel"], serde_json::json!([600, 350]), "{text}");
}

/// `--screenshot` writes the frame the program drew: the same image the
/// built-in host writes itself with `--png` (not attached), top row first.
#[test]
fn screenshot_is_the_frame_the_program_drew() {
    let file = common::demo_shader("screenshot");
    let dir = file.parent().expect("dir");
    let ours = dir.join("ours.png");
    let (out, text) = shaderdbg([
        "run".as_ref(),
        "--json".as_ref(),
        "--frame".as_ref(),
        "0".as_ref(),
        "--screenshot".as_ref(),
        ours.as_os_str(),
        "--".as_ref(),
        file.as_os_str(),
    ]);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(r#""event":"screenshot""#), "{text}");
    let (w, h, a) = decode_png(&ours);
    let (w2, h2, b) = host_image(&file, &dir.join("host.png"));
    assert_eq!((w, h), (w2, h2));
    assert_eq!((w, h), (640, 360));
    assert!(a == b, "the screenshot differs from the host's own image");
    // Not a blank image: the demo's rings are there.
    assert!(a.chunks(4).any(|p| p[0] > 200 && p[1] > 200 && p[2] > 200));
}

#[test]
fn screenshot_of_a_frame_that_never_ends_is_reported() {
    let file = common::demo_shader("screenshot-missing");
    let png = file.parent().expect("dir").join("never.png");
    let (_, text) = shaderdbg([
        "run".as_ref(),
        "--frame".as_ref(),
        "7".as_ref(),
        "--screenshot".as_ref(),
        png.as_os_str(),
        "--".as_ref(),
        file.as_os_str(),
    ]);
    assert!(
        text.contains("the program ended before frame 7 ended"),
        "{text}"
    );
    assert!(!png.exists());
}

/// Hit counts run across draws (an invocation counts once per draw): the
/// condition `p.x > 1.5` holds for 16 columns of the 64x64 frame, so 1024
/// invocations reach line 9 in each of the three frames.
#[test]
fn hit_counts_decide_which_invocation_stops() {
    let bp = format!("{}:9:p.x > 1.5", shader_file().display());
    let frames_of = |extra: &[&str]| {
        let mut args = vec!["--break", bp.as_str()];
        args.extend_from_slice(extra);
        let (out, events) = run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        of_kind(&events, "stopped")
            .iter()
            .map(|s| {
                assert_eq!(s["breakpoints"], serde_json::json!([1]));
                s["frame"].as_u64().unwrap()
            })
            .collect::<Vec<_>>()
    };
    // gdb's ignore: the first 1024 hits (all of frame 0) do not stop.
    assert_eq!(frames_of(&["--ignore", "1:1024"]), vec![1, 2]);
    // Every 1024th hit: the last invocation of each frame.
    assert_eq!(frames_of(&["--hit-condition", "1:% 1024"]), vec![0, 1, 2]);
    // Exactly the 1025th: the first of frame 1, and never again.
    assert_eq!(frames_of(&["--hit-condition", "1:== 1025"]), vec![1]);
    let (out, _) = run(&["--break", &bp, "--hit-condition", "2:3"]);
    assert!(!out.status.success(), "no breakpoint 2");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no breakpoint 2"));
}

/// A logpoint prints, for each invocation reaching its line, its message
/// with the values at that line, and never stops the program.
#[test]
fn dprintf_logs_values_without_stopping() {
    let log = format!("{}:10:p={{p}} t={{t}} q={{nope}}", shader_file().display());
    let (out, events) = run(&["--dprintf", &log, "--pixel", "50,10", "--frame", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(of_kind(&events, "stopped").is_empty(), "{events:#?}");
    let logs = of_kind(&events, "log");
    assert_eq!(logs.len(), 1, "{events:#?}");
    assert_eq!(logs[0]["line"], 10);
    assert_eq!(logs[0]["breakpoint"], 1);
    let text = logs[0]["text"].as_str().unwrap();
    // gl_FragCoord (50.5, 10.5) / 32 and frame 1 * 0.125, exact in f32.
    assert!(
        text.starts_with("[fragment (50,10) prim ")
            && text.ends_with(
                "] p=vec2(1.578125, 0.328125) t=0.125 q=<nope: no variable named nope in scope>"
            ),
        "{text}"
    );
}

/// A logpoint reached by a whole draw prints the first invocations and
/// then says how many more reached it, rather than dropping them silently.
#[test]
fn dprintf_says_how_many_invocations_it_did_not_print() {
    let log = format!("{}:10:t={{t}}", shader_file().display());
    // Two 8x8 frames: 64 invocations reach line 10 in a draw.
    let (out, events) = run_app(&["--dprintf", &log, "--frame", "1"], &["2", "8"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let logs = of_kind(&events, "log");
    let texts: Vec<&str> = logs.iter().filter_map(|l| l["text"].as_str()).collect();
    let (last, printed) = texts.split_last().expect("log lines");
    assert_eq!(printed.len(), 32, "{texts:#?}");
    assert!(printed.iter().all(|t| t.ends_with("t=0.125")), "{texts:#?}");
    assert_eq!(
        *last,
        "... and 32 more invocations reached this line in this draw (a logpoint prints at most 32 a draw)",
    );
}

/// Two threads, each with its own context, both reaching the breakpoint:
/// stops are serialized (the second thread waits in its draw until the
/// first is resumed) and the program runs to its end with the frames it
/// renders without us. It used to hang: the threads took each other's
/// requests from the debugger.
#[test]
fn stops_on_two_threads_are_serialized_and_nothing_hangs() {
    let app = single_pass().to_str().expect("utf-8 path").to_string();
    let bp = format!("{}:9", shader_file().display());
    let (_, events) = run_app(
        &["--break", &bp, "--max-stops", "4", "--timeout", "120"],
        &["3", "64", "2"],
    );
    assert!(of_kind(&events, "timeout").is_empty(), "{events:#?}");
    assert!(of_kind(&events, "error").is_empty(), "{events:#?}");
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 4, "{events:#?}");
    assert!(stops.iter().all(|s| s["line"] == 9));
    let plain = Command::new(&app)
        .args(["3", "64", "2"])
        .output()
        .expect("the app alone");
    let want: Vec<String> = String::from_utf8_lossy(&plain.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let got: Vec<String> = of_kind(&events, "output")
        .iter()
        .filter_map(|e| e["text"].as_str().map(str::to_string))
        .collect();
    assert_eq!(want.len(), 6, "three frames on each of two threads");
    assert_eq!(got, want, "frames differ under the debugger");
    assert_eq!(of_kind(&events, "exited")[0]["code"], 0);
}

/// The README's `shaderdbg run my_effect.frag`: a lone shader file needs no
/// `--` (it used to be demanded), and `--` still works.
#[test]
fn a_lone_shader_file_runs_without_the_separator() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("demo/demo.frag")
        .canonicalize()
        .expect("demo shader");
    let demo = demo.to_str().expect("utf-8 path");
    let bp = format!("{demo}:27");
    for separator in [&[][..], &["--"][..]] {
        let (out, text) = shaderdbg(
            ["run", "--json", "--break", &bp, "--pixel", "3,4"]
                .iter()
                .chain(separator)
                .chain([&demo]),
        );
        assert!(out.status.success(), "{separator:?}: {text}");
        let events = json_events(&text);
        let stops = of_kind(&events, "stopped");
        assert_eq!(stops.len(), 1, "{separator:?}: {text}");
        assert_eq!(stops[0]["pixel"], serde_json::json!([3, 4]));
    }
}

/// A GLSL 1.10 shader naming things with words later versions made
/// keywords (`flat`, `sample`), as Mesa and glslang accept: its
/// breakpoint binds and stops with `sample`'s value (glsl-lang read them
/// as keywords in every version: the shader "did not parse").
#[test]
fn old_glsl_may_name_things_with_later_keywords() {
    let dir = std::env::temp_dir().join(format!("shaderdbg-old110-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("old110.frag");
    std::fs::write(
        &file,
        "uniform vec2 resolution;
float flat(float x) { return floor(x * 4.0) / 4.0; }
void main() {
    vec2 uv = gl_FragCoord.xy / 64.0;
    float sample = flat(uv.x);
    gl_FragColor = vec4(sample, uv.y, 0.0, 1.0);
}
",
    )
    .expect("write");
    let file = file.to_str().expect("utf-8 path");
    let bp = format!("{file}:6");
    let (events, text) = events_ok(shaderdbg([
        "run", "--json", "--break", &bp, "--pixel", "40,10", file,
    ]));
    let _ = std::fs::remove_dir_all(&dir);
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{text}");
    // flat(40.5 / 64) = floor(2.53) / 4
    assert_eq!(
        stops[0]["locals"]["sample"]["value"],
        serde_json::json!(0.5),
        "{text}"
    );
}

/// Record once, debug any time: a capture of the app replayed under the
/// debugger stops at the same pixel and frame with the values of the live
/// run (the conditional-breakpoint test above checks those).
#[test]
fn a_captured_trace_replays_under_the_debugger_with_the_live_values() {
    let app = single_pass().to_str().expect("utf-8 path").to_string();
    let dir = std::env::temp_dir().join(format!("shaderdbg-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let trace = dir.join("single_pass.trace");
    let trace = trace.to_str().expect("utf-8 path");
    // apitrace must be installed (`cargo xtask setup` installs it).
    shaderdbg_test_support::stdout_lines(Command::new(env!("CARGO_BIN_EXE_shaderdbg")).args([
        "capture", "--api", "egl", "-o", trace, "--", &app, "3", "64",
    ]));
    let bp = format!("{}:9:p.x > 1.5", shader_file().display());
    let out = Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .args([
            "run", "--json", "--break", &bp, "--pixel", "50,10", "--frame", "1",
        ])
        .args(["--timeout", "120", "--", trace])
        .env_remove("DISPLAY")
        .output()
        .expect("shaderdbg run");
    let events = json_events(&String::from_utf8_lossy(&out.stdout));
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{events:#?}");
    let s = stops[0];
    assert_eq!(
        (s["line"].as_u64(), s["frame"].as_u64()),
        (Some(9), Some(1))
    );
    assert_eq!(s["pixel"], serde_json::json!([50, 10]));
    assert_eq!(
        s["locals"]["p"]["value"],
        serde_json::json!([50.5 / 32.0, 10.5 / 32.0])
    );
    assert_eq!(s["locals"]["t"]["value"], serde_json::json!(0.125));
    assert_eq!(of_kind(&events, "exited")[0]["code"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shader file of the test apps (`tests/apps/shaders/NAME`).
fn kernel_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/apps/shaders")
        .join(name)
        .canonicalize()
        .expect("kernel file")
}

/// `shaderdbg run ARGS -- APP 1` (a compute app for one frame): its output.
fn run_compute(app: &str, args: &[&str]) -> Output {
    run_test_app(args, app, &["1"])
}

/// [`run_compute`] that must succeed: its standard output.
fn compute_text(app: &str, args: &[&str]) -> String {
    let out = run_compute(app, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The one sanitizer report of `app` (one frame, `--sanitize race
/// --json`), checked to be a data race on `variable` at `lines` (its line,
/// the other's) with `accesses`.
#[track_caller]
fn race_report(app: &str, variable: &str, lines: (u32, u32), accesses: (&str, &str)) -> Value {
    let events = events_of(&run_compute(app, &["--sanitize", "race", "--json"]));
    let reports = of_kind(&events, "sanitizer");
    assert_eq!(reports.len(), 1, "{events:#?}");
    let r = reports[0];
    assert_eq!(r["kind"], "data_race");
    assert_eq!(r["variable"], variable);
    assert_eq!(
        (r["line"].clone(), r["other_line"].clone()),
        (lines.0.into(), lines.1.into())
    );
    assert_eq!(
        (r["access"].clone(), r["other_access"].clone()),
        (accesses.0.into(), accesses.1.into())
    );
    r.clone()
}

/// The fixed `app` (`--fixed`) under every check for one frame: its
/// events, checked to hold no sanitizer report.
fn fixed_events(app: &str) -> Vec<Value> {
    let out = run_test_app(&["--sanitize", "all", "--json"], app, &["1", "--fixed"]);
    let events = events_of(&out);
    assert!(of_kind(&events, "sanitizer").is_empty(), "{events:#?}");
    events
}

/// [`run_compute`] of `oob_compute` (an off-by-one compute kernel).
fn run_oob(args: &[&str]) -> Output {
    run_compute("oob_compute", args)
}

#[test]
fn sanitize_reports_the_out_of_bounds_index_at_its_line_and_invocation() {
    let kernel = kernel_file("oob.comp");
    let source = kernel.to_str().expect("utf-8 path");
    let app = shaderdbg_test_support::app("oob_compute");
    let plain = Command::new(&app).arg("1").output().expect("the app alone");
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();

    // As a person reads it.
    let out = run_oob(&["--sanitize", "oob,uninit", "--source", source]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_has(
        &text,
        &[
            "out-of-bounds index 32 into src[] (32 elements) at oob.comp:12 in compute (7,0,0)",
            "out-of-bounds index 32 into dst[] (32 elements) at oob.comp:13 in compute (7,0,0)",
            &format!("stopped at {source}:12 in compute (7,0,0)"),
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        plain.trim(),
        "the program's output is its output without the debugger"
    );

    // As a script reads it.
    let events = events_of(&run_oob(&[
        "--sanitize",
        "oob",
        "--source",
        source,
        "--trace",
        "--json",
    ]));
    let reports = of_kind(&events, "sanitizer");
    assert_eq!(reports.len(), 2, "{events:#?}");
    for (r, (line, array)) in reports.iter().zip([(12, "src"), (13, "dst")]) {
        assert_eq!(r["kind"], "out_of_bounds");
        assert_eq!(r["file"], source);
        assert_eq!(r["line"], line);
        assert_eq!(r["invocation"], "compute (7,0,0)");
        assert_eq!(r["invocation_id"], serde_json::json!([7, 0, 0]));
        assert_eq!(r["index"], 32);
        assert_eq!(r["bound"], 32);
        assert_eq!(r["array"], array);
        assert_eq!(r["address"], format!("{array}[32]"));
        assert_eq!(
            r["invocations"],
            serde_json::json!([{"invocation": "compute (7,0,0)", "id": [7, 0, 0], "line": line}])
        );
    }
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "one dispatch, one stop");
    let s = stops[0];
    assert_eq!(s["reason"], "sanitizer");
    assert_eq!(s["reports_lost"], false);
    assert_eq!(s["stage"], "compute");
    assert_eq!(s["line"], 12);
    assert_eq!(s["invocation_id"], serde_json::json!([7, 0, 0]));
    // The invocation's trace, as for any stop: its chunk starts at 28.
    assert_eq!(s["locals"]["base"]["value"], 28);
    let lines: Vec<u64> = s["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|st| st["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines.iter().filter(|l| **l == 12).count(), 5, "{lines:?}");
    let output: Vec<&str> = of_kind(&events, "output")
        .iter()
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(output.join("\n"), plain.trim());
    assert_eq!(of_kind(&events, "exited")[0]["code"], 0);

    // Off by default.
    let events = events_of(&run_oob(&["--json"]));
    assert!(of_kind(&events, "sanitizer").is_empty());
    assert!(of_kind(&events, "stopped").is_empty());
}

/// `--sanitize race`: the reduction of `race_compute` misses a barrier;
/// the printed line names the shared element, both invocations and both
/// lines. `all` includes the check; the fixed kernel reports nothing.
#[test]
fn sanitize_race_prints_both_invocations_and_lines() {
    let kernel = kernel_file("race.comp");
    let source = kernel.to_str().expect("utf-8 path");
    for checks in ["race", "all"] {
        let text = compute_text("race_compute", &["--sanitize", checks, "--source", source]);
        let line = text
            .lines()
            .find(|l| l.starts_with("data race on shared float tile["))
            .unwrap_or_else(|| panic!("no race reported:\n{text}"));
        // Invocation i read tile[i + s], which i + s wrote a step before.
        assert!(
            line.contains(",0,0) wrote at line 19, invocation ("),
            "{line}"
        );
        assert!(
            line.ends_with(",0,0) read at line 18, no barrier between"),
            "{line}"
        );
        assert!(
            text.contains(&format!("stopped at {source}:18 in compute (")),
            "{text}"
        );
    }

    let r = &race_report("race_compute", "tile", (18, 19), ("read", "write"));
    // The element is the writer's local index (either of the two work
    // groups of 16 may report first: llvmpipe runs them on threads).
    let (id, other) = (&r["invocation_id"][0], &r["other_invocation_id"][0]);
    assert_eq!(r["element"].as_u64(), other.as_u64().map(|o| o % 16), "{r}");
    assert!(id.as_u64() < other.as_u64(), "{r}");
    // The value read (taken right after the read) is the one written.
    assert!(r["value_read"].is_f64(), "{r}");
    assert_eq!(r["value_read"], r["value_written"], "{r}");
    // What was accessed, and both invocations at their accesses.
    assert_eq!(r["address"], format!("tile[{}]", r["element"]), "{r}");
    assert_eq!(
        r["invocations"],
        serde_json::json!([
            {"invocation": r["invocation"], "id": r["invocation_id"], "line": 18, "access": "read"},
            {"invocation": r["other_invocation"], "id": r["other_invocation_id"], "line": 19, "access": "write"},
        ]),
        "{r}"
    );

    // The fixed kernel, under every check.
    let events = fixed_events("race_compute");
    assert!(of_kind(&events, "stopped").is_empty());
}

/// `--sanitize race` on a storage buffer: both work groups of
/// `storage_race_compute` write the same output elements; the printed
/// line names the block member and element, both invocations with their
/// work groups, and the line; `--json` carries the values written; the
/// fixed kernel (each invocation its own element) reports nothing.
#[test]
fn sanitize_race_on_a_storage_buffer_between_work_groups() {
    let kernel = kernel_file("storage_race.comp");
    let source = kernel.to_str().expect("utf-8 path");
    let text = compute_text(
        "storage_race_compute",
        &["--sanitize", "race", "--source", source],
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("data race on storage buffer Dst.dst["))
        .unwrap_or_else(|| panic!("no race reported:\n{text}"));
    let groups = [
        "of workgroup (0,0,0) wrote at line 16",
        "of workgroup (1,0,0) wrote at line 16",
    ];
    for g in groups {
        assert!(line.contains(g), "{line}");
    }
    assert!(line.ends_with(", nothing orders them"), "{line}");
    assert!(
        text.contains(&format!("stopped at {source}:16 in compute (")),
        "{text}"
    );

    let r = &race_report(
        "storage_race_compute",
        "Dst.dst",
        (16, 16),
        ("write", "write"),
    );
    assert_eq!(r["memory"], "storage");
    let id = r["invocation_id"][0].as_u64().expect("id");
    let other = r["other_invocation_id"][0].as_u64().expect("other id");
    assert_eq!(r["element"].as_u64(), Some(id % 8), "{r}");
    assert_eq!(r["address"], format!("Dst.dst[{}]", id % 8), "{r}");
    let involved: Vec<_> = r["invocations"]
        .as_array()
        .expect("invocations")
        .iter()
        .map(|i| {
            (
                i["id"][0].as_u64(),
                i["line"].as_u64(),
                i["access"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        involved,
        [
            (Some(id), Some(16), Some("write")),
            (Some(other), Some(16), Some("write"))
        ],
        "{r}"
    );
    assert_eq!((id % 8, id / 8 != other / 8), (other % 8, true), "{r}");
    // Each wrote src[global id] * 2 (frame 0), src[k] = k + 1.
    assert_eq!(
        r["value_written"].as_f64(),
        Some(2.0 * (id + 1) as f64),
        "{r}"
    );
    // The other's value is known unless the two wrote the shadow at once.
    let theirs = r["other_value_written"].as_f64();
    assert!(
        [None, Some(2.0 * (other + 1) as f64)].contains(&theirs),
        "{r}"
    );

    let events = fixed_events("storage_race_compute");
    assert!(of_kind(&events, "stopped").is_empty());
}

/// `--sanitize` on a draw: the fragments of `fragment_ssbo` race on two
/// words of a storage buffer and the last one marks one past its end. The
/// GL agent runs the draw's fragment shader sanitized as a debug draw
/// before the application's (`backend-gl` `stops::try_sanitize`); the
/// engine finds both in this shader (`glsl/tests/gpu_sanitize.rs`,
/// `the_fragment_ssbo_app_shader_is_found_at_its_lines`).
#[test]
fn sanitize_a_fragment_shader_writing_a_storage_buffer() {
    let events = events_of(&run_compute(
        "fragment_ssbo",
        &["--sanitize", "race", "--json"],
    ));
    let reports = of_kind(&events, "sanitizer");
    let races: Vec<_> = reports
        .iter()
        .map(|r| (r["kind"].clone(), r["memory"].clone(), r["line"].clone()))
        .collect();
    assert!(
        races.contains(&("data_race".into(), "storage".into(), 18.into())),
        "{events:#?}"
    );
    assert!(
        reports.iter().any(|r| r["variable"] == "Hits.count"),
        "{events:#?}"
    );

    let events = events_of(&run_compute(
        "fragment_ssbo",
        &["--sanitize", "oob", "--json"],
    ));
    let reports = of_kind(&events, "sanitizer");
    assert_eq!(reports.len(), 1, "{events:#?}");
    let r = reports[0];
    assert_eq!(
        (r["kind"].clone(), r["line"].clone()),
        ("out_of_bounds".into(), 20.into())
    );
    assert_eq!(
        (r["index"].clone(), r["bound"].clone()),
        (256.into(), 256.into())
    );
    assert!(
        r["invocation"]
            .as_str()
            .is_some_and(|i| i.starts_with("fragment (15,15)")),
        "{r}"
    );

    fixed_events("fragment_ssbo");
}
