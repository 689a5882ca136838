//! Per-instance and per-device dispatch: the next layer's entry points for
//! every instance and device this layer has seen, keyed by the loader's
//! dispatch key (shared by an instance and its physical devices, and by a
//! device and its queues and command buffers).

use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Condvar, Mutex, OnceLock, RwLock};

use ash::vk;

use crate::loader::dispatch_key;

pub struct InstanceData {
    pub handle: vk::Instance,
    pub get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    pub destroy_instance: Option<vk::PFN_vkDestroyInstance>,
}

pub struct DeviceData {
    pub handle: vk::Device,
    pub get_device_proc_addr: vk::PFN_vkGetDeviceProcAddr,
    pub destroy_device: Option<vk::PFN_vkDestroyDevice>,
    pub create_shader_module: Option<vk::PFN_vkCreateShaderModule>,
    pub queue_present: Option<vk::PFN_vkQueuePresentKHR>,
    pub queue_submit: Option<vk::PFN_vkQueueSubmit>,
    pub queue_submit2: Option<vk::PFN_vkQueueSubmit2>,
    pub create_swapchain: Option<vk::PFN_vkCreateSwapchainKHR>,
    pub device_wait_idle: Option<vk::PFN_vkDeviceWaitIdle>,
    /// Submissions being debugged, which the device's teardown waits for.
    pub busy: Busy,
    /// Frames ended so far: the number of the next frame to end.
    pub frames: AtomicU64,
    /// The program made a swapchain: frames end at presents; until then
    /// (a program without a window), at every submission.
    pub presents: AtomicBool,
    /// Storage buffers and descriptor sets, for snapshots.
    pub storage: crate::snapshots::Storage,
    /// The application's pipelines and layouts, and their twins.
    pub pipelines: crate::pipelines::Pipelines,
    /// Every command buffer's commands, for shadow copies.
    pub replay: crate::replay::DeviceReplay,
}

/// The submissions of a device the layer is debugging (hit-testing, or
/// stopped in while the session looks at them). Another thread of the
/// application that waits for the device or a queue to be idle, or
/// destroys the device, waits for them to end: to the application they
/// are submissions in progress (its thread is inside `vkQueueSubmit`).
#[derive(Default)]
pub struct Busy {
    state: Mutex<BusyState>,
    idle: Condvar,
}

#[derive(Default)]
struct BusyState {
    /// Submissions in progress.
    n: u32,
    /// The device is being destroyed.
    closed: bool,
    /// The device was lost; whether what the layer made was released.
    lost: bool,
    released: bool,
}

/// A submission in progress (see [`Busy::enter`]).
pub struct InProgress<'a>(&'a Busy);

impl Busy {
    /// A submission starts being debugged; none once the device is being
    /// destroyed.
    pub fn enter(&self) -> Option<InProgress<'_>> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.closed || st.lost {
            return None;
        }
        st.n += 1;
        Some(InProgress(self))
    }

    /// Waits until no submission is being debugged.
    pub fn wait(&self) {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _idle = self
            .idle
            .wait_while(st, |st| st.n > 0)
            .unwrap_or_else(|e| e.into_inner());
    }

    /// Waits as [`Busy::wait`], then refuses new submissions (the device
    /// is being destroyed).
    pub fn close(&self) {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut st = self
            .idle
            .wait_while(st, |st| st.n > 0)
            .unwrap_or_else(|e| e.into_inner());
        st.closed = true;
    }

    /// The device was lost: no submission is debugged from now on.
    /// Whether it is news.
    pub fn lose(&self) -> bool {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        !std::mem::replace(&mut st.lost, true)
    }

    /// Whether the caller, done with its submission, is the one to release
    /// what the layer made for a lost device (once, when no other
    /// submission is being debugged).
    pub fn release_lost(&self) -> bool {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.lost && st.n == 0 && !st.released {
            st.released = true;
            return true;
        }
        false
    }
}

impl Drop for InProgress<'_> {
    fn drop(&mut self) {
        let mut st = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        st.n -= 1;
        self.0.idle.notify_all();
    }
}

/// Hashes a handle or dispatch key (a pointer, or a number the driver
/// chose) with one multiplication: every `vkCmd*` looks up its device and
/// its command buffer's recording, and the standard library's SipHash is
/// made for keys an attacker chooses, not for these.
#[derive(Default, Clone, Copy)]
pub struct HandleHasher(u64);

impl std::hash::Hasher for HandleHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
}

/// A map keyed by handles (see [`HandleHasher`]).
pub type HandleMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<HandleHasher>>;

/// Live objects of one kind by dispatch key.
pub struct Registry<T>(OnceLock<RwLock<HandleMap<usize, Arc<T>>>>);

