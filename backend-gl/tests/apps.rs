//! The test apps (`tests/apps`) under the agent and a scripted debugger:
//!
//! - without breakpoints, every app prints the same frames with and without
//!   the agent;
//! - with breakpoints, each app stops in the shader under test; the hits are
//!   the invocations the test computes from the app's parameters; a recorded
//!   invocation's values are the ones the test computes independently; after
//!   resuming, the frames (and storage buffers) are identical to a run
//!   without the agent;
//! - `check_state`: the GL state after a stopped-at, recorded draw and
//!   dispatch equals the state before it.

mod common;

use std::collections::{BTreeSet, HashMap};

use shaderdbg_core::decode::Exit;
use shaderdbg_glsl::Value;
use shaderdbg_protocol::{self as proto, Hit};

use shaderdbg_test_support::values::{float, floats as vector};

use common::debugger::{
    bp, debug, final_values, floats, run_plain, run_preloaded, Session, Shader, Stop,
};

const FRAMES: &str = "3";

const MULTI_PASS_POST: &str = include_str!("../../tests/apps/shaders/multi_pass_post.frag");
const VERTEX_DISPLACE_VERT: &str = include_str!("../../tests/apps/shaders/vertex_displace.vert");
const COMPUTE_COMP: &str = include_str!("../../tests/apps/shaders/compute.comp");
const COMPUTE_SHOW: &str = include_str!("../../tests/apps/shaders/compute_show.frag");
const COMPUTE_IMAGE: &str = include_str!("../../tests/apps/shaders/compute_image.comp");
const LEGACY_VERT: &str = include_str!("../../tests/apps/shaders/legacy110.vert");
const LEGACY_FRAG: &str = include_str!("../../tests/apps/shaders/legacy110.frag");
const GLES_VERT: &str = include_str!("../../tests/apps/shaders/gles30.vert");
const GLES_FRAG: &str = include_str!("../../tests/apps/shaders/gles30.frag");
const STATE_FRAG: &str = include_str!("../../tests/apps/shaders/check_state.frag");
const STATE_COMP: &str = include_str!("../../tests/apps/shaders/check_state.comp");

fn assert_close(got: &[f32], want: &[f32], tolerance: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= tolerance,
            "{what}: {got:?}, want {want:?} (within {tolerance})"
        );
    }
}

/// A hit's invocation as key words (last word 0, as hit buffers held them).
fn key(h: &Hit) -> [u32; 4] {
    let k = h.invocation.key();
    [k[0], k[1], k[2], 0]
}

/// A recorded invocation's key words.
fn inv_key(inv: &shaderdbg_core::decode::InvocationTrace) -> [u32; 3] {
    inv.invocation
        .expect("the recording names its invocation")
        .key()
}

/// Fragment hits: the (x, y) pixels, checking that they come sorted by
/// primitive, then y, then x, once each, all on `line`.
fn fragment_pixels(hits: &[Hit], line: u32) -> BTreeSet<(u32, u32)> {
    let keys: Vec<(u32, u32, u32)> = hits
        .iter()
        .map(|h| (key(h)[2], key(h)[1], key(h)[0]))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "fragment hits sorted by primitive, y, x");
    assert!(hits.iter().all(|h| h.line == line && h.occurrence == 0));
    let pixels: BTreeSet<(u32, u32)> = hits.iter().map(|h| (key(h)[1], key(h)[0])).collect();
    assert_eq!(pixels.len(), hits.len(), "one hit per pixel");
    pixels
}

/// Hit keys as expected; on failure, the counts and the first difference
/// (hit lists can be thousands long).
fn assert_same_keys(got: &[[u32; 4]], want: &[[u32; 4]], what: &str) {
    if got != want {
        let at = got.iter().zip(want).position(|(g, w)| g != w);
        panic!(
            "{what}: {} hits, want {}; first difference at {at:?}: {:?} vs {:?}",
            got.len(),
            want.len(),
            at.map(|i| &got[i..(i + 4).min(got.len())]),
            at.map(|i| &want[i..(i + 4).min(want.len())]),
        );
    }
}

