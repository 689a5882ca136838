//! Shadow state: what the application told GL about its shaders, programs
//! and pipelines, per GL context, plus frame and draw counters.
//!
//! All of it lives in one `Mutex`, keyed by [`ContextKey`] (the current
//! EGL or GLX context of the calling thread). The lock is only held for
//! short bookkeeping, never while GL or a session hook runs.
//!
//! Objects are keyed by context, not by share group: a shader created in
//! one context and used from another context that shares objects with it
//! is not found there (see the crate documentation).

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::fmt;
use std::sync::{Mutex, MutexGuard};

use serde::{Serialize, Serializer};

use crate::resolve::RealFn;

/// The window-system API of a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextApi {
    /// No context is current (the key of calls made without one).
    None,
    /// An `EGLContext`.
    Egl,
    /// A `GLXContext`.
    Glx,
}

/// Identifies a GL context: its API and handle (`EGLContext` /
/// `GLXContext` as an address). Serialized and displayed as
/// `egl:0x55d0c2a3e6b0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContextKey {
    /// The API.
    pub api: ContextApi,
    /// The handle.
    pub handle: usize,
}

impl ContextKey {
    /// No current context.
    pub const NONE: ContextKey = ContextKey {
        api: ContextApi::None,
        handle: 0,
    };
}

impl fmt::Display for ContextKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let api = match self.api {
            ContextApi::None => return f.write_str("none"),
            ContextApi::Egl => "egl",
            ContextApi::Glx => "glx",
        };
        write!(f, "{api}:{:#x}", self.handle)
    }
}

impl Serialize for ContextKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

static EGL_GET_CURRENT_CONTEXT: RealFn = RealFn::egl(c"eglGetCurrentContext");
static GLX_GET_CURRENT_CONTEXT: RealFn = RealFn::glx(c"glXGetCurrentContext");

/// The context current on the calling thread: `eglGetCurrentContext`, else
/// `glXGetCurrentContext`, both the real ones from libraries the
/// application has loaded (an API whose library is not loaded is skipped).
pub fn current_context() -> ContextKey {
    type GetCurrent = unsafe extern "C" fn() -> *mut c_void;
    let query = |p: *mut c_void| -> usize {
        if p.is_null() {
            return 0;
        }
        // SAFETY: the real eglGetCurrentContext / glXGetCurrentContext.
        unsafe { std::mem::transmute::<*mut c_void, GetCurrent>(p)() as usize }
    };
    let apis = [
        (&EGL_GET_CURRENT_CONTEXT, ContextApi::Egl),
        (&GLX_GET_CURRENT_CONTEXT, ContextApi::Glx),
    ];
    // Functions already resolved first: no dlopen(RTLD_NOLOAD) per call
    // for the API the application does not use.
    for (slot, api) in apis {
        let handle = query(slot.cached());
        if handle != 0 {
            return ContextKey { api, handle };
        }
    }
    for (slot, api) in apis {
        if slot.cached().is_null() {
            let handle = query(slot.get());
            if handle != 0 {
                return ContextKey { api, handle };
            }
        }
    }
    ContextKey::NONE
}

pub use shaderdbg_core::Stage;

/// The stage of a GL shader type enum (the `type` given to `glCreateShader`).
pub fn stage_from_gl(ty: u32) -> Option<Stage> {
    Some(match ty {
        0x8B31 => Stage::Vertex,
        0x8E88 => Stage::TessControl,
        0x8E87 => Stage::TessEvaluation,
        0x8DD9 => Stage::Geometry,
        0x8B30 => Stage::Fragment,
        0x91B9 => Stage::Compute,
        _ => return None,
    })
}