impl<T> Registry<T> {
    const fn new() -> Self {
        Registry(OnceLock::new())
    }

    fn map(&self) -> &RwLock<HandleMap<usize, Arc<T>>> {
        self.0.get_or_init(Default::default)
    }

    pub fn add(&self, key: usize, data: T) {
        let mut m = self.map().write().unwrap_or_else(|e| e.into_inner());
        m.insert(key, Arc::new(data));
    }

    pub fn get(&self, key: usize) -> Option<Arc<T>> {
        let m = self.map().read().unwrap_or_else(|e| e.into_inner());
        m.get(&key).cloned()
    }

    pub fn remove(&self, key: usize) -> Option<Arc<T>> {
        let mut m = self.map().write().unwrap_or_else(|e| e.into_inner());
        m.remove(&key)
    }
}

pub static INSTANCES: Registry<InstanceData> = Registry::new();
pub static DEVICES: Registry<DeviceData> = Registry::new();

/// The key of a dispatchable handle.
///
/// # Safety
/// `h` is a valid dispatchable handle.
pub unsafe fn key<H: vk::Handle>(h: H) -> usize {
    // SAFETY: per this function's contract.
    unsafe { dispatch_key(h.as_raw()) }
}

/// `PFN_vkVoidFunction` without the `Option`.
pub type Void = unsafe extern "system" fn();

/// Gives a looked-up command its type.
///
/// # Safety
/// `F` is the function pointer type of the command looked up.
pub unsafe fn typed<F: Copy>(f: vk::PFN_vkVoidFunction) -> Option<F> {
    // SAFETY: per this function's contract; fn pointers are pointer-sized.
    f.map(|f| unsafe { std::mem::transmute_copy::<Void, F>(&f) })
}

