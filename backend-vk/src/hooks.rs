//! The Vulkan commands the layer intercepts. Each calls down the chain
//! exactly once with the application's own arguments and returns what the
//! next layer returned; what the layer adds happens after a successful call.

use std::ffi::{c_char, CStr};

use std::sync::atomic::Ordering;

use ash::vk;

use crate::dispatch::{self, key, typed, with_next, DeviceData, InstanceData, Void};
use crate::replay::{AppSubmit, Submit};
use crate::{agent, loader};

/// Whether an intercepted command is a device command (answered by
/// `vkGetInstanceProcAddr` only where the chain below has it).
const INSTANCE: bool = false;
const DEVICE: bool = true;

/// `(our function as PFN_vkVoidFunction, is a device command)`.
macro_rules! hook {
    ($pfn:ident, $f:ident, $level:ident) => {
        (untyped!($pfn, $f), $level)
    };
}

/// This layer's version of a command, if it intercepts it.
fn intercepted(name: &CStr) -> Option<(Void, bool)> {
    Some(match name.to_bytes() {
        b"vkGetInstanceProcAddr" => {
            hook!(PFN_vkGetInstanceProcAddr, get_instance_proc_addr, INSTANCE)
        }
        b"vkCreateInstance" => hook!(PFN_vkCreateInstance, create_instance, INSTANCE),
        b"vkDestroyInstance" => hook!(PFN_vkDestroyInstance, destroy_instance, INSTANCE),
        b"vkCreateDevice" => hook!(PFN_vkCreateDevice, create_device, INSTANCE),
        b"vkGetDeviceProcAddr" => hook!(PFN_vkGetDeviceProcAddr, get_device_proc_addr, DEVICE),
        b"vkDestroyDevice" => hook!(PFN_vkDestroyDevice, destroy_device, DEVICE),
        b"vkCreateShaderModule" => hook!(PFN_vkCreateShaderModule, create_shader_module, DEVICE),
        b"vkQueuePresentKHR" => hook!(PFN_vkQueuePresentKHR, queue_present, DEVICE),
        b"vkCreateSwapchainKHR" => hook!(PFN_vkCreateSwapchainKHR, create_swapchain, DEVICE),
        b"vkQueueSubmit" => hook!(PFN_vkQueueSubmit, queue_submit, DEVICE),
        b"vkDeviceWaitIdle" => hook!(PFN_vkDeviceWaitIdle, device_wait_idle, DEVICE),
        b"vkQueueWaitIdle" => hook!(PFN_vkQueueWaitIdle, queue_wait_idle, DEVICE),
        b"vkQueueSubmit2" | b"vkQueueSubmit2KHR" => {
            hook!(PFN_vkQueueSubmit2, queue_submit2, DEVICE)
        }
        // The replay buffer's: command pools and buffers, every vkCmd*.
        other => {
            return crate::pipelines::intercepted(other)
                .or_else(|| crate::snapshots::intercepted(other))
                .or_else(|| crate::replay::intercepted(other))
                .map(|f| (f, DEVICE))
        }
    })
}

/// # Safety
/// Called by the loader or the application as `vkGetInstanceProcAddr`.
pub unsafe extern "system" fn get_instance_proc_addr(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    if name.is_null() {
        return None;
    }
    // SAFETY: the caller passes a NUL-terminated name.
    let cname = unsafe { CStr::from_ptr(name) };
    let next = || {
        if instance == vk::Instance::null() {
            return None;
        }
        // SAFETY: a non-null instance is a valid dispatchable handle.
        let data = dispatch::INSTANCES.get(unsafe { key(instance) })?;
        // SAFETY: the next layer's GetInstanceProcAddr with the app's arguments.
        unsafe { (data.get_instance_proc_addr)(instance, name) }
    };
    match intercepted(cname) {
        // Device commands answer only where the chain below has them, so
        // that a disabled extension still reads as absent.
        Some((ours, true)) => next().map(|_| ours),
        Some((ours, false)) => Some(ours),
        None => next(),
    }
}

