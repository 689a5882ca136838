//! The engine's figures on glslang's test corpus, kept as a snapshot
//! (`corpus/glslang-figures.txt`): valid shaders accepted, invalid ones
//! rejected (on an expected line), per group and per `#extension`.
//!
//! The corpus is not in the repository: `corpus/fetch-glslang.sh` fetches it
//! at a pinned commit. Without it (CI has no network) this test says so and
//! passes; with it, `UPDATE_EXPECT=1 cargo test -p shaderdbg-glsl --test
//! glslang_corpus` records new figures. The full lists (false errors, missed
//! rejections) come from `cargo run -p shaderdbg-glsl --example
//! glslang_corpus -- --false-errors --missed`.

#[path = "corpus/measure.rs"]
mod measure;

use std::process::Command;

#[test]
fn glslang_corpus_figures() {
    let dir = measure::default_dir();
    let head = Command::new("git")
        .arg("-C")
        .arg(&dir)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        Some(h) if h == measure::GLSLANG_COMMIT => {}
        Some(h) => {
            eprintln!(
                "skipped: {} is glslang {h}, the figures are of {} (run glsl/tests/corpus/fetch-glslang.sh)",
                dir.display(),
                measure::GLSLANG_COMMIT
            );
            return;
        }
        None => {
            eprintln!(
                "skipped: no glslang corpus at {} (run glsl/tests/corpus/fetch-glslang.sh, or set SHADERDBG_GLSLANG)",
                dir.display()
            );
            return;
        }
    }
    let results = match measure::measure(&dir) {
        Ok(r) => r,
        Err(e) => panic!("{}: {e}", dir.display()),
    };
    expect_test::expect_file!["corpus/glslang-figures.txt"].assert_eq(&measure::report(&results));
}
