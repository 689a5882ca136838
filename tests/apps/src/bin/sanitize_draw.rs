//! `sanitize_draw FRAGMENT [FRAMES]`: a full-screen triangle over a 16x16
//! pbuffer with the GLSL 430 fragment shader in the file `FRAGMENT`, for
//! the sanitizer's end-to-end tests of draws: a zeroed storage buffer of
//! 258 words at binding 1 and a 16x16 `r32ui` texture (zeroed) at image
//! unit 0 and texture unit 0 are bound. Prints per frame:
//!
//! ```text
//! frame N pixels HEX    (FNV-1a of the framebuffer's RGBA8 pixels)
//! ```

use anyhow::{anyhow, Context};
use glow::HasContext;
use shaderdbg_test_apps::{
    arg, check, draw_full_screen, fnv1a, nearest_filtering, vf_program, with_context, zero_storage,
    Kind, FULL_SCREEN_VERTEX,
};

const SIZE: i32 = 16;
const WORDS: usize = 2 + 16 * 16;

fn main() -> anyhow::Result<()> {
    let path: String = arg(0, "FRAGMENT", String::new())?;
    let fragment =
        std::fs::read_to_string(&path).with_context(|| format!("reading the shader {path:?}"))?;
    let frames: u32 = arg(1, "FRAMES", 1)?;
    let lines = with_context(Kind::Core(4, 5), SIZE as u32, |gl, swap| unsafe {
        let program = vf_program(gl, FULL_SCREEN_VERTEX, &fragment)?;
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        let buffer = gl.create_buffer().map_err(|e| anyhow!(e))?;
        zero_storage(gl, buffer, 1, WORDS * 4);
        let tex = gl.create_texture().map_err(|e| anyhow!(e))?;
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::R32UI, SIZE, SIZE);
        nearest_filtering(gl);
        let zeros = vec![0u8; (SIZE * SIZE * 4) as usize];
        gl.tex_sub_image_2d(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            SIZE,
            SIZE,
            glow::RED_INTEGER,
            glow::UNSIGNED_INT,
            glow::PixelUnpackData::Slice(Some(&zeros)),
        );
        gl.bind_image_texture(0, Some(tex), 0, false, 0, glow::READ_WRITE, glow::R32UI);
        let mut lines = Vec::new();
        for frame in 0..frames {
            draw_full_screen(gl, program, vao, SIZE);
            check(gl, "the frame's commands")?;
            let mut pixels = vec![0u8; (SIZE * SIZE * 4) as usize];
            gl.read_pixels(
                0,
                0,
                SIZE,
                SIZE,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut pixels)),
            );
            lines.push(format!("frame {frame} pixels {:016x}", fnv1a(&pixels)));
            swap()?;
        }
        gl.delete_texture(tex);
        gl.delete_buffer(buffer);
        gl.delete_vertex_array(vao);
        gl.delete_program(program);
        Ok(lines)
    })?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
