//! Images a submission reads before it writes them, kept as they were
//! before it, so that a stop's re-executions start from the same state as
//! the first execution: the attachments its render passes and dynamic
//! rendering LOAD, and the storage images its pipelines may write. The
//! layer tracks images (`vkCreateImage`, which also gets transfer usage
//! added to attachment and storage images so that they can be copied; the
//! application sees the image it asked for), image views, framebuffers,
//! render passes' attachments (their load ops and initial layouts) and the
//! storage images descriptor sets hold. Before the hit test it copies each
//! such image's subresources, in the layout the submission expects them
//! in, into an image of its own, and copies them back before each
//! re-execution, leaving them in that layout; after the last re-execution
//! the images hold what one execution leaves.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};

use ash::vk;

use crate::dispatch::{self, array, device, with_next, DeviceData, HandleMap, Void};
use crate::error::Error;
use crate::replay::Cmd;
use crate::snapshots::{pipeline_barrier, run_once, Slot, Snapshot};

dispatch::device_commands! {
    /// The next layer's commands this module uses, of one device.
    pub struct Next {
        create_image: PFN_vkCreateImage,
        destroy_image: PFN_vkDestroyImage,
        create_image_view: PFN_vkCreateImageView,
        destroy_image_view: PFN_vkDestroyImageView,
        create_framebuffer: PFN_vkCreateFramebuffer,
        destroy_framebuffer: PFN_vkDestroyFramebuffer,
        get_image_memory_requirements: PFN_vkGetImageMemoryRequirements,
        bind_image_memory: PFN_vkBindImageMemory,
        pub(crate) allocate_memory: PFN_vkAllocateMemory,
        pub(crate) free_memory: PFN_vkFreeMemory,
        cmd_copy_image: PFN_vkCmdCopyImage,
        pub(crate) cmd_pipeline_barrier: PFN_vkCmdPipelineBarrier,
        // Screenshots (`screenshot.rs`): an image copied into a buffer read
        // on the host.
        pub(crate) cmd_copy_image_to_buffer: PFN_vkCmdCopyImageToBuffer,
        pub(crate) create_buffer: PFN_vkCreateBuffer,
        pub(crate) destroy_buffer: PFN_vkDestroyBuffer,
        pub(crate) get_buffer_memory_requirements: PFN_vkGetBufferMemoryRequirements,
        pub(crate) bind_buffer_memory: PFN_vkBindBufferMemory,
        pub(crate) map_memory: PFN_vkMapMemory,
        pub(crate) unmap_memory: PFN_vkUnmapMemory,
        // Swapchain images are tracked too (screenshots of what is presented).
        get_swapchain_images: PFN_vkGetSwapchainImagesKHR,
        destroy_swapchain: PFN_vkDestroySwapchainKHR,
        // Queues' families (a screenshot at a present records on the present
        // queue's family).
        get_device_queue: PFN_vkGetDeviceQueue,
        get_device_queue2: PFN_vkGetDeviceQueue2,
    }
}

/// What a copy of an image needs of its create info.
#[derive(Clone, Copy)]
pub(crate) struct Image {
    image_type: vk::ImageType,
    pub(crate) format: vk::Format,
    pub(crate) extent: vk::Extent3D,
    /// Its usage as created (widened or not): a screenshot needs
    /// `TRANSFER_SRC`.
    pub(crate) usage: vk::ImageUsageFlags,
    mip_levels: u32,
    array_layers: u32,
    pub(crate) samples: vk::SampleCountFlags,
    /// Its attachment usage (a copy of a multisampled image keeps it).
    attachment: vk::ImageUsageFlags,
    /// Why it cannot be copied both ways, if so.
    not_copyable: Option<&'static str>,
}

/// A render pass attachment: whether the pass reads what the image holds,
/// the layout it expects the image in when the pass begins and the one the
/// pass leaves it in, and its format (a screenshot shows the first colour
/// attachment).
#[derive(Clone, Copy)]
pub struct PassAttachment {
    loads: bool,
    initial_layout: vk::ImageLayout,
    final_layout: vk::ImageLayout,
    format: vk::Format,
}

/// A descriptor set's storage images by (binding, element): view, layout.
type SetImages = HashMap<(u32, u32), (vk::ImageView, vk::ImageLayout)>;

/// What the layer knows of images on one device.
#[derive(Default)]
pub struct Images {
    pub(crate) next: Next,
    images: RwLock<HandleMap<u64, Image>>,
    /// Image views: image and subresource range.
    views: RwLock<HandleMap<u64, (vk::Image, vk::ImageSubresourceRange)>>,
    /// Framebuffers: their attachments (none: imageless).
    framebuffers: RwLock<HandleMap<u64, Vec<vk::ImageView>>>,
    /// Render passes: their attachments.
    pub(crate) passes: RwLock<HandleMap<u64, Vec<PassAttachment>>>,
    /// Descriptor sets: storage images by (binding, element): view, layout.
    storage: RwLock<HandleMap<u64, SetImages>>,
    /// The snapshot of the current stop, if one was taken.
    pub(crate) taken: Slot<Taken>,
    /// Swapchains: what their images are like, and their images by index.
    swapchains: Mutex<HandleMap<u64, (Image, Vec<u64>)>>,
    /// Queues: their family.
    queues: RwLock<HandleMap<u64, u32>>,
    /// The device's physical device and the instance's
    /// `vkGetPhysicalDeviceSurfaceCapabilitiesKHR` (set at device creation).
    surface: std::sync::OnceLock<(vk::PhysicalDevice, SurfaceCapabilities)>,
}

type SurfaceCapabilities = vk::PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR;

/// Subresources of an application's image the submission reads first,
/// and the layout it expects them in.
#[derive(Clone, Copy)]
pub struct Kept {
    image: vk::Image,
    range: vk::ImageSubresourceRange,
    layout: vk::ImageLayout,
}

/// Copies of [`Kept`] subresources in images of the layer's own, which
/// share one allocation.
pub struct Taken {
    copies: Vec<(Kept, Image, vk::Image)>,
    memory: vk::DeviceMemory,
    /// The stages the submission's queue runs that may use the images.
    stages: vk::PipelineStageFlags,
}

/// What a submission reads first, and the stages its queue runs that may
/// have written it.
pub struct Plan {
    kept: Vec<Kept>,
    pub(crate) stages: vk::PipelineStageFlags,
}

