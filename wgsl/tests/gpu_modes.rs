//! The other instrumentation modes end-to-end on Mesa llvmpipe: hit tests
//! (breakpoints with WGSL conditions, NaN/Inf checks of the entry point's
//! results) and watches, decoded with the core's decoders and compared with
//! what the CPU computes from the pixel; images unchanged.

mod common;

use common::{
    assert_spirv_valid, glsl, instrument_src, line_of, step_in, Gpu, COMPUTE, H, VERTEX, W,
};
use shaderdbg_core::decode::{decode_hits, decode_watch, Hit, HitTag};
use shaderdbg_core::layout;
use shaderdbg_core::types::Type;
use shaderdbg_core::{Invocation, Value};
use shaderdbg_test_support::values::floats;
use shaderdbg_wgsl::emit::to_glsl;
use shaderdbg_wgsl::{parse, Breakpoint, ExprError, InstrumentError, Instrumented, Mode, Request};

const BINDING: u32 = 5;

const SHADER: &str = r#"
fn shade(v: f32) -> f32 {
    let w = v * 2.0;
    return w;
}

@fragment
fn fs_main(@builtin(position) frag: vec4<f32>) -> @location(0) vec4<f32> {
    let p = floor(frag.xy);
    var acc = 0.0;
    for (var i = 0; i < 4; i++) {
        acc += shade(p.x + f32(i));
    }
    if p.x == 5.0 && p.y == 5.0 {
        discard;
    }
    return vec4<f32>(acc / 256.0, p.y / 16.0, 0.0, 1.0);
}
"#;

fn try_instrument(src: &str, mode: Mode) -> Result<Instrumented, InstrumentError> {
    instrument_src(src, "fs_main", mode, 0, BINDING)
}

fn step(src: &str, needle: &str) -> u32 {
    step_in(src, "fs_main", needle)
}

fn bp(src: &str, needle: &str, condition: Option<&str>) -> Breakpoint {
    bp_in(src, "fs_main", needle, condition)
}

/// A breakpoint at the step of `needle` in entry point `entry`.
fn bp_in(src: &str, entry: &str, needle: &str, condition: Option<&str>) -> Breakpoint {
    Breakpoint {
        probe: step_in(src, entry, needle),
        condition: condition.map(str::to_string),
    }
}

/// The image of `src` not instrumented.
fn plain_image(gpu: &Gpu, src: &str) -> Vec<u8> {
    let plain = try_instrument(src, Mode::Plain).expect("plain");
    gpu.render(&glsl(&plain), None).0
}

/// Renders `inst` with `buffer`; checks the image against `original`.
fn run(gpu: &Gpu, inst: &Instrumented, buffer: Vec<u8>, original: &[u8]) -> Vec<u32> {
    let frag = glsl(inst);
    let (pixels, words) = gpu.render(&frag, Some((BINDING, &buffer)));
    assert!(
        pixels == original,
        "the instrumented shader renders differently\n{frag}"
    );
    words
}

/// A watch of `expr` at `probe` of `SHADER` over the image: its type and
/// the value at each pixel.
fn watch_image(gpu: &Gpu, original: &[u8], probe: u32, expr: &str) -> (Type, Vec<Option<Value>>) {
    let expr = expr.to_string();
    let inst =
        try_instrument(SHADER, Mode::Watch { probe, expr }).unwrap_or_else(|e| panic!("{e}"));
    let ty = inst.watch_type.clone().expect("watch type");
    let words = ty.words().expect("words");
    let buf = run(gpu, &inst, layout::new_watch_buffer(W, H, words), original);
    let values = decode_watch(&buf, &ty, (W * H) as usize).expect("decodes");
    (ty, values)
}

/// A watch image of `SHADER`'s `return` line: no value at the pixel it
/// discards, (5, 5), `want(x, y)` at the others.
fn assert_at_return(values: &[Option<Value>], want: impl Fn(u32, u32) -> [f32; 2]) {
    for y in 0..H {
        for x in 0..W {
            let got = &values[(y * W + x) as usize];
            if (x, y) == (5, 5) {
                assert_eq!(got, &None, "discarded before the step");
                continue;
            }
            let got = got
                .as_ref()
                .unwrap_or_else(|| panic!("({x},{y}): no value"));
            assert_eq!(floats(got), want(x, y), "({x},{y})");
        }
    }
}

/// Why a watch of `expr` at `probe` of `src` cannot be instrumented.
fn watch_error(src: &str, probe: u32, expr: &str) -> InstrumentError {
    let mode = Mode::Watch {
        probe,
        expr: expr.to_string(),
    };
    instrument_src(src, "fs_main", mode, 0, BINDING)
        .map(|_| ())
        .unwrap_err()
}

