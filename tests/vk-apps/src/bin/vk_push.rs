//! `vk_push [FRAMES] [SIZE] [plain|nonsemantic]`: `vk_textured`'s quad and
//! frames (SIZE x SIZE, default 64, offscreen; the 8x8 texture uploaded in
//! a submission of its own; the tint `(1, 0.5 + 0.25 frame, 0.25, 1)`
//! written before each submit) with its fragment shader's inputs pushed
//! (`VK_KHR_push_descriptor`, `shaders/vk_push.frag`): the uniform buffer,
//! the texture and a storage buffer where the shader counts the fragments
//! it shades per row of texels, pushed with `vkCmdPushDescriptorSetKHR`
//! into a command buffer recorded once and submitted every frame. Prints
//! `frame N checksum HEX rows C0,...,C7` (the counts so far: running a
//! frame's submission twice would change them) for FRAMES (default 3)
//! frames.

use ash::vk;
use shaderdbg_vk_test_apps::{
    arg, le_bytes, shader, texture_rgba, Binding, DebugInfo, Gpu, Scene, Shaders, TEXTURE_SIZE,
};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let debug_info = DebugInfo::from_arg(std::env::args().nth(3).as_deref());
    let mut scene = Scene::on(Gpu::with_push_descriptor(vk::QueueFlags::GRAPHICS)?, size)?;
    let tint = scene.host_buffer(16, vk::BufferUsageFlags::UNIFORM_BUFFER)?;
    let counts = scene.host_buffer(8 * 4, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    counts.write(&[0; 8 * 4])?;
    let (view, sampler) = scene.texture(TEXTURE_SIZE, TEXTURE_SIZE, &texture_rgba())?;
    let pushed = scene.push_set_layout(
        vk::ShaderStageFlags::FRAGMENT,
        &[
            Binding::UniformBuffer(tint.buffer),
            Binding::Texture(view, sampler),
            Binding::StorageBuffer(counts.buffer),
        ],
    )?;
    scene.set_pipeline(&Shaders {
        vertex: &shader("vk_textured.vert", debug_info)?,
        fragment: &shader("vk_push.frag", debug_info)?,
        set_layouts: &[pushed],
        push_constants: &[],
        specialization: None,
    })?;
    let whole = |buffer| {
        [vk::DescriptorBufferInfo {
            buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }]
    };
    let (tint_info, counts_info) = (whole(tint.buffer), whole(counts.buffer));
    let texture_info = [vk::DescriptorImageInfo {
        sampler,
        image_view: view,
        image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    }];
    let write = |binding, kind| {
        vk::WriteDescriptorSet::default()
            .dst_binding(binding)
            .descriptor_type(kind)
    };
    let writes = [
        write(0, vk::DescriptorType::UNIFORM_BUFFER).buffer_info(&tint_info),
        write(1, vk::DescriptorType::COMBINED_IMAGE_SAMPLER).image_info(&texture_info),
        write(2, vk::DescriptorType::STORAGE_BUFFER).buffer_info(&counts_info),
    ];
    let push = scene.push_descriptor();
    let (pipeline, layout) = (scene.pipeline(), scene.layout());
    let cmd = scene.command_buffer();
    let graphics = vk::PipelineBindPoint::GRAPHICS;
    scene.record(cmd, |d, cmd| {
        // SAFETY: recording into `cmd`, inside the scene's render pass;
        // the writes match the pushed set's layout.
        unsafe {
            d.cmd_bind_pipeline(cmd, graphics, pipeline);
            push.cmd_push_descriptor_set(cmd, graphics, layout, 0, &writes);
            d.cmd_draw(cmd, 6, 1, 0, 0);
        }
    })?;
    for frame in 0..frames {
        let green = 0.5 + 0.25 * frame as f32;
        tint.write(&le_bytes(&[1.0, green, 0.25, 1.0], f32::to_le_bytes))?;
        scene.submit(cmd)?;
        let rows: Vec<String> = counts
            .read()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]).to_string())
            .collect();
        let sum = scene.checksum()?;
        println!("frame {frame} checksum {sum:016x} rows {}", rows.join(","));
    }
    Ok(())
}
