//! Shaders that use extensions (`builtins/extensions.txt`) analyse without
//! errors and instrument, keeping their `#extension` lines — also those
//! glsl-lang's own registry does not know, which `parse` hides from it.

use shaderdbg_core::Invocation;
use shaderdbg_glsl::analysis::Model;
use shaderdbg_glsl::instrument::{instrument, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

const SHADERS: [(&str, Stage, &str); 18] = [
    (
        "compute_shader_shared_atomics",
        Stage::Compute,
        "#version 330\n#extension GL_ARB_compute_shader : require\nlayout(local_size_x = 32) in;\nshared int value;\nshared uint mask;\nvoid main() {\n    int f = atomicAdd(value, 4);\n    uint r = atomicOr(mask, uint(f));\n}\n",
    ),
    (
        "gpu_shader5",
        Stage::Geometry,
        "#version 150 core\n#extension GL_ARB_gpu_shader5 : require\nlayout(points) in;\nlayout(points, max_vertices = 1) out;\nvoid main() {\n    gl_Position = gl_in[0].gl_Position;\n    EmitStreamVertex(0);\n    EndStreamPrimitive(0);\n}\n",
    ),
    (
        "texture_multisample",
        Stage::Fragment,
        "#version 140\n#extension GL_ARB_texture_multisample : enable\nuniform sampler2DMS s;\nout vec4 o;\nvoid main() {\n    o = texelFetch(s, ivec2(gl_FragCoord.xy), 0);\n}\n",
    ),
    (
        "compatibility_140",
        Stage::Fragment,
        "#version 140\nuniform sampler2D t;\nvoid main() {\n    gl_FragColor = texture2D(t, gl_TexCoord[0].xy) * gl_Color;\n}\n",
    ),
    (
        "texture_array_hidden_from_glsl_lang",
        Stage::Fragment,
        "#version 130\n#extension GL_EXT_gpu_shader4 : enable\n#extension GL_ARB_shader_bit_encoding : enable\nout vec4 o;\nvoid main() {\n    int i = floatBitsToInt(1.0);\n    o = vec4(float(i));\n}\n",
    ),
    (
        "subgroups",
        Stage::Compute,
        "#version 450\n#extension GL_KHR_shader_subgroup_ballot : enable\nlayout(local_size_x = 64) in;\nlayout(std430, binding = 0) buffer B { uvec4 b[]; };\nvoid main() {\n    b[gl_SubgroupInvocationID] = subgroupBallot(true);\n}\n",
    ),
    (
        "bindless",
        Stage::Fragment,
        "#version 450\n#extension GL_ARB_bindless_texture : require\nlayout(bindless_sampler) uniform;\nstruct Mat { sampler2D albedo; float k; };\nlayout(std430, binding = 0) buffer Mats { Mat mats[]; uvec2 handles[]; };\nuniform sampler2D direct;\nin vec2 uv;\nout vec4 o;\nvoid main() {\n    uvec2 h = uvec2(direct);\n    sampler2D s = sampler2D(handles[0]);\n    o = texture(mats[0].albedo, uv) + texture(s, uv) * mats[0].k;\n}\n",
    ),
    (
        "demote_interlock",
        Stage::Fragment,
        "#version 450\n#extension GL_EXT_demote_to_helper_invocation : require\n#extension GL_ARB_fragment_shader_interlock : require\nlayout(pixel_interlock_ordered) in;\nout vec4 o;\nvoid main() {\n    beginInvocationInterlockARB();\n    if (gl_FragCoord.x < 1.0) demote;\n    bool h = helperInvocationEXT();\n    endInvocationInterlockARB();\n    o = vec4(h ? 1.0 : 0.0);\n}\n",
    ),
    (
        "viewport_array2",
        Stage::Vertex,
        "#version 450\n#extension GL_NV_viewport_array2 : require\nlayout(viewport_relative) out highp int gl_Layer;\nvoid main() {\n    gl_ViewportMask[0] = 1;\n    gl_Layer = 0;\n    gl_Position = vec4(0);\n}\n",
    ),
    (
        "gated_functions_130",
        Stage::Fragment,
        "#version 130\n#extension GL_ARB_texture_cube_map_array : enable\n#extension GL_ARB_shading_language_packing : enable\n#extension GL_ARB_shader_texture_lod : enable\nuniform samplerCubeArray c;\nuniform sampler2D t;\nout vec4 o;\nvoid main() {\n    uint p = packUnorm4x8(vec4(0.5));\n    o = texture(c, vec4(0.0)) + texture2DLod(t, vec2(0.0), 1.0) + texture2DGradARB(t, vec2(0), vec2(0), vec2(0)) + unpackUnorm4x8(p);\n}\n",
    ),
    (
        "invariant_members_layout_case",
        Stage::Vertex,
        "#version 150\n#extension GL_ARB_explicit_attrib_location : enable\ninvariant gl_Position;\nout Block { invariant vec4 v; } b;\nlayout(ROW_MAJOR, Std140) uniform;\nlayout(Location = 1) in vec4 p;\nvoid main() { b.v = p; gl_Position = p; }\n",
    ),
    // Types an extension brings to a version before they were core: the
    // parser read `sampler1DArray` as a name in 1.10.
    (
        "texture_array_types_in_110",
        Stage::Fragment,
        "#version 110\n#extension GL_EXT_texture_array : enable\nuniform sampler1DArray s1;\nuniform sampler2DArrayShadow s2;\nvoid main() {\n    gl_FragColor = texture1DArray(s1, vec2(0.5)) + shadow2DArray(s2, vec4(0.5));\n}\n",
    ),
    // GL_NV_gpu_shader5 (hidden from glsl-lang): its sized types, their
    // implicit conversions, run-time offsets, its functions, and double
    // overloads of GL_ARB_gpu_shader_fp64.
    (
        "nv_gpu_shader5_sized_types",
        Stage::Fragment,
        "#version 150\n#extension GL_NV_gpu_shader5 : enable\n#extension GL_ARB_gpu_shader_fp64 : enable\nuniform sampler2D t;\nuniform samplerCubeArray c;\nflat in ivec2 offs[4];\nflat in int8_t small;\nout vec4 o;\nvoid main() {\n    int64_t wide = int(small);\n    i64vec2 v = ivec2(1, 2) + i64vec2(wide);\n    uint64_t packed = packUint2x32(uvec2(1u, 2u));\n    bvec2 lt = lessThan(dvec2(1.0), dvec2(2.0));\n    o = textureGatherOffsets(t, vec2(0.5), offs) + vec4(lt.x ? 1.0 : 0.0);\n}\n",
    ),
    // `type_qualifier identifier_list;`, which glsl-lang's grammar lacks
    // but for `invariant name;`.
    (
        "qualifier_redeclarations",
        Stage::Vertex,
        "#version 450\nout float extra;\ninvariant gl_Position, gl_PointSize;\nprecise extra, gl_Position; // both\nvoid main() {\n    extra = 1.0;\n    gl_PointSize = 1.0;\n    gl_Position = vec4(extra);\n}\n",
    ),
    (
        "specialized_builtin",
        Stage::Compute,
        "#version 460\n#extension GL_EXT_ray_query : enable\n#extension GL_EXT_opacity_micromap_ray_query_mode : enable\nlayout(local_size_x = 1) in;\nlayout(constant_id = 2) gl_EnableOpacityMicromapEXT;\nlayout(std430, binding = 0) buffer Out { uint enabled; } outBuf;\nvoid main() {\n    outBuf.enabled = gl_EnableOpacityMicromapEXT ? 1u : 0u;\n}\n",
    ),
    // Core types of GLSL ES that glsl-lang's lexer gates by the desktop
    // version that adopted them (atomic_uint: 4.20, cube arrays: 4.00),
    // and GL_EXT_texture_shadow_lod's lookups.
    (
        "es310_atomic_counter",
        Stage::Compute,
        "#version 310 es\nlayout(local_size_x = 1) in;\nlayout(binding = 0) uniform atomic_uint c;\nlayout(std430, binding = 1) buffer B { uint n; };\nvoid main() { n = atomicCounterIncrement(c); }\n",
    ),
    (
        "es320_cube_array_shadow_lod",
        Stage::Fragment,
        "#version 320 es\n#extension GL_EXT_texture_shadow_lod : enable\nprecision highp float;\nuniform highp samplerCubeArrayShadow sca;\nuniform highp sampler2DArrayShadow s2da;\nuniform highp samplerCubeShadow sc;\nout vec4 o;\nvoid main() {\n    o = vec4(texture(sca, vec4(0.0), 0.5) + texture(s2da, vec4(0.0), 1.0) + textureLod(sc, vec4(0.0), 2.0) + textureLodOffset(s2da, vec4(0.0), 0.0, ivec2(1)));\n}\n",
    ),
    // Literals glsl-lang's lexer rejects, printed back as written.
    (
        "extended_literals",
        Stage::Fragment,
        "#version 450\n#extension GL_ARB_gpu_shader_int64 : enable\n#extension GL_EXT_shader_explicit_arithmetic_types : enable\n#define BIG 4607182418800017408L\nout vec4 o;\nvoid main() {\n    int64_t a = BIG + -9223372036854775808L;\n    uint64_t b = 13830554455654793216UL;\n    int16_t s = -32768S;\n    uint16_t us = 7US;\n    float16_t h = 0.5hf;\n    double d = 3.141592653589793Lf;\n    int m = -2147483648 + int(0xFFFFFFFF);\n    float f[0x10] ;\n    f[15] = float(m);\n    o = vec4(float(d), f[15], 0.0, 1.0);\n}\n",
    ),
];

#[test]
fn extension_shaders_analyse_and_instrument() {
    let mut failures = Vec::new();
    for (name, stage, src) in SHADERS {
        let parsed = match parse(&[src], stage, None) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!("{name}: {}", d.message));
                continue;
            }
        };
        let errors: Vec<String> = Model::analyze(&parsed)
            .errors()
            .map(|d| d.message.clone())
            .collect();
        if !errors.is_empty() {
            failures.push(format!("{name}: {errors:?}"));
            continue;
        }
        let invocation = match stage {
            Stage::Compute => Some(Invocation::Compute { id: [0, 0, 0] }),
            Stage::Fragment => Some(Invocation::fragment(0, 0)),
            _ => None,
        };
        let modes = std::iter::once(Mode::Plain).chain(invocation.map(Mode::Record));
        for mode in modes {
            let out = instrument(
                &parsed,
                &Request {
                    mode,
                    target: Target::COMPAT,
                    binding: 7,
                },
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            if name == "extended_literals" {
                for lit in [
                    "4607182418800017408L",
                    "9223372036854775808L",
                    "13830554455654793216UL",
                    "32768S",
                    "7US",
                    "0.5hf",
                    "3.141592653589793Lf",
                    "2147483648",
                    "0xFFFFFFFF",
                ] {
                    assert!(out.glsl.contains(lit), "{name}: no {lit} in\n{}", out.glsl);
                }
            }
            let redeclared: &[&str] = match name {
                "qualifier_redeclarations" => &[
                    "invariant gl_Position;",
                    "invariant gl_PointSize;",
                    "precise  extra, gl_Position;",
                ],
                "specialized_builtin" => &["layout(constant_id = 2)  gl_EnableOpacityMicromapEXT;"],
                _ => &[],
            };
            for text in redeclared {
                assert!(
                    out.glsl.contains(text),
                    "{name}: no `{text}` in\n{}",
                    out.glsl
                );
            }
            if name == "invariant_members_layout_case" {
                assert!(
                    out.glsl.contains("invariant vec4 v"),
                    "{name}: {}",
                    out.glsl
                );
            }
            for e in &parsed.extensions {
                let line = format!("#extension {} : {}", e.name, e.behavior);
                assert!(
                    out.glsl.contains(&line),
                    "{name}: no `{line}` in\n{}",
                    out.glsl
                );
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
