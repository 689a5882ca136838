//! The agent and a scripted debugger over the real socket protocol: a real
//! program (`single_pass`) runs under the preload; the test sets a conditional
//! breakpoint when the fragment shader is announced, stops in frame 1, checks
//! which fragments hit, records one, captures a watch image, resumes, and
//! checks that the program's frames are identical to a run without the agent.

mod common;

use shaderdbg_core::decode::{decode, Exit};
use shaderdbg_core::{Invocation, Stage, Type, Value};
use shaderdbg_glsl::instrument::probe_table;
use shaderdbg_glsl::parse::parse;
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

use common::debugger::{debug, run_plain, Session, Shader, Stop};

const SIZE: u32 = 64;

/// `single_pass FRAMES SIZE` under the agent, connected.
fn start(tag: &str, frames: u32) -> Session {
    let args = [frames.to_string(), SIZE.to_string()];
    Session::start("single_pass", &[&args[0], &args[1]], tag)
}

fn checksums_without_agent(frames: u32) -> String {
    run_plain("single_pass", &[&frames.to_string(), &SIZE.to_string()])
}

#[test]
fn conditional_breakpoint_stops_records_and_resumes() {
    let frames = 3;
    let args = [frames.to_string(), SIZE.to_string()];
    let filter = proto::StopFilter {
        frame: Some(1),
        ..Default::default()
    };
    let on_shader = |sh: &Shader| match sh.stage {
        proto::Stage::Fragment => vec![proto::LineBreakpoint {
            id: 7,
            line: sh.line_of("float ring"),
            condition: Some("p.x > 1.5".into()),
        }],
        _ => Vec::new(),
    };
    let out = debug(
        "single_pass",
        &[&args[0], &args[1]],
        "bp",
        filter,
        on_shader,
        check_stop,
    );
    assert!(out.errors.is_empty(), "agent errors: {:?}", out.errors);
    let fragment = out
        .shaders
        .iter()
        .find(|sh| sh.stage == proto::Stage::Fragment)
        .expect("fragment shader announced");
    assert_eq!(out.stops.len(), 1, "one draw per frame, frame 1 only");
    assert_eq!(out.stops[0].2, fragment.id);
    let statuses: Vec<_> = out.statuses.iter().map(|s| (s.2, s.3.clone())).collect();
    assert_eq!(statuses, vec![(Some(9), None)]);
    assert_eq!(
        out.stdout,
        checksums_without_agent(frames),
        "frames differ under the debugger"
    );
}

/// The stop of `conditional_breakpoint_stops_records_and_resumes`: which
/// fragments hit, one recording, one watch image.
fn check_stop(s: &mut Session, stop: &Stop) {
    let (sources, hits, probes) = (&stop.shader.sources, &stop.hits, &stop.probes);
    assert_eq!(stop.frame, 1, "the stop filter allows frame 1 only");
    assert!(!stop.truncated);
    let ring = stop.shader.line_of("float ring");
    // (x + 0.5) / 32 > 1.5  <=>  x >= 48: 16 columns of 64 rows, in y-then-x order.
    let want: Vec<[u32; 2]> = (0..SIZE)
        .flat_map(|y| (48..SIZE).map(move |x| [x, y]))
        .collect();
    let got: Vec<[u32; 2]> = hits.iter().filter_map(|h| h.invocation.pixel()).collect();
    assert_eq!(got, want);
    assert!(hits.iter().all(|h| h.line == ring && h.occurrence == 0));
    // Hits carry the id the debugger gave their breakpoint.
    assert!(hits.iter().all(|h| h.tag == proto::HitTag::Breakpoint(7)));

    // Record one fragment and check its values against the shader's math.
    s.send(&ToAgent::Record {
        request: 1,
        selector: Invocation::fragment(50, 10),
    });
    let log = match s.recv() {
        Some(FromAgent::Recorded {
            request: 1, log, ..
        }) => log,
        other => panic!("expected a recording, got {other:?}"),
    };
    let strings: Vec<&str> = sources.iter().map(String::as_str).collect();
    let parsed = parse(&strings, Stage::Fragment, None).expect("parses");
    let table = probe_table(&parsed);
    // The contract between agent and session: the table in
    // `Stopped` is the one the agent instrumented with, and the
    // engine gives the same table for the same sources.
    assert_eq!(*probes, table, "the agent's probe table");
    assert!(hits.iter().all(|h| table
        .get(h.probe)
        .is_some_and(|p| p.is_step() && p.line == ring)));
    let trace = decode(&log.words(), probes).expect("decodes");
    let inv = &trace.invocations[0];
    assert_eq!(inv.exit, Exit::Returned);
    assert_eq!(inv.invocation.and_then(|i| i.pixel()), Some([50, 10]));
    let last = inv.steps.len() - 1;
    let vars = inv.variables_at(last, &table);
    let get = |name: &str| {
        vars.iter()
            .find(|(d, _)| table.vars[*d].name == name)
            .and_then(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{name}"))
    };
    let p = [50.5f32 / 32.0, 10.5 / 32.0];
    assert_eq!(
        get("p"),
        Value::List(vec![Value::Float(p[0]), Value::Float(p[1])])
    );
    assert_eq!(
        get("t"),
        Value::Float(0.125),
        "the frame uniform was copied"
    );
    assert_eq!(get("frame"), Value::Int(1));

    // A watch image of p.x over the whole draw.
    let color_line = stop.shader.line_of("color = vec4");
    s.send(&ToAgent::Watch {
        request: 2,
        line: color_line,
        expr: "p.x".into(),
    });
    match s.recv() {
        Some(FromAgent::WatchImage {
            request: 2,
            width,
            height,
            ty,
            value_words,
            data,
            ..
        }) => {
            assert_eq!((width, height, value_words), (SIZE, SIZE, 1));
            assert_eq!(ty, Type::Scalar(shaderdbg_core::Scalar::Float));
            let words = data.words();
            for (x, y) in [(0u32, 0u32), (63, 5), (17, 40)] {
                let at = 4 + ((y * SIZE + x) * 2) as usize;
                assert_eq!(words[at], 1, "({x},{y}) reached once");
                assert_eq!(f32::from_bits(words[at + 1]), (x as f32 + 0.5) / 32.0);
            }
        }
        other => panic!("expected a watch image, got {other:?}"),
    }
}

#[test]
fn a_debugger_that_hangs_up_mid_stop_lets_the_program_finish() {
    let frames = 3;
    let mut s = start("hangup", frames);
    loop {
        match s.recv() {
            Some(FromAgent::ShaderCompiled {
                shader,
                stage,
                sources,
                ..
            }) => {
                if stage == proto::Stage::Fragment {
                    let sh = Shader {
                        id: shader,
                        stage,
                        sources,
                    };
                    let line = sh.line_of("color = vec4");
                    s.send(&ToAgent::SetBreakpoints {
                        shader,
                        breakpoints: vec![proto::LineBreakpoint {
                            id: 7,
                            line,
                            condition: None,
                        }],
                    });
                }
                s.send(&ToAgent::Resume);
            }
            Some(FromAgent::Stopped { .. }) => break,
            Some(_) => {}
            None => panic!("the program ended without stopping"),
        }
    }
    // Hang up while the program is blocked inside its draw.
    let out = s.finish();
    assert_eq!(out, checksums_without_agent(frames));
}
