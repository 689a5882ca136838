//! Protocol-v2 features of the agent, end to end on the `features` test app
//! (default framebuffer, not square): pause, screenshots (while stopped and
//! at frame end), the NaN/Inf and GL-error exception filters, and the stop
//! reason of pixel history. Every run's frames are compared with a run
//! without the agent, pixel for pixel (checksums of the whole image).

mod common;

use common::debugger::{drive, floats, run_plain, Session, Shader, NO_FILTERS};
use common::fnv1a;
use shaderdbg_core::decode::Trace;
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};
use std::collections::HashMap;

const W: u32 = 64;
const H: u32 = 48;

fn args(mode: &str, frames: u32) -> Vec<String> {
    vec![
        mode.into(),
        frames.to_string(),
        W.to_string(),
        H.to_string(),
    ]
}

fn start(mode: &str, frames: u32, tag: &str) -> Session {
    let a = args(mode, frames);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    Session::start("features", &a, tag)
}

/// The NaN/Inf exception filter alone.
const NAN_INF: proto::ExceptionFilters = proto::ExceptionFilters {
    nan_inf: true,
    ..NO_FILTERS
};

/// The GL error exception filter alone.
const GL_ERROR: proto::ExceptionFilters = proto::ExceptionFilters {
    gl_error: true,
    ..NO_FILTERS
};

/// [`start`] with 3 frames and the exception `filters` set.
fn start_filtered(mode: &str, tag: &str, filters: proto::ExceptionFilters) -> Session {
    let mut s = start(mode, 3, tag);
    s.send(&ToAgent::SetExceptionFilters(filters));
    s
}

fn plain(mode: &str, frames: u32) -> String {
    let a = args(mode, frames);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    run_plain("features", &a)
}

fn fragment(shaders: &[Shader]) -> &Shader {
    shaders
        .iter()
        .find(|s| s.stage == proto::Stage::Fragment && s.sources.concat().contains("color.b"))
        .expect("the main fragment shader")
}

/// The stops, with each hit's probe checked present and then left out (the
/// tests name hits by line and occurrence).
fn stops_of(all: &[FromAgent]) -> Vec<(u64, proto::StopReason, Vec<proto::Hit>, bool)> {
    all.iter()
        .filter_map(|m| match m {
            FromAgent::Stopped {
                frame,
                reason,
                hits,
                truncated,
                ..
            } => {
                let hits = hits
                    .iter()
                    .map(|h| {
                        assert!(h.probe != 0, "a hit without its probe: {h:?}");
                        proto::Hit {
                            probe: 0,
                            tag: proto::HitTag::Breakpoint(0),
                            ..*h
                        }
                    })
                    .collect();
                Some((*frame, *reason, hits, *truncated))
            }
            _ => None,
        })
        .collect()
}

/// A fragment hit as [`stops_of`] gives it (probe and tag set aside).
fn expected_hit(line: u32, x: u32, y: u32) -> proto::Hit {
    proto::Hit {
        tag: proto::HitTag::Breakpoint(0),
        probe: 0,
        line,
        occurrence: 0,
        invocation: proto::Invocation::Fragment {
            x,
            y,
            primitive: Some(0),
            sample: None,
        },
    }
}

fn screenshot(s: &mut Session, request: u64, at: proto::ScreenshotAt) {
    s.send(&ToAgent::Screenshot { request, at });
}

/// Reads messages until the answer to `request` (a screenshot or an error).
fn answer(s: &mut Session, request: u64) -> Result<(u64, u32, u32, Vec<u8>), String> {
    loop {
        match s.recv() {
            Some(FromAgent::Screenshot {
                request: r,
                frame,
                width,
                height,
                rgba,
                ..
            }) if r == request => return Ok((frame, width, height, rgba.0)),
            Some(FromAgent::Error {
                request: Some(r),
                message,
            }) if r == request => return Err(message),
            Some(FromAgent::FrameEnd { .. }) => {}
            other => panic!("expected the answer to request {request}, got {other:?}"),
        }
    }
}

