//! `cargo xtask test`: every check CI runs, as a list of named steps.
//!
//! Order: fmt, clippy, a build of the native binaries, nextest; meanwhile a
//! background thread runs `npm ci` for the VS Code extension and installs
//! code-server for its end-to-end test (network and npm-bound; output in
//! `target/xtask-logs/`). Then the extension's checks: tsc, eslint, unit
//! tests, adapter tests against the debug binaries just built, a test `.vsix`
//! bundling them, and the end-to-end test in a real VS Code (skipped only
//! when `SHADERDBG_SKIP_VSCODE_E2E=1` says so; the summary says it).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::extension;
use crate::process::{cargo, describe, root, say, status, Shown};

type Outcome = (String, Verdict, Duration);

enum Verdict {
    Ok,
    Failed(String),
    Skipped(String),
}

/// A check: a command, or some Rust that runs commands.
enum Action {
    Cmd(Command),
    Task(Box<dyn FnOnce() -> Result<()> + Send>),
}

struct Step {
    name: &'static str,
    action: Action,
}

fn cmd(name: &'static str, cmd: Command) -> Step {
    Step {
        name,
        action: Action::Cmd(cmd),
    }
}

fn task(name: &'static str, f: impl FnOnce() -> Result<()> + Send + 'static) -> Step {
    Step {
        name,
        action: Action::Task(Box::new(f)),
    }
}

/// The Rust steps, in order. `extra` are the arguments given after
/// `cargo xtask test --`; they go to nextest.
fn rust_steps(extra: &[String], extension: bool) -> Vec<Step> {
    let mut steps = vec![
        cmd("fmt", cargo(["fmt", "--all", "--", "--check"])),
        cmd(
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
    ];
    if extension {
        // The binaries the extension bundles, built once (nextest reuses them).
        steps.push(cmd("build binaries", extension::build_binaries(false)));
    }
    steps.push(cmd(
        "nextest",
        with_args(
            cargo(["nextest", "run", "--workspace", "--no-fail-fast"]),
            extra,
        ),
    ));
    steps
}

/// What runs beside the Rust steps: downloads and installs.
fn background_steps(e2e: bool) -> Vec<Step> {
    let dir = extension::dir();
    let mut steps = vec![cmd("npm ci", extension::npm(&dir, ["ci"]))];
    if e2e {
        steps.push(task("code-server install", || {
            extension::install_code_server(&mut |c| logged(c, &log_file("code-server-install")))
        }));
    }
    steps
}

/// The extension's checks, after the binaries are built and npm is done.
fn extension_steps(e2e: bool) -> Vec<Step> {
    let dir = extension::dir();
    let mut adapter = extension::npm(&dir, ["run", "test:adapter"]);
    adapter.env("SHADERDBG_BIN_DIR", root().join("target/debug"));
    let vsix = test_vsix();
    let mut steps = vec![
        cmd("extension tsc", extension::npm(&dir, ["run", "typecheck"])),
        cmd("extension eslint", extension::npm(&dir, ["run", "lint"])),
        cmd(
            "extension unit tests",
            extension::npm(&dir, ["run", "test:unit"]),
        ),
        cmd("extension adapter tests", adapter),
        task("test vsix", move || {
            extension::stage_binaries("debug")?;
            extension::package(&vsix, false)
        }),
    ];
    if e2e {
        let mut run = Command::new("node");
        run.arg("out/test/e2e/e2e.js")
            .current_dir(&dir)
            .env("VSIX", test_vsix())
            .env("CODE_SERVER_ENTRY", extension::code_server_entry())
            .env("E2E_DIR", extension::e2e_dir());
        steps.push(cmd("vscode e2e", run));
    }
    steps
}

fn test_vsix() -> PathBuf {
    extension::e2e_dir().join("shaderdbg-test.vsix")
}

fn with_args(mut cmd: Command, args: &[String]) -> Command {
    cmd.args(args);
    cmd
}

fn log_file(name: &str) -> PathBuf {
    root().join("target/xtask-logs").join(format!("{name}.log"))
}

/// Runs a command with its output appended to `log`.
fn logged(cmd: &mut Command, log: &Path) -> Result<()> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let out = File::options()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("opening {}", log.display()))?;
    say!("$ {}  (output: {})", Shown(cmd), log.display());
    let st = cmd
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .status()
        .with_context(|| format!("could not start `{}`", Shown(cmd)))?;
    if !st.success() {
        bail!("`{}` failed ({})", Shown(cmd), describe(st));
    }
    Ok(())
}

/// Runs one step; `log`: where a command's output goes (else the terminal).
fn run_step(step: Step, log: Option<&Path>, ci: bool) -> Outcome {
    let Step { name, action } = step;
    let t = Instant::now();
    let verdict = match action {
        Action::Cmd(mut c) => {
            c.env("RUST_BACKTRACE", "1");
            if ci {
                c.env("CARGO_TERM_COLOR", "never");
            }
            match log {
                Some(log) => logged(&mut c, log).map_err(|e| format!("{e:#}")),
                None => match status(&mut c) {
                    Ok(st) if st.success() => Ok(()),
                    Ok(st) => Err(describe(st)),
                    Err(e) => Err(format!("{e:#}")),
                },
            }
        }
        Action::Task(f) => f().map_err(|e| format!("{e:#}")),
    };
    let verdict = match verdict {
        Ok(()) => Verdict::Ok,
        Err(why) => {
            say!("test: step `{name}` FAILED: {why}");
            if let Some(log) = log {
                say!("test: the end of {}:", log.display());
                let text = std::fs::read_to_string(log).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                for line in &lines[lines.len().saturating_sub(40)..] {
                    eprintln!("    {line}");
                }
            }
            Verdict::Failed(why)
        }
    };
    (name.to_string(), verdict, t.elapsed())
}

