//! What the end-to-end tests of the command line share: the agent library,
//! the test apps and the built-in host, built once next to `shaderdbg`.
// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
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

/// Asserts that `text` contains every one of `wanted`, showing the whole
/// text when one is missing (the output of a session is the evidence).
#[track_caller]
pub fn assert_has<S: AsRef<str>>(text: &str, wanted: &[S]) {
    for w in wanted {
        let w = w.as_ref();
        assert!(text.contains(w), "missing {w:?} in:\n{text}");
    }
}

/// Runs `shaderdbg ARGS` (the agent and test programs built first): its
/// output, and its standard output as text.
pub fn shaderdbg<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> (Output, String) {
    single_pass();
    let out = Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .args(args)
        .output()
        .expect("runs shaderdbg");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, text)
}
