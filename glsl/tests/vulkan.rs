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

#[test]
fn every_mode_of_the_vulkan_test_shaders_compiles_to_spirv() {
    for (file, stage) in [
        ("vk_triangle.frag", Stage::Fragment),
        ("vk_triangle.vert", Stage::Vertex),
        // A subpass input (`subpassInput`, `subpassLoad`) in GLSL 4.50.
        ("vk_subpass.frag", Stage::Fragment),
    ] {
        let text = shader(file);
        let mut parsed = shaderdbg_glsl::parse::parse(&[&text], stage, None).expect("parses");
        parsed.api = shaderdbg_glsl::Api::Vulkan;
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
}

/// The same shader instrumented for OpenGL names GL's built-ins, so the
/// Vulkan dialect is what makes the difference above.
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
