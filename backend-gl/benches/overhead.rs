//! What attaching the agent costs, printed as figures (never asserted):
//!
//! - instructions of `api_heavy` (3 frames x 2000 draws, a program switch and
//!   a uniform update per draw) with and without the agent preloaded and no
//!   debugger, counted by `valgrind --tool=callgrind` (deterministic, unlike
//!   wall-clock time on a shared machine);
//! - wall-clock time of `features plain` (default framebuffer, 1280x720)
//!   without the agent, with the agent and no breakpoint, and under a
//!   scripted debugger (the socket protocol) with a breakpoint whose
//!   condition never holds (so every frame pays for a hit test and nothing
//!   stops): the difference per frame is the hit test's cost;
//! - record latency: `Record` request -> `Recorded` reply while stopped at
//!   one pixel of that app (median of 10);
//! - glmark2 (`-b build:duration=3`, off-screen under `xvfb-run`) FPS without
//!   and with the agent and a debugger attached with no breakpoints, if
//!   glmark2 and xvfb-run are installed.
//!
//! - the draw call alone (`features timed`, glFinish around it) without the
//!   agent and with the hit test in it (one pass: the instrumented draw
//!   instead of the application's, then its hit count read back), as
//!   wall-clock time and as instructions under callgrind (only the draw's
//!   function counted), for a debugger that may ask for the framebuffer at
//!   a stop (the agent copies it before the draw) and for one that never
//!   does (`ToAgent::SetScreenshotsAtStops`).
//! - a realistic shader (`benches/march.frag`: a 64-step ray-march loop
//!   calling a distance function, six more calls for the normal) in the
//!   built-in host, 320x180, with a never-true breakpoint inside the loop:
//!   instructions per frame under callgrind (`LP_NUM_THREADS=0`, 8 frames
//!   minus 2, so start-up and JIT compiles cancel) and wall-clock time,
//!   plain and with the hit test. The hit test runs in one pass (the
//!   instrumented program draws the frame instead of the application's,
//!   `stops.rs`), so the frame's ratio is the hit test's cost: the draw
//!   runs once (before one pass it ran twice, the hit test then the
//!   application's, and the frame cost 2.21x for a 1.21x hit-test draw).
//!
//! Run with `cargo bench -p shaderdbg-backend-gl` (or `cargo xtask bench`);
//! `-- WORD` runs only the sections whose name contains WORD (callgrind,
//! frames, draw, record, march, glmark2).

use std::io::BufReader;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};
use shaderdbg_test_support::bench::{self, callgrind, collected, under_callgrind, Breakpoint};

/// `api_heavy` (3 frames of 2000 draws), with the agent preloaded or not.
fn api_heavy(dir: &Path, preload: bool) -> Command {
    let mut cmd = Command::new(dir.join("api_heavy"));
    cmd.args(["3", "2000"])
        .env("LP_NUM_THREADS", "0")
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env_remove("LD_PRELOAD");
    if preload {
        cmd.env("LD_PRELOAD", dir.join("libshaderdbg_agent.so"));
    }
    cmd
}

