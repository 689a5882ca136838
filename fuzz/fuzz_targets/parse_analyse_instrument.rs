//! bytes -> lossy UTF-8 -> parse (fragment) -> analyse -> instrument (Plain,
//! Record, HitTest on the first step) -> decode logs derived from the input
//! against the probe table, and query every step of the traces.
//!
//! Run: `cargo +nightly fuzz run parse_analyse_instrument` (from `fuzz/`'s
//! parent), or `RUSTC_BOOTSTRAP=1 cargo fuzz run ...` on stable.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shaderdbg_glsl::analysis::Model;
use shaderdbg_core::decode::decode;
use shaderdbg_core::Invocation;
use shaderdbg_glsl::instrument::{instrument, Breakpoint, Mode, Request, Target};
use shaderdbg_core::layout::HEADER_WORDS;
use shaderdbg_glsl::parse::parse;
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_glsl::Stage;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let Ok(parsed) = parse(&[&src], Stage::Fragment, None) else {
        return;
    };
    let model = Model::analyze(&parsed);
    drop(model);
    let request = |mode| Request {
        mode,
        target: Target::COMPAT,
        binding: 7,
    };
    let Ok(plain) = instrument(&parsed, &request(Mode::Plain)) else {
        // Unsupported version for the target: nothing else can work either.
        return;
    };
    let record = instrument(
        &parsed,
        &request(Mode::Record(Invocation::fragment(1, 2))),
    );
    if let Some(step) = plain.probes.probes.iter().find(|p| p.is_step()) {
        for condition in [None, Some("gl_FragCoord.x > 1.0".to_string())] {
            let _ = instrument(
                &parsed,
                &request(Mode::HitTest(vec![Breakpoint {
                    probe: step.id,
                    condition,
                }])),
            );
        }
    }
    if let Ok(out) = record {
        assert_eq!(out.probes.probes.len(), plain.probes.probes.len());
        let raw: Vec<u32> = data
            .chunks(4)
            .map(|c| c.iter().rev().fold(0u32, |w, b| (w << 8) | u32::from(*b)))
            .collect();
        query_everything(&raw, &out.probes);
        query_everything(&structured(data, &out.probes), &out.probes);
    }
});

/// A record buffer whose entries name real probes, chosen by the input bytes,
/// with payloads of the probe's size taken from the input.
fn structured(data: &[u8], table: &ProbeTable) -> Vec<u32> {
    let n = table.probes.len();
    let mut words = vec![0u32; HEADER_WORDS];
    if n == 0 {
        return words;
    }
    let mut bytes = data.iter().copied().cycle();
    let mut next = || bytes.next().unwrap_or(0);
    for _ in 0..data.len().min(512) {
        let b = next();
        let id = 1 + (usize::from(b) * 7 + usize::from(next())) % n;
        words.push(id as u32);
        words.push(u32::from(next() % 3));
        for _ in 0..table.probes[id - 1].payload_words() {
            words.push(u32::from_le_bytes([next(), next(), next(), next()]));
        }
    }
    let len = (words.len() - HEADER_WORDS) as u32;
    words[0] = len;
    words[1] = len;
    words[2] = u32::from(data.first().is_some_and(|b| b & 1 == 1));
    words[3] = 1;
    words
}

fn query_everything(words: &[u32], table: &ProbeTable) {
    let Ok(trace) = decode(words, table) else {
        return;
    };
    for inv in &trace.invocations {
        for step in 0..=inv.steps.len() {
            let _ = inv.variables_at(step, table);
            let _ = inv.call_stack(step);
            let _ = inv.writes_of(step).count();
        }
    }
}