/// The one invocation of a recording.
fn one_invocation(
    shader: &Shader,
    words: &[u32],
) -> (
    shaderdbg_core::decode::InvocationTrace,
    shaderdbg_core::probes::ProbeTable,
) {
    let (trace, table) = shader.decode(words);
    assert!(!trace.overflowed);
    assert!(!trace.invocations.is_empty(), "the selected invocation ran");
    let inv = trace.invocations.into_iter().next().unwrap();
    assert_eq!(inv.exit, Exit::Returned);
    (inv, table)
}

#[test]
fn every_app_renders_the_same_under_the_agent() {
    for app in [
        "multi_pass",
        "vertex_displace",
        "compute",
        "legacy110",
        "gles30",
        "check_state",
    ] {
        let plain = run_plain(app, &[FRAMES]);
        assert!(plain.lines().count() >= 3, "{app}: {plain}");
        assert!(plain.contains("frame 2 checksum "), "{app}: {plain}");
        assert_eq!(
            run_preloaded(app, &[FRAMES]),
            plain,
            "{app} under the agent"
        );
        // A debugger that sets no breakpoint changes nothing either.
        let out = debug(
            app,
            &[FRAMES],
            "nobp",
            Default::default(),
            |_| vec![],
            |_, s| panic!("{app}: unexpected stop {s:?}"),
        );
        assert!(out.errors.is_empty(), "{app}: {:?}", out.errors);
        assert_eq!(
            out.stdout, plain,
            "{app} under a debugger without breakpoints"
        );
    }
}

/// A breakpoint set on every announced shader whose source is `shader`, at
/// the first line containing `line`.
struct Bp {
    shader: &'static str,
    line: &'static str,
    condition: Option<&'static str>,
}

/// One scripted debugging session of a test app: the breakpoints set when
/// shaders are announced, the checks at every stop, and what must hold
/// afterwards.
struct Case {
    app: &'static str,
    args: &'static [&'static str],
    /// Names the session's files (see `Session::start`).
    tag: &'static str,
    /// Stop only in this frame (`None`: in any).
    frame: Option<u64>,
    breakpoints: &'static [Bp],
    /// Runs at every stop, before the script resumes.
    at_stop: fn(&mut Session, &Stop),
    /// (frame, draw) of every stop, in order.
    stops: &'static [(u64, u64)],
    /// Lines the app must print (its own checks of the GL state).
    stdout_lines: &'static [&'static str],
}

/// Runs `case` under the scripted debugger: no agent error, the stops
/// expected, the app's own checks printed, and the frames (and storage
/// buffers, in their checksums) identical to a run without the agent.
fn run(case: &Case) {
    let app = case.app;
    let filter = proto::StopFilter {
        frame: case.frame,
        ..Default::default()
    };
    let out = debug(
        app,
        case.args,
        case.tag,
        filter,
        |s| {
            case.breakpoints
                .iter()
                .filter(|b| s.is(b.shader))
                .map(|b| bp(s.line_of(b.line), b.condition))
                .collect()
        },
        case.at_stop,
    );
    assert!(out.errors.is_empty(), "{app}: {:?}", out.errors);
    let stops: Vec<(u64, u64)> = out.stops.iter().map(|&(f, d, _)| (f, d)).collect();
    assert_eq!(stops, case.stops, "{app}: the stops (frame, draw)");
    for line in case.stdout_lines {
        assert!(
            out.stdout.lines().any(|l| l == *line),
            "{app}: {line}:\n{}",
            out.stdout
        );
    }
    assert_eq!(
        out.stdout,
        run_plain(app, case.args),
        "{app}: frames, counters, histograms and images as without the agent"
    );
}

/// Clears the breakpoints of `shader` (the app goes on to the next frame or
/// stage without stopping there again).
fn clear_breakpoints(session: &mut Session, shader: &Shader) {
    session.send(&proto::ToAgent::SetBreakpoints {
        shader: shader.id,
        breakpoints: vec![],
    });
}

/// Records fragment (`x`, `y`) of the stopped draw: the final values of its
/// variables.
fn record_fragment(session: &mut Session, stop: &Stop, x: u32, y: u32) -> HashMap<String, Value> {
    let words = session
        .record(proto::Invocation::fragment(x, y))
        .expect("recording");
    let (inv, table) = one_invocation(&stop.shader, &words);
    assert_eq!(&inv_key(&inv)[..2], &[x, y]);
    final_values(&inv, &table)
}