/// The smallest allocation the layer makes for snapshots.
pub(crate) const MIN_ALLOCATION: u64 = 256 << 10;

/// This module's hooks.
pub fn intercepted(name: &[u8]) -> Option<Void> {
    match name {
        b"vkCreateImage" => hook!(PFN_vkCreateImage, create_image),
        b"vkDestroyImage" => hook!(PFN_vkDestroyImage, destroy_image),
        b"vkCreateImageView" => hook!(PFN_vkCreateImageView, create_image_view),
        b"vkDestroyImageView" => hook!(PFN_vkDestroyImageView, destroy_image_view),
        b"vkCreateFramebuffer" => hook!(PFN_vkCreateFramebuffer, create_framebuffer),
        b"vkDestroyFramebuffer" => hook!(PFN_vkDestroyFramebuffer, destroy_framebuffer),
        b"vkGetSwapchainImagesKHR" => hook!(PFN_vkGetSwapchainImagesKHR, get_swapchain_images),
        b"vkDestroySwapchainKHR" => hook!(PFN_vkDestroySwapchainKHR, destroy_swapchain),
        b"vkGetDeviceQueue" => hook!(PFN_vkGetDeviceQueue, get_device_queue),
        b"vkGetDeviceQueue2" => hook!(PFN_vkGetDeviceQueue2, get_device_queue2),
        _ => None,
    }
}

/// The aspects of a format (`None`: planes, which this module does not copy).
fn aspects(format: vk::Format) -> Option<vk::ImageAspectFlags> {
    use vk::Format as F;
    let raw = format.as_raw();
    if (1_000_156_000..=1_000_156_033).contains(&raw)
        || (1_000_330_000..=1_000_330_003).contains(&raw)
    {
        return None;
    }
    Some(match format {
        F::D16_UNORM | F::X8_D24_UNORM_PACK32 | F::D32_SFLOAT => vk::ImageAspectFlags::DEPTH,
        F::S8_UINT => vk::ImageAspectFlags::STENCIL,
        F::D16_UNORM_S8_UINT | F::D24_UNORM_S8_UINT | F::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    })
}

/// Whether an attachment of `format` with these load ops reads what the
/// image holds (the stencil load op counts only where there is stencil).
fn loads(format: vk::Format, load: vk::AttachmentLoadOp, stencil: vk::AttachmentLoadOp) -> bool {
    let a = aspects(format).unwrap_or(vk::ImageAspectFlags::COLOR);
    let color_or_depth = a.intersects(vk::ImageAspectFlags::COLOR | vk::ImageAspectFlags::DEPTH);
    (color_or_depth && load == vk::AttachmentLoadOp::LOAD)
        || (a.contains(vk::ImageAspectFlags::STENCIL) && stencil == vk::AttachmentLoadOp::LOAD)
}

/// A render pass create info (1 or 2): its attachments.
pub trait PassAttachments {
    /// # Safety
    /// The info is valid.
    unsafe fn pass_attachments(&self) -> Vec<PassAttachment>;
}

// The attachment descriptions of both create infos have the fields read here.
macro_rules! impl_pass_attachments {
    ($($info:ty),+) => {$(
        impl PassAttachments for $info {
            unsafe fn pass_attachments(&self) -> Vec<PassAttachment> {
                // SAFETY: a valid info names its attachments.
                unsafe { array(self.p_attachments, self.attachment_count) }
                    .iter()
                    .map(|a| PassAttachment {
                        loads: loads(a.format, a.load_op, a.stencil_load_op),
                        initial_layout: a.initial_layout,
                        final_layout: a.final_layout,
                        format: a.format,
                    })
                    .collect()
            }
        }
    )+};
}

impl_pass_attachments!(vk::RenderPassCreateInfo<'_>, vk::RenderPassCreateInfo2<'_>);

/// Remembers a render pass's attachments (called where render passes are
/// created, after a successful call).
pub fn remember_pass(d: &DeviceData, pass: vk::RenderPass, attachments: Vec<PassAttachment>) {
    dispatch::remember(
        &d.storage.images.passes,
        vk::Handle::as_raw(pass),
        attachments,
    );
}

/// The usage the layer adds to an image so that it can be copied both
/// ways, or why it adds none. Only images a submission could read first
/// (attachments, storage images) get it; transient attachments cannot
/// have it, and a `pNext` chain (external memory, explicit stencil
/// usage, format lists) may constrain the usage in ways the layer does
/// not check, so those are left as they are.
fn widened(info: &vk::ImageCreateInfo) -> Result<vk::ImageUsageFlags, &'static str> {
    let transfer = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    if info.usage.contains(transfer) {
        return Ok(info.usage);
    }
    if aspects(info.format).is_none() {
        return Err("its format has planes");
    }
    if info
        .usage
        .contains(vk::ImageUsageFlags::TRANSIENT_ATTACHMENT)
    {
        return Err("it is a transient attachment");
    }
    if !info.p_next.is_null() {
        return Err("its create info has a pNext chain the layer does not widen");
    }
    let read_first = vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        | vk::ImageUsageFlags::STORAGE;
    if !info.usage.intersects(read_first) {
        return Err("it was created without transfer usage");
    }
    Ok(info.usage | transfer)
}

/// [`dispatch::create`] with one of this module's next commands.
///
/// # Safety
/// As [`dispatch::create`].
unsafe fn create<I, H: vk::Handle + Copy>(
    dev: vk::Device,
    info: *const I,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
    pick: impl FnOnce(&Next) -> Option<dispatch::Create<I, H>>,
    keep: impl FnOnce(&DeviceData, &I, H),
) -> vk::Result {
    // SAFETY: per this function's contract.
    unsafe {
        dispatch::create(
            dev,
            info,
            allocator,
            out,
            |d| pick(&d.storage.images.next),
            keep,
        )
    }
}

unsafe extern "system" fn create_image(
    dev: vk::Device,
    info: *const vk::ImageCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Image,
) -> vk::Result {
    // SAFETY: the application's valid create info.
    let mut copy = unsafe { *info };
    let usage = widened(&copy);
    if let Ok(u) = usage {
        copy.usage = u;
    }
    let keep = |d: &DeviceData, copy: &vk::ImageCreateInfo, image: vk::Image| {
        let image_info = Image {
            image_type: copy.image_type,
            format: copy.format,
            extent: copy.extent,
            mip_levels: copy.mip_levels,
            array_layers: copy.array_layers,
            samples: copy.samples,
            usage: copy.usage,
            attachment: copy.usage
                & (vk::ImageUsageFlags::COLOR_ATTACHMENT
                    | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT),
            not_copyable: usage.err(),
        };
        dispatch::remember(
            &d.storage.images.images,
            vk::Handle::as_raw(image),
            image_info,
        );
    };
    // SAFETY: the application's arguments (the usage widened).
    unsafe { create(dev, &copy, allocator, out, |n| n.create_image, keep) }
}