/// # Safety
/// Called by the loader or the application as `vkGetDeviceProcAddr`.
pub unsafe extern "system" fn get_device_proc_addr(
    device: vk::Device,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    if name.is_null() {
        return None;
    }
    let data = dispatch::device(device)?;
    // SAFETY: the next layer's GetDeviceProcAddr with the app's arguments.
    let next = unsafe { (data.get_device_proc_addr)(device, name) };
    // SAFETY: the caller passes a NUL-terminated name.
    match intercepted(unsafe { CStr::from_ptr(name) }) {
        Some((ours, true)) => next.map(|_| ours),
        _ => next,
    }
}

/// # Safety
/// Called by the loader as `vkCreateInstance`.
unsafe extern "system" fn create_instance(
    info: *const vk::InstanceCreateInfo,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> vk::Result {
    // SAFETY: the loader passes a valid create info.
    let Some(gipa) = (unsafe { loader::instance_link(&*info) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: looked up by its name, through the next layer.
    let create: Option<vk::PFN_vkCreateInstance> =
        unsafe { typed(gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr())) };
    let Some(create) = create else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the app's arguments, down the chain.
    let result = unsafe { create(info, allocator, out) };
    if result != vk::Result::SUCCESS {
        return result;
    }
    // SAFETY: on success the next layer wrote a valid instance.
    let instance = unsafe { *out };
    // SAFETY: looked up by its name, through the next layer.
    let destroy_instance = unsafe { typed(gipa(instance, c"vkDestroyInstance".as_ptr())) };
    // SAFETY: a created instance is a valid dispatchable handle.
    let k = unsafe { key(instance) };
    dispatch::INSTANCES.add(
        k,
        InstanceData {
            handle: instance,
            get_instance_proc_addr: gipa,
            destroy_instance,
        },
    );
    // The session waits for the program to connect: a Vulkan program does
    // so when it creates its first instance.
    let _ = agent::debugger();
    result
}

/// The next layer's destroy command of a dispatchable object.
type Destroy<H> = unsafe extern "system" fn(H, *const vk::AllocationCallbacks<'_>);

/// Forgets a dispatchable object and destroys it down the chain.
///
/// # Safety
/// `handle` is null or a valid dispatchable handle; `allocator` is the app's.
unsafe fn forget_and_destroy<H: vk::Handle + Copy, T>(
    registry: &dispatch::Registry<T>,
    handle: H,
    allocator: *const vk::AllocationCallbacks<'_>,
    next: impl FnOnce(&T) -> Option<Destroy<H>>,
) {
    if handle.as_raw() == 0 {
        return;
    }
    // SAFETY: a non-null handle is valid (this function's contract).
    let Some(data) = registry.remove(unsafe { key(handle) }) else {
        return;
    };
    if let Some(destroy) = next(&data) {
        // SAFETY: the app's arguments, down the chain.
        unsafe { destroy(handle, allocator) }
    }
}

/// # Safety
/// Called by the application as `vkDestroyInstance`.
unsafe extern "system" fn destroy_instance(
    instance: vk::Instance,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    // SAFETY: the app's arguments.
    unsafe {
        forget_and_destroy(&dispatch::INSTANCES, instance, allocator, |d| {
            d.destroy_instance
        })
    }
}

/// # Safety
/// Called by the application as `vkCreateDevice`.
unsafe extern "system" fn create_device(
    physical_device: vk::PhysicalDevice,
    info: *const vk::DeviceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Device,
) -> vk::Result {
    // SAFETY: the loader passes a valid create info.
    let Some((gipa, gdpa)) = (unsafe { loader::device_link(&*info) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // A physical device shares its instance's dispatch key.
    // SAFETY: a valid physical device is a dispatchable handle.
    let instance = dispatch::INSTANCES
        .get(unsafe { key(physical_device) })
        .map_or(vk::Instance::null(), |i| i.handle);
    // SAFETY: looked up by its name, through the next layer.
    let create: Option<vk::PFN_vkCreateDevice> =
        unsafe { typed(gipa(instance, c"vkCreateDevice".as_ptr())) };
    let Some(create) = create else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // Instrumented shaders write the debug buffer from every stage.
    // SAFETY: a valid physical device of this instance; a query of features.
    let supported: vk::PhysicalDeviceFeatures = unsafe {
        physical_query(
            gipa,
            instance,
            physical_device,
            c"vkGetPhysicalDeviceFeatures",
        )
    };
    let mut keep = crate::features::Modified::default();
    // SAFETY: the loader's create info; `keep` lives until the call returns.
    let with_features =
        unsafe { crate::features::with_debug_features(info.cast(), &supported, &mut keep) };
    // SAFETY: the app's arguments, down the chain (the create info a copy
    // with the debug features where it needed them).
    let result = unsafe { create(physical_device, with_features.cast(), allocator, out) };
    drop(keep);
    if result != vk::Result::SUCCESS {
        return result;
    }
    // SAFETY: on success the next layer wrote a valid device.
    let device = unsafe { *out };
    // SAFETY: the loader's create info, as passed.
    let set_loader_data = unsafe { loader::set_device_loader_data(&*info) };
    // SAFETY: lookups by name through the next layer, typed as named.
    let data = unsafe {
        DeviceData {
            handle: device,
            get_device_proc_addr: gdpa,
            destroy_device: typed(gdpa(device, c"vkDestroyDevice".as_ptr())),
            create_shader_module: typed(gdpa(device, c"vkCreateShaderModule".as_ptr())),
            queue_present: typed(gdpa(device, c"vkQueuePresentKHR".as_ptr())),
            queue_submit: typed(gdpa(device, c"vkQueueSubmit".as_ptr())),
            queue_submit2: typed(gdpa(device, c"vkQueueSubmit2".as_ptr()))
                .or_else(|| typed(gdpa(device, c"vkQueueSubmit2KHR".as_ptr()))),
            create_swapchain: typed(gdpa(device, c"vkCreateSwapchainKHR".as_ptr())),
            device_wait_idle: typed(gdpa(device, c"vkDeviceWaitIdle".as_ptr())),
            busy: Default::default(),
            frames: Default::default(),
            presents: Default::default(),
            storage: crate::snapshots::Storage::new(
                crate::snapshots::Next::load(|name| gdpa(device, name.as_ptr())),
                crate::images::Next::load(|name| gdpa(device, name.as_ptr())),
            ),
            pipelines: crate::pipelines::Pipelines::new(
                crate::pipelines::Next::load(|name| gdpa(device, name.as_ptr())),
                physical_query(
                    gipa,
                    instance,
                    physical_device,
                    c"vkGetPhysicalDeviceMemoryProperties",
                ),
                physical_query::<vk::PhysicalDeviceProperties>(
                    gipa,
                    instance,
                    physical_device,
                    c"vkGetPhysicalDeviceProperties",
                )
                .limits,
            ),
            replay: {
                let mut r = crate::replay::DeviceReplay::load(|name| gdpa(device, name.as_ptr()));
                r.shadows.set_loader_data = set_loader_data;
                r
            },
        }
    };
    // SAFETY: looked up by its name, through the next layer (null where the
    // instance has no surfaces).
    let surface_caps = unsafe {
        typed(gipa(
            instance,
            c"vkGetPhysicalDeviceSurfaceCapabilitiesKHR".as_ptr(),
        ))
    };
    data.storage
        .images
        .set_surface_query(physical_device, surface_caps);
    // SAFETY: a created device is a valid dispatchable handle.
    dispatch::DEVICES.add(unsafe { key(device) }, data);
    result
}

/// What the next layer's `vkGetPhysicalDevice*` query `name`, of type
/// `fn(VkPhysicalDevice, *mut T)`, writes of a physical device (the
/// default where the chain lacks it).
///
/// # Safety
/// `gipa` is the next layer's; `physical` a valid physical device of
/// `instance`; `name` is a query of that type.
unsafe fn physical_query<T: Default>(
    gipa: vk::PFN_vkGetInstanceProcAddr,
    instance: vk::Instance,
    physical: vk::PhysicalDevice,
    name: &CStr,
) -> T {
    let mut out = T::default();
    // SAFETY: looked up by its name, through the next layer.
    let get: Option<unsafe extern "system" fn(vk::PhysicalDevice, *mut T)> =
        unsafe { typed(gipa(instance, name.as_ptr())) };
    if let Some(get) = get {
        // SAFETY: per this function's contract.
        unsafe { get(physical, &mut out) };
    }
    out
}

/// # Safety
/// Called by the application as `vkDestroyDevice`.
unsafe extern "system" fn destroy_device(
    device: vk::Device,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    if let Some(d) = dispatch::device(device) {
        // A submission another thread is stopped in still uses the
        // device: it goes once the stop is over.
        d.busy.close();
        // SAFETY: the application destroys the device: nothing is pending.
        unsafe {
            d.storage.drop_taken(&d);
            d.pipelines.destroy_all(device);
            d.replay.destroy_pools(device);
        }
        if crate::replay::self_check().is_some() {
            // The self-check's report, asked for by its environment variable.
            eprintln!("{}", d.replay.self_check.summary());
        }
    }
    // SAFETY: the app's arguments.
    unsafe { forget_and_destroy(&dispatch::DEVICES, device, allocator, |d| d.destroy_device) }
}

/// # Safety
/// Called by the application as `vkDeviceWaitIdle`.
unsafe extern "system" fn device_wait_idle(device: vk::Device) -> vk::Result {
    let Some((d, wait)) = with_next(dispatch::device(device), |d| d.device_wait_idle) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // Submissions being debugged are the device's work in progress.
    d.busy.wait();
    // SAFETY: the app's arguments, down the chain.
    unsafe { wait(device) }
}

/// # Safety
/// Called by the application as `vkQueueWaitIdle`.
unsafe extern "system" fn queue_wait_idle(queue: vk::Queue) -> vk::Result {
    let Some((d, wait)) = with_next(dispatch::device(queue), |d| d.replay.life.queue_wait_idle)
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // As vkDeviceWaitIdle (a stopped submission may be on this queue).
    d.busy.wait();
    // SAFETY: the app's arguments, down the chain.
    unsafe { wait(queue) }
}

/// # Safety
/// Called by the application as `vkCreateShaderModule`.
unsafe extern "system" fn create_shader_module(
    device: vk::Device,
    info: *const vk::ShaderModuleCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::ShaderModule,
) -> vk::Result {
    let Some((data, create)) = with_next(dispatch::device(device), |d| d.create_shader_module)
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the app's arguments, down the chain.
    let result = unsafe { create(device, info, allocator, out) };
    if result == vk::Result::SUCCESS {
        // SAFETY: a valid create info names code_size bytes at p_code.
        let code = unsafe {
            let info = &*info;
            std::slice::from_raw_parts(info.p_code, info.code_size / 4)
        };
        let shaders = agent::debugger()
            .map(|dbg| agent::announce_module(dbg, vk::Handle::as_raw(device), code))
            .unwrap_or_default();
        // SAFETY: written on success.
        data.pipelines
            .remember_module(unsafe { *out }, code, shaders);
    }
    result
}

/// # Safety
/// Called by the application as `vkQueuePresentKHR`.
unsafe extern "system" fn queue_present(
    queue: vk::Queue,
    info: *const vk::PresentInfoKHR<'_>,
) -> vk::Result {
    let Some((data, present)) = with_next(dispatch::device(queue), |d| d.queue_present) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    if let Some(dbg) = agent::debugger() {
        // Screenshots at this frame's end show what is presented, before
        // it goes.
        let frame = data.frames.load(Ordering::Relaxed);
        agent::screenshots_at_frame_end(dbg, frame, &mut || {
            // SAFETY: the application's valid present info.
            unsafe { crate::screenshot::at_present(&data, queue, &*info) }
        });
    }
    // SAFETY: the app's arguments, down the chain.
    let result = unsafe { present(queue, info) };
    end_frame(&data);
    result
}

/// # Safety
/// Called by the application as `vkCreateSwapchainKHR`.
unsafe extern "system" fn create_swapchain(
    device: vk::Device,
    info: *const vk::SwapchainCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SwapchainKHR,
) -> vk::Result {
    let Some((data, create)) = with_next(dispatch::device(device), |d| d.create_swapchain) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // Screenshots copy swapchain images: transfer-source usage is added
    // where the surface supports it (the application's info is not written).
    // SAFETY: the application's valid create info.
    let mut copy = unsafe { *info };
    copy.image_usage = data.storage.images.swapchain_usage(&copy);
    // SAFETY: the app's arguments (the usage widened), down the chain.
    let result = unsafe { create(device, &copy, allocator, out) };
    if result == vk::Result::SUCCESS {
        data.presents.store(true, Ordering::Relaxed);
        // SAFETY: written on success.
        let swapchain = unsafe { *out };
        data.storage
            .images
            .remember_swapchain(swapchain, &copy, copy.image_usage);
    }
    result
}

/// Submits down the chain with `next` of the queue's device; a program
/// without a swapchain then ends a frame.
///
/// # Safety
/// The arguments are the application's, valid for `vkQueueSubmit[2]`.
unsafe fn submit<I: crate::replay::Submission>(
    queue: vk::Queue,
    count: u32,
    submits: *const I,
    fence: vk::Fence,
    next: impl FnOnce(&DeviceData) -> Option<Submit<I>>,
) -> vk::Result {
    let Some((data, submit)) = with_next(dispatch::device(queue), next) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the app's arguments.
    let app = unsafe { AppSubmit::new(queue, count, submits, fence, submit) };
    let result = if crate::replay::self_check().is_some() {
        // SAFETY: nothing of it was submitted.
        unsafe { crate::replay::submit_shadows(&data, &app) }
    } else {
        // SAFETY: as above (down the chain, instrumented where a module has
        // breakpoints, else as it is).
        unsafe { crate::stops::submit(&data, &app).unwrap_or_else(|| app.down()) }
    };
    if result == vk::Result::SUCCESS && !data.presents.load(Ordering::Relaxed) {
        if let Some(dbg) = agent::debugger() {
            // Screenshots at this frame's end show what the submission drew.
            let frame = data.frames.load(Ordering::Relaxed);
            agent::screenshots_at_frame_end(dbg, frame, &mut || {
                // SAFETY: the application's command buffers, just submitted.
                unsafe { crate::screenshot::after_submit(&data, queue, &app.command_buffers()) }
            });
        }
        end_frame(&data);
    }
    result
}

/// # Safety
/// Called by the application as `vkQueueSubmit`.
unsafe extern "system" fn queue_submit(
    queue: vk::Queue,
    count: u32,
    submits: *const vk::SubmitInfo<'_>,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: the app's arguments.
    unsafe { submit(queue, count, submits, fence, |d| d.queue_submit) }
}

/// # Safety
/// Called by the application as `vkQueueSubmit2` (or its KHR alias).
unsafe extern "system" fn queue_submit2(
    queue: vk::Queue,
    count: u32,
    submits: *const vk::SubmitInfo2<'_>,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: the app's arguments.
    unsafe { submit(queue, count, submits, fence, |d| d.queue_submit2) }
}

/// Counts a frame of `data`'s device and tells the debugger it ended.
fn end_frame(data: &DeviceData) {
    let frame = data.frames.fetch_add(1, Ordering::Relaxed);
    if let Some(dbg) = agent::debugger() {
        agent::frame_end(dbg, vk::Handle::as_raw(data.handle), frame);
    }
}
