//! What the Vulkan layer costs an application, printed as figures (never
//! asserted): instructions of `vk_api_heavy` (3 frames x 2000 draws, a
//! pipeline bind and a push constant per draw, 4 submissions per frame, on
//! lavapipe) without the layer and with it enabled and no debugger,
//! counted by `valgrind --tool=callgrind` (deterministic, unlike wall-clock
//! time on a shared machine), and the wall-clock time of both (median of 5).
//!
//! Run with `cargo bench -p shaderdbg-backend-vk` (or `cargo xtask bench`).

use std::path::Path;
use std::process::Command;

const ARGS: [&str; 3] = ["3", "2000", "4"];

/// `vk_api_heavy`, with the layer enabled through the loader's environment
/// (a manifest in `manifest_dir`) or not.
fn app(dir: &Path, layer: Option<&Path>) -> Command {
    let mut cmd = Command::new(dir.join("vk_api_heavy"));
    cmd.args(ARGS)
        .env("LP_NUM_THREADS", "0")
        // Both runs compile their pipelines: no cache from the other run.
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove("SHADERDBG_SOCKET");
    if let Some(manifest_dir) = layer {
        cmd.env("VK_ADD_LAYER_PATH", manifest_dir)
            .env("VK_INSTANCE_LAYERS", shaderdbg_protocol::vulkan::LAYER_NAME);
    }
    cmd
}

fn callgrind(dir: &Path, layer: Option<&Path>) -> Option<u64> {
    let plain = app(dir, layer);
    let mut cmd = Command::new("valgrind");
    cmd.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(plain.get_program())
        .args(plain.get_args());
    for (k, v) in plain.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = cmd.output().ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|n| n.trim().parse().ok())
}

fn main() {
    let dir = shaderdbg_test_support::built().to_path_buf();
    let manifest_dir =
        std::env::temp_dir().join(format!("shaderdbg-vk-bench-{}", std::process::id()));
    std::fs::create_dir_all(&manifest_dir).expect("manifest dir");
    let library = dir.join(shaderdbg_protocol::vulkan::LIBRARY);
    std::fs::write(
        manifest_dir.join(shaderdbg_protocol::vulkan::MANIFEST),
        shaderdbg_protocol::vulkan::manifest(&library.display().to_string()),
    )
    .expect("manifest");
    let layer = Some(manifest_dir.as_path());
    match (callgrind(&dir, None), callgrind(&dir, layer)) {
        (Some(base), Some(with)) => println!(
            "layer enabled, no debugger (vk_api_heavy, 6000 draws, 12 submits): {base} -> {with} instructions, {:+.2}%",
            (with as f64 / base as f64 - 1.0) * 100.0
        ),
        _ => println!("callgrind: valgrind is not installed or failed; skipped"),
    }
    let time = |layer: Option<&Path>| {
        shaderdbg_test_support::bench::median(5, || {
            let out = app(&dir, layer).output().expect("vk_api_heavy runs");
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