/// The name of the command whose pointer type is `pfn`, given as
/// `"PFN_vkX\0"`: `c"vkX"`.
pub const fn command_name(pfn: &'static str) -> &'static CStr {
    let (_, name) = pfn.as_bytes().split_at(4);
    match CStr::from_bytes_with_nul(name) {
        Ok(name) => name,
        Err(_) => panic!("a command's pointer type, NUL-terminated"),
    }
}

/// A struct of the next layer's commands of one device, each field
/// (`name: PFN_vkX`, optionally `or c"vkXKHR"`, the name of an extension's
/// command to fall back on) named once, and its `load` that looks each up
/// by the name its type implies.
macro_rules! device_commands {
    ($(#[$attr:meta])* $vis:vis struct $name:ident {
        $($fvis:vis $field:ident: $pfn:ident $(or $alias:literal)?,)*
    }) => {
        $(#[$attr])*
        #[derive(Default)]
        $vis struct $name {
            $($fvis $field: Option<ash::vk::$pfn>,)*
        }

        impl $name {
            /// # Safety
            /// `get` answers as the next layer's `vkGetDeviceProcAddr` for one device.
            pub unsafe fn load(
                get: impl Fn(&std::ffi::CStr) -> ash::vk::PFN_vkVoidFunction,
            ) -> Self {
                use $crate::dispatch::{command_name, typed};
                // SAFETY: each looked up by the name of the type it is given.
                unsafe {
                    $name {
                        $($field: typed(get(const {
                            command_name(concat!(stringify!($pfn), "\0"))
                        }))$(.or_else(|| typed(get($alias))))?,)*
                    }
                }
            }
        }
    };
}
pub(crate) use device_commands;

/// The `n` values an API structure points to (null: none). Vulkan allows a
/// null pointer with any count where nothing is read.
///
/// # Safety
/// `p` is null or points to `n` live values, alive for `'a`.
pub unsafe fn array<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() {
        &[]
    } else {
        // SAFETY: per this function's contract.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// A device, or a queue or command buffer of one: a dispatchable handle
/// that shares its device's dispatch key.
pub trait OfDevice: vk::Handle + Copy {}
impl OfDevice for vk::Device {}
impl OfDevice for vk::Queue {}
impl OfDevice for vk::CommandBuffer {}

/// The device data of a device, queue or command buffer (null: none).
pub fn device(h: impl OfDevice) -> Option<Arc<DeviceData>> {
    if h.as_raw() == 0 {
        return None;
    }
    // SAFETY: a non-null handle of these types is a valid dispatchable
    // handle.
    DEVICES.get(unsafe { key(h) })
}

/// A hook's device data (`d`: [`device`], or a command buffer's) and the
/// next layer's command `pick` chooses from it; `None` if either is
/// unknown (the hook fails or returns).
pub fn with_next<F>(
    d: Option<Arc<DeviceData>>,
    pick: impl FnOnce(&DeviceData) -> Option<F>,
) -> Option<(Arc<DeviceData>, F)> {
    let d = d?;
    let next = pick(&d)?;
    Some((d, next))
}

/// The next layer's `vkCreate*` of a non-dispatchable object.
pub type Create<I, H> = unsafe extern "system" fn(
    vk::Device,
    *const I,
    *const vk::AllocationCallbacks<'_>,
    *mut H,
) -> vk::Result;

/// The next layer's `vkDestroy*` of a non-dispatchable object.
pub type Destroy<H> = unsafe extern "system" fn(vk::Device, H, *const vk::AllocationCallbacks<'_>);

/// A `vkCreate*` hook: creates the object down the chain (the command
/// `pick` chooses) from `info`; on success `keep` is given the device's
/// data, the info and the object's handle.
///
/// # Safety
/// The arguments are the application's (or `info` a copy of its info),
/// valid for the command.
pub unsafe fn create<I, H: vk::Handle + Copy>(
    dev: vk::Device,
    info: *const I,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
    pick: impl FnOnce(&DeviceData) -> Option<Create<I, H>>,
    keep: impl FnOnce(&DeviceData, &I, H),
) -> vk::Result {
    let Some((d, next)) = with_next(device(dev), pick) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, down the chain.
    let result = unsafe { next(dev, info, allocator, out) };
    if result == vk::Result::SUCCESS {
        // SAFETY: a valid create info; the handle written on success.
        unsafe { keep(&d, &*info, *out) };
    }
    result
}

/// A `vkDestroy*` hook: destroys the application's object down the chain
/// (the command `pick` chooses), then `forget` drops what the layer kept
/// of it (given its raw handle).
///
/// # Safety
/// The arguments are the application's, valid for the command.
pub unsafe fn destroy<H: vk::Handle + Copy>(
    dev: vk::Device,
    h: H,
    allocator: *const vk::AllocationCallbacks<'_>,
    pick: impl FnOnce(&DeviceData) -> Option<Destroy<H>>,
    forget: impl FnOnce(&DeviceData, u64),
) {
    let Some((d, next)) = with_next(device(dev), pick) else {
        return;
    };
    // SAFETY: the application's arguments, down the chain.
    unsafe { next(dev, h, allocator) };
    forget(&d, h.as_raw());
}

/// Keeps `value` for the object `raw` in a map of what the layer keeps
/// per object.
pub fn remember<V, S: std::hash::BuildHasher>(
    map: &RwLock<HashMap<u64, V, S>>,
    raw: u64,
    value: V,
) {
    map.write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(raw, value);
}

/// Removes `raw` from a map of what the layer keeps per object.
pub fn forget<V, S: std::hash::BuildHasher>(map: &RwLock<HashMap<u64, V, S>>, raw: u64) {
    map.write().unwrap_or_else(|e| e.into_inner()).remove(&raw);
}

/// A `vkDestroy*` hook `$hook` of `$handle` that destroys the object with
/// the device's `$next` and forgets it from the device's map `$map`.
macro_rules! destroy_and_forget {
    ($hook:ident, $handle:ty, $($next:ident).+, $($map:ident).+) => {
        unsafe extern "system" fn $hook(
            dev: ash::vk::Device,
            h: $handle,
            allocator: *const ash::vk::AllocationCallbacks<'_>,
        ) {
            // SAFETY: the application's arguments.
            unsafe {
                $crate::dispatch::destroy(
                    dev,
                    h,
                    allocator,
                    |d| d.$($next).+,
                    |d, raw| $crate::dispatch::forget(&d.$($map).+, raw),
                )
            }
        }
    };
}
pub(crate) use destroy_and_forget;

/// A `vkCreate*` hook `$hook` of a `$handle` from a `$info` that creates the
/// object with the device's `$next` and keeps what `$value` takes of its
/// create info in the device's map `$map` (undone by
/// [`destroy_and_forget!`]).
macro_rules! create_and_remember {
    ($hook:ident, $info:ident, $handle:ident, $($next:ident).+, $($map:ident).+, $value:expr) => {
        unsafe extern "system" fn $hook(
            dev: ash::vk::Device,
            info: *const ash::vk::$info<'_>,
            allocator: *const ash::vk::AllocationCallbacks<'_>,
            out: *mut ash::vk::$handle,
        ) -> ash::vk::Result {
            let value: fn(&ash::vk::$info<'_>) -> _ = $value;
            let keep = |d: &$crate::dispatch::DeviceData,
                        info: &ash::vk::$info,
                        h: ash::vk::$handle| {
                let raw = ash::vk::Handle::as_raw(h);
                $crate::dispatch::remember(&d.$($map).+, raw, value(info));
            };
            // SAFETY: the application's arguments.
            unsafe { $crate::dispatch::create(dev, info, allocator, out, |d| d.$($next).+, keep) }
        }
    };
}
pub(crate) use create_and_remember;
