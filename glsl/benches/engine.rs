//! Engine benchmarks: `cargo bench -p shaderdbg-glsl`.
//!
//! Plain `Instant` loops; each figure is the median of N runs, one line each.
//!
//! - parse + analyse a generated ~8,000-line shader, against `glslangValidator`
//!   compiling the same file (process runs, median of N);
//! - instrument a ~1,000-line shader for a recording (target: under 10 ms);
//! - decode a synthesized 100,000-step record log (target: under 20 ms), and the
//!   variable state at its last step;
//! - the sanitizer's dispatch time over the plain one on compute kernels
//!   (`sanitize/`; target: at most 10x).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use shaderdbg_core::decode::{decode, Exit};
use shaderdbg_core::layout::HEADER_WORDS;
use shaderdbg_core::probes::{Probe, ProbeKind, ProbeTable};
use shaderdbg_core::Invocation;
use shaderdbg_glsl::analysis::Model;
use shaderdbg_glsl::instrument::{instrument, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

mod sanitize;
mod support;

use shaderdbg_test_support::bench::median;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then
    // run each figure once, as a smoke test.
    let bench = std::env::args().any(|a| a == "--bench");
    let runs = if bench { 10 } else { 1 };
    // `cargo bench -p shaderdbg-glsl -- sanitize`: the figures whose name
    // has a word given (all without one).
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| words.is_empty() || words.iter().any(|w| name.contains(w.as_str()));
    if wanted("parse") {
        parse_and_analyse(runs);
    }
    if wanted("instrument") {
        instrument_record(if bench { 20 } else { 1 });
    }
    if wanted("decode") {
        decode_log(runs);
        five_megabytes(if bench { 3 } else { 1 });
    }
    if wanted("sanitize") {
        // Words after `sanitize` pick its kernels by name.
        let kernels: Vec<String> = words.iter().filter(|w| *w != "sanitize").cloned().collect();
        sanitize::sanitize_overhead(if bench { 9 } else { 1 }, &kernels);
    }
}

