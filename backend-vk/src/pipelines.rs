//! Pipelines, their layouts, and their *twins*: a twin is the same
//! pipeline created again by the layer with one more descriptor set (the
//! debug set, holding the debug buffer instrumented shaders write), placed
//! after the application's sets so that the application's bindings stay
//! valid for it (pipeline layouts are compatible for every set below the
//! last). Shadow command buffers bind a twin where the application bound
//! its pipeline, and the debug set with it. Instrumented shader modules go
//! into the twin in place of the application's.

use std::collections::HashMap;
use std::mem::{align_of, size_of};
use std::sync::{Arc, Mutex, RwLock};

use ash::vk;

use crate::dispatch::{self, array, device, forget, with_next, Create, DeviceData, Void};
use crate::error::{check, Error};
use crate::replay::{self, Arena};

/// The debug buffer's size (fixed: room for the hits of a 1080p draw and a
/// recording of four million words).
pub const DEBUG_BUFFER_BYTES: u64 = 16 << 20;

dispatch::device_commands! {
    /// The next layer's commands this module uses, of one device.
    pub struct Next {
        create_graphics_pipelines: PFN_vkCreateGraphicsPipelines,
        create_compute_pipelines: PFN_vkCreateComputePipelines,
        destroy_pipeline: PFN_vkDestroyPipeline,
        create_pipeline_layout: PFN_vkCreatePipelineLayout,
        destroy_pipeline_layout: PFN_vkDestroyPipelineLayout,
        create_descriptor_set_layout: PFN_vkCreateDescriptorSetLayout,
        destroy_descriptor_set_layout: PFN_vkDestroyDescriptorSetLayout,
        create_descriptor_pool: PFN_vkCreateDescriptorPool,
        destroy_descriptor_pool: PFN_vkDestroyDescriptorPool,
        allocate_descriptor_sets: PFN_vkAllocateDescriptorSets,
        update_descriptor_sets: PFN_vkUpdateDescriptorSets,
        create_shader_module: PFN_vkCreateShaderModule,
        destroy_shader_module: PFN_vkDestroyShaderModule,
        create_buffer: PFN_vkCreateBuffer,
        destroy_buffer: PFN_vkDestroyBuffer,
        get_buffer_memory_requirements: PFN_vkGetBufferMemoryRequirements,
        allocate_memory: PFN_vkAllocateMemory,
        free_memory: PFN_vkFreeMemory,
        bind_buffer_memory: PFN_vkBindBufferMemory,
        map_memory: PFN_vkMapMemory,
        create_render_pass: PFN_vkCreateRenderPass,
        create_render_pass2: PFN_vkCreateRenderPass2 or c"vkCreateRenderPass2KHR",
        destroy_render_pass: PFN_vkDestroyRenderPass,
        pub cmd_bind_pipeline: PFN_vkCmdBindPipeline,
        pub cmd_bind_descriptor_sets: PFN_vkCmdBindDescriptorSets,
    }
}

/// A deep copy of a create info, in its own arena.
struct Copied<T> {
    _arena: Arena,
    info: *const T,
}

// SAFETY: the copy points only into its own arena, which moves with it and
// is never written after the copy is made.
unsafe impl<T> Send for Copied<T> {}
// SAFETY: as above; shared access only reads.
unsafe impl<T> Sync for Copied<T> {}

impl<T> Copied<T> {
    /// # Safety
    /// `info` is a valid `T` whose pointers are valid; `fix` is `T`'s fix-up.
    unsafe fn new(info: *const T, fix: replay::Fix) -> Result<Self, replay::NotReplayable> {
        let mut arena = Arena::default();
        // SAFETY: per this function's contract.
        let q = unsafe {
            let q = arena.copy(info.cast(), size_of::<T>(), align_of::<T>());
            fix(&mut arena, q.cast_mut())?;
            q
        };
        Ok(Copied {
            _arena: arena,
            info: q.cast(),
        })
    }

    fn get(&self) -> &T {
        // SAFETY: points into the arena this value owns.
        unsafe { &*self.info }
    }
}

type SetLayoutInfo = Copied<vk::DescriptorSetLayoutCreateInfo<'static>>;

/// A pipeline layout's create info, and that of each of its set layouts
/// (none where the layer did not see it created): programs may destroy
/// set layouts once their pipeline layouts exist, and twins' layouts are
/// made later, from set layouts made again.
struct LayoutInfo {
    info: Copied<vk::PipelineLayoutCreateInfo<'static>>,
    sets: Vec<Option<Arc<SetLayoutInfo>>>,
}

enum PipelineInfo {
    /// The create info, and the code of each stage's module (by stage
    /// index; none where the module came in the stage's `pNext` chain, whose
    /// copy holds the code): programs may destroy modules once their
    /// pipelines exist, and twins are made later.
    Graphics(
        Copied<vk::GraphicsPipelineCreateInfo<'static>>,
        Vec<Option<StageCode>>,
    ),
    Compute(
        Copied<vk::ComputePipelineCreateInfo<'static>>,
        Vec<Option<StageCode>>,
    ),
    /// Why this pipeline cannot have a twin.
    Unusable(&'static str),
}

/// A shader module's SPIR-V words.
pub type Code = Arc<Vec<u32>>;

/// A stage's module as the layer kept it: its code, the entry point the
/// stage runs, and the id the session knows that entry point by (none if
/// it could not be announced).
#[derive(Clone, Debug)]
pub struct StageCode {
    pub code: Code,
    pub entry_point: String,
    pub shader: Option<u32>,
    /// The storage the module declares that it could write (read from the
    /// code once: submissions ask for every pipeline they bind).
    pub writes: crate::spirv::WritableStorage,
}

/// A live shader module: its code and the session's id of each of its
/// entry points.
#[derive(Clone, Debug)]
struct ModuleCode {
    code: Code,
    shaders: Vec<(String, u32)>,
    writes: crate::spirv::WritableStorage,
}

impl ModuleCode {
    fn new(code: Vec<u32>, shaders: Vec<(String, u32)>) -> ModuleCode {
        ModuleCode {
            writes: crate::spirv::writable_storage(&code),
            code: Arc::new(code),
            shaders,
        }
    }