/// Runs all steps, also after one failed (so one run shows every problem), then
/// prints a one-line summary. Fails if any step failed.
pub fn test(extra: &[String]) -> Result<()> {
    let ci = std::env::var_os("CI").is_some();
    if ci {
        // A clean CI build does not reuse incremental state, and it cost
        // gigabytes of disk (a CI run once failed with "No space left").
        std::env::set_var("CARGO_INCREMENTAL", "0");
        report_disk("start");
    }
    let started = Instant::now();
    let has_extension = extension::dir().join("package.json").exists();
    let skip_e2e = std::env::var(extension::SKIP_E2E_VAR).is_ok_and(|v| v == "1");
    let e2e = has_extension && !skip_e2e;
    if has_extension && skip_e2e {
        say!(
            "test: {}=1: the VS Code end-to-end test will be SKIPPED",
            extension::SKIP_E2E_VAR
        );
    }

    let background = has_extension.then(|| {
        let steps = background_steps(e2e);
        say!(
            "test: in the background: {} (output in target/xtask-logs/)",
            steps.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
        );
        thread::spawn(move || {
            let mut outcomes = Vec::new();
            for step in steps {
                let log = log_file(&step.name.replace(' ', "-"));
                let _ = std::fs::remove_file(&log);
                let o = run_step(step, Some(&log), ci);
                let failed = matches!(o.1, Verdict::Failed(_));
                say!(
                    "test: background step `{}` done ({:.1}s)",
                    o.0,
                    o.2.as_secs_f64()
                );
                outcomes.push(o);
                if failed {
                    break;
                }
            }
            outcomes
        })
    });

    let mut outcomes: Vec<Outcome> = Vec::new();
    let steps = rust_steps(extra, has_extension);
    let count = steps.len();
    for (i, step) in steps.into_iter().enumerate() {
        say!("test: [{}/{count}] {}", i + 1, step.name);
        outcomes.push(run_step(step, None, ci));
    }

    if let Some(handle) = background {
        say!("test: waiting for the background steps");
        let bg = handle.join().unwrap_or_else(|_| {
            vec![(
                "background".into(),
                Verdict::Failed("panicked".into()),
                Duration::ZERO,
            )]
        });
        let npm_ok = bg.first().is_some_and(|o| matches!(o.1, Verdict::Ok));
        let e2e_ready = bg.iter().all(|o| matches!(o.1, Verdict::Ok));
        outcomes.extend(bg);
        let binaries_ok = outcomes
            .iter()
            .any(|o| o.0 == "build binaries" && matches!(o.1, Verdict::Ok));
        let steps = extension_steps(e2e);
        let count = steps.len();
        for (i, step) in steps.into_iter().enumerate() {
            let needs_binaries = matches!(
                step.name,
                "extension adapter tests" | "test vsix" | "vscode e2e"
            );
            let blocked = if !npm_ok {
                Some("npm ci failed")
            } else if needs_binaries && !binaries_ok {
                Some("the binaries did not build")
            } else if step.name == "vscode e2e"
                && !(e2e_ready
                    && outcomes
                        .iter()
                        .any(|o| o.0 == "test vsix" && matches!(o.1, Verdict::Ok)))
            {
                Some("its set-up failed")
            } else {
                None
            };
            if let Some(why) = blocked {
                say!("test: step `{}` not run: {why}", step.name);
                outcomes.push((
                    step.name.to_string(),
                    Verdict::Failed(format!("not run: {why}")),
                    Duration::ZERO,
                ));
                continue;
            }
            say!("test: [extension {}/{count}] {}", i + 1, step.name);
            outcomes.push(run_step(step, None, ci));
        }
        if skip_e2e {
            outcomes.push((
                "vscode e2e".into(),
                Verdict::Skipped(format!("{}=1", extension::SKIP_E2E_VAR)),
                Duration::ZERO,
            ));
        }
    }
    if ci {
        report_disk("end");
    }
    summary(&outcomes, started.elapsed())
}

fn summary(outcomes: &[Outcome], took: Duration) -> Result<()> {
    let failed: Vec<String> = outcomes
        .iter()
        .filter_map(|(name, v, _)| match v {
            Verdict::Failed(why) => Some(format!("{name} ({why})")),
            _ => None,
        })
        .collect();
    let details: Vec<String> = outcomes
        .iter()
        .map(|(name, verdict, took)| match verdict {
            Verdict::Ok => format!("{name} ok {:.1}s", took.as_secs_f64()),
            Verdict::Failed(_) => format!("{name} FAILED {:.1}s", took.as_secs_f64()),
            Verdict::Skipped(why) => format!("{name} SKIPPED ({why})"),
        })
        .collect();
    let count = outcomes.len();
    let total = took.as_secs_f64();
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
        bail!("test failed: {}", failed.join("; "))
    }
}

/// Prints the free space of the disk under the workspace and the size of
/// `target/`, so a CI log shows how close a run came to filling the disk.
fn report_disk(when: &str) {
    // `df --output=avail` prints a header line, then the figure; `du -s`
    // prints the figure, then the path.
    let word = |cmd: &mut Command, last: bool| -> String {
        let out = cmd.output().ok();
        let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        let mut words = text.as_deref().unwrap_or("").split_whitespace();
        let w = if last { words.last() } else { words.next() };
        w.unwrap_or("?").to_string()
    };
    let free = word(Command::new("df").args(["-h", "--output=avail", "."]), true);
    let used = word(Command::new("du").args(["-sh", "target"]), false);
    say!("test: disk at {when}: {free} free, target/ {used}");
}
