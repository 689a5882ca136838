//! Engine benchmarks: `cargo bench -p shaderdbg-wgsl`.
//!
//! Plain `Instant` loops, median of N runs, one line per figure:
//! parse + validate a generated ~1,000-line WGSL module, its probe table,
//! and instrumenting it for a recording (issue 12's target: under 20 ms),
//! with the GLSL naga emits for it.

use std::fmt::Write;
use std::time::Duration;

use shaderdbg_core::Invocation;
use shaderdbg_wgsl::emit::to_glsl;
use shaderdbg_wgsl::{instrument, parse, probe_table, Mode, Request};

use shaderdbg_test_support::bench::median;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A module of `functions` chained functions (~22 lines each) and a fragment
/// entry point calling the last one.
fn large_module(functions: usize) -> String {
    let mut s =
        String::from("struct P {\n    a: f32,\n    b: vec3<f32>,\n    n: array<f32, 4>,\n}\n\n");
    for i in 0..functions {
        let tail = if i == 0 {
            "s".to_string()
        } else {
            format!("s + g{}(x * 0.5, io)", i - 1)
        };
        let _ = write!(
            s,
            "fn g{i}(x: f32, io: ptr<function, P>) -> f32 {{
    var s = 0.0;
    let k = x * {i}.0;
    for (var j = 0; j < 4; j++) {{
        if f32(j) > k {{
            break;
        }}
        s += sin(k + f32(j));
        (*io).n[j] = s;
    }}
    switch i32(k) % 3 {{
        case 0: {{ s *= 2.0; }}
        case 1: {{ s -= 1.0; }}
        default: {{ s = select(s, -s, s > 1.0); }}
    }}
    (*io).a += s;
    (*io).b = vec3<f32>(s, k, x);
    if s > 100.0 {{
        return s;
    }}
    return {tail};
}}

"
        );
    }
    let _ = write!(
        s,
        "@fragment
fn fs_main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {{
    var p: P;
    let v = g{}(pos.x, &p);
    return vec4<f32>(v, p.a, p.b.x, 1.0);
}}
",
        functions - 1
    );
    s
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then
    // each figure runs once, as a smoke test.
    let bench = std::env::args().any(|a| a == "--bench");
    let runs = if bench { 20 } else { 1 };
    let src = large_module(45);
    let lines = src.lines().count();
    let parsed = parse(&src).expect("generated module parses");
    let req = Request {
        entry_point: "fs_main".to_string(),
        mode: Mode::Record(Invocation::fragment(1, 2)),
        group: 0,
        binding: 7,
        only: None,
    };
    let t = median(runs, || parse(&src).map(|p| p.module.functions.len()));
    println!(
        "parse+validate {lines} lines: {:.2} ms median of {runs}",
        ms(t)
    );
    let t = median(runs, || {
        probe_table(&parsed, "fs_main").map(|t| t.probes.len())
    });
    println!(
        "probe table {lines} lines: {:.2} ms median of {runs}",
        ms(t)
    );
    let t = median(runs, || {
        instrument(&parsed, &req).map(|i| i.probes.probes.len())
    });
    println!(
        "instrument for a recording {lines} lines (validated): {:.2} ms median of {runs} (target < 20 ms)",
        ms(t)
    );
    let inst = instrument(&parsed, &req).expect("instruments");
    let t = median(runs, || {
        to_glsl(&inst, &Default::default()).map(|g| g.len())
    });
    println!("emit GLSL {lines} lines: {:.2} ms median of {runs}", ms(t));
}
