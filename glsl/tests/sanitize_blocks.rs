//! The sanitizer on arrays of interface blocks (piglit's
//! `arb_shader_storage_buffer_object/execution/indirect`): an element of
//! such an array is typed as a struct of the block's name, but a block name
//! is not a type, so the out-of-bounds check must not spell a value of it
//! (it did: `Data _sdbg_pick_S_Data(Data v)`, a syntax error); the index is
//! clamped instead, and the result compiles.

use std::io::Write;
use std::process::{Command, Stdio};

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

/// glslang's verdict on `glsl` as OpenGL GLSL of `stage`.
fn glslang_accepts(glsl: &str, stage: &str) -> Result<(), String> {
    shaderdbg_test_support::require_installed(&["/usr/bin/glslangValidator"]);
    let mut child = Command::new("glslangValidator")
        .args(["--stdin", "-S", stage])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("glslangValidator runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(glsl.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("waits");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(())
    } else {
        Err(text)
    }
}

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
    if let Err(e) = glslang_accepts(&out.glsl, "frag") {
        panic!("{e}\n{}", out.glsl);
    }
}
