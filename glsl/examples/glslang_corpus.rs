//! The engine on glslang's test corpus: how many valid shaders it accepts and
//! how many invalid ones it rejects (on the line glslang reports).
//!
//! ```text
//! glsl/tests/corpus/fetch-glslang.sh            # clones glslang's Test/ (pinned)
//! cargo run -p shaderdbg-glsl --example glslang_corpus -- [DIR] [--false-errors] [--missed] [--list] [--stray] [--group desktop|es|vulkan]
//! ```
//!
//! DIR defaults to `$SHADERDBG_GLSLANG` or where the script puts it. What is
//! counted and how is described in `tests/corpus/measure.rs`.

#[path = "../tests/corpus/measure.rs"]
mod measure;

use std::path::PathBuf;
use std::process::ExitCode;

use measure::Group;

fn main() -> ExitCode {
    let mut dir = None;
    let mut false_errors = false;
    let mut missed = false;
    let mut list = false;
    let mut stray = false;
    let mut group = Group::Desktop;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--false-errors" => false_errors = true,
            "--missed" => missed = true,
            "--list" => list = true,
            "--stray" => stray = true,
            "--group" => {
                group = match args.next().as_deref() {
                    Some("desktop") => Group::Desktop,
                    Some("es") => Group::Es,
                    Some("vulkan") => Group::Vulkan,
                    other => {
                        eprintln!("--group: desktop, es or vulkan, not {other:?}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            _ => dir = Some(PathBuf::from(a)),
        }
    }
    let dir = dir.unwrap_or_else(measure::default_dir);
    let results = match measure::measure(&dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "{}: {e} (fetch the corpus with glsl/tests/corpus/fetch-glslang.sh)",
                dir.display()
            );
            return ExitCode::FAILURE;
        }
    };
    print!("{}", measure::report(&results));
    if list {
        println!();
        for r in results.iter().filter(|r| r.group == group) {
            let expected = match &r.expected {
                measure::Expected::Valid => "valid",
                measure::Expected::LinkOnly => "link-only",
                measure::Expected::Invalid(_) if r.on_right_line() => "invalid, right line",
                measure::Expected::Invalid(_) => "invalid",
            };
            let ours = r
                .ours
                .first()
                .map_or("accepted".to_string(), |(l, m)| format!("{l}: {m}"));
            println!("{} [{expected}] {ours}", r.name);
        }
    }
    if stray {
        println!(
            "\nour errors off glslang's lines in invalid files ({}):",
            group.name()
        );
        for r in results.iter().filter(|r| r.group == group) {
            let measure::Expected::Invalid(lines) = &r.expected else {
                continue;
            };
            for (l, m) in r
                .ours
                .iter()
                .filter(|(l, _)| !lines.is_empty() && !lines.contains(l))
            {
                println!("{}:{l}: {m}", r.name);
            }
        }
    }
    if false_errors {
        println!("\nfalse errors ({}):", group.name());
        for l in measure::false_errors(&results, group) {
            println!("{l}");
        }
    }
    if missed {
        println!(
            "\ninvalid, not rejected on an expected line ({}):",
            group.name()
        );
        for l in measure::missed(&results, group) {
            println!("{l}");
        }
    }
    ExitCode::SUCCESS
}
