//! `vk_chained [FRAMES] [SIZE] [plain|nonsemantic|source]`: `vk_triangle`'s
//! frames with its pipeline's shaders given in the stages' chains
//! (`VkShaderModuleCreateInfo`, no shader module made), as
//! `VK_EXT_graphics_pipeline_library` allows (a Vulkan 1.3 device with it
//! enabled). Prints `frame N checksum HEX`.

use ash::vk;
use shaderdbg_vk_test_apps::{arg, triangle_shaders, DebugInfo, Gpu, Scene, Shaders};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let debug_info = DebugInfo::from_arg(std::env::args().nth(3).as_deref());
    let gpu = Gpu::with_pipeline_library(vk::QueueFlags::GRAPHICS)?;
    let mut scene = Scene::on(gpu, size)?;
    let (vertex, fragment) = triangle_shaders(debug_info)?;
    let push = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::FRAGMENT)
        .size(4)];
    scene.set_pipeline_chained(&Shaders {
        vertex: &vertex,
        fragment: &fragment,
        set_layouts: &[],
        push_constants: &push,
        specialization: None,
    })?;
    for frame in 0..frames {
        let sum = scene.frame(&[vec![frame as f32 * 0.125]])?;
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}