    /// What a stage running `entry_point` of this module runs.
    fn stage(&self, entry_point: &str) -> StageCode {
        StageCode {
            code: self.code.clone(),
            writes: self.writes,
            entry_point: entry_point.to_string(),
            shader: self
                .shaders
                .iter()
                .find(|(name, _)| name == entry_point)
                .map(|(_, id)| *id),
        }
    }
}

/// What a twin runs in place of each of the application's modules (given
/// the number of the debug set in the twin's layout).
pub type CodeFor<'a> = &'a dyn Fn(&StageCode, u32) -> Result<Code, Error>;

/// Set layouts for a twin's layout: every handle, and those the layer made.
#[derive(Default)]
struct SetLayoutsAgain {
    handles: Vec<vk::DescriptorSetLayout>,
    made: Vec<vk::DescriptorSetLayout>,
}

/// A pipeline of the layer's own standing in for an application's.
#[derive(Clone, Copy, Debug)]
pub struct Twin {
    pub pipeline: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    /// Where the debug set is bound.
    pub set: u32,
}

/// Bytes after the debug buffer's [`DEBUG_BUFFER_BYTES`] that instrumented
/// stages write to in draws that are not observed: its header holds no
/// room (a hit or record buffer of capacity 0, a 0 x 0 watch), so nothing
/// is written but header words.
const SCRATCH_BYTES: u64 = 256;

/// Where the debug set of a draw points (its bindings are dynamic storage
/// buffers: shadows bind it before each draw that runs an instrumented
/// stage, so that each draw can write to its own part of the buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugBinding {
    /// The debug buffer from these byte offsets (multiples of
    /// [`Pipelines::offset_alignment`]), one per binding ([`debug_slot`]),
    /// as far as [`Pipelines::set_debug_range`] says.
    Buffer([u32; DEBUG_SLOTS]),
    /// The scratch header: nothing the draw writes is kept.
    Scratch,
}

impl DebugBinding {
    /// Every binding at `offset`.
    pub fn at(offset: u32) -> DebugBinding {
        DebugBinding::Buffer([offset; DEBUG_SLOTS])
    }
}

/// Bindings of the debug set: one for the fragment stage, one for every
/// other, so that the vertex and fragment stages of a draw can both be
/// hit-tested, each writing a region of its own.
pub const DEBUG_SLOTS: usize = 2;

/// The debug set's binding an instrumented stage writes (instrumenters
/// declare binding 0; a twin's fragment module is moved to 1).
pub fn debug_slot(stage: shaderdbg_core::Stage) -> usize {
    usize::from(stage == shaderdbg_core::Stage::Fragment)
}

/// [`debug_slot`] of a pipeline stage.
fn slot_of(stage: vk::ShaderStageFlags) -> usize {
    use shaderdbg_core::Stage;
    let fragment = stage == vk::ShaderStageFlags::FRAGMENT;
    debug_slot(if fragment {
        Stage::Fragment
    } else {
        Stage::Vertex
    })
}

/// The debug buffer and the descriptor sets that hold it.
struct DebugSet {
    layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    /// The debug buffer (a dynamic offset into it, `range` bytes).
    set: vk::DescriptorSet,
    /// The scratch header after it.
    scratch: vk::DescriptorSet,
    range: u64,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// The buffer's memory, mapped for as long as it lives (coherent).
    words: *mut u32,
}

// SAFETY: `words` is host memory of the device's, used under the mutex
// that holds this value.
unsafe impl Send for DebugSet {}

/// Pipelines of one device.
#[derive(Default)]
pub struct Pipelines {
    pub next: Next,
    /// The physical device's memory types (for the debug buffer).
    pub memory: vk::PhysicalDeviceMemoryProperties,
    /// The physical device's limits (descriptor sets, offset alignments).
    pub limits: vk::PhysicalDeviceLimits,
    infos: RwLock<crate::dispatch::HandleMap<u64, Arc<PipelineInfo>>>,
    /// Live shader modules' code, by handle.
    modules: RwLock<crate::dispatch::HandleMap<u64, ModuleCode>>,
    layouts: RwLock<HashMap<u64, Arc<LayoutInfo>>>,
    /// Live descriptor set layouts' create infos, by handle.
    set_layouts: RwLock<crate::dispatch::HandleMap<u64, Arc<SetLayoutInfo>>>,
    /// By application pipeline and variant.
    twins: Mutex<crate::dispatch::HandleMap<(u64, u64), Twin>>,
    debug: Mutex<Option<DebugSet>>,
}

/// This module's hooks.
pub fn intercepted(name: &[u8]) -> Option<Void> {
    match name {
        b"vkCreateGraphicsPipelines" => hook!(PFN_vkCreateGraphicsPipelines, create_graphics),
        b"vkCreateComputePipelines" => hook!(PFN_vkCreateComputePipelines, create_compute),
        b"vkDestroyPipeline" => hook!(PFN_vkDestroyPipeline, destroy_pipeline),
        b"vkDestroyShaderModule" => hook!(PFN_vkDestroyShaderModule, destroy_module),
        b"vkCreatePipelineLayout" => hook!(PFN_vkCreatePipelineLayout, create_layout),
        b"vkDestroyPipelineLayout" => hook!(PFN_vkDestroyPipelineLayout, destroy_layout),
        b"vkCreateDescriptorSetLayout" => {
            hook!(PFN_vkCreateDescriptorSetLayout, create_set_layout)
        }
        b"vkDestroyDescriptorSetLayout" => {
            hook!(PFN_vkDestroyDescriptorSetLayout, destroy_set_layout)
        }
        b"vkCreateRenderPass" => hook!(PFN_vkCreateRenderPass, create_render_pass),
        b"vkCreateRenderPass2" | b"vkCreateRenderPass2KHR" => {
            hook!(PFN_vkCreateRenderPass2, create_render_pass2)
        }
        b"vkDestroyRenderPass" => hook!(PFN_vkDestroyRenderPass, destroy_render_pass),
        _ => None,
    }
}

