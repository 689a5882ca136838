//! `vk_triangle [FRAMES] [SIZE] [plain]`: renders FRAMES (default 3) frames
//! of a full-screen fragment shader (`shaders/vk_triangle.{vert,frag}`, the
//! frame's time in a push constant) into a SIZE x SIZE (default 64) RGBA8
//! image with Vulkan, offscreen (no swapchain), copies every frame to a
//! host-visible buffer and prints `frame N checksum HEX` (64-bit FNV-1a of
//! the pixels, top row first). `plain` uses SPIR-V built without debug
//! information. One submission per frame, waited on with a fence.

use anyhow::{anyhow, Context};
use ash::vk;
use shaderdbg_vk_test_apps::{arg, fnv1a, triangle_shaders, Cleanup};

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let debug_info = std::env::args().nth(3).as_deref() != Some("plain");
    for (frame, sum) in render(frames, size, debug_info)?.iter().enumerate() {
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}

fn render(frames: u32, size: u32, debug_info: bool) -> anyhow::Result<Vec<u64>> {
    // SAFETY: every Vulkan object below is created, used on this thread and
    // destroyed in order; each create info outlives its call.
    unsafe {
        let entry = ash::Entry::load().context("loading libvulkan")?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_0);
        let instance = entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )?;
        let physical = *instance
            .enumerate_physical_devices()?
            .first()
            .ok_or_else(|| anyhow!("no Vulkan device"))?;
        let family = instance
            .get_physical_device_queue_family_properties(physical)
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            .ok_or_else(|| anyhow!("no graphics queue"))? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let device = instance.create_device(
            physical,
            &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
            None,
        )?;
        let queue = device.get_device_queue(family, 0);
        let mut cleanup = Cleanup::new(&device);
        let memory_types = instance.get_physical_device_memory_properties(physical);
        let memory_for = |req: vk::MemoryRequirements, flags: vk::MemoryPropertyFlags| {
            (0..memory_types.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && memory_types.memory_types[i as usize]
                            .property_flags
                            .contains(flags)
                })
                .ok_or_else(|| anyhow!("no memory type with flags {:#x}", flags.as_raw()))
        };

        let format = vk::Format::R8G8B8A8_UNORM;
        let extent = vk::Extent3D {
            width: size,
            height: size,
            depth: 1,
        };
        let image = device.create_image(
            &vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .format(format)
                .extent(extent)
                .mip_levels(1)
                .array_layers(1)
                .samples(vk::SampleCountFlags::TYPE_1)
                .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC),
            None,
        )?;
        cleanup.add(move |d| d.destroy_image(image, None));
        let req = device.get_image_memory_requirements(image);
        let image_memory = device.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(memory_for(req, vk::MemoryPropertyFlags::empty())?),
            None,
        )?;
        cleanup.add(move |d| d.free_memory(image_memory, None));
        device.bind_image_memory(image, image_memory, 0)?;
        let color_range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let view = device.create_image_view(
            &vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(format)
                .subresource_range(color_range),
            None,
        )?;
        cleanup.add(move |d| d.destroy_image_view(view, None));
        let bytes = (size * size * 4) as u64;
        let buffer = device.create_buffer(
            &vk::BufferCreateInfo::default()
                .size(bytes)
                .usage(vk::BufferUsageFlags::TRANSFER_DST),
            None,
        )?;
        cleanup.add(move |d| d.destroy_buffer(buffer, None));
        let req = device.get_buffer_memory_requirements(buffer);
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let buffer_memory = device.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(memory_for(req, host)?),
            None,
        )?;
        cleanup.add(move |d| d.free_memory(buffer_memory, None));
        device.bind_buffer_memory(buffer, buffer_memory, 0)?;

        let attachment = [vk::AttachmentDescription::default()
            .format(format)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)];
        let color_ref = [vk::AttachmentReference::default()
            .attachment(0)
            .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&color_ref)];
        let render_pass = device.create_render_pass(
            &vk::RenderPassCreateInfo::default()
                .attachments(&attachment)
                .subpasses(&subpass),
            None,
        )?;
        cleanup.add(move |d| d.destroy_render_pass(render_pass, None));
        let views = [view];
        let framebuffer = device.create_framebuffer(
            &vk::FramebufferCreateInfo::default()
                .render_pass(render_pass)
                .attachments(&views)
                .width(size)
                .height(size)
                .layers(1),
            None,
        )?;
        cleanup.add(move |d| d.destroy_framebuffer(framebuffer, None));

        let (vert_code, frag_code) = triangle_shaders(debug_info);
        let vert = device.create_shader_module(
            &vk::ShaderModuleCreateInfo::default().code(&vert_code),
            None,
        )?;
        cleanup.add(move |d| d.destroy_shader_module(vert, None));
        let frag = device.create_shader_module(
            &vk::ShaderModuleCreateInfo::default().code(&frag_code),
            None,
        )?;
        cleanup.add(move |d| d.destroy_shader_module(frag, None));
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)
            .size(4)];
        let layout = device.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&push),
            None,
        )?;
        cleanup.add(move |d| d.destroy_pipeline_layout(layout, None));
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vert)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(frag)
                .name(c"main"),
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewports = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: size as f32,
            height: size as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        let scissors = [vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: size,
                height: size,
            },
        }];
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewports)
            .scissors(&scissors);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let blend_attachment = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachment);
        let pipeline_info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .layout(layout)
            .render_pass(render_pass);
        let pipeline = device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[pipeline_info], None)
            .map_err(|(_, e)| e)?[0];
        cleanup.add(move |d| d.destroy_pipeline(pipeline, None));

        let pool = device.create_command_pool(
            &vk::CommandPoolCreateInfo::default()
                .queue_family_index(family)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
            None,
        )?;
        cleanup.add(move |d| d.destroy_command_pool(pool, None));
        let cmd = device.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .command_buffer_count(1),
        )?[0];
        let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
        cleanup.add(move |d| d.destroy_fence(fence, None));

        let mut sums = Vec::new();
        for frame in 0..frames {
            device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
            let clear = [vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.0, 0.0, 0.0, 1.0],
                },
            }];
            device.cmd_begin_render_pass(
                cmd,
                &vk::RenderPassBeginInfo::default()
                    .render_pass(render_pass)
                    .framebuffer(framebuffer)
                    .render_area(scissors[0])
                    .clear_values(&clear),
                vk::SubpassContents::INLINE,
            );
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
            let t = frame as f32 * 0.125;
            device.cmd_push_constants(
                cmd,
                layout,
                vk::ShaderStageFlags::FRAGMENT,
                0,
                &t.to_le_bytes(),
            );
            device.cmd_draw(cmd, 3, 1, 0, 0);
            device.cmd_end_render_pass(cmd);
            let region = vk::BufferImageCopy::default()
                .image_subresource(
                    vk::ImageSubresourceLayers::default()
                        .aspect_mask(vk::ImageAspectFlags::COLOR)
                        .layer_count(1),
                )
                .image_extent(extent);
            device.cmd_copy_image_to_buffer(
                cmd,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buffer,
                &[region],
            );
            device.end_command_buffer(cmd)?;
            let cmds = [cmd];
            device.queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                fence,
            )?;
            device.wait_for_fences(&[fence], true, u64::MAX)?;
            device.reset_fences(&[fence])?;
            let ptr = device.map_memory(buffer_memory, 0, bytes, vk::MemoryMapFlags::empty())?;
            let pixels = std::slice::from_raw_parts(ptr as *const u8, bytes as usize);
            sums.push(fnv1a(pixels));
            device.unmap_memory(buffer_memory);
        }

        drop(cleanup);
        device.destroy_device(None);
        instance.destroy_instance(None);
        Ok(sums)
    }
}
