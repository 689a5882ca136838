//! The one-pass hit test (`stops.rs`, `Stop::one_pass`): where it is safe,
//! a draw with breakpoints runs once, with the instrumented program instead
//! of the application's, and a stop comes after it. The agent says which it
//! did in its log (`SHADERDBG_LOG`): "hit test in one pass" or "hit test in
//! two passes: <why>". Frames are compared with a run without the agent,
//! pixel for pixel (the apps print checksums of every pixel of every
//! frame; glmark2's frames are glretrace's snapshots of one recording),
//! and every test app and glmark2 scene with a run forced into two passes
//! (`SHADERDBG_TWO_PASS_HIT_TESTS`); a one-pass stop must give the hits,
//! recordings, watch images and "before the draw" screenshot a two-pass
//! stop gives (the `gl_error` exception filter forces two passes too, and
//! `features plain` raises no GL error).

mod common;

use std::collections::HashMap;
use std::process::Command;

use common::debugger::{
    bp, drive, final_values, floats, run_plain, AgentLog, Session, Shader, Stop, NO_FILTERS,
};
use common::{artifacts, profile_dir};
use shaderdbg_glsl::Value;
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

const ONE_PASS: &str = "hit test in one pass";
/// Set, the agent runs every hit test in two passes.
const TWO_PASS: &str = "SHADERDBG_TWO_PASS_HIT_TESTS";
const TWO_PASSES: &str = "hit test in two passes";

/// The `gl_error` exception filter alone (forces two passes).
const GL_ERROR: proto::ExceptionFilters = proto::ExceptionFilters {
    gl_error: true,
    ..NO_FILTERS
};

/// A screenshot: (width, height, RGBA).
type Shot = (u32, u32, Vec<u8>);

/// What a debugged run gave.
#[derive(Default)]
struct Run {
    /// (frame, hits) per stop.
    stops: Vec<(u64, Vec<proto::Hit>)>,
    /// `Screenshot { at: Now }` per stop: (width, height, RGBA), or the
    /// agent's error.
    shots: Vec<Result<Shot, String>>,
    /// The final values of the recording of the selected fragment, per stop.
    values: Vec<HashMap<String, Value>>,
    /// The watch image of the watched expression, per stop.
    watches: Vec<Vec<u32>>,
    errors: Vec<String>,
    stdout: String,
    /// The agent's log.
    log: String,
}

impl Run {
    fn count(&self, what: &str) -> usize {
        self.log.lines().filter(|l| l.contains(what)).count()
    }

    /// How many hit tests ran in two passes for a reason that says `why`.
    fn two_passes_because(&self, why: &str) -> usize {
        let lines = self.log.lines();
        lines
            .filter(|l| l.contains(TWO_PASSES) && l.contains(why))
            .count()
    }

    /// A run with no errors whose output is `plain` (the app's alone), with
    /// `stops` stops (as `why` says).
    #[track_caller]
    fn assert_unchanged_with_stops(&self, plain: &str, stops: usize, why: &str) {
        assert!(self.errors.is_empty(), "{:?}", self.errors);
        assert_eq!(self.stdout, plain, "frames differ under the agent");
        assert_eq!(self.stops.len(), stops, "{why}");
    }

    /// A 2-frame run of a program that can write storage: no errors, the
    /// output is `plain` (else `differ`), one stop per frame, every hit
    /// test in two passes because of the storage, and the recorded
    /// fragment's `c` is `c`.
    fn assert_two_passes_for_storage(&self, plain: &str, differ: &str, c: &[f32]) {
        assert!(self.errors.is_empty(), "{:?}", self.errors);
        assert_eq!(self.stdout, plain, "{differ}");
        assert_eq!(self.stops.len(), 2, "one stop per frame");
        assert_eq!(self.count(ONE_PASS), 0, "{}", self.log);
        let storage = self.two_passes_because("can write storage");
        assert_eq!(storage, 2, "{}", self.log);
        for values in &self.values {
            assert_eq!(values.get("c"), Some(&floats(c)), "{values:?}");
        }
    }
}

