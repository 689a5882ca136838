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

use anyhow::Context;
use ash::vk;
use shaderdbg_vk_test_apps::{
    arg, barrier, full_viewport, made, shader, square, whole_copy, DebugInfo, Gpu, Vulkan,
};

const COLOR: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DEPTH: vk::Format = vk::Format::D32_SFLOAT;

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let mode = std::env::args().nth(3);
    let transient = mode.as_deref() == Some("transient");
    let dynamic = mode.as_deref() == Some("dynamic");
    let gpu = if dynamic {
        Gpu::with_dynamic_rendering(vk::QueueFlags::GRAPHICS)?
    } else {
        Gpu::new(vk::QueueFlags::GRAPHICS)?
    };
    let depth_usage = vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        | if transient {
            vk::ImageUsageFlags::TRANSIENT_ATTACHMENT
        } else {
            vk::ImageUsageFlags::empty()
        };
    let sums = render(Vulkan::new(gpu)?, (frames, size, depth_usage, dynamic))?;
    for (frame, sum) in sums.iter().enumerate() {
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}

/// A render pass over the colour and depth attachments: the first clears
/// them, the second (`load`) loads them.
fn render_pass(v: &mut Vulkan, load: bool) -> anyhow::Result<vk::RenderPass> {
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
    let attachment = vk::AttachmentDescription::default()
        .samples(vk::SampleCountFlags::TYPE_1)
        .load_op(op)
        .store_op(vk::AttachmentStoreOp::STORE)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE);
    let attachments = [
        attachment
            .format(COLOR)
            .initial_layout(color_before)
            .final_layout(color_after),
        attachment
            .format(DEPTH)
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
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpass)
        .dependencies(&dependency);
    made!(v, create_render_pass(&info), destroy_render_pass)
}

/// The pipeline of one pass (a null `pass`: dynamic rendering):
/// `vk_triangle` built with `debug_info`, additive blending when `add`.
fn pipeline(
    v: &mut Vulkan,
    pass: vk::RenderPass,
    layout: vk::PipelineLayout,
    size: u32,
    debug_info: DebugInfo,
    add: bool,
) -> anyhow::Result<vk::Pipeline> {
    let vert = v.shader_module(&shader("vk_triangle.vert", debug_info)?)?;
    let frag = v.shader_module(&shader("vk_triangle.frag", debug_info)?)?;
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
    // Depth is written by both passes (the triangle is at z = 0), never
    // tested: the second pass loads what the first wrote.
    let depth = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(true)
        .depth_compare_op(vk::CompareOp::ALWAYS);
    let one = vk::BlendFactor::ONE;
    let blend = vk::PipelineColorBlendAttachmentState::default()
        .blend_enable(add)
        .src_color_blend_factor(one)
        .dst_color_blend_factor(one)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(one)
        .dst_alpha_blend_factor(one)
        .alpha_blend_op(vk::BlendOp::ADD);
    // Without a render pass: dynamic rendering's formats.
    let formats = [COLOR];
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&formats)
        .depth_attachment_format(DEPTH);
    let made = full_viewport(size, blend, |info| {
        let mut info = info
            .stages(&stages)
            .depth_stencil_state(&depth)
            .layout(layout)
            .render_pass(pass);
        if pass == vk::RenderPass::null() {
            info = info.push_next(&mut rendering);
        }
        // SAFETY: the device is alive; the create infos outlive the call.
        unsafe {
            v.device()
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        }
    })
    .map_err(|(_, e)| e)?[0];
    v.keep_pipeline(made)
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
            (color_before, color_layout),
            (color_src, color_access),
        ),
        barrier(
            depth,
            vk::ImageAspectFlags::DEPTH,
            (depth_before, depth_layout),
            (depth_src, depth_access),
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
        .clear_value(CLEAR[0])];
    let depth_at = vk::RenderingAttachmentInfo::default()
        .image_view(depth_view)
        .image_layout(depth_layout)
        .load_op(op)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(CLEAR[1]);
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

/// What the first pass clears the colour and depth attachments to.
const CLEAR: [vk::ClearValue; 2] = [
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

fn render(
    mut v: Vulkan,
    (frames, size, depth_usage, dynamic): (u32, u32, vk::ImageUsageFlags, bool),
) -> anyhow::Result<Vec<u64>> {
    let color_usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    let (color, color_view) = v.image_2d(
        square(size),
        COLOR,
        color_usage,
        vk::ImageAspectFlags::COLOR,
    )?;
    let (depth, depth_view) = v.image_2d(
        square(size),
        DEPTH,
        depth_usage,
        vk::ImageAspectFlags::DEPTH,
    )?;
    let readback = v.host_buffer(
        u64::from(size * size * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
    )?;

    let (mut first, mut second) = (vk::RenderPass::null(), vk::RenderPass::null());
    let mut framebuffer = vk::Framebuffer::null();
    if !dynamic {
        first = render_pass(&mut v, false)?;
        second = render_pass(&mut v, true)?;
        let views = [color_view, depth_view];
        // One framebuffer serves both passes (they are compatible).
        let info = vk::FramebufferCreateInfo::default()
            .render_pass(first)
            .attachments(&views)
            .width(size)
            .height(size)
            .layers(1);
        framebuffer = made!(v, create_framebuffer(&info), destroy_framebuffer)?;
    }
    let push = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::FRAGMENT)
        .size(4)];
    let layout = v.pipeline_layout(&[], &push)?;
    let under = pipeline(&mut v, first, layout, size, DebugInfo::None, false)?;
    let over = pipeline(&mut v, second, layout, size, DebugInfo::Source, true)?;

    let cbs = [v.command_buffer(), v.allocate_command_buffer()?];
    let area = vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: size,
            height: size,
        },
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
            v.record(cb, |d, cb| {
                // SAFETY: recording into `cb`, with what was made above.
                unsafe {
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
                                .clear_values(if loads { &[] } else { &CLEAR }),
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
                                (
                                    vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                                ),
                                (
                                    vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                                    vk::AccessFlags::TRANSFER_READ,
                                ),
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
                        let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
                        let region = whole_copy(square(size));
                        d.cmd_copy_image_to_buffer(cb, color, src, readback.buffer, &[region]);
                    }
                }
            })?;
            v.submit(cb)
                .with_context(|| format!("frame {frame}, pass {i}"))?;
        }
        sums.push(readback.checksum());
    }
    Ok(sums)
}
