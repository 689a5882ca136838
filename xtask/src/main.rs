//! Project automation for shaderdbg: `cargo xtask <command>` (see `USAGE`).
//!
//! Plain Rust and `std::process::Command`, no shell scripts, no dependencies
//! besides anyhow, so it builds in seconds on a fresh clone.

mod extension;
mod fuzz;
mod process;
mod setup;
mod test;

use std::process::ExitCode;

use anyhow::Result;

use crate::process::{cargo, describe, say, status};

const USAGE: &str = "\
usage: cargo xtask <command> [args]

commands:
  setup            install what the project needs (Debian 12 packages for
                   headless OpenGL, Xvfb, glmark2, glslang; cargo-nextest);
                   quick when everything is already there
  test [-- ARGS]   setup, then every check CI runs: cargo fmt --check,
                   cargo clippy -D warnings, cargo nextest run (ARGS go to
                   nextest), and for vscode-extension/: npm ci, tsc, eslint,
                   unit tests, adapter tests, a test .vsix and the end-to-end
                   test in a real VS Code (code-server, installed once into
                   target/vscode-e2e; SHADERDBG_SKIP_VSCODE_E2E=1 skips it)
  vsix             release build -> target/shaderdbg-linux-x64.vsix (the
                   extension with the native binaries bundled)
  demo [-- ARGS]   setup, then `shaderdbg demo ARGS` (release build)
  bench [-- ARGS]  setup, then `cargo bench --workspace ARGS`
  fuzz [SECONDS]   run every cargo-fuzz target in fuzz/ for SECONDS each
                   (default 60)
  help             show this

CI runs .ci/run, which is `cargo xtask test`.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = match args.split_first() {
        Some((command, rest)) => (command.as_str(), rest),
        None => ("help", &[][..]),
    };
    let result = match command {
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        "setup" if rest.is_empty() => ok(setup::setup()),
        "setup" => usage_error(&format!(
            "`setup` takes no arguments; got `{}`",
            rest.join(" ")
        )),
        "test" => ok(setup::setup().and_then(|()| test::test(forwarded(rest)))),
        "demo" => setup::setup().and_then(|()| demo(forwarded(rest))),
        "vsix" if rest.is_empty() => ok(extension::vsix()),
        "vsix" => usage_error(&format!(
            "`vsix` takes no arguments; got `{}`",
            rest.join(" ")
        )),
        "bench" => setup::setup().and_then(|()| bench(forwarded(rest))),
        "fuzz" => match fuzz_seconds(rest) {
            Some(seconds) => ok(fuzz::fuzz(seconds)),
            None => usage_error(&format!(
                "`fuzz` takes one optional argument, a whole number of seconds > 0; got `{}`",
                rest.join(" ")
            )),
        },
        other => usage_error(&format!("unknown command `{other}`")),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            say!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn ok(result: Result<()>) -> Result<ExitCode> {
    result.map(|()| ExitCode::SUCCESS)
}

/// Prints the problem and the usage to stderr; exit status 2.
fn usage_error(message: &str) -> Result<ExitCode> {
    say!("{message}");
    eprintln!("\n{USAGE}");
    Ok(ExitCode::from(2))
}

/// The arguments to pass on: everything after the command, without a leading
/// `--` (so `cargo xtask test -- -E 'test(foo)'` and
/// `cargo xtask test -E 'test(foo)'` do the same).
fn forwarded(rest: &[String]) -> &[String] {
    match rest.split_first() {
        Some((first, tail)) if first == "--" => tail,
        _ => rest,
    }
}

fn fuzz_seconds(rest: &[String]) -> Option<u64> {
    match forwarded(rest) {
        [] => Some(fuzz::DEFAULT_SECONDS),
        [seconds] => seconds.parse().ok().filter(|&s| s > 0),
        _ => None,
    }
}

/// Runs a command, handing back its exit status as ours.
fn pass_through(mut cmd: std::process::Command) -> Result<ExitCode> {
    let st = status(&mut cmd)?;
    if st.success() {
        return Ok(ExitCode::SUCCESS);
    }
    say!("failed: {}", describe(st));
    let code = st.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1);
    Ok(ExitCode::from(code.max(1)))
}

fn demo(args: &[String]) -> Result<ExitCode> {
    // The demo runs the built-in host under the agent: build all three first
    // (`cargo run -p shaderdbg-cli` alone would not build the other two).
    let build = cargo([
        "build",
        "--quiet",
        "--release",
        "-p",
        "shaderdbg-cli",
        "-p",
        "shaderdbg-host",
        "-p",
        "shaderdbg-backend-gl",
    ]);
    let code = pass_through(build)?;
    if code != ExitCode::SUCCESS {
        return Ok(code);
    }
    let mut cmd = cargo([
        "run",
        "--quiet",
        "--release",
        "-p",
        "shaderdbg-cli",
        "--bin",
        "shaderdbg",
        "--",
        "demo",
    ]);
    cmd.args(args);
    pass_through(cmd)
}

fn bench(args: &[String]) -> Result<ExitCode> {
    let mut cmd = cargo(["bench", "--workspace"]);
    cmd.args(args);
    pass_through(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn forwarded_drops_one_leading_separator() {
        assert_eq!(
            forwarded(&strings(&["--", "-E", "x"])),
            strings(&["-E", "x"])
        );
        assert_eq!(forwarded(&strings(&["-E", "x"])), strings(&["-E", "x"]));
        assert_eq!(forwarded(&strings(&["--", "--"])), strings(&["--"]));
        assert!(forwarded(&[]).is_empty());
    }

    #[test]
    fn fuzz_seconds_parses_one_positive_number() {
        assert_eq!(fuzz_seconds(&[]), Some(fuzz::DEFAULT_SECONDS));
        assert_eq!(fuzz_seconds(&strings(&["5"])), Some(5));
        assert_eq!(fuzz_seconds(&strings(&["--", "7"])), Some(7));
        assert_eq!(fuzz_seconds(&strings(&["0"])), None);
        assert_eq!(fuzz_seconds(&strings(&["x"])), None);
        assert_eq!(fuzz_seconds(&strings(&["1", "2"])), None);
    }
}
