//! `libVkLayer_shaderdbg.so`: the Vulkan agent, a layer the session enables
//! for the program it launches (through the loader's environment; nothing
//! is installed system-wide). It speaks the same protocol as the GL agent.
//!
//! The loader–layer interface with instance and device dispatch chains
//! (`loader`, `dispatch`, `hooks`); the source of every shader module
//! (`spirv`, `source`: the GLSL or WGSL the compiler embedded, or GLSL
//! SPIRV-Cross or naga decompiles when there is none) announced to the
//! session so that editor files bind to it by content; the replay buffer
//! (`replay`: every command buffer's commands deep-copied as recorded, and
//! submitted again from shadows) with pipeline twins (`pipelines`: the
//! application's pipeline made again around the instrumented module,
//! `compile`, with the debug set added); and the stops (`breakpoints`,
//! `stops`: hit tests, recordings, pixel history, the sanitizer, Pause),
//! with snapshots of what a submission writes put back (`snapshots`,
//! `images`) and screenshots (`screenshot`). ARCHITECTURE.md has the map.

// The crate is named as the loader expects the library to be.
#![allow(non_snake_case)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

/// One of this layer's hooks as the untyped `PFN_vkVoidFunction` the loader
/// and applications get (`$pfn` is the command's function pointer type).
macro_rules! untyped {
    ($pfn:ident, $f:ident) => {
        // SAFETY: the function has the type its command's name implies;
        // callers cast the pointer back to that type.
        unsafe { std::mem::transmute::<ash::vk::$pfn, $crate::dispatch::Void>($f) }
    };
}

/// A module's answer for a command it hooks (see [`untyped!`]).
macro_rules! hook {
    ($pfn:ident, $f:ident) => {
        Some(untyped!($pfn, $f))
    };
}

mod agent;
mod breakpoints;
mod child;
pub mod compile;
mod dispatch;
mod error;
mod fault;
mod features;
mod hooks;
mod images;
mod loader;
mod pipelines;
mod replay;
mod screenshot;
mod snapshots;
pub mod source;
pub mod spirv;
mod stops;
mod wgsl;

use ash::vk;

/// The loader's first call: agree on interface version 2 and hand over the
/// layer's `vkGet*ProcAddr`.
///
/// # Safety
/// Called by the Vulkan loader with a valid `VkNegotiateLayerInterface`.
#[no_mangle]
pub unsafe extern "system" fn vkNegotiateLoaderLayerInterfaceVersion(
    negotiate: *mut loader::NegotiateLayerInterface,
) -> vk::Result {
    // SAFETY: per this function's contract (null checked).
    let Some(n) = (unsafe { negotiate.as_mut() }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    if n.s_type != loader::NEGOTIATE_INTERFACE_STRUCT || n.loader_layer_interface_version < 2 {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    n.loader_layer_interface_version = loader::INTERFACE_VERSION;
    n.get_instance_proc_addr = Some(hooks::get_instance_proc_addr);
    n.get_device_proc_addr = Some(hooks::get_device_proc_addr);
    n.get_physical_device_proc_addr = std::ptr::null();
    vk::Result::SUCCESS
}
