//! `vk_secondary [FRAMES] [SIZE] [plain|nonsemantic] [DRAWS]`: `vk_triangle`
//! (its shaders and pipeline, SIZE x SIZE RGBA8 offscreen, default 64) with
//! its draws in secondary command buffers: each frame records DRAWS
//! (default 2) secondaries of one draw each, draw `i` of frame `f` at time
//! `f * 0.125 + i * 0.25` (the push constant; each covers the last),
//! continuing the render pass, which the primary begins with
//! `VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS` and which executes them
//! all with one `vkCmdExecuteCommands`. Prints `frame N checksum HEX` for
//! FRAMES (default 3) frames, the same as `vk_triangle` with the same
//! arguments.

use ash::vk;
use shaderdbg_vk_test_apps::{arg, DebugInfo, Scene};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let debug_info = DebugInfo::from_arg(std::env::args().nth(3).as_deref());
    let draws: u32 = arg(3, "DRAWS", 2)?;
    let scene = Scene::new(size, debug_info)?;
    let (pipeline, layout) = (scene.pipeline(), scene.layout());
    let cmd = scene.command_buffer();
    for frame in 0..frames {
        let secondaries = (0..draws)
            .map(|i| {
                let t = frame as f32 * 0.125 + i as f32 * 0.25;
                scene.secondary(|d, cmd| {
                    // SAFETY: recording a secondary inside the scene's render
                    // pass, with its pipeline and push-constant range.
                    unsafe {
                        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
                        let stage = vk::ShaderStageFlags::FRAGMENT;
                        d.cmd_push_constants(cmd, layout, stage, 0, &t.to_le_bytes());
                        d.cmd_draw(cmd, 3, 1, 0, 0);
                    }
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let contents = vk::SubpassContents::SECONDARY_COMMAND_BUFFERS;
        // SAFETY: the secondaries continue this render pass's subpass.
        scene.record_in(cmd, contents, |d, cmd| unsafe {
            d.cmd_execute_commands(cmd, &secondaries)
        })?;
        scene.submit(cmd)?;
        println!("frame {frame} checksum {:016x}", scene.checksum()?);
    }
    Ok(())
}
