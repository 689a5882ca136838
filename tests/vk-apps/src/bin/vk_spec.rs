//! `vk_spec [FRAMES] [SIZE] [plain|nonsemantic]`: `vk_triangle`'s
//! full-screen draw with `shaders/vk_spec.frag`, whose specialization
//! constants `GAIN` (id 0, default 1.0) and `BANDS` (id 1, default 2) the
//! pipeline sets to 2.5 and 5 (`VkSpecializationInfo`); the frame's time
//! (`0.125 frame`) in a push constant. Prints `frame N checksum HEX` for
//! FRAMES (default 3) frames of SIZE x SIZE (default 64).

use ash::vk;
use shaderdbg_vk_test_apps::{shader, Args, Scene, Shaders};

/// The specialization: `GAIN` then `BANDS`.
const GAIN: f32 = 2.5;
const BANDS: i32 = 5;

fn main() -> anyhow::Result<()> {
    let args = Args::parse()?;
    let mut scene = Scene::offscreen(args.size)?;
    let entries = [
        vk::SpecializationMapEntry {
            constant_id: 0,
            offset: 0,
            size: 4,
        },
        vk::SpecializationMapEntry {
            constant_id: 1,
            offset: 4,
            size: 4,
        },
    ];
    let data: Vec<u8> = GAIN
        .to_le_bytes()
        .into_iter()
        .chain(BANDS.to_le_bytes())
        .collect();
    let specialization = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(&data);
    let push = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::FRAGMENT)
        .size(4)];
    scene.set_pipeline(&Shaders {
        vertex: &shader("vk_triangle.vert", args.debug_info)?,
        fragment: &shader("vk_spec.frag", args.debug_info)?,
        set_layouts: &[],
        push_constants: &push,
        specialization: Some(&specialization),
    })?;
    for frame in 0..args.frames {
        let sum = scene.frame(&[vec![frame as f32 * 0.125]])?;
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}
