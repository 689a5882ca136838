//! `legacy110 [FRAMES] [SIZE]`: GLSL 1.10 shaders (`shaders/legacy110.*`:
//! `attribute`, `varying`, `gl_FragColor`) in an OpenGL 4.5 compatibility
//! context. A full-screen quad of four vertices `(-1,-1) (1,-1) (-1,1)
//! (1,1)` drawn as a triangle strip from a vertex buffer through
//! `glVertexAttribPointer` at attribute location 3 (`glBindAttribLocation`),
//! with the default vertex array object 0. Uniforms: `scale` = 0.75,
//! `frame` (a float). Prints `frame N checksum HEX` per frame.

use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{buffer, bytes_of_f32, frames_and_size, program, run_app, Kind, Scene};

const VERTEX: &str = include_str!("../../shaders/legacy110.vert");
const FRAGMENT: &str = include_str!("../../shaders/legacy110.frag");

/// The attribute location the app binds `pos` to.
const POS: u32 = 3;

fn main() -> anyhow::Result<()> {
    let (frames, size) = frames_and_size()?;
    let setup = |gl: &glow::Context, scene: &mut Scene| unsafe {
        let quad = [-1.0f32, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0];
        let vbo = scene.buffer(buffer(gl, glow::ARRAY_BUFFER, &bytes_of_f32(&quad))?);
        let shaders = [
            (glow::VERTEX_SHADER, VERTEX),
            (glow::FRAGMENT_SHADER, FRAGMENT),
        ];
        let prog = scene.program(program(gl, &shaders, |p| {
            gl.bind_attrib_location(p, POS, "pos")
        })?);
        gl.use_program(Some(prog));
        gl.uniform_1_f32(gl.get_uniform_location(prog, "scale").as_ref(), 0.75);
        Ok((prog, gl.get_uniform_location(prog, "frame"), vbo))
    };
    run_app(
        Kind::Compat(4, 5),
        size,
        frames,
        setup,
        |gl, (prog, frame_loc, vbo), frame| unsafe {
            // `frame` is a float here, unlike the other apps.
            gl.use_program(Some(*prog));
            gl.uniform_1_f32(frame_loc.as_ref(), frame as f32);
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(*vbo));
            gl.enable_vertex_attrib_array(POS);
            gl.vertex_attrib_pointer_f32(POS, 2, glow::FLOAT, false, 0, 0);
            gl.draw_arrays(glow::TRIANGLE_STRIP, 0, 4);
            gl.disable_vertex_attrib_array(POS);
        },
    )
}
