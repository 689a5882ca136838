//! Device features instrumented shaders need: they write the debug buffer
//! (a storage buffer) from vertex and fragment shaders, which Vulkan allows
//! only with `vertexPipelineStoresAndAtomics` and `fragmentStoresAndAtomics`
//! enabled when the device is created. The layer enables them where the
//! physical device supports them and the application did not; enabling a
//! feature changes nothing for a program that does not use it.
//!
//! The application's create info is never written: the device is created
//! from a copy, with the features in `pEnabledFeatures` (a copy), or in a
//! copy of the `VkPhysicalDeviceFeatures2` in its `pNext` chain (the nodes
//! before it copied too, so that the chain can point to the copy).

use std::ffi::c_void;

use ash::vk;

/// `VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO` (the loader's own node).
const LOADER_DEVICE_CREATE_INFO: i32 = 48;

/// Storage for a modified create info and what it points to (boxed so
/// that the pointers between them stay put).
#[derive(Default)]
pub struct Modified {
    info: Option<Box<vk::DeviceCreateInfo<'static>>>,
    features: Option<Box<vk::PhysicalDeviceFeatures>>,
    /// Copied chain nodes, as raw words.
    nodes: Vec<Box<[u64]>>,
}

/// The features to turn on that `supported` has and `enabled` lacks.
fn wanted(
    supported: &vk::PhysicalDeviceFeatures,
    enabled: &mut vk::PhysicalDeviceFeatures,
) -> bool {
    let mut changed = false;
    if supported.fragment_stores_and_atomics == vk::TRUE
        && enabled.fragment_stores_and_atomics == vk::FALSE
    {
        enabled.fragment_stores_and_atomics = vk::TRUE;
        changed = true;
    }
    if supported.vertex_pipeline_stores_and_atomics == vk::TRUE
        && enabled.vertex_pipeline_stores_and_atomics == vk::FALSE
    {
        enabled.vertex_pipeline_stores_and_atomics = vk::TRUE;
        changed = true;
    }
    changed
}

/// The size of a chain node this module may have to copy, by `sType`.
fn node_size(s_type: vk::StructureType) -> Option<usize> {
    if s_type.as_raw() == LOADER_DEVICE_CREATE_INFO {
        // sType, pNext, function, a pointer-sized union.
        return Some(32);
    }
    crate::replay::chained_size(s_type)
}

/// `info` with the debug features enabled where supported, or `info`
/// itself when nothing needs to change or the chain cannot be copied.
///
/// # Safety
/// `info` is the valid create info the loader passed; `keep` outlives the
/// use of the returned pointer.
pub unsafe fn with_debug_features(
    info: *const vk::DeviceCreateInfo<'static>,
    supported: &vk::PhysicalDeviceFeatures,
    keep: &mut Modified,
) -> *const vk::DeviceCreateInfo<'static> {
    // SAFETY: per this function's contract.
    let app = unsafe { &*info };
    let mut copy = *app;
    if !app.p_enabled_features.is_null() {
        // SAFETY: a valid pointer to the application's features.
        let mut f = unsafe { *app.p_enabled_features };
        if !wanted(supported, &mut f) {
            return info;
        }
        let f = keep.features.insert(Box::new(f));
        copy.p_enabled_features = &**f;
    } else {
        // A VkPhysicalDeviceFeatures2 in the chain, and the nodes before it.
        let mut before = Vec::new();
        let mut at = app.p_next;
        let mut found = None;
        while !at.is_null() {
            // SAFETY: every chained structure starts with sType, pNext.
            let base = unsafe { &*at.cast::<vk::BaseInStructure>() };
            if base.s_type == vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 {
                found = Some(at);
                break;
            }
            before.push(at);
            at = base.p_next.cast();
        }
        match found {
            Some(f2) => {
                // SAFETY: a valid VkPhysicalDeviceFeatures2.
                let mut features2 = unsafe { *f2.cast::<vk::PhysicalDeviceFeatures2>() };
                if !wanted(supported, &mut features2.features) {
                    return info;
                }
                // Copy the features node, then every node before it, back
                // to front, each pointing at the copy of the next.
                let mut next: *const c_void = {
                    let words = size_of_words(std::mem::size_of::<vk::PhysicalDeviceFeatures2>());
                    let mut b = vec![0u64; words].into_boxed_slice();
                    // SAFETY: the box holds at least the structure's size.
                    unsafe {
                        std::ptr::write(
                            b.as_mut_ptr().cast::<vk::PhysicalDeviceFeatures2>(),
                            features2,
                        )
                    };
                    let p = b.as_ptr().cast::<c_void>();
                    keep.nodes.push(b);
                    p
                };
                for node in before.into_iter().rev() {
                    // SAFETY: every chained structure starts with sType.
                    let s_type = unsafe { (*node.cast::<vk::BaseInStructure>()).s_type };
                    let Some(size) = node_size(s_type) else {
                        // Cannot copy a node of unknown size: leave the
                        // device as the application asked for it.
                        return info;
                    };
                    let mut b = vec![0u64; size_of_words(size)].into_boxed_slice();
                    // SAFETY: `size` bytes of a live node into a box that large.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            node.cast::<u8>(),
                            b.as_mut_ptr().cast::<u8>(),
                            size,
                        );
                        (*b.as_mut_ptr().cast::<vk::BaseOutStructure>()).p_next =
                            next.cast_mut().cast();
                    }
                    next = b.as_ptr().cast();
                    keep.nodes.push(b);
                }
                copy.p_next = next;
            }
            None => {
                let mut f = vk::PhysicalDeviceFeatures::default();
                if !wanted(supported, &mut f) {
                    return info;
                }
                let f = keep.features.insert(Box::new(f));
                copy.p_enabled_features = &**f;
            }
        }
    }
    let c = keep.info.insert(Box::new(copy));
    &**c
}