/// Remembers copies of the create infos of `count` pipelines just created.
///
/// # Safety
/// `infos` and `out` are the application's, after a successful call.
unsafe fn remember<T>(
    d: &DeviceData,
    count: u32,
    infos: *const T,
    out: *const vk::Pipeline,
    kind: &Kind<T>,
) {
    let Kind {
        fix,
        stages,
        stage_ptrs,
        wrap,
    } = *kind;
    // SAFETY: per this function's contract.
    let (infos, out) = unsafe {
        (
            std::slice::from_raw_parts(infos, count as usize),
            std::slice::from_raw_parts(out, count as usize),
        )
    };
    // Copies, and the code of modules that came in the stages' chains
    // (announced to the session like modules), before taking any lock:
    // announcing waits for the session.
    let copies: Vec<(vk::Pipeline, Result<_, replay::NotReplayable>)> = infos
        .iter()
        .zip(out)
        .filter(|(_, p)| **p != vk::Pipeline::null())
        .map(|(info, p)| {
            // SAFETY: the application's valid create info.
            let copied = unsafe { Copied::new(info, fix) }.map(|c| {
                // SAFETY: the copy is this function's alone yet; its
                // stages and their chains live in its arena.
                let (first, n) = unsafe { stage_ptrs(c.info.cast_mut()) };
                let chained: Vec<Option<ModuleCode>> = (0..n)
                    .map(|i| {
                        // SAFETY: as above; `n` stages at `first`.
                        let code = unsafe { unchain_module(first.add(i)) }?;
                        let shaders = crate::agent::debugger()
                            .map(|dbg| {
                                let context = vk::Handle::as_raw(d.handle);
                                crate::agent::announce_module(dbg, context, &code)
                            })
                            .unwrap_or_default();
                        Some(ModuleCode::new(code, shaders))
                    })
                    .collect();
                (c, chained)
            });
            (*p, copied)
        })
        .collect();
    let modules = d
        .pipelines
        .modules
        .read()
        .unwrap_or_else(|e| e.into_inner());
    let made: Vec<(vk::Pipeline, PipelineInfo)> = copies
        .into_iter()
        .map(|(p, copied)| {
            let info = match copied {
                Ok((c, chained)) => {
                    let code = stages(c.get())
                        .iter()
                        .zip(chained)
                        .map(|(st, chained)| {
                            let module = match &chained {
                                Some(m) => m,
                                None => modules.get(&vk::Handle::as_raw(st.module))?,
                            };
                            // SAFETY: the copy's entry point names are NUL-terminated strings.
                            let name = unsafe { st.name_as_c_str() }?;
                            Some(module.stage(&name.to_string_lossy()))
                        })
                        .collect();
                    wrap(c, code)
                }
                Err(why) => PipelineInfo::Unusable(why.0),
            };
            (p, info)
        })
        .collect();
    drop(modules);
    let mut map = d.pipelines.infos.write().unwrap_or_else(|e| e.into_inner());
    for (p, info) in made {
        map.insert(vk::Handle::as_raw(p), Arc::new(info));
    }
}

/// What differs between graphics and compute pipelines' create infos `T`.
struct Kind<T> {
    /// `T`'s deep-copy fix-up.
    fix: replay::Fix,
    stages: fn(&T) -> &[vk::PipelineShaderStageCreateInfo<'static>],
    stage_ptrs: StagePtrs<T>,
    wrap: fn(Copied<T>, Vec<Option<StageCode>>) -> PipelineInfo,
}

impl<T> Clone for Kind<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Kind<T> {}

/// Where a (copied) create info's stages are, and how many, to change them.
type StagePtrs<T> = unsafe fn(*mut T) -> (*mut vk::PipelineShaderStageCreateInfo<'static>, usize);

/// # Safety
/// `i` is a valid create info.
unsafe fn graphics_stages(
    i: *mut vk::GraphicsPipelineCreateInfo<'static>,
) -> (*mut vk::PipelineShaderStageCreateInfo<'static>, usize) {
    // SAFETY: per this function's contract.
    unsafe { ((*i).p_stages.cast_mut(), (*i).stage_count as usize) }
}

/// # Safety
/// `i` is a valid create info.
unsafe fn compute_stage(
    i: *mut vk::ComputePipelineCreateInfo<'static>,
) -> (*mut vk::PipelineShaderStageCreateInfo<'static>, usize) {
    // SAFETY: per this function's contract.
    (unsafe { std::ptr::addr_of_mut!((*i).stage) }, 1)
}

/// The code of the `VkShaderModuleCreateInfo` in a stage's chain (a stage
/// with no module handle), taken out of the chain: a twin's stage gets a
/// module made from the code.
///
/// # Safety
/// `stage` and its chain are valid and the caller's alone to change.
unsafe fn unchain_module(
    stage: *mut vk::PipelineShaderStageCreateInfo<'static>,
) -> Option<Vec<u32>> {
    // SAFETY: per this function's contract.
    unsafe {
        if (*stage).module != vk::ShaderModule::null() {
            return None;
        }
        let mut link: *mut *const std::ffi::c_void = &mut (*stage).p_next;
        while !(*link).is_null() {
            let node = (*link).cast::<vk::BaseInStructure>();
            if (*node).s_type == vk::StructureType::SHADER_MODULE_CREATE_INFO {
                let info = &*node.cast::<vk::ShaderModuleCreateInfo>();
                let code = array(info.p_code, (info.code_size / 4) as u32).to_vec();
                *link = info.p_next;
                return Some(code);
            }
            link = std::ptr::addr_of_mut!((*node.cast_mut()).p_next).cast();
        }
        None
    }
}

/// A twin's creation flags, from its application pipeline's: derived from
/// no pipeline, and compiled (a twin is made without the application's
/// cache: asking for it from the cache only would fail).
fn twin_flags(app: vk::PipelineCreateFlags) -> vk::PipelineCreateFlags {
    app & !(vk::PipelineCreateFlags::DERIVATIVE
        | vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED
        | vk::PipelineCreateFlags::EARLY_RETURN_ON_FAILURE)
}

/// The next layer's `vkCreateGraphicsPipelines` or `vkCreateComputePipelines`.
type CreatePipelines<I> = unsafe extern "system" fn(
    vk::Device,
    vk::PipelineCache,
    u32,
    *const I,
    *const vk::AllocationCallbacks<'_>,
    *mut vk::Pipeline,
) -> vk::Result;

/// Creates one pipeline of the layer's own down the chain.
///
/// # Safety
/// `info` is valid; `dev` is the device `create` belongs to.
unsafe fn create_one<I>(
    create: Option<CreatePipelines<I>>,
    dev: vk::Device,
    info: &I,
    out: &mut vk::Pipeline,
) -> vk::Result {
    match create {
        // SAFETY: per this function's contract.
        Some(f) => unsafe {
            f(
                dev,
                vk::PipelineCache::null(),
                1,
                info,
                std::ptr::null(),
                out,
            )
        },
        None => vk::Result::ERROR_INITIALIZATION_FAILED,
    }
}

/// Creates pipelines down the chain, then remembers copies of their create
/// infos (see [`remember`]).
///
/// # Safety
/// The arguments are the application's, valid for the command.
#[allow(clippy::too_many_arguments)]
unsafe fn create_pipelines<I>(
    dev: vk::Device,
    cache: vk::PipelineCache,
    count: u32,
    infos: *const I,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Pipeline,
    next: impl FnOnce(&Next) -> Option<CreatePipelines<I>>,
    kind: &Kind<I>,
) -> vk::Result {
    let Some((d, next)) = with_next(device(dev), |d| next(&d.pipelines.next)) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, down the chain.
    let result = unsafe { next(dev, cache, count, infos, allocator, out) };
    // With any success code each pipeline made is in `out`, null where one
    // was not made (`VK_PIPELINE_COMPILE_REQUIRED`: not in the cache, or
    // left after an early return).
    if result.as_raw() >= 0 {
        // SAFETY: the call wrote `count` pipelines or nulls.
        unsafe { remember(&d, count, infos, out, kind) };
        // SAFETY: the call wrote `count` pipelines.
        let made = unsafe { std::slice::from_raw_parts(out, count as usize) };
        for (shader, why) in d.pipelines.without_a_free_set(made) {
            crate::agent::withdraw(shader, &why);
        }
    }
    result
}

/// A hook `$hook` of the application's `$info`s that hands its arguments
/// (the infos typed as the layer keeps their copies) to `$create`, then the
/// arguments that say which command and kind it is: `pipelines`, a
/// `vkCreate*Pipelines`; else a `vkCreate*` of one `$handle`.
macro_rules! forward_create {
    ($hook:ident: pipelines of $info:ident => $create:ident($($more:expr),+ $(,)?)) => {
        unsafe extern "system" fn $hook(
            dev: vk::Device,
            cache: vk::PipelineCache,
            count: u32,
            infos: *const vk::$info<'_>,
            allocator: *const vk::AllocationCallbacks<'_>,
            out: *mut vk::Pipeline,
        ) -> vk::Result {
            let infos = infos.cast::<vk::$info<'static>>();
            // SAFETY: the application's arguments.
            unsafe { $create(dev, cache, count, infos, allocator, out, $($more),+) }
        }
    };
    ($hook:ident: $info:ident -> $handle:ident => $create:ident($($more:expr),+ $(,)?)) => {
        unsafe extern "system" fn $hook(
            dev: vk::Device,
            info: *const vk::$info<'_>,
            allocator: *const vk::AllocationCallbacks<'_>,
            out: *mut vk::$handle,
        ) -> vk::Result {
            let info = info.cast::<vk::$info<'static>>();
            // SAFETY: the application's arguments.
            unsafe { $create(dev, info, allocator, out, $($more),+) }
        }
    };
}

forward_create!(create_graphics: pipelines of GraphicsPipelineCreateInfo => create_pipelines(
    |n| n.create_graphics_pipelines,
    &Kind {
        fix: replay::fix_graphics_pipeline,
        stages: |i| stage_slice(i.p_stages, i.stage_count),
        stage_ptrs: graphics_stages,
        wrap: PipelineInfo::Graphics,
    },
));

forward_create!(create_compute: pipelines of ComputePipelineCreateInfo => create_pipelines(
    |n| n.create_compute_pipelines,
    &Kind {
        fix: replay::fix_compute_pipeline,
        stages: |i| std::slice::from_ref(&i.stage),
        stage_ptrs: compute_stage,
        wrap: PipelineInfo::Compute,
    },
));

/// A create info's stages.
fn stage_slice<'a>(
    p: *const vk::PipelineShaderStageCreateInfo<'static>,
    n: u32,
) -> &'a [vk::PipelineShaderStageCreateInfo<'static>] {
    // SAFETY: a (copied) create info names `n` stages at `p`, alive as long
    // as the copy, which outlives every use here.
    unsafe { array(p, n) }
}

