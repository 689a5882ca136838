//! Shapes of GLSL that are easy to get wrong when rewriting: each shader is
//! instrumented in every mode, must compile and link on llvmpipe, and must draw
//! the same image as the original.

use shaderdbg_core::decode::{decode, decode_sanitizer, Exit};
use shaderdbg_core::layout;
use shaderdbg_core::Invocation;
use shaderdbg_gl_headless::{ContextKind, Headless, Stage as GlStage};
use shaderdbg_glsl::instrument::{
    instrument, probe_table, Breakpoint, Checks, Mode, Request, Target,
};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

const VERT: &str = "#version 450 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

const CASES: &[(&str, &str)] = &[
    (
        "local and anonymous structs",
        "struct { float a; } anon;
void main() {
    struct Local { vec2 v; int n; };
    Local l = Local(gl_FragCoord.xy, 3);
    l.v.x += float(l.n);
    anon.a = l.v.x;
    o = vec4(l.v, anon.a, 1.0) / 32.0;
}",
    ),
    (
        "arrays of arrays, dynamic indices, compound ops",
        "void main() {
    float grid[2][3];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            grid[i][j] = float(i * 3 + j);
    int k = int(gl_FragCoord.x) % 3;
    grid[1][k] *= 2.0;
    int idx = 0;
    float picked = grid[1][idx++];
    o = vec4(grid[1][k], picked, float(idx), 1.0) / 16.0;
}",
    ),
    (
        "inout arrays and structs through functions",
        "struct P { vec3 pos; float w[2]; };
void grow(inout float a[4], inout P p) {
    for (int i = 0; i < 4; i++) a[i] += p.w[i % 2];
    p.pos.z = a[3];
}
void main() {
    float a[4] = float[4](1.0, 2.0, 3.0, 4.0);
    P p = P(vec3(gl_FragCoord.xy, 0.0), float[2](0.5, 0.25));
    grow(a, p);
    o = vec4(p.pos / 32.0, a[0] / 8.0);
}",
    ),
    (
        "side effects in conditions, ternaries and loop headers",
        "int counter = 0;
bool tick() { counter++; return counter % 2 == 0; }
void main() {
    int n = 0;
    for (int i = 0, j = 10; i < j && tick(); i += 2, j--) n++;
    while (tick() && n < 5) n += (counter > 3 ? 2 : 1);
    do { n--; } while (n > 2 && tick());
    float x = (n = n * 2) > 3 ? float(n) : -float(n);
    o = vec4(float(n), float(counter), x, 1.0) / 16.0;
}",
    ),
    (
        "switch, early return, discard in a helper",
        "float classify(float v) {
    switch (int(v) % 4) {
        case 0: return 0.25;
        case 1:
        case 2: { float t = v * 0.5; return fract(t); }
        default: break;
    }
    if (v > 30.0) discard;
    return 1.0;
}
void main() {
    o = vec4(classify(gl_FragCoord.x), classify(gl_FragCoord.y), 0.0, 1.0);
}",
    ),
    (
        "matrices, swizzle writes, built-ins with out parameters",
        "void main() {
    mat3 m = mat3(1.0);
    m[1] = vec3(gl_FragCoord.xy, 1.0);
    m[2].yz = vec2(2.0, 3.0);
    vec3 v = transpose(m) * vec3(1.0, 0.5, 0.25);
    float ip;
    float f = modf(v.x / 7.0, ip);
    ivec2 e;
    vec2 mant = frexp(v.yz + 1.0, e);
    uint carry;
    uint s = uaddCarry(0xffffffffu, uint(gl_FragCoord.x), carry);
    o = vec4(f, ip / 8.0, mant.x, float(carry) + float(e.x) / 32.0 + float(s) / 64.0);
}",
    ),
    (
        "precision statements, const arrays and macros",
        "#define SCALE(x) ((x) * 0.5)
precision highp float;
const float weights[3] = float[3](0.25, 0.5, 0.25);
void main() {
    float acc = 0.0;
    for (int i = 0; i < weights.length(); i++) acc += SCALE(weights[i]) * gl_FragCoord.x;
    o = vec4(acc / 32.0);
}",
    ),
    // Arguments expanded before `##` pastes them (the indirection idiom,
    // an invocation over two lines): glsl-lang-pp pasted `PREFIXec`.
    (
        "token pastes through macro indirection",
        "#define PASTE2(a, b) a##b
#define PASTE(a, b) PASTE2(a, b)
#define PREFIX v
#define SIZE 4
#define VEC(n) PASTE(PREFIX, PASTE(ec, n))
#define FN(name) PASTE(shade_, name)
VEC(SIZE) FN(SIZE)(VEC(2) p) {
    float k = float(SIZE) / 8.0;
    return VEC(SIZE)(p / 32.0,
        k, 1.0);
}
void main() {
    o = FN(SIZE)(gl_FragCoord.xy);
}",
    ),
];

