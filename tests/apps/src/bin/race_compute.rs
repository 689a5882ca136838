//! `race_compute [FRAMES] [--fixed]`: a compute kernel with a data race
//! for the sanitizer (`shaders/race.comp`, GLSL 430, local size 16,
//! dispatched as 2 groups): each work group sums 16 floats of a storage
//! buffer (binding 0) plus the frame number in a shared tile and writes the
//! sum to another (binding 1), but the reduction has no barrier between
//! one step's writes and the next step's reads. With `--fixed` the kernel
//! has it (`#define FIXED`). On llvmpipe both compute the same sums (a
//! work group runs in order there). Prints per frame:
//!
//! ```text
//! frame N dst HEX     (FNV-1a of the output buffer's bytes)
//! ```

use anyhow::anyhow;
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    arg, bytes_of_f32, check, flag, fnv1a, program, read_buffer, with_context, Kind,
};

const KERNEL: &str = include_str!("../../shaders/race.comp");

/// Work groups, and floats each sums.
const GROUPS: usize = 2;
const N: usize = 16;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 2)?;
    let kernel_text = if flag("--fixed") {
        KERNEL.replacen("#version 430\n", "#version 430\n#define FIXED\n", 1)
    } else {
        KERNEL.to_string()
    };
    let lines = with_context(Kind::Core(4, 5), 16, |gl, swap| unsafe {
        let src_values: Vec<f32> = (0..GROUPS * N).map(|i| i as f32 * 0.5 + 1.0).collect();
        let src = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(src));
        gl.buffer_data_u8_slice(
            glow::SHADER_STORAGE_BUFFER,
            &bytes_of_f32(&src_values),
            glow::STATIC_DRAW,
        );
        let dst = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(dst));
        gl.buffer_data_u8_slice(
            glow::SHADER_STORAGE_BUFFER,
            &[0u8; GROUPS * 4],
            glow::DYNAMIC_COPY,
        );
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 0, Some(src));
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 1, Some(dst));
        let kernel = program(gl, &[(glow::COMPUTE_SHADER, &kernel_text)], |_| {})?;
        let frame_at = gl.get_uniform_location(kernel, "frame");
        let mut lines = Vec::new();
        for frame in 0..frames {
            gl.use_program(Some(kernel));
            gl.uniform_1_u32(frame_at.as_ref(), frame);
            gl.dispatch_compute(GROUPS as u32, 1, 1);
            gl.memory_barrier(glow::BUFFER_UPDATE_BARRIER_BIT);
            gl.use_program(None);
            check(gl, "the frame's commands")?;
            let sum = fnv1a(&read_buffer(gl, dst, GROUPS * 4)?);
            lines.push(format!("frame {frame} dst {sum:016x}"));
            swap()?;
        }
        gl.delete_program(kernel);
        gl.delete_buffer(src);
        gl.delete_buffer(dst);
        Ok(lines)
    })?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
