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

use shaderdbg_test_apps::run_storage_kernel;

const KERNEL: &str = include_str!("../../shaders/oob.comp");

/// Floats per buffer.
const N: usize = 32;

fn main() -> anyhow::Result<()> {
    let src: Vec<f32> = (0..N).map(|i| i as f32 * 0.25 + 3.0).collect();
    run_storage_kernel(KERNEL, &src, N * 4, 2)
}
