//! `gles30 [FRAMES] [SIZE]`: an OpenGL ES 3.0 context (Mesa gives the
//! newest ES version compatible with 3.0, 3.2 on llvmpipe) with
//! `#version 300 es` shaders (`shaders/gles30.*`). Two triangles covering
//! clip space, indexed (`GL_UNSIGNED_BYTE`), from a vertex buffer at
//! location 0 in a vertex array object. Uniforms: `zoom` = 1.25, `frame`.
//! Prints `frame N checksum HEX` per frame; with `--version`, the context's
//! `GL_VERSION` to stderr.

use anyhow::anyhow;
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    arg, buffer, bytes_of_f32, print_checksums, render_frames, vf_program, with_context, Kind,
    Target,
};

const VERTEX: &str = include_str!("../../shaders/gles30.vert");
const FRAGMENT: &str = include_str!("../../shaders/gles30.frag");

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: i32 = arg(1, "SIZE", 64)?;
    let sums = with_context(Kind::Es(3, 0), size as u32, |gl, swap| unsafe {
        let version = gl.get_parameter_string(glow::VERSION);
        if !version.starts_with("OpenGL ES 3.") {
            anyhow::bail!("expected an OpenGL ES 3 context, got {version:?}");
        }
        if shaderdbg_test_apps::flag("--version") {
            eprintln!("{version}");
        }
        let out = Target::rgba8(gl, size, size)?;
        let quad = [-1.0f32, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0];
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(vao));
        let vbo = buffer(gl, glow::ARRAY_BUFFER, &bytes_of_f32(&quad))?;
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 0, 0);
        let ebo = buffer(gl, glow::ELEMENT_ARRAY_BUFFER, &[0, 1, 2, 1, 3, 2])?;
        let prog = vf_program(gl, VERTEX, FRAGMENT)?;
        gl.use_program(Some(prog));
        gl.uniform_1_f32(gl.get_uniform_location(prog, "zoom").as_ref(), 1.25);
        let frame_loc = gl.get_uniform_location(prog, "frame");
        let sums = render_frames(gl, &out, frames, swap, |frame| {
            gl.use_program(Some(prog));
            gl.uniform_1_i32(frame_loc.as_ref(), frame as i32);
            gl.draw_elements(glow::TRIANGLES, 6, glow::UNSIGNED_BYTE, 0);
        })?;
        gl.delete_program(prog);
        gl.delete_buffer(vbo);
        gl.delete_buffer(ebo);
        gl.delete_vertex_array(vao);
        out.delete(gl);
        Ok(sums)
    })?;
    print_checksums(&sums);
    Ok(())
}
