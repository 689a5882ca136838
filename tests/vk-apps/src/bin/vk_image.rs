//! `vk_image [FRAMES]`: a compute dispatch that updates a 16x16 `r32ui`
//! storage image in place (`shaders/vk_image.comp`: three times the old
//! texel plus its position and the frame), one submission per frame that
//! also copies the image to a host-visible buffer; prints `frame N
//! checksum HEX` (64-bit FNV-1a of the texels). The image has no
//! transfer-destination usage of its own: a debugger that needs to put it
//! back must add it.

use anyhow::anyhow;
use ash::vk;
use shaderdbg_vk_test_apps::{arg, fnv1a, shader, Cleanup, DebugInfo, Gpu};

const SIZE: u32 = 16;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let code = shader("vk_image.comp", DebugInfo::Source)?;
    let Gpu {
        entry: _entry,
        instance,
        physical,
        device,
        family,
        queue,
    } = Gpu::new(vk::QueueFlags::COMPUTE)?;
    let sums = {
        let mut cleanup = Cleanup::new(&device);
        // SAFETY: a physical device of this instance.
        let types = unsafe { instance.get_physical_device_memory_properties(physical) };
        run(&device, &types, family, queue, &mut cleanup, &code, frames)
    };
    // SAFETY: everything made from the device is gone (the cleanup).
    unsafe {
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
    for (frame, sum) in sums?.iter().enumerate() {
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}

fn memory_type(
    types: &vk::PhysicalDeviceMemoryProperties,
    req: vk::MemoryRequirements,
    flags: vk::MemoryPropertyFlags,
) -> anyhow::Result<u32> {
    (0..types.memory_type_count)
        .find(|&i| {
            req.memory_type_bits & (1 << i) != 0
                && types.memory_types[i as usize]
                    .property_flags
                    .contains(flags)
        })
        .ok_or_else(|| anyhow!("no memory type with flags {:#x}", flags.as_raw()))
}

fn run(
    d: &ash::Device,
    types: &vk::PhysicalDeviceMemoryProperties,
    family: u32,
    queue: vk::Queue,
    cleanup: &mut Cleanup,
    code: &[u32],
    frames: u32,
) -> anyhow::Result<Vec<u64>> {
    // SAFETY: every object is made here, used on this thread and destroyed
    // by the cleanup once the device is idle; each submission is waited for.
    unsafe {
        let format = vk::Format::R32_UINT;
        let image = d.create_image(
            &vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .format(format)
                .extent(vk::Extent3D {
                    width: SIZE,
                    height: SIZE,
                    depth: 1,
                })
                .mip_levels(1)
                .array_layers(1)
                .samples(vk::SampleCountFlags::TYPE_1)
                .usage(vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_SRC),
            None,
        )?;
        cleanup.add(move |d| d.destroy_image(image, None));
        let req = d.get_image_memory_requirements(image);
        let memory = d.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(memory_type(types, req, vk::MemoryPropertyFlags::empty())?),
            None,
        )?;
        cleanup.add(move |d| d.free_memory(memory, None));
        d.bind_image_memory(image, memory, 0)?;
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let view = d.create_image_view(
            &vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(format)
                .subresource_range(range),
            None,
        )?;
        cleanup.add(move |d| d.destroy_image_view(view, None));

        let bytes = u64::from(SIZE * SIZE * 4);
        let buffer = d.create_buffer(
            &vk::BufferCreateInfo::default()
                .size(bytes)
                .usage(vk::BufferUsageFlags::TRANSFER_DST),
            None,
        )?;
        cleanup.add(move |d| d.destroy_buffer(buffer, None));
        let req = d.get_buffer_memory_requirements(buffer);
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let buffer_memory = d.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(memory_type(types, req, host)?),
            None,
        )?;
        cleanup.add(move |d| d.free_memory(buffer_memory, None));
        d.bind_buffer_memory(buffer, buffer_memory, 0)?;

        let bindings = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        let set_layout = d.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
            None,
        )?;
        cleanup.add(move |d| d.destroy_descriptor_set_layout(set_layout, None));
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(4)];
        let set_layouts = [set_layout];
        let layout = d.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&set_layouts)
                .push_constant_ranges(&push),
            None,
        )?;
        cleanup.add(move |d| d.destroy_pipeline_layout(layout, None));
        let module =
            d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)?;
        cleanup.add(move |d| d.destroy_shader_module(module, None));
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let pipeline = d
            .create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(layout)],
                None,
            )
            .map_err(|(_, e)| e)?[0];
        cleanup.add(move |d| d.destroy_pipeline(pipeline, None));
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_IMAGE,
            descriptor_count: 1,
        }];
        let pool = d.create_descriptor_pool(
            &vk::DescriptorPoolCreateInfo::default()
                .max_sets(1)
                .pool_sizes(&sizes),
            None,
        )?;
        cleanup.add(move |d| d.destroy_descriptor_pool(pool, None));
        let set = d.allocate_descriptor_sets(
            &vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&set_layouts),
        )?[0];
        let infos = [vk::DescriptorImageInfo {
            sampler: vk::Sampler::null(),
            image_view: view,
            image_layout: vk::ImageLayout::GENERAL,
        }];
        d.update_descriptor_sets(
            &[vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                .image_info(&infos)],
            &[],
        );
        let cmd_pool = d.create_command_pool(
            &vk::CommandPoolCreateInfo::default().queue_family_index(family),
            None,
        )?;
        cleanup.add(move |d| d.destroy_command_pool(cmd_pool, None));
        let cmd = d.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(cmd_pool)
                .command_buffer_count(1),
        )?[0];
        let fence = d.create_fence(&vk::FenceCreateInfo::default(), None)?;
        cleanup.add(move |d| d.destroy_fence(fence, None));
        let barrier = |old: vk::ImageLayout,
                       new: vk::ImageLayout,
                       src: vk::AccessFlags,
                       dst: vk::AccessFlags| {
            vk::ImageMemoryBarrier::default()
                .image(image)
                .subresource_range(range)
                .old_layout(old)
                .new_layout(new)
                .src_access_mask(src)
                .dst_access_mask(dst)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        };
        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
        let transfer = vk::PipelineStageFlags::TRANSFER;
        let mut sums = Vec::new();
        for frame in 0..frames {
            d.reset_command_pool(cmd_pool, vk::CommandPoolResetFlags::empty())?;
            d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
            // The first frame writes every texel without reading it; later
            // ones read what the last frame left (copied from, in
            // TRANSFER_SRC_OPTIMAL).
            let (old, src, src_stage) = if frame == 0 {
                (
                    vk::ImageLayout::UNDEFINED,
                    vk::AccessFlags::empty(),
                    compute,
                )
            } else {
                (
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::AccessFlags::empty(),
                    transfer,
                )
            };
            let access = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
            d.cmd_pipeline_barrier(
                cmd,
                src_stage,
                compute,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(old, vk::ImageLayout::GENERAL, src, access)],
            );
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            d.cmd_push_constants(
                cmd,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &frame.to_le_bytes(),
            );
            d.cmd_dispatch(cmd, SIZE / 8, SIZE / 8, 1);
            d.cmd_pipeline_barrier(
                cmd,
                compute,
                transfer,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::ImageLayout::GENERAL,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::AccessFlags::SHADER_WRITE,
                    vk::AccessFlags::TRANSFER_READ,
                )],
            );
            let region = vk::BufferImageCopy::default()
                .image_subresource(
                    vk::ImageSubresourceLayers::default()
                        .aspect_mask(vk::ImageAspectFlags::COLOR)
                        .layer_count(1),
                )
                .image_extent(vk::Extent3D {
                    width: SIZE,
                    height: SIZE,
                    depth: 1,
                });
            let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
            d.cmd_copy_image_to_buffer(cmd, image, src, buffer, &[region]);
            d.end_command_buffer(cmd)?;
            let cmds = [cmd];
            d.queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                fence,
            )?;
            d.wait_for_fences(&[fence], true, u64::MAX)?;
            d.reset_fences(&[fence])?;
            let ptr = d.map_memory(buffer_memory, 0, bytes, vk::MemoryMapFlags::empty())?;
            sums.push(fnv1a(std::slice::from_raw_parts(
                ptr as *const u8,
                bytes as usize,
            )));
            d.unmap_memory(buffer_memory);
        }
        Ok(sums)
    }
}
