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

// `BUILT`: every shader build.rs compiled, `-g`, `-gVS` and plain.
include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// The SPIR-V of `shaders/NAME` (a file name: `vk_triangle.frag`), built
/// with `debug_info`.
pub fn shader(name: &str, debug_info: DebugInfo) -> anyhow::Result<Vec<u32>> {
    let (_, builds) = BUILT
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| anyhow!("no shader {name} (build.rs lists what it builds)"))?;
    let bytes = match debug_info {
        DebugInfo::Source => builds[0],
        DebugInfo::NonSemantic => builds[1],
        DebugInfo::None => builds[2],
    };
    Ok(spirv(bytes))
}

/// The shaders of `vk_triangle`: `(vertex, fragment)`, built with `debug_info`.
pub fn triangle_shaders(debug_info: DebugInfo) -> anyhow::Result<(Vec<u32>, Vec<u32>)> {
    Ok((
        shader("vk_triangle.vert", debug_info)?,
        shader("vk_triangle.frag", debug_info)?,
    ))
}

/// The main of a program that is `vk_triangle` with another fragment
/// shader (`shaders/FRAGMENT`, reading the frame's time as a push
/// constant): `PROGRAM [FRAMES] [SIZE] [plain|nonsemantic]` prints `frame
/// N checksum HEX` for FRAMES (default 3) frames of SIZE x SIZE (default 64).
pub fn triangle_with(fragment: &str) -> anyhow::Result<()> {
    let args = Args::parse()?;
    let mut scene = Scene::offscreen(args.size)?;
    let push = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::FRAGMENT)
        .size(4)];
    scene.set_pipeline(&Shaders {
        vertex: &shader("vk_triangle.vert", args.debug_info)?,
        fragment: &shader(fragment, args.debug_info)?,
        set_layouts: &[],
        push_constants: &push,
        specialization: None,
    })?;
    for frame in 0..args.frames {
        let sum = scene.frame(&[vec![frame as f32 * 0.125]])?;
        println!("frame {frame} checksum {sum:016x}");
    }
    Ok(())
}

/// `vk_textured`'s program with `fragment` (`separate`: sampling with a
/// sampler of its own, binding 2, the texture at binding 1; else a
/// combined image sampler at binding 1).
pub fn textured_with(fragment: &str, separate: bool) -> anyhow::Result<()> {
    let args = Args::parse()?;
    let mut scene = Scene::offscreen(args.size)?;
    let stage = vk::ShaderStageFlags::FRAGMENT;
    let (view, sampler) = scene.texture(TEXTURE_SIZE, TEXTURE_SIZE, &texture_rgba())?;
    let tint = scene.host_buffer(16, vk::BufferUsageFlags::UNIFORM_BUFFER)?;
    let mut bindings = vec![Binding::UniformBuffer(tint.buffer)];
    match separate {
        true => bindings.extend([Binding::SampledImage(view), Binding::Sampler(sampler)]),
        false => bindings.push(Binding::Texture(view, sampler)),
    }
    let (set_layout, set) = scene.descriptor_set(stage, &bindings)?;
    scene.set_pipeline(&Shaders {
        vertex: &shader("vk_textured.vert", args.debug_info)?,
        fragment: &shader(fragment, args.debug_info)?,
        set_layouts: &[set_layout],
        push_constants: &[],
        specialization: None,
    })?;
    // Recorded once: each frame differs only by the uniform buffer.
    let cmd = scene.command_buffer();
    scene.record_draw(cmd, &[set], 6)?;
    for frame in 0..args.frames {
        let green = 0.5 + 0.25 * frame as f32;
        tint.write(&le_bytes(&[1.0, green, 0.25, 1.0], f32::to_le_bytes))?;
        scene.submit(cmd)?;
        println!("frame {frame} checksum {:016x}", scene.checksum()?);
    }
    Ok(())
}

/// The arguments most programs take: `[FRAMES] [SIZE]
/// [plain|nonsemantic|source]`.
pub struct Args {
    /// How many frames to draw (default 3).
    pub frames: u32,
    /// The side of the image drawn (default 64).
    pub size: u32,
    /// How the shaders' SPIR-V was built ([`DebugInfo::from_arg`]).
    pub debug_info: DebugInfo,
}

impl Args {
    pub fn parse() -> anyhow::Result<Args> {
        Ok(Args {
            frames: arg(0, "FRAMES", 3)?,
            size: arg(1, "SIZE", 64)?,
            debug_info: DebugInfo::from_arg(std::env::args().nth(3).as_deref()),
        })
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

/// The side of the texture of `vk_textured` and `vk_sets`.
pub const TEXTURE_SIZE: u32 = 8;

/// The RGBA8 texels of that texture, rows top first: texel (x, y) is
/// `(32x + 16, 32y + 16, 255 - 16(x + y), 255)`.
pub fn texture_rgba() -> Vec<u8> {
    (0..TEXTURE_SIZE)
        .flat_map(|y| (0..TEXTURE_SIZE).map(move |x| (x, y)))
        .flat_map(|(x, y)| [32 * x + 16, 32 * y + 16, 255 - 16 * (x + y), 255].map(|c| c as u8))
        .collect()
}

/// Numbers as the bytes a buffer holds them in (little-endian).
pub fn le_bytes<const N: usize, T: Copy>(values: &[T], bytes: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| bytes(v)).collect()
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
/// the flags asked for, on the first Vulkan device, for a [`Vulkan`]
/// (which destroys them).
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
        Gpu::with(flags, vk::API_VERSION_1_0, &[], None)
    }

    /// A Vulkan 1.3 device that can create pipelines from a cache only
    /// (`pipelineCreationCacheControl` enabled).
    pub fn with_cache_control(flags: vk::QueueFlags) -> anyhow::Result<Gpu> {
        let mut features = vk::PhysicalDevicePipelineCreationCacheControlFeatures::default()
            .pipeline_creation_cache_control(true);
        Gpu::with(flags, vk::API_VERSION_1_3, &[], Some(&mut features))
    }

    /// A Vulkan 1.3 device with `VK_EXT_graphics_pipeline_library`: a
    /// pipeline stage may carry its shader's code in its chain instead of
    /// a module.
    pub fn with_pipeline_library(flags: vk::QueueFlags) -> anyhow::Result<Gpu> {
        let mut features = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
            .graphics_pipeline_library(true);
        let extensions = [
            ash::khr::pipeline_library::NAME,
            ash::ext::graphics_pipeline_library::NAME,
        ];
        Gpu::with(flags, vk::API_VERSION_1_3, &extensions, Some(&mut features))
    }

