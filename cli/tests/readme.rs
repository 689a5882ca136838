//! The commands of the README's "Using it", exactly as written: each line
//! of its command block runs in a directory holding the files the
//! commands name, under those names ([`FILES`]), so that only placeholder
//! programs are replaced, by the table [`PROGRAMS`]; each must succeed
//! with the effect the README gives it ([`check`]). A README command this
//! test does not know fails it.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

mod common;
use common::{assert_has, decode_png, json_events, of_kind};

/// The files the commands name, and where this repository has them.
const FILES: &[(&str, &str)] = &[
    // A GLSL 330 fragment shader for the built-in host, with `falloff` in
    // scope on line 27 and `n`, `l` on line 30, as the commands want.
    ("shader.frag", "cli/tests/data/readme/shader.frag"),
    ("other.vert", "cli/tests/data/readme/other.vert"),
    ("my_effect.frag", "cli/demo/demo.frag"),
    ("effect.wgsl", "host/examples/rings.wgsl"),
    // A compute kernel whose reduction misses a barrier (`race_compute`).
    ("kernel.comp", "tests/apps/shaders/race.comp"),
];

/// Placeholder programs (and their placeholder arguments) and what runs
/// instead: `HOST` is the built-in host, `APP:name` a test app.
/// `./app` is the host drawing `shader.frag` for three frames, but in the
/// sanitizer's command, where it is the program of `kernel.comp`.
const PROGRAMS: &[(&str, &[&str])] = &[
    ("./my_gl_program", &["HOST"]),
    ("args", &["shader.frag"]),
    ("./app", &["HOST", "--frames", "3", "shader.frag"]),
];
const SANITIZED_APP: &[&str] = &["APP:race_compute", "1"];

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The command lines of the README's "Using it" (its first indented
/// block), without their comments.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = readme
        .split("\n## Using it\n")
        .nth(1)
        .expect("a section \"Using it\"");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .skip_while(|l| !l.starts_with("    "))
        .take_while(|l| l.starts_with("    "))
        .map(|l| without_comment(l.trim()).to_string())
        .collect()
}

/// `line` up to a `#` that starts a shell comment (after a blank, outside
/// quotes), trimmed.
fn without_comment(line: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() => return line[..i].trim_end(),
            _ => {}
        }
        prev = c;
    }
    line
}

/// The words of a shell command line (blanks separate words; single and
/// double quotes group, and are removed).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (_, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(quote.is_none(), "unbalanced quotes in {line:?}");
    out.extend(word);
    out
}

/// A built binary of this workspace (next to `shaderdbg`).
fn binary(name: &str) -> PathBuf {
    shaderdbg_test_support::built();
    let path = Path::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .parent()
        .expect("bin dir")
        .join(name);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// `words` with the placeholders replaced and the programs made paths.
fn substituted(words: &[String]) -> Vec<String> {
    let sanitizer = words.iter().any(|w| w == "--sanitize");
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let replacement: Vec<&str> = match PROGRAMS.iter().find(|(p, _)| p == w) {
            Some(_) if w == "./app" && sanitizer => SANITIZED_APP.to_vec(),
            Some((_, r)) => r.to_vec(),
            None => vec![w.as_str()],
        };
        for r in replacement {
            out.push(match r {
                "HOST" => binary("shaderdbg-host").display().to_string(),
                r if r.starts_with("APP:") => {
                    shaderdbg_test_support::app(&r[4..]).display().to_string()
                }
                r if i == 0 => binary(r).display().to_string(),
                r => r.to_string(),
            });
        }
    }
    out
}

/// What a command did.
struct Ran {
    out: Output,
    stdout: String,
    /// Standard output and error.
    text: String,
    /// The messages it answered with (DAP, LSP).
    replies: Vec<Value>,
}

