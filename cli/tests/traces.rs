//! Record once, debug any time, on a program nobody here wrote: glmark2
//! captured with `shaderdbg capture` (apitrace, GLX under Xvfb) and replayed
//! under the debugger with `shaderdbg run -- FILE.trace`.
//!
//! glmark2 animates by wall-clock time, so a live run's frame N is not the
//! captured frame N: the values of a replay are checked against the shader's
//! own formulas evaluated on the CPU from the replay's recorded inputs, and
//! against a second replay (a trace replays the same way every time). The
//! test app's capture (`run.rs`) compares a replay with the live run.

use std::path::Path;

use serde_json::Value;

mod common;
use common::{one_stop, GLMARK2_PHONG};

const SHADER: &str = "/usr/share/glmark2/shaders/light-phong.frag";

/// `shaderdbg run --json ARGS -- TRACE` under Xvfb: the one stop.
fn replay_stop(trace: &Path, args: &[&str]) -> Value {
    let out = shaderdbg_test_support::xvfb_run(640, 480)
        .arg(env!("CARGO_BIN_EXE_shaderdbg"))
        .args(["run", "--json", "--timeout", "120"])
        .args(args)
        .arg("--")
        .arg(trace)
        .output()
        .expect("xvfb-run shaderdbg run");
    one_stop(&out).0
}

fn vector(v: &Value, name: &str) -> Vec<f64> {
    v["value"]
        .as_array()
        .unwrap_or_else(|| panic!("{name} not recorded: {v}"))
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

fn normalize(v: &[f64]) -> Vec<f64> {
    let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| x / len).collect()
}

#[track_caller]
fn assert_close(got: &[f64], want: &[f64], what: &str) {
    let close = got.len() == want.len() && got.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-5);
    assert!(
        close,
        "{what}: recorded {got:?}, the formula gives {want:?}"
    );
}

#[test]
fn a_glmark2_capture_replays_under_the_debugger_with_consistent_values() {
    shaderdbg_test_support::require_installed(&["/usr/bin/glmark2", SHADER, "/usr/bin/apitrace"]);
    let dir = std::env::temp_dir().join(format!("shaderdbg-glmark2-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let trace = dir.join("glmark2.trace");
    shaderdbg_test_support::stdout_lines(
        shaderdbg_test_support::xvfb_run(640, 480)
            .arg(env!("CARGO_BIN_EXE_shaderdbg"))
            .args(["capture", "-o"])
            .arg(&trace)
            .arg("--")
            .args(GLMARK2_PHONG),
    );
    let size = std::fs::metadata(&trace).map_or(0, |m| m.len());
    assert!(size > 0, "no trace written at {}", trace.display());

    // The pixel in the middle of the window, in the trace's frame 5: glmark2's
    // header and `$DO_LIGHTS$` are completed at run time and still bind.
    let bp = format!("{SHADER}:18");
    let args = ["--break", &bp, "--pixel", "80,60", "--frame", "5"];
    let stop = replay_stop(&trace, &args);
    assert_eq!(stop["file"], SHADER);
    assert_eq!(
        (stop["line"].as_u64(), stop["frame"].as_u64()),
        (Some(18), Some(5))
    );
    assert_eq!(stop["pixel"], serde_json::json!([80, 60]));
    let frag_coord = vector(&stop["globals"]["gl_FragCoord"], "gl_FragCoord");
    assert_eq!(&frag_coord[..2], &[80.5, 60.5]);

    // The recorded values are what the shader computes from its inputs.
    let locals = &stop["locals"];
    let normal = vector(&stop["globals"]["vertex_normal"], "vertex_normal");
    let position = vector(&stop["globals"]["vertex_position"], "vertex_position");
    let light = vector(&locals["light_position"], "light_position");
    assert_close(
        &vector(&locals["normalized_normal"], "normalized_normal"),
        &normalize(&normal),
        "normalized_normal = normalize(vertex_normal)",
    );
    let eye: Vec<f64> = position[..3].iter().map(|x| -x).collect();
    assert_close(
        &vector(&locals["eye_direction"], "eye_direction"),
        &normalize(&eye),
        "eye_direction = normalize(-vertex_position.xyz)",
    );
    let to_light: Vec<f64> = (0..3)
        .map(|i| light[i] / light[3] - position[i] / position[3])
        .collect();
    assert_close(
        &vector(&locals["light_direction"], "light_direction"),
        &normalize(&to_light),
        "light_direction",
    );

    // Any time: a second replay stops at the same invocation with the same values.
    let again = replay_stop(&trace, &args);
    assert_eq!(again["invocation"], stop["invocation"]);
    assert_eq!(again["locals"], stop["locals"]);
    assert_eq!(again["globals"], stop["globals"]);
    let _ = std::fs::remove_dir_all(&dir);
}
