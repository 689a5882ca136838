//! `gles30 [FRAMES] [SIZE]`: an OpenGL ES 3.0 context (Mesa gives the
//! newest ES version compatible with 3.0, 3.2 on llvmpipe) with
//! `#version 300 es` shaders (`shaders/gles30.*`). Two triangles covering
//! clip space, indexed (`GL_UNSIGNED_BYTE`), from a vertex buffer at
//! location 0 in a vertex array object. Uniforms: `zoom` = 1.25, `frame`.
//! Prints `frame N checksum HEX` per frame; with `--version`, the context's
//! `GL_VERSION` to stderr.

use anyhow::anyhow;
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{arg, bytes_of_f32, program, with_context, Kind, Target};

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
        let vbo = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes_of_f32(&quad), glow::STATIC_DRAW);
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 0, 0);
        let ebo = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ebo));
        gl.buffer_data_u8_slice(
            glow::ELEMENT_ARRAY_BUFFER,
            &[0, 1, 2, 1, 3, 2],
            glow::STATIC_DRAW,
        );
        let prog = program(
            gl,
            &[
                (glow::VERTEX_SHADER, VERTEX),
                (glow::FRAGMENT_SHADER, FRAGMENT),
            ],
            |_| {},
        )?;
        gl.use_program(Some(prog));
        gl.uniform_1_f32(gl.get_uniform_location(prog, "zoom").as_ref(), 1.25);
        let frame_loc = gl.get_uniform_location(prog, "frame");
        let mut sums = Vec::new();
        for frame in 0..frames {
            out.bind(gl);
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.use_program(Some(prog));
            gl.uniform_1_i32(frame_loc.as_ref(), frame as i32);
            gl.draw_elements(glow::TRIANGLES, 6, glow::UNSIGNED_BYTE, 0);
            sums.push(out.checksum(gl)?);
            swap()?;
        }
        gl.delete_program(prog);
        gl.delete_buffer(vbo);
        gl.delete_buffer(ebo);
        gl.delete_vertex_array(vao);
        out.delete(gl);
        Ok(sums)
    })?;
    for (frame, sum) in sums.iter().enumerate() {
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}
