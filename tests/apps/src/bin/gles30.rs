//! `gles30 [FRAMES] [SIZE]`: an OpenGL ES 3.0 context (Mesa gives the
//! newest ES version compatible with 3.0, 3.2 on llvmpipe) with
//! `#version 300 es` shaders (`shaders/gles30.*`). Two triangles covering
//! clip space, indexed (`GL_UNSIGNED_BYTE`), from a vertex buffer at
//! location 0 in a vertex array object. Uniforms: `zoom` = 1.25, `frame`.
//! Prints `frame N checksum HEX` per frame; with `--version`, the context's
//! `GL_VERSION` to stderr.

use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{buffer, bytes_of_f32, frames_and_size, run_app, Kind, Scene};

const VERTEX: &str = include_str!("../../shaders/gles30.vert");
const FRAGMENT: &str = include_str!("../../shaders/gles30.frag");

fn main() -> anyhow::Result<()> {
    let (frames, size) = frames_and_size()?;
    let setup = |gl: &glow::Context, scene: &mut Scene| unsafe {
        let version = gl.get_parameter_string(glow::VERSION);
        if !version.starts_with("OpenGL ES 3.") {
            anyhow::bail!("expected an OpenGL ES 3 context, got {version:?}");
        }
        if shaderdbg_test_apps::flag("--version") {
            eprintln!("{version}");
        }
        let quad = [-1.0f32, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0];
        scene.vertex_array(gl)?;
        scene.buffer(buffer(gl, glow::ARRAY_BUFFER, &bytes_of_f32(&quad))?);
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 0, 0);
        scene.buffer(buffer(gl, glow::ELEMENT_ARRAY_BUFFER, &[0, 1, 2, 1, 3, 2])?);
        scene.framed(gl, (VERTEX, FRAGMENT), ("zoom", 1.25))
    };
    let kind = Kind::Es(3, 0);
    run_app(kind, size, frames, setup, |gl, prog, frame| unsafe {
        prog.use_at(gl, frame);
        gl.draw_elements(glow::TRIANGLES, 6, glow::UNSIGNED_BYTE, 0);
    })
}
