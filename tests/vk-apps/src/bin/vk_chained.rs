//! `vk_chained [FRAMES] [SIZE] [plain|nonsemantic|source]`: `vk_triangle`'s
//! frames with its pipeline's shaders given in the stages' chains
//! (`VkShaderModuleCreateInfo`, no shader module made), as
//! `VK_EXT_graphics_pipeline_library` allows (a Vulkan 1.3 device with it
//! enabled). Prints `frame N checksum HEX`.

use ash::vk;
use shaderdbg_vk_test_apps::{arg, DebugInfo, Gpu, Made, Scene};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let debug_info = DebugInfo::from_arg(std::env::args().nth(3).as_deref());
    let gpu = Gpu::with_pipeline_library(vk::QueueFlags::GRAPHICS)?;
    let mut scene = Scene::on(gpu, size)?;
    let _made = scene.set_triangle_pipeline(debug_info, Made::Chained)?;
    for frame in 0..frames {
        let sum = scene.frame(&[vec![frame as f32 * 0.125]])?;
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}