dispatch::destroy_and_forget!(
    destroy_module,
    vk::ShaderModule,
    pipelines.next.destroy_shader_module,
    pipelines.modules
);

unsafe extern "system" fn destroy_pipeline(
    dev: vk::Device,
    pipeline: vk::Pipeline,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    let forget_twins = |p: &Pipelines, raw: u64| {
        forget(&p.infos, raw);
        let gone: Vec<Twin> = {
            let mut twins = p.twins.lock().unwrap_or_else(|e| e.into_inner());
            let keys: Vec<(u64, u64)> = twins.keys().filter(|k| k.0 == raw).copied().collect();
            keys.iter().filter_map(|k| twins.remove(k)).collect()
        };
        for t in gone {
            // SAFETY: the application destroys its pipeline only when no
            // command buffer using it is pending, so neither is the twin's
            // shadow.
            unsafe { p.destroy_twin(dev, t) };
        }
    };
    // SAFETY: the application's arguments.
    unsafe {
        dispatch::destroy(
            dev,
            pipeline,
            allocator,
            |d| d.pipelines.next.destroy_pipeline,
            |d, raw| forget_twins(&d.pipelines, raw),
        )
    }
}

dispatch::destroy_and_forget!(
    destroy_render_pass,
    vk::RenderPass,
    pipelines.next.destroy_render_pass,
    storage.images.passes
);

dispatch::destroy_and_forget!(
    destroy_layout,
    vk::PipelineLayout,
    pipelines.next.destroy_pipeline_layout,
    pipelines.layouts
);

dispatch::destroy_and_forget!(
    destroy_set_layout,
    vk::DescriptorSetLayout,
    pipelines.next.destroy_descriptor_set_layout,
    pipelines.set_layouts
);

/// Creates an object down the chain; on success, `keep` is given a deep
/// copy of its create info (made with `fix`) and its handle.
///
/// # Safety
/// The arguments are the application's, valid for the command.
unsafe fn create_copied<I, H: vk::Handle + Copy>(
    dev: vk::Device,
    info: *const I,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
    next: impl FnOnce(&Next) -> Option<Create<I, H>>,
    fix: replay::Fix,
    keep: impl FnOnce(&Pipelines, Copied<I>, u64),
) -> vk::Result {
    let keep = |d: &DeviceData, info: &I, h: H| {
        // SAFETY: the application's valid create info.
        if let Ok(c) = unsafe { Copied::new(info, fix) } {
            keep(&d.pipelines, c, h.as_raw());
        }
    };
    // SAFETY: per this function's contract.
    unsafe { dispatch::create(dev, info, allocator, out, |d| next(&d.pipelines.next), keep) }
}

forward_create!(create_set_layout: DescriptorSetLayoutCreateInfo -> DescriptorSetLayout
    => create_copied(
        |n| n.create_descriptor_set_layout,
        replay::fix_set_layout,
        |p: &Pipelines, c, raw| dispatch::remember(&p.set_layouts, raw, Arc::new(c)),
    )
);

forward_create!(create_layout: PipelineLayoutCreateInfo -> PipelineLayout => create_copied(
    |n| n.create_pipeline_layout,
    replay::fix_pipeline_layout,
    keep_layout,
));

/// Keeps a pipeline layout's copy with its set layouts' copies (those the
/// layer knows).
fn keep_layout(p: &Pipelines, c: Copied<vk::PipelineLayoutCreateInfo<'static>>, raw: u64) {
    let sets = {
        let known = p.set_layouts.read().unwrap_or_else(|e| e.into_inner());
        let app = c.get();
        // SAFETY: the copy holds `set_layout_count` layouts.
        let handles = unsafe { array(app.p_set_layouts, app.set_layout_count) };
        handles
            .iter()
            .map(|h| known.get(&vk::Handle::as_raw(*h)).cloned())
            .collect()
    };
    dispatch::remember(&p.layouts, raw, Arc::new(LayoutInfo { info: c, sets }));
}

