//! `fragment_ssbo [FRAMES] [--fixed]`: a fragment shader that writes a
//! storage buffer, for the sanitizer's fragment stage
//! (`shaders/fragment_ssbo.frag`, GLSL 430): a full-screen triangle over a
//! 16x16 pbuffer whose fragments count themselves, keep the last pixel and
//! mark their pixel in a buffer at binding 1 (2 + 256 words). Without
//! `--fixed` the count and the last pixel are plain writes (fragments race
//! on them) and the mark is one element off (the last pixel's is out of
//! bounds); with it they are atomics and in bounds. Prints per frame:
//!
//! ```text
//! frame N hits HEX    (FNV-1a of the storage buffer's bytes; --fixed)
//! frame N drawn       (without --fixed: the racy count varies)
//! ```

use anyhow::anyhow;
use glow::HasContext;
use shaderdbg_test_apps::{arg, check, flag, fnv1a, read_buffer, vf_program, with_context, Kind};

const FRAGMENT: &str = include_str!("../../shaders/fragment_ssbo.frag");

/// A full-screen triangle from `gl_VertexID`.
const VERTEX: &str = "#version 430
void main() {
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
";

/// Words of the storage buffer: count, last, one per pixel.
const WORDS: usize = 2 + 16 * 16;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 2)?;
    let fixed = flag("--fixed");
    let fragment = if fixed {
        FRAGMENT.replacen("#version 430\n", "#version 430\n#define FIXED\n", 1)
    } else {
        FRAGMENT.to_string()
    };
    let lines = with_context(Kind::Core(4, 5), 16, |gl, swap| unsafe {
        let hits = gl.create_buffer().map_err(|e| anyhow!(e))?;
        let program = vf_program(gl, VERTEX, &fragment)?;
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        let mut lines = Vec::new();
        for frame in 0..frames {
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(hits));
            gl.buffer_data_u8_slice(
                glow::SHADER_STORAGE_BUFFER,
                &vec![0u8; WORDS * 4],
                glow::DYNAMIC_COPY,
            );
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
            gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 1, Some(hits));
            gl.viewport(0, 0, 16, 16);
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.use_program(Some(program));
            gl.bind_vertex_array(Some(vao));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.bind_vertex_array(None);
            gl.use_program(None);
            gl.memory_barrier(glow::BUFFER_UPDATE_BARRIER_BIT);
            check(gl, "the frame's commands")?;
            let bytes = read_buffer(gl, hits, WORDS * 4)?;
            if fixed {
                lines.push(format!("frame {frame} hits {:016x}", fnv1a(&bytes)));
            } else {
                lines.push(format!("frame {frame} drawn"));
            }
            swap()?;
        }
        gl.delete_vertex_array(vao);
        gl.delete_program(program);
        gl.delete_buffer(hits);
        Ok(lines)
    })?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