dispatch::destroy_and_forget!(
    destroy_image,
    vk::Image,
    storage.images.next.destroy_image,
    storage.images.images
);

dispatch::create_and_remember!(
    create_image_view,
    ImageViewCreateInfo,
    ImageView,
    storage.images.next.create_image_view,
    storage.images.views,
    |info| (info.image, info.subresource_range)
);

dispatch::destroy_and_forget!(
    destroy_image_view,
    vk::ImageView,
    storage.images.next.destroy_image_view,
    storage.images.views
);

dispatch::create_and_remember!(
    create_framebuffer,
    FramebufferCreateInfo,
    Framebuffer,
    storage.images.next.create_framebuffer,
    storage.images.framebuffers,
    |info| {
        // Imageless framebuffers name no views.
        if info.flags.contains(vk::FramebufferCreateFlags::IMAGELESS) {
            Vec::new()
        } else {
            // SAFETY: a valid create info names its attachments.
            unsafe { array(info.p_attachments, info.attachment_count) }.to_vec()
        }
    }
);

dispatch::destroy_and_forget!(
    destroy_framebuffer,
    vk::Framebuffer,
    storage.images.next.destroy_framebuffer,
    storage.images.framebuffers
);

/// Why swapchain images are not kept for re-executions (screenshots copy
/// them; a snapshot would have to as well, which is not built).
const SWAPCHAIN_IMAGE: &str = "it is a swapchain image (not kept yet)";

impl Images {
    /// Remembers how to ask whether a surface lets its swapchain images be
    /// copied from (called at device creation).
    pub fn set_surface_query(
        &self,
        physical: vk::PhysicalDevice,
        query: Option<SurfaceCapabilities>,
    ) {
        if let Some(q) = query {
            let _ = self.surface.set((physical, q));
        }
    }

    /// The usage to create a swapchain with: the application's, plus
    /// transfer-source where the surface supports it and the create info
    /// has no `pNext` chain the layer does not check, so that screenshots
    /// can copy what is presented.
    pub fn swapchain_usage(&self, info: &vk::SwapchainCreateInfoKHR) -> vk::ImageUsageFlags {
        let usage = info.image_usage;
        let Some((physical, query)) = self.surface.get() else {
            return usage;
        };
        if !info.p_next.is_null()
            || info
                .flags
                .contains(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT)
        {
            return usage;
        }
        let mut caps = vk::SurfaceCapabilitiesKHR::default();
        // SAFETY: the device's physical device and the application's surface.
        let r = unsafe { query(*physical, info.surface, &mut caps) };
        let src = vk::ImageUsageFlags::TRANSFER_SRC;
        if r == vk::Result::SUCCESS && caps.supported_usage_flags.contains(src) {
            usage | src
        } else {
            usage
        }
    }

    fn remember_queue(&self, queue: vk::Queue, family: u32) {
        dispatch::remember(&self.queues, vk::Handle::as_raw(queue), family);
    }

    /// The family of a queue the application got.
    pub(crate) fn family_of(&self, queue: vk::Queue) -> Option<u32> {
        let queues = self.queues.read().unwrap_or_else(|e| e.into_inner());
        queues.get(&vk::Handle::as_raw(queue)).copied()
    }

    /// The image `index` of a swapchain, if the layer saw it.
    pub(crate) fn swapchain_image(
        &self,
        swapchain: vk::SwapchainKHR,
        index: u32,
    ) -> Option<vk::Image> {
        let chains = self.swapchains.lock().unwrap_or_else(|e| e.into_inner());
        let raw = *chains
            .get(&vk::Handle::as_raw(swapchain))?
            .1
            .get(index as usize)?;
        (raw != 0).then(|| vk::Handle::from_raw(raw))
    }

    /// Remembers a swapchain made from `info` (with `usage`), after the call.
    pub fn remember_swapchain(
        &self,
        swapchain: vk::SwapchainKHR,
        info: &vk::SwapchainCreateInfoKHR,
        usage: vk::ImageUsageFlags,
    ) {
        let image = Image {
            image_type: vk::ImageType::TYPE_2D,
            format: info.image_format,
            extent: vk::Extent3D {
                width: info.image_extent.width,
                height: info.image_extent.height,
                depth: 1,
            },
            usage,
            mip_levels: 1,
            array_layers: info.image_array_layers.max(1),
            samples: vk::SampleCountFlags::TYPE_1,
            attachment: usage & vk::ImageUsageFlags::COLOR_ATTACHMENT,
            not_copyable: Some(SWAPCHAIN_IMAGE),
        };
        let mut chains = self.swapchains.lock().unwrap_or_else(|e| e.into_inner());
        chains.insert(vk::Handle::as_raw(swapchain), (image, Vec::new()));
    }
}

unsafe extern "system" fn get_swapchain_images(
    dev: vk::Device,
    swapchain: vk::SwapchainKHR,
    count: *mut u32,
    out: *mut vk::Image,
) -> vk::Result {
    let Some((d, next)) = with_next(device(dev), |d| d.storage.images.next.get_swapchain_images)
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, down the chain.
    let result = unsafe { next(dev, swapchain, count, out) };
    let written = matches!(result, vk::Result::SUCCESS | vk::Result::INCOMPLETE);
    if written && !out.is_null() {
        // SAFETY: the chain wrote `*count` images.
        let images = unsafe { array(out, *count) };
        let ours = &d.storage.images;
        let mut chains = ours.swapchains.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((info, seen)) = chains.get_mut(&vk::Handle::as_raw(swapchain)) {
            let mut all = ours.images.write().unwrap_or_else(|e| e.into_inner());
            if seen.len() < images.len() {
                seen.resize(images.len(), 0);
            }
            for (i, image) in images.iter().enumerate() {
                let raw = vk::Handle::as_raw(*image);
                all.insert(raw, *info);
                seen[i] = raw;
            }
        }
    }
    result
}

