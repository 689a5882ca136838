//! The sanitizer on compute shaders nobody here wrote: piglit's
//! `arb_compute_shader/execution` tests (Debian's `piglit`, a GL conformance
//! suite) run by piglit's own `shader_runner` under `shaderdbg run
//! --sanitize all`, and under each check alone (`oob`, `uninit`, `race`:
//! each instruments differently). Every dispatch is sanitized, and the
//! requirement is zero reports but the expected ones (right ones, below)
//! and the same piglit result as without us.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{json_events, of_kind, single_pass};

const PIGLIT: &str = "/usr/lib/x86_64-linux-gnu/piglit";

/// `PIGLIT: {"result": "pass" }` -> `pass`.
fn piglit_result(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.contains("PIGLIT: {"))?;
    let after = line.split("\"result\"").nth(1)?;
    Some(after.split('"').nth(1)?.to_string())
}

fn shader_runner(test: &Path) -> Command {
    let mut cmd = Command::new(Path::new(PIGLIT).join("bin/shader_runner"));
    cmd.arg(test)
        .args(["-auto", "-fbo"])
        .env("PIGLIT_PLATFORM", "surfaceless_egl")
        .env_remove("DISPLAY");
    cmd
}

/// Reports that are right: (test, the check that makes it, what the
/// sanitizer's message says, in order). An invalid image store is a no-op
/// in OpenGL, and this test relies on it: 1024 invocations store at their
/// x into a 4x1 image. The sanitizer reports out-of-bounds image accesses
/// as it does arrays' (the issue asks for them); the stop is the one the
/// report makes.
///
/// The races are real, though harmless by the tests' design: atomics
/// never race with atomics, but an atomic read-modify-write is a write in
/// the memory model, and a plain read unordered with it is a data race.
/// `shared-atomicMax/Min-*` read `value` plainly at line 35 (`if (value
/// != 2147483647u)`, `!= 5`, `!= 3u`) while other invocations may still
/// run their line-31 `atomicMax`/`atomicMin` on it (`v = atomicMax(value,
/// local_index)`, `v = atomicMin(value, 7 + local_index)`): these atomics
/// never change the value, so the read cannot differ, but the same-value
/// rule is about two writes: a write of the value already there is no
/// race with another write of it, and the read is still unordered with
/// the atomic. `shared-atomicCompSwap-int` reads it plainly at line 27
/// (`int f = value;`) while others run the CAS loop of line 31 (the loop
/// retries on a stale value). Which two invocations are named depends on
/// scheduling: the message's parts are matched.
const EXPECTED: &[(&str, Check, &[&str])] = &[
    (
        "min-dvec4-double-large-group-size.shader_test",
        Check::Oob,
        &["out-of-bounds imageStore into tex at (4,0) (image 4x1)"],
    ),
    (
        "shared-atomicCompSwap-int.shader_test",
        Check::Race,
        &[
            "data race on shared int value: invocation ",
            " read at line 27, invocation ",
            " wrote atomically at line 31, no barrier between",
        ],
    ),
    (
        "shared-atomicMax-int.shader_test",
        Check::Race,
        ATOMIC_THEN_READ_INT,
    ),
    (
        "shared-atomicMax-uint.shader_test",
        Check::Race,
        ATOMIC_THEN_READ_UINT,
    ),
    (
        "shared-atomicMin-int.shader_test",
        Check::Race,
        ATOMIC_THEN_READ_INT,
    ),
    (
        "shared-atomicMin-uint.shader_test",
        Check::Race,
        ATOMIC_THEN_READ_UINT,
    ),
];

const ATOMIC_THEN_READ_INT: &[&str] = &[
    "data race on shared int value: invocation ",
    " wrote atomically at line 31, invocation ",
    " read at line 35, no barrier between",
];
const ATOMIC_THEN_READ_UINT: &[&str] = &[
    "data race on shared uint value: invocation ",
    " wrote atomically at line 31, invocation ",
    " read at line 35, no barrier between",
];

/// A sanitizer check, as `--sanitize` names it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Check {
    All,
    Oob,
    Uninit,
    Race,
}

impl Check {
    fn arg(self) -> &'static str {
        match self {
            Check::All => "all",
            Check::Oob => "oob",
            Check::Uninit => "uninit",
            Check::Race => "race",
        }
    }

    /// Whether `--sanitize self` makes a report of `check`.
    fn covers(self, check: Check) -> bool {
        self == Check::All || self == check
    }
}

