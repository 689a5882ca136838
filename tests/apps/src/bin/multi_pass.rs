//! `multi_pass [FRAMES] [SIZE]`: two passes per frame, GLSL 330 core.
//! Pass 1 renders a pattern (`shaders/multi_pass_pattern.frag`) into a
//! SIZE/2 x SIZE/2 RGBA32F texture; pass 2 (`shaders/multi_pass_post.frag`)
//! samples it with `texture()` (NEAREST, sampler on unit 1) into a SIZE x
//! SIZE RGBA8 framebuffer, which is read back. Prints `frame N checksum HEX`
//! per frame (see the `shaderdbg_test_apps` crate).

use anyhow::anyhow;
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    frames_and_size, print_checksums, vf_program, with_context, Kind, Target,
};

const VERTEX: &str = include_str!("../../shaders/fullscreen.vert");
const PATTERN: &str = include_str!("../../shaders/multi_pass_pattern.frag");
const POST: &str = include_str!("../../shaders/multi_pass_post.frag");

fn main() -> anyhow::Result<()> {
    let (frames, size) = frames_and_size()?;
    if size < 2 || size % 2 != 0 {
        anyhow::bail!("SIZE must be even and positive");
    }
    let sums = with_context(Kind::Core(3, 3), size as u32, |gl, swap| unsafe {
        let scene = Target::new(
            gl,
            size / 2,
            size / 2,
            glow::RGBA32F,
            glow::RGBA,
            glow::FLOAT,
        )?;
        let out = Target::rgba8(gl, size, size)?;
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(vao));
        let pattern = vf_program(gl, VERTEX, PATTERN)?;
        let post = vf_program(gl, VERTEX, POST)?;
        let frame_loc = gl.get_uniform_location(pattern, "frame");
        gl.use_program(Some(post));
        gl.uniform_1_i32(gl.get_uniform_location(post, "scene").as_ref(), 1);
        gl.uniform_2_f32(
            gl.get_uniform_location(post, "size").as_ref(),
            size as f32,
            size as f32,
        );
        let mut sums = Vec::new();
        for frame in 0..frames {
            // Pass 1.
            scene.bind(gl);
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.use_program(Some(pattern));
            gl.uniform_1_i32(frame_loc.as_ref(), frame as i32);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            // Pass 2.
            out.bind(gl);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.active_texture(glow::TEXTURE1);
            gl.bind_texture(glow::TEXTURE_2D, Some(scene.texture));
            gl.use_program(Some(post));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.active_texture(glow::TEXTURE0);
            gl.use_program(None);
            sums.push(out.checksum(gl)?);
            swap()?;
        }
        gl.delete_program(pattern);
        gl.delete_program(post);
        gl.delete_vertex_array(vao);
        scene.delete(gl);
        out.delete(gl);
        Ok(sums)
    })?;
    print_checksums(&sums);
    Ok(())
}
