//! The commands that start, end and forget recordings: command pools and
//! command buffers. Like every hook, each calls down first with the
//! application's arguments and only then updates the replay buffer.

use std::mem::{align_of, size_of};
use std::sync::{Arc, Mutex};

use ash::vk;

use super::{fix_VkCommandBufferBeginInfo, BeginInfo, Recording};
use crate::dispatch::{self, device, Void};

dispatch::device_commands! {
    /// The next layer's command-buffer and pool commands of one device.
    pub struct Next {
        pub create_command_pool: PFN_vkCreateCommandPool,
        pub destroy_command_pool: PFN_vkDestroyCommandPool,
        pub reset_command_pool: PFN_vkResetCommandPool,
        pub allocate_command_buffers: PFN_vkAllocateCommandBuffers,
        pub free_command_buffers: PFN_vkFreeCommandBuffers,
        pub begin_command_buffer: PFN_vkBeginCommandBuffer,
        pub end_command_buffer: PFN_vkEndCommandBuffer,
        pub reset_command_buffer: PFN_vkResetCommandBuffer,
        pub queue_wait_idle: PFN_vkQueueWaitIdle,
    }
}

/// This layer's version of a device command that keeps the replay buffer,
/// if it is one: the lifecycle commands here and every `vkCmd*`.
pub fn intercepted(name: &[u8]) -> Option<Void> {
    match name {
        b"vkCreateCommandPool" => hook!(PFN_vkCreateCommandPool, create_command_pool),
        b"vkDestroyCommandPool" => hook!(PFN_vkDestroyCommandPool, destroy_command_pool),
        b"vkResetCommandPool" => hook!(PFN_vkResetCommandPool, reset_command_pool),
        b"vkAllocateCommandBuffers" => {
            hook!(PFN_vkAllocateCommandBuffers, allocate_command_buffers)
        }
        b"vkFreeCommandBuffers" => hook!(PFN_vkFreeCommandBuffers, free_command_buffers),
        b"vkBeginCommandBuffer" => hook!(PFN_vkBeginCommandBuffer, begin_command_buffer),
        b"vkEndCommandBuffer" => hook!(PFN_vkEndCommandBuffer, end_command_buffer),
        b"vkResetCommandBuffer" => hook!(PFN_vkResetCommandBuffer, reset_command_buffer),
        _ => super::hook(name).map(|f| {
            // SAFETY: a function pointer, as the untyped PFN_vkVoidFunction.
            unsafe { std::mem::transmute::<*const (), Void>(f) }
        }),
    }
}

dispatch::create_and_remember!(
    create_command_pool,
    CommandPoolCreateInfo,
    CommandPool,
    replay.life.create_command_pool,
    replay.pools,
    |info| info.queue_family_index
);

/// Forgets the recordings of `pool`'s command buffers (all of them, or
/// only reset them).
fn for_pool(d: &dispatch::DeviceData, pool: vk::CommandPool, forget: bool) {
    let mut map = d
        .replay
        .recordings
        .write()
        .unwrap_or_else(|e| e.into_inner());
    map.retain(|_, rec| {
        let mut rec = rec.lock().unwrap_or_else(|e| e.into_inner());
        if rec.pool != pool {
            return true;
        }
        rec.reset();
        !forget
    });
}

unsafe extern "system" fn destroy_command_pool(
    dev: vk::Device,
    pool: vk::CommandPool,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    let forget = |d: &dispatch::DeviceData, raw| {
        for_pool(d, pool, true);
        dispatch::forget(&d.replay.pools, raw);
    };
    // SAFETY: the application's arguments.
    unsafe {
        dispatch::destroy(
            dev,
            pool,
            allocator,
            |d| d.replay.life.destroy_command_pool,
            forget,
        )
    }
}

unsafe extern "system" fn reset_command_pool(
    dev: vk::Device,
    pool: vk::CommandPool,
    flags: vk::CommandPoolResetFlags,
) -> vk::Result {
    let Some((d, next)) = dispatch::with_next(device(dev), |d| d.replay.life.reset_command_pool)
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, down the chain.
    let result = unsafe { next(dev, pool, flags) };
    if result == vk::Result::SUCCESS {
        for_pool(&d, pool, false);
    }
    result
}

