//! `shaderdbg debug` end to end: commands piped to a real `shaderdbg`, which
//! runs the demo shader in the built-in host under the real agent.

mod common;
use common::{assert_has, demo_shader};

fn session(args: &[&str], commands: &str) -> (bool, String) {
    let (ok, text, err) = common::debug_session(args, commands);
    (ok, format!("{text}\n--- stderr ---\n{err}"))
}

/// The demo's `falloff` for the first light at gl_FragCoord (200.5, 150.5)
/// of a 640x360 frame, computed here from the shader's formulas.
fn expected_falloff() -> f32 {
    let (x, y) = ((200.5f32 - 320.0) / 360.0, (150.5f32 - 180.0) / 360.0);
    let d = (x + 0.4, y);
    1.0 / (1.0 + 8.0 * (d.0 * d.0 + d.1 * d.1))
}

fn value_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(prefix))
        .collect()
}

#[test]
fn break_run_step_back_print_and_continue() {
    let file = demo_shader("interactive");
    let f = file.display();
    let commands = format!(
        "break {f}:21 if falloff > 0.5\n\
         info breakpoints\n\
         run\n\
         print falloff\n\
         next\n\
         next\n\
         back\n\
         where\n\
         info threads\n\
         info locals\n\
         print nosuch\n\
         frobnicate\n\
         continue\n\
         quit\n"
    );
    let (ok, text) = session(
        &["--pixel", "200,150", "--frame", "0", "--", &f.to_string()],
        &commands,
    );
    assert!(ok, "{text}");
    assert_has(
        &text,
        &[
            format!("1  {f}:21 if falloff > 0.5"),
            format!("stopped at {f}:21 in fragment (200,150)"),
        ],
    );
    let printed: Vec<f32> = value_after(&text, "float falloff = ")
        .into_iter()
        .filter_map(|v| v.parse().ok())
        .collect();
    assert!(!printed.is_empty(), "{text}");
    for v in &printed {
        assert!(
            (v - expected_falloff()).abs() < 1e-5,
            "{v} vs {}",
            expected_falloff()
        );
    }
    // next, next, back: the loop's next iteration, its second line, back again.
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(" | "))
        .collect();
    let numbers: Vec<u32> = lines
        .iter()
        .filter_map(|l| l.split(" | ").next()?.trim().parse().ok())
        .collect();
    assert!(
        numbers.windows(4).any(|w| w == [21, 18, 19, 18]),
        "{numbers:?}\n{text}"
    );
    assert_has(
        &text,
        &[
            format!("#0  shade at {f}:18"),
            "#1  mainImage at".into(),
            "*    1  fragment (200,150)".into(),
            "vec2 uv = (-0.33194444, -0.08194444)".into(),
            "no variable named nosuch in scope".into(),
            "unknown command `frobnicate`".into(),
            "program exited with code 0".into(),
        ],
    );
}

/// Breakpoints added at a stop bind to the running program; `thread`
/// records another invocation; `print` evaluates GLSL, and what the CPU
/// cannot (derivatives) on the GPU.
#[test]
fn breakpoints_after_run_threads_and_expressions() {
    let file = demo_shader("interactive-more");
    let f = file.display();
    // uv = (fragCoord - 0.5 * iResolution.xy) / iResolution.y: dFdx(uv.x) = 1/360.
    let commands = format!(
        "break {f}:18\n\
         run\n\
         print dFdx(uv.x) * 360.0\n\
         print vec2(uv.y, 2) * 2.0\n\
         print length(uv) > 100.0\n\
         delete 1\n\
         break {f}:21 if falloff > 0.5\n\
         continue\n\
         threads\n\
         thread 2\n\
         print falloff > 0.5\n\
         thread 999999\n\
         quit\n"
    );
    // Three frames: the breakpoint added at the first stop hits in the next.
    let host = std::path::Path::new(env!("CARGO_BIN_EXE_shaderdbg"))
        .with_file_name("shaderdbg-host")
        .display()
        .to_string();
    let (ok, text) = session(&["--", &host, &f.to_string(), "--frames", "3"], &commands);
    assert!(ok, "{text}");
    assert!(text.contains(&format!("stopped at {f}:18")), "{text}");
    let scaled: f32 = value_after(&text, "float dFdx(uv.x) * 360.0 = ")
        .first()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!((scaled - 1.0).abs() < 1e-3, "{scaled}\n{text}");
    assert_has(
        &text,
        &[
            "vec2 vec2(uv.y, 2) * 2.0 = vec2(",
            "bool length(uv) > 100.0 = false",
            &format!("stopped at {f}:21 in fragment"),
            "frame 1;",
            "     2  fragment (",
            "bool falloff > 0.5 = true",
            "no invocation 999999",
        ],
    );
}

#[test]
fn commands_that_need_a_stop_or_a_program_say_so() {
    let file = demo_shader("interactive-errors");
    let f = file.display().to_string();
    let (ok, text) = session(
        &["--", &f],
        "next\nprint x\ncontinue\nbreak nowhere.frag:3\nbreak nonsense\ninfo breakpoints\nquit\n",
    );
    assert!(ok, "{text}");
    assert_has(
        &text,
        &[
            "not stopped in a shader",
            "the program is not running; `run` starts it",
            "nowhere.frag",
            "expected FILE:LINE",
            "no breakpoints",
        ],
    );
}

#[test]
fn quitting_while_stopped_ends_the_program() {
    let file = demo_shader("interactive-quit");
    let f = file.display();
    let (ok, text) = session(
        &["--pixel", "200,150", "--", &f.to_string()],
        &format!("break {f}:21\nrun\nquit\n"),
    );
    assert!(ok, "{text}");
    assert_has(&text, &["stopped at", "program ended"]);
}

/// `debug --sanitize`: each report of a dispatch is a stop of its own;
/// `continue` goes from the first (src[] at line 12) to the second (dst[]
/// at line 13), then the program runs to its end.
#[test]
fn sanitizer_continue_goes_to_the_next_report() {
    let app = shaderdbg_test_support::app("oob_compute");
    let app = app.to_str().expect("utf-8 path");
    let (ok, text) = session(
        &["--sanitize", "oob", "--", app, "1"],
        "run\ncontinue\ncontinue\nquit\n",
    );
    assert!(ok, "{text}");
    let src = text
        .find("out-of-bounds index 32 into src[] (32 elements) at ")
        .unwrap_or_else(|| panic!("{text}"));
    let dst = text
        .find("out-of-bounds index 32 into dst[] (32 elements) at ")
        .unwrap_or_else(|| panic!("{text}"));
    let end = text
        .find("program exited with code 0")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(src < dst && dst < end, "{text}");
    assert_eq!(text.matches("into dst[]").count(), 1, "{text}");
    assert!(text[src..dst].contains(":12 in compute (7,0,0)"), "{text}");
    // At the loop's last iteration, the one out of bounds.
    assert!(text[src..dst].contains("uint k = 4u"), "{text}");
    assert!(text[dst..end].contains(":13 in compute (7,0,0)"), "{text}");
}