unsafe extern "system" fn destroy_swapchain(
    dev: vk::Device,
    swapchain: vk::SwapchainKHR,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    let Some((d, next)) = with_next(device(dev), |d| d.storage.images.next.destroy_swapchain)
    else {
        return;
    };
    // SAFETY: the application's arguments, down the chain.
    unsafe { next(dev, swapchain, allocator) };
    let ours = &d.storage.images;
    let gone = {
        let mut chains = ours.swapchains.lock().unwrap_or_else(|e| e.into_inner());
        chains.remove(&vk::Handle::as_raw(swapchain))
    };
    if let Some((_, images)) = gone {
        let mut all = ours.images.write().unwrap_or_else(|e| e.into_inner());
        for raw in images {
            all.remove(&raw);
        }
    }
}

unsafe extern "system" fn get_device_queue(
    dev: vk::Device,
    family: u32,
    index: u32,
    out: *mut vk::Queue,
) {
    let Some((d, next)) = with_next(device(dev), |d| d.storage.images.next.get_device_queue) else {
        return;
    };
    // SAFETY: the application's arguments, down the chain.
    unsafe { next(dev, family, index, out) };
    // SAFETY: the chain wrote the queue.
    d.storage.images.remember_queue(unsafe { *out }, family);
}

unsafe extern "system" fn get_device_queue2(
    dev: vk::Device,
    info: *const vk::DeviceQueueInfo2<'_>,
    out: *mut vk::Queue,
) {
    let Some((d, next)) = with_next(device(dev), |d| d.storage.images.next.get_device_queue2)
    else {
        return;
    };
    // SAFETY: the application's arguments, down the chain.
    unsafe { next(dev, info, out) };
    // SAFETY: a valid info; the chain wrote the queue (null if none).
    let (queue, family) = unsafe { (*out, (*info).queue_family_index) };
    if queue != vk::Queue::null() {
        d.storage.images.remember_queue(queue, family);
    }
}

/// The first thing a submission does with an image, as far as its
/// contents go: reads them in a layout, or does not need them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum First {
    Reads(vk::ImageLayout),
    Discards,
}

/// Walks a submission's commands in order, noting each image's first use.
pub struct Walk<'a> {
    images: &'a Images,
    /// Storage images bound count as read first (a pipeline may write them).
    storage_images: bool,
    /// A screenshot's walk: images that cannot be kept do not matter.
    screenshot: bool,
    first: HashMap<u64, First>,
    /// Subresources read first, with their image's first layout.
    reads: Vec<Kept>,
    /// The submission draws: its queue runs graphics stages.
    graphics: bool,
    /// Each image's layout after the commands walked so far.
    last: HashMap<u64, vk::ImageLayout>,
    /// The colour attachment a screenshot shows: the first colour
    /// attachment of the largest render area (the last of equal ones).
    target: Option<(u64, vk::ImageView)>,
}

/// The image a screenshot of a submission shows, and the layout the
/// submission leaves it in.
pub struct Target {
    pub image: vk::Image,
    /// The view's first mip level and layer.
    pub subresource: vk::ImageSubresourceLayers,
    pub layout: vk::ImageLayout,
}