fn hit(tag: HitTag, probe: u32, line: u32, occurrence: u32, x: u32, y: u32) -> Hit {
    Hit {
        tag,
        probe,
        line,
        occurrence,
        invocation: Invocation::fragment(x, y),
    }
}

fn key(h: &Hit) -> (u32, u32, u32, u32, u32, u32) {
    let tag = match h.tag {
        HitTag::Breakpoint(i) => i,
        HitTag::NanInf => u32::MAX,
    };
    let Invocation::Fragment { x, y, .. } = h.invocation else {
        panic!("not a fragment: {h:?}")
    };
    (x, y, h.probe, h.occurrence, h.line, tag)
}

fn assert_hits(got: &[Hit], mut want: Vec<Hit>) {
    // decode_hits' order: pixel (row-major), occurrence, line, tag.
    want.sort_by_key(|h| {
        let k = key(h);
        (k.1, k.0, k.3, k.4, k.5)
    });
    let got: Vec<_> = got.iter().map(key).collect();
    let want: Vec<_> = want.iter().map(key).collect();
    assert_eq!(got.len(), want.len(), "{got:?}\nwant {want:?}");
    assert_eq!(got, want);
}

#[test]
fn breakpoints_hit_where_their_conditions_hold() {
    let gpu = Gpu::new();
    let original = plain_image(&gpu, SHADER);
    let loop_step = bp(SHADER, "acc += shade", Some("i == 2 && p.y == 3.0"));
    let in_callee = bp(SHADER, "return w;", Some("v > 20.0"));
    let discard = bp(SHADER, "discard;", None);
    let (lp, cp, dp) = (loop_step.probe, in_callee.probe, discard.probe);
    let inst = try_instrument(SHADER, Mode::HitTest(vec![loop_step, in_callee, discard]))
        .unwrap_or_else(|e| panic!("{e}"));
    let words = run(&gpu, &inst, layout::new_hit_buffer(4096), &original);
    let (hits, truncated) = decode_hits(&words, &inst.probes);
    assert!(!truncated);
    let (ll, lc, ld) = (
        line_of(SHADER, "acc += shade"),
        line_of(SHADER, "return w;"),
        line_of(SHADER, "discard;"),
    );
    let mut want = Vec::new();
    for y in 0..H {
        for x in 0..W {
            if y == 3 {
                // The third reach of the loop's statement.
                want.push(hit(HitTag::Breakpoint(0), lp, ll, 2, x, y));
            }
            // `shade` is called with x + i, i = 0..4: the first call with
            // v > 20 is the (21 - x)th.
            if x + 3 > 20 {
                let occ = 21u32.saturating_sub(x);
                want.push(hit(HitTag::Breakpoint(1), cp, lc, occ, x, y));
            }
            if (x, y) == (5, 5) {
                want.push(hit(HitTag::Breakpoint(2), dp, ld, 0, x, y));
            }
        }
    }
    assert_hits(&hits, want);
}