#[test]
fn pause_stops_the_next_draw_at_the_start_of_main_with_every_invocation() {
    let mut s = start("plain", 3, "pause");
    s.send(&ToAgent::Pause);
    let mut now = None;
    let mut recorded = None;
    let (all, stdout) = drive(s, |s, msg, shaders| {
        if let FromAgent::Stopped { .. } = msg {
            // While stopped: the framebuffer the draw renders to, before it.
            screenshot(s, 77, proto::ScreenshotAt::Now);
            now = Some(answer(s, 77));
            let frag = fragment(shaders).clone();
            recorded = Some((frag.clone(), s.record(proto::Invocation::fragment(3, 2))));
        }
    });
    assert_eq!(stdout, plain("plain", 3), "frames differ under the agent");
    let st = stops_of(&all);
    assert_eq!(st.len(), 1, "one stop for one pause: {st:?}");
    let (frame, reason, hits, truncated) = &st[0];
    assert_eq!(
        (*frame, *reason, *truncated),
        (0, proto::StopReason::Pause, false)
    );
    assert_eq!(hits.len(), (W * H) as usize);
    let frag = recorded.as_ref().unwrap().0.clone();
    let main_line = frag.line_of("vec2 uv = gl_FragCoord.xy / size;");
    assert!(hits
        .iter()
        .all(|h| h.line == main_line && h.occurrence == 0));
    // Deterministic order: primitive, then y, then x.
    assert_eq!(hits[0].invocation.key(), [0, 0, 0]);
    assert_eq!(hits[1].invocation.key(), [1, 0, 0]);
    assert_eq!(hits[W as usize].invocation.key(), [0, 1, 0]);
    let (sframe, w, h, rgba) = now.unwrap().expect("a screenshot while stopped");
    assert_eq!((sframe, w, h), (0, W, H));
    // Cleared, not drawn yet.
    assert!(
        rgba.chunks(4).all(|p| p == [26, 51, 76, 255]),
        "{:?}",
        &rgba[..8]
    );
    let words = recorded.unwrap().1.expect("a recording");
    let (trace, _) = frag.decode(&words);
    assert_eq!(trace.invocations.len(), 1);
}

#[test]
fn screenshots_at_frame_end_are_the_apps_frames_and_now_needs_a_stop() {
    let mut s = start("plain", 3, "shot");
    screenshot(&mut s, 1, proto::ScreenshotAt::Now);
    screenshot(&mut s, 2, proto::ScreenshotAt::FrameEnd { frame: Some(1) });
    screenshot(&mut s, 3, proto::ScreenshotAt::FrameEnd { frame: None });
    let (all, stdout) = drive(s, |_, _, _| {});
    assert!(
        all.iter().any(|m| matches!(
            m,
            FromAgent::Error {
                request: Some(1),
                ..
            }
        )),
        "`now` while not stopped is an error with the request id"
    );
    assert_eq!(stdout, plain("plain", 3), "frames differ under the agent");
    let shots: Vec<(u64, u64, u32, u32, u64)> = all
        .iter()
        .filter_map(|m| match m {
            FromAgent::Screenshot {
                request,
                frame,
                width,
                height,
                shows,
                rgba,
                ..
            } => {
                assert_eq!(*shows, proto::ScreenshotShows::FrameEnd);
                Some((*request, *frame, *width, *height, fnv1a(&rgba.0)))
            }
            _ => None,
        })
        .collect();
    let sum = |frame: u64| {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("frame {frame} checksum")))
            .expect("checksum line");
        u64::from_str_radix(line.rsplit(' ').next().unwrap(), 16).unwrap()
    };
    assert_eq!(
        shots,
        vec![(3, 0, W, H, sum(0)), (2, 1, W, H, sum(1))],
        "screenshots at the right swaps, identical to what the app read back"
    );
}

