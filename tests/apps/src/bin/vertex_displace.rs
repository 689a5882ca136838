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

use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{arg, buffer, bytes_of_f32, frames_and_size, run_app, Kind, Scene};

const VERTEX: &str = include_str!("../../shaders/vertex_displace.vert");
const FRAGMENT: &str = include_str!("../../shaders/vertex_displace.frag");

/// The `amp` uniform.
const AMP: f32 = 1.5;

fn main() -> anyhow::Result<()> {
    let (frames, size) = frames_and_size()?;
    let n: u16 = arg(2, "GRID", 9)?;
    if n & 1 == 0 || !(3..=255).contains(&n) {
        anyhow::bail!("GRID must be odd, 3..=255");
    }
    let c = f32::from((n - 1) / 2);
    let mut scale = 1.0f32;
    while scale * c > 1.0 {
        scale *= 0.5;
    }
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
    let setup = |gl: &glow::Context, scene: &mut Scene| unsafe {
        scene.vertex_array(gl)?;
        scene.buffer(buffer(gl, glow::ARRAY_BUFFER, &bytes_of_f32(&positions))?);
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 8, 0);
        let index_bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        scene.buffer(buffer(gl, glow::ELEMENT_ARRAY_BUFFER, &index_bytes)?);
        scene.framed(gl, (VERTEX, FRAGMENT), ("amp", AMP))
    };
    let kind = Kind::Core(3, 3);
    run_app(kind, size, frames, setup, |gl, prog, frame| unsafe {
        prog.use_at(gl, frame);
        let count = indices.len() as i32;
        gl.draw_elements(glow::TRIANGLES, count, glow::UNSIGNED_SHORT, 0);
    })
}
