//! `vk_api_heavy [FRAMES] [DRAWS] [SUBMITS]`: an API-heavy Vulkan program
//! for the layer's overhead benchmark: FRAMES (default 3) frames of DRAWS
//! (default 2000) draws each (a pipeline bind, a push constant and a draw
//! per draw), split over SUBMITS (default 4) submissions per frame, into a
//! 32x32 image offscreen; prints `frame N checksum HEX` per frame.

use shaderdbg_vk_test_apps::{arg, DebugInfo, Scene};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let draws: usize = arg(1, "DRAWS", 2000)?;
    let submits: usize = arg(2, "SUBMITS", 4)?;
    anyhow::ensure!(submits > 0, "SUBMITS must be positive");
    let scene = Scene::new(32, DebugInfo::None)?;
    for frame in 0..frames {
        let ts: Vec<f32> = (0..draws)
            .map(|i| frame as f32 * 0.125 + i as f32 * 1e-4)
            .collect();
        let per = draws.div_ceil(submits).max(1);
        let chunks: Vec<Vec<f32>> = ts.chunks(per).map(<[f32]>::to_vec).collect();
        println!("frame {frame} checksum {:016x}", scene.frame(&chunks)?);
    }
    Ok(())
}