#[test]
fn nan_inf_filter_stops_at_the_statement_that_wrote_it_and_a_breakpoint_wins() {
    // The filter alone: one stop, in frame 1, at the write of the infinity.
    let s = start_filtered("nan", "nan", NAN_INF);
    let mut recorded = None;
    let (all, stdout) = drive(s, |s, msg, shaders| {
        if let FromAgent::Stopped { .. } = msg {
            recorded = Some((
                fragment(shaders).clone(),
                s.record(proto::Invocation::fragment(2, 3)),
            ));
        }
    });
    assert_eq!(stdout, plain("nan", 3), "frames differ under the agent");
    let (frag, words) = recorded.expect("a stop");
    let line = frag.line_of("color.b = 0.5 / d;");
    let st = stops_of(&all);
    assert_eq!(
        st,
        vec![(
            1,
            proto::StopReason::NanInf,
            vec![expected_hit(line, 2, 3)],
            false
        )]
    );
    // The recording has that step, and the write after it is the infinity.
    let (trace, table) = frag.decode(&words.expect("a recording"));
    let inv = &trace.invocations[0];
    let values = common::debugger::final_values(inv, &table);
    match values.get("color") {
        Some(shaderdbg_glsl::Value::List(v)) => {
            assert!(
                matches!(v[2], shaderdbg_glsl::Value::Float(f) if f.is_infinite()),
                "{v:?}"
            )
        }
        other => panic!("color: {other:?}"),
    }

    // With a breakpoint hitting in the same draw, the stop is a breakpoint stop.
    let s = start_filtered("nan", "nan-bp", NAN_INF);
    let mut bp_line = 0;
    let cond = "bad == 1 && int(gl_FragCoord.x) == 5 && int(gl_FragCoord.y) == 5";
    let set = break_in_main_fragment("color = vec4(uv, 0.25, 1.0);", Some(cond), &mut bp_line);
    let (all, stdout) = drive(s, set);
    assert_eq!(stdout, plain("nan", 3));
    let st = stops_of(&all);
    assert_eq!(st.len(), 1, "{st:?}");
    assert_eq!(st[0].0, 1);
    assert_eq!(st[0].1, proto::StopReason::Breakpoint);
    assert_eq!(st[0].2, vec![expected_hit(bp_line, 5, 5)]);
}

#[test]
fn gl_error_filter_stops_in_the_failing_call_and_the_app_still_gets_its_errors() {
    let s = start_filtered("glerror", "glerr", GL_ERROR);
    let mut seen = 0;
    let (all, stdout) = drive(s, |s, msg, _| {
        if let FromAgent::GlError { .. } = msg {
            seen += 1;
            if seen == 4 {
                // Detach ends the stop and the filter: frame 2 runs on.
                s.send(&ToAgent::Detach);
            }
        }
    });
    assert_eq!(
        stdout,
        plain("glerror", 3),
        "the app's errors or frames changed"
    );
    assert!(stdout.contains("frame 0 errors 0x0501 0x0500"), "{stdout}");
    let errors: Vec<(u64, String, u32)> = all
        .iter()
        .filter_map(|m| match m {
            FromAgent::GlError {
                frame, call, error, ..
            } => Some((*frame, call.clone(), *error)),
            _ => None,
        })
        .collect();
    let before = "a GL call before glUseProgram (not intercepted)".to_string();
    assert_eq!(
        errors,
        vec![
            (0, "glUseProgram".to_string(), 0x501),
            (0, before.clone(), 0x500),
            (1, "glUseProgram".to_string(), 0x501),
            (1, before, 0x500),
        ]
    );

    // Without the filter: no GL-error stops at all.
    let s = start("glerror", 2, "glerr-off");
    let (all, stdout) = drive(s, |_, _, _| {});
    assert_eq!(stdout, plain("glerror", 2));
    assert!(!all.iter().any(|m| matches!(m, FromAgent::GlError { .. })));
}