/// A shader as the application set it up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShaderInfo {
    /// The context it was created in.
    pub context: ContextKey,
    /// The GL name (0 for the shader inside a `glCreateShaderProgramv`
    /// program).
    pub id: u32,
    /// The `type` given to `glCreateShader`.
    pub gl_type: u32,
    /// Its stage, if `gl_type` is a known one.
    pub stage: Option<Stage>,
    /// The source strings as given to `glShaderSource`, one per string (the
    /// driver concatenates them). Bytes that are not UTF-8 are replaced
    /// with U+FFFD. In a [`ProgramInfo`], the strings of the last compile.
    pub sources: Vec<String>,
    /// `GL_COMPILE_STATUS` after the last `glCompileShader` (false before).
    pub compile_status: bool,
    /// The info log of the last compile (empty when none).
    pub info_log: String,
}

/// `glBindFragDataLocation[Indexed]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FragDataLocation {
    /// Output variable name.
    pub name: String,
    /// Colour number.
    pub color: u32,
    /// Index (dual-source blending), 0 for `glBindFragDataLocation`.
    pub index: u32,
}

/// `glTransformFeedbackVaryings`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TransformFeedbackVaryings {
    /// Varying names in order.
    pub varyings: Vec<String>,
    /// `GL_INTERLEAVED_ATTRIBS` or `GL_SEPARATE_ATTRIBS`.
    pub buffer_mode: u32,
}

/// A program as of its last link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramInfo {
    /// The context it was created in.
    pub context: ContextKey,
    /// The GL name.
    pub id: u32,
    /// `GL_LINK_STATUS` after the last link.
    pub link_status: bool,
    /// The info log of the last link.
    pub info_log: String,
    /// `GL_PROGRAM_SEPARABLE` (set by `glProgramParameteri` or
    /// `glCreateShaderProgramv`).
    pub separable: bool,
    /// The shaders attached at link time with the sources they were last
    /// compiled from, in attach order.
    pub shaders: Vec<ShaderInfo>,
    /// `glBindAttribLocation` calls made before the link (name, index).
    pub attrib_bindings: Vec<(String, u32)>,
    /// `glBindFragDataLocation[Indexed]` calls made before the link.
    pub frag_data_locations: Vec<FragDataLocation>,
    /// `glTransformFeedbackVaryings` as of the link.
    pub transform_feedback: Option<TransformFeedbackVaryings>,
    /// Every `glProgramParameteri(pname, value)` made before the link.
    pub parameters: Vec<(u32, i32)>,
}

/// Per-shader bookkeeping.
#[derive(Clone, Debug)]
struct ShaderState {
    gl_type: u32,
    sources: Vec<String>,
    compiled_sources: Vec<String>,
    compile_status: bool,
    info_log: String,
    delete_pending: bool,
}

/// Per-program bookkeeping.
#[derive(Clone, Debug, Default)]
struct ProgramState {
    attached: Vec<u32>,
    attrib_bindings: BTreeMap<String, u32>,
    frag_data_locations: BTreeMap<String, (u32, u32)>,
    transform_feedback: Option<TransformFeedbackVaryings>,
    parameters: BTreeMap<u32, i32>,
    linked: Option<ProgramInfo>,
    delete_pending: bool,
}

/// Stages bound in a program pipeline object (`glUseProgramStages`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PipelineInfo {
    /// (stage bit, program) for every stage bit set, lowest bit first.
    pub stages: Vec<(u32, u32)>,
}

/// Everything known about one context.
#[derive(Debug, Default)]
struct ContextState {
    shaders: BTreeMap<u32, ShaderState>,
    programs: BTreeMap<u32, ProgramState>,
    pipelines: BTreeMap<u32, PipelineInfo>,
    current_program: u32,
    current_pipeline: u32,
    frame: u64,
    draws_in_frame: u64,
}

static STATE: Mutex<BTreeMap<ContextKey, ContextState>> = Mutex::new(BTreeMap::new());

fn lock() -> MutexGuard<'static, BTreeMap<ContextKey, ContextState>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

fn with<T>(ctx: ContextKey, f: impl FnOnce(&mut ContextState) -> T) -> T {
    f(lock().entry(ctx).or_default())
}

