//! End-to-end tests of the agent: real programs run with
//! `LD_PRELOAD=libshaderdbg_agent.so` on Mesa llvmpipe (EGL device
//! platform, no X).
//!
//! The programs are the binaries of the `shaderdbg-test-apps` package
//! (`tests/apps/`): `cargo` cannot make another package's binaries a
//! dependency of these tests, so the first test that needs them runs
//! `cargo build -p shaderdbg-backend-gl -p shaderdbg-test-apps` (a no-op
//! when they are up to date) into the target directory this test binary
//! lives in (`<target>/<profile>/deps/preload-*` -> `<target>/<profile>/`),
//! with the same profile. The cdylib is `libshaderdbg_agent.so` next to
//! them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const VERTEX_SHADER: &str = include_str!("../../tests/apps/shaders/single_pass.vert");
const FRAGMENT_SHADER: &str = include_str!("../../tests/apps/shaders/single_pass.frag");

mod common;
use common::{artifacts, profile_dir};

/// Runs `program` with a clean agent environment, optionally preloaded.
fn run(program: &Path, args: &[&str], preload: bool, env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_remove("LD_PRELOAD")
        .env_remove("SHADERDBG_TRACE_FILE")
        .env_remove("SHADERDBG_LOG")
        .env_remove("SHADERDBG_DISABLE");
    if preload {
        cmd.env("LD_PRELOAD", &artifacts().agent);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("spawning the test program");
    assert!(
        out.status.success(),
        "{} {args:?} (preload: {preload}) failed: {}\nstdout:\n{}\nstderr:\n{}",
        program.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 stdout")
}

fn temp_path(name: &str) -> PathBuf {
    let dir = profile_dir().join("tmp-agent-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

fn read_trace(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("trace file written");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad trace line {l:?}: {e}")))
        .collect()
}

#[test]
fn checksums_identical_with_and_without_agent() {
    let a = artifacts();
    let plain = stdout(&run(&a.single_pass, &["5"], false, &[]));
    let preloaded = stdout(&run(&a.single_pass, &["5"], true, &[]));
    assert_eq!(plain.lines().count(), 5, "{plain}");
    for (i, line) in plain.lines().enumerate() {
        assert!(line.starts_with(&format!("frame {i} checksum ")), "{line}");
    }
    assert_eq!(plain, preloaded);
}

#[test]
fn trace_lists_shaders_program_draws_and_swaps() {
    let a = artifacts();
    let trace = temp_path("single_pass.jsonl");
    let frames = 4u64;
    run(
        &a.single_pass,
        &["4"],
        true,
        &[("SHADERDBG_TRACE_FILE", &trace)],
    );
    let events = read_trace(&trace);
    let _ = std::fs::remove_file(&trace);
    let kind = |e: &Value| e["event"].as_str().unwrap().to_owned();

    let compiled: Vec<&Value> = events
        .iter()
        .filter(|e| kind(e) == "shader_compiled")
        .collect();
    assert_eq!(compiled.len(), 2, "{events:#?}");
    let by_stage: BTreeMap<&str, &Value> = compiled
        .iter()
        .map(|e| (e["stage"].as_str().unwrap(), *e))
        .collect();
    for (stage, gl_type, source) in [
        ("vertex", 0x8B31, VERTEX_SHADER),
        ("fragment", 0x8B30, FRAGMENT_SHADER),
    ] {
        let e = by_stage
            .get(stage)
            .unwrap_or_else(|| panic!("no {stage} shader"));
        assert_eq!(e["gl_type"], gl_type);
        assert_eq!(e["sources"], serde_json::json!([source]), "{stage} sources");
        assert_eq!(e["compile_status"], true);
    }

    let linked: Vec<&Value> = events
        .iter()
        .filter(|e| kind(e) == "program_linked")
        .collect();
    assert_eq!(linked.len(), 1);
    let program = &linked[0];
    assert_eq!(program["link_status"], true);
    let program_id = program["id"].as_u64().unwrap();
    let mut shader_ids: Vec<u64> = program["shaders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_u64().unwrap())
        .collect();
    shader_ids.sort_unstable();
    let mut compiled_ids: Vec<u64> = compiled.iter().map(|e| e["id"].as_u64().unwrap()).collect();
    compiled_ids.sort_unstable();
    assert_eq!(shader_ids, compiled_ids);
    for s in program["shaders"].as_array().unwrap() {
        let source = if s["stage"] == "vertex" {
            VERTEX_SHADER
        } else {
            FRAGMENT_SHADER
        };
        assert_eq!(s["sources"], serde_json::json!([source]));
    }

    // Per frame: exactly one draw with the program, then one swap.
    let context = program["context"].as_str().unwrap();
    assert!(context.starts_with("egl:0x"), "{context}");
    let frame_events: Vec<(String, u64)> = events
        .iter()
        .filter(|e| matches!(kind(e).as_str(), "draw" | "swap"))
        .map(|e| {
            assert_eq!(e["context"], context);
            if kind(e) == "draw" {
                assert_eq!(e["command"], "glDrawArrays");
                assert_eq!(e["program"].as_u64(), Some(program_id));
                assert_eq!(e["index"], 0);
                assert_eq!(
                    e["args"],
                    serde_json::json!({"kind": "arrays", "mode": 4, "first": 0, "count": 3,
                        "instance_count": 1, "base_instance": 0})
                );
            }
            (kind(e), e["frame"].as_u64().unwrap())
        })
        .collect();
    let expected: Vec<(String, u64)> = (0..frames)
        .flat_map(|f| [("draw".to_owned(), f), ("swap".to_owned(), f)])
        .collect();
    assert_eq!(frame_events, expected);
    // Shaders and program come first.
    let first_draw = events.iter().position(|e| kind(e) == "draw").unwrap();
    assert_eq!(first_draw, 3);
}

#[test]
fn contexts_on_several_threads_are_kept_apart() {
    let a = artifacts();
    let trace = temp_path("threads.jsonl");
    let out = run(
        &a.single_pass,
        &["3", "32", "3"],
        true,
        &[("SHADERDBG_TRACE_FILE", &trace)],
    );
    let plain = run(&a.single_pass, &["3", "32", "3"], false, &[]);
    assert_eq!(stdout(&out), stdout(&plain));
    let events = read_trace(&trace);
    let _ = std::fs::remove_file(&trace);
    let mut per_context: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    for e in &events {
        let k = e["event"].as_str().unwrap();
        if k == "draw" || k == "swap" {
            per_context
                .entry(e["context"].as_str().unwrap().to_owned())
                .or_default()
                .push((k.to_owned(), e["frame"].as_u64().unwrap()));
        }
    }
    assert_eq!(per_context.len(), 3, "{per_context:#?}");
    for frames in per_context.values() {
        let expected: Vec<(String, u64)> = (0..3)
            .flat_map(|f| [("draw".to_owned(), f), ("swap".to_owned(), f)])
            .collect();
        assert_eq!(frames, &expected);
    }
    let linked = events
        .iter()
        .filter(|e| e["event"] == "program_linked")
        .count();
    assert_eq!(linked, 3);
}

#[test]
fn disabled_agent_records_nothing() {
    let a = artifacts();
    let trace = temp_path("disabled.jsonl");
    let out = Command::new(&a.single_pass)
        .arg("2")
        .env("LD_PRELOAD", &a.agent)
        .env("SHADERDBG_TRACE_FILE", &trace)
        .env("SHADERDBG_DISABLE", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        stdout(&run(&a.single_pass, &["2"], false, &[]))
    );
    assert!(!trace.exists(), "a disabled agent wrote a trace");
}

/// Lines `how name class` of dlopen_app, keyed by (how, name).
fn lookups(out: &str) -> BTreeMap<(String, String), String> {
    out.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (how, name, class) = (w.next()?, w.next()?, w.next()?);
            Some(((how.to_owned(), name.to_owned()), class.to_owned()))
        })
        .collect()
}

#[test]
fn dlsym_and_get_proc_address_return_wrappers_only_for_intercepted_names() {
    let a = artifacts();
    let plain = stdout(&run(&a.dlopen_app, &[], false, &[]));
    let agent = stdout(&run(&a.dlopen_app, &[], true, &[]));
    assert!(plain.starts_with("agent no\n"), "{plain}");
    assert!(agent.starts_with("agent yes\n"), "{agent}");
    let libc_line = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("next-puts "))
            .map(str::to_owned)
    };
    assert!(libc_line(&agent).unwrap().contains("libc.so"));
    // The interposed dlsym keeps RTLD_NEXT relative to the real caller.
    assert!(agent.contains("\nnext-agent-symbol found\n"), "{agent}");
    assert!(plain.contains("\nnext-agent-symbol null\n"), "{plain}");

    let (plain, agent) = (lookups(&plain), lookups(&agent));
    assert_eq!(
        plain.keys().collect::<Vec<_>>(),
        agent.keys().collect::<Vec<_>>()
    );
    let intercepted = [
        "glShaderSource",
        "glCreateShaderObjectARB",
        "glDrawArrays",
        "glXGetProcAddressARB",
        "glXGetProcAddress",
        "glXSwapBuffers",
        "eglGetProcAddress",
        "eglSwapBuffers",
        "eglDestroyContext",
    ];
    let mut wrapped = 0;
    for ((how, name), class) in &agent {
        if how.starts_with("next-") || how == "agent" {
            continue;
        }
        let before = &plain[&(how.clone(), name.clone())];
        // An EGL/GLX function asked through the other API's GetProcAddress
        // is not the real thing and stays unwrapped.
        let foreign = (how.starts_with("glX") && name.starts_with("egl"))
            || (how.starts_with("egl") && name.starts_with("glX"));
        let expected = if before == "real" && intercepted.contains(&name.as_str()) && !foreign {
            "wrapper"
        } else {
            before.as_str()
        };
        assert_eq!(class, expected, "{how} {name} (without agent: {before})");
        if class == "wrapper" {
            wrapped += 1;
        }
    }
    // Spot checks of the main routes.
    for key in [
        ("dlsym:libGL", "glShaderSource"),
        ("glXGetProcAddressARB", "glShaderSource"),
        ("glXGetProcAddressARB", "glCreateShaderObjectARB"),
        ("eglGetProcAddress", "glDrawArrays"),
        ("dlsym:libEGL", "eglSwapBuffers"),
        ("dlsym:libEGL", "eglDestroyContext"),
    ] {
        assert_eq!(
            agent[&(key.0.to_owned(), key.1.to_owned())],
            "wrapper",
            "{key:?}"
        );
    }
    for key in [
        ("dlsym:libGL", "glClear"),
        ("glXGetProcAddressARB", "glClear"),
        ("eglGetProcAddress", "glClear"),
        ("dlsym:libEGL", "eglGetCurrentContext"),
    ] {
        assert_eq!(
            agent[&(key.0.to_owned(), key.1.to_owned())],
            "real",
            "{key:?}"
        );
    }
    assert!(wrapped >= 20, "{wrapped}");
}

#[test]
fn programs_without_gl_are_unaffected() {
    let a = artifacts();
    let out = run(Path::new("/bin/true"), &[], true, &[]);
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    // ld.so reports a library it cannot preload on stderr: empty stderr
    // means the agent was loaded.
    let out = run(Path::new("/bin/sh"), &["-c", "echo hello"], true, &[]);
    assert_eq!(stdout(&out), "hello\n");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A program that looks up dlsym-heavy libc functionality.
    let out = run(
        Path::new("/bin/ls"),
        &[a.agent.to_str().unwrap()],
        true,
        &[],
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// glmark2 (GLX under Xvfb, GLSL ES 1.00-style shaders with a header
/// prepended at run time): shaders, programs, draws and swaps are seen.
/// `cargo xtask setup` installs glmark2 and Xvfb; their absence is a failure.
#[test]
fn glmark2_under_xvfb() {
    shaderdbg_test_support::require_installed(&["/usr/bin/glmark2", "/usr/bin/xvfb-run"]);
    let a = artifacts();
    let trace = temp_path("glmark2.jsonl");
    let out = Command::new("/usr/bin/xvfb-run")
        .args(["-a", "-s", "-screen 0 640x480x24", "env"])
        .arg(format!("LD_PRELOAD={}", a.agent.display()))
        .arg(format!("SHADERDBG_TRACE_FILE={}", trace.display()))
        .args([
            "/usr/bin/glmark2",
            "-s",
            "160x120",
            "-b",
            "shading:shading=phong:duration=0.5",
        ])
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let events = read_trace(&trace);
    let _ = std::fs::remove_file(&trace);
    let count = |k: &str| events.iter().filter(|e| e["event"] == k).count();
    assert!(count("shader_compiled") >= 2);
    assert!(count("program_linked") >= 1);
    assert!(count("draw") >= 1);
    assert!(count("swap") >= 1);
    for e in &events {
        assert!(e["context"].as_str().unwrap().starts_with("glx:0x"), "{e}");
    }
    // The runtime source carries glmark2's prepended header.
    let fragment = events
        .iter()
        .find(|e| e["event"] == "shader_compiled" && e["stage"] == "fragment")
        .unwrap();
    let source: String = fragment["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(source.contains("gl_FragColor"), "{source}");
    assert!(fragment["compile_status"] == true);
}
