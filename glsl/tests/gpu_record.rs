//! End-to-end: instrument real shaders, run them on Mesa llvmpipe through a
//! headless EGL context, read the debug buffers back, and compare what was
//! recorded with values computed independently from the pixel coordinates.

use shaderdbg_core::decode::{decode, Exit};
use shaderdbg_core::layout::{self, read_hits};
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::Invocation;
use shaderdbg_gl_headless::{ContextKind, Headless};
use shaderdbg_glsl::instrument::{instrument, raise_version, Breakpoint, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::{Stage, Value};
use shaderdbg_test_support::values::{final_value, float as f, floats as vec};

const W: u32 = 24;
const H: u32 = 16;
const BINDING: u32 = 7;

/// One shader body shared by every dialect; the header defines COLOR and what
/// the dialect needs. Values at pixel (x, y) follow from x and y alone.
const BODY: &str = r#"
float weight(float v, out float sq) {
    sq = v * v;
    return v * 0.5;
}

vec2 accumulate(vec2 p, int n) {
    vec2 acc = vec2(0.0);
    for (int i = 0; i < 8; i++) {
        if (i >= n) break;
        float sq;
        acc.x += weight(p.x, sq);
        acc.y += sq;
    }
    return acc;
}

void main() {
    vec2 p = floor(gl_FragCoord.xy);
    int n = int(mod(p.x + p.y, 5.0));
    vec2 acc = accumulate(p, n);
    mat2 m = mat2(1.0, 2.0, 3.0, 4.0);
    vec2 t = m * acc;
    float k = p.x > p.y ? 1.0 : -1.0;
    while (k < 3.0) {
        k += 1.0;
    }
    if (p.y == 3.0) discard;
    COLOR = vec4(t / 4096.0, k / 4.0, 1.0);
}
"#;

struct Dialect {
    name: &'static str,
    kind: ContextKind,
    target: Target,
    frag_header: &'static str,
    vert: &'static str,
}

const DIALECTS: &[Dialect] = &[
    Dialect {
        name: "110",
        kind: ContextKind::Compat45,
        target: Target::COMPAT,
        frag_header: "#version 110\n#define COLOR gl_FragColor\n",
        vert: "#version 110\nattribute vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
    },
    Dialect {
        name: "330 core",
        kind: ContextKind::Core45,
        target: Target::CORE,
        frag_header: "#version 330 core\nout vec4 color_out;\n#define COLOR color_out\n",
        vert: "#version 330 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
    },
    Dialect {
        name: "450 core",
        kind: ContextKind::Core45,
        target: Target::CORE,
        frag_header: "#version 450 core\nlayout(location = 0) out vec4 color_out;\n#define COLOR color_out\n",
        vert: "#version 450 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
    },
    Dialect {
        name: "300 es",
        kind: ContextKind::Gles32,
        target: Target::ES,
        frag_header: "#version 300 es\nprecision highp float;\nout vec4 color_out;\n#define COLOR color_out\n",
        vert: "#version 300 es\nin vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
    },
];

struct Run {
    gl: Headless,
    /// The vertex shader as written, for the original program.
    vert_original: &'static str,
    /// The vertex shader to link with instrumented fragment shaders.
    vert: String,
}

impl Run {
    fn new(d: &Dialect) -> Run {
        let gl = Headless::new(d.kind, W, H).expect("headless context");
        let vparsed = parse(&[d.vert], Stage::Vertex, None).expect("vertex parses");
        // GLSL ES stages must share a version: raise the vertex shader too.
        let vert = if d.target.es {
            raise_version(&vparsed, d.target).expect("raise vertex")
        } else {
            d.vert.to_string()
        };
        Run {
            gl,
            vert_original: d.vert,
            vert,
        }
    }
}

impl Run {
    /// The instrumented `frag` with its debug buffer: pixels and buffer words.
    fn render(&self, frag: &str, buffer: Vec<u8>) -> (Vec<u8>, Vec<u32>) {
        let storage = Some((BINDING, buffer.as_slice()));
        let r = self.gl.render(&self.vert, frag, storage);
        r.unwrap_or_else(|e| panic!("{e}\n{frag}"))
    }
}

fn source(d: &Dialect) -> String {
    format!("{}{}", d.frag_header, BODY)
}

fn expected(x: u32, y: u32) -> (i32, [f32; 2], [f32; 2]) {
    let n = ((x + y) % 5) as i32;
    let acc = [n as f32 * x as f32 * 0.5, n as f32 * (x * x) as f32];
    let t = [acc[0] + 3.0 * acc[1], 2.0 * acc[0] + 4.0 * acc[1]];
    (n, acc, t)
}

#[test]
fn record_matches_analytic_values_in_every_dialect() {
    for d in DIALECTS {
        let run = Run::new(d);
        let src = source(d);
        let parsed =
            parse(&[&src], Stage::Fragment, None).unwrap_or_else(|e| panic!("{}: {e}", d.name));
        let original = run
            .gl
            .render(run.vert_original, &src, None)
            .expect("renders")
            .0;
        for (x, y) in [(5u32, 2u32), (13, 9), (0, 0), (11, 3)] {
            let req = Request {
                mode: Mode::Record(Invocation::fragment(x, y)),
                target: d.target,
                binding: BINDING,
            };
            let out = instrument(&parsed, &req).unwrap_or_else(|e| panic!("{}: {e}", d.name));
            let (pixels, words) = run.render(&out.glsl, layout::new_record_buffer(1 << 16));
            assert!(
                pixels == original,
                "{}: instrumented program renders differently",
                d.name
            );
            let trace = decode(&words, &out.probes).expect("decodes");
            assert_eq!(
                trace.invocations.len(),
                1,
                "{} ({x},{y}): one invocation",
                d.name
            );
            let inv = &trace.invocations[0];
            assert_eq!(&inv.invocation.unwrap().key()[..2], &[x, y]);
            let (n, acc, t) = expected(x, y);
            if y == 3 {
                assert_eq!(inv.exit, Exit::Discarded, "{} ({x},{y})", d.name);
                continue;
            }
            assert_eq!(inv.exit, Exit::Returned, "{} ({x},{y})", d.name);
            let tbl = &out.probes;
            assert_eq!(vec(&final_value(inv, tbl, "p")), vec![x as f32, y as f32]);
            assert_eq!(final_value(inv, tbl, "n"), Value::Int(n));
            assert_eq!(
                vec(&final_value(inv, tbl, "acc")),
                acc.to_vec(),
                "{} ({x},{y})",
                d.name
            );
            assert_eq!(vec(&final_value(inv, tbl, "t")), t.to_vec());
            assert_eq!(f(&final_value(inv, tbl, "k")), 3.0);
            let m = final_value(inv, tbl, "m");
            assert_eq!(m.index(1).map(vec), Some(vec![3.0, 4.0]));
            // `weight` ran n times, two calls deep, with `sq` = x*x after its write.
            let weight_steps: Vec<_> = inv.steps.iter().filter(|s| s.depth == 2).collect();
            assert_eq!(weight_steps.len(), 2 * n as usize, "{} ({x},{y})", d.name);
            let sq_writes: Vec<f32> = inv
                .writes
                .iter()
                .filter(|w| {
                    tbl.vars[w.decl].name == "sq"
                        && inv.frames[w.frame]
                            .function
                            .is_some_and(|f| tbl.functions[f].name == "weight")
                })
                .map(|w| f(&w.value))
                .collect();
            assert_eq!(sq_writes, vec![(x * x) as f32; n as usize]);
            // The call stack inside `weight` names both callers.
            if let Some(k) = inv.steps.iter().position(|s| s.depth == 2) {
                let names: Vec<&str> = inv
                    .call_stack(k)
                    .iter()
                    .map(|(f, _)| f.map_or("?", |f| tbl.functions[f].name.as_str()))
                    .collect();
                assert_eq!(names, ["weight", "accumulate", "main"]);
            }
            // The colour write is logged with its final value.
            let color = inv
                .writes
                .iter()
                .rev()
                .find(|w| ["gl_FragColor", "color_out"].contains(&tbl.vars[w.decl].name.as_str()))
                .expect("colour written");
            assert_eq!(
                vec(&color.value),
                vec![t[0] / 4096.0, t[1] / 4096.0, 0.75, 1.0]
            );
        }
    }
}

/// The first step on the line of `src` that contains `needle`.
fn step_at(table: &ProbeTable, src: &str, needle: &str) -> shaderdbg_core::probes::Probe {
    let line = src
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle}")) as u32
        + 1;
    let step = table.step_for_line(line).expect("a step on that line");
    assert_eq!(step.line, line);
    step.clone()
}

