//! The Vulkan commands the layer intercepts. Each calls down the chain
//! exactly once with the application's own arguments and returns what the
//! next layer returned; what the layer adds happens after a successful call.

use std::ffi::{c_char, CStr};

use ash::vk;

use crate::dispatch::{self, key, DeviceData, InstanceData};
use crate::{agent, loader};

type Void = unsafe extern "system" fn();

/// This layer's version of a command, if it intercepts it. Instance-level
/// commands first, then device-level ones (which `vkGetInstanceProcAddr`
/// must also answer for).
fn intercepted(name: &CStr) -> Option<(Void, bool)> {
    // SAFETY: each function is cast to the untyped PFN_vkVoidFunction the
    // loader expects; callers cast it back to the type its name implies,
    // which is the type it has.
    unsafe {
        use std::mem::transmute as t;
        Some(match name.to_bytes() {
            b"vkGetInstanceProcAddr" => (
                t::<vk::PFN_vkGetInstanceProcAddr, Void>(get_instance_proc_addr),
                false,
            ),
            b"vkCreateInstance" => (t::<vk::PFN_vkCreateInstance, Void>(create_instance), false),
            b"vkDestroyInstance" => (
                t::<vk::PFN_vkDestroyInstance, Void>(destroy_instance),
                false,
            ),
            b"vkCreateDevice" => (t::<vk::PFN_vkCreateDevice, Void>(create_device), false),
            b"vkGetDeviceProcAddr" => (
                t::<vk::PFN_vkGetDeviceProcAddr, Void>(get_device_proc_addr),
                true,
            ),
            b"vkDestroyDevice" => (t::<vk::PFN_vkDestroyDevice, Void>(destroy_device), true),
            b"vkCreateShaderModule" => (
                t::<vk::PFN_vkCreateShaderModule, Void>(create_shader_module),
                true,
            ),
            b"vkQueuePresentKHR" => (t::<vk::PFN_vkQueuePresentKHR, Void>(queue_present), true),
            _ => return None,
        })
    }
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
        let data = dispatch::instance(unsafe { key(instance) })?;
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
    if name.is_null() || device == vk::Device::null() {
        return None;
    }
    // SAFETY: a non-null device is a valid dispatchable handle.
    let data = dispatch::device(unsafe { key(device) })?;
    // SAFETY: the next layer's GetDeviceProcAddr with the app's arguments.
    let next = unsafe { (data.get_device_proc_addr)(device, name) };
    // SAFETY: the caller passes a NUL-terminated name.
    match intercepted(unsafe { CStr::from_ptr(name) }) {
        Some((ours, true)) => next.map(|_| ours),
        _ => next,
    }
}

/// Looks a command up through `gpa` and gives it its type.
///
/// # Safety
/// `F` is the function pointer type of the command `name`.
unsafe fn typed<F: Copy>(f: vk::PFN_vkVoidFunction) -> Option<F> {
    // SAFETY: per this function's contract; fn pointers are pointer-sized.
    f.map(|f| unsafe { std::mem::transmute_copy::<Void, F>(&f) })
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
    dispatch::add_instance(
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

/// # Safety
/// Called by the application as `vkDestroyInstance`.
unsafe extern "system" fn destroy_instance(
    instance: vk::Instance,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    if instance == vk::Instance::null() {
        return;
    }
    // SAFETY: a non-null instance is a valid dispatchable handle.
    let Some(data) = dispatch::remove_instance(unsafe { key(instance) }) else {
        return;
    };
    if let Some(destroy) = data.destroy_instance {
        // SAFETY: the app's arguments, down the chain.
        unsafe { destroy(instance, allocator) }
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
    let instance = dispatch::instance(unsafe { key(physical_device) })
        .map_or(vk::Instance::null(), |i| i.handle);
    // SAFETY: looked up by its name, through the next layer.
    let create: Option<vk::PFN_vkCreateDevice> =
        unsafe { typed(gipa(instance, c"vkCreateDevice".as_ptr())) };
    let Some(create) = create else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the app's arguments, down the chain.
    let result = unsafe { create(physical_device, info, allocator, out) };
    if result != vk::Result::SUCCESS {
        return result;
    }
    // SAFETY: on success the next layer wrote a valid device.
    let device = unsafe { *out };
    // SAFETY: lookups by name through the next layer, typed as named.
    let data = unsafe {
        DeviceData {
            handle: device,
            get_device_proc_addr: gdpa,
            destroy_device: typed(gdpa(device, c"vkDestroyDevice".as_ptr())),
            create_shader_module: typed(gdpa(device, c"vkCreateShaderModule".as_ptr())),
            queue_present: typed(gdpa(device, c"vkQueuePresentKHR".as_ptr())),
            frames: Default::default(),
        }
    };
    // SAFETY: a created device is a valid dispatchable handle.
    dispatch::add_device(unsafe { key(device) }, data);
    result
}

/// # Safety
/// Called by the application as `vkDestroyDevice`.
unsafe extern "system" fn destroy_device(
    device: vk::Device,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    if device == vk::Device::null() {
        return;
    }
    // SAFETY: a non-null device is a valid dispatchable handle.
    let Some(data) = dispatch::remove_device(unsafe { key(device) }) else {
        return;
    };
    if let Some(destroy) = data.destroy_device {
        // SAFETY: the app's arguments, down the chain.
        unsafe { destroy(device, allocator) }
    }
}

/// # Safety
/// Called by the application as `vkCreateShaderModule`.
unsafe extern "system" fn create_shader_module(
    device: vk::Device,
    info: *const vk::ShaderModuleCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::ShaderModule,
) -> vk::Result {
    // SAFETY: a valid device is a dispatchable handle.
    let data = dispatch::device(unsafe { key(device) });
    let Some(create) = data.as_ref().and_then(|d| d.create_shader_module) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the app's arguments, down the chain.
    let result = unsafe { create(device, info, allocator, out) };
    if result == vk::Result::SUCCESS {
        if let Some(dbg) = agent::debugger() {
            // SAFETY: a valid create info names code_size bytes at p_code.
            let code = unsafe {
                let info = &*info;
                std::slice::from_raw_parts(info.p_code as *const u8, info.code_size)
            };
            agent::announce_module(dbg, vk::Handle::as_raw(device), code);
        }
    }
    result
}

/// # Safety
/// Called by the application as `vkQueuePresentKHR`.
unsafe extern "system" fn queue_present(
    queue: vk::Queue,
    info: *const vk::PresentInfoKHR<'_>,
) -> vk::Result {
    // SAFETY: a queue shares its device's dispatch key.
    let data = dispatch::device(unsafe { key(queue) });
    let Some((data, present)) = data.and_then(|d| Some((d.clone(), d.queue_present?))) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the app's arguments, down the chain.
    let result = unsafe { present(queue, info) };
    let frame = data
        .frames
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Some(dbg) = agent::debugger() {
        agent::frame_end(dbg, vk::Handle::as_raw(data.handle), frame);
    }
    result
}
