//! Record once, debug any time, on a program nobody here wrote: glmark2
//! captured with `shaderdbg capture` (apitrace, GLX under Xvfb) and replayed
//! under the debugger with `shaderdbg run -- FILE.trace`.
//!
//! glmark2 animates by wall-clock time, so a live run's frame N is not the
//! captured frame N: the values of a replay are checked against the shader's
//! own formulas evaluated on the CPU from the replay's recorded inputs, and
//! against a second replay (a trace replays the same way every time). The
//! test app's capture (`run.rs`) compares a replay with the live run.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{json_events, of_kind, one_stop, single_pass, GLMARK2_PHONG};

const SHADER: &str = "/usr/share/glmark2/shaders/light-phong.frag";

/// `shaderdbg capture -o TRACE -- PROGRAM` under Xvfb.
fn capture<S: AsRef<std::ffi::OsStr>>(trace: &Path, program: &[S]) {
    shaderdbg_test_support::stdout_lines(
        shaderdbg_test_support::xvfb_run(640, 480)
            .arg(env!("CARGO_BIN_EXE_shaderdbg"))
            .args(["capture", "-o"])
            .arg(trace)
            .arg("--")
            .args(program),
    );
}

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
    capture(&trace, GLMARK2_PHONG);
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

/// glmark2's scenes (the default benchmark list's, each shader variant
/// once) for one frame each (a duration shorter than any frame): every
/// shader glmark2 ships but the ones only other options select.
const GLMARK2_SCENES: &[&str] = &[
    "build:use-vbo=true",
    "texture:texture-filter=linear",
    "shading:shading=gouraud",
    "shading:shading=blinn-phong-inf",
    "shading:shading=phong",
    "shading:shading=cel",
    "bump:bump-render=high-poly",
    "bump:bump-render=normals",
    "bump:bump-render=height",
    "effect2d:kernel=0,1,0;1,-4,1;0,1,0;",
    "pulsar:light=false:quads=5:texture=false",
    "desktop:blur-radius=5:effect=blur:passes=1:separable=true:windows=4",
    "buffer:columns=200:interleave=false:update-dispersion=0.9:update-fraction=0.5:update-method=map",
    "ideas:speed=duration",
    "jellyfish",
    "terrain",
    "shadow",
    "refract",
    "conditionals:fragment-steps=0:vertex-steps=0",
    "function:fragment-complexity=low:fragment-steps=5",
    "loop:fragment-loop=false:fragment-steps=5:vertex-steps=5",
];

/// The snapshots glretrace wrote into `dir` (one PNG per frame), by name.
fn snapshots(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut shots: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("snapshot dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            (
                name.unwrap_or_default(),
                std::fs::read(&p).expect("snapshot"),
            )
        })
        .collect();
    shots.sort();
    shots
}

/// A fresh directory `dir/name`.
fn fresh_dir(dir: &Path, name: &str) -> PathBuf {
    let d = dir.join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    d
}

/// glmark2's shaders under every sanitizer filter: a capture of each scene
/// (glmark2 animates by wall clock; a trace replays the same frames every
/// time) replayed plain by glretrace, then under `shaderdbg run --sanitize
/// F` for each F, every draw's fragment and vertex shader sanitized (the
/// agent's log counts them): no report, no stop, no error, and every
/// frame's snapshot byte for byte the plain replay's.
#[test]
fn glmark2_scenes_replay_sanitized_under_every_filter_with_no_reports_and_identical_pixels() {
    shaderdbg_test_support::require_installed(&[
        "/usr/bin/glmark2",
        "/usr/bin/apitrace",
        "/usr/bin/glretrace",
    ]);
    single_pass(); // builds the agent
    let dir =
        std::env::temp_dir().join(format!("shaderdbg-glmark2-sanitize-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let trace = dir.join("glmark2.trace");
    let mut glmark2 = vec![
        "/usr/bin/glmark2".to_string(),
        "--size".into(),
        "64x48".into(),
    ];
    for scene in GLMARK2_SCENES {
        glmark2.extend(["-b".to_string(), format!("{scene}:duration=0.001")]);
    }
    capture(&trace, &glmark2);
    let dump = Command::new("apitrace")
        .args(["dump", "--color=never"])
        .arg(&trace)
        .output()
        .expect("apitrace dump");
    let draws = String::from_utf8_lossy(&dump.stdout)
        .lines()
        .filter(|l| {
            l.split_once(' ')
                .is_some_and(|(_, call)| call.starts_with("glDraw"))
        })
        .count();
    assert!(draws >= GLMARK2_SCENES.len(), "{draws} draws in the trace");

    let plain_dir = fresh_dir(&dir, "plain");
    shaderdbg_test_support::stdout_lines(
        shaderdbg_test_support::xvfb_run(640, 480)
            .arg("/usr/bin/glretrace")
            .arg("-s")
            .arg(format!("{}/", plain_dir.display()))
            .arg(&trace),
    );
    let plain = snapshots(&plain_dir);
    assert!(
        plain.len() >= GLMARK2_SCENES.len(),
        "{} frames",
        plain.len()
    );

    for filter in ["all", "oob", "uninit", "race"] {
        let shots = fresh_dir(&dir, filter);
        let log = dir.join(format!("{filter}.log"));
        let out = shaderdbg_test_support::xvfb_run(640, 480)
            .arg(env!("CARGO_BIN_EXE_shaderdbg"))
            .args([
                "run",
                "--sanitize",
                filter,
                "--json",
                "--timeout",
                "300",
                "--",
            ])
            .arg(&trace)
            .arg("-s")
            .arg(format!("{}/", shots.display()))
            .env("SHADERDBG_LOG", &log)
            .output()
            .expect("xvfb-run shaderdbg run");
        let text = String::from_utf8_lossy(&out.stdout);
        let events = json_events(&text);
        let wrong: Vec<&Value> = events
            .iter()
            .filter(|e| {
                ["sanitizer", "stopped", "error"].contains(&e["event"].as_str().unwrap_or(""))
            })
            .collect();
        assert!(wrong.is_empty(), "--sanitize {filter}: {wrong:#?}");
        let exited = of_kind(&events, "exited");
        assert!(
            exited.len() == 1 && exited[0]["code"] == 0,
            "--sanitize {filter}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Every draw ran sanitized (its fragment and its vertex shader).
        let sanitized = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches("sanitized: 0 reports")
            .count();
        assert_eq!(
            sanitized,
            2 * draws,
            "--sanitize {filter}: see {}",
            log.display()
        );
        let got = snapshots(&shots);
        let names = |s: &[(String, Vec<u8>)]| s.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&got), names(&plain), "--sanitize {filter}");
        for ((name, a), (_, b)) in got.iter().zip(&plain) {
            assert!(
                a == b,
                "--sanitize {filter}: frame {name} differs from the plain replay's"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
