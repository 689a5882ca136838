//! `legacy110 [FRAMES] [SIZE]`: GLSL 1.10 shaders (`shaders/legacy110.*`:
//! `attribute`, `varying`, `gl_FragColor`) in an OpenGL 4.5 compatibility
//! context. A full-screen quad of four vertices `(-1,-1) (1,-1) (-1,1)
//! (1,1)` drawn as a triangle strip from a vertex buffer through
//! `glVertexAttribPointer` at attribute location 3 (`glBindAttribLocation`),
//! with the default vertex array object 0. Uniforms: `scale` = 0.75,
//! `frame` (a float). Prints `frame N checksum HEX` per frame.

use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    arg, buffer, bytes_of_f32, print_checksums, program, render_frames, with_context, Kind, Target,
};

const VERTEX: &str = include_str!("../../shaders/legacy110.vert");
const FRAGMENT: &str = include_str!("../../shaders/legacy110.frag");

/// The attribute location the app binds `pos` to.
const POS: u32 = 3;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: i32 = arg(1, "SIZE", 64)?;
    let sums = with_context(Kind::Compat(4, 5), size as u32, |gl, swap| unsafe {
        let out = Target::rgba8(gl, size, size)?;
        let quad = [-1.0f32, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0];
        let vbo = buffer(gl, glow::ARRAY_BUFFER, &bytes_of_f32(&quad))?;
        let prog = program(
            gl,
            &[
                (glow::VERTEX_SHADER, VERTEX),
                (glow::FRAGMENT_SHADER, FRAGMENT),
            ],
            |p| gl.bind_attrib_location(p, POS, "pos"),
        )?;
        gl.use_program(Some(prog));
        gl.uniform_1_f32(gl.get_uniform_location(prog, "scale").as_ref(), 0.75);
        let frame_loc = gl.get_uniform_location(prog, "frame");
        let sums = render_frames(gl, &out, frames, swap, |frame| {
            gl.use_program(Some(prog));
            gl.uniform_1_f32(frame_loc.as_ref(), frame as f32);
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            gl.enable_vertex_attrib_array(POS);
            gl.vertex_attrib_pointer_f32(POS, 2, glow::FLOAT, false, 0, 0);
            gl.draw_arrays(glow::TRIANGLE_STRIP, 0, 4);
            gl.disable_vertex_attrib_array(POS);
        })?;
        gl.delete_program(prog);
        gl.delete_buffer(vbo);
        out.delete(gl);
        Ok(sums)
    })?;
    print_checksums(&sums);
    Ok(())
}
