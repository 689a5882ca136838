//! `vk_cache [FRAMES] [SIZE]`: `vk_triangle`'s frames with its pipeline
//! created through a pipeline cache, as programs that ship one do: one
//! `vkCreateGraphicsPipelines` of two pipelines, the first only if the
//! cache has it (`VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT`,
//! `VK_EXT_pipeline_creation_cache_control`), the second compiled; the
//! first one made is drawn with. Prints what the creation returned
//! (`pipeline from cache: RESULT`), then `frame N checksum HEX`.

use ash::vk;
use shaderdbg_vk_test_apps::{arg, DebugInfo, Gpu, Made, Scene};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let mut scene = Scene::on(Gpu::with_cache_control(vk::QueueFlags::GRAPHICS)?, size)?;
    let cache = scene.pipeline_cache()?;
    let result = scene.set_triangle_pipeline(DebugInfo::Source, Made::FromCache(cache))?;
    println!("pipeline from cache: {result:?}");
    for frame in 0..frames {
        let sum = scene.frame(&[vec![frame as f32 * 0.125]])?;
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}
