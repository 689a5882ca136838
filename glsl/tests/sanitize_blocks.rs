//! The sanitizer on arrays of interface blocks (piglit's
//! `arb_shader_storage_buffer_object/execution/indirect`): an element of
//! such an array is typed as a struct of the block's name, but a block name
//! is not a type, so the out-of-bounds check must not spell a value of it
//! (it did: `Data _sdbg_pick_S_Data(Data v)`, a syntax error); the index is
//! clamped instead, and the result compiles.

mod common;

use shaderdbg_glsl::instrument::{instrument, Checks, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

const INDIRECT: &str = "#version 330
#extension GL_ARB_gpu_shader5: require
#extension GL_ARB_shader_storage_buffer_object: require

layout(binding = 0) buffer Data {
	vec4 color;
	float color_scale;
	int val;
} data[2];

flat in int idx;
out vec4 outcolor;

void main() {
    outcolor = data[idx].color * data[idx].color_scale;
    data[idx].val = idx + 1;
}
";

#[test]
fn an_array_of_storage_blocks_is_checked_by_clamping_and_compiles() {
    let parsed = parse(&[INDIRECT], Stage::Fragment, None).expect("parses");
    let out = instrument(
        &parsed,
        &Request {
            mode: Mode::Sanitize(Checks::ALL),
            target: Target::COMPAT,
            binding: 7,
        },
    )
    .expect("instruments");
    assert!(!out.glsl.contains("_sdbg_pick_S_Data"), "{}", out.glsl);
    assert!(out.glsl.contains("data[_sdbg_cl("), "{}", out.glsl);
    if let Err(e) = common::glslang(&out.glsl, "frag", false) {
        panic!("{e}\n{}", out.glsl);
    }
}