impl Walk<'_> {
    /// The image and full range of a view, or why it cannot be copied.
    fn view(&self, view: vk::ImageView) -> Result<(vk::Image, vk::ImageSubresourceRange), Error> {
        let views = self.images.views.read().unwrap_or_else(|e| e.into_inner());
        let &(image, range) = views
            .get(&vk::Handle::as_raw(view))
            .ok_or(Error::Unseen("its view was not seen created"))?;
        let images = self.images.images.read().unwrap_or_else(|e| e.into_inner());
        let info = images
            .get(&vk::Handle::as_raw(image))
            .ok_or(Error::Unseen("its image was not seen created"))?;
        if let Some(why) = info.not_copyable {
            return Err(Error::NotCopyable(why));
        }
        let mut range = range;
        range.aspect_mask = aspects(info.format).ok_or(Error::Cannot("its format has planes"))?;
        if range.level_count == vk::REMAINING_MIP_LEVELS {
            range.level_count = info.mip_levels.saturating_sub(range.base_mip_level);
        }
        if info.image_type == vk::ImageType::TYPE_3D {
            // A 3D image's slices are its depth: the whole mip is copied.
            range.base_array_layer = 0;
            range.layer_count = 1;
        } else if range.layer_count == vk::REMAINING_ARRAY_LAYERS {
            range.layer_count = info.array_layers.saturating_sub(range.base_array_layer);
        }
        Ok((image, range))
    }

    /// An image used with its contents read (`reads`) or not, in `layout`.
    fn used(
        &mut self,
        image: vk::Image,
        range: vk::ImageSubresourceRange,
        layout: vk::ImageLayout,
        reads: bool,
    ) -> Result<(), Error> {
        let first = *self.first.entry(vk::Handle::as_raw(image)).or_insert(
            if layout == vk::ImageLayout::UNDEFINED {
                First::Discards
            } else {
                First::Reads(layout)
            },
        );
        if !reads {
            return Ok(());
        }
        let First::Reads(layout) = first else {
            // The submission wrote it before reading it.
            return Ok(());
        };
        if layout == vk::ImageLayout::PREINITIALIZED {
            return Err(Error::Cannot(
                "it is in the preinitialized layout, which a copy cannot return it to",
            ));
        }
        // One copy per image, of every subresource read (two barriers on
        // one subresource in one command would be invalid).
        match self.reads.iter_mut().find(|k| k.image == image) {
            Some(k) => k.range = union(k.range, range),
            None => self.reads.push(Kept {
                image,
                range,
                layout,
            }),
        }
        Ok(())
    }

    /// A view used as an attachment.
    fn attachment(
        &mut self,
        view: vk::ImageView,
        layout: vk::ImageLayout,
        reads: bool,
    ) -> Result<(), Error> {
        if view == vk::ImageView::null() {
            return Ok(());
        }
        match self.view(view) {
            Ok((image, range)) => self.used(image, range, layout, reads),
            // An attachment the pass does not read needs no copy.
            Err(_) if !reads || self.screenshot => Ok(()),
            Err(why) => Err(why),
        }
    }

    /// Storage images bound or pushed (views in layouts): a shader may read
    /// them before writing them.
    fn storage_read(&mut self, images: Vec<(vk::ImageView, vk::ImageLayout)>) -> Result<(), Error> {
        for (view, layout) in images {
            self.attachment(view, layout, true).map_err(|why| {
                why.within("a storage image its shaders could write cannot be kept")
            })?;
        }
        Ok(())
    }

    /// The image a view shows, if the view was seen created.
    fn image_of(&self, view: vk::ImageView) -> Option<vk::Image> {
        let views = self.images.views.read().unwrap_or_else(|e| e.into_inner());
        views
            .get(&vk::Handle::as_raw(view))
            .map(|(image, _)| *image)
    }

    /// A view left in `layout` (the end of a render pass or of dynamic
    /// rendering).
    fn left_in(&mut self, view: vk::ImageView, layout: vk::ImageLayout) {
        if let Some(image) = self.image_of(view) {
            self.last.insert(vk::Handle::as_raw(image), layout);
        }
    }

    /// A render area drawn in with `view` as its first colour attachment.
    fn drawn_in(&mut self, area: vk::Rect2D, view: vk::ImageView) {
        if view == vk::ImageView::null() {
            return;
        }
        let size = u64::from(area.extent.width) * u64::from(area.extent.height);
        if self.target.is_none_or(|(s, _)| size >= s) {
            self.target = Some((size, view));
        }
    }

    /// What a screenshot of the commands walked shows, or why there is none.
    pub fn target(&self) -> Result<Target, Error> {
        let (_, view) = self.target.ok_or(Error::Cannot(
            "the submission draws in no render pass with a colour attachment",
        ))?;
        let views = self.images.views.read().unwrap_or_else(|e| e.into_inner());
        let &(image, range) = views.get(&vk::Handle::as_raw(view)).ok_or(Error::Unseen(
            "its colour attachment's view was not seen created",
        ))?;
        let layout = self
            .last
            .get(&vk::Handle::as_raw(image))
            .copied()
            .ok_or(Error::Cannot(
                "the layout its colour attachment is left in is unknown",
            ))?;
        Ok(Target {
            image,
            subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: range.base_mip_level,
                base_array_layer: range.base_array_layer,
                layer_count: 1,
            },
            layout,
        })
    }

    /// A layout transition or a command naming the image's layout.
    fn layout_named(&mut self, image: vk::Image, layout: vk::ImageLayout) {
        self.last.insert(vk::Handle::as_raw(image), layout);
        self.first.entry(vk::Handle::as_raw(image)).or_insert(
            if layout == vk::ImageLayout::UNDEFINED {
                First::Discards
            } else {
                First::Reads(layout)
            },
        );
    }

    /// The subresources read first so far, and the stages that may have
    /// written them before (the graphics stages only on a queue that
    /// draws: a compute queue has none).
    pub fn plan(self) -> Plan {
        let mut stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
        if self.graphics {
            stages |= vk::PipelineStageFlags::VERTEX_SHADER
                | vk::PipelineStageFlags::FRAGMENT_SHADER
                | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS
                | vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
        }
        Plan {
            kept: self.reads,
            stages,
        }
    }

    /// Notes what the submission's next command does with images, or why
    /// an image it reads first cannot be kept.
    ///
    /// # Safety
    /// `cmd`'s pointers point into a live recording.
    pub unsafe fn command(&mut self, cmd: &Cmd) -> Result<(), Error> {
        let storage_images = self.storage_images;
        self.graphics |= match *cmd {
            Cmd::CmdBeginRenderPass(_)
            | Cmd::CmdBeginRenderPass2(_)
            | Cmd::CmdBeginRendering(_) => true,
            Cmd::CmdBindPipeline(a) => a.pipeline_bind_point == vk::PipelineBindPoint::GRAPHICS,
            _ => false,
        };
        match *cmd {
            Cmd::CmdBeginRenderPass(a) => {
                // SAFETY: per this function's contract.
                unsafe { self.render_pass(&*a.p_render_pass_begin.cast()) }.map_err(|why| {
                    why.within("a render pass loads an attachment that cannot be kept")
                })
            }
            Cmd::CmdBeginRenderPass2(a) => {
                // SAFETY: per this function's contract.
                unsafe { self.render_pass(&*a.p_render_pass_begin.cast()) }.map_err(|why| {
                    why.within("a render pass loads an attachment that cannot be kept")
                })
            }
            Cmd::CmdBeginRendering(a) => {
                // SAFETY: per this function's contract.
                let info = unsafe { &*a.p_rendering_info.cast::<vk::RenderingInfo>() };
                // SAFETY: as above (null or valid).
                let colors =
                    unsafe { array(info.p_color_attachments, info.color_attachment_count) };
                // SAFETY: as above.
                let depth = unsafe { info.p_depth_attachment.as_ref() };
                // SAFETY: as above.
                let stencil = unsafe { info.p_stencil_attachment.as_ref() };
                for at in colors.iter().chain(depth).chain(stencil) {
                    self.attachment(
                        at.image_view,
                        at.image_layout,
                        at.load_op == vk::AttachmentLoadOp::LOAD,
                    )
                    .map_err(|why| {
                        why.within("dynamic rendering loads an attachment that cannot be kept")
                    })?;
                    // Dynamic rendering changes no layout.
                    self.left_in(at.image_view, at.image_layout);
                }
                if let Some(first) = colors
                    .iter()
                    .find(|c| c.image_view != vk::ImageView::null())
                {
                    self.drawn_in(info.render_area, first.image_view);
                }
                Ok(())
            }
            Cmd::CmdPipelineBarrier(a) => {
                // SAFETY: per this function's contract.
                let barriers = unsafe {
                    array(
                        a.p_image_memory_barriers.cast::<vk::ImageMemoryBarrier>(),
                        a.image_memory_barrier_count,
                    )
                };
                for b in barriers {
                    self.layout_named(b.image, b.old_layout);
                    self.last.insert(vk::Handle::as_raw(b.image), b.new_layout);
                }
                Ok(())
            }
            Cmd::CmdPipelineBarrier2(a) => {
                // SAFETY: per this function's contract.
                let info = unsafe { &*a.p_dependency_info.cast::<vk::DependencyInfo>() };
                // SAFETY: as above.
                let barriers = unsafe {
                    array(
                        info.p_image_memory_barriers,
                        info.image_memory_barrier_count,
                    )
                };
                for b in barriers {
                    self.layout_named(b.image, b.old_layout);
                    self.last.insert(vk::Handle::as_raw(b.image), b.new_layout);
                }
                Ok(())
            }
            Cmd::CmdCopyImage(a) => {
                self.layout_named(a.src_image, a.src_image_layout);
                self.layout_named(a.dst_image, a.dst_image_layout);
                Ok(())
            }
            Cmd::CmdBlitImage(a) => {
                self.layout_named(a.src_image, a.src_image_layout);
                self.layout_named(a.dst_image, a.dst_image_layout);
                Ok(())
            }
            Cmd::CmdClearColorImage(a) => {
                self.layout_named(a.image, a.image_layout);
                Ok(())
            }
            Cmd::CmdClearDepthStencilImage(a) => {
                self.layout_named(a.image, a.image_layout);
                Ok(())
            }
            Cmd::CmdCopyBufferToImage(a) => {
                self.layout_named(a.dst_image, a.dst_image_layout);
                Ok(())
            }
            Cmd::CmdCopyImageToBuffer(a) => {
                self.layout_named(a.src_image, a.src_image_layout);
                Ok(())
            }
            Cmd::CmdBindDescriptorSets(a) if storage_images => {
                // SAFETY: the recording holds `descriptor_set_count` sets.
                let sets = unsafe {
                    array(
                        a.p_descriptor_sets.cast::<vk::DescriptorSet>(),
                        a.descriptor_set_count,
                    )
                };
                let bound: Vec<(vk::ImageView, vk::ImageLayout)> = {
                    let storage = self
                        .images
                        .storage
                        .read()
                        .unwrap_or_else(|e| e.into_inner());
                    sets.iter()
                        .filter_map(|s| storage.get(&vk::Handle::as_raw(*s)))
                        .flat_map(|m| m.values().copied())
                        .collect()
                };
                self.storage_read(bound)
            }
            Cmd::CmdPushDescriptorSetKHR(_) if storage_images => {
                // SAFETY: per this function's contract.
                let writes = unsafe { cmd.pushed_writes() };
                let pushed = storage_images_of(writes).map(|(_, image)| image).collect();
                self.storage_read(pushed)
            }
            _ => Ok(()),
        }
    }

    /// # Safety
    /// `begin` and what it points to are valid.
    unsafe fn render_pass(&mut self, begin: &vk::RenderPassBeginInfo) -> Result<(), Error> {
        let attachments = {
            let passes = self.images.passes.read().unwrap_or_else(|e| e.into_inner());
            passes
                .get(&vk::Handle::as_raw(begin.render_pass))
                .cloned()
                .ok_or(Error::Unseen("its render pass was not seen created"))?
        };
        let loads = attachments.iter().any(|a| a.loads);
        let views = {
            let fbs = self
                .images
                .framebuffers
                .read()
                .unwrap_or_else(|e| e.into_inner());
            fbs.get(&vk::Handle::as_raw(begin.framebuffer)).cloned()
        };
        let mut views = match views {
            Some(v) => v,
            None if loads => return Err(Error::Unseen("its framebuffer was not seen created")),
            None => return Ok(()),
        };
        if views.is_empty() {
            // Imageless: the views travel with the begin info.
            let mut p = begin.p_next.cast::<vk::BaseInStructure>();
            // SAFETY: a valid chain, deep-copied with the recording.
            while let Some(s) = unsafe { p.as_ref() } {
                if s.s_type == vk::StructureType::RENDER_PASS_ATTACHMENT_BEGIN_INFO {
                    // SAFETY: the structure its type names.
                    let info = unsafe { &*p.cast::<vk::RenderPassAttachmentBeginInfo>() };
                    // SAFETY: it names `attachment_count` views.
                    views = unsafe { array(info.p_attachments, info.attachment_count) }.to_vec();
                }
                p = s.p_next;
            }
        }
        for (i, a) in attachments.iter().enumerate() {
            let view = views.get(i).copied().unwrap_or_default();
            self.attachment(view, a.initial_layout, a.loads)?;
            self.left_in(view, a.final_layout);
        }
        // The first colour attachment (the first with a colour format: the
        // subpasses' references are not kept).
        let color = attachments
            .iter()
            .position(|a| aspects(a.format) == Some(vk::ImageAspectFlags::COLOR));
        if let Some(view) = color.and_then(|i| views.get(i)) {
            self.drawn_in(begin.render_area, *view);
        }
        Ok(())
    }
}

