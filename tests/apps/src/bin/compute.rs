//! `compute [FRAMES] [SIZE]`: per frame, a GLSL 430 compute shader
//! (`shaders/compute.comp`, local size 8 x 4, dispatched as 2 x 4 groups)
//! advances a 16 x 16 grid of counters in a storage buffer (binding 3:
//! `cells[i] = cells[i] * 3 + (x ^ y) + frame`, all zero at first); a second
//! compute shader (`shaders/compute_image.comp`) writes a 16 x 16 RGBA8 image
//! with `imageStore`; then a fragment pass (`shaders/compute_show.frag`)
//! reads the counters (4 x 4 pixels per cell) into a SIZE x SIZE RGBA8
//! framebuffer and counts its fragments by counter value modulo 4 with
//! `atomicAdd` into a second storage buffer (binding 5, zeroed every frame).
//! SIZE must be 64 (the fragment pass maps 4 pixels to a cell). Prints per
//! frame:
//!
//! ```text
//! frame N checksum HEX     (the framebuffer)
//! frame N cells HEX        (FNV-1a of the counters' bytes)
//! frame N histogram A B C D
//! frame N image HEX        (the image's RGBA8 pixels)
//! ```

use anyhow::{anyhow, bail};
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    check, fnv1a, frames_and_size, program, read_buffer, vf_program, with_context, Kind, Target,
};

const COMPUTE: &str = include_str!("../../shaders/compute.comp");
const IMAGE: &str = include_str!("../../shaders/compute_image.comp");
const VERTEX: &str = include_str!("../../shaders/fullscreen.vert");
const SHOW: &str = include_str!("../../shaders/compute_show.frag");

/// Counters per grid side.
const GRID: u32 = 16;

fn main() -> anyhow::Result<()> {
    let (frames, size) = frames_and_size()?;
    if size != 64 {
        bail!("SIZE must be 64");
    }
    let lines = with_context(Kind::Core(4, 5), size as u32, |gl, swap| unsafe {
        let out = Target::rgba8(gl, size, size)?;
        let image = Target::rgba8(gl, GRID as i32, GRID as i32)?;
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(vao));
        let cells = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(cells));
        let cell_bytes = (GRID * GRID * 4) as usize;
        gl.buffer_data_u8_slice(
            glow::SHADER_STORAGE_BUFFER,
            &vec![0u8; cell_bytes],
            glow::DYNAMIC_COPY,
        );
        let histogram = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(histogram));
        gl.buffer_data_size(glow::SHADER_STORAGE_BUFFER, 16, glow::DYNAMIC_COPY);
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 3, Some(cells));
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 5, Some(histogram));

        let step = program(gl, &[(glow::COMPUTE_SHADER, COMPUTE)], |_| {})?;
        let paint = program(gl, &[(glow::COMPUTE_SHADER, IMAGE)], |_| {})?;
        let show = vf_program(gl, VERTEX, SHOW)?;
        gl.use_program(Some(step));
        gl.uniform_1_u32(gl.get_uniform_location(step, "width").as_ref(), GRID);
        gl.use_program(Some(show));
        gl.uniform_1_u32(gl.get_uniform_location(show, "width").as_ref(), GRID);
        let step_frame = gl.get_uniform_location(step, "frame");
        let paint_frame = gl.get_uniform_location(paint, "frame");

        let mut lines = Vec::new();
        for frame in 0..frames {
            gl.use_program(Some(step));
            gl.uniform_1_u32(step_frame.as_ref(), frame);
            gl.dispatch_compute(GRID / 8, GRID / 4, 1);
            gl.memory_barrier(glow::SHADER_STORAGE_BARRIER_BIT);

            gl.use_program(Some(paint));
            gl.uniform_1_u32(paint_frame.as_ref(), frame);
            gl.bind_image_texture(
                0,
                Some(image.texture),
                0,
                false,
                0,
                glow::WRITE_ONLY,
                glow::RGBA8,
            );
            gl.dispatch_compute(GRID / 8, GRID / 8, 1);
            gl.memory_barrier(glow::FRAMEBUFFER_BARRIER_BIT | glow::TEXTURE_UPDATE_BARRIER_BIT);

            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(histogram));
            gl.buffer_sub_data_u8_slice(glow::SHADER_STORAGE_BUFFER, 0, &[0u8; 16]);
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
            out.bind(gl);
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.use_program(Some(show));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.use_program(None);
            check(gl, "the frame's commands")?;

            let sum = out.checksum(gl)?;
            let cell_sum = fnv1a(&read_buffer(gl, cells, cell_bytes)?);
            let counts: Vec<u32> = read_buffer(gl, histogram, 16)?
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let image_sum = image.checksum(gl)?;
            lines.push(format!("frame {frame} checksum {sum:016x}"));
            lines.push(format!("frame {frame} cells {cell_sum:016x}"));
            lines.push(format!(
                "frame {frame} histogram {} {} {} {}",
                counts[0], counts[1], counts[2], counts[3]
            ));
            lines.push(format!("frame {frame} image {image_sum:016x}"));
            swap()?;
        }
        gl.delete_program(step);
        gl.delete_program(paint);
        gl.delete_program(show);
        gl.delete_buffer(cells);
        gl.delete_buffer(histogram);
        gl.delete_vertex_array(vao);
        out.delete(gl);
        image.delete(gl);
        Ok(lines)
    })?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