/// What a debugged run starts with: messages to the agent first, and the
/// app's environment.
#[derive(Default)]
struct Setup<'a> {
    messages: &'a [ToAgent],
    env: &'a [(&'a str, &'a std::ffi::OsStr)],
}

/// Runs `app args` under the agent after sending it `setup`, with a
/// breakpoint on the line containing `needle` (with `condition`) in every
/// shader that has it; at every stop takes a screenshot, records
/// `fragment` and watches `watch` at the breakpoint's line.
fn run(
    app: &str,
    args: &[&str],
    tag: &str,
    setup: Setup,
    (needle, condition): (&str, &str),
    fragment: (u32, u32),
    watch: &str,
) -> Run {
    let log = AgentLog::new(&format!("one-pass-{tag}"));
    let mut s = log.start_with_env(app, args, tag, setup.env);
    for msg in setup.messages {
        s.send(msg);
    }
    let mut out = Run::default();
    let mut request = 1000;
    let (_, stdout) = drive(s, |s, msg, shaders| match msg {
        FromAgent::ShaderCompiled { shader, .. } => {
            let sh = Shader::find(shaders, *shader);
            if sh.sources.concat().contains(needle) {
                s.send(&ToAgent::SetBreakpoints {
                    shader: *shader,
                    breakpoints: vec![bp(sh.line_of(needle), Some(condition))],
                });
            }
        }
        FromAgent::Stopped { .. } => {
            let stop = Stop::of(msg, shaders).expect("a stop");
            assert!(
                stop.shader.sources.concat().contains(needle),
                "a stop in our shader"
            );
            let line = stop.shader.line_of(needle);
            out.stops.push((stop.frame, stop.hits));
            request += 1;
            s.send(&ToAgent::Screenshot {
                request,
                at: proto::ScreenshotAt::Now,
            });
            match s.recv() {
                Some(FromAgent::Screenshot {
                    request: r,
                    width,
                    height,
                    rgba,
                    ..
                }) if r == request => out.shots.push(Ok((width, height, rgba.0))),
                Some(FromAgent::Error {
                    request: Some(r),
                    message,
                }) if r == request => out.shots.push(Err(message)),
                other => panic!("expected screenshot {request}, got {other:?}"),
            }
            let (trace, table) = s.record_decoded(
                &stop.shader,
                proto::Invocation::fragment(fragment.0, fragment.1),
            );
            assert_eq!(trace.invocations.len(), 1);
            out.values.push(final_values(&trace.invocations[0], &table));
            let (_, _, _, data) = s.watch(line, watch).expect("a watch image");
            out.watches.push(data);
        }
        FromAgent::Error { message, .. } => out.errors.push(message.clone()),
        _ => {}
    });
    out.stdout = stdout;
    out.log = log.take();
    out
}

const FEATURES: [&str; 4] = ["plain", "3", "64", "48"];

/// The fragment at (10, 10) only.
const AT_10_10: &str = "int(gl_FragCoord.x) == 10 && int(gl_FragCoord.y) == 10";

#[test]
fn a_draw_with_a_never_hit_breakpoint_runs_once_and_its_frames_are_unchanged() {
    let r = run(
        "features",
        &FEATURES,
        "never",
        Setup::default(),
        ("color.b = 0.5 / d;", "uv.x < 0.0"),
        (0, 0),
        "uv",
    );
    let plain = run_plain("features", &FEATURES);
    r.assert_unchanged_with_stops(&plain, 0, "never-true condition: no stop");
    // One draw per frame, each its own hit test.
    assert_eq!(r.count(ONE_PASS), 3, "{}", r.log);
    assert_eq!(r.count(TWO_PASSES), 0, "{}", r.log);
}