/// Runs the hit test for one breakpoint on the line containing `needle`
/// in dialect `d`: its hits sorted as (x, y, occurrence), and the step.
/// The image must be the original's.
fn hit_test(d: &Dialect, src: &str, needle: &str, condition: &str) -> (Vec<(u32, u32, u32)>, u32) {
    let run = Run::new(d);
    let parsed = parse(&[src], Stage::Fragment, None).expect("parses");
    let table = shaderdbg_glsl::instrument::probe_table(&parsed);
    let step = step_at(&table, &parsed.source.text, needle);
    let req = Request {
        mode: Mode::HitTest(vec![Breakpoint {
            probe: step.id,
            condition: Some(condition.into()),
        }]),
        target: d.target,
        binding: BINDING,
    };
    let out = instrument(&parsed, &req).unwrap_or_else(|e| panic!("{}: {e}", d.name));
    let original = run
        .gl
        .render(run.vert_original, src, None)
        .expect("renders")
        .0;
    let (pixels, words) = run.render(&out.glsl, layout::new_hit_buffer(4096));
    assert!(pixels == original, "{}: hit test changed the image", d.name);
    let (hits, lost) = read_hits(&words);
    assert!(!lost);
    assert!(hits.iter().all(|h| h.probe == step.id));
    let mut got: Vec<(u32, u32, u32)> = hits
        .iter()
        .map(|h| (h.key[0], h.key[1], h.occurrence))
        .collect();
    got.sort();
    (got, step.id)
}

