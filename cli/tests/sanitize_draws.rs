//! `shaderdbg run --sanitize` at draws, end to end on llvmpipe: the
//! `sanitize_draw` test app draws with a fragment shader from a file (a
//! storage buffer at binding 1, an `r32ui` 16x16 image at unit 0), and
//! the GL agent runs it sanitized before the application's draw.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{events_of, json_events, of_kind, run_test_app};

/// Writes `frag` to a file of this test's own.
fn shader(name: &str, frag: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("shaderdbg-{name}-{}.frag", std::process::id()));
    std::fs::write(&path, frag).expect("write the shader");
    path
}

/// `shaderdbg run ARGS -- sanitize_draw FRAG`: text output (or `--json`
/// events), after checking the run succeeded.
fn run(args: &[&str], frag: &Path) -> String {
    let frag = frag.to_str().expect("utf-8 path");
    let out = run_test_app(args, "sanitize_draw", &[frag]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn reports(args: &[&str], frag: &Path) -> Vec<Value> {
    let mut args = args.to_vec();
    args.push("--json");
    let events = json_events(&run(&args, frag));
    of_kind(&events, "sanitizer").into_iter().cloned().collect()
}

const UNINIT: &str = "#version 430
out vec4 color;
void main() {
    vec4 c;
    c.x = 1.0;
    if (gl_FragCoord.x < 8.0)
        c.yzw = vec3(0.5);
    color = c;
}
";

/// The `uninit` filter alone sanitizes draws (it used to apply to
/// compute dispatches only, shared memory being theirs): a fragment on
/// the right half reads `c.y` that nothing wrote.
#[test]
fn a_fragment_reading_a_local_it_never_wrote_stops_at_the_line() {
    let frag = shader("uninit", UNINIT);
    let source = frag.to_str().expect("utf-8 path");
    let text = run(&["--sanitize", "uninit", "--source", source], &frag);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("read of local vec4 c.y before it was written at ")
            && first.contains(".frag:8 in fragment ("),
        "{text}"
    );
    let r = reports(&["--sanitize", "uninit"], &frag);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        (&r[0]["kind"], &r[0]["line"], &r[0]["variable"]),
        (&"uninitialized_read".into(), &8.into(), &"c".into())
    );
    let fixed = shader(
        "uninit-fixed",
        &UNINIT.replace("vec4 c;", "vec4 c = vec4(0.0);"),
    );
    assert_eq!(reports(&["--sanitize", "all"], &fixed), Vec::<Value>::new());
}

const IMAGE: &str = "#version 430
layout(r32ui, binding = 0) uniform uimage2D img;
out vec4 color;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    imageStore(img, p + ivec2(1, 0), uvec4(1u));
    color = vec4(1.0);
}
";

/// An `imageStore` one texel right of the image's last column.
#[test]
fn an_image_store_outside_the_image_stops_at_the_line() {
    let frag = shader("image", IMAGE);
    let r = reports(&["--sanitize", "oob"], &frag);
    assert_eq!(r.len(), 1, "{r:?}");
    let r = &r[0];
    assert_eq!(
        (&r["kind"], &r["line"], &r["access"], &r["image"]),
        (
            &"out_of_bounds".into(),
            &6.into(),
            &"imageStore".into(),
            &"img".into()
        )
    );
    assert_eq!(r["coordinate"][0], 16, "{r}");
    let x = r["coordinate"][0].as_i64().unwrap_or_default();
    let y = r["coordinate"][1].as_i64().unwrap_or_default();
    assert_eq!(r["address"], format!("img({x},{y})"), "{r}");
    assert_eq!(r["size"], serde_json::json!([16, 16]), "{r}");
    let message = r["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("out-of-bounds imageStore into img at (16,")
            && message.contains("(image 16x16)"),
        "{message}"
    );
    let fixed = shader(
        "image-fixed",
        &IMAGE.replace("    imageStore", "    if (p.x < 15)\n        imageStore"),
    );
    assert_eq!(reports(&["--sanitize", "all"], &fixed), Vec::<Value>::new());
}

/// A race between fragments names both by their pixel: the storage check
/// does not know the other's primitive, and the text named it for one
/// side only (`fragment (15,15) prim 0 wrote ..., fragment (14,14)
/// read ...`).
#[test]
fn a_fragment_race_names_both_fragments_alike() {
    let out = run_test_app(&["--sanitize", "race", "--json"], "fragment_ssbo", &["1"]);
    let events = events_of(&out);
    let races = of_kind(&events, "sanitizer");
    assert!(!races.is_empty(), "{events:#?}");
    for r in races {
        let m = r["message"].as_str().unwrap_or_default();
        assert!(
            m.starts_with("data race on storage buffer ") && !m.contains(" prim "),
            "{m}"
        );
    }
}

/// Three out-of-bounds statements (`tests/apps/shaders/lost_reports.frag`):
/// every fragment keeps two reports (in registers) and loses the third;
/// `run` says so after the reports, and `--json` in the stop's
/// `reports_lost`. Each report names the element (`address`) and its
/// invocations.
const THREE_OUT_OF_BOUNDS: &str = include_str!("../../tests/apps/shaders/lost_reports.frag");

#[test]
fn reports_lost_to_the_cap_are_told() {
    let frag = shader("three-oob", THREE_OUT_OF_BOUNDS);
    let text = run(&["--sanitize", "oob"], &frag);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("sanitizer: more reports than the agent keeps"))
        .unwrap_or_else(|| panic!("no notice of lost reports:\n{text}"));
    assert!(
        at >= 2 && lines[at - 1].starts_with("out-of-bounds index "),
        "{text}"
    );
    let events = json_events(&run(&["--sanitize", "oob", "--json"], &frag));
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 1, "{events:#?}");
    assert_eq!(stops[0]["reports_lost"], true);
    let reports = of_kind(&events, "sanitizer");
    assert_eq!(reports.len(), 2, "{reports:#?}");
    for r in reports {
        let index = r["index"].as_i64().unwrap_or_default();
        assert_eq!(r["address"], format!("a[{index}]"), "{r}");
        let involved = r["invocations"].as_array().expect("invocations");
        assert_eq!(involved.len(), 1, "{r}");
        assert_eq!(
            (&involved[0]["invocation"], &involved[0]["line"]),
            (&r["invocation"], &r["line"])
        );
    }
    let fixed = shader(
        "three-oob-fixed",
        &THREE_OUT_OF_BOUNDS
            .replace("+ 2;", "* 0;")
            .replace("a[i + 2]", "a[i]"),
    );
    let events = json_events(&run(&["--sanitize", "all", "--json"], &fixed));
    assert!(of_kind(&events, "sanitizer").is_empty(), "{events:#?}");
    assert!(of_kind(&events, "stopped").is_empty(), "{events:#?}");
}