    /// A Vulkan 1.1 device with `VK_KHR_push_descriptor` and
    /// `fragmentStoresAndAtomics`.
    pub fn with_push_descriptor(flags: vk::QueueFlags) -> anyhow::Result<Gpu> {
        let features = vk::PhysicalDeviceFeatures::default().fragment_stores_and_atomics(true);
        let mut features = vk::PhysicalDeviceFeatures2::default().features(features);
        let extensions = [ash::khr::push_descriptor::NAME];
        Gpu::with(flags, vk::API_VERSION_1_1, &extensions, Some(&mut features))
    }

    /// A Vulkan 1.3 device with dynamic rendering enabled.
    pub fn with_dynamic_rendering(flags: vk::QueueFlags) -> anyhow::Result<Gpu> {
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
        Gpu::with(flags, vk::API_VERSION_1_3, &[], Some(&mut v13))
    }

    /// A Vulkan 1.3 device with `synchronization2` (`vkQueueSubmit2`) and
    /// timeline semaphores enabled.
    pub fn with_submit2(flags: vk::QueueFlags) -> anyhow::Result<Gpu> {
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default().synchronization2(true);
        v13.p_next = (&mut v12 as *mut vk::PhysicalDeviceVulkan12Features).cast();
        Gpu::with(flags, vk::API_VERSION_1_3, &[], Some(&mut v13))
    }

    /// A device of Vulkan `version` with `extensions` and `features` in its
    /// create info's chain.
    fn with(
        flags: vk::QueueFlags,
        version: u32,
        extensions: &[&std::ffi::CStr],
        features: Option<&mut dyn vk::ExtendsDeviceCreateInfo>,
    ) -> anyhow::Result<Gpu> {
        // SAFETY: the objects are created on this thread; each create info
        // outlives its call; the caller destroys them.
        unsafe {
            let entry = ash::Entry::load().context("loading libvulkan")?;
            let app = vk::ApplicationInfo::default().api_version(version);
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
            let names: Vec<*const std::ffi::c_char> =
                extensions.iter().map(|e| e.as_ptr()).collect();
            let mut info = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&names);
            if let Some(features) = features {
                info = info.push_next(features);
            }
            let device = instance.create_device(physical, &info, None)?;
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

/// What a scene's graphics pipeline is made of: its two shaders (entry
/// `main`), its layout's descriptor set layouts and push-constant ranges,
/// and the fragment shader's specialization.
pub struct Shaders<'a> {
    pub vertex: &'a [u32],
    pub fragment: &'a [u32],
    pub set_layouts: &'a [vk::DescriptorSetLayout],
    pub push_constants: &'a [vk::PushConstantRange],
    pub specialization: Option<&'a vk::SpecializationInfo<'a>>,
}

/// A host-visible, host-coherent buffer, mapped for as long as it lives
/// (the device's cleanup frees it).
pub struct HostBuffer {
    pub buffer: vk::Buffer,
    ptr: *mut u8,
    size: usize,
}

impl HostBuffer {
    /// Writes `bytes` at the start of the buffer. The caller makes sure no
    /// submission that reads it is in flight.
    pub fn write(&self, bytes: &[u8]) -> anyhow::Result<()> {
        anyhow::ensure!(bytes.len() <= self.size, "{} bytes do not fit", bytes.len());
        // SAFETY: the mapping covers `size` bytes and lives as long as the
        // buffer's memory.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr, bytes.len()) };
        Ok(())
    }

    /// What the buffer holds. The caller makes sure no submission that
    /// writes it is in flight.
    pub fn read(&self) -> Vec<u8> {
        self.bytes().to_vec()
    }

    /// The checksum of what the buffer holds. The caller makes sure no
    /// submission that writes it is in flight.
    pub fn checksum(&self) -> u64 {
        fnv1a(self.bytes())
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping covers `size` bytes and lives as long as the
        // buffer's memory; nothing writes it meanwhile.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size) }
    }
}

/// One binding of a descriptor set made by [`Vulkan::descriptor_set`]
/// (binding N is the N-th).
pub enum Binding {
    UniformBuffer(vk::Buffer),
    StorageBuffer(vk::Buffer),
    /// A storage image, in `GENERAL`.
    StorageImage(vk::ImageView),
    /// A combined image sampler, the image in `SHADER_READ_ONLY_OPTIMAL`.
    Texture(vk::ImageView, vk::Sampler),
    /// An image to sample with a separate sampler (HLSL's `Texture2D`), in
    /// `SHADER_READ_ONLY_OPTIMAL`.
    SampledImage(vk::ImageView),
    /// A sampler of its own (HLSL's `SamplerState`).
    Sampler(vk::Sampler),
    /// An input attachment, in `SHADER_READ_ONLY_OPTIMAL`.
    InputAttachment(vk::ImageView),
}

impl Binding {
    fn kind(&self) -> vk::DescriptorType {
        match self {
            Binding::UniformBuffer(_) => vk::DescriptorType::UNIFORM_BUFFER,
            Binding::StorageBuffer(_) => vk::DescriptorType::STORAGE_BUFFER,
            Binding::StorageImage(_) => vk::DescriptorType::STORAGE_IMAGE,
            Binding::Texture(..) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            Binding::SampledImage(_) => vk::DescriptorType::SAMPLED_IMAGE,
            Binding::Sampler(_) => vk::DescriptorType::SAMPLER,
            Binding::InputAttachment(_) => vk::DescriptorType::INPUT_ATTACHMENT,
        }
    }

