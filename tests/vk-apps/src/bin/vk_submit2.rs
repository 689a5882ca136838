//! `vk_submit2 [FRAMES] [SIZE]`: `vk_triangle`'s frames (at time `0.125 *
//! frame`) submitted with `vkQueueSubmit2` on a Vulkan 1.3 device, each
//! waiting for a timeline semaphore to reach `10 * frame` (the previous
//! frame's signal) and signalling `10 * frame + 10` and a fence. Prints
//! `frame N checksum HEX fence F timeline V`: whether the fence was
//! signalled once waited for, and the timeline's value once waited for
//! (at most a second) to reach the frame's signal.

use ash::vk;
use shaderdbg_vk_test_apps::{arg, DebugInfo, Gpu, Made, Scene};

fn main() -> anyhow::Result<()> {
    let frames: u64 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let mut scene = Scene::on(Gpu::with_submit2(vk::QueueFlags::GRAPHICS)?, size)?;
    let _plain = scene.set_triangle_pipeline(DebugInfo::Source, Made::Plainly)?;
    let timeline = scene.timeline()?;
    let cmd = scene.command_buffer();
    for frame in 0..frames {
        scene.record_triangles(cmd, &[frame as f32 * 0.125])?;
        let (fence, value) = scene.submit2(cmd, timeline, 10 * frame, 10 * frame + 10)?;
        let sum = scene.checksum()?;
        println!("frame {frame} checksum {sum:016x} fence {fence} timeline {value}");
    }
    Ok(())
}