#[test]
fn pixel_history_stops_say_so_and_a_breakpoint_hit_says_breakpoint() {
    // Pixel history alone.
    let s = start("plain", 2, "ph");
    let mut s = s;
    s.send(&ToAgent::SetStopFilter(proto::StopFilter {
        frame: None,
        pixel: Some([5, 6]),
        pixel_history: true,
    }));
    let (all, stdout) = drive(s, |_, _, _| {});
    assert_eq!(stdout, plain("plain", 2));
    let st = stops_of(&all);
    assert_eq!(st.len(), 2, "{st:?}");
    assert!(st
        .iter()
        .all(|(_, r, h, _)| *r == proto::StopReason::PixelHistory
            && h.len() == 1
            && h[0].invocation.key() == [5, 6, 0]));

    // Pixel history and a breakpoint that hits at that pixel: a breakpoint
    // stop with the breakpoint's hit (it used to be reported as pixel history).
    let mut s = start("plain", 2, "ph-bp");
    s.send(&ToAgent::SetStopFilter(proto::StopFilter {
        frame: None,
        pixel: Some([5, 6]),
        pixel_history: true,
    }));
    let mut line = 0;
    let set = break_in_main_fragment("color.b = 0.5 / d;", None, &mut line);
    let (all, stdout) = drive(s, set);
    assert_eq!(stdout, plain("plain", 2));
    let st = stops_of(&all);
    assert_eq!(st.len(), 2, "{st:?}");
    for (_, reason, hits, _) in st {
        assert_eq!(reason, proto::StopReason::Breakpoint);
        assert_eq!(hits, vec![expected_hit(line, 5, 6)]);
    }
}

/// A [`drive`] handler that sets one breakpoint with `condition` on the line
/// containing `at` of the app's main fragment shader (the one with
/// `color.b = 0.5 / d;`), and puts that line in `line`.
fn break_in_main_fragment<'a>(
    at: &'a str,
    condition: Option<&'a str>,
    line: &'a mut u32,
) -> impl FnMut(&mut Session, &FromAgent, &[Shader]) + 'a {
    move |s, msg, _| {
        let Some(sh) = Shader::announced(msg) else {
            return;
        };
        if sh.stage != proto::Stage::Fragment || !sh.sources.concat().contains("color.b = 0.5 / d;")
        {
            return;
        }
        *line = sh.line_of(at);
        s.send(&ToAgent::SetBreakpoints {
            shader: sh.id,
            breakpoints: vec![common::debugger::bp(*line, condition)],
        });
    }
}

/// Sets `condition` breakpoints on the line containing `needle` of every
/// announced shader that has it.
fn break_at<'a>(
    wanted: &'a [(&'a str, &'a str)],
) -> impl FnMut(&mut Session, &FromAgent) -> Option<(u32, u32)> + 'a {
    move |s, msg| {
        let sh = Shader::announced(msg)?;
        let (needle, cond) = wanted
            .iter()
            .find(|(n, _)| sh.sources.concat().contains(n))?;
        let line = sh.line_of(needle);
        s.send(&ToAgent::SetBreakpoints {
            shader: sh.id,
            breakpoints: vec![common::debugger::bp(line, Some(cond))],
        });
        Some((sh.id, line))
    }
}

/// Runs `features MODE` for 2 frames with the breakpoints `wanted` (see
/// [`break_at`]); every stop goes to `at_stop(session, the shader stopped
/// in, its hits)`. Every message and the app's stdout, as [`drive`].
fn debug_stops(
    mode: &str,
    tag: &str,
    wanted: &[(&str, &str)],
    mut at_stop: impl FnMut(&mut Session, &Shader, &[proto::Hit]),
) -> (Vec<FromAgent>, String) {
    let mut set = break_at(wanted);
    drive(start(mode, 2, tag), |s, msg, shaders| {
        set(s, msg);
        if let FromAgent::Stopped { shader, hits, .. } = msg {
            at_stop(s, Shader::find(shaders, *shader), hits);
        }
    })
}

