//! What the Vulkan test programs share: the SPIR-V of their shaders (built
//! by build.rs, with and without debug information), arguments, the
//! checksum of a frame, and [`Scene`], the offscreen full-screen-triangle
//! set-up they draw with.

use anyhow::{anyhow, Context};
use ash::vk;

/// SPIR-V words of a shader built by build.rs.
pub fn spirv(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The words of a SPIR-V file build.rs wrote.
macro_rules! built_spirv {
    ($file:literal) => {
        spirv(include_bytes!(concat!(env!("OUT_DIR"), "/", $file)))
    };
}

/// What the SPIR-V of the test shaders says about their source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugInfo {
    /// `glslangValidator -g`: the GLSL in `OpSource`.
    Source,
    /// `glslangValidator -gVS`: the GLSL in NonSemantic.Shader.DebugInfo.100's
    /// `DebugSource`.
    NonSemantic,
    /// No source at all.
    None,
}

impl DebugInfo {
    /// From a program argument: `plain` (none), `nonsemantic`, else `-g`.
    pub fn from_arg(arg: Option<&str>) -> DebugInfo {
        match arg {
            Some("plain") => DebugInfo::None,
            Some("nonsemantic") => DebugInfo::NonSemantic,
            _ => DebugInfo::Source,
        }
    }
}

/// The shaders of `vk_triangle`: `(vertex, fragment)`, built with `debug_info`.
pub fn triangle_shaders(debug_info: DebugInfo) -> (Vec<u32>, Vec<u32>) {
    match debug_info {
        DebugInfo::Source => (
            built_spirv!("vk_triangle.vert.g.spv"),
            built_spirv!("vk_triangle.frag.g.spv"),
        ),
        DebugInfo::NonSemantic => (
            built_spirv!("vk_triangle.vert.gvs.spv"),
            built_spirv!("vk_triangle.frag.gvs.spv"),
        ),
        DebugInfo::None => (
            built_spirv!("vk_triangle.vert.spv"),
            built_spirv!("vk_triangle.frag.spv"),
        ),
    }
}

/// The `i`-th command-line argument, or `default`.
pub fn arg<T: std::str::FromStr>(i: usize, name: &str, default: T) -> anyhow::Result<T> {
    match std::env::args().nth(i + 1) {
        None => Ok(default),
        Some(s) => s
            .parse()
            .map_err(|_| anyhow::anyhow!("{name} must be a number, got {s:?}")),
    }
}

/// 64-bit FNV-1a, as the GL test apps print it.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// One object's destruction.
type Destroy = Box<dyn FnOnce(&ash::Device)>;

/// What to destroy, registered as each object is created and destroyed in
/// reverse order when dropped: also when a frame fails half-way.
pub struct Cleanup {
    device: ash::Device,
    steps: Vec<Destroy>,
}

impl Cleanup {
    pub fn new(device: &ash::Device) -> Cleanup {
        Cleanup {
            device: device.clone(),
            steps: Vec::new(),
        }
    }

    /// Registers `destroy`, to run before everything registered earlier.
    pub fn add(&mut self, destroy: impl FnOnce(&ash::Device) + 'static) {
        self.steps.push(Box::new(destroy));
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        // SAFETY: the device is idle once nothing is in flight; objects are
        // destroyed before what they were made from.
        unsafe {
            let _ = self.device.device_wait_idle();
        }
        while let Some(step) = self.steps.pop() {
            step(&self.device);
        }
    }
}

/// An instance, and a device with one queue of the first family that has
/// the flags asked for, on the first Vulkan device. The caller destroys the
/// device, then the instance.
pub struct Gpu {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub device: ash::Device,
    pub family: u32,
    pub queue: vk::Queue,
}