/// Where a draw stands: current program/pipeline, frame, index in the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawPosition {
    /// The program of `glUseProgram` (0: none).
    pub program: u32,
    /// The bound program pipeline (0: none); used when `program` is 0.
    pub pipeline: u32,
    /// The frame (number of swaps so far in this context).
    pub frame: u64,
    /// The draw's index in its frame, counting draws and dispatches.
    pub index: u64,
}

// --- updates (called by the hooks) ----------------------------------------

pub(crate) fn shader_created(ctx: ContextKey, id: u32, gl_type: u32) {
    with(ctx, |c| {
        c.shaders.insert(
            id,
            ShaderState {
                gl_type,
                sources: Vec::new(),
                compiled_sources: Vec::new(),
                compile_status: false,
                info_log: String::new(),
                delete_pending: false,
            },
        );
    });
}

/// Returns false when the shader is unknown (nothing recorded).
pub(crate) fn shader_source(ctx: ContextKey, id: u32, sources: Vec<String>) -> bool {
    with(ctx, |c| match c.shaders.get_mut(&id) {
        Some(s) => {
            s.sources = sources;
            true
        }
        None => false,
    })
}

/// Records a compile and returns the shader's info, or None if unknown.
pub(crate) fn shader_compiled(
    ctx: ContextKey,
    id: u32,
    status: bool,
    info_log: String,
) -> Option<ShaderInfo> {
    with(ctx, |c| {
        let s = c.shaders.get_mut(&id)?;
        s.compiled_sources = s.sources.clone();
        s.compile_status = status;
        s.info_log = info_log;
        Some(shader_info(ctx, id, s))
    })
}

fn shader_info(ctx: ContextKey, id: u32, s: &ShaderState) -> ShaderInfo {
    ShaderInfo {
        context: ctx,
        id,
        gl_type: s.gl_type,
        stage: stage_from_gl(s.gl_type),
        sources: s.compiled_sources.clone(),
        compile_status: s.compile_status,
        info_log: s.info_log.clone(),
    }
}

pub(crate) fn shader_deleted(ctx: ContextKey, id: u32) {
    with(ctx, |c| {
        let attached = c.programs.values().any(|p| p.attached.contains(&id));
        if attached {
            if let Some(s) = c.shaders.get_mut(&id) {
                s.delete_pending = true;
            }
        } else {
            c.shaders.remove(&id);
        }
    });
}

pub(crate) fn program_created(ctx: ContextKey, id: u32) {
    with(ctx, |c| {
        c.programs.insert(id, ProgramState::default());
    });
}

fn program_mut(c: &mut ContextState, id: u32) -> &mut ProgramState {
    c.programs.entry(id).or_default()
}

pub(crate) fn shader_attached(ctx: ContextKey, program: u32, shader: u32) {
    with(ctx, |c| {
        if !c.shaders.contains_key(&shader) {
            return;
        }
        let p = program_mut(c, program);
        if !p.attached.contains(&shader) {
            p.attached.push(shader);
        }
    });
}

pub(crate) fn shader_detached(ctx: ContextKey, program: u32, shader: u32) {
    with(ctx, |c| {
        if let Some(p) = c.programs.get_mut(&program) {
            p.attached.retain(|&s| s != shader);
        }
        collect_shader(c, shader);
    });
}

/// Removes a shader flagged for deletion once nothing references it.
fn collect_shader(c: &mut ContextState, shader: u32) {
    let pending = c.shaders.get(&shader).is_some_and(|s| s.delete_pending);
    if pending && !c.programs.values().any(|p| p.attached.contains(&shader)) {
        c.shaders.remove(&shader);
    }
}

pub(crate) fn attrib_bound(ctx: ContextKey, program: u32, index: u32, name: String) {
    with(ctx, |c| {
        program_mut(c, program).attrib_bindings.insert(name, index);
    });
}

