//! What attaching the agent costs, printed as figures (never asserted):
//!
//! - instructions of `api_heavy` (3 frames x 2000 draws, a program switch and
//!   a uniform update per draw) with and without the agent preloaded and no
//!   debugger, counted by `valgrind --tool=callgrind` (deterministic, unlike
//!   wall-clock time on a shared machine);
//! - wall-clock time of `single_pass` at 1280x720 without the agent, with the
//!   agent and no breakpoint, and under a debugger with a breakpoint whose
//!   condition never holds (so every frame pays for a hit test and nothing
//!   stops): the difference per frame is the hit test's cost.
//!
//! Run with `cargo bench -p shaderdbg-backend-gl` (or `cargo xtask bench`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("bench binary");
    let deps = exe.parent().expect("deps");
    deps.parent().expect("profile dir").to_path_buf()
}

fn build() -> PathBuf {
    let dir = profile_dir();
    let target = dir.parent().expect("target dir");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "build",
            "--release",
            "-p",
            "shaderdbg-backend-gl",
            "-p",
            "shaderdbg-test-apps",
            "-p",
            "shaderdbg-cli",
            "--target-dir",
        ])
        .arg(target)
        .status()
        .expect("cargo build");
    assert!(status.success());
    dir
}

fn callgrind(dir: &Path, preload: bool) -> Option<u64> {
    let mut cmd = Command::new("valgrind");
    cmd.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(dir.join("api_heavy"))
        .args(["3", "2000"])
        .env("LP_NUM_THREADS", "0")
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env_remove("LD_PRELOAD");
    if preload {
        cmd.env("LD_PRELOAD", dir.join("libshaderdbg_agent.so"));
    }
    let out = cmd.output().ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|n| n.trim().parse().ok())
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
    let dir = build();
    match (callgrind(&dir, false), callgrind(&dir, true)) {
        (Some(base), Some(attached)) => println!(
            "attached, no breakpoints (api_heavy, 6000 draws): {base} -> {attached} instructions, {:+.2}%",
            (attached as f64 / base as f64 - 1.0) * 100.0
        ),
        _ => println!("attached, no breakpoints: valgrind not available, no figure"),
    }

    let frames = 10;
    let app = dir.join("single_pass");
    let run = |preload: bool| {
        let mut cmd = Command::new(&app);
        cmd.args([frames.to_string(), "720".into()])
            .env_remove("LD_PRELOAD");
        if preload {
            cmd.env("LD_PRELOAD", dir.join("libshaderdbg_agent.so"));
        }
        assert!(cmd.output().expect("single_pass").status.success());
    };
    let plain = median_secs(5, || run(false));
    let attached = median_secs(5, || run(true));
    let shader =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/apps/shaders/single_pass.frag");
    let bp = format!("{}:9:p.x < -1.0", shader.display());
    let hit_tested = median_secs(5, || {
        let out = Command::new(dir.join("shaderdbg"))
            .args(["run", "--json", "--break", &bp, "--"])
            .arg(&app)
            .args([frames.to_string(), "720".into()])
            .output()
            .expect("shaderdbg run");
        assert!(out.status.success());
    });
    println!(
        "single_pass 720x720, {frames} frames: {:.1} ms plain, {:.1} ms attached, {:.1} ms with a hit test every frame (median of 5)",
        plain * 1e3,
        attached * 1e3,
        hit_tested * 1e3
    );
    println!(
        "hit test of a full-screen 720x720 draw: {:.1} ms per frame over a {:.1} ms frame",
        (hit_tested - attached) / f64::from(frames) * 1e3,
        plain / f64::from(frames) * 1e3
    );
}