    /// What a descriptor write of the binding points at: its buffer or its
    /// image (the other one default).
    fn info(&self) -> (vk::DescriptorBufferInfo, vk::DescriptorImageInfo) {
        let image = |sampler, image_view, image_layout| vk::DescriptorImageInfo {
            sampler,
            image_view,
            image_layout,
        };
        let read = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
        let none = vk::Sampler::null();
        match *self {
            Binding::UniformBuffer(buffer) | Binding::StorageBuffer(buffer) => (
                vk::DescriptorBufferInfo {
                    buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                },
                vk::DescriptorImageInfo::default(),
            ),
            Binding::StorageImage(view) => (
                vk::DescriptorBufferInfo::default(),
                image(none, view, vk::ImageLayout::GENERAL),
            ),
            Binding::Texture(view, sampler) => (
                vk::DescriptorBufferInfo::default(),
                image(sampler, view, read),
            ),
            Binding::InputAttachment(view) | Binding::SampledImage(view) => {
                (vk::DescriptorBufferInfo::default(), image(none, view, read))
            }
            Binding::Sampler(sampler) => (
                vk::DescriptorBufferInfo::default(),
                image(sampler, vk::ImageView::null(), vk::ImageLayout::UNDEFINED),
            ),
        }
    }
}

/// The set layout bindings of a set with `bindings` (binding N is the
/// N-th), visible to `stage`.
fn layout_bindings(
    stage: vk::ShaderStageFlags,
    bindings: &[Binding],
) -> Vec<vk::DescriptorSetLayoutBinding<'static>> {
    (0u32..)
        .zip(bindings)
        .map(|(i, b)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(i)
                .descriptor_type(b.kind())
                .descriptor_count(1)
                .stage_flags(stage)
        })
        .collect()
}

/// An image barrier on the whole of a one-level, one-layer image.
pub fn barrier(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    (old, new): (vk::ImageLayout, vk::ImageLayout),
    (src, dst): (vk::AccessFlags, vk::AccessFlags),
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .image(image)
        .subresource_range(whole(aspect))
        .old_layout(old)
        .new_layout(new)
        .src_access_mask(src)
        .dst_access_mask(dst)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
}

/// The one level and layer of an image, of `aspect`.
fn whole(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(aspect)
        .level_count(1)
        .layer_count(1)
}

/// A copy between a buffer (tightly packed) and the whole of a colour
/// image of one level and layer.
pub fn whole_copy(extent: vk::Extent3D) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .image_subresource(
            vk::ImageSubresourceLayers::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .layer_count(1),
        )
        .image_extent(extent)
}

/// A SIZE x SIZE extent, one deep.
pub fn square(size: u32) -> vk::Extent3D {
    vk::Extent3D {
        width: size,
        height: size,
        depth: 1,
    }
}

/// The fixed-function state of a pipeline that draws triangles without
/// vertex buffers over a SIZE x SIZE viewport, one sample, into one colour
/// attachment blended as `blend` says: `make` completes the create info
/// (stages, layout, render pass) and creates the pipeline.
pub fn full_viewport<R>(
    size: u32,
    blend: vk::PipelineColorBlendAttachmentState,
    make: impl FnOnce(vk::GraphicsPipelineCreateInfo) -> R,
) -> R {
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
    let blend_attachment = [blend.color_write_mask(vk::ColorComponentFlags::RGBA)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachment);
    make(
        vk::GraphicsPipelineCreateInfo::default()
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend),
    )
}

/// `V.make(..)` ([`Vulkan::make`]) of an object made by the device's
/// `CREATE(&INFO, None)` and destroyed by its `DESTROY(object, None)`:
/// `made!(v, create_sampler(&info), destroy_sampler)`.
#[macro_export]
macro_rules! made {
    ($v:expr, $create:ident(&$info:expr), $destroy:ident) => {
        $v.make(
            |d| {
                let info = &$info;
                // SAFETY: the device is alive; the info outlives the call.
                unsafe { d.$create(info, None) }
            },
            // SAFETY: the cleanup destroys objects in the reverse order
            // of their creation, once the device is idle.
            |d, made| unsafe { d.$destroy(made, None) },
        )
    };
}

/// A device ([`Gpu`]) and what every program makes from it first: its
/// memory types and limits, a command pool with one command buffer, a
/// fence, and the [`Cleanup`] of what is made from it. Dropped, it
/// destroys all that, then the device and the instance.
pub struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    memory_types: vk::PhysicalDeviceMemoryProperties,
    limits: vk::PhysicalDeviceLimits,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    cleanup: Option<Cleanup>,
}

