//! Storage buffers a submission may write, kept as they were before it, so
//! that a stop's recording can run the submission again from the same
//! state: the layer tracks which buffers each descriptor set holds
//! (`vkUpdateDescriptorSets`) and each buffer's size (`vkCreateBuffer`,
//! which also gets transfer usage added to storage buffers so that they
//! can be copied), and copies the storage ranges bound by a submission's
//! command buffers before the hit test and back before each re-execution.
//! After the last re-execution the buffers hold what one execution gives.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};

use ash::vk;

use crate::dispatch::{self, array, device, with_next, DeviceData, HandleMap, Void};
use crate::error::{check, Error};
use crate::replay::Cmd;

dispatch::device_commands! {
    /// The next layer's commands this module uses, of one device.
    pub struct Next {
        create_buffer: PFN_vkCreateBuffer,
        destroy_buffer: PFN_vkDestroyBuffer,
        update_descriptor_sets: PFN_vkUpdateDescriptorSets,
        get_buffer_memory_requirements: PFN_vkGetBufferMemoryRequirements,
        allocate_memory: PFN_vkAllocateMemory,
        free_memory: PFN_vkFreeMemory,
        bind_buffer_memory: PFN_vkBindBufferMemory,
        cmd_copy_buffer: PFN_vkCmdCopyBuffer,
        cmd_pipeline_barrier: PFN_vkCmdPipelineBarrier,
    }
}

/// A storage range: buffer, offset, size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    pub buffer: vk::Buffer,
    pub offset: u64,
    pub size: u64,
}

/// A descriptor set's storage buffer ranges by (binding, array element).
type SetStorage = HashMap<(u32, u32), Range>;

/// What the layer knows of buffers and descriptor sets on one device.
#[derive(Default)]
pub struct Storage {
    pub next: Next,
    /// Buffers by handle: size, and whether they can be copied both ways.
    buffers: RwLock<HandleMap<u64, (u64, bool)>>,
    /// Descriptor sets by handle: storage buffer ranges by (binding, element).
    sets: RwLock<HandleMap<u64, SetStorage>>,
    /// The snapshot of the current stop, if one was taken.
    taken: Slot<Taken>,
    /// Images a submission may read first (attachments, storage images).
    pub images: crate::images::Images,
}

/// Copies of storage ranges in a buffer of the layer's own.
pub struct Taken {
    ranges: Vec<(Range, u64)>,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

/// This module's hooks.
pub fn intercepted(name: &[u8]) -> Option<Void> {
    match name {
        b"vkCreateBuffer" => hook!(PFN_vkCreateBuffer, create_buffer),
        b"vkDestroyBuffer" => hook!(PFN_vkDestroyBuffer, destroy_buffer),
        b"vkUpdateDescriptorSets" => hook!(PFN_vkUpdateDescriptorSets, update_descriptor_sets),
        other => crate::images::intercepted(other),
    }
}

unsafe extern "system" fn create_buffer(
    dev: vk::Device,
    info: *const vk::BufferCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Buffer,
) -> vk::Result {
    // Storage buffers can also be copied from and to (snapshots); the
    // usage changes nothing else the application sees.
    // SAFETY: the application's valid create info.
    let mut copy = unsafe { *info };
    let storage = copy.usage.contains(vk::BufferUsageFlags::STORAGE_BUFFER);
    if storage {
        copy.usage |= vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
    }
    let keep = |d: &DeviceData, copy: &vk::BufferCreateInfo, buffer| {
        dispatch::remember(
            &d.storage.buffers,
            vk::Handle::as_raw(buffer),
            (copy.size, storage),
        );
    };
    // SAFETY: the application's arguments (the usage widened).
    unsafe {
        dispatch::create(
            dev,
            &copy,
            allocator,
            out,
            |d| d.storage.next.create_buffer,
            keep,
        )
    }
}

dispatch::destroy_and_forget!(
    destroy_buffer,
    vk::Buffer,
    storage.next.destroy_buffer,
    storage.buffers
);

unsafe extern "system" fn update_descriptor_sets(
    dev: vk::Device,
    write_count: u32,
    writes: *const vk::WriteDescriptorSet<'_>,
    copy_count: u32,
    copies: *const vk::CopyDescriptorSet<'_>,
) {
    let Some((d, next)) = with_next(device(dev), |d| d.storage.next.update_descriptor_sets) else {
        return;
    };
    // SAFETY: the application's arguments, down the chain.
    unsafe { next(dev, write_count, writes, copy_count, copies) };
    // SAFETY: the application names `write_count` writes.
    let writes = unsafe { array(writes, write_count) };
    d.storage.images.remember_writes(writes);
    let mut sets = d.storage.sets.write().unwrap_or_else(|e| e.into_inner());
    for ((set, binding, element), range) in storage_ranges(writes) {
        let set = sets.entry(vk::Handle::as_raw(set)).or_default();
        set.insert((binding, element), range);
    }
}

impl Storage {
    /// With this module's commands and the image snapshots'.
    pub fn new(next: Next, images: crate::images::Next) -> Self {
        Storage {
            images: crate::images::Images::new(images),
            next,
            ..Default::default()
        }
    }

