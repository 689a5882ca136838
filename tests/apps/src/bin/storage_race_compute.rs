//! `storage_race_compute [FRAMES] [--fixed]`: a compute kernel with a data
//! race on a storage buffer for the sanitizer (`shaders/storage_race.comp`,
//! GLSL 430, local size 8, dispatched as 2 groups): each invocation writes
//! a float of a storage buffer (binding 0), doubled, plus the frame number
//! to another (binding 1), but at its local index, so both work groups write
//! the same 8 elements with different values and nothing orders them.
//! With `--fixed` the kernel writes at the global index (`#define FIXED`).
//! Prints per frame:
//!
//! ```text
//! frame N dst HEX     (FNV-1a of the output buffer's bytes)
//! ```

use shaderdbg_test_apps::{flag, run_storage_kernel, with_fixed};

const KERNEL: &str = include_str!("../../shaders/storage_race.comp");

/// Work groups, and invocations in each.
const GROUPS: usize = 2;
const N: usize = 8;

fn main() -> anyhow::Result<()> {
    let kernel = with_fixed(KERNEL, flag("--fixed"));
    let src: Vec<f32> = (0..GROUPS * N).map(|i| i as f32 + 1.0).collect();
    run_storage_kernel(&kernel, &src, GROUPS * N * 4, GROUPS as u32)
}