/// Runs `words` in `dir`, without a display (a trace of EGL replays on a
/// surfaceless platform), with `input` on its standard input: text, or
/// `Content-Length` framed messages, each sent once the one before has
/// its answer.
fn run(dir: &Path, words: &[String], input: Input) -> Ran {
    let mut child = Command::new(&words[0])
        .args(&words[1..])
        .current_dir(dir)
        .env_remove("DISPLAY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{words:?}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    let mut replies = Vec::new();
    match input {
        Input::Text(text) => {
            stdin.write_all(text.as_bytes()).expect("standard input");
            drop(stdin);
        }
        Input::Messages(messages) => {
            let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
            for (message, answered) in messages {
                let body = message.to_string();
                write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("send");
                stdin.flush().expect("flush");
                if !answered {
                    continue;
                }
                loop {
                    let reply = shaderdbg_test_support::read_frame(&mut reader)
                        .unwrap_or_else(|| panic!("{words:?}: no answer to {message}"));
                    let done =
                        reply["id"] == message["id"] || reply["request_seq"] == message["seq"];
                    replies.push(reply);
                    if done {
                        break;
                    }
                }
            }
            drop(stdin);
            replies.extend(std::iter::from_fn(|| {
                shaderdbg_test_support::read_frame(&mut reader)
            }));
        }
    }
    let out = child.wait_with_output().expect("output");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = format!(
        "{stdout}{replies:#?}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ran {
        out,
        stdout,
        text,
        replies,
    }
}

/// A command's standard input.
enum Input {
    Text(&'static str),
    /// Framed messages, and whether each gets an answer to wait for.
    Messages(Vec<(Value, bool)>),
}

/// The one value printed for `float NAME = ` in `text`.
fn printed_float(text: &str, name: &str) -> f32 {
    let prefix = format!("float {name} = ");
    text.lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name} printed:\n{text}"))
}

/// What standard input the command gets.
fn input(line: &str) -> Input {
    use serde_json::json;
    match line {
        "shaderdbg debug -- ./app" => {
            Input::Text("break shader.frag:27\nrun\nprint falloff\nnext\nback\ncontinue\nquit\n")
        }
        "shaderdbg-dap" => Input::Messages(vec![
            (
                json!({"seq": 1, "type": "request", "command": "initialize",
                    "arguments": {"adapterID": "shaderdbg"}}),
                true,
            ),
            (
                json!({"seq": 2, "type": "request", "command": "disconnect"}),
                true,
            ),
        ]),
        "shaderdbg-lsp" => Input::Messages(vec![
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"capabilities": {}}}),
                true,
            ),
            (
                json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
                false,
            ),
            (
                json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
                true,
            ),
            (json!({"jsonrpc": "2.0", "method": "exit"}), false),
        ]),
        _ => Input::Text(""),
    }
}

