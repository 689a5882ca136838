//! What the end-to-end tests of the command line share: the agent library,
//! the test apps and the built-in host, built once next to `shaderdbg`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Builds the agent library and the test apps once (cargo cannot make another
/// package's binaries a dependency of these tests).
pub fn single_pass() -> &'static Path {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| shaderdbg_test_support::app("single_pass"))
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
