//! Vulkan GLSL instrumented for a Vulkan pipeline (`instrument_vulkan`):
//! every mode of the Vulkan test programs' shaders compiles to SPIR-V with
//! glslang (`glslangValidator -V`, as the layer compiles twins), with the
//! debug buffer in the descriptor set asked for and Vulkan's built-ins.

use std::path::Path;

use shaderdbg_core::{Invocation, Stage};
use shaderdbg_glsl::instrument::{self, Breakpoint, Checks, Mode};

mod common;

fn shader(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vk-apps/shaders")
        .join(name);
    std::fs::read_to_string(path).expect("shader")
}

fn modes(stage: Stage, table: &shaderdbg_core::probes::ProbeTable) -> Vec<(&'static str, Mode)> {
    let entry = table.main_entry_step().expect("a step in main").id;
    let selector = match stage {
        Stage::Vertex => Invocation::Vertex {
            vertex: 1,
            instance: 0,
        },
        _ => Invocation::fragment(3, 4),
    };
    vec![
        ("plain", Mode::Plain),
        (
            "hit test",
            Mode::HitTest(vec![Breakpoint {
                probe: entry,
                condition: None,
            }]),
        ),
        ("record", Mode::Record(selector)),
        (
            "sanitize",
            Mode::Sanitize(Checks {
                out_of_bounds: true,
                ..Default::default()
            }),
        ),
    ]
}

/// `text` analyses without errors, and every mode of it instruments for
/// set 3 and compiles with glslang.
fn every_mode_compiles(file: &str, text: &str, stage: Stage) {
    let mut parsed = shaderdbg_glsl::parse::parse(&[text], stage, None)
        .unwrap_or_else(|d| panic!("{file} does not parse: {}\n{text}", d.message));
    parsed.api = shaderdbg_glsl::Api::Vulkan;
    let model = shaderdbg_glsl::analysis::Model::analyze(&parsed);
    let errors: Vec<&str> = model.errors().map(|d| d.message.as_str()).collect();
    assert!(errors.is_empty(), "{file}: {errors:?}\n{text}");
    let table = instrument::probe_table(&parsed);
    for (name, mode) in modes(stage, &table) {
        let inst = instrument::instrument_vulkan(&parsed, &mode, 3)
            .unwrap_or_else(|e| panic!("{file} {name}: {e}"));
        if !matches!(mode, Mode::Plain) {
            assert!(
                inst.glsl
                    .contains("layout(std430, set = 3, binding = 0) buffer _sdbg_Buffer"),
                "{file} {name}:\n{}",
                inst.glsl
            );
        }
        assert!(!inst.glsl.contains("gl_VertexID"), "{file} {name}");
        assert!(!inst.glsl.contains("gl_PrimitiveID"), "{file} {name}");
        if let Err(e) = common::glslang(&inst.glsl, stage.short_name(), true) {
            panic!("{file} {name} does not compile:\n{e}\n{}", inst.glsl);
        }
    }
}

#[test]
fn every_mode_of_the_vulkan_test_shaders_compiles_to_spirv() {
    for (file, stage) in [
        ("vk_triangle.frag", Stage::Fragment),
        ("vk_triangle.vert", Stage::Vertex),
        // A subpass input (`subpassInput`, `subpassLoad`) in GLSL 4.50.
        ("vk_subpass.frag", Stage::Fragment),
    ] {
        every_mode_compiles(file, &shader(file), stage);
    }
}

