//! `vk_two_passes [FRAMES] [SIZE] [transient|dynamic]`: each frame, two
//! submissions into one SIZE x SIZE (default 64) RGBA8 image with a D32 depth attachment,
//! offscreen. The first clears both and draws `vk_triangle.frag` (its
//! SPIR-V without debug information, frame time `t` = frame * 0.125); the
//! second begins a render pass that LOADs both attachments (an overlay
//! pass, as UI and second passes do) and draws `vk_triangle.frag` again
//! (SPIR-V with its source, `-g`) at `t` = 0.5 + frame * 0.125 with
//! additive blending, so what it writes depends on what it loaded; then
//! copies the image to a host-visible buffer. Prints `frame N checksum
//! HEX` (64-bit FNV-1a of the pixels, top row first). The images have no
//! transfer-destination usage of their own: a debugger that needs to put
//! them back must add it. `transient`: the depth image is a transient
//! attachment, which cannot have transfer usage at all. `dynamic`: the
//! same with dynamic rendering (Vulkan 1.3) in place of render passes,
//! the layouts changed by barriers.

use anyhow::{anyhow, Context};
use ash::vk;
use shaderdbg_vk_test_apps::{arg, fnv1a, shader, Cleanup, DebugInfo, Gpu};

const COLOR: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DEPTH: vk::Format = vk::Format::D32_SFLOAT;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let mode = std::env::args().nth(3);
    let transient = mode.as_deref() == Some("transient");
    let dynamic = mode.as_deref() == Some("dynamic");
    let Gpu {
        entry: _entry,
        instance,
        physical,
        device,
        family,
        queue,
    } = if dynamic {
        gpu_with_dynamic_rendering()?
    } else {
        Gpu::new(vk::QueueFlags::GRAPHICS)?
    };
    let sums = {
        let mut cleanup = Cleanup::new(&device);
        // SAFETY: a physical device of this instance.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        let depth_usage = vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
            | if transient {
                vk::ImageUsageFlags::TRANSIENT_ATTACHMENT
            } else {
                vk::ImageUsageFlags::empty()
            };
        let sizes = (frames, size, depth_usage, dynamic);
        render(&device, &memory, family, queue, &mut cleanup, sizes)
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

/// A Vulkan 1.3 instance and a device with dynamic rendering, one graphics
/// queue, on the first device.
fn gpu_with_dynamic_rendering() -> anyhow::Result<Gpu> {
    // SAFETY: the objects are created on this thread; each create info
    // outlives its call; the caller destroys them.
    unsafe {
        let entry = ash::Entry::load().context("loading libvulkan")?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
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
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
        let device = instance.create_device(
            physical,
            &vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .push_next(&mut v13),
            None,
        )?;
        let queue = device.get_device_queue(family, 0);
        Ok(Gpu {
            entry,
            instance,
            physical,
            device,
            family,
            queue,
        })
    }
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

/// An image with its memory and a view of its one level and layer.
///
/// # Safety
/// The device is alive.
unsafe fn image(
    d: &ash::Device,
    types: &vk::PhysicalDeviceMemoryProperties,
    cleanup: &mut Cleanup,
    size: u32,
    format: vk::Format,
    usage: vk::ImageUsageFlags,
    aspect: vk::ImageAspectFlags,
) -> anyhow::Result<(vk::Image, vk::ImageView)> {
    // SAFETY: per this function's contract; each create info outlives its call.
    unsafe {
        let image = d.create_image(
            &vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .format(format)
                .extent(vk::Extent3D {
                    width: size,
                    height: size,
                    depth: 1,
                })
                .mip_levels(1)
                .array_layers(1)
                .samples(vk::SampleCountFlags::TYPE_1)
                .usage(usage),
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
        let view = d.create_image_view(
            &vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(format)
                .subresource_range(
                    vk::ImageSubresourceRange::default()
                        .aspect_mask(aspect)
                        .level_count(1)
                        .layer_count(1),
                ),
            None,
        )?;
        cleanup.add(move |d| d.destroy_image_view(view, None));
        Ok((image, view))
    }
}

/// A render pass over the colour and depth attachments: the first clears
/// them, the second (`load`) loads them.
///
/// # Safety
/// The device is alive.
unsafe fn render_pass(
    d: &ash::Device,
    cleanup: &mut Cleanup,
    load: bool,
) -> anyhow::Result<vk::RenderPass> {
    let (op, color_before, depth_before, color_after) = if load {
        (
            vk::AttachmentLoadOp::LOAD,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        )
    } else {
        (
            vk::AttachmentLoadOp::CLEAR,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        )
    };
    let attachments = [
        vk::AttachmentDescription::default()
            .format(COLOR)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(op)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(color_before)
            .final_layout(color_after),
        vk::AttachmentDescription::default()
            .format(DEPTH)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(op)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(depth_before)
            .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
    ];
    let color_ref = [vk::AttachmentReference::default()
        .attachment(0)
        .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
    let depth_ref = vk::AttachmentReference::default()
        .attachment(1)
        .layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
    let subpass = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_ref)
        .depth_stencil_attachment(&depth_ref)];
    // The second pass's load waits for the first pass's writes.
    let all = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
        | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
        | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
    let access = vk::AccessFlags::COLOR_ATTACHMENT_WRITE
        | vk::AccessFlags::COLOR_ATTACHMENT_READ
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ;
    // And the copy after the second waits for its writes.
    let dependency = [
        vk::SubpassDependency::default()
            .src_subpass(vk::SUBPASS_EXTERNAL)
            .dst_subpass(0)
            .src_stage_mask(all)
            .dst_stage_mask(all)
            .src_access_mask(access)
            .dst_access_mask(access),
        vk::SubpassDependency::default()
            .src_subpass(0)
            .dst_subpass(vk::SUBPASS_EXTERNAL)
            .src_stage_mask(all)
            .dst_stage_mask(vk::PipelineStageFlags::TRANSFER)
            .src_access_mask(access)
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ),
    ];
    // SAFETY: per this function's contract.
    unsafe {
        let pass = d.create_render_pass(
            &vk::RenderPassCreateInfo::default()
                .attachments(&attachments)
                .subpasses(&subpass)
                .dependencies(&dependency),
            None,
        )?;
        cleanup.add(move |d| d.destroy_render_pass(pass, None));
        Ok(pass)
    }
}

/// The pipeline of one pass: `vk_triangle` built with `debug_info`,
/// additive blending when `add`.
///
/// # Safety
/// The device is alive.
unsafe fn pipeline(
    d: &ash::Device,
    cleanup: &mut Cleanup,
    pass: vk::RenderPass,
    layout: vk::PipelineLayout,
    size: u32,
    debug_info: DebugInfo,
    add: bool,
) -> anyhow::Result<vk::Pipeline> {
    let vertex = shader("vk_triangle.vert", debug_info)?;
    let fragment = shader("vk_triangle.frag", debug_info)?;
    // SAFETY: per this function's contract; each create info outlives its call.
    unsafe {
        let module = |code: &[u32], cleanup: &mut Cleanup| -> anyhow::Result<_> {
            let m =
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)?;
            cleanup.add(move |d| d.destroy_shader_module(m, None));
            Ok(m)
        };
        let vert = module(&vertex, cleanup)?;
        let frag = module(&fragment, cleanup)?;
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
        // Depth is written by both passes (the triangle is at z = 0), never
        // tested: the second pass loads what the first wrote.
        let depth = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(true)
            .depth_write_enable(true)
            .depth_compare_op(vk::CompareOp::ALWAYS);
        let one = vk::BlendFactor::ONE;
        let blend_attachment = [vk::PipelineColorBlendAttachmentState::default()
            .blend_enable(add)
            .src_color_blend_factor(one)
            .dst_color_blend_factor(one)
            .color_blend_op(vk::BlendOp::ADD)
            .src_alpha_blend_factor(one)
            .dst_alpha_blend_factor(one)
            .alpha_blend_op(vk::BlendOp::ADD)
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachment);
        // Without a render pass: dynamic rendering's formats.
        let formats = [COLOR];
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&formats)
            .depth_attachment_format(DEPTH);
        let mut info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth)
            .color_blend_state(&blend)
            .layout(layout)
            .render_pass(pass);
        if pass == vk::RenderPass::null() {
            info = info.push_next(&mut rendering);
        }
        let p = d
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, e)| e)?[0];
        cleanup.add(move |d| d.destroy_pipeline(p, None));
        Ok(p)
    }
}

