//! What the end-to-end tests of the command line share: the agent library,
//! the test apps and the built-in host, built once next to `shaderdbg`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `<target>/<profile>` (where the agent library and the test apps are built).
fn profile_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_shaderdbg"))
        .parent()
        .expect("bin dir")
        .to_path_buf()
}

/// Builds the agent library and the test apps once (cargo cannot make another
/// package's binaries a dependency of these tests).
pub fn single_pass() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = profile_dir();
        let target = dir.parent().expect("target dir");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "build",
                "-p",
                "shaderdbg-backend-gl",
                "-p",
                "shaderdbg-test-apps",
                "-p",
                "shaderdbg-host",
                "--target-dir",
            ])
            .arg(target);
        if dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        assert!(cmd.status().expect("cargo build").success());
        assert!(dir.join("libshaderdbg_agent.so").exists());
        dir.join("single_pass")
    })
}

/// The bundled demo shader, copied to a fresh directory (breakpoints bind by
/// file, and tests run in parallel).
pub fn demo_shader(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shaderdbg-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("demo.frag");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/demo.frag"),
        &file,
    )
    .expect("copy demo shader");
    file
}
