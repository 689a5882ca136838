//! `api_heavy [FRAMES] [DRAWS]`: an API-heavy frame loop for measuring the
//! agent's overhead when attached without breakpoints: every frame makes DRAWS
//! (default 2000) tiny draws, alternating two programs, each after a uniform
//! update, into a 32x32 FBO. Prints `frame N checksum HEX` per frame.

use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{arg, run_app, vf_program, Kind, Scene};

const VERTEX: &str = "#version 330 core
uniform vec2 offset;
void main() {
    vec2 p = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 0.1;
    gl_Position = vec4(p + offset, 0.0, 1.0);
}
";
const FRAGMENT_A: &str = "#version 330 core
uniform vec2 offset;
out vec4 color;
void main() { color = vec4(fract(offset * 3.0), 0.25, 1.0); }
";
const FRAGMENT_B: &str = "#version 330 core
uniform vec2 offset;
out vec4 color;
void main() { color = vec4(0.5, fract(offset.yx * 5.0), 1.0); }
";

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let draws: u32 = arg(1, "DRAWS", 2000)?;
    let setup = |gl: &glow::Context, scene: &mut Scene| unsafe {
        scene.vertex_array(gl)?;
        let programs = [FRAGMENT_A, FRAGMENT_B]
            .iter()
            .map(|f| Ok(scene.program(vf_program(gl, VERTEX, f)?)))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let locations: Vec<_> = programs
            .iter()
            .map(|p| gl.get_uniform_location(*p, "offset"))
            .collect();
        Ok((programs, locations))
    };
    run_app(
        Kind::Core(3, 3),
        32,
        frames,
        setup,
        |gl, (programs, locations), frame| unsafe {
            for i in 0..draws {
                let k = (i % 2) as usize;
                gl.use_program(Some(programs[k]));
                let x = ((i * 7 + frame) % 19) as f32 / 10.0 - 1.0;
                let y = ((i * 3) % 17) as f32 / 9.0 - 1.0;
                gl.uniform_2_f32(locations[k].as_ref(), x, y);
                gl.draw_arrays(glow::TRIANGLE_STRIP, 0, 4);
            }
        },
    )
}