#[test]
fn a_one_pass_stop_gives_what_a_two_pass_stop_gives() {
    let debugged = |tag, setup: Setup| {
        run(
            "features",
            &FEATURES,
            tag,
            setup,
            ("color.b = 0.5 / d;", AT_10_10),
            (10, 10),
            "uv",
        )
    };
    let one = debugged("stop-one", Setup::default());
    let two = debugged(
        "stop-two",
        Setup {
            messages: &[ToAgent::SetExceptionFilters(GL_ERROR)],
            ..Setup::default()
        },
    );
    let plain = run_plain("features", &FEATURES);
    for r in [&one, &two] {
        r.assert_unchanged_with_stops(&plain, 3, "one stop per frame");
    }
    assert_eq!(one.count(ONE_PASS), 3, "{}", one.log);
    assert_eq!(one.count(TWO_PASSES), 0, "{}", one.log);
    assert_eq!(two.count(ONE_PASS), 0, "{}", two.log);
    assert_eq!(two.two_passes_because("gl_error filter"), 3, "{}", two.log);
    assert_eq!(one.stops, two.stops, "the same hits");
    assert_eq!(one.values, two.values, "the same recordings");
    assert_eq!(one.watches, two.watches, "the same watch images");
    assert_eq!(one.shots, two.shots, "the same screenshots");
    // Before the draw: the clear colour everywhere, though the draw has run.
    assert_eq!(one.shots.iter().flatten().count(), 3, "{:?}", one.errors);
    for (w, h, rgba) in one.shots.iter().flatten() {
        assert_eq!((*w, *h), (64, 48));
        assert!(
            rgba.chunks(4).all(|p| p == [26, 51, 76, 255]),
            "{:?}",
            &rgba[..8]
        );
    }
    let uv = floats(&[10.5 / 64.0, 10.5 / 48.0]);
    assert_eq!(one.values[0].get("uv"), Some(&uv), "{:?}", one.values[0]);
}

/// The framebuffer before a draw that follows another in its frame (not
/// one colour: `glerror` draws the gradient twice per frame), at a
/// one-pass stop, is what a two-pass stop reads live: the default
/// framebuffer's copy is stored upside down (see
/// `screenshot::Storage::BgraTexture`) and read back the right way up.
#[test]
fn a_one_pass_screenshot_of_a_drawn_framebuffer_is_the_two_pass_one() {
    let args = ["glerror", "2", "64", "48"];
    let debugged = |tag, env: &[(&str, &std::ffi::OsStr)]| {
        run(
            "features",
            &args,
            tag,
            Setup {
                env,
                ..Setup::default()
            },
            ("color.b = 0.5 / d;", AT_10_10),
            (10, 10),
            "uv",
        )
    };
    let one = debugged("drawn-one", &[]);
    let two = debugged("drawn-two", &[(TWO_PASS, std::ffi::OsStr::new("1"))]);
    let plain = run_plain("features", &args);
    for r in [&one, &two] {
        r.assert_unchanged_with_stops(&plain, 4, "two draws a frame, two frames");
    }
    assert_eq!(one.count(ONE_PASS), 4, "{}", one.log);
    assert_eq!(two.count(ONE_PASS), 0, "{}", two.log);
    assert_eq!(one.stops, two.stops, "the same hits");
    assert_eq!(one.shots.iter().flatten().count(), 4, "{:?}", one.shots);
    // The second draw's: the first's gradient (red grows with x, green with y).
    let (w, _, rgba) = one.shots[1].as_ref().expect("a screenshot");
    let px = |x: usize, y: usize| &rgba[(y * *w as usize + x) * 4..][..4];
    assert!(
        px(60, 2)[0] > px(2, 2)[0] && px(2, 44)[1] > px(2, 2)[1],
        "{:?}",
        px(2, 2)
    );
    assert_eq!(one.shots, two.shots, "the same screenshots");
}

/// A debugger that says it never asks for the framebuffer at a stop
/// (`shaderdbg run`) spares the copy a one-pass draw makes for it: the
/// stops are the same, and a screenshot asked anyway says why there is
/// none.
#[test]
fn without_screenshots_at_stops_one_pass_keeps_no_copy() {
    let r = run(
        "features",
        &FEATURES,
        "no-shots",
        Setup {
            messages: &[ToAgent::SetScreenshotsAtStops { may_ask: false }],
            ..Setup::default()
        },
        ("color.b = 0.5 / d;", AT_10_10),
        (10, 10),
        "uv",
    );
    let plain = run_plain("features", &FEATURES);
    r.assert_unchanged_with_stops(&plain, 3, "one stop per frame");
    assert_eq!(r.count(ONE_PASS), 3, "{}", r.log);
    assert_eq!(r.shots.len(), 3);
    for shot in &r.shots {
        let e = shot.as_ref().expect_err("no copy was kept");
        assert!(e.contains("was not kept"), "{e}");
    }
    let uv = floats(&[10.5 / 64.0, 10.5 / 48.0]);
    assert_eq!(r.values[0].get("uv"), Some(&uv), "{:?}", r.values[0]);
}