fn size_of_words(bytes: usize) -> usize {
    bytes.div_ceil(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ptr(info: &vk::DeviceCreateInfo<'_>) -> *const vk::DeviceCreateInfo<'static> {
        (info as *const vk::DeviceCreateInfo<'_>).cast()
    }

    fn all_supported() -> vk::PhysicalDeviceFeatures {
        vk::PhysicalDeviceFeatures {
            fragment_stores_and_atomics: vk::TRUE,
            vertex_pipeline_stores_and_atomics: vk::TRUE,
            ..Default::default()
        }
    }

    #[test]
    fn features_are_added_to_a_copy_of_p_enabled_features() {
        let app_features = vk::PhysicalDeviceFeatures {
            geometry_shader: vk::TRUE,
            ..Default::default()
        };
        let info = vk::DeviceCreateInfo::default().enabled_features(&app_features);
        let mut keep = Modified::default();
        // SAFETY: a valid create info; `keep` outlives the use.
        let out = unsafe { &*with_debug_features(ptr(&info), &all_supported(), &mut keep) };
        // SAFETY: points into `keep`.
        let f = unsafe { &*out.p_enabled_features };
        assert_eq!(f.geometry_shader, vk::TRUE);
        assert_eq!(f.fragment_stores_and_atomics, vk::TRUE);
        assert_eq!(
            app_features.fragment_stores_and_atomics,
            vk::FALSE,
            "the application's untouched"
        );
    }

    #[test]
    fn features2_in_the_chain_is_copied_with_the_nodes_before_it() {
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        let info = vk::DeviceCreateInfo::default()
            .push_next(&mut f2)
            .push_next(&mut v12);
        let mut keep = Modified::default();
        // SAFETY: a valid create info; `keep` outlives the use.
        let out = unsafe { &*with_debug_features(ptr(&info), &all_supported(), &mut keep) };
        // SAFETY: the copied chain: Vulkan12Features, then Features2.
        unsafe {
            let first = &*out.p_next.cast::<vk::PhysicalDeviceVulkan12Features>();
            assert!(first.s_type == vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
            assert_eq!(first.timeline_semaphore, vk::TRUE);
            let second = &*first.p_next.cast::<vk::PhysicalDeviceFeatures2>();
            assert!(second.s_type == vk::StructureType::PHYSICAL_DEVICE_FEATURES_2);
            assert_eq!(second.features.vertex_pipeline_stores_and_atomics, vk::TRUE);
        }
        assert_eq!(f2.features.vertex_pipeline_stores_and_atomics, vk::FALSE);
    }

    #[test]
    fn nothing_changes_when_the_device_lacks_the_features() {
        let info = vk::DeviceCreateInfo::default();
        let mut keep = Modified::default();
        let none = vk::PhysicalDeviceFeatures::default();
        // SAFETY: a valid create info.
        let out = unsafe { with_debug_features(ptr(&info), &none, &mut keep) };
        assert_eq!(out, ptr(&info));
    }
}