/// Creates a render pass down the chain (the next layer's
/// `vkCreateRenderPass` or `vkCreateRenderPass2`), then remembers its
/// attachments (image snapshots need each attachment's load and layout).
///
/// # Safety
/// The arguments are the application's, valid for the command.
unsafe fn create_pass<I: crate::images::PassAttachments>(
    dev: vk::Device,
    info: *const I,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::RenderPass,
    next: impl FnOnce(&Next) -> Option<Create<I, vk::RenderPass>>,
) -> vk::Result {
    let keep = |d: &DeviceData, info: &I, pass| {
        // SAFETY: a valid create info.
        crate::images::remember_pass(d, pass, unsafe { info.pass_attachments() });
    };
    // SAFETY: per this function's contract.
    unsafe { dispatch::create(dev, info, allocator, out, |d| next(&d.pipelines.next), keep) }
}

forward_create!(create_render_pass: RenderPassCreateInfo -> RenderPass => create_pass(
    |n| n.create_render_pass
));

forward_create!(create_render_pass2: RenderPassCreateInfo2 -> RenderPass => create_pass(
    |n| n.create_render_pass2
));

impl Pipelines {
    /// Keeps a module's code (for twins made after the module is gone) and
    /// the session's ids of its entry points, by name.
    pub fn remember_module(
        &self,
        module: vk::ShaderModule,
        code: &[u32],
        shaders: Vec<(String, u32)>,
    ) {
        let module_code = ModuleCode::new(code.to_vec(), shaders);
        dispatch::remember(&self.modules, vk::Handle::as_raw(module), module_code);
    }

    /// What `f` makes of the stages' modules of an application's pipeline
    /// (none for a pipeline the layer does not know).
    fn with_stages<R>(
        &self,
        pipeline: vk::Pipeline,
        f: impl FnOnce(&mut dyn Iterator<Item = &StageCode>) -> R,
    ) -> R {
        let infos = self.infos.read().unwrap_or_else(|e| e.into_inner());
        match infos.get(&vk::Handle::as_raw(pipeline)).map(|i| &**i) {
            Some(PipelineInfo::Graphics(_, c) | PipelineInfo::Compute(_, c)) => {
                f(&mut c.iter().flatten())
            }
            _ => f(&mut std::iter::empty()),
        }
    }

    /// The number of the debug set in a twin of a pipeline with this
    /// layout (one after the application's sets), or why there is none.
    fn debug_set_number(&self, layout: &vk::PipelineLayoutCreateInfo) -> Result<u32, Error> {
        let max = self.limits.max_bound_descriptor_sets;
        let used = layout.set_layout_count;
        // 0: the limits could not be read.
        if max != 0 && used >= max {
            return Err(Error::NoFreeSet { max });
        }
        Ok(used)
    }

    /// The modules of `pipelines` whose layouts leave no descriptor set for
    /// the debug buffer (the session's ids), with why.
    fn without_a_free_set(&self, pipelines: &[vk::Pipeline]) -> Vec<(u32, String)> {
        let mut out = Vec::new();
        let layouts = self.layouts.read().unwrap_or_else(|e| e.into_inner());
        for p in pipelines {
            let layout = {
                let infos = self.infos.read().unwrap_or_else(|e| e.into_inner());
                match infos.get(&vk::Handle::as_raw(*p)).map(|i| &**i) {
                    Some(PipelineInfo::Graphics(c, _)) => c.get().layout,
                    Some(PipelineInfo::Compute(c, _)) => c.get().layout,
                    _ => continue,
                }
            };
            let Some(info) = layouts.get(&vk::Handle::as_raw(layout)) else {
                continue;
            };
            if let Err(why) = self.debug_set_number(info.info.get()) {
                out.extend(
                    self.shaders_of(*p)
                        .into_iter()
                        .map(|s| (s, why.to_string())),
                );
            }
        }
        out
    }

    /// The session's ids of the modules of an application's pipeline.
    pub fn shaders_of(&self, pipeline: vk::Pipeline) -> Vec<u32> {
        self.with_stages(pipeline, |st| st.filter_map(|s| s.shader).collect())
    }

    /// The storage the pipeline's modules declare that they could write.
    pub fn writable_storage(&self, pipeline: vk::Pipeline) -> crate::spirv::WritableStorage {
        self.with_stages(pipeline, |st| {
            st.fold(crate::spirv::WritableStorage::default(), |all, s| {
                crate::spirv::WritableStorage {
                    buffers: all.buffers || s.writes.buffers,
                    images: all.images || s.writes.images,
                }
            })
        })
    }

    pub fn new(
        next: Next,
        memory: vk::PhysicalDeviceMemoryProperties,
        limits: vk::PhysicalDeviceLimits,
    ) -> Self {
        Pipelines {
            next,
            memory,
            limits,
            ..Default::default()
        }
    }

    /// The first of the device's memory types among `allowed` (a resource's
    /// `memoryTypeBits`) whose properties include `flags`.
    pub fn memory_type(&self, allowed: u32, flags: vk::MemoryPropertyFlags) -> Option<u32> {
        let mem = &self.memory;
        (0..mem.memory_type_count).find(|&i| {
            allowed & (1 << i) != 0 && mem.memory_types[i as usize].property_flags.contains(flags)
        })
    }

    /// What dynamic offsets into the debug buffer are multiples of.
    pub fn offset_alignment(&self) -> u64 {
        self.limits.min_storage_buffer_offset_alignment.max(16)
    }

