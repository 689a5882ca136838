//! What the end-to-end tests of the command line share: the agent library,
//! the test apps and the built-in host, built once next to `shaderdbg`.
// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

/// Builds the agent library and the test apps once (cargo cannot make another
/// package's binaries a dependency of these tests).
pub fn single_pass() -> &'static Path {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| shaderdbg_test_support::app("single_pass"))
}

/// The bundled demo shader, copied to a fresh directory (breakpoints bind by
/// file, and tests run in parallel).
pub fn demo_shader(tag: &str) -> PathBuf {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/demo.frag");
    shaderdbg_test_support::fresh_copy(&demo, &format!("cli-{tag}"))
}

/// The JSON events of `shaderdbg run --json` output, in order.
pub fn json_events(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The JSON events of a `shaderdbg run --json` that must have succeeded.
#[track_caller]
pub fn events_of(out: &Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_events(&String::from_utf8_lossy(&out.stdout))
}

/// The JSON events of a `shaderdbg run --json` (the answer of [`shaderdbg`]
/// or [`run_program`]) that must have succeeded, and its standard output.
#[track_caller]
pub fn events_ok((out, text): (Output, String)) -> (Vec<Value>, String) {
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (json_events(&text), text)
}

/// `shaderdbg run ARGS -- APP APP_ARGS`, `APP` a test app by name: its
/// output.
pub fn run_test_app(args: &[&str], app: &str, app_args: &[&str]) -> Output {
    let app = shaderdbg_test_support::app(app);
    Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .arg("run")
        .args(args)
        .arg("--")
        .arg(&app)
        .args(app_args)
        .output()
        .expect("shaderdbg run")
}

/// The events of one kind (`stopped`, `exited`, ...).
pub fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

/// glmark2 as the end-to-end tests run it: its Phong shading scene, half a
/// second, a small window (under Xvfb).
pub const GLMARK2_PHONG: &[&str] = &[
    "/usr/bin/glmark2",
    "-b",
    "shading:shading=phong:duration=0.5",
    "--size",
    "160x120",
];

/// The JSON events of a finished `shaderdbg run --json`, checked to hold
/// exactly one stop and an exit with code 0: (that stop, every event).
#[track_caller]
pub fn one_stop(out: &Output) -> (Value, Vec<Value>) {
    let text = String::from_utf8_lossy(&out.stdout);
    let events = json_events(&text);
    let stops = of_kind(&events, "stopped");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stops.len(), 1, "{text}\n{stderr}");
    let stop = stops[0].clone();
    let exited = of_kind(&events, "exited");
    assert!(
        exited.len() == 1 && exited[0]["code"] == 0,
        "{text}\n{stderr}"
    );
    (stop, events)
}

/// `file` rendered by the built-in host alone (`shaderdbg-host FILE --png
/// REFERENCE`), decoded: the image a frame under the debugger must equal.
pub fn host_image(file: &Path, reference: &Path) -> (u32, u32, Vec<u8>) {
    let host = PathBuf::from(env!("CARGO_BIN_EXE_shaderdbg"))
        .parent()
        .expect("bin dir")
        .join("shaderdbg-host");
    let st = Command::new(host)
        .arg(file)
        .arg("--png")
        .arg(reference)
        .status()
        .expect("host");
    assert!(st.success());
    decode_png(reference)
}

/// A PNG file: (width, height, RGBA bytes).
pub fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("png file"));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png data");
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
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

/// `shaderdbg debug ARGS` (the agent and test programs built first) with
/// `commands` piped to its standard input: whether it succeeded, and its
/// standard output and error.
pub fn debug_session<S: AsRef<OsStr>>(
    args: impl IntoIterator<Item = S>,
    commands: &str,
) -> (bool, String, String) {
    use std::io::Write;
    single_pass();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .arg("debug")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("shaderdbg debug");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(commands.as_bytes())
        .expect("commands");
    let out = child.wait_with_output().expect("output");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `shaderdbg run --json --break BREAKPOINT -- PROGRAM ARGS`.
pub fn run_program(breakpoint: &str, program: &Path, args: &[&str]) -> (Output, String) {
    let mut all = vec![
        "run",
        "--json",
        "--break",
        breakpoint,
        "--",
        program.to_str().expect("path"),
    ];
    all.extend_from_slice(args);
    shaderdbg(all)
}

/// The `frame N checksum HEX` lines among a program's output lines.
pub fn frames(lines: impl Iterator<Item = String>) -> Vec<String> {
    lines.filter(|l| l.starts_with("frame ")).collect()
}

/// The program's own output lines among `run --json` events.
pub fn program_output(events: &[Value]) -> Vec<String> {
    of_kind(events, "output")
        .iter()
        .filter_map(|e| e["text"].as_str().map(str::to_string))
        .collect()
}

/// The `frame` lines of a program run alone (it must succeed).
pub fn frames_alone(program: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new(program).args(args).output().expect("runs");
    assert!(out.status.success(), "{out:?}");
    frames(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string),
    )
}

/// A JSON array of numbers as `f32`s (empty if it is not one).
pub fn f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_f64)
                .map(|x| x as f32)
                .collect()
        })
        .unwrap_or_default()
}

/// The line of `file` that contains `needle` (1-based).
pub fn line_of(file: &Path, needle: &str) -> u32 {
    let text = std::fs::read_to_string(file).expect("read");
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("no {needle:?} in {}", file.display()))
}