pub(crate) fn frag_data_bound(ctx: ContextKey, program: u32, color: u32, index: u32, name: String) {
    with(ctx, |c| {
        program_mut(c, program)
            .frag_data_locations
            .insert(name, (color, index));
    });
}

pub(crate) fn transform_feedback_varyings(
    ctx: ContextKey,
    program: u32,
    varyings: Vec<String>,
    buffer_mode: u32,
) {
    with(ctx, |c| {
        program_mut(c, program).transform_feedback = Some(TransformFeedbackVaryings {
            varyings,
            buffer_mode,
        });
    });
}

pub(crate) fn program_parameter(ctx: ContextKey, program: u32, pname: u32, value: i32) {
    with(ctx, |c| {
        program_mut(c, program).parameters.insert(pname, value);
    });
}

const GL_PROGRAM_SEPARABLE: u32 = 0x8258;

/// Records a link and returns the program's info.
pub(crate) fn program_linked(
    ctx: ContextKey,
    program: u32,
    status: bool,
    info_log: String,
) -> ProgramInfo {
    with(ctx, |c| {
        let shaders: Vec<ShaderInfo> = c
            .programs
            .get(&program)
            .map(|p| p.attached.clone())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|id| c.shaders.get(&id).map(|s| shader_info(ctx, id, s)))
            .collect();
        let p = program_mut(c, program);
        let info = ProgramInfo {
            context: ctx,
            id: program,
            link_status: status,
            info_log,
            separable: p
                .parameters
                .get(&GL_PROGRAM_SEPARABLE)
                .is_some_and(|&v| v != 0),
            shaders,
            attrib_bindings: p
                .attrib_bindings
                .iter()
                .map(|(n, &i)| (n.clone(), i))
                .collect(),
            frag_data_locations: p
                .frag_data_locations
                .iter()
                .map(|(n, &(color, index))| FragDataLocation {
                    name: n.clone(),
                    color,
                    index,
                })
                .collect(),
            transform_feedback: p.transform_feedback.clone(),
            parameters: p.parameters.iter().map(|(&k, &v)| (k, v)).collect(),
        };
        p.linked = Some(info.clone());
        info
    })
}

/// Records a `glCreateShaderProgramv` program: one shader (id 0) compiled
/// from `sources`, linked, separable.
pub(crate) fn shader_program_created(
    ctx: ContextKey,
    program: u32,
    gl_type: u32,
    sources: Vec<String>,
    status: bool,
    info_log: String,
) -> ProgramInfo {
    with(ctx, |c| {
        let shader = ShaderInfo {
            context: ctx,
            id: 0,
            gl_type,
            stage: stage_from_gl(gl_type),
            sources,
            compile_status: status,
            info_log: String::new(),
        };
        let info = ProgramInfo {
            context: ctx,
            id: program,
            link_status: status,
            info_log,
            separable: true,
            shaders: vec![shader],
            attrib_bindings: Vec::new(),
            frag_data_locations: Vec::new(),
            transform_feedback: None,
            parameters: vec![(GL_PROGRAM_SEPARABLE, 1)],
        };
        let p = program_mut(c, program);
        p.parameters.insert(GL_PROGRAM_SEPARABLE, 1);
        p.linked = Some(info.clone());
        info
    })
}

/// `glUseProgram`: the GL call fails (and changes nothing) for a program
/// that is known and did not link.
pub(crate) fn program_used(ctx: ContextKey, program: u32) {
    with(ctx, |c| {
        if program != 0 {
            if let Some(p) = c.programs.get(&program) {
                if !p.linked.as_ref().is_some_and(|l| l.link_status) {
                    return;
                }
            }
        }
        let previous = std::mem::replace(&mut c.current_program, program);
        if previous != program {
            collect_program(c, previous);
        }
    });
}