#[test]
fn hit_test_finds_every_invocation_where_the_condition_holds() {
    for d in DIALECTS {
        let (got, _) = hit_test(d, &source(d), "acc.y += sq;", "sq > 100.0 && p.y < 8.0");
        // One hit per invocation: the first reach of the step where the
        // condition held (the condition holds at every reach here, so 0).
        let mut want = Vec::new();
        for y in 0..H {
            for x in 0..W {
                let (n, _, _) = expected(x, y);
                // `p` is accumulate's parameter: the condition sees the callee's scope.
                if x * x > 100 && y < 8 && n > 0 {
                    want.push((x, y, 0));
                }
            }
        }
        want.sort();
        assert_eq!(got.len(), want.len(), "{}", d.name);
        assert_eq!(got, want, "{}", d.name);
    }
}

#[test]
fn watch_captures_an_expression_for_every_pixel() {
    for d in DIALECTS {
        let run = Run::new(d);
        let src = source(d);
        let parsed = parse(&[&src], Stage::Fragment, None).expect("parses");
        let table = shaderdbg_glsl::instrument::probe_table(&parsed);
        let step = step_at(&table, &parsed.source.text, "mat2 m =");
        let req = Request {
            mode: Mode::Watch {
                probe: step.id,
                expr: "vec2(float(n), acc.y)".into(),
            },
            target: d.target,
            binding: BINDING,
        };
        let out = instrument(&parsed, &req).unwrap_or_else(|e| panic!("{}: {e}", d.name));
        assert_eq!(out.watch_words, Some(2));
        let (_, words) = run.render(&out.glsl, layout::new_watch_buffer(W, H, 2));
        for y in 0..H {
            for x in 0..W {
                let at = layout::HEADER_WORDS + ((y * W + x) * 3) as usize;
                let (n, acc, _) = expected(x, y);
                assert_eq!(words[at], 1, "{} ({x},{y}) reached once", d.name);
                assert_eq!(f32::from_bits(words[at + 1]), n as f32);
                assert_eq!(f32::from_bits(words[at + 2]), acc[1]);
            }
        }
    }
}

#[test]
fn overflow_is_reported_not_fatal() {
    let d = &DIALECTS[2];
    let run = Run::new(d);
    let src = source(d);
    let parsed = parse(&[&src], Stage::Fragment, None).expect("parses");
    let req = Request {
        mode: Mode::Record(Invocation::fragment(13, 9)),
        target: d.target,
        binding: BINDING,
    };
    let out = instrument(&parsed, &req).expect("instruments");
    let (_, words) = run.render(&out.glsl, layout::new_record_buffer(40));
    let trace = decode(&words, &out.probes).expect("decodes");
    assert!(trace.overflowed);
    assert_eq!(trace.invocations[0].exit, Exit::Overflowed);
    assert!(!trace.invocations[0].steps.is_empty());
}

/// The hit test writes an invocation's hits when it ends, so every way of
/// ending counts: the end of `main`, a `return` in it, and a `discard` in
/// a helper (the hit just before it must not be lost). One hit per
/// invocation, at the first reach where the condition held.
#[test]
fn hits_are_written_at_every_way_an_invocation_ends() {
    const BODY: &str = r#"
float f(float v) {
    if (v > 20.0) discard;
    return v;
}

void main() {
    float acc = 0.0;
    for (int i = 0; i < 3; i++) {
        acc += f(gl_FragCoord.x + float(i));
    }
    if (gl_FragCoord.y > 4.0) {
        COLOR = vec4(1.0, 0.5, 0.0, 1.0);
        return;
    }
    COLOR = vec4(acc / 64.0, 0.0, 0.0, 1.0);
}
"#;
    for d in DIALECTS {
        let src = format!("{}{BODY}", d.frag_header);
        let (got, _) = hit_test(d, &src, "acc += f(", "i >= 1");
        // x + 0.5 + i > 20 discards: columns from 20 on end at i = 0, before
        // the condition holds; column 19 reaches i = 1 and is discarded in
        // that call (after the hit); the others run on, to the early return
        // (y > 4) or the end of main.
        let mut want: Vec<(u32, u32, u32)> = (0..H)
            .flat_map(|y| (0..20).map(move |x| (x, y, 1)))
            .collect();
        want.sort();
        assert_eq!(got, want, "{}", d.name);
    }
}
