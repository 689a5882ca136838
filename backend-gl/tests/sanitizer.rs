//! The sanitizer's exception filters end to end over the real socket: the
//! `oob_compute` app's off-by-one kernel stops with `StopReason::Sanitizer`
//! at every dispatch, with reports naming the line, the invocation, the
//! index and the bound; the reported invocation records like any stop's;
//! and the app's output is identical with and without the debugger (the
//! sanitized dispatch is a debug dispatch: the application's buffers are
//! put back and its own dispatch runs as usual). A program without the bug
//! (`compute`) runs under every check with no stop and identical output.
//! The `race_compute` app's reduction without a barrier stops with a race
//! report naming both invocations and both lines; with the barrier
//! (`--fixed`) it runs under every check without stopping.

mod common;

use common::debugger::{
    final_values, record_first_hits, run_plain, RecordedStop, Session, EVERY_CHECK, NO_FILTERS,
};
use shaderdbg_core::decode::{Access, SanitizerKind};
use shaderdbg_protocol::{self as proto, ToAgent};

/// Runs `app` with `filters`, recording the first hit's invocation at
/// every stop; the stops and the app's stdout.
fn run(app: &str, args: &[&str], filters: proto::ExceptionFilters) -> (Vec<RecordedStop>, String) {
    let mut s = Session::start(app, args, "sanitize");
    s.send(&ToAgent::SetExceptionFilters(filters));
    let (seen, errors, stdout) = record_first_hits(s);
    assert!(errors.is_empty(), "agent errors: {errors:?}");
    (seen, stdout)
}

const OOB_ONLY: proto::ExceptionFilters = proto::ExceptionFilters {
    sanitize_oob: true,
    ..NO_FILTERS
};

#[test]
fn off_by_one_kernel_stops_at_the_line_with_the_invocation_index_and_bound() {
    let (seen, stdout) = run("oob_compute", &["2"], OOB_ONLY);
    assert_eq!(
        stdout,
        run_plain("oob_compute", &["2"]),
        "the app's results differ under the sanitizer"
    );
    assert_eq!(seen.len(), 2, "one stop per dispatch");
    for (frame, stop) in seen.iter().enumerate() {
        assert_eq!(stop.frame, frame as u64);
        assert_eq!(stop.reason, proto::StopReason::Sanitizer);
        let read = stop.shader.line_of("float v = src[base + k];");
        let write = stop.shader.line_of("dst[base + k] =");
        let seven = proto::Invocation::Compute { id: [7, 0, 0] };
        let got: Vec<(u32, proto::Invocation, SanitizerKind)> = stop
            .reports
            .iter()
            .map(|r| (r.line, r.invocation, r.kind))
            .collect();
        let oob = SanitizerKind::Oob {
            index: 32,
            bound: 32,
        };
        assert_eq!(got, vec![(read, seven, oob), (write, seven, oob)]);
        // One hit per report, naming its invocation and statement.
        let hits: Vec<(proto::HitTag, u32, u32, proto::Invocation)> = stop
            .hits
            .iter()
            .map(|h| (h.tag, h.probe, h.line, h.invocation))
            .collect();
        let want: Vec<(proto::HitTag, u32, u32, proto::Invocation)> = stop
            .reports
            .iter()
            .enumerate()
            .map(|(i, r)| (proto::HitTag::Breakpoint(i as u32), r.probe, r.line, seven))
            .collect();
        assert_eq!(hits, want);
        // The reported invocation records as at any stop, and its trace
        // reaches the reported statement with the chunk's base.
        let words = stop.recording.clone().expect("a recording");
        let (trace, table) = stop.shader.decode(&words);
        let inv = &trace.invocations[0];
        assert_eq!(inv.invocation, Some(seven));
        assert!(
            inv.steps.iter().any(|s| s.probe == stop.reports[0].probe),
            "the recording reaches the reported statement"
        );
        assert_eq!(
            final_values(inv, &table).get("base"),
            Some(&shaderdbg_core::Value::Uint(28))
        );
    }
}

#[test]
fn a_kernel_without_bugs_runs_under_every_check_without_stopping() {
    let (seen, stdout) = run("compute", &["2", "64"], EVERY_CHECK);
    assert!(seen.is_empty(), "{} stops", seen.len());
    assert_eq!(stdout, run_plain("compute", &["2", "64"]));
    // The buggy kernel has no shared memory: the uninitialized-read check
    // alone finds nothing.
    let uninit = proto::ExceptionFilters {
        sanitize_oob: false,
        ..EVERY_CHECK
    };
    let (seen, stdout) = run("oob_compute", &["2"], uninit);
    assert!(seen.is_empty(), "{} stops", seen.len());
    assert_eq!(stdout, run_plain("oob_compute", &["2"]));
}

#[test]
fn reduction_without_a_barrier_stops_with_both_invocations() {
    let race = proto::ExceptionFilters {
        sanitize_race: true,
        ..proto::ExceptionFilters::default()
    };
    let (seen, stdout) = run("race_compute", &["2"], race);
    assert_eq!(stdout, run_plain("race_compute", &["2"]));
    assert_eq!(seen.len(), 2, "one stop per dispatch");
    for stop in &seen {
        assert_eq!(stop.reason, proto::StopReason::Sanitizer);
        let read = stop.shader.line_of("float other = tile[i + s];");
        let write = stop.shader.line_of("tile[i] = tile[i] + other;");
        assert_eq!(stop.reports.len(), 1, "{:?}", stop.reports);
        let r = &stop.reports[0];
        let SanitizerKind::Race {
            element,
            access,
            other,
            other_line,
            other_access,
            ..
        } = r.kind
        else {
            panic!("not a race: {r:?}");
        };
        assert_eq!(
            (r.line, access, other_line, other_access),
            (read, Access::Read, write, Access::Write)
        );
        // Invocation i read tile[i + s], which invocation i + s (of the same
        // work group) wrote a step before.
        let (proto::Invocation::Compute { id }, proto::Invocation::Compute { id: o }) =
            (r.invocation, other)
        else {
            panic!("not compute invocations: {r:?}");
        };
        assert_eq!(id[0] / 16, o[0] / 16, "one work group");
        let (i, j) = (id[0] % 16, o[0] % 16);
        assert!([4, 2, 1].contains(&(j - i)) && i < j - i, "{r:?}");
        assert_eq!(element, j);
        // A hit for each invocation, at its access: the reader (it records
        // like any stop's), then the writer.
        let hits: Vec<(u32, proto::Invocation)> =
            stop.hits.iter().map(|h| (h.line, h.invocation)).collect();
        assert_eq!(hits, [(read, r.invocation), (write, other)]);
        let words = stop.recording.clone().expect("a recording");
        let (trace, _) = stop.shader.decode(&words);
        assert!(trace.invocations[0]
            .steps
            .iter()
            .any(|s| s.probe == r.probe));
    }

    let (seen, stdout) = run("race_compute", &["2", "--fixed"], EVERY_CHECK);
    assert!(
        seen.is_empty(),
        "{:?}",
        seen.iter().map(|s| &s.reports).collect::<Vec<_>>()
    );
    assert_eq!(stdout, run_plain("race_compute", &["2", "--fixed"]));
}