#[test]
fn programs_that_write_images_run_two_passes_and_stop() {
    let args = ["image", "2", "64", "48"];
    let r = run(
        "features",
        &args,
        "image",
        Setup::default(),
        ("imageAtomicAdd(counts", AT_10_10),
        (10, 10),
        "p",
    );
    r.assert_two_passes_for_storage(
        &run_plain("features", &args),
        "frames or images differ under the agent",
        &[10.5 / 64.0, 10.5 / 48.0, 0.75, 1.0],
    );
}

/// A full fragment shader for the built-in host that writes a storage
/// buffer (bound to nothing by the host: llvmpipe drops the writes; what
/// matters is that the program has a storage block).
const SINK: &str = "#version 430 core
layout(std430, binding = 3) buffer Sink {
    uint touched[];
};
uniform vec3 iResolution;
out vec4 fragColor;
void main() {
    vec2 uv = gl_FragCoord.xy / iResolution.xy;
    vec3 c = vec3(uv, 0.75);
    touched[0] = 1u;
    fragColor = vec4(c, 1.0);
}
";

#[test]
fn programs_that_write_a_storage_buffer_run_two_passes_and_stop() {
    let dir = profile_dir().join(format!("one-pass-sink-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let shader = dir.join("sink.frag");
    std::fs::write(&shader, SINK).expect("shader");
    let path = shader.to_string_lossy().into_owned();
    let args = [
        path.as_str(),
        "--size",
        "64x48",
        "--frames",
        "2",
        "--print-pixel",
        "10,10",
        "--print-pixel",
        "40,30",
    ];
    let r = run(
        "shaderdbg-host",
        &args,
        "sink",
        Setup::default(),
        ("touched[0] = 1u;", AT_10_10),
        (10, 10),
        "c",
    );
    let plain = run_plain("shaderdbg-host", &args);
    let _ = std::fs::remove_dir_all(&dir);
    r.assert_two_passes_for_storage(
        &plain,
        "pixels differ under the agent",
        &[10.5 / 64.0, 10.5 / 48.0, 0.75],
    );
}

/// Every graphics test app, as (app, arguments, the stage whose shaders
/// get the breakpoint, whether its hit tests can run in one pass): two
/// small frames each. The others write storage, images or capture
/// transform feedback, and run two passes whatever is asked.
const APPS: &[(&str, &[&str], proto::Stage, bool)] = &[
    ("features", &["plain", "2", "64", "48"], FRAGMENT, true),
    ("features", &["nan", "2", "64", "48"], FRAGMENT, true),
    ("features", &["glerror", "2", "64", "48"], FRAGMENT, true),
    ("features", &["queries", "2", "64", "48"], FRAGMENT, true),
    ("features", &["indirect", "2", "64", "48"], FRAGMENT, true),
    ("features", &["tf", "2", "64", "48"], FRAGMENT, true),
    ("features", &["image", "2", "64", "48"], FRAGMENT, false),
    ("single_pass", &["2", "32"], FRAGMENT, true),
    ("multi_pass", &["2", "32"], FRAGMENT, true),
    ("gles30", &["2", "32"], FRAGMENT, true),
    ("legacy110", &["2", "32"], FRAGMENT, true),
    ("vertex_displace", &["2", "32"], FRAGMENT, true),
    ("vertex_displace", &["2", "32"], VERTEX, true),
    ("check_state", &["2", "64"], FRAGMENT, true),
    ("api_heavy", &["2", "40"], FRAGMENT, true),
    ("compute", &["2", "64"], FRAGMENT, false),
    ("fragment_ssbo", &["2", "--fixed"], FRAGMENT, false),
    ("sanitize_draw", &["FRAGMENT_SSBO", "2"], FRAGMENT, false),
];

const FRAGMENT: proto::Stage = proto::Stage::Fragment;
const VERTEX: proto::Stage = proto::Stage::Vertex;

/// Runs what `start` starts under the agent (logging to the log it gets)
/// with a breakpoint whose condition never holds (on live values) on the
/// last executable line of every `stage` shader.
fn never_hit(tag: &str, stage: proto::Stage, start: impl FnOnce(&AgentLog) -> Session) -> Run {
    let log = AgentLog::new(&format!("one-pass-{tag}"));
    let s = start(&log);
    let condition = match stage {
        proto::Stage::Vertex => "gl_VertexID < 0",
        _ => "gl_FragCoord.x < 0.0",
    };
    let mut out = Run::default();
    let (_, stdout) = drive(s, |s, msg, shaders| match msg {
        FromAgent::ShaderCompiled { shader, .. } => {
            let sh = Shader::find(shaders, *shader);
            if sh.stage == stage {
                let line = *sh
                    .table()
                    .executable_lines()
                    .last()
                    .expect("an executable line");
                s.send(&ToAgent::SetBreakpoints {
                    shader: *shader,
                    breakpoints: vec![bp(line, Some(condition))],
                });
            }
        }
        FromAgent::Stopped { frame, hits, .. } => out.stops.push((*frame, hits.clone())),
        FromAgent::Error { message, .. } => out.errors.push(message.clone()),
        _ => {}
    });
    out.stdout = stdout;
    out.log = log.take();
    out
}

/// Every graphics test app draws the same pictures (and prints the same
/// checksums, queries and buffers) with a never-hit breakpoint in one
/// pass, in two passes (`SHADERDBG_TWO_PASS_HIT_TESTS`) and without the
/// debugger.
#[test]
fn every_app_draws_the_same_in_one_pass_in_two_and_alone() {
    let ssbo = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/apps/shaders/fragment_ssbo.frag"
    );
    let two = std::ffi::OsStr::new("1");
    for (i, &(app, args, stage, one_pass)) in APPS.iter().enumerate() {
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "FRAGMENT_SSBO" { ssbo } else { a })
            .collect();
        let what = format!("{app} {args:?} ({stage:?} breakpoints)");
        let plain = run_plain(app, &args);
        assert!(plain.contains("frame 1 "), "{what}: {plain}");
        let one = never_hit(&format!("all-{i}-one"), stage, |log| {
            log.start(app, &args, &format!("all-{i}-one"))
        });
        let two = never_hit(&format!("all-{i}-two"), stage, |log| {
            log.start_with_env(app, &args, &format!("all-{i}-two"), &[(TWO_PASS, two)])
        });
        for (r, passes) in [(&one, "one pass"), (&two, "two passes")] {
            assert!(r.errors.is_empty(), "{what}, {passes}: {:?}", r.errors);
            assert!(r.stops.is_empty(), "{what}, {passes}: {:?}", r.stops);
            assert_eq!(r.stdout, plain, "{what}: {passes} changed the output");
            assert!(
                r.count(ONE_PASS) + r.count(TWO_PASSES) > 0,
                "{what}, {passes}: no hit test ran\n{}",
                r.log
            );
        }
        assert_eq!(one.count(ONE_PASS) > 0, one_pass, "{what}\n{}", one.log);
        assert_eq!(two.count(ONE_PASS), 0, "{what}\n{}", two.log);
    }
}