/// Whether `message` has `parts` in order.
fn says(message: &str, parts: &[&str]) -> bool {
    let mut rest = message;
    parts.iter().all(|p| match rest.find(p) {
        Some(at) => {
            rest = &rest[at + p.len()..];
            true
        }
        None => false,
    })
}

/// What is wrong with `test` under `--sanitize filter`, if anything.
fn check(test: &Path, filter: Check) -> Option<String> {
    let name = test.file_name()?.to_string_lossy().into_owned();
    let expected_here: Vec<&[&str]> = EXPECTED
        .iter()
        .filter(|(t, c, _)| *t == name && filter.covers(*c))
        .map(|(_, _, m)| *m)
        .collect();
    let alone = shader_runner(test).output().expect("shader_runner");
    let expected = piglit_result(&String::from_utf8_lossy(&alone.stdout));
    let runner = shader_runner(test);
    let out = Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .args([
            "run",
            "--sanitize",
            filter.arg(),
            "--json",
            "--timeout",
            "120",
            "--",
        ])
        .arg(runner.get_program())
        .args(runner.get_args())
        .env("PIGLIT_PLATFORM", "surfaceless_egl")
        .env_remove("DISPLAY")
        .output()
        .expect("shaderdbg run");
    let text = String::from_utf8_lossy(&out.stdout);
    let events = json_events(&text);
    let output: String = of_kind(&events, "output")
        .iter()
        .filter_map(|e| e["text"].as_str())
        .map(|l| format!("{l}\n"))
        .collect();
    let expected_reports = of_kind(&events, "sanitizer")
        .iter()
        .filter(|r| {
            expected_here
                .iter()
                .any(|m| r["message"].as_str().is_some_and(|s| says(s, m)))
        })
        .count();
    let wrong = [
        (
            "sanitizer reports",
            of_kind(&events, "sanitizer").len() - expected_reports,
        ),
        (
            "stops",
            of_kind(&events, "stopped")
                .len()
                .saturating_sub(expected_reports),
        ),
        ("errors", of_kind(&events, "error").len()),
    ];
    let mut why: Vec<String> = wrong
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(what, n)| format!("{n} {what}"))
        .collect();
    if expected_reports != expected_here.len() {
        why.push(format!(
            "{expected_reports} of its {} expected reports",
            expected_here.len()
        ));
    }
    let result = piglit_result(&output);
    if result != expected {
        why.push(format!("piglit says {result:?}, alone {expected:?}"));
    }
    (!why.is_empty()).then(|| {
        let errors: Vec<String> = of_kind(&events, "error")
            .iter()
            .chain(of_kind(&events, "sanitizer").iter())
            .map(|e| e.to_string())
            .collect();
        format!(
            "{name} (--sanitize {}): {}\n  {}",
            filter.arg(),
            why.join(", "),
            errors.join("\n  ")
        )
    })
}

/// Runs every piglit compute test under `--sanitize filter`; fails with
/// what went wrong.
fn piglit_compute_shaders_under(filter: Check) {
    single_pass(); // builds the agent
    let dir = Path::new(PIGLIT).join("tests/spec/arb_compute_shader/execution");
    shaderdbg_test_support::require_installed(&[
        &format!("{PIGLIT}/bin/shader_runner"),
        dir.to_str().expect("utf-8 path"),
    ]);
    let mut tests: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("piglit's compute tests")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "shader_test"))
        .collect();
    tests.sort();
    assert!(
        tests.len() >= 20,
        "{} tests in {}",
        tests.len(),
        dir.display()
    );
    // Two at a time: each is a short program under its own session.
    let failures: Vec<String> = std::thread::scope(|s| {
        let halves: Vec<_> = tests
            .chunks(tests.len().div_ceil(2))
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter_map(|t| check(t, filter))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        halves
            .into_iter()
            .flat_map(|h| h.join().expect("a checking thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} piglit compute tests:\n{}",
        failures.len(),
        tests.len(),
        failures.join("\n")
    );
}

#[test]
fn piglit_compute_shaders_run_sanitized_with_no_reports_and_the_same_results() {
    piglit_compute_shaders_under(Check::All);
}

#[test]
fn piglit_compute_shaders_run_with_the_out_of_bounds_check_alone() {
    piglit_compute_shaders_under(Check::Oob);
}

#[test]
fn piglit_compute_shaders_run_with_the_uninitialized_read_check_alone() {
    piglit_compute_shaders_under(Check::Uninit);
}

#[test]
fn piglit_compute_shaders_run_with_the_race_check_alone() {
    piglit_compute_shaders_under(Check::Race);
}
