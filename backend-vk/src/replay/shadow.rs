//! Shadow command buffers: this layer's own command buffers, recorded from
//! a replay-buffer recording, submitted in place of the application's. A
//! primary that executes secondary command buffers (`vkCmdExecuteCommands`)
//! executes shadows of them instead, secondaries of the layer's pool
//! recorded from their recordings with their inheritance info.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

use ash::vk;

use super::{replay_one, Cmd, DeviceReplay};
use crate::error::{check, Error};
use crate::loader::SetDeviceLoaderData;

/// A shadow command buffer and the pool it came from, with the shadows of
/// the secondary command buffers it executes.
#[derive(Clone, Debug)]
pub struct Shadow {
    pub cb: vk::CommandBuffer,
    pool: vk::CommandPool,
    secondaries: Vec<vk::CommandBuffer>,
}

/// The layer's pools by queue family (held locked while any is used).
type Pools = HashMap<u32, vk::CommandPool>;

/// This layer's command pools, one per queue family (a pool is externally
/// synchronized: the mutex is held while any of its buffers is recorded
/// or freed).
#[derive(Default)]
pub struct Shadows {
    pools: Mutex<HashMap<u32, vk::CommandPool>>,
    pub set_loader_data: Option<SetDeviceLoaderData>,
}

impl DeviceReplay {
    /// Records a shadow of the application's `cb`: the same commands, in a
    /// command buffer of this layer's own, ready to submit on a queue of
    /// the same family.
    ///
    /// # Safety
    /// `device` is this replay buffer's device; `cb` is in the executable
    /// state (the application is submitting it).
    ///
    /// `substitute` sees each command first, in the order the buffer runs
    /// them (a secondary's after the `vkCmdExecuteCommands` that executes
    /// it, with the secondary's shadow), and may record its own version
    /// instead (it returns whether it did).
    pub unsafe fn shadow(
        &self,
        device: vk::Device,
        cb: vk::CommandBuffer,
        substitute: &mut dyn FnMut(vk::CommandBuffer, &Cmd) -> Result<bool, Error>,
    ) -> Result<Shadow, Error> {
        let family = self.family_of_first(std::slice::from_ref(&cb))?;
        let mut pools = self.shadows.pools.lock().unwrap_or_else(|e| e.into_inner());
        let mut secondaries = Vec::new();
        // SAFETY: per this function's contract.
        let made =
            unsafe { self.shadow_in(&mut pools, device, family, cb, substitute, &mut secondaries) };
        match made {
            Ok(made) => Ok(Shadow {
                secondaries,
                ..made
            }),
            Err(why) => {
                // SAFETY: buffers of the layer's pool, never submitted.
                unsafe { self.free_in(&pools, device, family, &secondaries) };
                Err(why)
            }
        }
    }