fn median_secs(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let want = |section: &str| only.as_deref().is_none_or(|o| section.contains(o));
    // The agent, test apps and host, built once in the bench profile.
    let dir = shaderdbg_test_support::built().to_path_buf();
    if want("callgrind") {
        match (
            callgrind(&api_heavy(&dir, false)),
            callgrind(&api_heavy(&dir, true)),
        ) {
            (Some(base), Some(attached)) => println!(
                "attached, no breakpoints (api_heavy, 6000 draws): {base} -> {attached} instructions, {:+.2}%",
                (attached as f64 / base as f64 - 1.0) * 100.0
            ),
            _ => println!("attached, no breakpoints: valgrind not available, no figure"),
        }
    }

    let frames = 10;
    let app = dir.join("features");
    let args = |f: u32| {
        vec![
            "plain".to_string(),
            f.to_string(),
            "1280".into(),
            "720".into(),
        ]
    };
    let run = |preload: bool| {
        let mut cmd = Command::new(&app);
        cmd.args(args(frames)).env_remove("LD_PRELOAD");
        if preload {
            cmd.env("LD_PRELOAD", dir.join("libshaderdbg_agent.so"));
        }
        assert!(cmd.output().expect("features").status.success());
    };
    if want("frames") {
        let plain = median_secs(5, || run(false));
        let attached = median_secs(5, || run(true));
        let hit_tested = median_secs(5, || {
            let mut cmd = Command::new(&app);
            cmd.args(args(frames));
            debug(&dir, cmd, NEVER, |_, _| {});
        });
        println!(
        "features 1280x720, {frames} frames: {:.1} ms plain, {:.1} ms attached, {:.1} ms with a hit test every frame (median of 5)",
        plain * 1e3,
        attached * 1e3,
        hit_tested * 1e3
    );
    }
    if want("draw") {
        draw(&dir);
    }
    if want("record") {
        let mut latencies = Vec::new();
        let mut cmd = Command::new(&app);
        cmd.args(args(1));
        debug(
            &dir,
            cmd,
            "int(gl_FragCoord.x) == 640 && int(gl_FragCoord.y) == 360",
            |w, r| {
                for request in 0..10 {
                    let start = Instant::now();
                    proto::write_message(
                        w,
                        &ToAgent::Record {
                            request,
                            selector: proto::Invocation::fragment(640, 360),
                        },
                    )
                    .expect("send");
                    loop {
                        match proto::read_message::<_, FromAgent>(r).expect("message") {
                            Some(FromAgent::Recorded { .. }) => break,
                            Some(FromAgent::Error { message, .. }) => panic!("record: {message}"),
                            Some(_) => {}
                            None => panic!("the app went away"),
                        }
                    }
                    latencies.push(start.elapsed().as_secs_f64());
                }
            },
        );
        latencies.sort_by(f64::total_cmp);
        if let Some(m) = latencies.get(latencies.len() / 2) {
            println!(
            "record latency (Record -> Recorded, one fragment, 1280x720 draw): {:.1} ms median of {}",
            m * 1e3,
            latencies.len()
        );
        }
    }
    if want("march") {
        march(&dir);
    }
    if want("glmark2") {
        glmark2(&dir);
    }
}

/// What a debugger attached to the timed draw says it may ask.
#[derive(Clone, Copy, PartialEq)]
enum Debugger {
    /// No debugger (nor agent): the plain draw.
    None,
    /// One that may ask for the framebuffer at a stop (the DAP): the
    /// one-pass hit test copies it before the draw.
    Screenshots,
    /// One that never asks (`shaderdbg run`): no copy.
    NoScreenshots,
}

