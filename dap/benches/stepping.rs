//! `next`/`stepBack` on a 100,000-step trace: the work the adapter does
//! between the request and the `stopped` event (the move through the
//! recording), and what the client asks right after it (the stack and the
//! variables at the new cursor). The trace is synthetic: a loop's two
//! statements alternating, every body step writing `acc`.
//!
//! `cargo bench -p shaderdbg-dap --bench stepping` prints the figures.

use std::time::{Duration, Instant};

use std::sync::Arc;

use shaderdbg_core::decode::{Exit, Frame, InvocationTrace, Step, Write};
use shaderdbg_core::probes::ProbeKind;
use shaderdbg_core::{Hit, HitTag, Invocation, Stage, StopReason, Value};
use shaderdbg_dap::stepping::{Move, Stopped};
use shaderdbg_glsl::instrument::probe_table;
use shaderdbg_glsl::parse::parse;
use shaderdbg_session::stop::Stop;

const SHADER: &str = "#version 330 core
out vec4 color;
void main() {
    float acc = 0.0;
    for (int i = 0; i < 50000; i++) {
        acc += float(i) * 0.5;
    }
    color = vec4(acc);
}
";

const STEPS: usize = 100_000;

fn synthetic() -> Stop {
    let parsed = parse(&[SHADER], Stage::Fragment, None).expect("parse");
    let table = probe_table(&parsed);
    let step_at = |line: u32| {
        table
            .probes
            .iter()
            .find(|p| p.kind == ProbeKind::Statement && p.line == line)
            .unwrap_or_else(|| panic!("a step on line {line}"))
            .id
    };
    let (head, body) = (step_at(5), step_at(6));
    let acc = table
        .vars
        .iter()
        .position(|v| v.name == "acc")
        .expect("acc");
    let mut steps = Vec::with_capacity(STEPS);
    let mut writes = Vec::new();
    for i in 0..STEPS {
        let (probe, line) = if i % 2 == 0 { (head, 5) } else { (body, 6) };
        steps.push(Step {
            probe,
            line,
            depth: 0,
            frame: 0,
        });
        if i % 2 == 1 {
            writes.push(Write {
                probe: body,
                step: Some(i),
                frame: 0,
                decl: acc,
                path: Vec::new(),
                value: Value::Float(i as f32),
            });
        }
    }
    let main = table.functions.iter().position(|f| f.name == "main");
    let trace = InvocationTrace {
        tag: 0,
        invocation: Some(Invocation::fragment(1, 2)),
        steps,
        frames: vec![Frame {
            function: main,
            caller: None,
            call_step: None,
        }],
        writes,
        conditions: Vec::new(),
        returns: Vec::new(),
        exit: Exit::Returned,
    };
    let hit = Hit {
        tag: HitTag::Breakpoint(0),
        probe: body,
        line: 6,
        occurrence: 0,
        invocation: Invocation::fragment(1, 2),
    };
    Stop {
        shader: 1,
        stage: Stage::Fragment,
        frame: 0,
        draw: 0,
        program: 1,
        hit,
        hits: vec![hit],
        truncated: false,
        reason: StopReason::Breakpoint,
        sanitizer: Vec::new(),
        report: 0,
        breakpoints: vec![0],
        files: Vec::new(),
        parsed: Arc::new(shaderdbg_session::stop::Source::Glsl(parsed)),
        table: Arc::new(table),
        trace,
        cursor: STEPS / 2,
    }
}

/// One move and what the client reads after it.
fn one(s: &mut Stopped, m: Move) -> usize {
    let t = s.target(m).unwrap_or(s.cursor);
    s.cursor = t;
    let stack = s.stop.call_stack(t);
    let vars = s.variables(t);
    stack.len() + vars.len()
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "{name:<40} median {:>9.3?}  p99 {:>9.3?}  max {:>9.3?}  ({} runs)",
        p(0.5),
        p(0.99),
        times[times.len() - 1],
        times.len()
    );
}

fn main() {
    let t0 = Instant::now();
    let mut s = Stopped::new(Box::new(synthetic()));
    println!(
        "trace of {} steps built and wrapped in {:?}",
        s.stop.trace.steps.len(),
        t0.elapsed()
    );
    for (name, m, start) in [
        ("next (step over), mid-trace", Move::Over, STEPS / 2),
        ("stepBack, mid-trace", Move::Back, STEPS / 2),
        ("next near the end", Move::Over, STEPS - 1000),
        ("stepBack near the end", Move::Back, STEPS - 2),
    ] {
        s.cursor = start;
        let mut times = Vec::new();
        let mut sink = 0;
        for _ in 0..500 {
            let t = Instant::now();
            sink += one(&mut s, m);
            times.push(t.elapsed());
        }
        std::hint::black_box(sink);
        report(name, times);
    }
}