    /// The storage ranges the recorded commands bind or push (whole
    /// buffers for `VK_WHOLE_SIZE` and dynamic offsets), or why they cannot
    /// all be copied.
    pub fn bound(&self, cmds: &[Cmd]) -> Result<Vec<Range>, Error> {
        let sets = self.sets.read().unwrap_or_else(|e| e.into_inner());
        let buffers = self.buffers.read().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        // A storage range to keep: the whole buffer where `whole`.
        let mut keep = |r: &Range, whole: bool| -> Result<(), Error> {
            let Some(&(size, copyable)) = buffers.get(&vk::Handle::as_raw(r.buffer)) else {
                return Err(Error::Unseen(
                    "a storage buffer this layer did not see created",
                ));
            };
            if !copyable {
                return Err(Error::Cannot(
                    "a storage buffer the layer could not make copyable",
                ));
            }
            let range = match whole || r.size == vk::WHOLE_SIZE {
                true => Range {
                    buffer: r.buffer,
                    offset: 0,
                    size,
                },
                false => *r,
            };
            if !out.contains(&range) {
                out.push(range);
            }
            Ok(())
        };
        for cmd in cmds {
            match cmd {
                Cmd::CmdBindDescriptorSets(a) => {
                    // SAFETY: the recording is alive (the caller's).
                    for s in unsafe { cmd.bound_sets() } {
                        let set = sets.get(&vk::Handle::as_raw(*s));
                        for r in set.into_iter().flat_map(|m| m.values()) {
                            // Dynamic offsets move the range: keep the whole buffer.
                            keep(r, a.dynamic_offset_count > 0)?;
                        }
                    }
                }
                // Push descriptors: the writes hold the ranges.
                Cmd::CmdPushDescriptorSetKHR(_) => {
                    // SAFETY: the recording is alive (the caller's).
                    for (_, r) in storage_ranges(unsafe { cmd.pushed_writes() }) {
                        keep(&r, false)?;
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

/// The storage buffer ranges `writes` write, by (set, binding, element).
fn storage_ranges<'a>(
    writes: &'a [vk::WriteDescriptorSet<'a>],
) -> impl Iterator<Item = ((vk::DescriptorSet, u32, u32), Range)> + 'a {
    writes
        .iter()
        .filter(|w| {
            let storage = matches!(
                w.descriptor_type,
                vk::DescriptorType::STORAGE_BUFFER | vk::DescriptorType::STORAGE_BUFFER_DYNAMIC
            );
            storage && !w.p_buffer_info.is_null()
        })
        .flat_map(|w| {
            // SAFETY: storage buffer writes name `descriptor_count` buffer infos.
            let infos = unsafe { array(w.p_buffer_info, w.descriptor_count) };
            (0u32..).zip(infos).map(move |(i, b)| {
                let at = (w.dst_set, w.dst_binding, w.dst_array_element + i);
                let range = Range {
                    buffer: b.buffer,
                    offset: b.offset,
                    size: b.range,
                };
                (at, range)
            })
        })
}

/// Records what `record` records into a one-time command buffer of the
/// layer's own, submits it alone on `queue` (of `family`) and waits for
/// the queue to be idle; `what` names the work in the error.
///
/// # Safety
/// What `record` records is valid on `queue`; what it uses is alive and
/// not in use by the device.
pub(crate) unsafe fn run_once(
    data: &DeviceData,
    queue: vk::Queue,
    family: u32,
    what: &'static str,
    record: &mut dyn FnMut(vk::CommandBuffer),
) -> Result<(), Error> {
    let submit = data.queue_submit.ok_or(Error::Lacks("vkQueueSubmit"))?;
    // SAFETY: per this function's contract; the command buffer is freed
    // once the queue is idle.
    unsafe {
        let made = data.replay.one_time(data.handle, family, record)?;
        let cbs = [made.cb];
        let info = vk::SubmitInfo::default().command_buffers(&cbs);
        let r = submit(queue, 1, &info, vk::Fence::null());
        if let Some(wait) = data.replay.life.queue_wait_idle {
            let _ = wait(queue);
        }
        data.replay.free_shadows(data.handle, &[made]);
        check(r, what)?;
    }
    Ok(())
}

/// Records a pipeline barrier from the `src` to the `dst` stages with these
/// global memory barriers and image barriers (none on buffers).
///
/// # Safety
/// `barrier` is the device's `vkCmdPipelineBarrier`; `cb` is recording.
pub(crate) unsafe fn pipeline_barrier(
    barrier: vk::PFN_vkCmdPipelineBarrier,
    cb: vk::CommandBuffer,
    (src, dst): (vk::PipelineStageFlags, vk::PipelineStageFlags),
    memory: &[vk::MemoryBarrier<'_>],
    images: &[vk::ImageMemoryBarrier<'_>],
) {
    // SAFETY: per this function's contract; each count is its slice's.
    unsafe {
        barrier(
            cb,
            src,
            dst,
            vk::DependencyFlags::empty(),
            memory.len() as u32,
            memory.as_ptr(),
            0,
            std::ptr::null(),
            images.len() as u32,
            images.as_ptr(),
        )
    }
}

impl Storage {
    /// Takes a snapshot of `ranges` (replacing the last one).
    ///
    /// # Safety
    /// The ranges' buffers are alive and not in use by the device.
    pub unsafe fn take(
        &self,
        data: &DeviceData,
        queue: vk::Queue,
        family: u32,
        ranges: &[Range],
    ) -> Result<(), Error> {
        // SAFETY: nothing uses the last snapshot any more.
        unsafe { self.drop_taken(data) };
        if ranges.is_empty() {
            return Ok(());
        }
        let mut placed = Vec::new();
        let mut size = 0u64;
        for r in ranges {
            placed.push((*r, size));
            size += r.size.next_multiple_of(256);
        }
        let mut taken = Taken {
            ranges: placed,
            buffer: vk::Buffer::null(),
            memory: vk::DeviceMemory::null(),
        };
        // SAFETY: the buffers are alive and not in use (this function's
        // contract).
        let made = unsafe {
            self.make(data, &mut taken, size)
                .and_then(|()| taken.copy(data, queue, family, false))
        };
        if let Err(why) = made {
            // SAFETY: the copy was waited for (or never submitted).
            unsafe { taken.free(data) };
            return Err(why);
        }
        self.taken.put(taken);
        Ok(())
    }

    /// Makes `taken`'s buffer, of `size` bytes, and its memory (what is made
    /// is in `taken` even where a later step fails).
    ///
    /// # Safety
    /// The device is alive.
    unsafe fn make(&self, data: &DeviceData, taken: &mut Taken, size: u64) -> Result<(), Error> {
        let n = &self.next;
        let (Some(create), Some(reqs), Some(alloc), Some(bind)) = (
            n.create_buffer,
            n.get_buffer_memory_requirements,
            n.allocate_memory,
            n.bind_buffer_memory,
        ) else {
            return Err(Error::Lacks("a buffer command"));
        };
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create infos of the layer's own, down the chain.
        unsafe {
            let r = create(data.handle, &info, std::ptr::null(), &mut taken.buffer);
            check(r, "the snapshot buffer")?;
            let mut req = vk::MemoryRequirements::default();
            reqs(data.handle, taken.buffer, &mut req);
            let index = data
                .pipelines
                .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())
                .ok_or(Error::NoMemory("no memory for the snapshot"))?;
            let info = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(index);
            let r = crate::fault::out_of_memory_or(crate::fault::Fault::SnapshotMemory, || {
                alloc(data.handle, &info, std::ptr::null(), &mut taken.memory)
            });
            check(r, "the snapshot's memory")?;
            let _ = bind(data.handle, taken.buffer, taken.memory, 0);
        }
        Ok(())
    }

    /// Puts the snapshot back into the application's buffers and images.
    ///
    /// # Safety
    /// They are alive and not in use by the device.
    pub unsafe fn restore(
        &self,
        data: &DeviceData,
        queue: vk::Queue,
        family: u32,
    ) -> Result<(), Error> {
        // SAFETY: per this function's contract.
        unsafe {
            self.taken.restore(data, queue, family)?;
            self.images.taken.restore(data, queue, family)
        }
    }

    /// Frees the snapshot (buffers and images).
    ///
    /// # Safety
    /// Nothing pending uses it.
    pub unsafe fn drop_taken(&self, data: &DeviceData) {
        // SAFETY: per this function's contract.
        unsafe {
            self.images.taken.free(data);
            self.taken.free(data);
        }
    }
}

impl Snapshot for Taken {
    /// Copies `ranges` into a buffer of the layer's own (`back`: from it into
    /// the application's buffers), submitted alone on `queue` and waited for.
    ///
    /// # Safety
    /// The ranges' buffers are alive and not in use by the device.
    unsafe fn copy(
        &self,
        data: &DeviceData,
        queue: vk::Queue,
        family: u32,
        back: bool,
    ) -> Result<(), Error> {
        let n = &data.storage.next;
        let (Some(copy), Some(barrier)) = (n.cmd_copy_buffer, n.cmd_pipeline_barrier) else {
            return Err(Error::Lacks("vkCmdCopyBuffer"));
        };
        // SAFETY: per this function's contract.
        unsafe {
            run_once(data, queue, family, "copying the storage", &mut |cb| {
                // The copies wait for earlier work on the queue to have written
                // (or read: going back) the buffers; a fence or an idle queue
                // makes writes available, not visible to the transfer.
                let earlier = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
                    .dst_access_mask(
                        vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE,
                    );
                let stages = (
                    vk::PipelineStageFlags::ALL_COMMANDS,
                    vk::PipelineStageFlags::TRANSFER,
                );
                pipeline_barrier(barrier, cb, stages, &[earlier], &[]);
                for (r, at) in &self.ranges {
                    let region = vk::BufferCopy {
                        src_offset: if back { *at } else { r.offset },
                        dst_offset: if back { r.offset } else { *at },
                        size: r.size,
                    };
                    let (src, dst) = if back {
                        (self.buffer, r.buffer)
                    } else {
                        (r.buffer, self.buffer)
                    };
                    copy(cb, src, dst, 1, &region);
                }
                // The copies are done before anything submitted after them.
                let all = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE);
                let stages = (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::ALL_COMMANDS,
                );
                pipeline_barrier(barrier, cb, stages, &[all], &[]);
            })
        }
    }

    unsafe fn free(self, data: &DeviceData) {
        let n = &data.storage.next;
        // SAFETY: per the trait's contract.
        unsafe {
            if let Some(f) = n.destroy_buffer {
                f(data.handle, self.buffer, std::ptr::null());
            }
            if let Some(f) = n.free_memory {
                f(data.handle, self.memory, std::ptr::null());
            }
        }
    }
}

/// A snapshot of the application's buffers or images, copied from them
/// when taken and into them before each re-execution.
pub(crate) trait Snapshot {
    /// Copies from the application's buffers or images (`back`: into
    /// them), submitted alone on `queue` (of `family`) and waited for.
    ///
    /// # Safety
    /// They are alive and not in use by the device.
    unsafe fn copy(
        &self,
        data: &DeviceData,
        queue: vk::Queue,
        family: u32,
        back: bool,
    ) -> Result<(), Error>;

    /// Frees what the layer made for it.
    ///
    /// # Safety
    /// Nothing pending uses it.
    unsafe fn free(self, data: &DeviceData);
}

/// The snapshot of the current stop, if one was taken.
pub(crate) struct Slot<T>(Mutex<Option<T>>);

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot(Mutex::new(None))
    }
}

impl<T: Snapshot> Slot<T> {
    /// Keeps `t` as the current snapshot.
    pub(crate) fn put(&self, t: T) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(t);
    }

    /// Puts the snapshot, if any, back.
    ///
    /// # Safety
    /// As [`Snapshot::copy`].
    pub(crate) unsafe fn restore(
        &self,
        data: &DeviceData,
        queue: vk::Queue,
        family: u32,
    ) -> Result<(), Error> {
        let taken = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match &*taken {
            // SAFETY: per this function's contract.
            Some(t) => unsafe { t.copy(data, queue, family, true) },
            None => Ok(()),
        }
    }

    /// Frees the snapshot, if any.
    ///
    /// # Safety
    /// As [`Snapshot::free`].
    pub(crate) unsafe fn free(&self, data: &DeviceData) {
        let taken = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(t) = taken {
            // SAFETY: per this function's contract.
            unsafe { t.free(data) };
        }
    }
}
