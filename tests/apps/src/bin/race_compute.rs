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

use shaderdbg_test_apps::{flag, run_storage_kernel, with_fixed};

const KERNEL: &str = include_str!("../../shaders/race.comp");

/// Work groups, and floats each sums.
const GROUPS: usize = 2;
const N: usize = 16;

fn main() -> anyhow::Result<()> {
    let kernel = with_fixed(KERNEL, flag("--fixed"));
    let src: Vec<f32> = (0..GROUPS * N).map(|i| i as f32 * 0.5 + 1.0).collect();
    run_storage_kernel(&kernel, &src, GROUPS * 4, GROUPS as u32)
}
