//! `vk_compute [FRAMES] [COUNT] [plain|nonsemantic]`: a compute dispatch
//! writing a storage buffer (descriptor set 0) with a push constant per
//! frame, on the first Vulkan device, offscreen; prints a checksum of the
//! buffer per frame. A program whose submission cannot simply run twice:
//! its shader writes storage.

use anyhow::anyhow;
use ash::vk;
use shaderdbg_vk_test_apps::{arg, fnv1a, spirv, Cleanup, DebugInfo, Gpu};

macro_rules! built {
    ($file:literal) => {
        spirv(include_bytes!(concat!(env!("OUT_DIR"), "/", $file)))
    };
}

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 2)?;
    let count: u32 = arg(1, "COUNT", 256)?;
    anyhow::ensure!(
        count.is_multiple_of(64) && count > 0,
        "COUNT must be a positive multiple of 64"
    );
    let code = match DebugInfo::from_arg(std::env::args().nth(3).as_deref()) {
        DebugInfo::Source => built!("vk_compute.comp.g.spv"),
        DebugInfo::NonSemantic => built!("vk_compute.comp.gvs.spv"),
        DebugInfo::None => built!("vk_compute.comp.spv"),
    };
    // SAFETY: every Vulkan object is created, used on this thread and
    // destroyed in order (Cleanup, then the device and instance).
    unsafe {
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
            let bytes = u64::from(count) * 4;
            let buffer = device.create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(bytes)
                    .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
                None,
            )?;
            cleanup.add(move |d| d.destroy_buffer(buffer, None));
            let req = device.get_buffer_memory_requirements(buffer);
            let types = instance.get_physical_device_memory_properties(physical);
            let host =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let index = (0..types.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && types.memory_types[i as usize].property_flags.contains(host)
                })
                .ok_or_else(|| anyhow!("no host-visible memory"))?;
            let memory = device.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(index),
                None,
            )?;
            cleanup.add(move |d| d.free_memory(memory, None));
            device.bind_buffer_memory(buffer, memory, 0)?;
            let bindings = [vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)];
            let set_layout = device.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )?;
            cleanup.add(move |d| d.destroy_descriptor_set_layout(set_layout, None));
            let push = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .size(4)];
            let set_layouts = [set_layout];
            let layout = device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&set_layouts)
                    .push_constant_ranges(&push),
                None,
            )?;
            cleanup.add(move |d| d.destroy_pipeline_layout(layout, None));
            let module = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let pipeline = device
                .create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage)
                        .layout(layout)],
                    None,
                )
                .map_err(|(_, e)| e)?[0];
            // The module is not needed once the pipeline exists.
            device.destroy_shader_module(module, None);
            cleanup.add(move |d| d.destroy_pipeline(pipeline, None));
            let sizes = [vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 1,
            }];
            let pool = device.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )?;
            cleanup.add(move |d| d.destroy_descriptor_pool(pool, None));
            let set = device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&set_layouts),
            )?[0];
            let infos = [vk::DescriptorBufferInfo {
                buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }];
            device.update_descriptor_sets(
                &[vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&infos)],
                &[],
            );
            // The buffer is recorded again every frame.
            let cmd_pool = device.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )?;
            cleanup.add(move |d| d.destroy_command_pool(cmd_pool, None));
            let cmd = device.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(cmd_pool)
                    .command_buffer_count(1),
            )?[0];
            let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
            cleanup.add(move |d| d.destroy_fence(fence, None));
            let mapped = device.map_memory(memory, 0, bytes, vk::MemoryMapFlags::empty())?;
            let mut sums = Vec::new();
            for frame in 0..frames {
                device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
                device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    layout,
                    0,
                    &[set],
                    &[],
                );
                device.cmd_push_constants(
                    cmd,
                    layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    &frame.to_le_bytes(),
                );
                device.cmd_dispatch(cmd, count / 64, 1, 1);
                device.end_command_buffer(cmd)?;
                let cmds = [cmd];
                device.queue_submit(
                    queue,
                    &[vk::SubmitInfo::default().command_buffers(&cmds)],
                    fence,
                )?;
                device.wait_for_fences(&[fence], true, u64::MAX)?;
                device.reset_fences(&[fence])?;
                let data = std::slice::from_raw_parts(mapped.cast::<u8>(), bytes as usize);
                sums.push(fnv1a(data));
            }
            device.unmap_memory(memory);
            sums
        };
        device.destroy_device(None);
        instance.destroy_instance(None);
        for (frame, sum) in sums.iter().enumerate() {
            println!("frame {frame} checksum {sum:016x}");
        }
    }
    Ok(())
}
