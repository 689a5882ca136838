//! Screenshots of a stopped submission: the colour attachment it last drew
//! in with the largest render area (`images::Walk::target`), as the
//! submission left it (the hit test ran in place of the application's
//! buffers, and each re-execution leaves what one execution leaves). The
//! image is copied into a host-visible buffer of the layer's own, between
//! barriers that take it out of the layout the submission left it in and
//! back into it, so the application finds it as it would without us.

use ash::vk;

use crate::dispatch::DeviceData;
use crate::error::{check, Error};
use crate::images::Target;
use crate::snapshots::{pipeline_barrier, run_once};

/// A screenshot: RGBA8, bottom row first (the protocol's order).
pub struct Shot {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// The smallest allocation the best practices accept for one buffer.
const DEDICATED_MIN: u64 = 1 << 20;

/// How texels of `format` become RGBA8 (`None`: not converted).
#[derive(Clone, Copy)]
enum Order {
    Rgba,
    Bgra,
}

fn order(format: vk::Format) -> Option<Order> {
    use vk::Format as F;
    match format {
        F::R8G8B8A8_UNORM | F::R8G8B8A8_SRGB => Some(Order::Rgba),
        F::B8G8R8A8_UNORM | F::B8G8R8A8_SRGB => Some(Order::Bgra),
        _ => None,
    }
}

/// A format's name (ash's `Debug` is not built in), `VkFormat N` for rare ones.
pub(crate) fn format_name(format: vk::Format) -> String {
    use vk::Format as F;
    let name = match format {
        F::R8G8B8A8_SNORM => "VK_FORMAT_R8G8B8A8_SNORM",
        F::R8G8B8A8_UINT => "VK_FORMAT_R8G8B8A8_UINT",
        F::R8_UNORM => "VK_FORMAT_R8_UNORM",
        F::R8G8_UNORM => "VK_FORMAT_R8G8_UNORM",
        F::A2B10G10R10_UNORM_PACK32 => "VK_FORMAT_A2B10G10R10_UNORM_PACK32",
        F::A2R10G10B10_UNORM_PACK32 => "VK_FORMAT_A2R10G10B10_UNORM_PACK32",
        F::B10G11R11_UFLOAT_PACK32 => "VK_FORMAT_B10G11R11_UFLOAT_PACK32",
        F::R16G16B16A16_SFLOAT => "VK_FORMAT_R16G16B16A16_SFLOAT",
        F::R16G16B16A16_UNORM => "VK_FORMAT_R16G16B16A16_UNORM",
        F::R32G32B32A32_SFLOAT => "VK_FORMAT_R32G32B32A32_SFLOAT",
        F::R32_SFLOAT => "VK_FORMAT_R32_SFLOAT",
        _ => return format!("VkFormat {}", format.as_raw()),
    };
    name.into()
}

/// A screenshot of what `cbs` (the stopped submission's buffers) drew.
///
/// # Safety
/// `cbs` are executable (the application waits in their submission) and
/// nothing is pending on `queue`.
pub unsafe fn now(
    data: &DeviceData,
    queue: vk::Queue,
    cbs: &[vk::CommandBuffer],
) -> Result<Shot, Error> {
    let mut walk = data.storage.images.screenshot_walk();
    for cb in cbs {
        // SAFETY: recorded arguments point into the recording.
        data.replay.walk(*cb, &mut |c| unsafe { walk.command(c) })?;
    }
    let target = walk.target()?;
    let stages = walk.plan().stages;
    let family = data.replay.family_of_first(cbs)?;
    // SAFETY: per this function's contract.
    unsafe { read(data, queue, family, &target, stages) }
        .map_err(|why| why.within("the colour attachment the submission drew in"))
}

/// A screenshot at the end of a frame of a program without a swapchain:
/// what the submission of `cbs` that ends it drew, once it completed.
///
/// # Safety
/// As [`now`], `cbs` having just been submitted to `queue`.
pub unsafe fn after_submit(
    data: &DeviceData,
    queue: vk::Queue,
    cbs: &[vk::CommandBuffer],
) -> Result<Shot, Error> {
    if let Some(wait) = data.replay.life.queue_wait_idle {
        // SAFETY: a queue of this device, used by the submitting thread.
        let _ = unsafe { wait(queue) };
    }
    // SAFETY: the queue is idle; the buffers were just submitted.
    unsafe { now(data, queue, cbs) }
}

/// A screenshot at a present: the first swapchain image `info` presents,
/// as it is presented (before the present goes down the chain). The
/// present queue is waited for, so the rendering submitted to it is done
/// (rendering on another queue is not waited for).
///
/// # Safety
/// `info` is the application's valid present info for `queue`.
pub unsafe fn at_present(
    data: &DeviceData,
    queue: vk::Queue,
    info: &vk::PresentInfoKHR,
) -> Result<Shot, Error> {
    if info.swapchain_count == 0 || info.p_swapchains.is_null() || info.p_image_indices.is_null() {
        return Err(Error::Cannot("the present names no swapchain"));
    }
    // SAFETY: a valid info names `swapchain_count` swapchains and indices.
    let (swapchain, index) = unsafe { (*info.p_swapchains, *info.p_image_indices) };
    let images = &data.storage.images;
    let image = images
        .swapchain_image(swapchain, index)
        .ok_or(Error::Unseen(
            "the presented image was not seen (vkGetSwapchainImagesKHR)",
        ))?;
    let family = images.family_of(queue).ok_or(Error::Unseen(
        "the present queue was not seen (vkGetDeviceQueue)",
    ))?;
    if let Some(wait) = data.replay.life.queue_wait_idle {
        // SAFETY: the application's queue, used by the presenting thread.
        let _ = unsafe { wait(queue) };
    }
    let target = Target {
        image,
        subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        },
        layout: vk::ImageLayout::PRESENT_SRC_KHR,
    };
    // The host waited for the queue: only the copy's own stages matter.
    // SAFETY: the image is alive and nothing pending on the queue uses it.
    unsafe {
        read(
            data,
            queue,
            family,
            &target,
            vk::PipelineStageFlags::TRANSFER,
        )
    }
    .map_err(|why| why.within("the presented image"))
}