fn parse_and_analyse(runs: usize) {
    let src = support::large_shader(8000);
    let (lines, kb) = support::size_of(&src);

    let parsed = parse(&[&src], Stage::Fragment, None).expect("generated shader parses");
    let model = Model::analyze(&parsed);
    let errors: Vec<String> = model.errors().map(|d| d.to_string()).collect();
    assert!(errors.is_empty(), "generated shader: {errors:#?}");

    let ours = median(runs, || {
        let parsed = parse(&[&src], Stage::Fragment, None).unwrap();
        let model = Model::analyze(&parsed);
        (parsed, model.diagnostics.len())
    });
    println!(
        "parse+analyse {lines} lines ({kb} KB): {:.1} ms median of {runs}",
        ms(ours)
    );

    let dir = std::env::temp_dir().join(format!("shaderdbg-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("large.frag");
    std::fs::write(&file, &src).expect("write shader");
    let trivial = dir.join("trivial.frag");
    std::fs::write(&trivial, "#version 450 core\nvoid main() {}\n").expect("write shader");
    match glslang(&file) {
        Err(why) => println!("glslangValidator: not measured ({why})"),
        Ok(()) => {
            let theirs = median(runs, || glslang(&file).unwrap());
            let startup = median(runs, || glslang(&trivial).unwrap());
            println!(
                "glslangValidator {lines} lines ({kb} KB): {:.1} ms median of {runs} (process runs)",
                ms(theirs)
            );
            support::print_glslang_ratio("ours", ours, theirs, startup);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The whole front end on a 5 MB shader (the bad-input test's size).
fn five_megabytes(runs: usize) {
    let src = support::large_shader(5_000_000 / 29);
    let (lines, kb) = support::size_of(&src);
    let req = record_request();
    let t = median(runs, || {
        let parsed = parse(&[&src], Stage::Fragment, None).unwrap();
        let errors = Model::analyze(&parsed).errors().count();
        assert_eq!(errors, 0);
        instrument(&parsed, &req).unwrap().probes.probes.len()
    });
    println!(
        "parse+analyse+instrument {lines} lines ({kb} KB): {:.0} ms median of {runs}",
        ms(t)
    );
}

/// Compiles a shader with glslangValidator; `Err` if it cannot run, a
/// panic if it rejects the shader.
fn glslang(file: &Path) -> std::io::Result<()> {
    let out = Command::new("glslangValidator").arg(file).output()?;
    if out.status.success() {
        Ok(())
    } else {
        panic!(
            "glslangValidator rejects the generated shader ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout)
        )
    }
}

fn record_request() -> Request {
    Request {
        mode: Mode::Record(Invocation::fragment(3, 5)),
        target: Target::CORE,
        binding: 7,
    }
}

fn instrument_record(runs: usize) {
    let src = support::large_shader(1000);
    let (lines, kb) = support::size_of(&src);
    let parsed = parse(&[&src], Stage::Fragment, None).expect("parses");
    let req = record_request();
    let t = median(runs, || instrument(&parsed, &req).expect("instruments"));
    println!(
        "instrument (record, fragment) {lines} lines ({kb} KB): {:.2} ms median of {runs} (target < 10 ms)",
        ms(t)
    );
}

/// The probes of one function, by kind.
struct FunctionProbes<'a> {
    entry: &'a Probe,
    steps: Vec<&'a Probe>,
    writes: Vec<&'a Probe>,
    ret: Option<&'a Probe>,
}

fn function_probes(table: &ProbeTable, f: usize) -> Option<FunctionProbes<'_>> {
    let of = |k: fn(&ProbeKind) -> bool| {
        table
            .probes
            .iter()
            .filter(move |p| p.function == Some(f) && k(&p.kind))
    };
    Some(FunctionProbes {
        entry: of(|k| *k == ProbeKind::FunctionEntry).next()?,
        steps: of(|k| *k == ProbeKind::Statement).collect(),
        writes: of(|k| matches!(k, ProbeKind::Write { .. })).collect(),
        ret: of(|k| *k == ProbeKind::FunctionReturn).next(),
    })
}

/// Appends one log entry for `p` (tag 0) with a payload of the probe's size.
fn push_entry(log: &mut Vec<u32>, p: &Probe, seq: &mut u32) {
    log.push(p.id);
    log.push(0);
    for _ in 0..p.payload_words() {
        *seq = seq.wrapping_add(1);
        log.push((*seq as f32 * 0.25).to_bits());
    }
}

/// A record buffer for one invocation that follows the probe table: it starts,
/// enters `main`, logs its inputs, then runs `steps` steps of `main`, each with a
/// write, calling another function (entry, three steps with writes, return)
/// every tenth step, and returns from `main`.
fn synthesize_log(table: &ProbeTable, steps: usize) -> Vec<u32> {
    let main = table
        .functions
        .iter()
        .position(|f| f.name == "main")
        .expect("main");
    let m = function_probes(table, main).expect("main probes");
    assert!(!m.steps.is_empty() && !m.writes.is_empty());
    let callees: Vec<FunctionProbes> = (0..table.functions.len())
        .filter(|&f| f != main)
        .filter_map(|f| function_probes(table, f))
        .filter(|f| f.ret.is_some() && !f.steps.is_empty())
        .collect();
    assert!(!callees.is_empty());
    let start = table
        .probes
        .iter()
        .find(|p| p.kind == ProbeKind::InvocationStart)
        .expect("invocation start");

    let mut log = vec![0u32; HEADER_WORDS];
    let mut seq = 0;
    push_entry(&mut log, start, &mut seq);
    push_entry(&mut log, m.entry, &mut seq);
    for p in table
        .probes
        .iter()
        .filter(|p| matches!(p.kind, ProbeKind::Input { .. }))
    {
        push_entry(&mut log, p, &mut seq);
    }
    let mut done = 0;
    let mut i = 0;
    while done < steps {
        push_entry(&mut log, m.steps[i % m.steps.len()], &mut seq);
        push_entry(&mut log, m.writes[i % m.writes.len()], &mut seq);
        done += 1;
        if i % 10 == 9 {
            let f = &callees[(i / 10) % callees.len()];
            push_entry(&mut log, f.entry, &mut seq);
            for k in 0..3.min(steps - done) {
                push_entry(&mut log, f.steps[k % f.steps.len()], &mut seq);
                if !f.writes.is_empty() {
                    push_entry(&mut log, f.writes[k % f.writes.len()], &mut seq);
                }
                done += 1;
            }
            push_entry(&mut log, f.ret.unwrap(), &mut seq);
        }
        i += 1;
    }
    push_entry(
        &mut log,
        m.ret.expect("void main has a return probe"),
        &mut seq,
    );
    let data = (log.len() - HEADER_WORDS) as u32;
    log[0] = data; // len
    log[1] = data; // cap
    log[2] = 0; // no overflow
    log[3] = 1; // invocations
    log
}

fn decode_log(runs: usize) {
    const STEPS: usize = 100_000;
    let src = support::large_shader(1000);
    let parsed = parse(&[&src], Stage::Fragment, None).expect("parses");
    let table = instrument(&parsed, &record_request())
        .expect("instruments")
        .probes;
    let log = synthesize_log(&table, STEPS);

    let trace = decode(&log, &table).expect("synthesized log decodes");
    let inv = &trace.invocations[0];
    assert_eq!(trace.invocations.len(), 1);
    assert_eq!(inv.steps.len(), STEPS);
    assert_eq!(inv.exit, Exit::Returned);

    let t = median(runs, || decode(&log, &table).unwrap());
    println!(
        "decode {STEPS}-step log ({} writes, {} KB): {:.2} ms median of {runs} (target < 20 ms)",
        inv.writes.len(),
        log.len() * 4 / 1000,
        ms(t)
    );
    let last = STEPS - 1;
    let vars = inv.variables_at(last, &table);
    assert!(!vars.is_empty());
    let t = median(runs, || inv.variables_at(last, &table));
    println!(
        "variables_at last step of {STEPS} ({} variables): {:.2} ms median of {runs}",
        vars.len(),
        ms(t)
    );
}