impl Images {
    pub fn new(next: Next) -> Self {
        Images {
            next,
            ..Default::default()
        }
    }

    /// What the layer knows of an image it saw created.
    pub(crate) fn image(&self, image: vk::Image) -> Option<Image> {
        let images = self.images.read().unwrap_or_else(|e| e.into_inner());
        images.get(&vk::Handle::as_raw(image)).copied()
    }

    /// Remembers the storage images of descriptor writes (after the call).
    pub fn remember_writes(&self, writes: &[vk::WriteDescriptorSet]) {
        let mut storage = self.storage.write().unwrap_or_else(|e| e.into_inner());
        for ((set, binding, element), image) in storage_images_of(writes) {
            let set = storage.entry(vk::Handle::as_raw(set)).or_default();
            set.insert((binding, element), image);
        }
    }

    /// A walk over a submission's commands (see [`Walk::command`]); with
    /// `storage_images`, the storage images bound count as read first.
    pub fn walk(&self, storage_images: bool) -> Walk<'_> {
        Walk {
            images: self,
            storage_images,
            screenshot: false,
            first: HashMap::new(),
            reads: Vec::new(),
            graphics: false,
            last: HashMap::new(),
            target: None,
        }
    }

    /// A walk that finds what a screenshot shows ([`Walk::target`]), not
    /// stopped by images that cannot be kept.
    pub fn screenshot_walk(&self) -> Walk<'_> {
        Walk {
            screenshot: true,
            ..self.walk(false)
        }
    }

    /// Takes a snapshot of `plan`'s subresources (replacing the last one).
    ///
    /// # Safety
    /// The images are alive; nothing pending writes them (submission order
    /// on `queue` is respected: the copy waits for earlier work).
    pub unsafe fn take(
        &self,
        data: &DeviceData,
        queue: vk::Queue,
        family: u32,
        plan: Plan,
    ) -> Result<(), Error> {
        // SAFETY: nothing uses the last snapshot any more.
        unsafe { self.taken.free(data) };
        if plan.kept.is_empty() {
            return Ok(());
        }
        // SAFETY: the device is alive.
        let taken = unsafe { self.copies(data, plan)? };
        // SAFETY: per this function's contract.
        if let Err(why) = unsafe { taken.copy(data, queue, family, false) } {
            // SAFETY: the copy was waited for (or never submitted).
            unsafe { taken.free(data) };
            return Err(why);
        }
        self.taken.put(taken);
        Ok(())
    }

    /// Images of the layer's own that hold `plan`'s subresources, in one
    /// allocation (at least [`MIN_ALLOCATION`] bytes: drivers prefer few
    /// large allocations).
    ///
    /// # Safety
    /// The device is alive.
    unsafe fn copies(&self, data: &DeviceData, plan: Plan) -> Result<Taken, Error> {
        let n = &self.next;
        let (Some(create), Some(reqs), Some(alloc), Some(bind)) = (
            n.create_image,
            n.get_image_memory_requirements,
            n.allocate_memory,
            n.bind_image_memory,
        ) else {
            return Err(Error::Lacks("an image command"));
        };
        let mut taken = Taken {
            copies: Vec::new(),
            memory: vk::DeviceMemory::null(),
            stages: plan.stages,
        };
        let mut placed = Vec::new();
        let (mut size, mut types) = (0u64, u32::MAX);
        for k in plan.kept {
            let info = {
                let images = self.images.read().unwrap_or_else(|e| e.into_inner());
                images.get(&vk::Handle::as_raw(k.image)).copied()
            };
            let Some(info) = info else {
                // SAFETY: none of them was used.
                unsafe { taken.free(data) };
                return Err(Error::Unseen("an image this layer did not see created"));
            };
            let r = k.range;
            let create_info = vk::ImageCreateInfo::default()
                .image_type(info.image_type)
                .format(info.format)
                .extent(mip_extent(info.extent, r.base_mip_level))
                .mip_levels(r.level_count.max(1))
                .array_layers(r.layer_count.max(1))
                .samples(info.samples)
                .tiling(vk::ImageTiling::OPTIMAL)
                .usage(
                    vk::ImageUsageFlags::TRANSFER_SRC
                        | vk::ImageUsageFlags::TRANSFER_DST
                        | info.attachment,
                )
                .initial_layout(vk::ImageLayout::UNDEFINED);
            let mut image = vk::Image::null();
            // SAFETY: a valid create info of the layer's own, down the chain.
            let res = unsafe { create(data.handle, &create_info, std::ptr::null(), &mut image) };
            if res != vk::Result::SUCCESS {
                // SAFETY: none of them was used.
                unsafe { taken.free(data) };
                return Err(Error::Vk {
                    what: "the snapshot image",
                    result: res,
                });
            }
            let mut req = vk::MemoryRequirements::default();
            // SAFETY: the image just made.
            unsafe { reqs(data.handle, image, &mut req) };
            let at = size.next_multiple_of(req.alignment.max(1));
            size = at + req.size;
            types &= req.memory_type_bits;
            placed.push(at);
            taken.copies.push((k, info, image));
        }
        let p = &data.pipelines;
        let index = p
            .memory_type(types, vk::MemoryPropertyFlags::DEVICE_LOCAL)
            .or_else(|| p.memory_type(types, vk::MemoryPropertyFlags::empty()));
        let Some(index) = index else {
            // SAFETY: none of them was used.
            unsafe { taken.free(data) };
            return Err(Error::NoMemory("no memory type holds every snapshot image"));
        };
        let alloc_info = vk::MemoryAllocateInfo::default()
            .allocation_size(size.max(MIN_ALLOCATION))
            .memory_type_index(index);
        // SAFETY: a valid allocate info of the layer's own, down the chain.
        let res = unsafe {
            alloc(
                data.handle,
                &alloc_info,
                std::ptr::null(),
                &mut taken.memory,
            )
        };
        if res != vk::Result::SUCCESS {
            // SAFETY: none of them was used.
            unsafe { taken.free(data) };
            return Err(Error::Vk {
                what: "the snapshot images' memory",
                result: res,
            });
        }
        for ((_, _, image), at) in taken.copies.iter().zip(placed) {
            // SAFETY: each image at its own aligned offset in memory of a
            // type it accepts.
            let res = unsafe { bind(data.handle, *image, taken.memory, at) };
            if res != vk::Result::SUCCESS {
                // SAFETY: none of them was used.
                unsafe { taken.free(data) };
                return Err(Error::Vk {
                    what: "binding a snapshot image's memory",
                    result: res,
                });
            }
        }
        Ok(taken)
    }
}