/// The draw call alone (`features timed`: `glFinish` before it, the draw
/// and `glFinish` after it timed), plain and with a never-true breakpoint
/// (one pass: the hit test is the draw, then its hit count is read back),
/// as wall-clock time (median of frames 1..10; frame 0 compiles) and as
/// instructions under callgrind (`LP_NUM_THREADS=0`, so llvmpipe
/// rasterizes in the timed `glFinish` on the app's thread; only the
/// function `shaderdbg_timed_draw` counted; 5 frames minus 2, so the JIT
/// compiles of the first frame cancel).
fn draw(dir: &Path) {
    let app = dir.join("features");
    let run = |cmd: Command, debugger: Debugger| -> (String, String) {
        let setup = match debugger {
            Debugger::None => {
                let mut cmd = cmd;
                let o = cmd
                    .stderr(std::process::Stdio::piped())
                    .output()
                    .expect("features timed");
                assert!(o.status.success());
                return (
                    String::from_utf8_lossy(&o.stdout).into_owned(),
                    String::from_utf8_lossy(&o.stderr).into_owned(),
                );
            }
            Debugger::Screenshots => vec![],
            Debugger::NoScreenshots => vec![ToAgent::SetScreenshotsAtStops { may_ask: false }],
        };
        let mut cmd = cmd;
        cmd.stderr(std::process::Stdio::piped());
        debug_with(dir, cmd, "color.b = ", NEVER, &setup, |_, _| {})
    };
    let wall = |debugger: Debugger| -> f64 {
        let mut cmd = Command::new(&app);
        cmd.args(["timed", "11", "1280", "720"])
            .env_remove("LD_PRELOAD");
        let (out, _) = run(cmd, debugger);
        let mut us: Vec<f64> = out
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                let frame: u32 = w.nth(1)?.parse().ok()?;
                (w.next() == Some("draw_us") && frame > 0).then(|| w.next()?.parse().ok())?
            })
            .collect();
        us.sort_by(f64::total_cmp);
        us[us.len() / 2] / 1e3
    };
    let instructions = |debugger: Debugger| -> Option<f64> {
        let count = |frames: u32| {
            let mut cmd = Command::new("valgrind");
            cmd.args([
                "--tool=callgrind",
                "--callgrind-out-file=/dev/null",
                "--toggle-collect=shaderdbg_timed_draw",
            ])
            .arg(&app)
            .args(["timed", &frames.to_string(), "1280", "720"])
            .env("LP_NUM_THREADS", "0")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .env_remove("LD_PRELOAD");
            collected(&run(cmd, debugger).1)
        };
        let (a, b) = (count(2)?, count(5)?);
        Some(b.saturating_sub(a) as f64 / 3.0)
    };
    let kinds = [
        Debugger::None,
        Debugger::Screenshots,
        Debugger::NoScreenshots,
    ];
    let ms = kinds.map(wall);
    let ratio = |x: f64, base: f64| x / base;
    println!(
        "full-screen 1280x720 draw call, wall clock (median of 10 frames): {:.2} ms plain; with the hit test in it (one pass: the hit test is the draw): {:.2} ms ({:.2}x) for a debugger that may ask for the framebuffer at a stop (VS Code: a copy before the draw), {:.2} ms ({:.2}x) for one that never does (shaderdbg run)",
        ms[0],
        ms[1],
        ratio(ms[1], ms[0]),
        ms[2],
        ratio(ms[2], ms[0])
    );
    match kinds.map(instructions) {
        [Some(plain), Some(copy), Some(no_copy)] => println!(
            "full-screen 1280x720 draw call, instructions per draw (callgrind, one thread): {:.1}M plain; with the hit test in it: {:.1}M ({:.2}x) with the copy for screenshots, {:.1}M ({:.2}x) without",
            plain / 1e6,
            copy / 1e6,
            ratio(copy, plain),
            no_copy / 1e6,
            ratio(no_copy, plain)
        ),
        _ => println!("full-screen draw call: valgrind not available, no instruction figure"),
    }
}

/// The ray marcher in the host, plain and with a never-true breakpoint in
/// its loop (see the module documentation).
fn march(dir: &Path) {
    let shader = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/march.frag");
    let host = |frames: u32| {
        let mut cmd = Command::new(dir.join("shaderdbg-host"));
        cmd.arg(&shader)
            .args(["--size", "320x180", "--frames", &frames.to_string()])
            .env("LP_NUM_THREADS", "0")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .env_remove("LD_PRELOAD");
        cmd
    };
    let instructions = |frames: u32, hit_test: bool| -> Option<u64> {
        if hit_test {
            let mut cmd = under_callgrind(&host(frames));
            cmd.stderr(std::process::Stdio::piped());
            let (_, err) = debug_with(dir, cmd, "d = sdf(p);", "d < -1.0", &[], |_, _| {});
            collected(&err)
        } else {
            callgrind(&host(frames))
        }
    };
    let per_frame = |hit_test: bool| -> Option<f64> {
        let (a, b) = (instructions(2, hit_test)?, instructions(8, hit_test)?);
        Some(b.saturating_sub(a) as f64 / 6.0)
    };
    match (per_frame(false), per_frame(true)) {
        (Some(plain), Some(hit)) => println!(
            "ray marcher 320x180, never-true breakpoint in its 64-step loop, instructions per frame (callgrind): {:.1}M plain, {:.1}M with the hit test ({:.2}x the frame, one pass: the draw runs once)",
            plain / 1e6,
            hit / 1e6,
            hit / plain,
        ),
        _ => println!("ray marcher: valgrind not available, no instruction figure"),
    }
    let wall = |hit_test: bool| {
        median_secs(3, || {
            let mut cmd = host(8);
            if hit_test {
                debug_with(dir, cmd, "d = sdf(p);", "d < -1.0", &[], |_, _| {});
            } else {
                assert!(cmd.output().expect("host").status.success());
            }
        })
    };
    let (plain, hit) = (wall(false), wall(true));
    println!(
        "ray marcher 320x180, 8 frames, one thread, wall clock: {:.0} ms plain, {:.0} ms with the hit test ({:.2}x; median of 3, start-up included)",
        plain * 1e3,
        hit * 1e3,
        hit / plain
    );
}

