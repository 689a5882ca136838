//! `vk_compute [FRAMES] [COUNT] [plain|nonsemantic]`: a compute dispatch
//! writing a storage buffer (descriptor set 0) with a push constant per
//! frame, on the first Vulkan device, offscreen; prints a checksum of the
//! buffer per frame. A program whose submission cannot simply run twice:
//! its shader writes storage. Its shader module is destroyed as soon as
//! the pipeline exists.

use ash::vk;
use shaderdbg_vk_test_apps::{arg, shader, Binding, DebugInfo, Gpu, Vulkan};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 2)?;
    let count: u32 = arg(1, "COUNT", 256)?;
    anyhow::ensure!(
        count.is_multiple_of(64) && count > 0,
        "COUNT must be a positive multiple of 64"
    );
    let debug_info = DebugInfo::from_arg(std::env::args().nth(3).as_deref());
    let code = shader("vk_compute.comp", debug_info)?;
    let sums = {
        let mut v = Vulkan::new(Gpu::new(vk::QueueFlags::COMPUTE)?)?;
        let storage = v.host_buffer(u64::from(count) * 4, vk::BufferUsageFlags::STORAGE_BUFFER)?;
        let compute = vk::ShaderStageFlags::COMPUTE;
        let (set_layout, set) =
            v.descriptor_set(compute, &[Binding::StorageBuffer(storage.buffer)])?;
        let push = [vk::PushConstantRange::default()
            .stage_flags(compute)
            .size(4)];
        let layout = v.pipeline_layout(&[set_layout], &push)?;
        let pipeline = v.compute_pipeline(&code, layout)?;
        // The buffer is recorded again every frame.
        let cmd = v.command_buffer();
        let mut sums = Vec::new();
        for frame in 0u32..frames {
            v.record(cmd, |d, cmd| {
                let bind = vk::PipelineBindPoint::COMPUTE;
                // SAFETY: recording into `cmd`, with a pipeline, layout and
                // set made for each other.
                unsafe {
                    d.cmd_bind_pipeline(cmd, bind, pipeline);
                    d.cmd_bind_descriptor_sets(cmd, bind, layout, 0, &[set], &[]);
                    d.cmd_push_constants(cmd, layout, compute, 0, &frame.to_le_bytes());
                    d.cmd_dispatch(cmd, count / 64, 1, 1);
                }
            })?;
            v.submit(cmd)?;
            sums.push(storage.checksum());
        }
        sums
    };
    for (frame, sum) in sums.iter().enumerate() {
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}
