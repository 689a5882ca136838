//! `vertex_displace [FRAMES] [SIZE] [GRID]`: a GRID x GRID (odd, default 9)
//! grid mesh, vertex k at `((k % GRID - c) * s, (k / GRID - c) * s)` with
//! `c = (GRID - 1) / 2` and `s` the largest power of two with `s * c <= 1`
//! (so 9: `((k % 9 - 4) / 4, (k / 9 - 4) / 4)`), (GRID - 1)^2 cells of two
//! triangles, `GL_UNSIGNED_SHORT` indices (GRID <= 255), drawn with one
//! `glDrawElements`. The vertex
//! shader (`shaders/vertex_displace.vert`, GLSL 330 core) displaces every
//! vertex by a function of `gl_VertexID`, the uniform `amp` (1.5) and the
//! frame; the fragment shader colours by a varying. Prints
//! `frame N checksum HEX` per frame.

use anyhow::anyhow;
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    arg, buffer, bytes_of_f32, print_checksums, render_frames, vf_program, with_context, Kind,
    Target,
};

const VERTEX: &str = include_str!("../../shaders/vertex_displace.vert");
const FRAGMENT: &str = include_str!("../../shaders/vertex_displace.frag");

/// The `amp` uniform.
const AMP: f32 = 1.5;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: i32 = arg(1, "SIZE", 64)?;
    let n: u16 = arg(2, "GRID", 9)?;
    if n & 1 == 0 || !(3..=255).contains(&n) {
        anyhow::bail!("GRID must be odd, 3..=255");
    }
    let c = f32::from((n - 1) / 2);
    let mut scale = 1.0f32;
    while scale * c > 1.0 {
        scale *= 0.5;
    }
    let sums = with_context(Kind::Core(3, 3), size as u32, |gl, swap| unsafe {
        let out = Target::rgba8(gl, size, size)?;
        let positions: Vec<f32> = (0..n * n)
            .flat_map(|k| {
                [
                    (f32::from(k % n) - c) * scale,
                    (f32::from(k / n) - c) * scale,
                ]
            })
            .collect();
        let mut indices: Vec<u16> = Vec::new();
        for j in 0..n - 1 {
            for i in 0..n - 1 {
                let k = j * n + i;
                indices.extend([k, k + 1, k + n, k + 1, k + n + 1, k + n]);
            }
        }
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(vao));
        let vbo = buffer(gl, glow::ARRAY_BUFFER, &bytes_of_f32(&positions))?;
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
        let ebo = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ebo));
        let index_bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &index_bytes, glow::STATIC_DRAW);
        let prog = vf_program(gl, VERTEX, FRAGMENT)?;
        gl.use_program(Some(prog));
        gl.uniform_1_f32(gl.get_uniform_location(prog, "amp").as_ref(), AMP);
        let frame_loc = gl.get_uniform_location(prog, "frame");
        let sums = render_frames(gl, &out, frames, swap, |frame| {
            gl.use_program(Some(prog));
            gl.uniform_1_i32(frame_loc.as_ref(), frame as i32);
            gl.draw_elements(
                glow::TRIANGLES,
                indices.len() as i32,
                glow::UNSIGNED_SHORT,
                0,
            );
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