/// A hit test for one pixel (the debugger's pixel filter): only its
/// invocation writes hits, so a buffer too small for the others' still
/// gets them.
#[test]
fn a_hit_test_for_one_invocation_writes_only_its_hits() {
    let gpu = Gpu::new();
    let original = plain_image(&gpu, SHADER);
    let src = parse(SHADER).expect("parses");
    let loop_step = bp(SHADER, "acc += shade", None);
    let lp = loop_step.probe;
    let inst = shaderdbg_wgsl::instrument(
        &src,
        &Request {
            entry_point: "fs_main".into(),
            mode: Mode::HitTest(vec![loop_step]),
            group: 0,
            binding: BINDING,
            only: Some(Invocation::fragment(6, 3)),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let words = run(&gpu, &inst, layout::new_hit_buffer(1), &original);
    let (hits, truncated) = decode_hits(&words, &inst.probes);
    assert!(!truncated);
    let ll = line_of(SHADER, "acc += shade");
    assert_hits(&hits, vec![hit(HitTag::Breakpoint(0), lp, ll, 0, 6, 3)]);
}

#[test]
fn a_condition_that_never_holds_hits_nothing() {
    let gpu = Gpu::new();
    let original = plain_image(&gpu, SHADER);
    let inst = try_instrument(
        SHADER,
        Mode::HitTest(vec![bp(
            SHADER,
            "acc += shade",
            Some("p.x < 0.0 || acc > 1e9"),
        )]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let words = run(&gpu, &inst, layout::new_hit_buffer(64), &original);
    assert_eq!(words[0], 0, "hit count");
    assert!(decode_hits(&words, &inst.probes).0.is_empty());
}

#[test]
fn bad_conditions_are_errors_naming_the_column() {
    let cond = |c: &str| {
        try_instrument(
            SHADER,
            Mode::HitTest(vec![bp(SHADER, "acc += shade", Some(c))]),
        )
        .map(|_| ())
        .unwrap_err()
    };
    let column = |e: InstrumentError| match e {
        InstrumentError::Condition {
            error: ExprError::Invalid { column, .. },
            ..
        } => column,
        other => panic!("{other:?}"),
    };
    // A syntax error, an unknown name, a type error.
    assert_eq!(column(cond("p.x > > 2.0")), 7);
    assert_eq!(column(cond("i == 2 && q > 1.0")), 11);
    let e = cond("p.x + 1u > 2.0");
    assert!(
        matches!(
            e,
            InstrumentError::Condition {
                error: ExprError::Invalid { .. },
                ..
            }
        ),
        "{e:?}"
    );
    assert!(matches!(
        cond("p.x"),
        InstrumentError::Condition {
            error: ExprError::NotBool(_),
            ..
        }
    ));
    // No calls of the shader's functions, no injected statements.
    assert!(matches!(
        cond("shade(p.x) > 2.0"),
        InstrumentError::Condition {
            error: ExprError::SideEffects,
            ..
        }
    ));
    assert_eq!(column(cond("true; acc = 1.0")), 5);
    // The message says what and where.
    let text = cond("i == 2 && q > 1.0").to_string();
    assert!(
        text.starts_with("breakpoint condition `i == 2 && q > 1.0`: column 11: "),
        "{text}"
    );
    // A variable of another function is not in scope.
    column(cond("w > 1.0"));
    // Breakpoints go on steps.
    let e = try_instrument(
        SHADER,
        Mode::HitTest(vec![Breakpoint {
            probe: 9999,
            condition: None,
        }]),
    )
    .map(|_| ())
    .unwrap_err();
    assert_eq!(e, InstrumentError::NoSuchProbe(9999));
}

#[test]
fn a_watch_gives_the_value_at_every_pixel() {
    let gpu = Gpu::new();
    let original = plain_image(&gpu, SHADER);
    let probe = step(SHADER, "return vec4<f32>(acc");
    let (ty, values) = watch_image(&gpu, &original, probe, "vec2<f32>(acc + p.y, frag.x)");
    assert_eq!(ty.words(), Some(2));
    assert_at_return(&values, |x, y| {
        // acc = sum over i < 4 of 2 (x + i) = 8x + 12.
        let acc = 8.0 * x as f32 + 12.0;
        [acc + y as f32, x as f32 + 0.5]
    });
    // In a loop: the first reach (i = 0).
    let probe = step(SHADER, "acc += shade");
    let (_, values) = watch_image(&gpu, &original, probe, "u32(i) + 10u * u32(p.x)");
    for y in 0..H {
        for x in 0..W {
            assert_eq!(
                values[(y * W + x) as usize],
                Some(Value::Uint(10 * x)),
                "({x},{y})"
            );
        }
    }
    let e = watch_error(SHADER, probe, "p.x +");
    assert!(
        matches!(
            e,
            InstrumentError::Watch {
                error: ExprError::Invalid { .. },
                ..
            }
        ),
        "{e:?}"
    );
}

/// A watch may call the shader's pure functions (`shade`), evaluated on the
/// GPU with its run-time rules: integer overflow wraps.
#[test]
fn a_watch_calls_the_shader_s_pure_functions() {
    let gpu = Gpu::new();
    let original = plain_image(&gpu, SHADER);
    let probe = step(SHADER, "return vec4<f32>(acc");
    let expr =
        "vec2<f32>(shade(p.x) + shade(p.y), f32(i32(p.x + 3.0) * 2147483647 == -i32(p.x + 3.0)))";
    let (ty, values) = watch_image(&gpu, &original, probe, expr);
    assert_eq!(ty.words(), Some(2));
    assert_at_return(&values, |x, y| {
        // (x + 3) * (2^31 - 1) wraps to -(x + 3) in 32 bits.
        let wraps = (x as i32 + 3).wrapping_mul(i32::MAX) == -(x as i32 + 3);
        [2.0 * x as f32 + 2.0 * y as f32, f32::from(u8::from(wraps))]
    });
    // Inside `shade`, calling `shade` would recurse.
    let inner = step(SHADER, "return w;");
    assert_eq!(
        watch_error(SHADER, inner, "shade(v)"),
        InstrumentError::Watch {
            expr: "shade(v)".to_string(),
            error: ExprError::Recursive,
        }
    );
}

const IMPURE_SHADER: &str = r#"
var<private> calls: u32;

fn bump() -> u32 {
    calls += 1u;
    return calls;
}

fn kill(v: f32) -> f32 {
    if v > 2.0 {
        discard;
    }
    return v;
}

fn twice(v: f32) -> f32 {
    return f32(bump()) * v;
}

@fragment
fn fs_main(@builtin(position) frag: vec4<f32>) -> @location(0) vec4<f32> {
    let p = kill(frag.x) + twice(frag.y);
    return vec4<f32>(p, 0.0, 0.0, 1.0);
}
"#;

/// Functions that write globals, discard, or call such functions are
/// refused in watches, naming the function the expression calls.
#[test]
fn a_watch_refuses_functions_with_side_effects() {
    let probe = step_in(IMPURE_SHADER, "fs_main", "return vec4<f32>(p");
    for (expr, name) in [
        ("bump()", "bump"),
        ("kill(p)", "kill"),
        ("twice(p) + 1.0", "twice"),
    ] {
        assert_eq!(
            watch_error(IMPURE_SHADER, probe, expr),
            InstrumentError::Watch {
                expr: expr.to_string(),
                error: ExprError::ImpureCall(name.to_string()),
            }
        );
    }
}

const NAN_SHADER: &str = r#"
struct Out {
    @location(0) color: vec4<f32>,
    @location(1) extra: f32,
}

@fragment
fn fs_main(@builtin(position) frag: vec4<f32>) -> Out {
    let p = floor(frag.xy);
    var o: Out;
    o.color = vec4<f32>(0.5, 0.25, 0.0, 1.0);
    o.extra = 1.0;
    if p.y == 7.0 {
        o.extra = sqrt(-1.0 - p.x);
        return o;
    }
    o.color.x = 1.0 / (p.x - 3.0);
    return o;
}
"#;

#[test]
fn nan_and_inf_results_are_hits_at_their_pixels() {
    let gpu = Gpu::new();
    let original = plain_image(&gpu, NAN_SHADER);
    let inst = try_instrument(NAN_SHADER, Mode::HitTestNanInf(Vec::new()))
        .unwrap_or_else(|e| panic!("{e}"));
    let words = run(&gpu, &inst, layout::new_hit_buffer(4096), &original);
    let (hits, truncated) = decode_hits(&words, &inst.probes);
    assert!(!truncated);
    let parsed = parse(NAN_SHADER).expect("parses");
    let table = shaderdbg_wgsl::probe_table(&parsed, "fs_main").expect("table");
    let returns: Vec<u32> = NAN_SHADER
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == "return o;")
        .map(|(i, _)| i as u32 + 1)
        .collect();
    let [le, ll] = returns[..] else {
        panic!("two returns")
    };
    let early = table.step_for_line(le).expect("early").id;
    let late = table.step_for_line(ll).expect("late").id;
    let mut want = Vec::new();
    for y in 0..H {
        for x in 0..W {
            if y == 7 {
                want.push(hit(HitTag::NanInf, early, le, 0, x, y));
            } else if x == 3 {
                want.push(hit(HitTag::NanInf, late, ll, 0, x, y));
            }
        }
    }
    assert_hits(&hits, want);
}

fn instrument_entry(src: &str, entry: &str, mode: Mode) -> Instrumented {
    instrument_src(src, entry, mode, 1, BINDING).unwrap_or_else(|e| panic!("{entry}: {e}"))
}

#[test]
fn vertices_hit_by_index() {
    let gpu = Gpu::new();
    let probe = step_in(VERTEX, "vs", "o.uv = q;");
    let draw = |inst: &Instrumented, buffer: Option<Vec<u8>>| {
        gpu.draw_vertex(&glsl(inst), buffer.map(|b| (BINDING, b)))
    };
    let (original, _) = draw(&instrument_entry(VERTEX, "vs", Mode::Plain), None);
    // Corners (-1,-1), (3,-1), (-1,3): only vertex 1 has q.x > 1.
    let inst = instrument_entry(
        VERTEX,
        "vs",
        Mode::HitTest(vec![Breakpoint {
            probe,
            condition: Some("q.x > 1.0 && o.pos.w == 1.0".to_string()),
        }]),
    );
    let (pixels, words) = draw(&inst, Some(layout::new_hit_buffer(16)));
    assert!(pixels == original, "the image changed");
    let (hits, _) = decode_hits(&words, &inst.probes);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(
        hits[0].invocation,
        Invocation::Vertex {
            vertex: 1,
            instance: 0
        }
    );
    assert_eq!(
        (hits[0].probe, hits[0].tag, hits[0].occurrence),
        (probe, HitTag::Breakpoint(0), 0)
    );
    // A watch by vertex index: q of each corner.
    let inst = instrument_entry(
        VERTEX,
        "vs",
        Mode::Watch {
            probe,
            expr: "q".to_string(),
        },
    );
    let ty = inst.watch_type.clone().expect("type");
    let (pixels, words) = draw(&inst, Some(layout::new_watch_buffer(3, 1, 2)));
    assert!(pixels == original, "the image changed");
    let values = decode_watch(&words, &ty, 3).expect("decodes");
    let got: Vec<Vec<f32>> = values
        .iter()
        .map(|v| floats(v.as_ref().expect("reached")))
        .collect();
    assert_eq!(got, [vec![0.0, 0.0], vec![2.0, 0.0], vec![0.0, 2.0]]);
}

/// Every mode's module goes through naga's SPIR-V back end and `spirv-val`
/// (the Vulkan path), in every stage.
#[test]
fn every_mode_emits_valid_spirv() {
    let cases: Vec<(&str, Instrumented)> = vec![
        (
            "frag-hits",
            instrument_entry(
                SHADER,
                "fs_main",
                Mode::HitTestNanInf(vec![
                    bp(SHADER, "acc += shade", Some("i == 2 && p.y == 3.0")),
                    bp(SHADER, "return w;", Some("v > 20.0")),
                    bp(SHADER, "discard;", None),
                ]),
            ),
        ),
        (
            "frag-watch",
            instrument_entry(
                SHADER,
                "fs_main",
                Mode::Watch {
                    probe: step(SHADER, "acc += shade"),
                    expr: "vec3<f32>(p, acc)".to_string(),
                },
            ),
        ),
        (
            "frag-nan-struct",
            instrument_entry(NAN_SHADER, "fs_main", Mode::HitTestNanInf(Vec::new())),
        ),
        (
            "vert-hits",
            instrument_entry(
                VERTEX,
                "vs",
                Mode::HitTestNanInf(vec![bp_in(VERTEX, "vs", "o.uv = q;", Some("q.x > 1.0"))]),
            ),
        ),
        (
            "comp-hits",
            instrument_entry(
                COMPUTE,
                "cs",
                Mode::HitTest(vec![bp_in(
                    COMPUTE,
                    "cs",
                    "acc += k;",
                    Some("k == 3u && lid.x == 1u"),
                )]),
            ),
        ),
    ];
    for (name, inst) in &cases {
        to_glsl(inst, &Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert_spirv_valid("modes", &cases);
}

/// A watch over a compute dispatch: one slot per invocation by linear
/// global id (`id.x + n.x * (id.y + n.y * id.z)`, `n` the dispatch's size
/// in invocations), as the GLSL engine's; the shader's results unchanged.
#[test]
fn a_compute_watch_gives_the_value_of_every_invocation_by_linear_global_id() {
    let gpu = Gpu::new();
    let plain = instrument_src(COMPUTE, "cs", Mode::Plain, 0, BINDING).expect("plain");
    let (original, _) = gpu.dispatch_compute(&plain, None);
    let watch = Mode::Watch {
        probe: step_in(COMPUTE, "cs", "out[i] = acc;"),
        expr: "vec3<u32>(i, acc, lid.y)".to_string(),
    };
    let inst = instrument_src(COMPUTE, "cs", watch, 0, BINDING).expect("watch");
    let ty = inst.watch_type.clone().expect("watch type");
    // 2 x 1 x 1 work groups of 4 x 2: 8 x 2 invocations.
    let (n, slots) = ([8u32, 2], 16);
    let buffer = layout::new_watch_buffer(slots, 1, ty.words().expect("words"));
    let (out, words) = gpu.dispatch_compute(&inst, Some((BINDING, &buffer)));
    assert_eq!(out, original, "results change under the watch");
    let values = decode_watch(&words, &ty, slots as usize).expect("decodes");
    for wg in 0..2u32 {
        for (lx, ly) in (0..2u32).flat_map(|y| (0..4u32).map(move |x| (x, y))) {
            let id = [wg * 4 + lx, ly];
            let slot = id[0] + n[0] * id[1];
            // The shader's `i` and `acc` computed here.
            let i = wg * 4 + lx + 8 * ly;
            let want = [i, i * (i + 1) / 2, ly].map(Value::Uint).to_vec();
            assert_eq!(
                values[slot as usize],
                Some(Value::List(want)),
                "work group {wg}, local ({lx}, {ly})"
            );
        }
    }
    assert_spirv_valid("compute-watch", &[("watch", inst)]);
}