unsafe extern "system" fn allocate_command_buffers(
    dev: vk::Device,
    info: *const vk::CommandBufferAllocateInfo<'_>,
    out: *mut vk::CommandBuffer,
) -> vk::Result {
    let Some((d, next)) =
        dispatch::with_next(device(dev), |d| d.replay.life.allocate_command_buffers)
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, down the chain.
    let result = unsafe { next(dev, info, out) };
    if result == vk::Result::SUCCESS {
        // SAFETY: on success `out` holds `command_buffer_count` handles.
        let (info, cbs) = unsafe {
            let info = &*info;
            (
                info,
                std::slice::from_raw_parts(out, info.command_buffer_count as usize),
            )
        };
        let mut map = d
            .replay
            .recordings
            .write()
            .unwrap_or_else(|e| e.into_inner());
        for cb in cbs {
            let rec = Recording {
                pool: info.command_pool,
                level: info.level,
                ..Default::default()
            };
            map.insert(vk::Handle::as_raw(*cb), Arc::new(Mutex::new(rec)));
        }
    }
    result
}

unsafe extern "system" fn free_command_buffers(
    dev: vk::Device,
    pool: vk::CommandPool,
    count: u32,
    cbs: *const vk::CommandBuffer,
) {
    let Some((d, next)) = dispatch::with_next(device(dev), |d| d.replay.life.free_command_buffers)
    else {
        return;
    };
    // SAFETY: the application's arguments, down the chain.
    unsafe { next(dev, pool, count, cbs) };
    // SAFETY: the application passed `count` handles.
    let cbs = unsafe { dispatch::array(cbs, count) };
    let mut map = d
        .replay
        .recordings
        .write()
        .unwrap_or_else(|e| e.into_inner());
    for cb in cbs {
        map.remove(&vk::Handle::as_raw(*cb));
    }
}

unsafe extern "system" fn begin_command_buffer(
    cb: vk::CommandBuffer,
    info: *const vk::CommandBufferBeginInfo<'_>,
) -> vk::Result {
    let Some((d, next)) = dispatch::with_next(device(cb), |d| d.replay.life.begin_command_buffer)
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, down the chain.
    let result = unsafe { next(cb, info) };
    if result != vk::Result::SUCCESS {
        return result;
    }
    if let Some(rec) = d.replay.recording(cb) {
        let mut rec = rec.lock().unwrap_or_else(|e| e.into_inner());
        // Beginning resets a command buffer implicitly.
        rec.reset();
        let Recording { arena, .. } = &mut *rec;
        // SAFETY: the application's valid begin info, copied deeply.
        let copied = unsafe {
            let q = arena.copy(
                info.cast(),
                size_of::<vk::CommandBufferBeginInfo>(),
                align_of::<vk::CommandBufferBeginInfo>(),
            );
            fix_VkCommandBufferBeginInfo(arena, q.cast_mut()).map(|()| q)
        };
        match copied {
            Ok(q) => rec.begin = Some(BeginInfo(q.cast())),
            Err(why) => rec.not_replayable = Some(why),
        }
    }
    result
}

unsafe extern "system" fn end_command_buffer(cb: vk::CommandBuffer) -> vk::Result {
    let Some((d, next)) = dispatch::with_next(device(cb), |d| d.replay.life.end_command_buffer)
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, down the chain.
    let result = unsafe { next(cb) };
    if let Some(rec) = d.replay.recording(cb) {
        let mut rec = rec.lock().unwrap_or_else(|e| e.into_inner());
        rec.ended = result == vk::Result::SUCCESS && rec.begin.is_some();
    }
    result
}

unsafe extern "system" fn reset_command_buffer(
    cb: vk::CommandBuffer,
    flags: vk::CommandBufferResetFlags,
) -> vk::Result {
    let Some((d, next)) = dispatch::with_next(device(cb), |d| d.replay.life.reset_command_buffer)
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, down the chain.
    let result = unsafe { next(cb, flags) };
    if result == vk::Result::SUCCESS {
        if let Some(rec) = d.replay.recording(cb) {
            rec.lock().unwrap_or_else(|e| e.into_inner()).reset();
        }
    }
    result
}