impl Vulkan {
    pub fn new(gpu: Gpu) -> anyhow::Result<Vulkan> {
        let Gpu {
            entry,
            instance,
            physical,
            device,
            family,
            queue,
        } = gpu;
        // SAFETY: a physical device of this instance.
        let (memory_types, limits) = unsafe {
            (
                instance.get_physical_device_memory_properties(physical),
                instance.get_physical_device_properties(physical).limits,
            )
        };
        let cleanup = Some(Cleanup::new(&device));
        // Made before anything else, so that a failure below is cleaned up.
        let mut v = Vulkan {
            _entry: entry,
            instance,
            device,
            queue,
            memory_types,
            limits,
            pool: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            cleanup,
        };
        let device = v.device.clone();
        let cleanup = v.cleanup()?;
        // SAFETY: the device is alive; each create info outlives its call;
        // the cleanup destroys the pool (and its command buffers) and fence.
        unsafe {
            let pool = device.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )?;
            cleanup.add(move |d| d.destroy_command_pool(pool, None));
            let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
            cleanup.add(move |d| d.destroy_fence(fence, None));
            v.pool = pool;
            v.fence = fence;
        }
        v.cmd = v.allocate_command_buffer()?;
        Ok(v)
    }

    /// The device, to make what a program needs beyond what this makes.
    pub fn device(&self) -> &ash::Device {
        &self.device
    }

    /// The device's limits.
    pub fn limits(&self) -> &vk::PhysicalDeviceLimits {
        &self.limits
    }

    /// The cleanup, to register what is made from the device.
    fn cleanup(&mut self) -> anyhow::Result<&mut Cleanup> {
        self.cleanup
            .as_mut()
            .ok_or_else(|| anyhow!("device dropped"))
    }

    /// Makes an object with `make` (given the device) and registers its
    /// destruction, `destroy`, with the cleanup.
    pub fn make<T: Copy + 'static>(
        &mut self,
        make: impl FnOnce(&ash::Device) -> Result<T, vk::Result>,
        destroy: fn(&ash::Device, T),
    ) -> anyhow::Result<T> {
        let device = self.device.clone();
        let made = make(&device)?;
        self.cleanup()?.add(move |d| destroy(d, made));
        Ok(made)
    }

    /// Registers `pipeline` (made from the device) with the cleanup.
    pub fn keep_pipeline(&mut self, pipeline: vk::Pipeline) -> anyhow::Result<vk::Pipeline> {
        // SAFETY: the cleanup destroys it once the device is idle.
        let destroy = |d: &ash::Device, p| unsafe { d.destroy_pipeline(p, None) };
        self.make(|_| Ok(pipeline), destroy)
    }

    /// The device's own command buffer, for programs that record their
    /// frame once and submit it every frame.
    pub fn command_buffer(&self) -> vk::CommandBuffer {
        self.cmd
    }

    /// The command pool the command buffers come from.
    pub fn command_pool(&self) -> vk::CommandPool {
        self.pool
    }

    /// Another command buffer of the pool (freed with it).
    pub fn allocate_command_buffer(&self) -> anyhow::Result<vk::CommandBuffer> {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .command_buffer_count(1);
        // SAFETY: the device and pool are alive; the info outlives the call.
        Ok(unsafe { self.device.allocate_command_buffers(&info)? }[0])
    }

    /// Records into `cmd` (which is not in use) what `record` does.
    pub fn record(
        &self,
        cmd: vk::CommandBuffer,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> anyhow::Result<()> {
        let d = &self.device;
        // SAFETY: the command buffer is the device's and not in use (each
        // submission is waited for).
        unsafe {
            d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
            record(d, cmd);
            d.end_command_buffer(cmd)?;
        }
        Ok(())
    }

    /// Submits `cmd` alone and waits for it.
    pub fn submit(&self, cmd: vk::CommandBuffer) -> anyhow::Result<()> {
        let d = &self.device;
        let cmds = [cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        // SAFETY: the queue and fence are the device's; the fence is reset
        // once signalled, so the next submission can use it.
        unsafe {
            d.queue_submit(self.queue, &submit, self.fence)?;
            d.wait_for_fences(&[self.fence], true, u64::MAX)?;
            d.reset_fences(&[self.fence])?;
        }
        Ok(())
    }

    /// A memory type for `req` with `flags`.
    fn memory_type(
        &self,
        req: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
    ) -> anyhow::Result<u32> {
        let types = &self.memory_types;
        (0..types.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && types.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .ok_or_else(|| anyhow!("no memory type with flags {:#x}", flags.as_raw()))
    }

    /// Memory for `req` with `flags` (freed by the cleanup).
    fn memory(
        &mut self,
        req: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
    ) -> anyhow::Result<vk::DeviceMemory> {
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(self.memory_type(req, flags)?);
        made!(self, allocate_memory(&info), free_memory)
    }

    /// A 2D image of one level and layer with its memory and a view of
    /// `aspect` (destroyed by the cleanup).
    pub fn image_2d(
        &mut self,
        extent: vk::Extent3D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
    ) -> anyhow::Result<(vk::Image, vk::ImageView)> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(extent)
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .usage(usage);
        let image = made!(self, create_image(&info), destroy_image)?;
        // SAFETY: an image of this device.
        let req = unsafe { self.device.get_image_memory_requirements(image) };
        let memory = self.memory(req, vk::MemoryPropertyFlags::empty())?;
        // SAFETY: memory of a type the image accepts, not bound yet.
        unsafe { self.device.bind_image_memory(image, memory, 0)? };
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(whole(aspect));
        let view = made!(self, create_image_view(&info), destroy_image_view)?;
        Ok((image, view))
    }

    /// A host-visible buffer of `size` bytes for `usage`, mapped.
    pub fn host_buffer(
        &mut self,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> anyhow::Result<HostBuffer> {
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        let buffer = made!(self, create_buffer(&info), destroy_buffer)?;
        let d = self.device.clone();
        // SAFETY: a buffer of this device.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let memory = self.memory(req, host)?;
        // SAFETY: host-visible memory of a type the buffer accepts, neither
        // bound nor mapped yet; freeing it (the cleanup) unmaps it.
        let ptr = unsafe {
            d.bind_buffer_memory(buffer, memory, 0)?;
            d.map_memory(memory, 0, size, vk::MemoryMapFlags::empty())?
        };
        Ok(HostBuffer {
            buffer,
            ptr: ptr.cast(),
            size: size as usize,
        })
    }

    /// A shader module of `code` (destroyed by the cleanup).
    pub fn shader_module(&mut self, code: &[u32]) -> anyhow::Result<vk::ShaderModule> {
        let info = vk::ShaderModuleCreateInfo::default().code(code);
        made!(self, create_shader_module(&info), destroy_shader_module)
    }

    /// A pipeline layout (destroyed by the cleanup).
    pub fn pipeline_layout(
        &mut self,
        set_layouts: &[vk::DescriptorSetLayout],
        push_constants: &[vk::PushConstantRange],
    ) -> anyhow::Result<vk::PipelineLayout> {
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(set_layouts)
            .push_constant_ranges(push_constants);
        made!(self, create_pipeline_layout(&info), destroy_pipeline_layout)
    }

    /// A compute pipeline of `code` (entry `main`) with `layout`
    /// (destroyed by the cleanup). Its module is destroyed as soon as the
    /// pipeline exists, as Vulkan allows.
    pub fn compute_pipeline(
        &mut self,
        code: &[u32],
        layout: vk::PipelineLayout,
    ) -> anyhow::Result<vk::Pipeline> {
        let d = self.device.clone();
        // SAFETY: the device is alive; each create info outlives its call;
        // nothing else uses the module.
        let made = unsafe {
            let module =
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout);
            let made = d.create_compute_pipelines(vk::PipelineCache::null(), &[info], None);
            d.destroy_shader_module(module, None);
            made.map_err(|(_, e)| e)?[0]
        };
        self.keep_pipeline(made)
    }

    /// An empty pipeline cache (destroyed by the cleanup).
    pub fn pipeline_cache(&mut self) -> anyhow::Result<vk::PipelineCache> {
        let info = vk::PipelineCacheCreateInfo::default();
        made!(self, create_pipeline_cache(&info), destroy_pipeline_cache)
    }

    /// A set layout for sets with `bindings` visible to `stage`, which the
    /// caller destroys.
    pub fn set_layout(
        &self,
        stage: vk::ShaderStageFlags,
        bindings: &[Binding],
    ) -> anyhow::Result<vk::DescriptorSetLayout> {
        self.set_layout_with(vk::DescriptorSetLayoutCreateFlags::empty(), stage, bindings)
    }

    /// A layout for descriptors pushed with `bindings` visible to `stage`
    /// (`VK_KHR_push_descriptor`: [`Vulkan::push_descriptor`]; destroyed
    /// by the cleanup).
    pub fn push_set_layout(
        &mut self,
        stage: vk::ShaderStageFlags,
        bindings: &[Binding],
    ) -> anyhow::Result<vk::DescriptorSetLayout> {
        let push = vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR;
        let layout = self.set_layout_with(push, stage, bindings)?;
        // SAFETY: the cleanup destroys it after what was made from it.
        self.cleanup()?
            .add(move |d| unsafe { d.destroy_descriptor_set_layout(layout, None) });
        Ok(layout)
    }

    /// The functions of `VK_KHR_push_descriptor` (a device made by
    /// [`Gpu::with_push_descriptor`]).
    pub fn push_descriptor(&self) -> ash::khr::push_descriptor::Device {
        ash::khr::push_descriptor::Device::new(&self.instance, &self.device)
    }

    fn set_layout_with(
        &self,
        flags: vk::DescriptorSetLayoutCreateFlags,
        stage: vk::ShaderStageFlags,
        bindings: &[Binding],
    ) -> anyhow::Result<vk::DescriptorSetLayout> {
        let layout_bindings = layout_bindings(stage, bindings);
        let info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(flags)
            .bindings(&layout_bindings);
        // SAFETY: the device is alive; the info outlives the call.
        Ok(unsafe { self.device.create_descriptor_set_layout(&info, None)? })
    }

    /// A descriptor set layout without bindings (destroyed by the cleanup).
    pub fn empty_set_layout(&mut self) -> anyhow::Result<vk::DescriptorSetLayout> {
        self.owned_set_layout(vk::ShaderStageFlags::empty(), &[])
    }

    /// [`Vulkan::set_layout`], destroyed by the cleanup.
    fn owned_set_layout(
        &mut self,
        stage: vk::ShaderStageFlags,
        bindings: &[Binding],
    ) -> anyhow::Result<vk::DescriptorSetLayout> {
        let layout = self.set_layout(stage, bindings)?;
        // SAFETY: the cleanup destroys it after what was made from it.
        self.cleanup()?
            .add(move |d| unsafe { d.destroy_descriptor_set_layout(layout, None) });
        Ok(layout)
    }

    /// A descriptor set (from a pool of its own) with `bindings` (binding N
    /// is `bindings[N]`, whole buffers) visible to `stage`, and its layout
    /// (destroyed by the cleanup).
    pub fn descriptor_set(
        &mut self,
        stage: vk::ShaderStageFlags,
        bindings: &[Binding],
    ) -> anyhow::Result<(vk::DescriptorSetLayout, vk::DescriptorSet)> {
        let layout = self.owned_set_layout(stage, bindings)?;
        let sizes: Vec<_> = bindings
            .iter()
            .map(|b| vk::DescriptorPoolSize {
                ty: b.kind(),
                descriptor_count: 1,
            })
            .collect();
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        let pool = made!(self, create_descriptor_pool(&info), destroy_descriptor_pool)?;
        let layouts = [layout];
        let infos: Vec<_> = bindings.iter().map(|b| b.info()).collect();
        let buffers: Vec<[vk::DescriptorBufferInfo; 1]> = infos.iter().map(|i| [i.0]).collect();
        let images: Vec<[vk::DescriptorImageInfo; 1]> = infos.iter().map(|i| [i.1]).collect();
        // SAFETY: the device and pool are alive; the infos outlive their
        // calls; what the writes name is alive.
        unsafe {
            let set = self.device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )?[0];
            let writes: Vec<_> = (0u32..)
                .zip(bindings)
                .map(|(i, b)| {
                    let write = vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(i)
                        .descriptor_type(b.kind());
                    match b {
                        Binding::UniformBuffer(_) | Binding::StorageBuffer(_) => {
                            write.buffer_info(&buffers[i as usize])
                        }
                        _ => write.image_info(&images[i as usize]),
                    }
                })
                .collect();
            self.device.update_descriptor_sets(&writes, &[]);
            Ok((layout, set))
        }
    }

    /// A WIDTH x HEIGHT RGBA8 texture holding `rgba` (rows top first),
    /// uploaded through a staging buffer in a submission of its own (one
    /// frame, to the layer, in a program without a swapchain), and a
    /// nearest-texel sampler clamped to the edge.
    pub fn texture(
        &mut self,
        width: u32,
        height: u32,
        rgba: &[u8],
    ) -> anyhow::Result<(vk::ImageView, vk::Sampler)> {
        anyhow::ensure!(rgba.len() == (width * height * 4) as usize, "texture size");
        let staging = self.host_buffer(rgba.len() as u64, vk::BufferUsageFlags::TRANSFER_SRC)?;
        staging.write(rgba)?;
        let extent = vk::Extent3D {
            width,
            height,
            depth: 1,
        };
        let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
        let format = vk::Format::R8G8B8A8_UNORM;
        let color = vk::ImageAspectFlags::COLOR;
        let (image, view) = self.image_2d(extent, format, usage, color)?;
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE);
        let sampler = made!(self, create_sampler(&info), destroy_sampler)?;
        let device = &self.device;
        let cmd = self.allocate_command_buffer()?;
        let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
        let write = vk::AccessFlags::TRANSFER_WRITE;
        let to_transfer = barrier(
            image,
            color,
            (vk::ImageLayout::UNDEFINED, dst),
            (vk::AccessFlags::empty(), write),
        );
        let read = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
        let to_shader = barrier(
            image,
            color,
            (dst, read),
            (write, vk::AccessFlags::SHADER_READ),
        );
        // SAFETY: the device is alive; the upload is waited for before the
        // staging buffer can go.
        unsafe {
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            device.begin_command_buffer(cmd, &begin)?;
            let none = vk::DependencyFlags::empty();
            let wait =
                |src, dst, b| device.cmd_pipeline_barrier(cmd, src, dst, none, &[], &[], &[b]);
            let transfer = vk::PipelineStageFlags::TRANSFER;
            wait(vk::PipelineStageFlags::TOP_OF_PIPE, transfer, to_transfer);
            let region = whole_copy(extent);
            device.cmd_copy_buffer_to_image(cmd, staging.buffer, image, dst, &[region]);
            wait(transfer, vk::PipelineStageFlags::FRAGMENT_SHADER, to_shader);
            device.end_command_buffer(cmd)?;
            self.submit(cmd)?;
            // Destroying the pool would free it too; the upload is done.
            device.free_command_buffers(self.pool, &[cmd]);
        }
        Ok((view, sampler))
    }

    /// A timeline semaphore starting at 0 (destroyed by the cleanup; the
    /// device of [`Gpu::with_submit2`]).
    pub fn timeline(&mut self) -> anyhow::Result<vk::Semaphore> {
        let mut kind = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut kind);
        made!(self, create_semaphore(&info), destroy_semaphore)
    }

    /// Submits `cmd` with `vkQueueSubmit2`, waiting for `timeline` to reach
    /// `wait` before any command and signalling `signal` on it, and the
    /// device's fence; waits for the fence, then (at most a second) for the
    /// timeline to reach `signal` (lavapipe may signal the fence first).
    /// Whether the fence was signalled, and the timeline's value then (the
    /// fence is reset).
    pub fn submit2(
        &self,
        cmd: vk::CommandBuffer,
        timeline: vk::Semaphore,
        wait: u64,
        signal: u64,
    ) -> anyhow::Result<(bool, u64)> {
        let d = &self.device;
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let waits = [vk::SemaphoreSubmitInfo::default()
            .semaphore(timeline)
            .value(wait)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        let signals = [vk::SemaphoreSubmitInfo::default()
            .semaphore(timeline)
            .value(signal)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        let submit = [vk::SubmitInfo2::default()
            .command_buffer_infos(&cmds)
            .wait_semaphore_infos(&waits)
            .signal_semaphore_infos(&signals)];
        // SAFETY: the queue, fence and semaphore are the device's; the
        // fence is reset once signalled.
        unsafe {
            d.queue_submit2(self.queue, &submit, self.fence)?;
            d.wait_for_fences(&[self.fence], true, u64::MAX)?;
            let signalled = d.get_fence_status(self.fence)?;
            let semaphores = [timeline];
            let values = [signal];
            let info = vk::SemaphoreWaitInfo::default()
                .semaphores(&semaphores)
                .values(&values);
            match d.wait_semaphores(&info, 1_000_000_000) {
                Ok(()) | Err(vk::Result::TIMEOUT) => {}
                Err(e) => return Err(e.into()),
            }
            let value = d.get_semaphore_counter_value(timeline)?;
            d.reset_fences(&[self.fence])?;
            Ok((signalled, value))
        }
    }

    /// What another thread needs to submit the device's command buffer.
    pub fn submitter(&self) -> Submitter {
        Submitter {
            device: self.device.clone(),
            queue: self.queue,
            cmd: self.cmd,
            fence: self.fence,
        }
    }

    /// Waits until the device is idle (`vkDeviceWaitIdle`).
    pub fn wait_idle(&self) -> anyhow::Result<()> {
        // SAFETY: the device is alive.
        unsafe { self.device.device_wait_idle()? };
        Ok(())
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        drop(self.cleanup.take());
        // SAFETY: everything made from the device is gone (the cleanup).
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Everything to draw into a SIZE x SIZE RGBA8 image offscreen (no
/// swapchain) and read it back: a [`Vulkan`] (which the scene derefs
/// to), a render pass, a graphics pipeline (`vk_triangle.{vert,frag}`
/// with push constant `t` for the fragment shader from [`Scene::new`],
/// any [`Shaders`] through [`Scene::set_pipeline`]) and a read-back buffer.
pub struct Scene {
    vulkan: Vulkan,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    /// The view of the image subpass 0 draws and subpass 1 reads, where
    /// the render pass has two subpasses.
    input: Option<vk::ImageView>,
    /// The subpass the next [`Scene::set_pipeline`] draws in.
    pipeline_subpass: u32,
    pipeline: vk::Pipeline,
    layout: vk::PipelineLayout,
    image: vk::Image,
    extent: vk::Extent3D,
    readback: HostBuffer,
}

impl std::ops::Deref for Scene {
    type Target = Vulkan;
    fn deref(&self) -> &Vulkan {
        &self.vulkan
    }
}

impl std::ops::DerefMut for Scene {
    fn deref_mut(&mut self) -> &mut Vulkan {
        &mut self.vulkan
    }
}

impl Scene {
    /// The scene of `vk_triangle`; `debug_info` picks how its SPIR-V was built.
    pub fn new(size: u32, debug_info: DebugInfo) -> anyhow::Result<Scene> {
        let mut scene = Scene::offscreen(size)?;
        let _plain = scene.set_triangle_pipeline(debug_info, Made::Plainly)?;
        Ok(scene)
    }

    /// Makes `vk_triangle`'s pipeline (its shaders built with `debug_info`,
    /// the push constant `t` for the fragment shader) the scene's, `made`
    /// as it says; what the creation returned.
    pub fn set_triangle_pipeline(
        &mut self,
        debug_info: DebugInfo,
        made: Made,
    ) -> anyhow::Result<vk::Result> {
        let (vertex, fragment) = triangle_shaders(debug_info)?;
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)
            .size(4)];
        let shaders = Shaders {
            vertex: &vertex,
            fragment: &fragment,
            set_layouts: &[],
            push_constants: &push,
            specialization: None,
        };
        self.make_pipeline(&shaders, made)
    }

    /// A scene without a pipeline yet ([`Scene::set_pipeline`]).
    pub fn offscreen(size: u32) -> anyhow::Result<Scene> {
        Scene::on(Gpu::new(vk::QueueFlags::GRAPHICS)?, size)
    }

    /// [`Scene::offscreen`] on `gpu` (its queue has graphics).
    pub fn on(gpu: Gpu, size: u32) -> anyhow::Result<Scene> {
        Scene::on_passes(gpu, size, false)
    }

    /// A scene whose render pass has two subpasses: the first draws into
    /// a second image ([`Scene::set_pipeline`]), which the second reads as
    /// its input attachment ([`Scene::input_view`]) and draws the scene's
    /// image ([`Scene::set_pipeline_in`]; [`Scene::record`]'s `draw`
    /// moves to it with `vkCmdNextSubpass`).
    pub fn with_input_attachment(size: u32) -> anyhow::Result<Scene> {
        Scene::on_passes(Gpu::new(vk::QueueFlags::GRAPHICS)?, size, true)
    }

    fn on_passes(gpu: Gpu, size: u32, input: bool) -> anyhow::Result<Scene> {
        let mut v = Vulkan::new(gpu)?;
        let format = vk::Format::R8G8B8A8_UNORM;
        let extent = square(size);
        let color = vk::ImageAspectFlags::COLOR;
        let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
        let (image, view) = v.image_2d(extent, format, usage, color)?;
        let bytes = (size * size * 4) as u64;
        let readback = v.host_buffer(bytes, vk::BufferUsageFlags::TRANSFER_DST)?;

        // With an input attachment: attachment 1, drawn by subpass 0
        // and read by subpass 1, which draws attachment 0.
        let second = match input {
            true => {
                let usage =
                    vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::INPUT_ATTACHMENT;
                Some(v.image_2d(extent, format, usage, color)?.1)
            }
            false => None,
        };
        let attachment = vk::AttachmentDescription::default()
            .format(format)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
        let read = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
        let attachments = [
            attachment,
            attachment
                .store_op(vk::AttachmentStoreOp::DONT_CARE)
                .final_layout(read),
        ];
        let reference = |attachment, layout| vk::AttachmentReference { attachment, layout };
        let drawn = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
        let (image_ref, second_ref) = ([reference(0, drawn)], [reference(1, drawn)]);
        let input_ref = [reference(1, read)];
        let graphics = vk::PipelineBindPoint::GRAPHICS;
        let subpass = vk::SubpassDescription::default().pipeline_bind_point(graphics);
        let (subpasses, dependencies) = match input {
            false => (vec![subpass.color_attachments(&image_ref)], vec![]),
            true => (
                vec![
                    subpass.color_attachments(&second_ref),
                    subpass
                        .input_attachments(&input_ref)
                        .color_attachments(&image_ref),
                ],
                vec![vk::SubpassDependency::default()
                    .src_subpass(0)
                    .dst_subpass(1)
                    .src_stage_mask(vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT)
                    .dst_stage_mask(vk::PipelineStageFlags::FRAGMENT_SHADER)
                    .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
                    .dst_access_mask(vk::AccessFlags::INPUT_ATTACHMENT_READ)
                    .dependency_flags(vk::DependencyFlags::BY_REGION)],
            ),
        };
        let info = vk::RenderPassCreateInfo::default()
            .attachments(&attachments[..subpasses.len()])
            .subpasses(&subpasses)
            .dependencies(&dependencies);
        let render_pass = made!(v, create_render_pass(&info), destroy_render_pass)?;
        let views: Vec<vk::ImageView> = std::iter::once(view).chain(second).collect();
        let info = vk::FramebufferCreateInfo::default()
            .render_pass(render_pass)
            .attachments(&views)
            .width(size)
            .height(size)
            .layers(1);
        let framebuffer = made!(v, create_framebuffer(&info), destroy_framebuffer)?;
        Ok(Scene {
            vulkan: v,
            render_pass,
            framebuffer,
            input: second,
            pipeline_subpass: 0,
            pipeline: vk::Pipeline::null(),
            layout: vk::PipelineLayout::null(),
            image,
            extent,
            readback,
        })
    }

    /// The pipeline's layout ([`Scene::set_pipeline`]).
    pub fn layout(&self) -> vk::PipelineLayout {
        self.layout
    }

    /// The pipeline ([`Scene::set_pipeline`]).
    pub fn pipeline(&self) -> vk::Pipeline {
        self.pipeline
    }

    /// The image the first subpass draws and the second reads (a scene
    /// [`Scene::with_input_attachment`]).
    pub fn input_view(&self) -> anyhow::Result<vk::ImageView> {
        self.input
            .ok_or_else(|| anyhow!("the scene has one subpass"))
    }

    /// Creates the pipeline (and its layout) the scene draws with, for a
    /// full-viewport draw of triangles without vertex buffers.
    pub fn set_pipeline(&mut self, shaders: &Shaders) -> anyhow::Result<()> {
        self.make_pipeline(shaders, Made::Plainly).map(|_| ())
    }

    fn make_pipeline(&mut self, shaders: &Shaders, how: Made) -> anyhow::Result<vk::Result> {
        let (vert, frag) = match how {
            Made::Chained => (vk::ShaderModule::null(), vk::ShaderModule::null()),
            _ => (
                self.shader_module(shaders.vertex)?,
                self.shader_module(shaders.fragment)?,
            ),
        };
        let layout = self.pipeline_layout(shaders.set_layouts, shaders.push_constants)?;
        let mut vert_code = vk::ShaderModuleCreateInfo::default().code(shaders.vertex);
        let mut frag_code = vk::ShaderModuleCreateInfo::default().code(shaders.fragment);
        let mut fragment_stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(frag)
            .name(c"main");
        if let Some(spec) = shaders.specialization {
            fragment_stage = fragment_stage.specialization_info(spec);
        }
        let mut vertex_stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vert)
            .name(c"main");
        if how == Made::Chained {
            vertex_stage = vertex_stage.push_next(&mut vert_code);
            fragment_stage = fragment_stage.push_next(&mut frag_code);
        }
        let stages = [vertex_stage, fragment_stage];
        let device = self.device.clone();
        let opaque = vk::PipelineColorBlendAttachmentState::default();
        let (result, made) = full_viewport(self.extent.width, opaque, |info| {
            let info = info
                .stages(&stages)
                .subpass(self.pipeline_subpass)
                .layout(layout)
                .render_pass(self.render_pass);
            // SAFETY: the device is alive; the create infos outlive the call.
            unsafe {
                match how {
                    Made::Plainly | Made::Chained => {
                        let null = vk::PipelineCache::null();
                        let made = device
                            .create_graphics_pipelines(null, &[info], None)
                            .map_err(|(_, e)| e)?;
                        Ok((vk::Result::SUCCESS, made))
                    }
                    Made::FromCache(cache) => {
                        let cached =
                            info.flags(vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED);
                        match device.create_graphics_pipelines(cache, &[cached, info], None) {
                            Ok(made) => Ok((vk::Result::SUCCESS, made)),
                            Err((made, r)) if r == vk::Result::PIPELINE_COMPILE_REQUIRED => {
                                Ok((r, made))
                            }
                            Err((_, r)) => Err(anyhow::Error::from(r)),
                        }
                    }
                }
            }
        })?;
        let mut made = made.into_iter().filter(|p| *p != vk::Pipeline::null());
        let pipeline = made.next().ok_or_else(|| anyhow!("no pipeline made"))?;
        for extra in made {
            // SAFETY: made here and not used.
            unsafe { device.destroy_pipeline(extra, None) };
        }
        self.layout = layout;
        self.pipeline = self.keep_pipeline(pipeline)?;
        Ok(result)
    }

    /// [`Scene::set_pipeline`] for a draw in `subpass` of the render pass
    /// (a scene [`Scene::with_input_attachment`] has two).
    pub fn set_pipeline_in(&mut self, subpass: u32, shaders: &Shaders) -> anyhow::Result<()> {
        self.pipeline_subpass = subpass;
        let made = self.set_pipeline(shaders);
        self.pipeline_subpass = 0;
        made
    }

    /// Records a frame into `cmd`: a render pass that clears the image,
    /// `draw` inside it, and the copy of the image to the read-back buffer.
    pub fn record(
        &self,
        cmd: vk::CommandBuffer,
        draw: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> anyhow::Result<()> {
        self.record_in(cmd, vk::SubpassContents::INLINE, draw)
    }

    /// A secondary command buffer of the scene's pool with what `draw`
    /// records, continuing the scene's render pass in its first subpass
    /// (for [`Scene::record_in`] with `SECONDARY_COMMAND_BUFFERS`).
    pub fn secondary(
        &self,
        draw: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> anyhow::Result<vk::CommandBuffer> {
        let d = &self.device;
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool())
            .level(vk::CommandBufferLevel::SECONDARY)
            .command_buffer_count(1);
        let inheritance = vk::CommandBufferInheritanceInfo::default()
            .render_pass(self.render_pass)
            .framebuffer(self.framebuffer);
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
            .inheritance_info(&inheritance);
        // SAFETY: the scene's pool, render pass and framebuffer are alive;
        // the buffer is freed with the pool.
        unsafe {
            let cmd = d.allocate_command_buffers(&info)?[0];
            d.begin_command_buffer(cmd, &begin)?;
            draw(d, cmd);
            d.end_command_buffer(cmd)?;
            Ok(cmd)
        }
    }

    /// [`Scene::record`] whose render pass's contents are `contents`.
    pub fn record_in(
        &self,
        cmd: vk::CommandBuffer,
        contents: vk::SubpassContents,
        draw: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> anyhow::Result<()> {
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: self.extent.width,
                height: self.extent.height,
            },
        };
        // One per attachment (the second: a scene with an input attachment).
        let clear = [vk::ClearValue {
            color: vk::ClearColorValue {
                float32: [0.0, 0.0, 0.0, 1.0],
            },
        }; 2];
        let clear = &clear[..1 + usize::from(self.input.is_some())];
        self.vulkan.record(cmd, |d, cmd| {
            // SAFETY: recording into `cmd`; the scene's objects are alive.
            unsafe {
                d.cmd_begin_render_pass(
                    cmd,
                    &vk::RenderPassBeginInfo::default()
                        .render_pass(self.render_pass)
                        .framebuffer(self.framebuffer)
                        .render_area(area)
                        .clear_values(clear),
                    contents,
                );
                draw(d, cmd);
                d.cmd_end_render_pass(cmd);
                let layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
                let region = whole_copy(self.extent);
                d.cmd_copy_image_to_buffer(
                    cmd,
                    self.image,
                    layout,
                    self.readback.buffer,
                    &[region],
                );
            }
        })
    }

    /// Records into `cmd` a frame of one draw of `vertices` vertices with
    /// the scene's pipeline and `sets` bound as sets 0, 1, ...
    pub fn record_draw(
        &self,
        cmd: vk::CommandBuffer,
        sets: &[vk::DescriptorSet],
        vertices: u32,
    ) -> anyhow::Result<()> {
        self.record(cmd, |d, cmd| {
            let graphics = vk::PipelineBindPoint::GRAPHICS;
            // SAFETY: recording into `cmd`; the sets match the pipeline's
            // layout (the caller made both).
            unsafe {
                d.cmd_bind_pipeline(cmd, graphics, self.pipeline);
                d.cmd_bind_descriptor_sets(cmd, graphics, self.layout, 0, sets, &[]);
                d.cmd_draw(cmd, vertices, 1, 0, 0);
            }
        })
    }

    /// The checksum of the image the last submitted frame copied back.
    pub fn checksum(&self) -> anyhow::Result<u64> {
        Ok(self.readback.checksum())
    }

    /// Draws one frame: for each submission in `submissions`, one
    /// command buffer that clears the image and draws the triangle once per
    /// `t` (the push constant), submitted and waited for; then returns the
    /// checksum of the image (the last submission's draws).
    pub fn frame(&self, submissions: &[Vec<f32>]) -> anyhow::Result<u64> {
        for ts in submissions {
            self.record_triangles(self.cmd, ts)?;
            self.submit(self.cmd)?;
        }
        self.checksum()
    }

    /// Records into `cmd` a frame that draws the triangle once per `t`
    /// (the push constant).
    pub fn record_triangles(&self, cmd: vk::CommandBuffer, ts: &[f32]) -> anyhow::Result<()> {
        self.record(cmd, |d, cmd| {
            for t in ts {
                // SAFETY: recording into `cmd`, with the scene's
                // pipeline and its layout's push-constant range.
                unsafe {
                    d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
                    let stage = vk::ShaderStageFlags::FRAGMENT;
                    d.cmd_push_constants(cmd, self.layout, stage, 0, &t.to_le_bytes());
                    d.cmd_draw(cmd, 3, 1, 0, 0);
                }
            }
        })
    }
}

/// How a scene's pipeline is made.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Made {
    /// From shader modules, without a cache.
    Plainly,
    /// Through the cache, as programs that ship one do: one call creates
    /// the pipeline twice, first only if the cache has it
    /// (`FAIL_ON_PIPELINE_COMPILE_REQUIRED`; a device of
    /// [`Gpu::with_cache_control`]), then compiling it; the first one made
    /// is kept (the call returns `PIPELINE_COMPILE_REQUIRED` when the cache
    /// did not have it).
    FromCache(vk::PipelineCache),
    /// Each stage's code in the stage's chain (a `VkShaderModuleCreateInfo`),
    /// no shader module made (a device of [`Gpu::with_pipeline_library`]).
    Chained,
}

/// Submits a [`Vulkan`]'s command buffer (with its fence, not waited for)
/// from another thread.
pub struct Submitter {
    device: ash::Device,
    queue: vk::Queue,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
}

impl Submitter {
    /// Submits the command buffer; the caller keeps the [`Vulkan`] alive
    /// until this returns and does not use its queue meanwhile.
    pub fn submit(&self) -> anyhow::Result<()> {
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        // SAFETY: per this function's contract.
        unsafe { self.device.queue_submit(self.queue, &submit, self.fence)? };
        Ok(())
    }
}