/// `source` compiled by glslang (`-V`, with `args`: `-D` for HLSL)
/// without debug information and decompiled as the layer decompiles it
/// (backend-vk `source::spirv_cross`'s arguments).
fn decompiled(source: &str, args: &[&str], stage: &str) -> String {
    shaderdbg_test_support::require_installed(&["/usr/bin/spirv-cross"]);
    let spv = common::spirv(source, stage, args).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let mut cmd = std::process::Command::new("spirv-cross");
    cmd.args(["-", "--vulkan-semantics", "--version", "460", "--no-es"])
        .args(["--entry", "main", "--stage", stage]);
    let out = common::piped(&mut cmd, &spv);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// SPIR-V with loop and selection hints (glslang's `[[unroll]]`, DXC's
/// `[unroll]`) decompiled as the layer decompiles a module without debug
/// information: SPIRV-Cross writes the hints as GL_EXT_control_flow_attributes
/// macros (`#define SPIRV_CROSS_UNROLL [[unroll]]`), which the engine reads.
#[test]
fn decompiled_control_flow_hints_are_debugged_in_every_mode() {
    let source = "#version 450
#extension GL_EXT_control_flow_attributes : require
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 o;
void main() {
    float s = 0.0;
    [[unroll]] for (int i = 0; i < 4; ++i) { s += uv.x * float(i); }
    [[dont_unroll]] for (int j = 0; j < 3; ++j) { s -= uv.y; }
    [[flatten]] if (s > 1.0) { s = 1.0; }
    o = vec4(s);
}
";
    let decompiled = decompiled(source, &[], "frag");
    for hint in ["[[unroll]]", "[[dont_unroll]]", "SPIRV_CROSS_UNROLL\n"] {
        assert!(decompiled.contains(hint), "{hint}:\n{decompiled}");
    }
    every_mode_compiles("decompiled", &decompiled, Stage::Fragment);
    every_mode_compiles("written", source, Stage::Fragment);
}

#[test]
fn the_gl_dialect_names_gl_built_ins() {
    let text = shader("vk_triangle.vert");
    let mut parsed = shaderdbg_glsl::parse::parse(&[&text], Stage::Vertex, None).expect("parses");
    parsed.api = shaderdbg_glsl::Api::Vulkan;
    let mode = Mode::Record(Invocation::Vertex {
        vertex: 1,
        instance: 0,
    });
    let gl = instrument::instrument(
        &parsed,
        &instrument::Request {
            mode: mode.clone(),
            target: instrument::Target::CORE,
            binding: 7,
        },
    )
    .expect("instruments");
    assert!(gl.glsl.contains("gl_VertexID"));
    assert!(gl.glsl.contains("binding = 7"));
    let vk = instrument::instrument_vulkan(&parsed, &mode, 1).expect("instruments");
    assert!(vk.glsl.contains("gl_VertexIndex == 1"), "{}", vk.glsl);
}

/// A hit test that only counts its hits (`instrument_vulkan_flag`, the
/// GL agent's `hit_count_only` on Vulkan GLSL): no hit records (one
/// atomic on the count instead of an atomic and six stores), with and
/// without NaN/Inf checks, compiles; other modes are refused.
#[test]
fn a_flag_only_hit_test_writes_no_records_and_compiles() {
    let text = shader("vk_triangle.frag");
    let mut parsed = shaderdbg_glsl::parse::parse(&[&text], Stage::Fragment, None).expect("parses");
    parsed.api = shaderdbg_glsl::Api::Vulkan;
    let table = instrument::probe_table(&parsed);
    let bps = vec![Breakpoint {
        probe: table.main_entry_step().expect("a step").id,
        condition: Some("frame.t < -1.0".into()),
    }];
    for mode in [Mode::HitTest(bps.clone()), Mode::HitTestNanInf(bps)] {
        let flag = instrument::instrument_vulkan_flag(&parsed, &mode, 2).expect("instruments");
        let full = instrument::instrument_vulkan(&parsed, &mode, 2).expect("instruments");
        assert!(!flag.glsl.contains("_sdbg_data[at"), "{}", flag.glsl);
        assert!(full.glsl.contains("_sdbg_data[at"), "{}", full.glsl);
        assert!(
            flag.glsl.contains("atomicAdd(_sdbg_hit_count, 1u);"),
            "{}",
            flag.glsl
        );
        if let Err(e) = common::glslang(&flag.glsl, "frag", true) {
            panic!("does not compile:\n{e}\n{}", flag.glsl);
        }
    }
    let record = Mode::Record(Invocation::fragment(1, 2));
    assert!(instrument::instrument_vulkan_flag(&parsed, &record, 2).is_err());
}

/// Vulkan GLSL ES (Android programs' shaders, with or without debug
/// information: the layer decompiles an ES module to ES 3.20) stays ES in
/// every mode: it was given `#version 310 core`, which glslang refuses.
#[test]
fn a_glsl_es_shader_stays_es_in_every_mode() {
    for version in ["310 es", "320 es"] {
        let text = format!(
            "#version {version}
precision mediump float;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 o;
layout(set = 0, binding = 0) uniform U {{ float k[4]; }} u;
void main() {{
    float s = 0.0;
    for (int i = 0; i < 4; i++) {{ s += u.k[i] * uv.x; }}
    o = vec4(s, uv.y, 0.0, 1.0);
}}
"
        );
        every_mode_compiles(version, &text, Stage::Fragment);
    }
}

/// HLSL compiled for Vulkan (glslang's HLSL front end, as DXC does) samples
/// a `Texture2D` with a `SamplerState`: decompiled, a separate texture and
/// sampler (`uniform texture2D t; uniform sampler s;`, `texture(sampler2D(t,
/// s), uv)`), and `Load` a samplerless `texelFetch`; its `[unroll]` loop
/// a hint. Every mode instruments and compiles back (none parsed before).
#[test]
fn decompiled_hlsl_with_separate_textures_and_samplers_is_debugged_in_every_mode() {
    let hlsl = "Texture2D tex : register(t0);
SamplerState smp : register(s1);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float4 sum = 0;
    [unroll] for (int i = 0; i < 3; i++) { sum += tex.Sample(smp, uv + i * 0.01); }
    return sum / 3.0 + tex.Load(int3(pos.xy, 0));
}
";
    let text = decompiled(hlsl, &["-D", "-e", "main"], "frag");
    for construct in [
        "uniform texture2D",
        "uniform sampler ",
        "sampler2D(",
        "texelFetch(",
    ] {
        assert!(text.contains(construct), "{construct}:\n{text}");
    }
    every_mode_compiles("decompiled HLSL", &text, Stage::Fragment);
}

