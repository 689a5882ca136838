//! The sanitizer at draws (`stops.rs`, `try_sanitize`): with a sanitizer
//! filter on, a draw's fragment shader, then its vertex shader, runs
//! sanitized as a debug draw before the application's draw (writes
//! masked, the storage it writes put back), and the draw stops with
//! `StopReason::Sanitizer` where one reports something. The `fragment_ssbo`
//! app's fragments race on two storage words and the last one writes one
//! past the end of its array; with `--fixed` nothing is reported and the
//! storage buffer's checksum is the one without the debugger. Apps without
//! storage (frames compared pixel for pixel through their checksums) are
//! sanitized at every draw and their frames do not change: the sanitize
//! pass draws nothing the application sees.

mod common;

use common::debugger::{
    bp, drive, record_first_hits, run_plain, AgentLog, RecordedStop, Session, Shader, EVERY_CHECK,
};
use shaderdbg_core::decode::{Access, Memory, SanitizerKind, SanitizerReport};
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

/// What a sanitized run gave.
struct Run {
    stops: Vec<RecordedStop>,
    errors: Vec<String>,
    stdout: String,
    /// The agent's log (debug level).
    log: String,
}

impl Run {
    /// Draws the agent sanitized (its log's `sanitized:` lines).
    fn sanitized(&self) -> usize {
        self.log
            .lines()
            .filter(|l| l.contains("sanitized:"))
            .count()
    }
}

fn run(app: &str, args: &[&str], tag: &str, filters: proto::ExceptionFilters) -> Run {
    let log = AgentLog::new(&format!("sanitize-draws-{tag}"));
    let mut s = log.start(app, args, tag);
    s.send(&ToAgent::SetExceptionFilters(filters));
    let (stops, errors, stdout) = record_first_hits(s);
    Run {
        stops,
        errors,
        stdout,
        log: log.take(),
    }
}

#[test]
fn fragments_racing_on_storage_and_writing_past_its_end_stop_the_draw() {
    let r = run("fragment_ssbo", &["2"], "bug", EVERY_CHECK);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.stops.len(), 2, "one stop per frame's draw");
    for (frame, stop) in r.stops.iter().enumerate() {
        assert_eq!(stop.frame, frame as u64);
        assert_eq!(stop.reason, proto::StopReason::Sanitizer);
        assert_eq!(stop.shader.stage, proto::Stage::Fragment);
        let mark = stop.shader.line_of("seen[k + 1u] = 1u;");
        let count = stop.shader.line_of("count += 1u;");
        let last = stop.shader.line_of("last = k;");
        // The last pixel's mark is one past the end of `seen` (256 words
        // bound after `count` and `last`).
        let oob: Vec<&SanitizerReport> = stop
            .reports
            .iter()
            .filter(|r| matches!(r.kind, SanitizerKind::Oob { .. }))
            .collect();
        assert_eq!(oob.len(), 1, "{:?}", stop.reports);
        assert_eq!(
            (oob[0].line, oob[0].invocation.pixel(), oob[0].kind),
            (
                mark,
                Some([15, 15]),
                SanitizerKind::Oob {
                    index: 256,
                    bound: 256
                }
            )
        );
        // Two fragments wrote `count` (and `last`) with no order between them.
        let races: Vec<(u32, u32, Access, Access)> = stop
            .reports
            .iter()
            .filter_map(|r| match r.kind {
                SanitizerKind::Race {
                    memory: Memory::Storage { .. },
                    other_line,
                    access,
                    other_access,
                    other,
                    ..
                } => {
                    assert_ne!(other, r.invocation, "{r:?}");
                    Some((r.line, other_line, access, other_access))
                }
                _ => None,
            })
            .collect();
        assert!(
            races
                .iter()
                .any(|(l, o, _, _)| [count, last].contains(l) && [count, last].contains(o)),
            "{races:?}"
        );
        assert!(
            races
                .iter()
                .all(|(_, _, a, o)| *a == Access::Write || *o == Access::Write),
            "{races:?}"
        );
        // The first hit's fragment records like any stop's and reaches its
        // report's statement.
        let words = stop.recording.clone().expect("a recording");
        let (trace, _) = stop.shader.decode(&words);
        assert_eq!(trace.invocations.len(), 1);
        assert_eq!(
            trace.invocations[0].invocation,
            Some(stop.hits[0].invocation)
        );
        assert!(trace.invocations[0]
            .steps
            .iter()
            .any(|s| s.probe == stop.hits[0].probe));
    }
    // The shadow is sized from the bound storage (2 + 256 words), not the
    // default 65,536 slots.
    assert!(r.log.contains("slots=258"), "{}", r.log);
}

