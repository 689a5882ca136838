//! Instrumented modules out through naga's back ends: GLSL for the GL paths
//! (desktop 4.30 core, where storage buffers exist), SPIR-V for Vulkan, WGSL
//! to read and to snapshot.

use std::collections::BTreeMap;

use naga::back::glsl;

use crate::instrument::Instrumented;
use crate::parse::error_chain;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    #[error("GLSL back end: {0}")]
    Glsl(String),
    #[error("WGSL back end: {0}")]
    Wgsl(String),
    #[error("SPIR-V back end: {0}")]
    Spirv(String),
    #[error("binding {0} does not fit GLSL's binding map (0..=255)")]
    Binding(u32),
}

/// GLSL `#version 430 core` with storage buffers; `binding_map` gives the GL
/// binding of each of the program's resources (the debug buffer's own
/// binding is added: its `@binding` number).
pub fn to_glsl(
    inst: &Instrumented,
    binding_map: &BTreeMap<naga::ResourceBinding, u8>,
) -> Result<String, EmitError> {
    let mut map = binding_map.clone();
    if let Some(b) = inst.debug_binding {
        let gl = u8::try_from(b.binding).map_err(|_| EmitError::Binding(b.binding))?;
        map.insert(b, gl);
    }
    let options = glsl::Options {
        version: glsl::Version::Desktop(430),
        writer_flags: glsl::WriterFlags::empty(),
        binding_map: map,
        zero_initialize_workgroup_memory: true,
    };
    let pipeline = glsl::PipelineOptions {
        shader_stage: inst.stage,
        entry_point: inst.entry_point.clone(),
        multiview: None,
    };
    let mut out = String::new();
    let mut w = glsl::Writer::new(
        &mut out,
        &inst.module,
        &inst.info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .map_err(|e| EmitError::Glsl(error_chain(&e)))?;
    w.write().map_err(|e| EmitError::Glsl(error_chain(&e)))?;
    Ok(out)
}

/// The module as WGSL.
pub fn to_wgsl(inst: &Instrumented) -> Result<String, EmitError> {
    naga::back::wgsl::write_string(
        &inst.module,
        &inst.info,
        naga::back::wgsl::WriterFlags::empty(),
    )
    .map_err(|e| EmitError::Wgsl(error_chain(&e)))
}

/// SPIR-V for the Vulkan path, written with `options` (the program's: its
/// binding map and flags; the debug buffer keeps its WGSL group/binding
/// unless the map says otherwise).
pub fn to_spirv(
    inst: &Instrumented,
    options: &naga::back::spv::Options,
) -> Result<Vec<u32>, EmitError> {
    let pipeline = naga::back::spv::PipelineOptions {
        shader_stage: inst.stage,
        entry_point: inst.entry_point.clone(),
    };
    naga::back::spv::write_vec(&inst.module, &inst.info, options, Some(&pipeline))
        .map_err(|e| EmitError::Spirv(error_chain(&e)))
}
