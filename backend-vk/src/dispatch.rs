//! Per-instance and per-device dispatch: the next layer's entry points for
//! every instance and device this layer has seen, keyed by the loader's
//! dispatch key (shared by an instance and its physical devices, and by a
//! device and its queues and command buffers).

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock};

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
    /// Presents so far: the frame number of the next frame to end.
    pub frames: AtomicU64,
}

#[derive(Default)]
struct Tables {
    instances: HashMap<usize, Arc<InstanceData>>,
    devices: HashMap<usize, Arc<DeviceData>>,
}

fn tables() -> &'static RwLock<Tables> {
    static TABLES: std::sync::OnceLock<RwLock<Tables>> = std::sync::OnceLock::new();
    TABLES.get_or_init(Default::default)
}

/// The key of a dispatchable handle.
///
/// # Safety
/// `h` is a valid dispatchable handle.
pub unsafe fn key<H: vk::Handle>(h: H) -> usize {
    // SAFETY: per this function's contract.
    unsafe { dispatch_key(h.as_raw()) }
}

pub fn add_instance(key: usize, data: InstanceData) {
    let mut t = tables().write().unwrap_or_else(|e| e.into_inner());
    t.instances.insert(key, Arc::new(data));
}

pub fn instance(key: usize) -> Option<Arc<InstanceData>> {
    let t = tables().read().unwrap_or_else(|e| e.into_inner());
    t.instances.get(&key).cloned()
}

pub fn remove_instance(key: usize) -> Option<Arc<InstanceData>> {
    let mut t = tables().write().unwrap_or_else(|e| e.into_inner());
    t.instances.remove(&key)
}

pub fn add_device(key: usize, data: DeviceData) {
    let mut t = tables().write().unwrap_or_else(|e| e.into_inner());
    t.devices.insert(key, Arc::new(data));
}

pub fn device(key: usize) -> Option<Arc<DeviceData>> {
    let t = tables().read().unwrap_or_else(|e| e.into_inner());
    t.devices.get(&key).cloned()
}

pub fn remove_device(key: usize) -> Option<Arc<DeviceData>> {
    let mut t = tables().write().unwrap_or_else(|e| e.into_inner());
    t.devices.remove(&key)
}