fn collect_program(c: &mut ContextState, program: u32) {
    let pending = c.programs.get(&program).is_some_and(|p| p.delete_pending);
    if pending && c.current_program != program {
        if let Some(p) = c.programs.remove(&program) {
            for s in p.attached {
                collect_shader(c, s);
            }
        }
    }
}

pub(crate) fn program_deleted(ctx: ContextKey, program: u32) {
    with(ctx, |c| {
        if let Some(p) = c.programs.get_mut(&program) {
            p.delete_pending = true;
        }
        collect_program(c, program);
    });
}

/// `glDeleteObjectARB`: a shader or a program.
pub(crate) fn object_deleted(ctx: ContextKey, object: u32) {
    let is_shader = with(ctx, |c| c.shaders.contains_key(&object));
    if is_shader {
        shader_deleted(ctx, object);
    } else {
        program_deleted(ctx, object);
    }
}

pub(crate) fn program_stages_used(ctx: ContextKey, pipeline: u32, stages: u32, program: u32) {
    with(ctx, |c| {
        let p = c.pipelines.entry(pipeline).or_default();
        for bit in 0..32 {
            let b = 1u32 << bit;
            if stages & b != 0 {
                p.stages.retain(|&(s, _)| s != b);
                if program != 0 {
                    p.stages.push((b, program));
                }
            }
        }
        p.stages.sort_unstable();
    });
}

pub(crate) fn pipeline_bound(ctx: ContextKey, pipeline: u32) {
    with(ctx, |c| c.current_pipeline = pipeline);
}

/// Counts a draw or dispatch and says where it stands.
pub(crate) fn begin_draw(ctx: ContextKey) -> DrawPosition {
    with(ctx, |c| {
        let index = c.draws_in_frame;
        c.draws_in_frame += 1;
        DrawPosition {
            program: c.current_program,
            pipeline: c.current_pipeline,
            frame: c.frame,
            index,
        }
    })
}

/// Ends the current frame of `ctx` (after the real swap); returns the new
/// frame number.
pub(crate) fn end_frame(ctx: ContextKey) -> u64 {
    with(ctx, |c| {
        c.frame += 1;
        c.draws_in_frame = 0;
        c.frame
    })
}

/// Drops everything known about a destroyed context.
pub(crate) fn context_destroyed(ctx: ContextKey) {
    lock().remove(&ctx);
}

// --- queries (for the session) -------------------------------------------

/// The contexts seen so far.
pub fn contexts() -> Vec<ContextKey> {
    lock().keys().copied().collect()
}

/// A shader as of its last compile (sources of that compile).
pub fn shader(ctx: ContextKey, id: u32) -> Option<ShaderInfo> {
    lock()
        .get(&ctx)?
        .shaders
        .get(&id)
        .map(|s| shader_info(ctx, id, s))
}

/// The source strings last given to `glShaderSource` (possibly newer than
/// the last compile).
pub fn shader_current_sources(ctx: ContextKey, id: u32) -> Option<Vec<String>> {
    Some(lock().get(&ctx)?.shaders.get(&id)?.sources.clone())
}

/// A program as of its last link (None before the first link).
pub fn program(ctx: ContextKey, id: u32) -> Option<ProgramInfo> {
    lock().get(&ctx)?.programs.get(&id)?.linked.clone()
}