/// An image barrier on the whole of a one-level, one-layer image.
fn barrier(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
    src: vk::AccessFlags,
    dst: vk::AccessFlags,
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .image(image)
        .subresource_range(
            vk::ImageSubresourceRange::default()
                .aspect_mask(aspect)
                .level_count(1)
                .layer_count(1),
        )
        .old_layout(old)
        .new_layout(new)
        .src_access_mask(src)
        .dst_access_mask(dst)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
}

/// Dynamic rendering into the colour and depth images: the first pass
/// clears them (from UNDEFINED), the second (`loads`) loads what the first
/// left, each after a barrier that does what a render pass's layouts and
/// dependencies do.
///
/// # Safety
/// `cb` is recording; the images and views are alive.
unsafe fn begin_rendering(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    (color, depth): (vk::Image, vk::Image),
    (color_view, depth_view): (vk::ImageView, vk::ImageView),
    area: vk::Rect2D,
    loads: bool,
) {
    let color_layout = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
    let depth_layout = vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    let (color_before, depth_before, op) = if loads {
        (color_layout, depth_layout, vk::AttachmentLoadOp::LOAD)
    } else {
        let undefined = vk::ImageLayout::UNDEFINED;
        (undefined, undefined, vk::AttachmentLoadOp::CLEAR)
    };
    let color_access =
        vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE;
    let depth_access = vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE;
    let (color_src, depth_src) = if loads {
        (
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
        )
    } else {
        (vk::AccessFlags::empty(), vk::AccessFlags::empty())
    };
    let barriers = [
        barrier(
            color,
            vk::ImageAspectFlags::COLOR,
            color_before,
            color_layout,
            color_src,
            color_access,
        ),
        barrier(
            depth,
            vk::ImageAspectFlags::DEPTH,
            depth_before,
            depth_layout,
            depth_src,
            depth_access,
        ),
    ];
    let stages = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
        | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
        | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
    let color_at = [vk::RenderingAttachmentInfo::default()
        .image_view(color_view)
        .image_layout(color_layout)
        .load_op(op)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            color: vk::ClearColorValue {
                float32: [0.0, 0.0, 0.0, 1.0],
            },
        })];
    let depth_at = vk::RenderingAttachmentInfo::default()
        .image_view(depth_view)
        .image_layout(depth_layout)
        .load_op(op)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 1.0,
                stencil: 0,
            },
        });
    // SAFETY: per this function's contract.
    unsafe {
        d.cmd_pipeline_barrier(
            cb,
            stages,
            stages,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &barriers,
        );
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1)
                .color_attachments(&color_at)
                .depth_attachment(&depth_at),
        );
    }
}

