//! `vk_hlsl [FRAMES] [SIZE] [plain|nonsemantic]`: `vk_triangle` with its
//! fragment shader written in HLSL (`shaders/vk_hlsl.frag.hlsl`, compiled
//! by `glslangValidator -D`), a language the debugger does not instrument:
//! with debug information its SPIR-V carries HLSL. Prints `frame N
//! checksum HEX` for FRAMES (default 3) frames of SIZE x SIZE (default 64).

use ash::vk;
use shaderdbg_vk_test_apps::{arg, shader, DebugInfo, Scene, Shaders};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let debug_info = DebugInfo::from_arg(std::env::args().nth(3).as_deref());
    let mut scene = Scene::offscreen(size)?;
    let push = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::FRAGMENT)
        .size(4)];
    scene.set_pipeline(&Shaders {
        vertex: &shader("vk_triangle.vert", debug_info)?,
        fragment: &shader("vk_hlsl.frag.hlsl", debug_info)?,
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