impl Snapshot for Taken {
    /// Copies the kept subresources into the layer's images (`back`: from
    /// them into the application's, which are left in the layout the
    /// submission expects), submitted alone on `queue` and waited for.
    ///
    /// # Safety
    /// The images are alive; nothing pending writes them.
    unsafe fn copy(
        &self,
        data: &DeviceData,
        queue: vk::Queue,
        family: u32,
        back: bool,
    ) -> Result<(), Error> {
        let n = &data.storage.images.next;
        let (Some(copy), Some(barrier)) = (n.cmd_copy_image, n.cmd_pipeline_barrier) else {
            return Err(Error::Lacks("vkCmdCopyImage"));
        };
        let ours_range = |r: vk::ImageSubresourceRange| vk::ImageSubresourceRange {
            base_mip_level: 0,
            base_array_layer: 0,
            ..r
        };
        // Before: the application's image leaves its layout for the copy (going
        // back, its contents are all overwritten: from UNDEFINED, which is
        // right whatever layout the last execution left it in); ours too.
        let mut before = Vec::new();
        let mut after = Vec::new();
        for (k, _, ours) in &self.copies {
            let app = vk::ImageMemoryBarrier::default()
                .image(k.image)
                .subresource_range(k.range)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED);
            let mine = vk::ImageMemoryBarrier::default()
                .image(*ours)
                .subresource_range(ours_range(k.range))
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED);
            if back {
                // Whatever the last execution wrote, in whatever layout.
                before.push(
                    app.src_access_mask(vk::AccessFlags::MEMORY_WRITE)
                        .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                        .old_layout(vk::ImageLayout::UNDEFINED)
                        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL),
                );
                after.push(
                    app.src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                        .dst_access_mask(access(k.layout))
                        .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                        .new_layout(k.layout),
                );
            } else {
                before.push(
                    app.src_access_mask(access(k.layout) & WRITES)
                        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                        .old_layout(k.layout)
                        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
                );
                before.push(
                    mine.dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                        .old_layout(vk::ImageLayout::UNDEFINED)
                        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL),
                );
                after.push(
                    app.dst_access_mask(access(k.layout))
                        .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                        .new_layout(k.layout),
                );
                // Ours stays ready to be copied from.
                after.push(
                    mine.src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                        .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
                );
            }
        }
        // SAFETY: per this function's contract.
        unsafe {
            run_once(data, queue, family, "copying the images", &mut |cb| {
                let stages = (self.stages, vk::PipelineStageFlags::TRANSFER);
                pipeline_barrier(barrier, cb, stages, &[], &before);
                for (k, info, ours) in &self.copies {
                    let regions: Vec<vk::ImageCopy> = (0..k.range.level_count)
                        .map(|l| {
                            let layers = |mip: u32, base: u32| vk::ImageSubresourceLayers {
                                aspect_mask: k.range.aspect_mask,
                                mip_level: mip,
                                base_array_layer: base,
                                layer_count: k.range.layer_count,
                            };
                            let app = layers(k.range.base_mip_level + l, k.range.base_array_layer);
                            let mine = layers(l, 0);
                            let (src, dst) = if back { (mine, app) } else { (app, mine) };
                            vk::ImageCopy {
                                src_subresource: src,
                                src_offset: vk::Offset3D::default(),
                                dst_subresource: dst,
                                dst_offset: vk::Offset3D::default(),
                                extent: mip_extent(info.extent, k.range.base_mip_level + l),
                            }
                        })
                        .collect();
                    let (src, dst) = if back {
                        (*ours, k.image)
                    } else {
                        (k.image, *ours)
                    };
                    copy(
                        cb,
                        src,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        dst,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        regions.len() as u32,
                        regions.as_ptr(),
                    );
                }
                let stages = (vk::PipelineStageFlags::TRANSFER, self.stages);
                pipeline_barrier(barrier, cb, stages, &[], &after);
            })
        }
    }

    unsafe fn free(self, data: &DeviceData) {
        let n = &data.storage.images.next;
        // SAFETY: per the trait's contract.
        unsafe {
            for (_, _, image) in self.copies {
                if let Some(f) = n.destroy_image {
                    f(data.handle, image, std::ptr::null());
                }
            }
            if let (Some(f), false) = (n.free_memory, self.memory == vk::DeviceMemory::null()) {
                f(data.handle, self.memory, std::ptr::null());
            }
        }
    }
}