/// A hit-test condition that holds for no fragment of `features` (it is
/// evaluated for every one).
const NEVER: &str = "uv.x < 0.0";

/// Runs `cmd` under the agent with a scripted debugger: every fragment
/// shader with `color.b` gets a breakpoint on that line with `condition`;
/// at the first stop `at_stop` runs (its requests, over the socket), then
/// everything is resumed until the app exits.
fn debug(
    dir: &Path,
    cmd: Command,
    condition: &str,
    at_stop: impl FnMut(&mut UnixStream, &mut BufReader<UnixStream>),
) -> String {
    debug_with(dir, cmd, "color.b = ", condition, &[], at_stop).0
}

/// [`debug`] with the breakpoint on the line containing `needle`; the
/// app's stdout and stderr (stderr only if the caller piped it).
fn debug_with(
    dir: &Path,
    mut cmd: Command,
    needle: &str,
    condition: &str,
    setup: &[ToAgent],
    at_stop: impl FnMut(&mut UnixStream, &mut BufReader<UnixStream>),
) -> (String, String) {
    cmd.env("LD_PRELOAD", dir.join("libshaderdbg_agent.so"));
    let breakpoint = Breakpoint {
        needle,
        condition,
        stage: None,
    };
    let run = bench::debug(dir, cmd, Some(breakpoint), setup, at_stop);
    assert!(run.status.success());
    (run.stdout, run.stderr)
}

/// glmark2's FPS (its final score) with and without the agent, alternating
/// runs; nothing printed but a note when glmark2 or xvfb-run is missing.
fn glmark2(dir: &Path) {
    let found = |b: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {b}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !found("glmark2") || !found("xvfb-run") {
        println!("glmark2: not installed, no figure");
        return;
    }
    let score = |attached: bool| -> Option<f64> {
        let mut cmd = Command::new("xvfb-run");
        cmd.args(["-a", "glmark2", "--off-screen", "-b", "build:duration=3"]);
        let text = if attached {
            cmd.env("LD_PRELOAD", dir.join("libshaderdbg_agent.so"));
            bench::debug(dir, cmd, None, &[], |_, _| {}).stdout
        } else {
            let out = cmd.env_remove("LD_PRELOAD").output().ok()?;
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        text.lines()
            .find_map(|l| l.trim().strip_prefix("glmark2 Score:"))
            .and_then(|v| v.trim().parse().ok())
    };
    let (mut plain, mut attached) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        plain.extend(score(false));
        attached.extend(score(true));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    if plain.is_empty() || attached.is_empty() {
        println!("glmark2: no score read (plain {plain:?}, attached {attached:?})");
        return;
    }
    println!(
        "glmark2 -b build:duration=3 (off-screen, Xvfb), 3 alternating runs: {:.0} FPS plain {plain:?}, {:.0} FPS attached with a debugger and no breakpoints {attached:?}, ratio {:.2}",
        mean(&plain),
        mean(&attached),
        mean(&attached) / mean(&plain)
    );
}
