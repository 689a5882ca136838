//! Shaders that use extensions (`builtins/extensions.txt`) analyse without
//! errors and instrument, keeping their `#extension` lines — also those
//! glsl-lang's own registry does not know, which `parse` hides from it.

use shaderdbg_core::Invocation;
use shaderdbg_glsl::analysis::Model;
use shaderdbg_glsl::instrument::{instrument, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

const SHADERS: [(&str, Stage, &str); 5] = [
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
];

#[test]
fn extension_shaders_analyse_and_instrument() {
    for (name, stage, src) in SHADERS {
        let parsed = parse(&[src], stage, None).unwrap_or_else(|d| panic!("{name}: {}", d.message));
        let errors: Vec<String> = Model::analyze(&parsed)
            .errors()
            .map(|d| d.message.clone())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
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
}