/// Every linked program of a context.
pub fn programs(ctx: ContextKey) -> Vec<ProgramInfo> {
    lock()
        .get(&ctx)
        .map(|c| {
            c.programs
                .values()
                .filter_map(|p| p.linked.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The program of the last successful `glUseProgram` (0: none).
pub fn current_program(ctx: ContextKey) -> u32 {
    lock().get(&ctx).map_or(0, |c| c.current_program)
}

/// The program pipeline bound with `glBindProgramPipeline` (0: none).
pub fn current_pipeline(ctx: ContextKey) -> u32 {
    lock().get(&ctx).map_or(0, |c| c.current_pipeline)
}

/// The stages of a program pipeline object.
pub fn pipeline(ctx: ContextKey, id: u32) -> Option<PipelineInfo> {
    lock().get(&ctx)?.pipelines.get(&id).cloned()
}

/// The current frame number of a context (swaps so far).
pub fn frame(ctx: ContextKey) -> u64 {
    lock().get(&ctx).map_or(0, |c| c.frame)
}

/// Draws and dispatches so far in the current frame of a context.
pub fn draws_in_frame(ctx: ContextKey) -> u64 {
    lock().get(&ctx).map_or(0, |c| c.draws_in_frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: usize) -> ContextKey {
        ContextKey {
            api: ContextApi::Egl,
            handle: 0x1000 + n,
        }
    }

    #[test]
    fn shader_program_lifecycle() {
        let ctx = key(1);
        shader_created(ctx, 1, 0x8B31);
        shader_created(ctx, 2, 0x8B30);
        assert!(shader_source(ctx, 1, vec!["a".into(), "b".into()]));
        assert!(shader_source(ctx, 2, vec!["f".into()]));
        assert!(!shader_source(ctx, 99, vec![]));
        let s = shader_compiled(ctx, 1, true, String::new()).unwrap();
        assert_eq!(s.stage, Some(Stage::Vertex));
        assert_eq!(s.sources, ["a", "b"]);
        shader_compiled(ctx, 2, true, String::new()).unwrap();
        // A source change after the compile does not change the compiled one.
        shader_source(ctx, 1, vec!["changed".into()]);
        program_created(ctx, 3);
        shader_attached(ctx, 3, 1);
        shader_attached(ctx, 3, 2);
        attrib_bound(ctx, 3, 0, "pos".into());
        let p = program_linked(ctx, 3, true, String::new());
        assert_eq!(p.shaders.len(), 2);
        assert_eq!(p.shaders[0].sources, ["a", "b"]);
        assert_eq!(p.attrib_bindings, [("pos".to_owned(), 0)]);
        assert_eq!(shader_current_sources(ctx, 1).unwrap(), ["changed"]);

        // Deleting attached shaders keeps them until detached.
        shader_deleted(ctx, 1);
        assert!(shader(ctx, 1).is_some());
        shader_detached(ctx, 3, 1);
        assert!(shader(ctx, 1).is_none());

        program_used(ctx, 3);
        let d = begin_draw(ctx);
        assert_eq!((d.program, d.frame, d.index), (3, 0, 0));
        assert_eq!(begin_draw(ctx).index, 1);
        assert_eq!(end_frame(ctx), 1);
        assert_eq!(begin_draw(ctx).index, 0);

        // Deleting the current program waits until it is replaced.
        program_deleted(ctx, 3);
        assert!(program(ctx, 3).is_some());
        program_used(ctx, 0);
        assert!(program(ctx, 3).is_none());
        // Shader 2 was never deleted: it outlives the program.
        assert!(shader(ctx, 2).is_some());
    }

    #[test]
    fn destroyed_context_starts_clean() {
        let ctx = key(4);
        shader_created(ctx, 1, 0x8B30);
        begin_draw(ctx);
        end_frame(ctx);
        assert_eq!(frame(ctx), 1);
        context_destroyed(ctx);
        assert!(!contexts().contains(&ctx));
        assert_eq!(frame(ctx), 0);
        assert!(shader(ctx, 1).is_none());
    }

    #[test]
    fn failed_link_is_not_used() {
        let ctx = key(2);
        program_created(ctx, 5);
        program_linked(ctx, 5, false, "error".into());
        program_used(ctx, 5);
        assert_eq!(current_program(ctx), 0);
    }

    #[test]
    fn pipelines() {
        let ctx = key(3);
        program_stages_used(ctx, 1, 0x1 | 0x2, 7);
        program_stages_used(ctx, 1, 0x2, 8);
        assert_eq!(pipeline(ctx, 1).unwrap().stages, [(1, 7), (2, 8)]);
    }
}