    /// [`Self::shadow`] with the pools locked; the shadows of secondaries
    /// are pushed on `secondaries`.
    ///
    /// # Safety
    /// As [`Self::shadow`].
    unsafe fn shadow_in(
        &self,
        pools: &mut Pools,
        device: vk::Device,
        family: u32,
        cb: vk::CommandBuffer,
        substitute: &mut dyn FnMut(vk::CommandBuffer, &Cmd) -> Result<bool, Error>,
        secondaries: &mut Vec<vk::CommandBuffer>,
    ) -> Result<Shadow, Error> {
        let rec = self.recording(cb).ok_or(Error::Unseen(
            "a command buffer this layer did not see allocated",
        ))?;
        let rec = rec.lock().unwrap_or_else(|e| e.into_inner());
        let cmds = rec.commands().map_err(|e| e.clone())?;
        let begin = rec
            .begin
            .ok_or(Error::Unseen("a command buffer never begun"))?;
        let mut replay = |shadow: vk::CommandBuffer, pools: &mut Pools| -> Result<(), Error> {
            for cmd in cmds {
                if substitute(shadow, cmd)? {
                    continue;
                }
                if let Cmd::CmdExecuteCommands(a) = cmd {
                    // SAFETY: the recording holds that many buffers.
                    let app = unsafe {
                        crate::dispatch::array(
                            a.p_command_buffers.cast::<vk::CommandBuffer>(),
                            a.command_buffer_count,
                        )
                    };
                    let mut theirs = Vec::with_capacity(app.len());
                    for s in app {
                        // SAFETY: a secondary executed by an executable
                        // buffer is executable.
                        let made = unsafe {
                            self.shadow_in(pools, device, family, *s, substitute, secondaries)?
                        };
                        secondaries.push(made.cb);
                        theirs.push(made.cb);
                    }
                    let execute = self
                        .next
                        .CmdExecuteCommands
                        .ok_or(Error::Lacks("vkCmdExecuteCommands"))?;
                    // SAFETY: the shadow is recording; its secondaries are
                    // executable.
                    unsafe { execute(shadow, theirs.len() as u32, theirs.as_ptr().cast()) };
                    continue;
                }
                // SAFETY: the recording is alive (its lock is held).
                unsafe { replay_one(&self.next, shadow, cmd) }?;
            }
            Ok(())
        };
        // SAFETY: the begin info recorded with the application's buffer.
        unsafe { self.recorded_in(pools, device, family, rec.level, begin.0, &mut replay) }
    }

    /// A command buffer of the layer's own for a queue of `family`, with
    /// what `record` records in it (ended, ready to submit once).
    ///
    /// # Safety
    /// `device` is this replay buffer's device.
    pub unsafe fn one_time(
        &self,
        device: vk::Device,
        family: u32,
        record: &mut dyn FnMut(vk::CommandBuffer),
    ) -> Result<Shadow, Error> {
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        let mut pools = self.shadows.pools.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: per this function's contract; a valid begin info.
        unsafe {
            self.recorded_in(
                &mut pools,
                device,
                family,
                vk::CommandBufferLevel::PRIMARY,
                &begin,
                &mut |cb, _| {
                    record(cb);
                    Ok(())
                },
            )
        }
    }

    /// A command buffer of the layer's own pool for `family` (made on first
    /// use), begun with `begin`, with what `record` records in it, ended;
    /// freed again if anything fails. The pools' lock is held throughout
    /// (a pool is externally synchronized): `pools`, which `record` gets to
    /// record secondaries in.
    ///
    /// # Safety
    /// `device` is this replay buffer's device; `begin` is valid.
    unsafe fn recorded_in(
        &self,
        pools: &mut Pools,
        device: vk::Device,
        family: u32,
        level: vk::CommandBufferLevel,
        begin: *const vk::CommandBufferBeginInfo<'_>,
        record: &mut dyn FnMut(vk::CommandBuffer, &mut Pools) -> Result<(), Error>,
    ) -> Result<Shadow, Error> {
        let life = &self.life;
        let (Some(create), Some(allocate), Some(begin_cb), Some(end_cb)) = (
            life.create_command_pool,
            life.allocate_command_buffers,
            life.begin_command_buffer,
            life.end_command_buffer,
        ) else {
            return Err(Error::Lacks("a command-buffer command"));
        };
        let set_loader_data = self.shadows.set_loader_data.ok_or(Error::NoLoaderData)?;
        let pool = match pools.get(&family) {
            Some(p) => *p,
            None => {
                let info = vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    // Shadows are freed, never reset; they live one submission.
                    .flags(vk::CommandPoolCreateFlags::TRANSIENT);
                let mut pool = vk::CommandPool::null();
                // SAFETY: a valid create info, down the chain.
                let r = unsafe { create(device, &info, std::ptr::null(), &mut pool) };
                check(r, "creating a command pool")?;
                pools.insert(family, pool);
                pool
            }
        };
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(level)
            .command_buffer_count(1);
        let mut cb = vk::CommandBuffer::null();
        // SAFETY: a valid allocate info for one buffer, down the chain.
        let r = unsafe { allocate(device, &info, &mut cb) };
        check(r, "allocating a command buffer")?;
        let mut filled = || -> Result<(), Error> {
            // A dispatchable object made below the loader needs its dispatch
            // table before anything is called on it.
            // SAFETY: a command buffer the chain below just created.
            let r =
                unsafe { set_loader_data(device, vk::Handle::as_raw(cb) as usize as *mut c_void) };
            check(r, "vkSetDeviceLoaderData")?;
            // SAFETY: per this function's contract.
            let r = unsafe { begin_cb(cb, begin) };
            check(r, "beginning the buffer")?;
            record(cb, pools)?;
            // SAFETY: the buffer is recording.
            let r = unsafe { end_cb(cb) };
            check(r, "ending the buffer")?;
            Ok(())
        };
        match filled() {
            Ok(()) => Ok(Shadow {
                cb,
                pool,
                secondaries: Vec::new(),
            }),
            Err(why) => {
                if let Some(free) = life.free_command_buffers {
                    // SAFETY: a buffer of this pool, not pending (a buffer may
                    // be freed while recording).
                    unsafe { free(device, pool, 1, &cb) };
                }
                Err(why)
            }
        }
    }