fn render(
    d: &ash::Device,
    types: &vk::PhysicalDeviceMemoryProperties,
    family: u32,
    queue: vk::Queue,
    cleanup: &mut Cleanup,
    (frames, size, depth_usage, dynamic): (u32, u32, vk::ImageUsageFlags, bool),
) -> anyhow::Result<Vec<u64>> {
    // SAFETY: every object is made here, used on this thread, and destroyed
    // by the cleanup after the device is idle; each submission is waited for.
    unsafe {
        let color_usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
        let (color, color_view) = image(
            d,
            types,
            cleanup,
            size,
            COLOR,
            color_usage,
            vk::ImageAspectFlags::COLOR,
        )?;
        let (depth, depth_view) = image(
            d,
            types,
            cleanup,
            size,
            DEPTH,
            depth_usage,
            vk::ImageAspectFlags::DEPTH,
        )?;
        let bytes = u64::from(size * size * 4);
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

        let (mut first, mut second) = (vk::RenderPass::null(), vk::RenderPass::null());
        let mut framebuffer = vk::Framebuffer::null();
        if !dynamic {
            first = render_pass(d, cleanup, false)?;
            second = render_pass(d, cleanup, true)?;
            let views = [color_view, depth_view];
            // One framebuffer serves both passes (they are compatible).
            framebuffer = d.create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(first)
                    .attachments(&views)
                    .width(size)
                    .height(size)
                    .layers(1),
                None,
            )?;
            cleanup.add(move |d| d.destroy_framebuffer(framebuffer, None));
        }
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)
            .size(4)];
        let layout = d.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&push),
            None,
        )?;
        cleanup.add(move |d| d.destroy_pipeline_layout(layout, None));
        let under = pipeline(d, cleanup, first, layout, size, DebugInfo::None, false)?;
        let over = pipeline(d, cleanup, second, layout, size, DebugInfo::Source, true)?;

        let pool = d.create_command_pool(
            &vk::CommandPoolCreateInfo::default()
                .queue_family_index(family)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
            None,
        )?;
        cleanup.add(move |d| d.destroy_command_pool(pool, None));
        let cbs = d.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .command_buffer_count(2),
        )?;
        let fence = d.create_fence(&vk::FenceCreateInfo::default(), None)?;
        cleanup.add(move |d| d.destroy_fence(fence, None));
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: size,
                height: size,
            },
        };
        let clear = [
            vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.0, 0.0, 0.0, 1.0],
                },
            },
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
            },
        ];
        let submit = |cb: vk::CommandBuffer| -> anyhow::Result<()> {
            let cbs = [cb];
            d.queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&cbs)],
                fence,
            )?;
            d.wait_for_fences(&[fence], true, u64::MAX)?;
            d.reset_fences(&[fence])?;
            Ok(())
        };
        let mut sums = Vec::new();
        for frame in 0..frames {
            for (i, (pass, pipeline, t)) in [
                (first, under, frame as f32 * 0.125),
                (second, over, 0.5 + frame as f32 * 0.125),
            ]
            .into_iter()
            .enumerate()
            {
                let cb = cbs[i];
                let loads = i == 1;
                d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())?;
                if dynamic {
                    let images = (color, depth);
                    begin_rendering(d, cb, images, (color_view, depth_view), area, loads);
                } else {
                    d.cmd_begin_render_pass(
                        cb,
                        &vk::RenderPassBeginInfo::default()
                            .render_pass(pass)
                            .framebuffer(framebuffer)
                            .render_area(area)
                            // The loading pass clears nothing.
                            .clear_values(if loads { &[] } else { &clear }),
                        vk::SubpassContents::INLINE,
                    );
                }
                d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
                let stage = vk::ShaderStageFlags::FRAGMENT;
                d.cmd_push_constants(cb, layout, stage, 0, &t.to_le_bytes());
                d.cmd_draw(cb, 3, 1, 0, 0);
                if dynamic {
                    d.cmd_end_rendering(cb);
                    if loads {
                        // What the render pass's final layout does.
                        let to_copy = barrier(
                            color,
                            vk::ImageAspectFlags::COLOR,
                            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                            vk::AccessFlags::TRANSFER_READ,
                        );
                        d.cmd_pipeline_barrier(
                            cb,
                            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                            vk::PipelineStageFlags::TRANSFER,
                            vk::DependencyFlags::empty(),
                            &[],
                            &[],
                            &[to_copy],
                        );
                    }
                } else {
                    d.cmd_end_render_pass(cb);
                }
                if loads {
                    let region = vk::BufferImageCopy::default()
                        .image_subresource(
                            vk::ImageSubresourceLayers::default()
                                .aspect_mask(vk::ImageAspectFlags::COLOR)
                                .layer_count(1),
                        )
                        .image_extent(vk::Extent3D {
                            width: size,
                            height: size,
                            depth: 1,
                        });
                    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
                    d.cmd_copy_image_to_buffer(cb, color, src, buffer, &[region]);
                }
                d.end_command_buffer(cb)?;
                submit(cb).with_context(|| format!("frame {frame}, pass {i}"))?;
            }
            let ptr = d.map_memory(buffer_memory, 0, bytes, vk::MemoryMapFlags::empty())?;
            let pixels = std::slice::from_raw_parts(ptr as *const u8, bytes as usize);
            sums.push(fnv1a(pixels));
            d.unmap_memory(buffer_memory);
        }
        Ok(sums)
    }
}
