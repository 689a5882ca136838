//! `oob_compute [FRAMES]`: a buggy compute kernel for the sanitizer
//! (`shaders/oob.comp`, GLSL 430, local size 4, dispatched as 2 groups):
//! each of the 8 invocations copies a chunk of four floats of a 32-float
//! storage buffer (binding 0) into another (binding 1), doubled plus the
//! frame number, with an off-by-one loop (`k <= CHUNK`): invocation 7 reads
//! and writes element 32 of 32-element runtime-sized arrays. The other
//! invocations' extra write lands on the next chunk's first element with the
//! value that chunk writes there, so the output is deterministic. Prints per
//! frame:
//!
//! ```text
//! frame N dst HEX     (FNV-1a of the output buffer's bytes)
//! ```

use anyhow::anyhow;
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    arg, bytes_of_f32, check, fnv1a, program, read_buffer, with_context, Kind,
};

const KERNEL: &str = include_str!("../../shaders/oob.comp");

/// Floats per buffer.
const N: usize = 32;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 2)?;
    let lines = with_context(Kind::Core(4, 5), 16, |gl, swap| unsafe {
        let src_values: Vec<f32> = (0..N).map(|i| i as f32 * 0.25 + 3.0).collect();
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
            &[0u8; N * 4],
            glow::DYNAMIC_COPY,
        );
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 0, Some(src));
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 1, Some(dst));
        let kernel = program(gl, &[(glow::COMPUTE_SHADER, KERNEL)], |_| {})?;
        let frame_at = gl.get_uniform_location(kernel, "frame");
        let mut lines = Vec::new();
        for frame in 0..frames {
            gl.use_program(Some(kernel));
            gl.uniform_1_u32(frame_at.as_ref(), frame);
            gl.dispatch_compute(2, 1, 1);
            gl.memory_barrier(glow::BUFFER_UPDATE_BARRIER_BIT);
            gl.use_program(None);
            check(gl, "the frame's commands")?;
            let sum = fnv1a(&read_buffer(gl, dst, N * 4)?);
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
