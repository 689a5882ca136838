//! Faults a test injects (`SHADERDBG_VK_FAULT`, names separated by
//! commas) where no honest program on a software driver makes them
//! happen, so that the layer's way out of them is tested: `debug-memory`,
//! the debug buffer's memory is not there (`VK_ERROR_OUT_OF_DEVICE_MEMORY`);
//! `device-lost`, the device is lost under the hit test
//! (`VK_ERROR_DEVICE_LOST` from waiting for it); `snapshot-memory`, the
//! memory of a snapshot of storage buffers is not there.

use std::sync::OnceLock;

use ash::vk;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    DebugMemory,
    DeviceLost,
    SnapshotMemory,
}

/// Whether the environment injects `fault`.
pub fn injected(fault: Fault) -> bool {
    static FAULTS: OnceLock<Vec<Fault>> = OnceLock::new();
    FAULTS
        .get_or_init(|| {
            let names = std::env::var("SHADERDBG_VK_FAULT").unwrap_or_default();
            names
                .split(',')
                .filter_map(|n| match n.trim() {
                    "debug-memory" => Some(Fault::DebugMemory),
                    "device-lost" => Some(Fault::DeviceLost),
                    "snapshot-memory" => Some(Fault::SnapshotMemory),
                    _ => None,
                })
                .collect()
        })
        .contains(&fault)
}

/// `VK_ERROR_OUT_OF_DEVICE_MEMORY` where the environment injects `fault`
/// (the allocation is not made), else what `allocate` returns.
pub fn out_of_memory_or(fault: Fault, allocate: impl FnOnce() -> vk::Result) -> vk::Result {
    if injected(fault) {
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
    } else {
        allocate()
    }
}
