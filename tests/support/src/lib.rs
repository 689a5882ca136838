//! What the end-to-end tests of every crate share: the agent library, the
//! test apps and the built-in host, built once per test binary into its own
//! target directory and profile (cargo cannot make another package's
//! binaries a dependency of tests).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `<target>/<profile>` of the running test binary (or bench).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let dir = exe.parent().expect("test binary directory");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.parent().expect("profile directory").to_owned()
    } else {
        dir.to_owned()
    }
}

/// Builds `shaderdbg-backend-gl` (the agent), `shaderdbg-backend-vk` (the
/// Vulkan layer), `shaderdbg-test-apps`, `shaderdbg-vk-test-apps` and
/// `shaderdbg-host` once, and returns the directory they are in.
pub fn built() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = profile_dir();
        let target = dir.parent().expect("target directory");
        let profile = dir
            .file_name()
            .expect("profile name")
            .to_string_lossy()
            .into_owned();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR")).args([
            "build",
            "-p",
            "shaderdbg-backend-gl",
            "-p",
            "shaderdbg-backend-vk",
            "-p",
            "shaderdbg-test-apps",
            "-p",
            "shaderdbg-vk-test-apps",
            "-p",
            "shaderdbg-host",
            "--target-dir",
        ]);
        cmd.arg(target);
        match profile.as_str() {
            "debug" => {}
            "release" => {
                cmd.arg("--release");
            }
            other => {
                cmd.args(["--profile", other]);
            }
        }
        let status = cmd.status().expect("running cargo build");
        assert!(
            status.success(),
            "cargo build of the agents, test apps and host failed"
        );
        for name in [
            "libshaderdbg_agent.so",
            "libVkLayer_shaderdbg.so",
            "single_pass",
            "vk_triangle",
            "shaderdbg-host",
        ] {
            assert!(dir.join(name).exists(), "{name} was not built");
        }
        dir
    })
}

/// A test app (a binary of `shaderdbg-test-apps`), built.
pub fn app(name: &str) -> PathBuf {
    built().join(name)
}

/// Timing for the benchmarks that print figures.
pub mod bench {
    use std::hint::black_box;
    use std::time::{Duration, Instant};

    /// Runs `f` `n` times (after one warm-up run) and returns the median duration.
    pub fn median<T>(n: usize, mut f: impl FnMut() -> T) -> Duration {
        black_box(f());
        let mut times: Vec<Duration> = (0..n)
            .map(|_| {
                let t = Instant::now();
                black_box(f());
                t.elapsed()
            })
            .collect();
        times.sort();
        times[n / 2]
    }
}
