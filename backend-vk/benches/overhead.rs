//! What the Vulkan layer costs an application, printed as figures (never
//! asserted), on `vk_api_heavy` (2000 draws a frame, a pipeline bind and a
//! push constant per draw, 4 submissions per frame, on lavapipe with
//! `LP_NUM_THREADS=0` so that rendering runs in the counted thread):
//!
//! - instructions (`valgrind --tool=callgrind`: deterministic, unlike
//!   wall-clock time on a shared machine) of 3 frames without the layer and
//!   with it enabled and no debugger (target: at most 1% more);
//! - instructions per frame of the program alone (no layer), with the
//!   layer and a debugger attached (the socket protocol, scripted) but no
//!   breakpoint (target: at most 1% more), and with a breakpoint in the
//!   fragment shader whose condition never holds, so that every submission
//!   is hit-tested and nothing stops (target: at most 2x the frame alone):
//!   runs of 2 and 6 frames, the difference over 4, so that start-up and
//!   the twin's compilation cancel;
//! - wall-clock time of the first comparison (median of 5).
//!
//! Run with `cargo bench -p shaderdbg-backend-vk` (or `cargo xtask bench`).

use std::path::Path;
use std::process::{Command, Stdio};

use shaderdbg_protocol as proto;
use shaderdbg_test_support::bench::{self, callgrind, collected, under_callgrind, Breakpoint};

const DRAWS: &str = "2000";
const SUBMITS: &str = "4";

/// `vk_api_heavy FRAMES`, with the layer enabled through the loader's
/// environment (a manifest in `manifest_dir`) or not.
fn app(dir: &Path, layer: Option<&Path>, frames: u32) -> Command {
    let mut cmd = Command::new(dir.join("vk_api_heavy"));
    cmd.args([&frames.to_string(), DRAWS, SUBMITS])
        .env("LP_NUM_THREADS", "0")
        // Every run compiles its pipelines: no cache from another run.
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove(proto::SOCKET_ENV);
    if let Some(manifest_dir) = layer {
        cmd.env("VK_ADD_LAYER_PATH", manifest_dir)
            .env("VK_INSTANCE_LAYERS", proto::vulkan::LAYER_NAME);
    }
    cmd
}

/// Runs `cmd` with a scripted debugger on the socket: when the fragment
/// shader is announced, a breakpoint on its first line containing
/// `needle` with `condition` (none: no breakpoint), which must never stop.
/// The program's stderr (callgrind's count, under callgrind).
fn debugged(dir: &Path, mut cmd: Command, breakpoint: Option<(&str, &str)>) -> String {
    cmd.stderr(Stdio::piped());
    let breakpoint = breakpoint.map(|(needle, condition)| Breakpoint {
        needle,
        condition,
        stage: Some(shaderdbg_core::Stage::Fragment),
    });
    let stopped = |_: &mut _, _: &mut _| panic!("the never-true breakpoint stopped");
    let run = bench::debug(dir, cmd, breakpoint, &[], stopped);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        run.errors.is_empty(),
        "the layer reported: {:?}",
        run.errors
    );
    if let Some(b) = breakpoint {
        assert!(run.set > 0, "no `{}` in the fragment shader", b.needle);
    }
    run.stderr
}

fn main() {
    // The layer and the test programs only (not every agent and app).
    let dir =
        shaderdbg_test_support::built_packages(&["shaderdbg-backend-vk", "shaderdbg-vk-test-apps"]);
    let manifest_dir =
        std::env::temp_dir().join(format!("shaderdbg-vk-bench-{}", std::process::id()));
    std::fs::create_dir_all(&manifest_dir).expect("manifest dir");
    let library = dir.join(proto::vulkan::LIBRARY);
    std::fs::write(
        manifest_dir.join(proto::vulkan::MANIFEST),
        proto::vulkan::manifest(&library.display().to_string()),
    )
    .expect("manifest");
    let layer = Some(manifest_dir.as_path());
    match (
        callgrind(&app(&dir, None, 3)),
        callgrind(&app(&dir, layer, 3)),
    ) {
        (Some(base), Some(with)) => println!(
            "layer enabled, no debugger (vk_api_heavy, 6000 draws, 12 submits): {base} -> {with} instructions, {:+.2}%",
            (with as f64 / base as f64 - 1.0) * 100.0
        ),
        _ => println!("callgrind: valgrind is not installed or failed; skipped"),
    }
    // The decompiled fragment shader's `ring` line; `t` (the push constant)
    // is never negative.
    let never = Some(("float ring", "t < -1.0"));
    // Instructions per frame: alone (no layer, no debugger), or with the
    // layer and a debugger setting `breakpoint`.
    let per_frame = |debugger: Option<Option<(&str, &str)>>| -> Option<f64> {
        let count = |frames| match debugger {
            None => callgrind(&app(&dir, None, frames)),
            Some(breakpoint) => {
                let cmd = under_callgrind(&app(&dir, layer, frames));
                collected(&debugged(&dir, cmd, breakpoint))
            }
        };
        let (a, b) = (count(2)?, count(6)?);
        Some(b.saturating_sub(a) as f64 / 4.0)
    };
    match (per_frame(None), per_frame(Some(None)), per_frame(Some(never))) {
        (Some(alone), Some(attached), Some(hit)) => println!(
            "instructions per frame (2000 draws, 4 submits): {:.1}M alone, {:.1}M with a debugger attached and no breakpoint ({:+.2}%), {:.1}M with a never-true breakpoint in the fragment shader ({:.2}x the frame alone)",
            alone / 1e6,
            attached / 1e6,
            (attached / alone - 1.0) * 100.0,
            hit / 1e6,
            hit / alone
        ),
        _ => println!("per frame: valgrind is not installed or failed; skipped"),
    }
    let time = |layer: Option<&Path>| {
        shaderdbg_test_support::bench::median(5, || {
            let out = app(&dir, layer, 3).output().expect("vk_api_heavy runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        })
    };
    let (base, with) = (time(None), time(layer));
    println!(
        "wall clock: {:.1} ms -> {:.1} ms",
        base.as_secs_f64() * 1e3,
        with.as_secs_f64() * 1e3
    );
    let _ = std::fs::remove_dir_all(&manifest_dir);
}