/// glmark2's scenes (its default variant of each; Phong shading, bumps
/// from a normal map), two frames each, for the
/// pictures test: glmark2 animates by wall-clock time, so the pictures
/// compared are those of one recording (apitrace), replayed by glretrace.
const GLMARK2_SCENES: &[&str] = &[
    "build",
    "texture",
    "shading:shading=phong",
    "bump:bump-render=normals",
    "effect2d",
    "pulsar",
    "desktop",
    "buffer",
    "ideas",
    "jellyfish",
    "terrain",
    "shadow",
    "refract",
    "conditionals",
    "function",
    "loop",
];

/// `glretrace -s DIR/ TRACE` under Xvfb, the agent preloaded into
/// glretrace alone when `agent` (Xvfb must not load it).
fn glretrace(trace: &std::path::Path, shots: &std::path::Path, agent: bool) -> Command {
    let mut cmd = shaderdbg_test_support::xvfb_run(320, 240);
    cmd.arg("env");
    if agent {
        cmd.arg(format!("LD_PRELOAD={}", artifacts().agent.display()));
    }
    cmd.arg("/usr/bin/glretrace")
        .arg("-s")
        .arg(format!("{}/", shots.display()))
        .arg(trace)
        .env_remove("LD_PRELOAD");
    cmd
}

