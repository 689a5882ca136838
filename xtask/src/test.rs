//! `cargo xtask test`: every check CI runs, as a list of named steps.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use crate::process::{cargo, describe, root, say, status};

/// One check: a name for the summary and the command that performs it.
struct Step {
    name: &'static str,
    cmd: Command,
}

fn step(name: &'static str, cmd: Command) -> Step {
    Step { name, cmd }
}

/// The steps, in order. Adding a check is one line here. `extra` are the
/// arguments given after `cargo xtask test --`; they go to nextest.
fn steps(extra: &[String]) -> Vec<Step> {
    let mut steps = vec![
        step("fmt", cargo(["fmt", "--all", "--", "--check"])),
        step(
            "clippy",
            cargo([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]),
        ),
        step(
            "nextest",
            with_args(
                cargo(["nextest", "run", "--workspace", "--no-fail-fast"]),
                extra,
            ),
        ),
    ];
    let extension = root().join("vscode-extension");
    if extension.join("package.json").exists() {
        steps.push(step("npm ci", npm(&extension, ["ci"])));
        steps.push(step("npm test", npm(&extension, ["test"])));
    }
    steps
}

fn with_args(mut cmd: Command, args: &[String]) -> Command {
    cmd.args(args);
    cmd
}

fn npm<const N: usize>(dir: &Path, args: [&str; N]) -> Command {
    let mut cmd = Command::new("npm");
    cmd.args(args).current_dir(dir);
    cmd
}

/// Runs all steps, also after one failed (so one run shows every problem), then
/// prints a one-line summary. Fails if any step failed.
pub fn test(extra: &[String]) -> Result<()> {
    let ci = std::env::var_os("CI").is_some();
    let mut steps = steps(extra);
    let count = steps.len();
    let started = Instant::now();
    let mut outcomes: Vec<(&str, Result<(), String>, Duration)> = Vec::new();
    for (i, Step { name, cmd }) in steps.iter_mut().enumerate() {
        say!("test: [{}/{count}] {name}", i + 1);
        cmd.env("RUST_BACKTRACE", "1");
        if ci {
            cmd.env("CARGO_TERM_COLOR", "never");
        }
        let t = Instant::now();
        let outcome = match status(cmd) {
            Ok(st) if st.success() => Ok(()),
            Ok(st) => Err(describe(st)),
            Err(e) => Err(format!("{e:#}")),
        };
        if let Err(why) = &outcome {
            say!("test: step `{name}` FAILED: {why}");
        }
        outcomes.push((name, outcome, t.elapsed()));
    }

    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|(_, outcome, _)| outcome.is_err())
        .map(|(name, _, _)| *name)
        .collect();
    let details: Vec<String> = outcomes
        .iter()
        .map(|(name, outcome, took)| {
            let verdict = if outcome.is_ok() { "ok" } else { "FAILED" };
            format!("{name} {verdict} {:.1}s", took.as_secs_f64())
        })
        .collect();
    let total = started.elapsed().as_secs_f64();
    if failed.is_empty() {
        say!(
            "test summary: PASSED, all {count} steps ({}) in {total:.1}s",
            details.join(", ")
        );
        Ok(())
    } else {
        say!(
            "test summary: FAILED, {} of {count} steps failed ({}) in {total:.1}s",
            failed.len(),
            details.join(", ")
        );
        bail!("test failed: {}", failed.join(", "))
    }
}
