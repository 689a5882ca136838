//! The other instrumentation modes end-to-end on Mesa llvmpipe: hit tests
//! (breakpoints with WGSL conditions, NaN/Inf checks of the entry point's
//! results) and watches, decoded with the core's decoders and compared with
//! what the CPU computes from the pixel; images unchanged.

use shaderdbg_core::decode::{decode_hits, decode_watch, Hit, HitTag};
use shaderdbg_core::layout;
use shaderdbg_core::{Invocation, Value};
use shaderdbg_gl_headless::{ContextKind, Headless};
use shaderdbg_test_support::values::floats;
use shaderdbg_wgsl::emit::to_glsl;
use shaderdbg_wgsl::{
    instrument, parse, Breakpoint, ExprError, InstrumentError, Instrumented, Mode, Request,
};

const W: u32 = 24;
const H: u32 = 16;
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

const VERT: &str = "#version 430 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

fn line_of(src: &str, needle: &str) -> u32 {
    src.lines()
        .position(|l| l.contains(needle))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("no line with {needle}"))
}

fn try_instrument(src: &str, mode: Mode) -> Result<Instrumented, InstrumentError> {
    let parsed = parse(src).expect("parses");
    instrument(
        &parsed,
        &Request {
            entry_point: "fs_main".to_string(),
            mode,
            group: 0,
            binding: BINDING,
        },
    )
}

fn step(src: &str, needle: &str) -> u32 {
    let parsed = parse(src).expect("parses");
    let table = shaderdbg_wgsl::probe_table(&parsed, "fs_main").expect("table");
    table
        .step_for_line(line_of(src, needle))
        .unwrap_or_else(|| panic!("no step at {needle}"))
        .id
}

fn bp(src: &str, needle: &str, condition: Option<&str>) -> Breakpoint {
    Breakpoint {
        probe: step(src, needle),
        condition: condition.map(str::to_string),
    }
}

struct Gpu {
    gl: Headless,
}

impl Gpu {
    fn new() -> Gpu {
        Gpu {
            gl: Headless::new(ContextKind::Core45, W, H).expect("headless context"),
        }
    }

    fn glsl(inst: &Instrumented) -> String {
        to_glsl(inst, &Default::default()).expect("GLSL")
    }

    fn original(&self, src: &str) -> Vec<u8> {
        let plain = try_instrument(src, Mode::Plain).expect("plain");
        self.gl
            .render(VERT, &Self::glsl(&plain), None)
            .expect("renders")
            .0
    }

