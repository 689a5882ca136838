//! The `shaderdbg` binary, run as a user would.

use std::path::PathBuf;
use std::process::{Command, Output};

fn shaderdbg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .args(args)
        .output()
        .expect("runs shaderdbg")
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shaderdbg-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const GOOD: &str = "#version 330 core\nout vec4 c;\nuniform float k;\nvoid main() {\n    float x = k * 2.0;\n    c = vec4(x);\n}\n";

/// `shaderdbg glsl check NAME`, `text` written to the file NAME: asserts
/// it exits with `code` and prints nothing (`said` empty) or `said`.
#[track_caller]
fn assert_check(name: &str, text: &str, code: i32, said: &str) {
    let file = temp_file(name, text);
    let out = shaderdbg(&["glsl", "check", file.to_str().unwrap()]);
    let (o, e) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(code), "{name}\n{o}\n{e}");
    if said.is_empty() {
        assert_eq!(o, "", "{name}");
    } else {
        assert!(o.contains(said), "{name}: {o}");
    }
}

#[test]
fn check_reports_errors_with_positions_and_exit_code() {
    for (name, text, code, said) in [
        ("good.frag", GOOD, 0, ""),
        (
            "bad.frag",
            "#version 330 core\nout vec4 c;\nvoid main() {\n    c = vec4(missing);\n}\n",
            1,
            "bad.frag:4:14: error: undeclared identifier `missing`",
        ),
        (
            "broken.vert",
            "void main() {\n  gl_Position = ;\n}\n",
            1,
            "broken.vert:2:17: error:",
        ),
    ] {
        assert_check(name, text, code, said);
    }

    let unknown = temp_file("shader.txt", GOOD);
    let out = shaderdbg(&["glsl", "check", unknown.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--stage"), "{}", stderr(&out));
    let out = shaderdbg(&[
        "glsl",
        "check",
        "--stage",
        "frag",
        unknown.to_str().unwrap(),
    ]);
    assert!(out.status.success());
}

/// A Shadertoy-style body is checked with the uniforms the built-in host
/// gives it (it used to say `iResolution` was undeclared), and its errors
/// keep the file's own line numbers, with or without `#version`.
#[test]
fn check_reads_shadertoy_bodies_as_the_host_runs_them() {
    for (name, text, code, said) in [
        (
            "toy.frag",
            "// a comment\nvoid mainImage(out vec4 o, in vec2 p) {\n    o = vec4(p / iResolution.xy, iTime, 1.0);\n}\n",
            0,
            "",
        ),
        (
            "toy_versioned.frag",
            "#version 300 es\nprecision highp float;\nvoid mainImage(out vec4 o, in vec2 p) {\n    o = vec4(p / iResolution.xy, missing, 1.0);\n}\n",
            1,
            "toy_versioned.frag:4:34: error: undeclared identifier `missing`",
        ),
        (
            "toy_broken.frag",
            "void mainImage(out vec4 o, in vec2 p) {\n    o = ;\n}\n",
            1,
            "toy_broken.frag:2:9: error:",
        ),
    ] {
        assert_check(name, text, code, said);
    }
}

#[test]
fn instrument_prints_glsl_for_each_mode() {
    let file = temp_file("inst.frag", GOOD);
    let f = file.to_str().unwrap();
    // `Ok(text)`: succeeds and prints text; `Err(text)`: exits with 2 and says text.
    let cases: [(&[&str], Result<&str, &str>); 6] = [
        (
            &["instrument", "--record", "--fragment", "3,4"],
            Ok("uint(gl_FragCoord.x) == 3u && uint(gl_FragCoord.y) == 4u"),
        ),
        (
            &["instrument", "--hit", "6:x > 1.0"],
            Ok("_sdbg_hit0(x > 1.)"),
        ),
        (
            &["instrument", "--hit", "6:nope > 1.0"],
            Err("breakpoint condition `nope > 1.0`: undeclared identifier `nope`"),
        ),
        (
            &["instrument", "--hit", "6:x = 1.0"],
            Err("must not assign"),
        ),
        (
            &["instrument", "--watch", "6:x * 2.0"],
            Ok("_sdbg_watch_float(x * 2.)"),
        ),
        (&["probes"], Ok("line   5 main: write x : float")),
    ];
    for (words, want) in cases {
        let args: Vec<&str> = ["glsl"].iter().chain(words).chain([&f]).copied().collect();
        let out = shaderdbg(&args);
        let (o, e) = (stdout(&out), stderr(&out));
        let (code, text, said) = match want {
            Ok(text) => (0, &o, text),
            Err(text) => (2, &e, text),
        };
        assert_eq!(out.status.code(), Some(code), "{args:?}\n{o}\n{e}");
        assert!(text.contains(said), "{args:?}: {text}");
    }
    let out = shaderdbg(&["glsl", "instrument", "--record", "--fragment", "3,4", f]);
    assert!(
        stdout(&out).starts_with("#version 430 core\n"),
        "{}",
        stdout(&out)
    );
}
