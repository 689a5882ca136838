//! The loader–layer interface (the loader's `vk_layer.h`, which ash does not
//! carry): interface negotiation, and the link structures through which the
//! loader hands each layer the next layer's `vkGet*ProcAddr` inside the
//! `pNext` chains of `vkCreateInstance` and `vkCreateDevice`.

use std::ffi::c_void;

use ash::vk;

/// `VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO`.
const LOADER_INSTANCE_CREATE_INFO: i32 = 47;
/// `VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO`.
const LOADER_DEVICE_CREATE_INFO: i32 = 48;
/// `VK_LAYER_LINK_INFO`: the create info that carries the chain link.
const LAYER_LINK_INFO: u32 = 0;
/// `VK_LOADER_DATA_CALLBACK`: the create info that carries
/// `pfnSetDeviceLoaderData`.
const LOADER_DATA_CALLBACK: u32 = 1;

/// `PFN_vkSetDeviceLoaderData`: makes a dispatchable object a layer created
/// itself (a command buffer) dispatchable through the loader.
pub type SetDeviceLoaderData = unsafe extern "system" fn(vk::Device, *mut c_void) -> vk::Result;
/// `LAYER_NEGOTIATE_INTERFACE_STRUCT`.
pub const NEGOTIATE_INTERFACE_STRUCT: u32 = 1;
/// The loader–layer interface version this layer speaks.
pub const INTERFACE_VERSION: u32 = 2;

/// `VkNegotiateLayerInterface`.
#[repr(C)]
pub struct NegotiateLayerInterface {
    pub s_type: u32,
    pub p_next: *mut c_void,
    pub loader_layer_interface_version: u32,
    pub get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
    pub get_physical_device_proc_addr: *const c_void,
}

/// `VkLayerInstanceLink`.
#[repr(C)]
pub struct InstanceLink {
    pub next: *mut InstanceLink,
    pub next_get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    pub next_get_physical_device_proc_addr: *const c_void,
}

/// `VkLayerDeviceLink`.
#[repr(C)]
pub struct DeviceLink {
    pub next: *mut DeviceLink,
    pub next_get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    pub next_get_device_proc_addr: vk::PFN_vkGetDeviceProcAddr,
}

/// `VkLayerInstanceCreateInfo` / `VkLayerDeviceCreateInfo` with the union
/// read as its first member (`pLayerInfo` when `function` is
/// `VK_LAYER_LINK_INFO`); the loader allocates these, we only read and
/// advance them.
#[repr(C)]
struct LayerCreateInfo<L> {
    s_type: i32,
    p_next: *const c_void,
    function: u32,
    layer_info: *mut L,
}

/// The `{sType, pNext}` head every Vulkan structure starts with.
#[repr(C)]
struct BaseIn {
    s_type: i32,
    p_next: *const c_void,
}

/// Takes this layer's link out of a create info's `pNext` chain and advances
/// the chain for the next layer (as every layer must before calling down).
///
/// # Safety
/// `p_next` is the `pNext` of a valid create info that the loader built.
unsafe fn take_link<L>(p_next: *const c_void, s_type: i32) -> Option<*mut L> {
    let mut at = p_next;
    while !at.is_null() {
        // SAFETY: every structure in a pNext chain starts with sType/pNext.
        let base = unsafe { &*(at as *const BaseIn) };
        if base.s_type == s_type {
            // SAFETY: a structure of this sType is the loader's create info.
            let info = unsafe { &mut *(at as *mut LayerCreateInfo<L>) };
            if info.function == LAYER_LINK_INFO && !info.layer_info.is_null() {
                let link = info.layer_info;
                // SAFETY: links form a list the loader built; the first
                // member of each link is the next one.
                info.layer_info = unsafe { *(link as *mut *mut L) };
                return Some(link);
            }
        }
        at = base.p_next;
    }
    None
}

/// The next layer's `vkGetInstanceProcAddr`, from this layer's link in
/// `vkCreateInstance`.
///
/// # Safety
/// `info` is the application's valid `VkInstanceCreateInfo` as the loader passed it.
pub unsafe fn instance_link(
    info: &vk::InstanceCreateInfo,
) -> Option<vk::PFN_vkGetInstanceProcAddr> {
    // SAFETY: per this function's contract.
    let link = unsafe { take_link::<InstanceLink>(info.p_next, LOADER_INSTANCE_CREATE_INFO)? };
    // SAFETY: the loader keeps the link alive for the duration of the call.
    Some(unsafe { (*link).next_get_instance_proc_addr })
}

/// The next layer's `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr`, from
/// this layer's link in `vkCreateDevice`.
///
/// # Safety
/// `info` is the application's valid `VkDeviceCreateInfo` as the loader passed it.
pub unsafe fn device_link(
    info: &vk::DeviceCreateInfo,
) -> Option<(vk::PFN_vkGetInstanceProcAddr, vk::PFN_vkGetDeviceProcAddr)> {
    // SAFETY: per this function's contract.
    let link = unsafe { take_link::<DeviceLink>(info.p_next, LOADER_DEVICE_CREATE_INFO)? };
    // SAFETY: the loader keeps the link alive for the duration of the call.
    let link = unsafe { &*link };
    Some((
        link.next_get_instance_proc_addr,
        link.next_get_device_proc_addr,
    ))
}

/// The loader's `pfnSetDeviceLoaderData` from `vkCreateDevice`'s chain.
///
/// # Safety
/// `info` is the application's valid `VkDeviceCreateInfo` as the loader passed it.
pub unsafe fn set_device_loader_data(info: &vk::DeviceCreateInfo) -> Option<SetDeviceLoaderData> {
    let mut at = info.p_next;
    while !at.is_null() {
        // SAFETY: every structure in a pNext chain starts with sType/pNext.
        let base = unsafe { &*(at as *const BaseIn) };
        if base.s_type == LOADER_DEVICE_CREATE_INFO {
            // SAFETY: a structure of this sType is the loader's create info,
            // whose union holds the callback when `function` says so.
            let info = unsafe { &*(at as *const LayerCreateInfo<c_void>) };
            if info.function == LOADER_DATA_CALLBACK && !info.layer_info.is_null() {
                // SAFETY: as above; the union member is a function pointer.
                return Some(unsafe {
                    std::mem::transmute::<*mut c_void, SetDeviceLoaderData>(info.layer_info)
                });
            }
        }
        at = base.p_next;
    }
    None
}

/// The loader's dispatch key of a dispatchable handle: the pointer to its
/// dispatch table, which an instance shares with its physical devices and a
/// device with its queues and command buffers.
///
/// # Safety
/// `raw` is a valid dispatchable handle (a pointer whose first word the loader owns).
pub unsafe fn dispatch_key(raw: u64) -> usize {
    // SAFETY: per this function's contract.
    unsafe { *(raw as usize as *const usize) }
}
