//! The sanitizer on compute shaders nobody here wrote: piglit's
//! `arb_compute_shader/execution` tests (Debian's `piglit`, a GL conformance
//! suite) run by piglit's own `shader_runner` under `shaderdbg run
//! --sanitize all`. Every check is on (out-of-bounds, unwritten shared
//! reads, shared-memory races), every dispatch is sanitized, and the
//! requirement is zero reports and the same piglit result as without us.

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

/// Reports that are right: (test, sanitizer message's start). An
/// invalid image store is a no-op in OpenGL, and this test relies on it:
/// 1024 invocations store at their x into a 4x1 image. The sanitizer
/// reports out-of-bounds image accesses as it does arrays' (the issue
/// asks for them); the stop is the one the report makes.
/// The `shared-atomicMax/Min-*` tests read `value` plainly while other
/// invocations may still run their `atomicMax`/`atomicMin` on it, and
/// `shared-atomicCompSwap-int` reads it plainly before its CAS loop while
/// others swap: an atomic read-modify-write is a write in the memory model
/// (even one that leaves the value), and a plain read unordered with it
/// is a data race. The tests tolerate it by design (the value they read
/// cannot differ, or the loop retries); the sanitizer's job is to say it.
/// Which two invocations it names depends on scheduling: the message's
/// start is matched.
const EXPECTED: &[(&str, &str)] = &[
    (
        "min-dvec4-double-large-group-size.shader_test",
        "out-of-bounds imageStore into tex at (4,0) (image 4x1)",
    ),
    (
        "shared-atomicCompSwap-int.shader_test",
        "data race on shared int value:",
    ),
    (
        "shared-atomicMax-int.shader_test",
        "data race on shared int value:",
    ),
    (
        "shared-atomicMax-uint.shader_test",
        "data race on shared uint value:",
    ),
    (
        "shared-atomicMin-int.shader_test",
        "data race on shared int value:",
    ),
    (
        "shared-atomicMin-uint.shader_test",
        "data race on shared uint value:",
    ),
];

/// What is wrong with `test` under the sanitizer, if anything.
fn check(test: &Path) -> Option<String> {
    let name = test.file_name()?.to_string_lossy().into_owned();
    let alone = shader_runner(test).output().expect("shader_runner");
    let expected = piglit_result(&String::from_utf8_lossy(&alone.stdout));
    let runner = shader_runner(test);
    let out = Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .args([
            "run",
            "--sanitize",
            "all",
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
            EXPECTED
                .iter()
                .any(|(t, m)| *t == name && r["message"].as_str().is_some_and(|s| s.starts_with(m)))
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
    if EXPECTED.iter().any(|(t, _)| *t == name) && expected_reports != 1 {
        why.push(format!("{expected_reports} of its expected report"));
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
        format!("{name}: {}\n  {}", why.join(", "), errors.join("\n  "))
    })
}

#[test]
fn piglit_compute_shaders_run_sanitized_with_no_reports_and_the_same_results() {
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
            .map(|part| s.spawn(move || part.iter().filter_map(|t| check(t)).collect::<Vec<_>>()))
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
