//! `vk_image [FRAMES]`: a compute dispatch that updates a 16x16 `r32ui`
//! storage image in place (`shaders/vk_image.comp`: three times the old
//! texel plus its position and the frame), one submission per frame that
//! also copies the image to a host-visible buffer; prints `frame N
//! checksum HEX` (64-bit FNV-1a of the texels). The image has no
//! transfer-destination usage of its own: a debugger that needs to put it
//! back must add it. Each frame resets the command pool before recording.

use ash::vk;
use shaderdbg_vk_test_apps::{
    arg, barrier, shader, square, whole_copy, Binding, DebugInfo, Gpu, Vulkan,
};

const SIZE: u32 = 16;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let code = shader("vk_image.comp", DebugInfo::Source)?;
    let sums = run(
        Vulkan::new(Gpu::new(vk::QueueFlags::COMPUTE)?)?,
        &code,
        frames,
    )?;
    for (frame, sum) in sums.iter().enumerate() {
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}

fn run(mut v: Vulkan, code: &[u32], frames: u32) -> anyhow::Result<Vec<u64>> {
    let usage = vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_SRC;
    let color = vk::ImageAspectFlags::COLOR;
    let (image, view) = v.image_2d(square(SIZE), vk::Format::R32_UINT, usage, color)?;
    let readback = v.host_buffer(
        u64::from(SIZE * SIZE * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
    )?;
    let compute = vk::ShaderStageFlags::COMPUTE;
    let (set_layout, set) = v.descriptor_set(compute, &[Binding::StorageImage(view)])?;
    let push = [vk::PushConstantRange::default()
        .stage_flags(compute)
        .size(4)];
    let layout = v.pipeline_layout(&[set_layout], &push)?;
    let pipeline = v.compute_pipeline(code, layout)?;
    let cmd = v.command_buffer();
    let compute_stage = vk::PipelineStageFlags::COMPUTE_SHADER;
    let transfer = vk::PipelineStageFlags::TRANSFER;
    let general = vk::ImageLayout::GENERAL;
    let copied = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    let none = vk::DependencyFlags::empty();
    let mut sums = Vec::new();
    for frame in 0u32..frames {
        // SAFETY: the pool's command buffer is not in use (each submission
        // is waited for).
        unsafe {
            let d = v.device();
            d.reset_command_pool(v.command_pool(), vk::CommandPoolResetFlags::empty())?;
        }
        v.record(cmd, |d, cmd| {
            // The first frame writes every texel without reading it; later
            // ones read what the last frame left (copied from, in
            // TRANSFER_SRC_OPTIMAL).
            let (old, src_stage) = if frame == 0 {
                (vk::ImageLayout::UNDEFINED, compute_stage)
            } else {
                (copied, transfer)
            };
            let access = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
            let to_shader = barrier(
                image,
                color,
                (old, general),
                (vk::AccessFlags::empty(), access),
            );
            let written = (
                vk::AccessFlags::SHADER_WRITE,
                vk::AccessFlags::TRANSFER_READ,
            );
            let to_copy = barrier(image, color, (general, copied), written);
            let bind = vk::PipelineBindPoint::COMPUTE;
            // SAFETY: recording into `cmd`, with a pipeline, layout and set
            // made for each other, and the image and buffer they name.
            unsafe {
                d.cmd_pipeline_barrier(cmd, src_stage, compute_stage, none, &[], &[], &[to_shader]);
                d.cmd_bind_pipeline(cmd, bind, pipeline);
                d.cmd_bind_descriptor_sets(cmd, bind, layout, 0, &[set], &[]);
                d.cmd_push_constants(cmd, layout, compute, 0, &frame.to_le_bytes());
                d.cmd_dispatch(cmd, SIZE / 8, SIZE / 8, 1);
                d.cmd_pipeline_barrier(cmd, compute_stage, transfer, none, &[], &[], &[to_copy]);
                let region = whole_copy(square(SIZE));
                d.cmd_copy_image_to_buffer(cmd, image, copied, readback.buffer, &[region]);
            }
        })?;
        v.submit(cmd)?;
        sums.push(readback.checksum());
    }
    Ok(sums)
}
