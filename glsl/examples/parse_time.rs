//! Per-phase timing of the front end on the benchmark's large shader:
//! `cargo run --release -p shaderdbg-glsl --example parse_time [lines] [runs]`.
//!
//! Prints the median of each phase: glsl-lang alone (its preprocessor,
//! lexer and parser, as `parse` calls it), our `parse` (glsl-lang plus the
//! text passes around it), the limits check, the analysis, and both.

use std::time::Duration;

use glsl_lang::ast;
use glsl_lang::parse::ParseOptions;
use shaderdbg_glsl::analysis::Model;
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

#[path = "../benches/support/mod.rs"]
mod support;

/// The median and the minimum of `runs` runs (the machine may be shared:
/// the minimum is the steadier figure then).
fn median<T>(runs: usize, f: impl FnMut() -> T) -> (Duration, Duration) {
    let times = shaderdbg_test_support::bench::times(runs, f);
    (times[times.len() / 2], times[0])
}

fn ms((median, min): (Duration, Duration)) -> String {
    format!(
        "{:7.2} ms (min {:7.2} ms)",
        median.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let lines: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(8000);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(15);
    let src = support::large_shader(lines);
    let (n, kb) = support::size_of(&src);
    println!("{n} lines ({kb} KB), median of {runs}");
    let opts = ParseOptions {
        default_version: 110,
        ..Default::default()
    };
    let glsl_lang = median(runs, || {
        use glsl_lang::parse::DefaultParse;
        ast::TranslationUnit::parse_with_options(src.as_str(), &opts).unwrap()
    });
    println!("  glsl-lang (pp + lexer + parser): {}", ms(glsl_lang));
    // For comparison only: glsl-lang's minimal lexer (no preprocessor: no
    // macros, no conditionals), which the engine cannot use in general.
    let min_lexer = median(runs, || {
        use glsl_lang::parse::Parse;
        ast::TranslationUnit::parse_with_options::<glsl_lang::lexer::min::str::Lexer>(
            src.as_str(),
            &opts,
        )
        .map(|(tu, _, _)| tu.0.len())
        .expect("the generated shader has no macros")
    });
    println!("  glsl-lang, minimal lexer (no pp): {}", ms(min_lexer));
    let limits = median(runs, || shaderdbg_glsl::limits::check(&src).is_ok());
    println!("  limits::check:                   {}", ms(limits));
    let ours = median(runs, || parse(&[&src], Stage::Fragment, None).unwrap());
    println!("  parse (all):                     {}", ms(ours));
    let parsed = parse(&[&src], Stage::Fragment, None).unwrap();
    let analysis = median(runs, || Model::analyze(&parsed).diagnostics.len());
    println!("  analysis:                        {}", ms(analysis));
    let both = median(runs, || {
        let parsed = parse(&[&src], Stage::Fragment, None).unwrap();
        let model = Model::analyze(&parsed);
        (parsed, model.diagnostics.len())
    });
    println!("  parse+analyse:                   {}", ms(both));
    if std::env::var_os("PARSE_TIME_LOOP").is_some() {
        // For `perf record`: spend a while in parse + analysis.
        for _ in 0..runs * 10 {
            let parsed = parse(&[&src], Stage::Fragment, None).unwrap();
            std::hint::black_box(Model::analyze(&parsed).diagnostics.len());
        }
    }
}