    /// The twin of the application's `pipeline` whose stages run the code
    /// `code_for` makes of each stage's module, made on first use; `variant`
    /// names that code (twins are kept per pipeline and variant).
    ///
    /// # Safety
    /// `dev` is this device; `pipeline` is alive.
    pub unsafe fn twin(
        &self,
        dev: vk::Device,
        pipeline: vk::Pipeline,
        variant: u64,
        code_for: CodeFor<'_>,
    ) -> Result<Twin, Error> {
        let raw = vk::Handle::as_raw(pipeline);
        let mut twins = self.twins.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = twins.get(&(raw, variant)) {
            return Ok(*t);
        }
        let info = self
            .infos
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&raw)
            .cloned()
            .ok_or(Error::Unseen("a pipeline this layer did not see created"))?;
        let app_layout = match &*info {
            PipelineInfo::Graphics(c, _) => c.get().layout,
            PipelineInfo::Compute(c, _) => c.get().layout,
            PipelineInfo::Unusable(why) => return Err(Error::Cannot(why)),
        };
        let layout_info = self
            .layouts
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&vk::Handle::as_raw(app_layout))
            .cloned()
            .ok_or(Error::Unseen(
                "a pipeline layout this layer did not see created",
            ))?;
        // SAFETY: `dev` is this device.
        let debug_layout = unsafe { self.debug_set(dev)? }.0;
        let app = layout_info.info.get();
        let set = self.debug_set_number(app)?;
        let (Some(create_layout), Some(destroy_layout)) = (
            self.next.create_pipeline_layout,
            self.next.destroy_pipeline_layout,
        ) else {
            return Err(Error::Lacks("vkCreatePipelineLayout"));
        };
        // The application's set layouts made again (it may have destroyed
        // them): a layout of identically defined set layouts is compatible.
        // SAFETY: `dev` is this device.
        let again = unsafe { self.set_layouts_again(dev, &layout_info)? };
        let mut sets = again.handles.clone();
        sets.push(debug_layout);
        let mut twin_layout_info = *app;
        twin_layout_info.set_layout_count = sets.len() as u32;
        twin_layout_info.p_set_layouts = sets.as_ptr();
        let mut layout = vk::PipelineLayout::null();
        // SAFETY: the application's layout with one more set, down the chain.
        let r = unsafe { create_layout(dev, &twin_layout_info, std::ptr::null(), &mut layout) };
        // SAFETY: set layouts of the layer's own; a pipeline layout keeps
        // what it needs of them.
        unsafe { self.destroy_set_layouts(dev, &again.made) };
        check(r, "creating the twin's layout")?;
        let (app_stages, code) = match &*info {
            PipelineInfo::Graphics(c, code) => {
                (stage_slice(c.get().p_stages, c.get().stage_count), code)
            }
            PipelineInfo::Compute(c, code) => (std::slice::from_ref(&c.get().stage), code),
            PipelineInfo::Unusable(why) => return Err(Error::Cannot(why)),
        };
        let mut modules = Vec::new();
        // SAFETY: `dev` is this device.
        let stages =
            unsafe { self.fresh_stages(dev, app_stages, code, code_for, set, &mut modules) };
        let stages = match stages {
            Ok(s) => s,
            Err(why) => {
                // SAFETY: objects of the layer's own, unused.
                unsafe { self.destroy_partial(dev, layout, &modules) };
                return Err(why);
            }
        };
        // The application's create info (copied) with the twin's layout and
        // modules, derived from no other pipeline.
        macro_rules! twin_of {
            ($i:ident) => {
                $i.layout = layout;
                $i.flags = twin_flags($i.flags);
                $i.base_pipeline_handle = vk::Pipeline::null();
                $i.base_pipeline_index = -1;
            };
        }
        let mut out = vk::Pipeline::null();
        let r = match &*info {
            PipelineInfo::Graphics(c, _) => {
                let mut i = *c.get();
                i.p_stages = stages.as_ptr();
                twin_of!(i);
                // SAFETY: a valid create info, down the chain.
                unsafe { create_one(self.next.create_graphics_pipelines, dev, &i, &mut out) }
            }
            PipelineInfo::Compute(c, _) => {
                let mut i = *c.get();
                i.stage = stages[0];
                twin_of!(i);
                // SAFETY: as above.
                unsafe { create_one(self.next.create_compute_pipelines, dev, &i, &mut out) }
            }
            PipelineInfo::Unusable(why) => return Err(Error::Cannot(why)),
        };
        if let Some(destroy) = self.next.destroy_shader_module {
            for m in modules {
                // SAFETY: modules of the layer's own; a pipeline keeps what it needs.
                unsafe { destroy(dev, m, std::ptr::null()) };
            }
        }
        if r != vk::Result::SUCCESS {
            // SAFETY: the layout just created, unused.
            unsafe { destroy_layout(dev, layout, std::ptr::null()) };
            return Err(Error::Vk {
                what: "creating the twin pipeline",
                result: r,
            });
        }
        let twin = Twin {
            pipeline: out,
            layout,
            set,
        };
        twins.insert((raw, variant), twin);
        Ok(twin)
    }

    /// The set layouts of `layout` for a twin's: each made again from the
    /// copy of its create info (the application's handle where the layer
    /// did not see it created).
    ///
    /// # Safety
    /// `dev` is this device.
    unsafe fn set_layouts_again(
        &self,
        dev: vk::Device,
        layout: &LayoutInfo,
    ) -> Result<SetLayoutsAgain, Error> {
        let create = self
            .next
            .create_descriptor_set_layout
            .ok_or(Error::Lacks("vkCreateDescriptorSetLayout"))?;
        let app = layout.info.get();
        // SAFETY: the copy holds `set_layout_count` layouts.
        let handles = unsafe { array(app.p_set_layouts, app.set_layout_count) };
        let mut out = SetLayoutsAgain::default();
        for (h, copy) in handles.iter().zip(&layout.sets) {
            let Some(copy) = copy else {
                out.handles.push(*h);
                continue;
            };
            let mut made = vk::DescriptorSetLayout::null();
            // SAFETY: a copy of a create info the device accepted.
            let r = unsafe { create(dev, copy.get(), std::ptr::null(), &mut made) };
            if r != vk::Result::SUCCESS {
                // SAFETY: the layer's own, unused.
                unsafe { self.destroy_set_layouts(dev, &out.made) };
                return Err(Error::Vk {
                    what: "making the application's set layout again",
                    result: r,
                });
            }
            out.handles.push(made);
            out.made.push(made);
        }
        Ok(out)
    }

    /// # Safety
    /// `layouts` are the layer's own, not needed any more.
    unsafe fn destroy_set_layouts(&self, dev: vk::Device, layouts: &[vk::DescriptorSetLayout]) {
        if let Some(destroy) = self.next.destroy_descriptor_set_layout {
            for l in layouts {
                // SAFETY: per this function's contract.
                unsafe { destroy(dev, *l, std::ptr::null()) };
            }
        }
    }

    /// `stages` with each module made afresh from the code kept for it (the
    /// application's may be gone); the modules made are pushed on `made`.
    ///
    /// # Safety
    /// `dev` is this device.
    unsafe fn fresh_stages(
        &self,
        dev: vk::Device,
        stages: &[vk::PipelineShaderStageCreateInfo<'static>],
        code: &[Option<StageCode>],
        code_for: CodeFor<'_>,
        set: u32,
        made: &mut Vec<vk::ShaderModule>,
    ) -> Result<Vec<vk::PipelineShaderStageCreateInfo<'static>>, Error> {
        let create = self
            .next
            .create_shader_module
            .ok_or(Error::Lacks("vkCreateShaderModule"))?;
        let mut out = stages.to_vec();
        for (st, code) in out.iter_mut().zip(code) {
            let Some(code) = code else {
                // The module is in the stage's pNext chain (copied), or absent.
                continue;
            };
            let mut code = code_for(code, set)?;
            let slot = slot_of(st.stage) as u32;
            if slot != 0 {
                // The stage's debug buffer at the stage's binding.
                let mut moved = code.to_vec();
                if crate::spirv::rebind(&mut moved, set, slot) {
                    code = Arc::new(moved);
                }
            }
            let info = vk::ShaderModuleCreateInfo::default().code(&code);
            let mut module = vk::ShaderModule::null();
            // SAFETY: SPIR-V words, down the chain.
            let r = unsafe { create(dev, &info, std::ptr::null(), &mut module) };
            check(r, "creating the twin's shader module")?;
            made.push(module);
            st.module = module;
        }
        Ok(out)
    }

    /// Destroys a twin's layout and modules made before its creation failed.
    ///
    /// # Safety
    /// The objects are the layer's own and unused.
    unsafe fn destroy_partial(
        &self,
        dev: vk::Device,
        layout: vk::PipelineLayout,
        modules: &[vk::ShaderModule],
    ) {
        // SAFETY: per this function's contract.
        unsafe {
            if let Some(f) = self.next.destroy_shader_module {
                for m in modules {
                    f(dev, *m, std::ptr::null());
                }
            }
            if let Some(f) = self.next.destroy_pipeline_layout {
                f(dev, layout, std::ptr::null());
            }
        }
    }

    /// The debug set's layout and the set, made on first use; where that
    /// fails, what was made is destroyed again.
    ///
    /// # Safety
    /// `dev` is this device.
    unsafe fn debug_set(
        &self,
        dev: vk::Device,
    ) -> Result<(vk::DescriptorSetLayout, vk::DescriptorSet), Error> {
        let mut debug = self.debug.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = &*debug {
            return Ok((d.layout, d.set));
        }
        let mut made = DebugSet {
            layout: vk::DescriptorSetLayout::null(),
            pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            scratch: vk::DescriptorSet::null(),
            range: DEBUG_BUFFER_BYTES,
            buffer: vk::Buffer::null(),
            memory: vk::DeviceMemory::null(),
            words: std::ptr::null_mut(),
        };
        // SAFETY: `dev` is this device.
        match unsafe { self.make_debug_set(dev, &mut made) } {
            Ok(()) => {
                let ours = (made.layout, made.set);
                *debug = Some(made);
                Ok(ours)
            }
            Err(why) => {
                // SAFETY: objects of the layer's own, never used.
                unsafe { self.destroy_debug_set(dev, &made) };
                Err(why)
            }
        }
    }

    /// Makes the debug set's objects into `d` (those made so far are there
    /// when it fails).
    ///
    /// # Safety
    /// `dev` is this device.
    unsafe fn make_debug_set(&self, dev: vk::Device, d: &mut DebugSet) -> Result<(), Error> {
        let n = &self.next;
        let (
            Some(create_dsl),
            Some(create_pool),
            Some(allocate_sets),
            Some(update_sets),
            Some(create_buffer),
            Some(requirements),
            Some(allocate_memory),
            Some(bind_memory),
            Some(map),
        ) = (
            n.create_descriptor_set_layout,
            n.create_descriptor_pool,
            n.allocate_descriptor_sets,
            n.update_descriptor_sets,
            n.create_buffer,
            n.get_buffer_memory_requirements,
            n.allocate_memory,
            n.bind_buffer_memory,
            n.map_memory,
        )
        else {
            return Err(Error::Lacks("a descriptor or buffer command"));
        };
        let check_named = |result: vk::Result, what: &'static str| {
            if result == vk::Result::SUCCESS {
                Ok(())
            } else {
                Err(Error::VkNamed { what, result })
            }
        };
        let fragment = vk::ShaderStageFlags::FRAGMENT;
        let binding = |slot: usize, stages| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(slot as u32)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER_DYNAMIC)
                .descriptor_count(1)
                .stage_flags(stages)
        };
        let bindings = [
            binding(
                slot_of(vk::ShaderStageFlags::VERTEX),
                vk::ShaderStageFlags::ALL & !fragment,
            ),
            binding(slot_of(fragment), fragment),
        ];
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid create infos of the layer's own, down the chain (here and below).
        unsafe {
            check_named(
                create_dsl(dev, &info, std::ptr::null(), &mut d.layout),
                "the debug set layout",
            )?;
            let sizes = [vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER_DYNAMIC,
                descriptor_count: 2 * DEBUG_SLOTS as u32,
            }];
            let info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(2)
                .pool_sizes(&sizes);
            check_named(
                create_pool(dev, &info, std::ptr::null(), &mut d.pool),
                "the debug descriptor pool",
            )?;
            let layouts = [d.layout; 2];
            let info = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(d.pool)
                .set_layouts(&layouts);
            let mut sets = [vk::DescriptorSet::null(); 2];
            check_named(
                allocate_sets(dev, &info, sets.as_mut_ptr()),
                "the debug sets",
            )?;
            [d.set, d.scratch] = sets;
            let info = vk::BufferCreateInfo::default()
                .size(DEBUG_BUFFER_BYTES + SCRATCH_BYTES)
                .usage(vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST)
                .sharing_mode(vk::SharingMode::EXCLUSIVE);
            check_named(
                create_buffer(dev, &info, std::ptr::null(), &mut d.buffer),
                "the debug buffer",
            )?;
            let mut req = vk::MemoryRequirements::default();
            requirements(dev, d.buffer, &mut req);
            let wanted =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let index = self
                .memory_type(req.memory_type_bits, wanted)
                .ok_or(Error::NoMemory(
                    "no host-visible, coherent memory for the debug buffer",
                ))?;
            let info = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(index);
            let r = crate::fault::out_of_memory_or(crate::fault::Fault::DebugMemory, || {
                allocate_memory(dev, &info, std::ptr::null(), &mut d.memory)
            });
            check_named(r, "the debug buffer's memory")?;
            check_named(
                bind_memory(dev, d.buffer, d.memory, 0),
                "binding the debug buffer's memory",
            )?;
            let mut words = std::ptr::null_mut();
            check_named(
                map(
                    dev,
                    d.memory,
                    0,
                    vk::WHOLE_SIZE,
                    vk::MemoryMapFlags::empty(),
                    &mut words,
                ),
                "mapping the debug buffer",
            )?;
            d.words = words.cast();
            let main = [vk::DescriptorBufferInfo {
                buffer: d.buffer,
                offset: 0,
                range: DEBUG_BUFFER_BYTES,
            }];
            let scratch_info = [vk::DescriptorBufferInfo {
                buffer: d.buffer,
                offset: DEBUG_BUFFER_BYTES,
                range: SCRATCH_BYTES,
            }];
            let writes = debug_writes(d.set, &main)
                .into_iter()
                .chain(debug_writes(d.scratch, &scratch_info))
                .collect::<Vec<_>>();
            update_sets(
                dev,
                writes.len() as u32,
                writes.as_ptr(),
                0,
                std::ptr::null(),
            );
        }
        Ok(())
    }

    /// Destroys the debug set's objects (null ones are skipped by Vulkan).
    ///
    /// # Safety
    /// They are the layer's own, and idle.
    unsafe fn destroy_debug_set(&self, dev: vk::Device, d: &DebugSet) {
        let n = &self.next;
        // SAFETY: per this function's contract.
        unsafe {
            if let Some(f) = n.destroy_descriptor_pool {
                f(dev, d.pool, std::ptr::null());
            }
            if let Some(f) = n.destroy_descriptor_set_layout {
                f(dev, d.layout, std::ptr::null());
            }
            if let Some(f) = n.destroy_buffer {
                f(dev, d.buffer, std::ptr::null());
            }
            if let Some(f) = n.free_memory {
                f(dev, d.memory, std::ptr::null());
            }
        }
    }

    /// Runs `f` on the debug buffer's words (host-coherent memory), if it
    /// was made.
    ///
    /// # Safety
    /// The device is not using the buffer (no shadow that binds it is
    /// pending).
    pub unsafe fn with_debug_words<R>(&self, f: impl FnOnce(&mut [u32]) -> R) -> Option<R> {
        let debug = self.debug.lock().unwrap_or_else(|e| e.into_inner());
        let d = debug.as_ref()?;
        // SAFETY: the mapping covers the whole buffer; per this function's contract.
        let words =
            unsafe { std::slice::from_raw_parts_mut(d.words, (DEBUG_BUFFER_BYTES / 4) as usize) };
        Some(f(words))
    }

    /// Makes the debug set show `range` bytes of the debug buffer from each
    /// dynamic offset (all of it unless a hit test splits it among draws),
    /// and clears the scratch header.
    ///
    /// # Safety
    /// No command buffer that binds the debug set is pending or will be
    /// submitted again (updating a set invalidates the buffers that bind it).
    pub unsafe fn set_debug_range(&self, dev: vk::Device, range: u64) -> Result<(), Error> {
        // SAFETY: `dev` is this device.
        unsafe { self.debug_set(dev)? };
        let mut debug = self.debug.lock().unwrap_or_else(|e| e.into_inner());
        let d = debug.as_mut().ok_or(Error::Cannot("no debug set"))?;
        // SAFETY: the mapping covers the scratch words; the device does not
        // use them (the contract).
        unsafe {
            let scratch = d.words.add((DEBUG_BUFFER_BYTES / 4) as usize);
            std::ptr::write_bytes(scratch, 0, (SCRATCH_BYTES / 4) as usize);
        }
        if d.range == range {
            return Ok(());
        }
        let update = self
            .next
            .update_descriptor_sets
            .ok_or(Error::Lacks("vkUpdateDescriptorSets"))?;
        let info = [vk::DescriptorBufferInfo {
            buffer: d.buffer,
            offset: 0,
            range,
        }];
        let writes = debug_writes(d.set, &info);
        // SAFETY: the set is not in use (the contract).
        unsafe {
            update(
                dev,
                writes.len() as u32,
                writes.as_ptr(),
                0,
                std::ptr::null(),
            )
        };
        d.range = range;
        Ok(())
    }

    /// Binds the debug set of `twin` (bound at `point`) in `cb` as `which` says.
    ///
    /// # Safety
    /// `cb` is a shadow, recording, with `twin` bound at `point`.
    pub unsafe fn bind_debug(
        &self,
        cb: vk::CommandBuffer,
        point: vk::PipelineBindPoint,
        twin: &Twin,
        which: DebugBinding,
    ) -> Result<(), Error> {
        let (set, offsets) = {
            let debug = self.debug.lock().unwrap_or_else(|e| e.into_inner());
            let d = debug.as_ref().ok_or(Error::Cannot("no debug set"))?;
            match which {
                DebugBinding::Buffer(offsets) => (d.set, offsets),
                DebugBinding::Scratch => (d.scratch, [0; DEBUG_SLOTS]),
            }
        };
        let bind = self
            .next
            .cmd_bind_descriptor_sets
            .ok_or(Error::Lacks("vkCmdBindDescriptorSets"))?;
        // SAFETY: per this function's contract.
        unsafe {
            bind(
                cb,
                point,
                twin.layout,
                twin.set,
                1,
                &set,
                DEBUG_SLOTS as u32,
                offsets.as_ptr(),
            )
        };
        Ok(())
    }

    /// # Safety
    /// `t` is not in use by any pending command buffer.
    unsafe fn destroy_twin(&self, dev: vk::Device, t: Twin) {
        // SAFETY: per this function's contract.
        unsafe {
            if let Some(f) = self.next.destroy_pipeline {
                f(dev, t.pipeline, std::ptr::null());
            }
            if let Some(f) = self.next.destroy_pipeline_layout {
                f(dev, t.layout, std::ptr::null());
            }
        }
    }

    /// Destroys every object of the layer's own (before the device goes).
    ///
    /// # Safety
    /// Nothing of the device is pending.
    pub unsafe fn destroy_all(&self, dev: vk::Device) {
        let twins: Vec<Twin> = {
            let mut twins = self.twins.lock().unwrap_or_else(|e| e.into_inner());
            twins.drain().map(|(_, t)| t).collect()
        };
        for t in twins {
            // SAFETY: per this function's contract.
            unsafe { self.destroy_twin(dev, t) };
        }
        let debug = self.debug.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(d) = debug {
            // SAFETY: objects of the layer's own, idle (the contract).
            unsafe { self.destroy_debug_set(dev, &d) };
        }
    }
}

/// Writes pointing every binding of the debug set `set` at `info`.
fn debug_writes(
    set: vk::DescriptorSet,
    info: &[vk::DescriptorBufferInfo],
) -> [vk::WriteDescriptorSet<'_>; DEBUG_SLOTS] {
    std::array::from_fn(|slot| {
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(slot as u32)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER_DYNAMIC)
            .buffer_info(info)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_twin_is_compiled_and_derived_from_nothing() {
        let app = vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED
            | vk::PipelineCreateFlags::EARLY_RETURN_ON_FAILURE
            | vk::PipelineCreateFlags::DERIVATIVE
            | vk::PipelineCreateFlags::DISABLE_OPTIMIZATION
            | vk::PipelineCreateFlags::ALLOW_DERIVATIVES;
        let kept = vk::PipelineCreateFlags::DISABLE_OPTIMIZATION
            | vk::PipelineCreateFlags::ALLOW_DERIVATIVES;
        assert!(twin_flags(app) == kept, "{:#x}", twin_flags(app).as_raw());
    }
}