    /// Renders `inst` with `buffer`; checks the image against `original`.
    fn run(&self, inst: &Instrumented, buffer: Vec<u8>, original: &[u8]) -> Vec<u32> {
        let frag = Self::glsl(inst);
        let (pixels, words) = self
            .gl
            .render(VERT, &frag, Some((BINDING, buffer.as_slice())))
            .unwrap_or_else(|e| panic!("{e}\n{frag}"));
        assert!(
            pixels == original,
            "the instrumented shader renders differently\n{frag}"
        );
        words
    }
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
    let original = gpu.original(SHADER);
    let loop_step = bp(SHADER, "acc += shade", Some("i == 2 && p.y == 3.0"));
    let in_callee = bp(SHADER, "return w;", Some("v > 20.0"));
    let discard = bp(SHADER, "discard;", None);
    let (lp, cp, dp) = (loop_step.probe, in_callee.probe, discard.probe);
    let inst = try_instrument(SHADER, Mode::HitTest(vec![loop_step, in_callee, discard]))
        .unwrap_or_else(|e| panic!("{e}"));
    let words = gpu.run(&inst, layout::new_hit_buffer(4096), &original);
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

#[test]
fn a_condition_that_never_holds_hits_nothing() {
    let gpu = Gpu::new();
    let original = gpu.original(SHADER);
    let inst = try_instrument(
        SHADER,
        Mode::HitTest(vec![bp(
            SHADER,
            "acc += shade",
            Some("p.x < 0.0 || acc > 1e9"),
        )]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let words = gpu.run(&inst, layout::new_hit_buffer(64), &original);
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
    let original = gpu.original(SHADER);
    let probe = step(SHADER, "return vec4<f32>(acc");
    let inst = try_instrument(
        SHADER,
        Mode::Watch {
            probe,
            expr: "vec2<f32>(acc + p.y, frag.x)".to_string(),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let ty = inst.watch_type.clone().expect("watch type");
    let words = ty.words().expect("words");
    assert_eq!(words, 2);
    let buf = gpu.run(&inst, layout::new_watch_buffer(W, H, words), &original);
    let values = decode_watch(&buf, &ty, (W * H) as usize).expect("decodes");
    for y in 0..H {
        for x in 0..W {
            let got = &values[(y * W + x) as usize];
            if (x, y) == (5, 5) {
                assert_eq!(got, &None, "discarded before the step");
                continue;
            }
            // acc = sum over i < 4 of 2 (x + i) = 8x + 12.
            let acc = 8.0 * x as f32 + 12.0;
            let got = got
                .as_ref()
                .unwrap_or_else(|| panic!("({x},{y}): no value"));
            assert_eq!(floats(got), [acc + y as f32, x as f32 + 0.5], "({x},{y})");
        }
    }
    // In a loop: the first reach (i = 0).
    let probe = step(SHADER, "acc += shade");
    let inst = try_instrument(
        SHADER,
        Mode::Watch {
            probe,
            expr: "u32(i) + 10u * u32(p.x)".to_string(),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let ty = inst.watch_type.clone().expect("watch type");
    let buf = gpu.run(&inst, layout::new_watch_buffer(W, H, 1), &original);
    let values = decode_watch(&buf, &ty, (W * H) as usize).expect("decodes");
    for y in 0..H {
        for x in 0..W {
            assert_eq!(
                values[(y * W + x) as usize],
                Some(Value::Uint(10 * x)),
                "({x},{y})"
            );
        }
    }
    let e = try_instrument(
        SHADER,
        Mode::Watch {
            probe,
            expr: "p.x +".to_string(),
        },
    )
    .map(|_| ())
    .unwrap_err();
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
    let original = gpu.original(NAN_SHADER);
    let inst = try_instrument(NAN_SHADER, Mode::HitTestNanInf(Vec::new()))
        .unwrap_or_else(|e| panic!("{e}"));
    let words = gpu.run(&inst, layout::new_hit_buffer(4096), &original);
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

/// A vertex shader; gl-headless draws one full-screen triangle.
const VERTEX: &str = r#"
struct Out {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs(@location(0) p: vec2<f32>) -> Out {
    var o: Out;
    let q = p * 0.5 + vec2<f32>(0.5);
    o.pos = vec4<f32>(p, 0.0, 1.0);
    o.uv = q;
    return o;
}
"#;

const COMPUTE: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(4, 2)
fn cs(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    let i = wg.x * 4u + lid.x + 8u * lid.y;
    var acc = 0u;
    for (var k = 0u; k <= i; k++) {
        acc += k;
    }
    out[i] = acc;
}
"#;

fn instrument_entry(src: &str, entry: &str, mode: Mode) -> Instrumented {
    let parsed = parse(src).expect("parses");
    instrument(
        &parsed,
        &Request {
            entry_point: entry.to_string(),
            mode,
            group: 1,
            binding: BINDING,
        },
    )
    .unwrap_or_else(|e| panic!("{entry}: {e}"))
}

fn step_in(src: &str, entry: &str, needle: &str) -> u32 {
    let parsed = parse(src).expect("parses");
    let table = shaderdbg_wgsl::probe_table(&parsed, entry).expect("table");
    table
        .step_for_line(line_of(src, needle))
        .unwrap_or_else(|| panic!("no step at {needle}"))
        .id
}

#[test]
fn vertices_hit_by_index() {
    let gpu = Gpu::new();
    let probe = step_in(VERTEX, "vs", "o.uv = q;");
    let frag = "#version 430 core\nlayout(location = 0) smooth in vec2 uv;\nout vec4 c;\nvoid main() { c = vec4(uv, 0.0, 1.0); }\n";
    let draw = |inst: &Instrumented, buffer: Option<Vec<u8>>| -> (Vec<u8>, Vec<u32>) {
        let vert = Gpu::glsl(inst);
        let program = gpu
            .gl
            .compile_program(&[
                (shaderdbg_gl_headless::Stage::Vertex, vert.as_str()),
                (shaderdbg_gl_headless::Stage::Fragment, frag),
            ])
            .unwrap_or_else(|e| panic!("{e}\n{vert}"));
        let buf = buffer.map(|b| gpu.gl.create_storage_buffer(BINDING, &b).expect("buffer"));
        gpu.gl.draw_fullscreen(&program).expect("draw");
        let pixels = gpu.gl.read_pixels().expect("pixels");
        let words = buf
            .as_ref()
            .map(|b| layout::to_words(&gpu.gl.read_storage_buffer(b).expect("read")))
            .unwrap_or_default();
        if let Some(b) = buf {
            gpu.gl.delete_storage_buffer(b).expect("delete");
        }
        gpu.gl.delete_program(program).expect("delete");
        (pixels, words)
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
                Mode::HitTestNanInf(vec![Breakpoint {
                    probe: step_in(VERTEX, "vs", "o.uv = q;"),
                    condition: Some("q.x > 1.0".to_string()),
                }]),
            ),
        ),
        (
            "comp-hits",
            instrument_entry(
                COMPUTE,
                "cs",
                Mode::HitTest(vec![Breakpoint {
                    probe: step_in(COMPUTE, "cs", "acc += k;"),
                    condition: Some("k == 3u && lid.x == 1u".to_string()),
                }]),
            ),
        ),
    ];
    let dir = std::env::temp_dir().join(format!("shaderdbg-wgsl-modes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, inst) in &cases {
        to_glsl(inst, &Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let words = shaderdbg_wgsl::emit::to_spirv(inst, &Default::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let path = dir.join(format!("{name}.spv"));
        std::fs::write(&path, layout::to_bytes(&words)).expect("write");
        let out = std::process::Command::new("spirv-val")
            .arg(&path)
            .output()
            .expect("spirv-val (spirv-tools, installed with glslang-tools by `cargo xtask setup`)");
        assert!(
            out.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    // Watching compute invocations is not there yet.
    let parsed = parse(COMPUTE).expect("parses");
    let e = instrument(
        &parsed,
        &Request {
            entry_point: "cs".to_string(),
            mode: Mode::Watch {
                probe: step_in(COMPUTE, "cs", "acc += k;"),
                expr: "k".to_string(),
            },
            group: 1,
            binding: BINDING,
        },
    )
    .map(|_| ())
    .unwrap_err();
    assert!(matches!(e, InstrumentError::Unsupported(_)), "{e:?}");
}