    /// The queue family of the pool `cb` was allocated from.
    pub fn family_of(&self, cb: vk::CommandBuffer) -> Option<u32> {
        let rec = self.recording(cb)?;
        let pool = rec.lock().unwrap_or_else(|e| e.into_inner()).pool;
        let pools = self.pools.read().unwrap_or_else(|e| e.into_inner());
        pools.get(&vk::Handle::as_raw(pool)).copied()
    }

    /// The queue family a submission of `cbs` runs on: that of the first.
    pub fn family_of_first(&self, cbs: &[vk::CommandBuffer]) -> Result<u32, Error> {
        let family = cbs.first().and_then(|cb| self.family_of(*cb));
        family.ok_or(Error::Unseen(
            "a command buffer this layer did not see allocated",
        ))
    }

    /// Destroys this layer's command pools (before the device goes).
    ///
    /// # Safety
    /// `device` is this replay buffer's device; no shadow is pending.
    pub unsafe fn destroy_pools(&self, device: vk::Device) {
        let mut pools = self.shadows.pools.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(destroy) = self.life.destroy_command_pool {
            for (_, pool) in pools.drain() {
                // SAFETY: a pool this layer created on `device`, idle.
                unsafe { destroy(device, pool, std::ptr::null()) };
            }
        }
    }

    /// Frees shadows recorded by [`DeviceReplay::shadow`] (with their
    /// secondaries).
    ///
    /// # Safety
    /// None of `shadows` is pending execution.
    pub unsafe fn free_shadows(&self, device: vk::Device, shadows: &[Shadow]) {
        let Some(free) = self.life.free_command_buffers else {
            return;
        };
        let _pools = self.shadows.pools.lock().unwrap_or_else(|e| e.into_inner());
        for s in shadows {
            // SAFETY: buffers of that pool, not pending (the contract).
            unsafe {
                free(device, s.pool, 1, &s.cb);
                if !s.secondaries.is_empty() {
                    let n = s.secondaries.len() as u32;
                    free(device, s.pool, n, s.secondaries.as_ptr());
                }
            }
        }
    }

    /// Frees `cbs`, buffers of the layer's pool for `family`.
    ///
    /// # Safety
    /// `pools` is the pools' lock held; none of `cbs` is pending.
    unsafe fn free_in(
        &self,
        pools: &Pools,
        device: vk::Device,
        family: u32,
        cbs: &[vk::CommandBuffer],
    ) {
        let (Some(free), Some(pool)) = (self.life.free_command_buffers, pools.get(&family)) else {
            return;
        };
        if !cbs.is_empty() {
            // SAFETY: per this function's contract.
            unsafe { free(device, *pool, cbs.len() as u32, cbs.as_ptr()) };
        }
    }
}