/// `features MODE` (2 frames) with a breakpoint on the line containing
/// `needle` that holds at pixel `(x, y)` only; at every stop, `check(hits)`
/// and a recording of that fragment. Every message, the app's stdout and
/// the recordings.
fn record_at_pixel(
    mode: &str,
    needle: &str,
    (x, y): (u32, u32),
    mut check: impl FnMut(&[proto::Hit]),
) -> (Vec<FromAgent>, String, Vec<(Trace, ProbeTable)>) {
    let cond = format!("int(gl_FragCoord.x) == {x} && int(gl_FragCoord.y) == {y}");
    let mut recordings = Vec::new();
    let (all, stdout) = debug_stops(mode, mode, &[(needle, &cond)], |s, sh, hits| {
        check(hits);
        recordings.push(s.record_decoded(sh, proto::Invocation::fragment(x, y)));
    });
    (all, stdout, recordings)
}

/// What [`debug_mode`] returns.
type Debugged = (
    Vec<(u64, proto::StopReason, Vec<proto::Hit>, bool)>,
    Vec<(proto::Stage, HashMap<String, shaderdbg_glsl::Value>)>,
    String,
);

/// Breakpoints in `wanted` (needle, condition) on `features MODE`; every
/// stop records its first hit; (stops, final values of each recording,
/// stdout).
fn debug_mode(mode: &str, wanted: &[(&str, &str)], tag: &str) -> Debugged {
    let mut recorded = Vec::new();
    let (all, stdout) = debug_stops(mode, tag, wanted, |s, sh, hits| {
        let sel = match sh.stage {
            proto::Stage::Vertex => proto::Invocation::Vertex {
                vertex: hits[0].invocation.key()[0] as i32,
                instance: 0,
            },
            _ => proto::Invocation::fragment(10, 10),
        };
        let (trace, table) = s.record_decoded(sh, sel);
        assert_eq!(trace.invocations.len(), 1);
        recorded.push((
            sh.stage,
            common::debugger::final_values(&trace.invocations[0], &table),
        ));
    });
    assert!(
        all.iter().all(|m| !matches!(m, FromAgent::Error { .. })),
        "{all:?}"
    );
    (stops_of(&all), recorded, stdout)
}

#[test]
fn draw_transform_feedback_is_replayed_in_debug_draws() {
    let (st, recorded, stdout) = debug_mode(
        "tf",
        &[(
            "float s = v_shade;",
            "int(gl_FragCoord.x) == 10 && int(gl_FragCoord.y) == 10",
        )],
        "tf-draw",
    );
    assert_eq!(stdout, plain("tf", 2), "frames differ under the agent");
    assert_eq!(st.len(), 2, "one stop per frame in the TF draw: {st:?}");
    assert!(st
        .iter()
        .all(|s| s.2 == vec![expected_hit(s.2[0].line, 10, 10)]));
    for (_, values) in &recorded {
        match values.get("s") {
            Some(shaderdbg_glsl::Value::Float(s)) => assert!((0.25..=0.75).contains(s), "{s}"),
            other => panic!("s: {other:?}"),
        }
    }
}

/// The capture program's instrumented copy links with the same
/// transform-feedback varyings and is hit-tested and recorded while capture
/// is active (the debug draws run with a private, inactive transform-feedback
/// object bound), and the frame drawn from the captured vertices is unchanged.
#[test]
fn programs_with_transform_feedback_varyings_are_debugged_while_capturing() {
    let (st, recorded, stdout) = debug_mode(
        "tf",
        &[("shade = 0.25 + 0.25", "gl_VertexID == 1")],
        "tf-capture",
    );
    assert_eq!(stdout, plain("tf", 2), "frames differ under the agent");
    assert_eq!(st.len(), 2, "one stop per frame in the capture: {st:?}");
    assert!(st.iter().all(|s| s.2[0].invocation.key() == [1, 0, 0]));
    for (stage, values) in &recorded {
        assert_eq!(*stage, proto::Stage::Vertex);
        assert_eq!(
            values.get("shade"),
            Some(&shaderdbg_glsl::Value::Float(0.5))
        );
    }
}

