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
use shaderdbg_test_apps::{
    arg, check, draw_full_screen, flag, fnv1a, read_buffer, vf_program, with_context, with_fixed,
    zero_storage, Kind, FULL_SCREEN_VERTEX,
};

const FRAGMENT: &str = include_str!("../../shaders/fragment_ssbo.frag");

/// Words of the storage buffer: count, last, one per pixel.
const WORDS: usize = 2 + 16 * 16;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 2)?;
    let fixed = flag("--fixed");
    let fragment = with_fixed(FRAGMENT, fixed);
    let lines = with_context(Kind::Core(4, 5), 16, |gl, swap| unsafe {
        let hits = gl.create_buffer().map_err(|e| anyhow!(e))?;
        let program = vf_program(gl, FULL_SCREEN_VERTEX, &fragment)?;
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        let mut lines = Vec::new();
        for frame in 0..frames {
            zero_storage(gl, hits, 1, WORDS * 4);
            draw_full_screen(gl, program, vao, 16);
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