/// The writes among access flags.
pub(crate) const WRITES: vk::AccessFlags = vk::AccessFlags::from_raw(
    vk::AccessFlags::SHADER_WRITE.as_raw()
        | vk::AccessFlags::COLOR_ATTACHMENT_WRITE.as_raw()
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE.as_raw()
        | vk::AccessFlags::TRANSFER_WRITE.as_raw(),
);

/// The accesses an image in `layout` is used with (what a barrier into or
/// out of that layout names).
pub(crate) fn access(layout: vk::ImageLayout) -> vk::AccessFlags {
    use vk::AccessFlags as A;
    use vk::ImageLayout as L;
    match layout {
        L::COLOR_ATTACHMENT_OPTIMAL => A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE,
        L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
        | L::DEPTH_ATTACHMENT_OPTIMAL
        | L::STENCIL_ATTACHMENT_OPTIMAL
        | L::DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL
        | L::DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL => {
            A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE
        }
        L::DEPTH_STENCIL_READ_ONLY_OPTIMAL
        | L::DEPTH_READ_ONLY_OPTIMAL
        | L::STENCIL_READ_ONLY_OPTIMAL => A::DEPTH_STENCIL_ATTACHMENT_READ | A::SHADER_READ,
        L::SHADER_READ_ONLY_OPTIMAL => A::SHADER_READ | A::INPUT_ATTACHMENT_READ,
        L::TRANSFER_SRC_OPTIMAL => A::TRANSFER_READ,
        L::TRANSFER_DST_OPTIMAL => A::TRANSFER_WRITE,
        L::GENERAL => A::SHADER_READ | A::SHADER_WRITE | A::TRANSFER_READ | A::TRANSFER_WRITE,
        _ => A::empty(),
    }
}

/// The smallest range holding both (same aspects: a format's).
fn union(a: vk::ImageSubresourceRange, b: vk::ImageSubresourceRange) -> vk::ImageSubresourceRange {
    let span = |base_a: u32, n_a: u32, base_b: u32, n_b: u32| {
        let base = base_a.min(base_b);
        let end = (base_a + n_a).max(base_b + n_b);
        (base, end - base)
    };
    let (base_mip_level, level_count) = span(
        a.base_mip_level,
        a.level_count,
        b.base_mip_level,
        b.level_count,
    );
    let (base_array_layer, layer_count) = span(
        a.base_array_layer,
        a.layer_count,
        b.base_array_layer,
        b.layer_count,
    );
    vk::ImageSubresourceRange {
        aspect_mask: a.aspect_mask | b.aspect_mask,
        base_mip_level,
        level_count,
        base_array_layer,
        layer_count,
    }
}

/// The extent of mip `level` of an image of `extent`.
fn mip_extent(extent: vk::Extent3D, level: u32) -> vk::Extent3D {
    let m = |v: u32| v.checked_shr(level).unwrap_or(0).max(1);
    vk::Extent3D {
        width: m(extent.width),
        height: m(extent.height),
        depth: m(extent.depth),
    }
}

/// The storage images `writes` write (views in layouts), by (set, binding,
/// element).
fn storage_images_of<'a>(
    writes: &'a [vk::WriteDescriptorSet<'a>],
) -> impl Iterator<
    Item = (
        (vk::DescriptorSet, u32, u32),
        (vk::ImageView, vk::ImageLayout),
    ),
> + 'a {
    writes
        .iter()
        .filter(|w| w.descriptor_type == vk::DescriptorType::STORAGE_IMAGE)
        .flat_map(|w| {
            // SAFETY: storage image writes name `descriptor_count` image infos.
            let infos = unsafe { array(w.p_image_info, w.descriptor_count) };
            (0u32..).zip(infos).map(move |(i, info)| {
                let at = (w.dst_set, w.dst_binding, w.dst_array_element + i);
                (at, (info.image_view, info.image_layout))
            })
        })
}