/// At a fragment stop of a two-stage app: clears the fragment shader's
/// breakpoint and sets one at `line` of the vertex shader `vertex`, for the
/// next frame.
fn move_to_the_vertex_shader(session: &mut Session, stop: &Stop, vertex: &str, line: &str) {
    let vs = stop.shader_with(vertex);
    clear_breakpoints(session, &stop.shader);
    session.send(&proto::ToAgent::SetBreakpoints {
        shader: vs.id,
        breakpoints: vec![bp(vs.line_of(line), None)],
    });
}

/// The fragment stop of a two-stage app (`legacy110`, `gles30`, whose
/// fragment shaders compute `p` from the pixel with `t` = 0 in frame 0): in
/// frame 0, hits at exactly the pixels `want` on the line with `needle`;
/// the final values of the fragment at `(x, y)`, with `p` and `t` checked,
/// and `p`.
fn first_fragment_stop(
    session: &mut Session,
    stop: &Stop,
    needle: &str,
    want: BTreeSet<(u32, u32)>,
    (x, y): (u32, u32),
) -> (HashMap<String, Value>, [f32; 2]) {
    assert_eq!(stop.frame, 0);
    let line = stop.shader.line_of(needle);
    assert_eq!(fragment_pixels(&stop.hits, line), want);
    let v = record_fragment(session, stop, x, y);
    let p = [(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0];
    assert_eq!(v["p"], floats(&p));
    assert_eq!(v["t"], Value::Float(0.0));
    (v, p)
}

/// The vertex stop of a two-stage app: in `vertex`, frame 1, hit by the
/// four vertices; the recording of vertex `recorded`.
fn second_vertex_stop(session: &mut Session, stop: &Stop, vertex: &str, recorded: i32) -> Vec<u32> {
    assert!(stop.shader.is(vertex));
    assert_eq!(stop.frame, 1);
    assert_the_four_vertices_hit(stop);
    session
        .record(proto::Invocation::Vertex {
            vertex: recorded,
            instance: 0,
        })
        .expect("recording")
}

/// The hits of an unconditional breakpoint in the vertex shader of a quad.
fn assert_the_four_vertices_hit(stop: &Stop) {
    let got: Vec<[u32; 4]> = stop.hits.iter().map(key).collect();
    assert_eq!(got, (0..4).map(|v| [v, 0, 0, 0]).collect::<Vec<_>>());
}

#[test]
fn multi_pass_stops_in_the_post_process_and_records_the_sampled_texel() {
    run(&Case {
        app: "multi_pass",
        args: &[FRAMES, "64"],
        tag: "bp",
        frame: Some(1),
        breakpoints: &[Bp {
            shader: MULTI_PASS_POST,
            line: "float edge",
            condition: Some("s.r > 0.5"),
        }],
        at_stop: multi_pass_stop,
        // Pass 2 of frame 1.
        stops: &[(1, 1)],
        stdout_lines: &[],
    });
}

fn multi_pass_stop(session: &mut Session, stop: &Stop) {
    assert!(!stop.truncated);
    let line = stop.shader.line_of("float edge");
    // Texel (x / 2, y / 2) of the pattern; frame 1: a = ((x/2 + 1) % 8) / 8.
    let a = |x: u32| ((x / 2 + 1) % 8) as f32 * 0.125;
    let want: BTreeSet<(u32, u32)> = (0..64)
        .flat_map(|y| (0..64).map(move |x| (y, x)))
        .filter(|&(_, x)| a(x) > 0.5)
        .collect();
    assert_eq!(fragment_pixels(&stop.hits, line), want);

    let (x, y) = (26u32, 13u32);
    let v = record_fragment(session, stop, x, y);
    let (ta, tb) = (a(x), ((y / 2) % 4) as f32 * 0.25);
    assert_eq!(
        v["uv"],
        floats(&[(x as f32 + 0.5) / 64.0, (y as f32 + 0.5) / 64.0]),
        "uv"
    );
    assert_eq!(v["s"], floats(&[ta, tb, ta * tb, 1.0]), "the sampled texel");
    assert_eq!(v["edge"], Value::Float(1.0));
    assert_eq!(
        v["color"],
        floats(&[1.0 - ta, tb * 0.5 + 0.25, ta * tb, 1.0])
    );
}

/// The vertex shader's math for vertex `k` of `vertex_displace` with a
/// `grid` x `grid` mesh (amp 1.5): (k, h, pos, p, gl_Position).
fn displaced(vertex: i32, frame: i32, grid: i32) -> (i32, f32, [f32; 2], [f32; 2], [f32; 4]) {
    let c = ((grid - 1) / 2) as f32;
    let mut scale = 1.0f32;
    while scale * c > 1.0 {
        scale *= 0.5;
    }
    let pos = [
        ((vertex % grid) as f32 - c) * scale,
        ((vertex / grid) as f32 - c) * scale,
    ];
    let k = (vertex * 7 + frame * 3) % 11;
    let h = 1.5 * k as f32 * 0.125;
    let p = [pos[0] + h * 0.25, pos[1] + -h * 0.125];
    (
        k,
        h,
        pos,
        p,
        [p[0] * 0.75, p[1] * 0.75, h * 0.5 - 0.25, 1.0],
    )
}

/// The conditional breakpoint in `vertex_displace`'s vertex shader.
const VERTEX_DISPLACE_BP: &[Bp] = &[Bp {
    shader: VERTEX_DISPLACE_VERT,
    line: "vec2 p = pos",
    condition: Some("k > 8"),
}];

/// At the stop in `vertex_displace` with a `grid` x `grid` mesh: one hit
/// per vertex where the condition holds (a vertex the driver shades more
/// than once is still one hit), and a recorded vertex with the values
/// computed here.
fn vertex_displace_stop(grid: i32, session: &mut Session, stop: &Stop) {
    assert!(!stop.truncated);
    let line = stop.shader.line_of("vec2 p = pos");
    let want: Vec<[u32; 4]> = (0..grid * grid)
        .filter(|&v| displaced(v, 1, grid).0 > 8)
        .map(|v| [v as u32, 0, 0, 0])
        .collect();
    let got: Vec<[u32; 4]> = stop.hits.iter().map(key).collect();
    assert_same_keys(&got, &want, "one hit per vertex, by vertex id");
    assert!(stop
        .hits
        .iter()
        .all(|h| h.line == line && h.occurrence == 0));

    let vertex = want[want.len() / 2][0] as i32;
    let words = session
        .record(proto::Invocation::Vertex {
            vertex,
            instance: 0,
        })
        .expect("recording");
    let (trace, table) = stop.shader.decode(&words);
    let (k, h, pos, p, position) = displaced(vertex, 1, grid);
    assert!(!trace.invocations.is_empty());
    for inv in &trace.invocations {
        assert_eq!(inv_key(inv)[..2], [vertex as u32, 0]);
        let v = final_values(inv, &table);
        assert_eq!(v["k"], Value::Int(k));
        assert_eq!(v["h"], Value::Float(h));
        assert_eq!(v["p"], floats(&p));
        assert_eq!(v["gl_Position"], floats(&position));
        assert_eq!(
            v["shade"],
            floats(&[h * 0.5, (vertex % 9) as f32 * 0.125, pos[1] * 0.5 + 0.5])
        );
    }
}

#[test]
fn vertex_displace_stops_in_the_vertex_shader_and_records_a_vertex() {
    run(&Case {
        app: "vertex_displace",
        args: &[FRAMES, "64", "9"],
        tag: "bp9",
        frame: Some(1),
        breakpoints: VERTEX_DISPLACE_BP,
        at_stop: |session, stop| vertex_displace_stop(9, session, stop),
        stops: &[(1, 0)],
        stdout_lines: &[],
    });
}

#[test]
fn vertex_hits_are_one_per_vertex_in_a_large_indexed_mesh() {
    // 129 x 129 vertices, 98304 indices: more than the driver shades in one
    // batch, so vertices shared by two batches run twice.
    run(&Case {
        app: "vertex_displace",
        args: &[FRAMES, "64", "129"],
        tag: "bp129",
        frame: Some(1),
        breakpoints: VERTEX_DISPLACE_BP,
        at_stop: |session, stop| vertex_displace_stop(129, session, stop),
        stops: &[(1, 0)],
        stdout_lines: &[],
    });
}

#[test]
fn compute_stops_in_the_dispatch_and_the_storage_writing_fragment_pass() {
    run(&Case {
        app: "compute",
        args: &[FRAMES, "64"],
        tag: "bp",
        frame: Some(1),
        breakpoints: &[
            Bp {
                shader: COMPUTE_COMP,
                line: "cells[i] = next",
                condition: Some("old > 12u"),
            },
            Bp {
                shader: COMPUTE_SHOW,
                line: "atomicAdd",
                condition: Some("v > 56u"),
            },
            Bp {
                shader: COMPUTE_IMAGE,
                line: "imageStore",
                condition: None,
            },
        ],
        at_stop: compute_stop,
        // Both dispatches (the image-writing one too) and the fragment pass;
        // counters, histogram and image as without the agent.
        stops: &[(1, 0), (1, 1), (1, 2)],
        stdout_lines: &[],
    });
}

fn compute_stop(session: &mut Session, stop: &Stop) {
    assert!(!stop.truncated);
    if stop.shader.is(COMPUTE_COMP) {
        // Frame 0 left cells[i] = x ^ y.
        let line = stop.shader.line_of("cells[i] = next");
        let want: Vec<[u32; 4]> = (0..16u32)
            .flat_map(|y| (0..16u32).map(move |x| [x, y, 0, 0]))
            .filter(|k| k[0] ^ k[1] > 12)
            .collect();
        let got: Vec<[u32; 4]> = stop.hits.iter().map(key).collect();
        assert_same_keys(&got, &want, "hits by z, y, x");
        assert!(stop.hits.iter().all(|h| h.line == line));
        let id = [5u32, 2, 0];
        let words = session
            .record(proto::Invocation::Compute { id })
            .expect("recording");
        let (inv, table) = one_invocation(&stop.shader, &words);
        assert_eq!(inv_key(&inv)[..3], id);
        let v = final_values(&inv, &table);
        let old = 5 ^ 2;
        assert_eq!(v["i"], Value::Uint(2 * 16 + 5));
        assert_eq!(v["old"], Value::Uint(old));
        assert_eq!(v["next"], Value::Uint(old * 3 + (5 ^ 2) + 1));
    } else if stop.shader.is(COMPUTE_IMAGE) {
        // Every invocation stores; the image is saved and restored
        // around the debug draws.
        assert_eq!(stop.hits.len(), 16 * 16);
    } else {
        assert!(stop.shader.is(COMPUTE_SHOW), "{:?}", stop.shader);
        let line = stop.shader.line_of("atomicAdd");
        // Frame 1: v = 4 (cx ^ cy) + 1 for cell (x / 4, y / 4).
        let v = |x: u32, y: u32| 4 * ((x / 4) ^ (y / 4)) + 1;
        let want: BTreeSet<(u32, u32)> = (0..64)
            .flat_map(|y| (0..64).map(move |x| (y, x)))
            .filter(|&(y, x)| v(x, y) > 56)
            .collect();
        assert_eq!(fragment_pixels(&stop.hits, line), want);
        let (x, y) = (61u32, 2u32);
        let vals = record_fragment(session, stop, x, y);
        assert_eq!(vals["cell"], common::debugger::uints(&[15, 0]));
        assert_eq!(vals["v"], Value::Uint(v(x, y)));
    }
}

#[test]
fn legacy110_stops_in_both_stages_of_a_compatibility_context() {
    // The fragment shader in frame 0, then the vertex shader in frame 1.
    run(&Case {
        app: "legacy110",
        args: &[FRAMES, "64"],
        tag: "bp",
        frame: None,
        breakpoints: &[Bp {
            shader: LEGACY_FRAG,
            line: "float d",
            condition: Some("p.y > 1.5"),
        }],
        at_stop: legacy110_stop,
        stops: &[(0, 0), (1, 0)],
        stdout_lines: &[],
    });
}

fn legacy110_stop(session: &mut Session, stop: &Stop) {
    if stop.shader.is(LEGACY_FRAG) {
        // p.y > 1.5: the top 16 rows.
        let want = (48..64).flat_map(|y| (0..64).map(move |x| (y, x)));
        let (x, y) = (10u32, 50u32);
        let (v, p) = first_fragment_stop(session, stop, "float d", want.collect(), (x, y));
        assert_eq!(v["d"], Value::Float((p[0] * 2.0).fract()));
        let color = vector(&v["gl_FragColor"]);
        let vx = ((x as f32 + 0.5) / 32.0 - 1.0) * 0.75;
        assert_close(
            &color,
            &[(p[0] * 2.0).fract(), p[1].fract(), vx * 0.5 + 0.5, 1.0],
            1e-4,
            "gl_FragColor",
        );
        move_to_the_vertex_shader(session, stop, LEGACY_VERT, "v = s");
    } else {
        let words = second_vertex_stop(session, stop, LEGACY_VERT, 2);
        let (inv, table) = one_invocation(&stop.shader, &words);
        let v = final_values(&inv, &table);
        assert_eq!(v["s"], floats(&[-0.75, 0.75]));
        assert_eq!(v["v"], floats(&[-0.75, 0.75]));
        assert_eq!(v["gl_Position"], floats(&[-1.0, 1.0, 0.0, 1.0]));
        clear_breakpoints(session, &stop.shader);
    }
}

/// The conditional breakpoint in `gles30`'s fragment shader.
const GLES_FRAG_BP: &[Bp] = &[Bp {
    shader: GLES_FRAG,
    line: "float ring",
    condition: Some("p.x > 1.5"),
}];

#[test]
fn gles30_stops_in_both_stages_of_an_es_context() {
    // The fragment shader in frame 0, then the vertex shader in frame 1.
    run(&Case {
        app: "gles30",
        args: &[FRAMES, "64"],
        tag: "bp",
        frame: None,
        breakpoints: GLES_FRAG_BP,
        at_stop: gles30_stop,
        stops: &[(0, 0), (1, 0)],
        stdout_lines: &[],
    });
}

fn gles30_stop(session: &mut Session, stop: &Stop) {
    if stop.shader.is(GLES_FRAG) {
        // p.x > 1.5: the right 16 columns.
        let want = (0..64).flat_map(|y| (48..64).map(move |x| (y, x)));
        let (x, y) = (50u32, 10u32);
        let (v, _) = first_fragment_stop(session, stop, "float ring", want.collect(), (x, y));
        let uv = [
            ((x as f32 + 0.5) / 32.0 - 1.0) * 1.25,
            ((y as f32 + 0.5) / 32.0 - 1.0) * 1.25,
        ];
        let ring = float(&v["ring"]);
        let want_ring = ((uv[0] * uv[0] + uv[1] * uv[1]).sqrt() * 2.0).fract();
        assert!((ring - want_ring).abs() < 1e-3, "{ring} vs {want_ring}");
        move_to_the_vertex_shader(session, stop, GLES_VERT, "uv = z");
    } else {
        let words = second_vertex_stop(session, stop, GLES_VERT, 3);
        let (trace, table) = stop.shader.decode(&words);
        assert!(!trace.invocations.is_empty());
        for inv in &trace.invocations {
            let v = final_values(inv, &table);
            assert_eq!(v["z"], floats(&[1.25, 1.25]));
            assert_eq!(v["gl_Position"], floats(&[1.0, 1.0, 0.0, 1.0]));
        }
        clear_breakpoints(session, &stop.shader);
    }
}

/// `ScreenshotAt::Now` of a draw that renders into a texture on a GLES
/// context (no `glGetTextureLevelParameteriv` there): the agent finds the
/// attachment's size by binding the texture and asking
/// `glGetTexLevelParameteriv` (GLES 3.1), and the image is the 64x64
/// target as cleared before the draw.
#[test]
fn gles30_screenshot_now_of_a_texture_attachment() {
    run(&Case {
        app: "gles30",
        args: &["1", "64"],
        tag: "shot",
        frame: None,
        breakpoints: GLES_FRAG_BP,
        at_stop: gles30_screenshot_now,
        // One stop, so one screenshot.
        stops: &[(0, 0)],
        stdout_lines: &[],
    });
}

fn gles30_screenshot_now(session: &mut Session, stop: &Stop) {
    session.send(&proto::ToAgent::Screenshot {
        request: 5,
        at: proto::ScreenshotAt::Now,
    });
    loop {
        match session.recv() {
            // Before the draw, in GL's convention.
            Some(proto::FromAgent::Screenshot {
                request: 5,
                shows: proto::ScreenshotShows::BeforeDraw,
                origin: proto::Origin::BottomLeft,
                frame,
                width,
                height,
                rgba,
            }) => {
                assert_eq!((frame, width, height), (0, 64, 64));
                assert!(
                    rgba.0.chunks(4).all(|p| p == [0, 0, 0, 0]),
                    "{:?}",
                    &rgba.0[..8]
                );
                break;
            }
            Some(proto::FromAgent::Error {
                request: Some(5),
                message,
            }) => panic!("a screenshot: {message:?}"),
            Some(proto::FromAgent::FrameEnd { .. }) => {}
            other => panic!("expected the screenshot, got {other:?}"),
        }
    }
    clear_breakpoints(session, &stop.shader);
}

#[test]
fn gl_state_after_a_stop_equals_the_state_before() {
    run(&Case {
        app: "check_state",
        args: &["2", "64"],
        tag: "bp",
        frame: None,
        breakpoints: &[
            Bp {
                shader: STATE_FRAG,
                line: "color = vec4",
                condition: Some("p.x > 0.5"),
            },
            Bp {
                shader: STATE_COMP,
                line: "data[i] += add",
                condition: Some("i % 4u == 1u"),
            },
        ],
        at_stop: check_state_stop,
        stops: &[(0, 0), (0, 1), (1, 0), (1, 1)],
        stdout_lines: &[
            "frame 0 draw state ok",
            "frame 0 draw error ok",
            "frame 0 dispatch state ok",
            "frame 1 draw state ok",
            "frame 1 draw error ok",
            "frame 1 dispatch state ok",
        ],
    });
}

fn check_state_stop(session: &mut Session, stop: &Stop) {
    if stop.shader.is(STATE_FRAG) {
        // Viewport (2, 3, 60, 58), scissor (1, 1, 62, 62): the debug
        // draw sees the application's state.
        let line = stop.shader.line_of("color = vec4");
        let want: BTreeSet<(u32, u32)> = (3..61)
            .flat_map(|y| (32..62).map(move |x| (y, x)))
            .collect();
        assert_eq!(fragment_pixels(&stop.hits, line), want);
        let (x, y) = (40u32, 20u32);
        let v = record_fragment(session, stop, x, y);
        let p = [(x as f32 + 0.5) / 64.0, (y as f32 + 0.5) / 64.0];
        assert_eq!(v["p"], floats(&p));
        // Unit 3's 4 x 4 texture: texel i has red (16 i + 21) / 255.
        let texel = (p[1] * 4.0) as u32 * 4 + (p[0] * 4.0) as u32;
        let red = (16 * texel + 21) as f32 / 255.0;
        let s = vector(&v["s"]);
        assert_close(&s[..1], &[red], 1e-6, "the texel of unit 3");
        // tint (0.5, 1, 0.75, 1) from the uniform block range on binding 2.
        assert_close(
            &vector(&v["color"]),
            &[p[0] * 0.5, p[1], red * 0.75, 1.0],
            1e-6,
            "color",
        );
        let (width, height, words_per, data) = session.watch(line, "p.x").expect("watch image");
        assert_eq!((width, height, words_per), (62, 61, 1));
        let at = 4 + ((y * width + x) * 2) as usize;
        assert_eq!(data[at], 1);
        assert_eq!(f32::from_bits(data[at + 1]), p[0]);
    } else {
        assert!(stop.shader.is(STATE_COMP));
        let got: Vec<u32> = stop.hits.iter().map(|h| key(h)[0]).collect();
        assert_eq!(got, (0..64).filter(|i| i % 4 == 1).collect::<Vec<_>>());
        let words = session
            .record(proto::Invocation::Compute { id: [5, 0, 0] })
            .expect("recording");
        let (inv, table) = one_invocation(&stop.shader, &words);
        let v = final_values(&inv, &table);
        assert_eq!(v["i"], Value::Uint(5));
        // `base` = 1000 comes from the block the app moved to the
        // last binding (the debug buffer must go elsewhere).
        assert_eq!(v["add"], Value::Uint(5 * 2 + 1 + 1000));
    }
}
