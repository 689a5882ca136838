//! `vk_chained [FRAMES] [SIZE] [plain|nonsemantic|source]`: `vk_triangle`'s
//! frames with its pipeline's shaders given in the stages' chains
//! (`VkShaderModuleCreateInfo`, no shader module made), as
//! `VK_EXT_graphics_pipeline_library` allows (a Vulkan 1.3 device with it
//! enabled). Prints `frame N checksum HEX`.

use ash::vk;
use shaderdbg_vk_test_apps::{Args, Gpu, Made, Scene};

fn main() -> anyhow::Result<()> {
    let args = Args::parse()?;
    let gpu = Gpu::with_pipeline_library(vk::QueueFlags::GRAPHICS)?;
    let mut scene = Scene::on(gpu, args.size)?;
    let _made = scene.set_triangle_pipeline(args.debug_info, Made::Chained)?;
    for frame in 0..args.frames {
        let sum = scene.frame(&[vec![frame as f32 * 0.125]])?;
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}