/// Half floats and 16-bit integers through built-in functions, decompiled
/// (SPIRV-Cross picks GL_AMD_gpu_shader_half_float where it is defined,
/// as glslang defines it): no false errors (neither the AMD extension's
/// types nor the built-ins' sized overloads were known), and every mode
/// compiles back.
#[test]
fn decompiled_sized_arithmetic_is_debugged_in_every_mode() {
    let source = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 o;
void main() {
    f16vec2 h = f16vec2(uv);
    f16vec2 d = dFdx(h) + abs(h);
    i16vec2 n = clamp(i16vec2(uv * 8.0), i16vec2(1), i16vec2(6));
    float16_t l = length(d);
    o = vec4(vec2(d), float(l), float(n.x + n.y));
}
";
    let text = decompiled(source, &[], "frag");
    assert!(text.contains("f16vec2"), "{text}");
    every_mode_compiles("decompiled", &text, Stage::Fragment);
    every_mode_compiles("written", source, Stage::Fragment);
}

/// An invariant output, decompiled (SPIRV-Cross writes
/// `layout(location = 0) invariant out`, an order glsl-lang's grammar
/// rejected): every mode compiles back.
#[test]
fn decompiled_invariant_outputs_are_debugged_in_every_mode() {
    let source = "#version 450
layout(location = 0) in vec3 pos;
layout(location = 0) invariant out float depth;
void main() {
    depth = pos.z * 0.5;
    gl_Position = vec4(pos, 1.0);
}
";
    let text = decompiled(source, &[], "vert");
    assert!(text.contains(") invariant out"), "{text}");
    every_mode_compiles("decompiled", &text, Stage::Vertex);
}

/// `debugPrintfEXT` with its format strings (GL_EXT_debug_printf, which
/// the validation layer prints; glsl-lang has no string token, so these
/// shaders did not parse), as written (an escaped quote too) and
/// decompiled: no false errors, and every mode compiles back with the
/// strings as they were.
#[test]
fn debug_printf_formats_are_debugged_in_every_mode() {
    let shader = |format: &str| {
        format!(
            "#version 450
#extension GL_EXT_debug_printf : require
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 o;
void main() {{
    float d = length(uv - vec2(0.5));
    debugPrintfEXT(\"{format}\", uv, d);
    o = vec4(d);
}}
"
        )
    };
    let written = shader(r#"uv = %v2f, d = %f \"quoted\""#);
    // SPIRV-Cross writes a format's quotes unescaped: none here.
    let decompiled = decompiled(&shader("uv = %v2f, d = %f"), &[], "frag");
    for (file, text, format) in [
        ("written", &written, r#""uv = %v2f, d = %f \"quoted\"""#),
        ("decompiled", &decompiled, r#""uv = %v2f, d = %f""#),
    ] {
        assert!(text.contains(format), "{text}");
        every_mode_compiles(file, text, Stage::Fragment);
    }
}

/// GL_EXT_buffer_reference (buffer device addresses): a block's name is a
/// type, forward-declared, a member of its own block, a push constant's
/// member, made from an address and back; members read and written
/// through references (`n.next.v`). Written and decompiled (SPIRV-Cross
/// forward-declares each block): no false errors, and every mode compiles
/// back (glsl-lang read `Node` as an unknown identifier).
#[test]
fn buffer_references_are_debugged_in_every_mode() {
    let source = "#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(buffer_reference) buffer Node;
layout(buffer_reference, std430) buffer Node {
    vec4 v;
    Node next;
};
layout(push_constant, std430) uniform Push {
    Node head;
    uint64_t tail;
} pc;
layout(location = 0) out vec4 o;
vec4 twice(Node n) { return n.v * 2.0; }
void main() {
    Node n = pc.head;
    Node t = Node(pc.tail);
    vec4 a = n.v + n.next.v;
    uvec2 addr = uvec2(t);
    t.v = a + twice(Node(addr));
    o = a + vec4(float(uint64_t(n.next) != 0ul));
}
";
    every_mode_compiles("written", source, Stage::Fragment);
    let text = decompiled(source, &[], "frag");
    assert!(text.contains("buffer Node;"), "{text}");
    every_mode_compiles("decompiled", &text, Stage::Fragment);
}