/// Checks that the README line `line`, run in `dir`, did what the README
/// says it does.
fn check(line: &str, dir: &Path, r: &Ran) {
    assert!(r.out.status.success(), "{line}: {}", r.text);
    let d = dir.display();
    let text = &r.text;
    match line {
        "shaderdbg run --break shader.frag:27:'falloff > 0.5' -- ./my_gl_program args" => {
            assert_has(text, &[format!("stopped at {d}/shader.frag:27 in fragment (")]);
            assert!(printed_float(text, "falloff") > 0.5, "{text}");
            assert_has(text, &["program exited with code 0"]);
        }
        "shaderdbg run --break shader.frag:27 --pixel 412,300 --frame 2 --json --trace -- ./app" => {
            let events = json_events(&r.stdout);
            let stops = of_kind(&events, "stopped");
            assert_eq!(stops.len(), 1, "{text}");
            let s = stops[0];
            assert_eq!(s["file"], format!("{d}/shader.frag"));
            assert_eq!(
                (&s["line"], &s["pixel"], &s["frame"]),
                (&27.into(), &serde_json::json!([412, 300]), &2.into())
            );
            assert!(s["steps"].as_array().is_some_and(|s| !s.is_empty()), "{s}");
            assert_eq!(of_kind(&events, "exited")[0]["code"], 0);
        }
        "shaderdbg run --break shader.frag:27 --ignore 1:1000 -- ./app" => {
            // The 1001st invocation is the one `--hit-condition '1:== 1001'`
            // stops at.
            let exactly = substituted(&words(
                "shaderdbg run --break shader.frag:27 --hit-condition '1:== 1001' -- ./app",
            ));
            let first = |t: &str| {
                t.lines()
                    .find(|l| l.starts_with("stopped at "))
                    .map(str::to_string)
                    .unwrap_or_else(|| panic!("no stop:\n{t}"))
            };
            let want = first(&run(dir, &exactly, Input::Text("")).text);
            assert!(want.contains("frame 0;"), "{want}");
            assert_eq!(first(text), want, "{text}");
        }
        "shaderdbg run --dprintf 'shader.frag:30:n={n} d={dot(n, l)}' -- ./app" => {
            assert!(!text.contains("stopped at"), "{text}");
            let logs: Vec<&str> = r
                .stdout
                .lines()
                .filter(|l| l.starts_with(&format!("{d}/shader.frag:30: [fragment (")))
                .collect();
            // The first invocations of each draw (the session prints a
            // few per draw); d is dot(n, l), l = normalize(0.3, 0.5, 1.0).
            assert!(!logs.is_empty(), "{text}");
            let numbers = |s: &str| -> Vec<f32> {
                s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
                    .filter_map(|w| w.parse().ok())
                    .collect()
            };
            for log in &logs {
                let (n, dot) = log
                    .split_once(" n=vec3(")
                    .and_then(|(_, rest)| rest.split_once(") d="))
                    .map(|(n, d)| (numbers(n), numbers(d)))
                    .unwrap_or_else(|| panic!("{log}"));
                let len = (0.3f32 * 0.3 + 0.25 + 1.0).sqrt();
                let want = (n[0] * 0.3 + n[1] * 0.5 + n[2]) / len;
                assert!((dot[0] - want).abs() < 1e-5, "{log}: {want}");
            }
        }
        "shaderdbg run --sanitize all --source kernel.comp -- ./app" => assert_has(
            text,
            &[
                "data race on shared float tile[".to_string(),
                format!("stopped at {d}/kernel.comp:18 in compute ("),
            ],
        ),
        "shaderdbg run --pixel 412,300 --frame 2 -- ./app" => {
            let stops: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with("stopped at "))
                .collect();
            assert_eq!(stops.len(), 1, "one draw shades it: {text}");
            assert!(
                stops[0].contains(" in fragment (412,300) ") && stops[0].contains("frame 2;"),
                "{text}"
            );
        }
        "shaderdbg run my_effect.frag" => assert_has(text, &["program exited with code 0"]),
        "shaderdbg run --break effect.wgsl:26:'i == 2' --pixel 100,200 effect.wgsl" => {
            assert_has(
                text,
                &[
                    format!("stopped at {d}/effect.wgsl:26 in fragment (100,200)"),
                    "  i: i32 = 2".to_string(),
                ],
            );
        }
        "shaderdbg capture --api egl -o app.trace -- ./app" => {
            let size = std::fs::metadata(dir.join("app.trace")).map_or(0, |m| m.len());
            assert!(size > 0, "no app.trace: {text}");
        }
        "shaderdbg run --break shader.frag:27 -- app.trace" => {
            let stops = text.lines().filter(|l| l.starts_with("stopped at ")).count();
            assert_eq!(stops, 3, "one per frame of the recording: {text}");
            assert_has(text, &[format!("stopped at {d}/shader.frag:27 in fragment (0,0) prim 0 (draw 0, frame 2;")]);
        }
        "shaderdbg debug -- ./app" => {
            assert_has(
                text,
                &[
                    format!("breakpoint 1 at {d}/shader.frag:27"),
                    format!("stopped at {d}/shader.frag:27 in fragment ("),
                ],
            );
            printed_float(text, "falloff");
        }
        "shaderdbg glsl check shader.frag other.vert" => {
            assert_eq!(r.stdout, "", "no diagnostics: {text}")
        }
        "shaderdbg glsl instrument --record --fragment 100,60 shader.frag" => {
            assert!(r.stdout.starts_with("#version 430 core\n"), "{text}");
            assert!(r.stdout.contains("_sdbg_begin("), "{text}");
        }
        "shaderdbg-host my_effect.frag --png out.png" | "shaderdbg-host effect.wgsl --png out.png" => {
            let (w, h, rgba) = decode_png(&dir.join("out.png"));
            assert_eq!((w, h), (640, 360));
            assert!(rgba.chunks(4).any(|p| p != &rgba[..4]), "a picture, not one colour");
            std::fs::remove_file(dir.join("out.png")).expect("out.png");
        }
        "shaderdbg-dap" => {
            let init = r
                .replies
                .iter()
                .find(|m| m["command"] == "initialize")
                .unwrap_or_else(|| panic!("no initialize response: {text}"));
            assert_eq!(init["success"], true, "{init}");
        }
        "shaderdbg-lsp" => {
            let init = r
                .replies
                .iter()
                .find(|m| m["id"] == 1)
                .unwrap_or_else(|| panic!("no initialize result: {text}"));
            assert!(init["result"]["capabilities"].is_object(), "{init}");
        }
        other => panic!("a README command this test does not know: {other:?}"),
    }
}

#[test]
fn the_readme_commands_do_what_the_readme_says() {
    shaderdbg_test_support::require_installed(&["/usr/bin/apitrace", "/usr/bin/eglretrace"]);
    let dir = std::env::temp_dir().join(format!("shaderdbg-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let dir = dir.canonicalize().expect("temp dir");
    for (name, from) in FILES {
        std::fs::copy(root().join(from), dir.join(name)).unwrap_or_else(|e| panic!("{from}: {e}"));
    }
    let lines = readme_commands();
    assert!(lines.len() >= 15, "{lines:#?}");
    for line in &lines {
        let words = substituted(&words(line));
        let r = run(&dir, &words, input(line));
        check(line, &dir, &r);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn readme_lines_split_as_the_shell_splits_them() {
    assert_eq!(
        without_comment("shaderdbg run my_effect.frag      # a lone shader"),
        "shaderdbg run my_effect.frag"
    );
    assert_eq!(without_comment("a 'b # c' # d"), "a 'b # c'");
    assert_eq!(
        words("run --dprintf 'shader.frag:30:n={n} d={dot(n, l)}' -- ./app"),
        [
            "run",
            "--dprintf",
            "shader.frag:30:n={n} d={dot(n, l)}",
            "--",
            "./app"
        ]
    );
    assert_eq!(words("a:'x > 1'b \"c d\""), ["a:x > 1b", "c d"]);
}