#[test]
fn indirect_count_draws_replay_with_the_count_from_the_parameter_buffer() {
    let (all, stdout, recordings) =
        record_at_pixel("indirect", "color.b = 0.5 / d;", (7, 7), |_| {});
    let invocations: Vec<usize> = recordings
        .iter()
        .map(|(trace, _)| trace.invocations.len())
        .collect();
    assert_eq!(
        stdout,
        plain("indirect", 2),
        "frames differ under the agent"
    );
    assert_eq!(stops_of(&all).len(), 2);
    // One command drawn (the count says 1; the maximum is 2).
    assert_eq!(invocations, vec![1, 1]);
}

/// Queries the application has active around a debugged draw count only the
/// application's draws: the frames and every query result (primitives
/// generated and written during a capture, samples passed and any samples
/// passed during draws) are those of the run without the agent, while the
/// capture's vertex shader and the draws' fragment shader stop and record.
#[test]
fn active_queries_do_not_count_debug_draws() {
    let (st, recorded, stdout) = debug_mode(
        "queries",
        &[
            ("shade = 0.25 + 0.25", "gl_VertexID == 1"),
            (
                "float s = v_shade;",
                "int(gl_FragCoord.x) == 10 && int(gl_FragCoord.y) == 10",
            ),
        ],
        "queries",
    );
    // Every count is the application's, GL_PRIMITIVES_GENERATED included
    // (the agent ends it around each debug draw, begins it again and adds
    // the partial counts to what the application reads: with
    // GL_QUERY_RESULT and GL_QUERY_RESULT_NO_WAIT into memory, and into a
    // query buffer bound and through glGetQueryBufferObjectuiv).
    assert_eq!(
        stdout,
        plain("queries", 2),
        "frames or query results differ under the agent"
    );
    assert!(
        stdout.contains("generated 1 written 1 ")
            && stdout.contains("generated-no-wait 1 generated-buffered 1 1"),
        "{stdout}"
    );
    assert!(stdout.contains("samples 3072 any 1"), "{stdout}");
    // Per frame: the capture (vertex), the draw and the draw again (fragment).
    assert_eq!(st.len(), 6, "{st:?}");
    for (i, (stage, values)) in recorded.iter().enumerate() {
        if i % 3 == 0 {
            assert_eq!(*stage, proto::Stage::Vertex);
            assert_eq!(
                values.get("shade"),
                Some(&shaderdbg_glsl::Value::Float(0.5))
            );
        } else {
            assert_eq!(*stage, proto::Stage::Fragment);
            assert_eq!(st[i].2[0].invocation.key(), [10, 10, 0]);
            match values.get("s") {
                Some(shaderdbg_glsl::Value::Float(s)) => assert!((0.25..=0.75).contains(s), "{s}"),
                other => panic!("s: {other:?}"),
            }
        }
    }
}

/// A fragment shader that writes images (`imageAtomicAdd` counts per cell,
/// `imageStore` colours) is debugged: the texture levels bound to its
/// writable image units are saved before every debug draw and restored
/// after, so the frames and both images (the counts add up over the frames)
/// are those of the run without the agent.
#[test]
fn programs_that_write_images_are_debugged_and_the_images_restored() {
    let (all, stdout, recordings) =
        record_at_pixel("image", "imageAtomicAdd(counts", (10, 10), |hits| {
            assert_eq!(hits.len(), 1);
            assert_eq!(hits[0].invocation.key(), [10, 10, 0]);
        });
    let recorded: Vec<_> = recordings
        .iter()
        .map(|(trace, table)| {
            assert_eq!(trace.invocations.len(), 1);
            common::debugger::final_values(&trace.invocations[0], table)
        })
        .collect();
    assert!(
        all.iter().all(|m| !matches!(m, FromAgent::Error { .. })),
        "{all:?}"
    );
    assert_eq!(
        stdout,
        plain("image", 2),
        "frames or images differ under the agent"
    );
    assert!(stdout.contains("frame 1 count 128"), "{stdout}");
    assert_eq!(stops_of(&all).len(), 2, "one stop per frame");
    let want = floats(&[10.5 / 64.0, 10.5 / 48.0, 0.75, 1.0]);
    for values in &recorded {
        assert_eq!(values.get("c"), Some(&want), "{values:?}");
    }
}