/// The snapshots glretrace wrote into `dir`: (file name, width, height,
/// pixels), by name (the call number that ends the frame).
fn snapshots(dir: &std::path::Path) -> Vec<(String, u32, u32, Vec<u8>)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".png"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let file = std::fs::File::open(dir.join(&name)).expect("snapshot");
            let mut reader = png::Decoder::new(file).read_info().expect("png header");
            let mut buf = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut buf).expect("png data");
            buf.truncate(info.buffer_size());
            (name, info.width, info.height, buf)
        })
        .collect()
}

/// glmark2's scenes replayed from one recording draw the same frames,
/// pixel for pixel, with a never-hit breakpoint in every fragment shader
/// in one pass, in two passes and without the debugger.
#[test]
fn glmark2_scenes_draw_the_same_in_one_pass_in_two_and_alone() {
    shaderdbg_test_support::require_installed(&[
        "/usr/bin/glmark2",
        "/usr/bin/apitrace",
        "/usr/bin/glretrace",
    ]);
    let dir = common::profile_dir().join(format!("one-pass-glmark2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let trace = dir.join("glmark2.trace");
    let mut capture = shaderdbg_test_support::xvfb_run(320, 240);
    capture
        .args(["/usr/bin/apitrace", "trace", "--api", "gl", "-o"])
        .arg(&trace)
        .args(["/usr/bin/glmark2", "--size", "96x72"])
        .env_remove("LD_PRELOAD");
    for scene in GLMARK2_SCENES {
        capture.args(["-b", &format!("{scene}:nframes=2")]);
    }
    shaderdbg_test_support::stdout_lines(&mut capture);

    let shots = |name: &str| {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).expect("snapshot dir");
        d
    };
    let plain_dir = shots("plain");
    shaderdbg_test_support::stdout_lines(&mut glretrace(&trace, &plain_dir, false));
    let plain = snapshots(&plain_dir);
    assert!(
        plain.len() >= 2 * GLMARK2_SCENES.len(),
        "{} frames replayed",
        plain.len()
    );
    let replay = |tag: &str, env: &[(&str, &str)]| {
        let out = shots(tag);
        let r = never_hit(&format!("glmark2-{tag}"), FRAGMENT, |log| {
            let mut cmd = glretrace(&trace, &out, true);
            cmd.envs(env.iter().copied());
            log.spawn("glretrace", cmd, tag)
        });
        (r, snapshots(&out))
    };
    let (one, one_shots) = replay("one", &[]);
    let (two, two_shots) = replay("two", &[(TWO_PASS, "1")]);
    for (r, got, passes) in [
        (&one, &one_shots, "one pass"),
        (&two, &two_shots, "two passes"),
    ] {
        assert!(r.errors.is_empty(), "{passes}: {:?}", r.errors);
        assert!(r.stops.is_empty(), "{passes}: {:?}", r.stops);
        assert_eq!(got.len(), plain.len(), "{passes}: frames replayed");
        for (a, b) in plain.iter().zip(got.iter()) {
            assert_eq!(a.0, b.0, "{passes}");
            assert_eq!((a.1, a.2), (b.1, b.2), "{passes}: size of {}", a.0);
            let differ = a.3.iter().zip(&b.3).filter(|(x, y)| x != y).count();
            assert_eq!(
                differ, 0,
                "{passes}: {} bytes of snapshot {} differ",
                differ, a.0
            );
        }
    }
    assert!(one.count(ONE_PASS) > 0, "{}", one.log);
    assert_eq!(two.count(ONE_PASS), 0, "{}", two.log);
    assert!(two.count(TWO_PASSES) > 0, "{}", two.log);
    let _ = std::fs::remove_dir_all(&dir);
}