/// The layer's own buffer and its memory, freed when dropped.
struct Staging<'a> {
    data: &'a DeviceData,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        let n = &self.data.storage.images.next;
        // SAFETY: the layer's own objects, no longer in use (the queue was
        // waited for, or nothing was submitted).
        unsafe {
            if let (Some(f), false) = (n.destroy_buffer, self.buffer == vk::Buffer::null()) {
                f(self.data.handle, self.buffer, std::ptr::null());
            }
            if let (Some(f), false) = (n.free_memory, self.memory == vk::DeviceMemory::null()) {
                f(self.data.handle, self.memory, std::ptr::null());
            }
        }
    }
}

/// Copies `target` into a host-visible buffer and converts it; `stages`:
/// those of the queue that may use the image.
///
/// # Safety
/// As [`now`]; `target.image` is alive.
unsafe fn read(
    data: &DeviceData,
    queue: vk::Queue,
    family: u32,
    target: &Target,
    stages: vk::PipelineStageFlags,
) -> Result<Shot, Error> {
    let info = data
        .storage
        .images
        .image(target.image)
        .ok_or(Error::Unseen("its image was not seen created"))?;
    if info.samples != vk::SampleCountFlags::TYPE_1 {
        return Err(Error::Cannot(
            "it is multisampled (a copy needs one sample per pixel)",
        ));
    }
    if !info.usage.contains(vk::ImageUsageFlags::TRANSFER_SRC) {
        return Err(Error::Cannot(
            "its image cannot be copied: it has no transfer-source usage",
        ));
    }
    let order = order(info.format).ok_or(Error::NotRgba(info.format.as_raw()))?;
    if target.layout == vk::ImageLayout::UNDEFINED
        || target.layout == vk::ImageLayout::PREINITIALIZED
    {
        return Err(Error::Cannot(
            "the submission leaves it in an undefined layout",
        ));
    }
    let m = |v: u32| {
        v.checked_shr(target.subresource.mip_level)
            .unwrap_or(0)
            .max(1)
    };
    let (width, height) = (m(info.extent.width), m(info.extent.height));
    let size = u64::from(width) * u64::from(height) * 4;
    let n = &data.storage.images.next;
    let (
        Some(create),
        Some(reqs),
        Some(alloc),
        Some(bind),
        Some(map),
        Some(unmap),
        Some(barrier),
        Some(copy),
    ) = (
        n.create_buffer,
        n.get_buffer_memory_requirements,
        n.allocate_memory,
        n.bind_buffer_memory,
        n.map_memory,
        n.unmap_memory,
        n.cmd_pipeline_barrier,
        n.cmd_copy_image_to_buffer,
    )
    else {
        return Err(Error::Lacks("a buffer or copy command"));
    };
    let mut staging = Staging {
        data,
        buffer: vk::Buffer::null(),
        memory: vk::DeviceMemory::null(),
    };
    let buffer_info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(vk::BufferUsageFlags::TRANSFER_DST)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: valid infos of the layer's own, down the chain; each object
    // is used only after it was made.
    unsafe {
        let r = create(
            data.handle,
            &buffer_info,
            std::ptr::null(),
            &mut staging.buffer,
        );
        check(r, "a buffer to copy it into")?;
        let mut req = vk::MemoryRequirements::default();
        reqs(data.handle, staging.buffer, &mut req);
        let coherent =
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let index = data
            .pipelines
            .memory_type(req.memory_type_bits, coherent)
            .ok_or(Error::NoMemory(
                "no host-coherent memory type holds the buffer",
            ))?;
        let alloc_info = vk::MemoryAllocateInfo::default()
            // The validation layer's best practices call smaller ones, and
            // ones the buffer fills below 1 MiB, wasteful.
            .allocation_size(req.size.max(DEDICATED_MIN))
            .memory_type_index(index);
        let r = alloc(
            data.handle,
            &alloc_info,
            std::ptr::null(),
            &mut staging.memory,
        );
        check(r, "memory to copy it into")?;
        let r = bind(data.handle, staging.buffer, staging.memory, 0);
        check(r, "binding the buffer's memory")?;
        let range = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: target.subresource.mip_level,
            level_count: 1,
            base_array_layer: target.subresource.base_array_layer,
            layer_count: 1,
        };
        let image_barrier = vk::ImageMemoryBarrier::default()
            .image(target.image)
            .subresource_range(range)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED);
        // Out of the layout the submission left it in (whatever wrote it
        // before), and back into it for whatever the application does next.
        let layout_access = crate::images::access(target.layout);
        let before = [image_barrier
            .src_access_mask(layout_access & crate::images::WRITES)
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
            .old_layout(target.layout)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)];
        let after = [image_barrier
            .src_access_mask(vk::AccessFlags::empty())
            .dst_access_mask(layout_access)
            .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .new_layout(target.layout)];
        let to_host = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: target.subresource,
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D {
                width,
                height,
                depth: 1,
            },
        };
        let (buffer, image) = (staging.buffer, target.image);
        run_once(data, queue, family, "submitting the copy", &mut |cb| {
            let to_transfer = (stages, vk::PipelineStageFlags::TRANSFER);
            pipeline_barrier(barrier, cb, to_transfer, &[], &before);
            copy(
                cb,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buffer,
                1,
                &region,
            );
            let from_transfer = (
                vk::PipelineStageFlags::TRANSFER,
                stages | vk::PipelineStageFlags::HOST,
            );
            pipeline_barrier(barrier, cb, from_transfer, &to_host, &after);
        })?;
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        let r = map(
            data.handle,
            staging.memory,
            0,
            size,
            vk::MemoryMapFlags::empty(),
            &mut p,
        );
        if r != vk::Result::SUCCESS || p.is_null() {
            return Err(Error::Vk {
                what: "mapping the copy",
                result: r,
            });
        }
        let texels = std::slice::from_raw_parts(p.cast::<u8>(), size as usize);
        let rgba = converted(texels, width, height, order);
        unmap(data.handle, staging.memory);
        Ok(Shot {
            width,
            height,
            rgba,
        })
    }
}

/// Tightly packed 4-byte texels, top row first (Vulkan's row 0 is the
/// top), as RGBA8 with the bottom row first.
fn converted(texels: &[u8], width: u32, height: u32, order: Order) -> Vec<u8> {
    let row = width as usize * 4;
    let mut out = Vec::with_capacity(texels.len());
    for y in (0..height as usize).rev() {
        for t in texels[y * row..(y + 1) * row].chunks_exact(4) {
            match order {
                Order::Rgba => out.extend_from_slice(t),
                Order::Bgra => out.extend_from_slice(&[t[2], t[1], t[0], t[3]]),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_flipped_and_bgra_swizzled() {
        // 1x2: top texel then bottom texel, as Vulkan lays them out.
        let texels = [1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(
            converted(&texels, 1, 2, Order::Rgba),
            vec![5, 6, 7, 8, 1, 2, 3, 4]
        );
        assert_eq!(
            converted(&texels, 1, 2, Order::Bgra),
            vec![7, 6, 5, 8, 3, 2, 1, 4]
        );
    }
}