#[test]
fn tricky_shaders_compile_in_every_mode_and_render_the_same() {
    let gl = Headless::new(ContextKind::Core45, 32, 8).expect("context");
    let mut failures = Vec::new();
    for (name, body) in CASES {
        let src = format!("#version 450 core\nout vec4 o;\n{body}\n");
        let parsed = match parse(&[&src], Stage::Fragment, None) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: parse: {e}"));
                continue;
            }
        };
        let model = shaderdbg_glsl::analysis::Model::analyze(&parsed);
        if let Some(e) = model.errors().next() {
            failures.push(format!(
                "{name}: analysis: {} at {:?}",
                e.message,
                parsed.source.locate(e.span.start)
            ));
        }
        let draw = |frag: &str, buffer: Option<Vec<u8>>| -> Result<(Vec<u8>, Vec<u32>), String> {
            let program = gl
                .compile_program(&[(GlStage::Vertex, VERT), (GlStage::Fragment, frag)])
                .map_err(|e| format!("{e}\n{frag}"))?;
            let buf = buffer
                .map(|b| gl.create_storage_buffer(7, &b))
                .transpose()
                .map_err(|e| e.to_string())?;
            gl.draw_fullscreen(&program).map_err(|e| e.to_string())?;
            let pixels = gl.read_pixels().map_err(|e| e.to_string())?;
            let words = match buf {
                Some(b) => {
                    layout::to_words(&gl.read_storage_buffer(&b).map_err(|e| e.to_string())?)
                }
                None => Vec::new(),
            };
            gl.delete_program(program).map_err(|e| e.to_string())?;
            Ok((pixels, words))
        };
        let original = match draw(&src, None) {
            Ok((p, _)) => p,
            Err(e) => {
                failures.push(format!("{name}: the original does not compile: {e}"));
                continue;
            }
        };
        let table = probe_table(&parsed);
        let steps: Vec<u32> = table
            .probes
            .iter()
            .filter(|p| p.is_step())
            .map(|p| p.id)
            .collect();
        let modes = vec![
            (
                "record",
                Mode::Record(Invocation::fragment(17, 3)),
                layout::new_record_buffer(1 << 16),
            ),
            (
                "hit",
                Mode::HitTest(
                    steps
                        .iter()
                        .map(|&probe| Breakpoint {
                            probe,
                            condition: None,
                        })
                        .collect(),
                ),
                layout::new_hit_buffer(1 << 14),
            ),
            (
                "watch",
                Mode::Watch {
                    probe: *steps.last().expect("a step"),
                    expr: "gl_FragCoord.xy".into(),
                },
                layout::new_watch_buffer(32, 8, 2),
            ),
            (
                "sanitize",
                Mode::Sanitize(Checks {
                    out_of_bounds: true,
                    uninit_shared: false,
                    race: false,
                }),
                layout::new_sanitize_buffer(64, table.probes.len()),
            ),
        ];
        for (mode_name, mode, buffer) in modes {
            let req = Request {
                mode,
                target: Target::CORE,
                binding: 7,
            };
            let out = match instrument(&parsed, &req) {
                Ok(o) => o,
                Err(e) => {
                    failures.push(format!("{name} ({mode_name}): {e}"));
                    continue;
                }
            };
            match draw(&out.glsl, Some(buffer)) {
                Ok((pixels, words)) => {
                    if pixels != original {
                        failures.push(format!("{name} ({mode_name}): image differs"));
                    }
                    if mode_name == "sanitize" {
                        let (reports, _) = decode_sanitizer(&words, &out.probes);
                        if !reports.is_empty() {
                            failures.push(format!("{name}: sanitizer reports {reports:?}"));
                        }
                    }
                    if mode_name == "record" {
                        match decode(&words, &out.probes) {
                            Ok(t) if t.invocations.len() == 1 => {
                                let exit = t.invocations[0].exit;
                                if exit != Exit::Returned && exit != Exit::Discarded {
                                    failures.push(format!("{name}: recording ended with {exit:?}"));
                                }
                            }
                            Ok(t) => failures.push(format!(
                                "{name}: {} invocations recorded",
                                t.invocations.len()
                            )),
                            Err(e) => failures.push(format!("{name}: decode: {e}")),
                        }
                    }
                }
                Err(e) => failures.push(format!("{name} ({mode_name}): {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