#[test]
fn a_fixed_fragment_shader_runs_sanitized_and_its_storage_is_the_applications() {
    let args = ["3", "--fixed"];
    let r = run("fragment_ssbo", &args, "fixed", EVERY_CHECK);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert!(
        r.stops.is_empty(),
        "{:?}",
        r.stops.iter().map(|s| &s.reports).collect::<Vec<_>>()
    );
    // Fragment and vertex shader of each frame's draw.
    assert_eq!(r.sanitized(), 6, "{}", r.log);
    // The sanitize pass's own atomics and marks were put back: the
    // application's buffer is as without the debugger.
    assert_eq!(r.stdout, run_plain("fragment_ssbo", &args));
}

#[test]
fn sanitized_draws_leave_every_frame_as_without_the_debugger() {
    for (app, args) in [
        ("features", &["plain", "3", "64", "48"][..]),
        ("features", &["tf", "2", "64", "48"]),
        ("features", &["queries", "2", "64", "48"]),
        ("vertex_displace", &["2"]),
        ("multi_pass", &["2", "32"]),
    ] {
        let tag = format!("frames-{}", args[0]);
        let r = run(app, args, &tag, EVERY_CHECK);
        assert!(r.errors.is_empty(), "{app} {args:?}: {:?}", r.errors);
        assert!(r.stops.is_empty(), "{app} {args:?}: a stop");
        assert!(r.sanitized() > 0, "{app} {args:?}: nothing sanitized");
        assert_eq!(
            r.stdout,
            run_plain(app, args),
            "{app} {args:?}: the frames differ under the sanitizer"
        );
    }
}

/// The stop reasons of `fragment_ssbo 2` under every check with a
/// breakpoint on the fragment shader's last line, with `condition`.
fn reasons_with_a_breakpoint(condition: &str, tag: &str) -> Vec<(u64, proto::StopReason)> {
    let mut s = Session::start("fragment_ssbo", &["2"], tag);
    s.send(&ToAgent::SetExceptionFilters(EVERY_CHECK));
    let mut reasons = Vec::new();
    drive(s, |s, msg, shaders| match msg {
        FromAgent::ShaderCompiled {
            shader,
            stage: proto::Stage::Fragment,
            ..
        } => {
            let line = Shader::find(shaders, *shader).line_of("color = vec4(1.0);");
            s.send(&ToAgent::SetBreakpoints {
                shader: *shader,
                breakpoints: vec![bp(line, Some(condition))],
            });
        }
        FromAgent::Stopped { frame, reason, .. } => reasons.push((*frame, *reason)),
        FromAgent::Error { message, .. } => panic!("agent error: {message}"),
        _ => {}
    });
    reasons
}

/// A breakpoint and the sanitizer at the same draw: the breakpoint wins
/// (the draw that stopped for it is not sanitized); where it does not hit,
/// the draw is sanitized and stops for the sanitizer (its hit test then
/// runs in two passes, before the sanitize pass and the application's draw).
#[test]
fn a_breakpoint_wins_over_the_sanitizer_at_the_same_draw() {
    let hit = "uint(gl_FragCoord.x) == 3u && uint(gl_FragCoord.y) == 4u";
    assert_eq!(
        reasons_with_a_breakpoint(hit, "bp-hit"),
        [
            (0, proto::StopReason::Breakpoint),
            (1, proto::StopReason::Breakpoint)
        ]
    );
    assert_eq!(
        reasons_with_a_breakpoint("gl_FragCoord.x < 0.0", "bp-never"),
        [
            (0, proto::StopReason::Sanitizer),
            (1, proto::StopReason::Sanitizer)
        ]
    );
}
