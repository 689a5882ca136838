//! End-to-end on llvmpipe: control flow and data shapes the recording must get
//! right (do/while with continue, switch with fallthrough, return inside a loop,
//! conditions with side effects, inout parameters, structs and arrays written by
//! part), and recording in vertex and compute shaders.

use shaderdbg_core::decode::{decode, Exit};
use shaderdbg_core::layout;
use shaderdbg_core::probes::{PathElem, ProbeKind};
use shaderdbg_core::Invocation;
use shaderdbg_gl_headless::{ContextKind, Headless, Stage as GlStage};
use shaderdbg_glsl::instrument::{instrument, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::{Stage, Value};
use shaderdbg_test_support::values::final_value;

const BINDING: u32 = 7;

const FRAG: &str = r#"
struct Acc {
    float sum;
    int count;
    vec2 last[2];
};

int bump(inout int c) {
    c += 1;
    return c;
}

float pick(int k) {
    for (int i = 0; i < 10; i++) {
        if (i == k) return float(i) * 2.0;
    }
    return -1.0;
}

void main() {
    vec2 p = floor(gl_FragCoord.xy);
    int x = int(p.x), y = int(p.y);
    Acc a;
    a.sum = 0.0;
    a.count = 0;
    a.last[0] = vec2(0.0);
    a.last[1] = vec2(0.0);
    int c = 0;
    int i = 0;
    do {
        if (i - (i / 2) * 2 == 1) { i++; continue; }
        a.sum += float(i);
        a.count = bump(c);
        i++;
    } while (i < x - (x / 4) * 4 + 1);
    float s = 0.0;
    if ((s = pick(y - (y / 3) * 3)) > 1.0) { a.last[1] = vec2(s, 1.0); } else { a.last[0] = vec2(s, 0.0); }
    switch (x - (x / 3) * 3) {
        case 0: s += 10.0; break;
        case 1: s += 20.0;
        default: s += 1.0;
    }
    COLOR = vec4(a.sum, float(a.count), s, 1.0) / 64.0;
}
"#;

fn draw(gl: &Headless, vert: &str, frag: &str, buffer: Option<Vec<u8>>) -> (Vec<u8>, Vec<u32>) {
    let storage = buffer.as_deref().map(|b| (BINDING, b));
    gl.render(vert, frag, storage)
        .unwrap_or_else(|e| panic!("{e}\n{frag}"))
}

#[test]
fn control_flow_and_partial_writes() {
    let dialects = [
        (
            ContextKind::Compat45,
            Target::COMPAT,
            "#version 130\n#define COLOR gl_FragData[0]\n",
            "#version 110\nattribute vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
        ),
        (
            ContextKind::Core45,
            Target::CORE,
            "#version 450 core\nout vec4 color;\n#define COLOR color\n",
            "#version 450 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
        ),
    ];
    for (kind, target, header, vert) in dialects {
        let gl = Headless::new(kind, 16, 8).expect("context");
        let src = format!("{header}{FRAG}");
        let parsed = parse(&[&src], Stage::Fragment, None).expect("parses");
        let (original, _) = draw(&gl, vert, &src, None);
        for (x, y) in [(0u32, 0u32), (3, 1), (6, 2), (7, 5)] {
            let req = Request {
                mode: Mode::Record(Invocation::fragment(x, y)),
                target,
                binding: BINDING,
            };
            let out = instrument(&parsed, &req).unwrap_or_else(|e| panic!("{e}"));
            let (pixels, words) = draw(
                &gl,
                vert,
                &out.glsl,
                Some(layout::new_record_buffer(1 << 14)),
            );
            assert!(pixels == original, "{header}: image changed");
            let trace = decode(&words, &out.probes).expect("decode");
            let inv = &trace.invocations[0];
            assert_eq!(inv.exit, Exit::Returned);
            let t = &out.probes;

            let n = x % 4 + 1;
            let evens: Vec<u32> = (0..n).filter(|i| i % 2 == 0).collect();
            let sum: u32 = evens.iter().sum();
            let picked = 2.0 * (y % 3) as f32;
            let s = picked
                + match x % 3 {
                    0 => 10.0,
                    1 => 21.0,
                    _ => 1.0,
                };
            let mut last = [[0.0f32, 0.0], [0.0, 0.0]];
            if picked > 1.0 {
                last[1] = [picked, 1.0];
            } else {
                last[0] = [picked, 0.0];
            }
            let want = Value::Struct(vec![
                ("sum".into(), Value::Float(sum as f32)),
                ("count".into(), Value::Int(evens.len() as i32)),
                (
                    "last".into(),
                    Value::List(
                        last.iter()
                            .map(|v| Value::List(v.iter().map(|f| Value::Float(*f)).collect()))
                            .collect(),
                    ),
                ),
            ]);
            assert_eq!(final_value(inv, t, "a"), want, "{header} ({x},{y})");
            assert_eq!(final_value(inv, t, "c"), Value::Int(evens.len() as i32));
            assert_eq!(final_value(inv, t, "i"), Value::Int(n as i32));
            assert_eq!(final_value(inv, t, "s"), Value::Float(s));

            // `a.last[1] = ...` is logged as a write to that element only.
            let part = inv
                .writes
                .iter()
                .find(|w| t.vars[w.decl].name == "a" && w.path.len() == 2)
                .expect("a partial write of a");
            assert_eq!(part.path[0], PathElem::Field("last".into()));
            // The side-effect condition logged `s` before the branch was taken.
            let cond_probe = inv
                .conditions
                .iter()
                .find(|c| {
                    t.get(c.probe).is_some_and(|p| {
                        p.kind == ProbeKind::Condition && src_line(&src, p.line).contains("pick(")
                    })
                })
                .expect("condition recorded");
            assert_eq!(cond_probe.value, picked > 1.0);
            // `pick` returned from inside its loop with the right value.
            let ret = inv.returns.iter().find(|(_, f, _)| {
                inv.frames[*f]
                    .function
                    .is_some_and(|f| t.functions[f].name == "pick")
            });
            assert_eq!(ret.map(|r| r.2.clone()), Some(Value::Float(picked)));
            // `bump` was entered once per even i, and its inout parameter logged.
            let bumps = inv
                .frames
                .iter()
                .filter(|f| f.function.is_some_and(|f| t.functions[f].name == "bump"))
                .count();
            assert_eq!(bumps, evens.len());
        }
    }
}

fn src_line(src: &str, line: u32) -> &str {
    src.lines().nth(line as usize - 1).unwrap_or("")
}

#[test]
fn records_a_vertex() {
    let gl = Headless::new(ContextKind::Core45, 8, 8).expect("context");
    let vert = "#version 450 core\nlayout(location = 0) in vec2 pos;\nout vec2 v;\nvoid main() {\n    vec2 q = pos * 2.0;\n    v = q + vec2(float(gl_VertexID));\n    gl_Position = vec4(pos, 0.0, 1.0);\n}\n";
    let frag =
        "#version 450 core\nin vec2 v;\nout vec4 o;\nvoid main() { o = vec4(v, 0.0, 1.0); }\n";
    let parsed = parse(&[vert], Stage::Vertex, None).expect("parses");
    let req = Request {
        mode: Mode::Record(Invocation::Vertex {
            vertex: 1,
            instance: 0,
        }),
        target: Target::CORE,
        binding: BINDING,
    };
    let out = instrument(&parsed, &req).expect("instruments");
    let program = gl
        .compile_program(&[(GlStage::Vertex, &out.glsl), (GlStage::Fragment, frag)])
        .unwrap_or_else(|e| panic!("{e}\n{}", out.glsl));
    let buf = gl
        .create_storage_buffer(BINDING, &layout::new_record_buffer(4096))
        .expect("ssbo");
    let positions = [[-1.0f32, -1.0], [0.5, -0.25], [-1.0, 1.0]];
    gl.clear().expect("clear");
    gl.draw_arrays_with_positions(&program, &positions, shaderdbg_gl_headless::glow::TRIANGLES)
        .expect("draw");
    let words = layout::to_words(&gl.read_storage_buffer(&buf).expect("read"));
    let trace = decode(&words, &out.probes).expect("decode");
    assert_eq!(
        trace.invocations.len(),
        1,
        "vertex 1 ran once (post-transform cache aside)"
    );
    let inv = &trace.invocations[0];
    assert_eq!(inv.invocation.unwrap().key()[0], 1);
    assert_eq!(
        final_value(inv, &out.probes, "q"),
        Value::List(vec![Value::Float(1.0), Value::Float(-0.5)])
    );
    assert_eq!(
        final_value(inv, &out.probes, "v"),
        Value::List(vec![Value::Float(2.0), Value::Float(0.5)])
    );
    let gl_pos = inv
        .writes
        .iter()
        .find(|w| out.probes.vars[w.decl].name == "gl_Position")
        .expect("gl_Position written");
    assert_eq!(gl_pos.value.to_string(), "(0.5, -0.25, 0.0, 1.0)");
}

#[test]
fn records_a_compute_invocation() {
    let gl = Headless::new(ContextKind::Core45, 4, 4).expect("context");
    let comp = "#version 430\nlayout(local_size_x = 4) in;\nlayout(std430, binding = 1) buffer Out { float values[]; };\nvoid main() {\n    uint i = gl_GlobalInvocationID.x;\n    float f = float(i) * 3.0;\n    values[i] = f;\n}\n";
    let parsed = parse(&[comp], Stage::Compute, None).expect("parses");
    let req = Request {
        mode: Mode::Record(Invocation::Compute { id: [5, 0, 0] }),
        target: Target::CORE,
        binding: BINDING,
    };
    let out = instrument(&parsed, &req).expect("instruments");
    let program = gl
        .compile_program(&[(GlStage::Compute, &out.glsl)])
        .unwrap_or_else(|e| panic!("{e}\n{}", out.glsl));
    let results = gl.create_storage_buffer(1, &[0u8; 4 * 8]).expect("ssbo");
    let buf = gl
        .create_storage_buffer(BINDING, &layout::new_record_buffer(4096))
        .expect("ssbo");
    gl.dispatch_compute(&program, 2, 1, 1).expect("dispatch");
    let words = layout::to_words(&gl.read_storage_buffer(&buf).expect("read"));
    let trace = decode(&words, &out.probes).expect("decode");
    let inv = &trace.invocations[0];
    assert_eq!(inv.invocation.unwrap().key(), [5, 0, 0]);
    assert_eq!(final_value(inv, &out.probes, "f"), Value::Float(15.0));
    let values = layout::to_words(&gl.read_storage_buffer(&results).expect("read"));
    let values: Vec<f32> = values.iter().map(|w| f32::from_bits(*w)).collect();
    assert_eq!(values, (0..8).map(|i| i as f32 * 3.0).collect::<Vec<_>>());
}