impl Gpu {
    pub fn new(flags: vk::QueueFlags) -> anyhow::Result<Gpu> {
        // SAFETY: the objects are created on this thread; each create info
        // outlives its call; the caller destroys them.
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
                .position(|q| q.queue_flags.contains(flags))
                .ok_or_else(|| anyhow!("no queue with flags {:#x}", flags.as_raw()))?
                as u32;
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
}

/// Everything to draw `vk_triangle.{vert,frag}` into a SIZE x SIZE RGBA8
/// image offscreen (no swapchain) and read it back: instance, device, one
/// queue, render pass, pipeline (push constant `t` for the fragment
/// shader), a command buffer and a fence. Dropped in the right order.
pub struct Scene {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    pipeline: vk::Pipeline,
    layout: vk::PipelineLayout,
    image: vk::Image,
    extent: vk::Extent3D,
    buffer: vk::Buffer,
    buffer_memory: vk::DeviceMemory,
    bytes: u64,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    cleanup: Option<Cleanup>,
}

impl Scene {
    /// Creates the scene; `debug_info` picks how its SPIR-V was built.
    pub fn new(size: u32, debug_info: DebugInfo) -> anyhow::Result<Scene> {
        // SAFETY: every Vulkan object below is created, used on this thread
        // and destroyed in order (Drop); each create info outlives its call.
        unsafe {
            let Gpu {
                entry,
                instance,
                physical,
                device,
                family,
                queue,
            } = Gpu::new(vk::QueueFlags::GRAPHICS)?;
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
                    .usage(
                        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                    ),
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
            let host =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
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
            let blend =
                vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachment);
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

            Ok(Scene {
                _entry: entry,
                instance,
                device,
                queue,
                render_pass,
                framebuffer,
                pipeline,
                layout,
                image,
                extent,
                buffer,
                buffer_memory,
                bytes,
                cmd,
                fence,
                cleanup: Some(cleanup),
            })
        }
    }

    /// Draws one frame: for each submission in `submissions`, one
    /// command buffer that clears the image and draws the triangle once per
    /// `t` (the push constant), submitted and waited for; then returns the
    /// checksum of the image (the last submission's draws).
    pub fn frame(&self, submissions: &[Vec<f32>]) -> anyhow::Result<u64> {
        let d = &self.device;
        let size = self.extent.width;
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: size,
                height: size,
            },
        };
        // SAFETY: the scene's objects are alive; the command buffer is not
        // in use (each submission is waited for).
        unsafe {
            for ts in submissions {
                let cmd = self.cmd;
                d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
                let clear = [vk::ClearValue {
                    color: vk::ClearColorValue {
                        float32: [0.0, 0.0, 0.0, 1.0],
                    },
                }];
                d.cmd_begin_render_pass(
                    cmd,
                    &vk::RenderPassBeginInfo::default()
                        .render_pass(self.render_pass)
                        .framebuffer(self.framebuffer)
                        .render_area(area)
                        .clear_values(&clear),
                    vk::SubpassContents::INLINE,
                );
                for t in ts {
                    d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
                    let stage = vk::ShaderStageFlags::FRAGMENT;
                    d.cmd_push_constants(cmd, self.layout, stage, 0, &t.to_le_bytes());
                    d.cmd_draw(cmd, 3, 1, 0, 0);
                }
                d.cmd_end_render_pass(cmd);
                let region = vk::BufferImageCopy::default()
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .layer_count(1),
                    )
                    .image_extent(self.extent);
                let layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
                d.cmd_copy_image_to_buffer(cmd, self.image, layout, self.buffer, &[region]);
                d.end_command_buffer(cmd)?;
                let cmds = [cmd];
                let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
                d.queue_submit(self.queue, &submit, self.fence)?;
                d.wait_for_fences(&[self.fence], true, u64::MAX)?;
                d.reset_fences(&[self.fence])?;
            }
            let flags = vk::MemoryMapFlags::empty();
            let ptr = d.map_memory(self.buffer_memory, 0, self.bytes, flags)?;
            let pixels = std::slice::from_raw_parts(ptr as *const u8, self.bytes as usize);
            let sum = fnv1a(pixels);
            d.unmap_memory(self.buffer_memory);
            Ok(sum)
        }
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        drop(self.cleanup.take());
        // SAFETY: everything made from the device is gone (the cleanup).
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
