//! Breakpoints, hit tests and stops: what the agent does for the debugger.
//!
//! - A compiled shader is announced and the application waits until the
//!   debugger answers `Resume`, so breakpoints are bound before its first draw.
//! - At a draw whose program has a shader with breakpoints, the hit test runs
//!   with an instrumented copy of the program (writes masked, every piece of
//!   state put back). If something hit, the application stops inside the draw:
//!   the debugger asks for recordings and watch images (each one more debug
//!   draw) until it says `Resume`; then the original draw runs.
//! - Every debug draw runs the program's shaders once more: the storage and
//!   atomic-counter buffer ranges it can write are saved and put back
//!   ([`debug_draw::SavedBuffers`]), and so are the texture levels bound to
//!   the image units it can write ([`debug_draw::SavedImages`]). The
//!   application's transform feedback is set aside
//!   ([`debug_draw::TransformFeedbackAside`]) and, while an occlusion query
//!   is active, so are the samples ([`debug_draw::OcclusionAside`]); active
//!   counting queries (`GL_PRIMITIVES_GENERATED`, pipeline statistics) are
//!   ended and begun again around it, their partial counts added back when
//!   the application reads them ([`crate::queries`]).
//! - Stop reasons: breakpoints, `Pause` (the next draw, every invocation at
//!   the start of `main`), pixel history, and NaN/Inf written to an output
//!   (exception filter); the hit record's tag word says which. With a
//!   sanitizer filter on, a dispatch or draw that did not stop for those
//!   runs its shaders sanitized ([`try_sanitize`]: the compute shader, or
//!   the fragment then the vertex shader, each as a debug draw before the
//!   application's) and stops where one reports something
//!   (`StopReason::Sanitizer`, the reports in `Stopped`). The `gl_error`
//!   filter makes every intercepted call check `glGetError` and wait in
//!   [`at_gl_error`].
//! - Screenshots: `Now` while stopped, `FrameEnd` at the swap ([`at_swap`]).
//! - A debugger that goes away ends any stop; the application goes on.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use glow::HasContext;
use shaderdbg_core::decode::{HitTag, SanitizerKind};
use shaderdbg_core::{layout, Invocation, Stage};
use shaderdbg_glsl::instrument::{self, Target};
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

use crate::debug_draw;
use crate::debugger::Debugger;
use crate::draw::{DrawArgs, DrawCall};
use crate::shader_debug::{BoundBreakpoint, ShaderDebug, ShaderDebugError};
use crate::state::{self, ContextKey, ProgramInfo, ShaderInfo};

/// Why a debug draw (hit test, recording, watch) could not run; the
/// debugger hears it as a message, the application is not affected.
#[derive(Debug, thiserror::Error)]
enum StopError {
    #[error(transparent)]
    Engine(#[from] ShaderDebugError),
    #[error(transparent)]
    Instrument(#[from] instrument::InstrumentError),
    #[error("the program is gone")]
    NoProgram,
    #[error("unknown shader stage")]
    UnknownStage,
    #[error("not debugged while an occlusion query is active: {0}")]
    OcclusionQuery(debug_draw::DebugDrawError),
    /// The GL side of a debug draw failed (building the program, saving
    /// images, the draw itself).
    #[error(transparent)]
    Draw(#[from] debug_draw::DebugDrawError),
}

/// Capacity of the hit buffer, in hits.
const HIT_CAPACITY: u32 = 1 << 16;
/// A new hit buffer's contents (the same for every hit test: built once).
fn hit_buffer() -> &'static [u8] {
    static BUFFER: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BUFFER.get_or_init(|| layout::new_hit_buffer(HIT_CAPACITY))
}

/// Capacity of a recording, in words (16 MiB).
const RECORD_WORDS: u32 = 4 << 20;

#[derive(Default)]
struct Breakpoints {
    by_shader: HashMap<u32, Vec<proto::LineBreakpoint>>,
    filter: proto::StopFilter,
    exceptions: proto::ExceptionFilters,
    /// `Pause` was asked and no draw has stopped for it yet.
    pause: bool,
    /// `Screenshot { at: FrameEnd }` requests waiting for their swap.
    screenshots: proto::agent::FrameEndScreenshots,
    /// Bumped on every change, part of the key of cached hit-test programs.
    generation: u64,
}

/// Mirrors `exceptions.gl_error`: read after every intercepted call, so
/// it must not take a lock.
static GL_ERROR_FILTER: AtomicBool = AtomicBool::new(false);

/// Whether the debugger may ask for the framebuffer before a stopped draw
/// (`ToAgent::SetScreenshotsAtStops`): a one-pass hit test copies it
/// before every draw only then.
static SCREENSHOTS_AT_STOPS: AtomicBool = AtomicBool::new(true);

/// Why a draw's hit test runs as a debug draw before the application's
/// instead of in one pass (see `Stop::one_pass`).
#[derive(Debug, thiserror::Error)]
enum TwoPasses {
    #[error("a dispatch writes storage")]
    Dispatch,
    #[error("{} is set", TWO_PASS_ENV)]
    Forced,
    #[error("the gl_error filter checks the application's call alone")]
    GlErrorFilter,
    #[error("the program reads the framebuffer (framebuffer fetch)")]
    FramebufferFetch,
    #[error("early fragment tests would see the draw's own depth and stencil")]
    EarlyFragmentTests,
    #[error("WGSL: the hit test is naga's re-emission, not the application's GLSL")]
    Wgsl,
    #[error("outputs bound with an index (dual-source blending)")]
    DualSource,
    #[error("no program")]
    NoProgram,
    #[error("the program can write storage buffers, images or atomic counters")]
    WritesStorage,
    #[error("transform feedback is active")]
    TransformFeedback,
    #[error("a pipeline statistics query is active")]
    StatisticsQuery,
    #[error("a uniform's type is not copied into instrumented programs")]
    UncopiedUniform,
    #[error("the program has subroutine uniforms")]
    Subroutines,
    #[error("the program samples a texture the draw renders to")]
    SamplesTarget,
    #[error("the framebuffer cannot be saved for screenshots: {0}")]
    Screenshot(#[source] crate::screenshot::SaveError),
}

/// Set (not empty, not `0`) in the program's environment, every hit test
/// runs in two passes: for tests that compare the pictures of one pass
/// with those of two (`backend-gl/tests/one_pass.rs`).
pub const TWO_PASS_ENV: &str = "SHADERDBG_TWO_PASS_HIT_TESTS";

fn two_passes_forced() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(TWO_PASS_ENV).is_some_and(|v| !v.is_empty() && v != "0"))
}

/// Whether intercepted calls must be followed by a GL error check.
pub fn gl_error_filter() -> bool {
    GL_ERROR_FILTER.load(Ordering::Relaxed)
}

static BREAKPOINTS: Mutex<Option<Breakpoints>> = Mutex::new(None);

fn with_breakpoints<T>(f: impl FnOnce(&mut Breakpoints) -> T) -> T {
    let mut b = BREAKPOINTS.lock().unwrap_or_else(|e| e.into_inner());
    f(b.get_or_insert_with(Breakpoints::default))
}

/// A parsed shader: its id, the sources it was parsed from, the result.
type Parsed = (u32, Vec<String>, Arc<ShaderDebug>);

/// Parsed shaders, by (shader id, sources): parsing is the expensive part.
static PARSED: Mutex<Vec<Parsed>> = Mutex::new(Vec::new());

fn shader_debug(
    id: u32,
    stage: Stage,
    sources: &[String],
) -> Result<Arc<ShaderDebug>, ShaderDebugError> {
    let mut parsed = PARSED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, d)) = parsed.iter().find(|(i, s, _)| *i == id && s == sources) {
        return Ok(d.clone());
    }
    let d = Arc::new(ShaderDebug::new(stage, sources)?);
    parsed.retain(|(i, _, _)| *i != id);
    parsed.push((id, sources.to_vec(), d.clone()));
    Ok(d)
}

/// Whose turn it is to talk with the debugger. Messages on the socket are
/// not addressed to threads, so one application thread at a time waits in a
/// conversation (a stop, a compile announcement, a GL error) and only that
/// thread reads the debugger's messages: a second thread that wants to stop
/// waits in its draw until the first is resumed (stops are serialized), and
/// threads that only pass by ([`drain`]) leave the messages alone meanwhile.
/// Without this, two threads stopping at once took each other's requests and
/// both waited forever.
static CONVERSATION: Mutex<()> = Mutex::new(());

/// This thread's turn, waiting for it.
fn conversation() -> std::sync::MutexGuard<'static, ()> {
    CONVERSATION.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn announce_shader(dbg: &Debugger, info: &ShaderInfo) {
    let Some(stage) = info.stage else { return };
    let _turn = conversation();
    dbg.send(&FromAgent::ShaderCompiled {
        context: info.context.handle as u64,
        shader: info.id,
        stage,
        sources: info.sources.clone(),
        compiled: info.compile_status,
        info_log: info.info_log.clone(),
        language: shaderdbg_core::Language::Glsl,
        parts: Vec::new(),
    });
    serve(dbg, None);
}

pub fn announce_program(dbg: &Debugger, info: &ProgramInfo) {
    dbg.send(&FromAgent::ProgramLinked {
        context: info.context.handle as u64,
        program: info.id,
        shaders: info.shaders.iter().map(|s| s.id).collect(),
        linked: info.link_status,
    });
}

pub fn at_swap(dbg: &Debugger, ctx: ContextKey, frame: u64) {
    drain(dbg);
    let due = with_breakpoints(|b| b.screenshots.take_due(frame));
    if !due.is_empty() {
        let gl = gl_for(ctx);
        crate::errors::stash_pending(ctx);
        // SAFETY: the swapping context is current on this thread.
        let image = unsafe { crate::screenshot::back_buffer(&gl, ctx) }
            .map_err(|e| format!("screenshot: {e}"));
        let image = match &image {
            Ok(img) => Ok((img.width, img.height, &img.rgba[..])),
            Err(e) => Err(e.as_str()),
        };
        dbg.send_frame_end_screenshots(due, frame, image, proto::Origin::BottomLeft);
    }
    dbg.send(&FromAgent::FrameEnd {
        context: ctx.handle as u64,
        frame,
    });
}

/// Applies the messages that arrived while the application ran, unless
/// another thread is in a conversation (they are its messages).
fn drain(dbg: &Debugger) {
    let _turn = match CONVERSATION.try_lock() {
        Ok(t) => t,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return,
    };
    while let Some(msg) = dbg.try_recv() {
        handle(dbg, msg, None);
    }
}

/// Serves the debugger until it says `Resume` (or goes away).
fn serve(dbg: &Debugger, mut stop: Option<&mut Stop<'_>>) {
    while let Some(msg) = dbg.recv() {
        if handle(dbg, msg, stop.as_deref_mut()) {
            return;
        }
    }
}

/// Handles one message; `true` when it ends the wait.
fn handle(dbg: &Debugger, msg: ToAgent, stop: Option<&mut Stop<'_>>) -> bool {
    match msg {
        ToAgent::Hello { .. } => false,
        ToAgent::SetBreakpoints {
            shader,
            breakpoints,
        } => {
            // Only breakpoints that bind (with a condition that type-checks) are
            // kept: one bad condition must not stop the others from working.
            let breakpoints = report_binding(dbg, shader, &breakpoints);
            with_breakpoints(|b| {
                if breakpoints.is_empty() {
                    b.by_shader.remove(&shader);
                } else {
                    b.by_shader.insert(shader, breakpoints);
                }
                b.generation += 1;
            });
            false
        }
        ToAgent::SetStopFilter(f) => {
            with_breakpoints(|b| {
                b.filter = f;
                b.generation += 1;
            });
            false
        }
        ToAgent::Record { request, selector } => {
            match stop {
                Some(stop) => stop.record(dbg, request, selector),
                None => dbg.send(&FromAgent::Error {
                    request: Some(request),
                    message: "not stopped at a draw".into(),
                }),
            }
            false
        }
        ToAgent::Watch {
            request,
            line,
            expr,
        } => {
            match stop {
                Some(stop) => stop.watch(dbg, request, line, &expr),
                None => dbg.send(&FromAgent::Error {
                    request: Some(request),
                    message: "not stopped at a draw".into(),
                }),
            }
            false
        }
        ToAgent::SetExceptionFilters(f) => {
            GL_ERROR_FILTER.store(f.gl_error, Ordering::Relaxed);
            with_breakpoints(|b| {
                b.exceptions = f;
                b.generation += 1;
            });
            false
        }
        ToAgent::Pause => {
            with_breakpoints(|b| {
                b.pause = true;
                b.generation += 1;
            });
            false
        }
        ToAgent::Screenshot {
            request,
            at: proto::ScreenshotAt::Now,
        } => {
            match stop {
                Some(stop) => stop.screenshot(dbg, request),
                None => dbg.send(&FromAgent::Error {
                    request: Some(request),
                    message: "not stopped at a draw".into(),
                }),
            }
            false
        }
        ToAgent::Screenshot {
            request,
            at: proto::ScreenshotAt::FrameEnd { frame },
        } => {
            with_breakpoints(|b| b.screenshots.push(request, frame));
            false
        }
        ToAgent::SourceFiles { .. } => false,
        ToAgent::SetScreenshotsAtStops { may_ask } => {
            SCREENSHOTS_AT_STOPS.store(may_ask, Ordering::Relaxed);
            false
        }
        ToAgent::Resume => true,
        ToAgent::Detach => {
            GL_ERROR_FILTER.store(false, Ordering::Relaxed);
            with_breakpoints(|b| {
                b.by_shader.clear();
                b.filter = proto::StopFilter::default();
                b.exceptions = proto::ExceptionFilters::default();
                b.pause = false;
                b.generation += 1;
            });
            true
        }
    }
}

/// Tells the debugger where each breakpoint of a shader binds, or why not;
/// returns the ones that bind.
fn report_binding(
    dbg: &Debugger,
    shader: u32,
    bps: &[proto::LineBreakpoint],
) -> Vec<proto::LineBreakpoint> {
    let mut ok = Vec::new();
    let found = find_shader(shader);
    let debug = match &found {
        Some(info) => match info.stage {
            Some(stage) => shader_debug(shader, stage, &info.sources).map_err(|e| e.to_string()),
            None => Err("unknown shader stage".to_string()),
        },
        None => Err(format!("no shader {shader}")),
    };
    for b in bps {
        let (line, message) = match &debug {
            Ok(d) => match d.bind(std::slice::from_ref(b)).remove(0) {
                Ok(bound) => match d.check_condition(&bound) {
                    Ok(()) => (Some(bound.line), None),
                    Err(why) => (None, Some(why.to_string())),
                },
                Err(why) => (None, Some(why.to_string())),
            },
            Err(why) => (None, Some(why.clone())),
        };
        if line.is_some() {
            ok.push(b.clone());
        }
        dbg.send(&FromAgent::BreakpointStatus {
            shader,
            requested_line: b.line,
            line,
            message,
        });
    }
    ok
}

/// A shader by name, in any context: the shader object, else the copy a
/// linked program keeps of it. Applications commonly delete their shaders
/// right after linking; the program still runs them, so breakpoints set
/// later must still bind. Names are per context: the same name can be
/// another thread's shader, created but not compiled yet, so a compiled one
/// of this thread's context comes first, then any compiled one.
fn find_shader(id: u32) -> Option<ShaderInfo> {
    let contexts = state::contexts();
    let objects: Vec<ShaderInfo> = contexts
        .iter()
        .filter_map(|c| state::shader(*c, id))
        .collect();
    let here = state::current_context();
    objects
        .iter()
        .find(|s| s.compile_status && s.context == here)
        .or_else(|| objects.iter().find(|s| s.compile_status))
        .or_else(|| objects.first())
        .cloned()
        .or_else(|| {
            contexts.iter().find_map(|c| {
                state::programs(*c)
                    .into_iter()
                    .flat_map(|p| p.shaders)
                    .find(|s| s.id == id)
            })
        })
}

/// Key of a cached instrumented program: context, program, debugged
/// shader, what it is instrumented for, breakpoint generation, the
/// program's shader sources (a relinked program with other sources gets a
/// new one) and the debug buffer's binding (the one free in the program
/// can change with `glShaderStorageBlockBinding`).
type HitKey = (ContextKey, u32, u32, Purpose, u64, u64, u32);

/// What a cached instrumented program is for: a shader can have both at
/// once (breakpoints and a sanitizer filter), each kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Purpose {
    HitTest,
    /// The one-pass hit test's program, which only counts hits.
    HitCount,
    Sanitize,
}

thread_local! {
    /// The agent's own GL function tables, per context (current on this thread).
    static GL: RefCell<HashMap<ContextKey, Rc<glow::Context>>> = RefCell::new(HashMap::new());
    /// Hit-test programs, built once per program and breakpoint set.
    static HIT_PROGRAMS: RefCell<HashMap<HitKey, glow::Program>> = RefCell::new(HashMap::new());
}

fn sources_hash(program: &ProgramInfo) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for s in &program.shaders {
        s.id.hash(&mut h);
        s.sources.hash(&mut h);
    }
    h.finish()
}

pub(crate) fn gl_for(ctx: ContextKey) -> Rc<glow::Context> {
    GL.with(|m| {
        m.borrow_mut()
            .entry(ctx)
            .or_insert_with(|| {
                // SAFETY: `ctx` is current; the loader only returns real GL functions.
                Rc::new(unsafe {
                    glow::Context::from_loader_function_cstr(|name| {
                        crate::resolve::real_gl_proc(name) as *const _
                    })
                })
            })
            .clone()
    })
}

/// The kind of context, which decides the `#version` instrumented shaders get.
///
/// # Safety
/// `gl`'s context is current on this thread.
unsafe fn target_of(gl: &glow::Context) -> Target {
    // SAFETY: parameter queries on the context the caller keeps current.
    let version = unsafe { gl.get_parameter_string(glow::VERSION) };
    if version.starts_with("OpenGL ES") {
        return Target::ES;
    }
    let v = gl.version();
    let compat = (v.major, v.minor) < (3, 2)
        // SAFETY: as above.
        || unsafe { gl.get_parameter_i32(glow::CONTEXT_PROFILE_MASK) }
            & glow::CONTEXT_COMPATIBILITY_PROFILE_BIT as i32
            != 0;
    Target {
        es: false,
        compatibility: compat,
    }
}

/// The application is stopped inside a draw; what the debugger can ask for.
struct Stop<'a> {
    ctx: ContextKey,
    draw: &'a DrawCall,
    program: ProgramInfo,
    shader: u32,
    debug: Arc<ShaderDebug>,
    gl: Rc<glow::Context>,
    target: Target,
    binding: u32,
    /// Set when the hit test was the draw itself (one pass): what the draw
    /// framebuffer held before it, for screenshots.
    before: Option<crate::screenshot::BeforeDraw>,
}

impl<'a> Stop<'a> {
    /// Tells the debugger the program stopped here, then serves it until it
    /// lets the draw or dispatch go on.
    fn announce(
        &mut self,
        dbg: &Debugger,
        hits: Vec<proto::Hit>,
        truncated: bool,
        reason: proto::StopReason,
        sanitizer: Vec<proto::SanitizerReport>,
    ) {
        dbg.send(&FromAgent::Stopped {
            context: self.ctx.handle as u64,
            frame: self.draw.frame,
            draw: self.draw.index,
            program: self.draw.program,
            shader: self.shader,
            hits,
            truncated,
            reason,
            probes: self.debug.table.clone(),
            sanitizer,
        });
        serve(dbg, Some(self));
    }

    /// A stop at `draw` in `ctx` (current on this thread) debugging `shader`
    /// of `program`, with the application's pending GL errors set aside;
    /// `None` when GL no longer knows the program.
    fn prepare(
        ctx: ContextKey,
        draw: &'a DrawCall,
        program: &ProgramInfo,
        shader: u32,
        debug: &Arc<ShaderDebug>,
    ) -> Option<Stop<'a>> {
        let gl = gl_for(ctx);
        crate::errors::stash_pending(ctx);
        // SAFETY: the draw's or dispatch's context is current on this thread.
        let (target, binding) = unsafe {
            let p = native_program(program.id)?;
            (target_of(&gl), debug_draw::free_storage_binding(&gl, p))
        };
        Some(Stop {
            ctx,
            draw,
            program: program.clone(),
            shader,
            debug: debug.clone(),
            gl,
            target,
            binding,
            before: None,
        })
    }

    /// Sources for an instrumented copy of the program: `replacement` for the
    /// debugged shader, the others as they are (raised to the same `#version`
    /// where GLSL ES demands it).
    fn sources(&self, replacement: String) -> Result<Vec<(u32, String)>, StopError> {
        let mut out = Vec::new();
        for s in &self.program.shaders {
            if s.id == self.shader {
                out.push((s.gl_type, replacement.clone()));
            } else if self.target.es {
                let stage = s.stage.ok_or(StopError::UnknownStage)?;
                let other = shader_debug(s.id, stage, &s.sources)?;
                let parsed = other
                    .glsl()
                    .ok_or_else(|| ShaderDebugError::Wgsl("WGSL in a GLSL ES program".into()))?;
                out.push((s.gl_type, instrument::raise_version(parsed, self.target)?));
            } else {
                out.push((s.gl_type, s.sources.concat()));
            }
        }
        Ok(out)
    }

    /// Builds a program with `replacement` for the debugged shader and runs the
    /// draw with it into a debug buffer initialised from `buffer`. With a
    /// `cache` key the program is kept (its uniforms are copied at every use).
    fn run(
        &self,
        replacement: impl FnOnce() -> Result<String, StopError>,
        buffer: (&[u8], debug_draw::Readback),
        cache: Option<HitKey>,
    ) -> Result<Vec<u32>, StopError> {
        let gl = &*self.gl;
        // SAFETY: the draw's context is current on this thread.
        unsafe {
            let original = native_program(self.program.id).ok_or(StopError::NoProgram)?;
            let counting = crate::queries::CountingQueriesAside::set(gl, self.ctx);
            let aside = debug_draw::TransformFeedbackAside::set(gl);
            let occlusion = if self.draw.args.is_compute() {
                Ok(None)
            } else {
                debug_draw::OcclusionAside::set(gl, || {
                    crate::screenshot::draw_framebuffer_size(gl, self.ctx)
                })
            };
            let result = match occlusion {
                Ok(occlusion) => {
                    let r = self.run_set_aside(gl, original, replacement, buffer, cache);
                    if let Some(o) = occlusion {
                        o.restore(gl);
                    }
                    r
                }
                Err(e) => Err(StopError::OcclusionQuery(e)),
            };
            // After the debug draw put the application's program back.
            aside.restore(gl);
            counting.restore();
            log_own_errors(self.ctx);
            result
        }
    }

    /// [`Self::run`] with the application's transform feedback set aside.
    ///
    /// # Safety
    /// `gl` is the stopped draw's context, current on this thread, and
    /// `original` is the application's program in it.
    unsafe fn run_set_aside(
        &self,
        gl: &glow::Context,
        original: glow::Program,
        replacement: impl FnOnce() -> Result<String, StopError>,
        buffer: (&[u8], debug_draw::Readback),
        cache: Option<HitKey>,
    ) -> Result<Vec<u32>, StopError> {
        // SAFETY: every call below is a GL call on the stopped draw's
        // context, which the caller keeps current; the programs are ones this
        // agent built in it (or the application's, only read from).
        unsafe {
            let program = self.instrumented(gl, original, replacement, cache)?;
            let mut replay = || {
                if let Err(e) = self.draw.replay() {
                    tracing::warn!("{e}");
                }
            };
            let result = debug_draw::instrumented_draw(
                gl,
                program,
                self.binding,
                buffer,
                &mut replay,
                debug_draw::Pass::Debug,
            );
            keep(gl, cache, program);
            Ok(result?)
        }
    }

    /// The instrumented program: the cached one for `cache` (its uniforms
    /// and block bindings copied from `original` now), or one built with
    /// `replacement`.
    ///
    /// # Safety
    /// `gl` is the stopped draw's context, current on this thread, and
    /// `original` is the application's program in it.
    unsafe fn instrumented(
        &self,
        gl: &glow::Context,
        original: glow::Program,
        replacement: impl FnOnce() -> Result<String, StopError>,
        cache: Option<HitKey>,
    ) -> Result<glow::Program, StopError> {
        // SAFETY: GL calls on the stopped draw's context, which the caller keeps
        // current; the cached program is one this agent built in it.
        unsafe {
            let cached = cache.and_then(|k| HIT_PROGRAMS.with(|m| m.borrow().get(&k).copied()));
            Ok(match cached {
                Some(p) => {
                    debug_draw::copy_uniforms(gl, original, p);
                    debug_draw::copy_block_bindings(gl, original, p);
                    p
                }
                None => {
                    let sources = self.sources(replacement()?)?;
                    let refs: Vec<(u32, &str)> =
                        sources.iter().map(|(t, s)| (*t, s.as_str())).collect();
                    let built = debug_draw::build_program(gl, original, &refs);
                    log_own_errors(self.ctx);
                    built?.program
                }
            })
        }
    }

    /// Why this draw's hit test cannot be the draw itself, or what a
    /// screenshot while stopped will need once it has run: the one-pass
    /// hit test runs the instrumented program *instead of* the
    /// application's, so it must compute the same outputs, write nothing
    /// else the application sees, and leave every later debug draw
    /// (recordings, watch images) the inputs the draw had.
    ///
    /// # Safety
    /// The draw's context is current on this thread.
    unsafe fn one_pass(&self) -> Result<crate::screenshot::BeforeDraw, TwoPasses> {
        let gl = &*self.gl;
        if self.draw.args.is_compute() {
            return Err(TwoPasses::Dispatch);
        }
        if two_passes_forced() {
            return Err(TwoPasses::Forced);
        }
        if gl_error_filter() {
            return Err(TwoPasses::GlErrorFilter);
        }
        let texts = || self.program.shaders.iter().flat_map(|s| &s.sources);
        let has = |words: &[&str]| texts().any(|t| words.iter().any(|w| t.contains(w)));
        if has(&["framebuffer_fetch", "gl_LastFrag", "pixel_local_storage"]) {
            return Err(TwoPasses::FramebufferFetch);
        }
        if has(&["early_fragment_tests"]) {
            return Err(TwoPasses::EarlyFragmentTests);
        }
        if texts().any(|t| shaderdbg_wgsl::gl_origin::has_header(t)) {
            return Err(TwoPasses::Wgsl);
        }
        if self
            .program
            .frag_data_locations
            .iter()
            .any(|f| f.index != 0)
        {
            return Err(TwoPasses::DualSource);
        }
        let Some(program) = native_program(self.program.id) else {
            return Err(TwoPasses::NoProgram);
        };
        // SAFETY: state queries on the draw's context, current (this function's
        // contract).
        unsafe {
            if debug_draw::writes_storage(gl, program) {
                return Err(TwoPasses::WritesStorage);
            }
            if gl.get_parameter_bool(glow::TRANSFORM_FEEDBACK_ACTIVE) {
                return Err(TwoPasses::TransformFeedback);
            }
            if crate::queries::statistics_active(gl) {
                return Err(TwoPasses::StatisticsQuery);
            }
            if !debug_draw::copies_every_uniform(gl, program) {
                return Err(TwoPasses::UncopiedUniform);
            }
            if debug_draw::has_subroutines(gl, program) {
                return Err(TwoPasses::Subroutines);
            }
            if debug_draw::samples_render_target(gl, program) {
                return Err(TwoPasses::SamplesTarget);
            }
            if !SCREENSHOTS_AT_STOPS.load(Ordering::Relaxed) {
                return Ok(crate::screenshot::BeforeDraw::NotKept);
            }
            let before = crate::screenshot::save_draw_framebuffer(gl, self.ctx);
            log_own_errors(self.ctx);
            before.map_err(TwoPasses::Screenshot)
        }
    }

    /// The hit test: in one pass (the instrumented program runs the
    /// application's call `original` instead of its program, once) where
    /// [`Self::one_pass`] allows, else as a debug draw before the
    /// application's. In one pass the program only counts hits
    /// ([`instrument::hit_count_only`]: a record's stores cost the
    /// driver more than the draw of a cheap shader, on every invocation
    /// even when nothing hits); where it counted some, the hit test runs
    /// again as a debug draw after the draw for the records (it sees the
    /// draw's inputs: one pass is only chosen where the draw cannot change
    /// them). (the hit buffer's words, whether `original` ran.)
    fn hit_test(
        &mut self,
        replacement: impl FnOnce() -> Result<String, StopError>,
        buffer: (&[u8], debug_draw::Readback),
        key: HitKey,
        original: Option<&mut dyn FnMut()>,
    ) -> (Result<Vec<u32>, StopError>, bool) {
        let (frame, index) = (self.draw.frame, self.draw.index);
        let one_pass = original.and_then(|o| {
            // SAFETY: the draw's context is current on this thread.
            match unsafe { self.one_pass() } {
                Ok(before) => Some((o, before)),
                Err(why) => {
                    tracing::debug!(ctx = %self.ctx, frame, draw = index, "hit test in two passes: {why}");
                    None
                }
            }
        });
        let Some((original, before)) = one_pass else {
            return (self.run(replacement, buffer, Some(key)), false);
        };
        // The full hit test's GLSL, made at most once (the cached programs
        // need none).
        let mut replacement = Some(replacement);
        let mut glsl = None;
        let mut full = || -> Result<String, StopError> {
            if let Some(f) = replacement.take() {
                glsl = Some(f()?);
            }
            glsl.clone().ok_or(StopError::NoProgram)
        };
        let count_key = (key.0, key.1, key.2, Purpose::HitCount, key.4, key.5, key.6);
        let mut ran = false;
        let gl = &*self.gl;
        // SAFETY: the draw's context is current on this thread; the
        // application's call runs with its own arguments and state but for
        // the program and the debug buffer's binding, both put back.
        let counted = unsafe {
            native_program(self.program.id)
                .ok_or(StopError::NoProgram)
                .and_then(|app| {
                    let program = self.instrumented(
                        gl,
                        app,
                        || {
                            let f = full()?;
                            Ok(instrument::hit_count_only(&f).unwrap_or(f))
                        },
                        Some(count_key),
                    )?;
                    let ctx = self.ctx;
                    let result = debug_draw::instrumented_draw(
                        gl,
                        program,
                        self.binding,
                        (buffer.0, debug_draw::Readback::Header),
                        &mut || {
                            // Errors of the agent's set-up are its own; the draw's
                            // are the application's.
                            log_own_errors(ctx);
                            original();
                            ran = true;
                            crate::errors::stash_pending(ctx);
                        },
                        debug_draw::Pass::Application,
                    );
                    keep(gl, Some(count_key), program);
                    log_own_errors(ctx);
                    Ok(result?)
                })
        };
        if ran {
            tracing::debug!(ctx = %self.ctx, frame, draw = index, "hit test in one pass: the draw ran instrumented, once");
            self.before = Some(before);
        }
        let result = match counted {
            Ok(header) if header.first().is_some_and(|&n| n > 0) => {
                tracing::debug!(ctx = %self.ctx, frame, draw = index, hits = header[0], "one-pass hit count: the hit test again after the draw, for the records");
                self.run(full, buffer, Some(key))
            }
            other => other,
        };
        (result, ran)
    }

    fn record(&mut self, dbg: &Debugger, request: u64, selector: Invocation) {
        let result = self.run(
            || Ok(self.debug.record(selector, self.target, self.binding)?),
            (
                &layout::new_record_buffer(RECORD_WORDS),
                debug_draw::Readback::Record,
            ),
            None,
        );
        match result {
            Ok(words) => dbg.send(&FromAgent::Recorded {
                request,
                shader: self.shader,
                selector,
                log: proto::Blob::from_words(&layout::trim_record(&words)),
            }),
            Err(e) => dbg.send(&FromAgent::Error {
                request: Some(request),
                message: e.to_string(),
            }),
        }
    }

    fn screenshot(&mut self, dbg: &Debugger, request: u64) {
        // SAFETY: the draw's context is current.
        let image = unsafe {
            match &self.before {
                // The draw has run (one pass): its framebuffer as it was before.
                Some(before) => crate::screenshot::before_draw(&self.gl, self.ctx, before),
                None => crate::screenshot::draw_framebuffer(&self.gl, self.ctx),
            }
        };
        log_own_errors(self.ctx);
        dbg.send(&match image {
            Ok(img) => FromAgent::Screenshot {
                request,
                frame: self.draw.frame,
                width: img.width,
                height: img.height,
                shows: proto::ScreenshotShows::BeforeDraw,
                origin: proto::Origin::BottomLeft,
                rgba: proto::Blob(img.rgba),
            },
            Err(e) => FromAgent::Error {
                request: Some(request),
                message: format!("screenshot: {e}"),
            },
        });
    }

    fn watch(&mut self, dbg: &Debugger, request: u64, line: u32, expr: &str) {
        let gl = &*self.gl;
        let mut viewport = [0i32; 4];
        // SAFETY: the draw's context is current.
        unsafe { gl.get_parameter_i32_slice(glow::VIEWPORT, &mut viewport) };
        let (width, height) = (
            (viewport[0] + viewport[2]).max(1) as u32,
            (viewport[1] + viewport[3]).max(1) as u32,
        );
        let result = self
            .debug
            .watch(line, expr, self.target, self.binding)
            .map_err(StopError::from)
            .and_then(|(glsl, ty)| {
                let words = ty.words().unwrap_or(0);
                let data = self.run(
                    || Ok(glsl),
                    (
                        &layout::new_watch_buffer(width, height, words),
                        debug_draw::Readback::Whole,
                    ),
                    None,
                )?;
                Ok((ty, words, data))
            });
        match result {
            Ok((ty, value_words, data)) => dbg.send(&FromAgent::WatchImage {
                request,
                width,
                height,
                ty,
                value_words,
                data: proto::Blob::from_words(&data),
                origin: proto::Origin::BottomLeft,
            }),
            Err(e) => dbg.send(&FromAgent::Error {
                request: Some(request),
                message: e.to_string(),
            }),
        }
    }
}

/// Keeps an instrumented program under its `cache` key (one per
/// application program: the one of an older breakpoint set, or binding,
/// goes), or deletes it when it has none.
///
/// # Safety
/// `gl`'s context is current on this thread and `program` is one the agent
/// built in it.
unsafe fn keep(gl: &glow::Context, cache: Option<HitKey>, program: glow::Program) {
    // SAFETY: deleting programs this agent built, on their context (the
    // caller's contract).
    unsafe {
        match cache {
            Some(k) => HIT_PROGRAMS.with(|m| {
                let mut m = m.borrow_mut();
                let stale: Vec<HitKey> = m
                    .keys()
                    .filter(|o| (o.0, o.1, o.2, o.3) == (k.0, k.1, k.2, k.3) && **o != k)
                    .copied()
                    .collect();
                for o in stale {
                    if let Some(p) = m.remove(&o) {
                        gl.delete_program(p);
                    }
                }
                m.insert(k, program);
            }),
            None => gl.delete_program(program),
        }
    }
}

fn native_program(id: u32) -> Option<glow::Program> {
    std::num::NonZeroU32::new(id).map(glow::NativeProgram)
}

fn log_own_errors(ctx: ContextKey) {
    let own = crate::errors::drain_own();
    if !own.is_empty() {
        tracing::warn!(%ctx, errors = ?own, "GL errors from the agent's own work (hidden from the application)");
    }
}

/// What a breakpoint of a hit test stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    User,
    PixelHistory,
    Pause,
}

/// One hit test a draw may need: a shader, its breakpoints, NaN/Inf checks.
struct Attempt {
    shader: u32,
    stage: Stage,
    sources: Vec<String>,
    lines: Vec<(proto::LineBreakpoint, Role)>,
    nan_inf: bool,
}

/// The hit tests of a draw, in the order they are tried (fragment shader
/// first, then vertex; compute for dispatches). A pending `Pause` replaces
/// everything else: the first shader, every invocation at the start of `main`.
fn attempts(program: &ProgramInfo, bps: &Breakpoints, draw: &DrawCall) -> Vec<Attempt> {
    let compute = draw.args.is_compute();
    let order: &[state::Stage] = if compute {
        &[state::Stage::Compute]
    } else {
        &[state::Stage::Fragment, state::Stage::Vertex]
    };
    let shaders = || {
        order.iter().flat_map(|want| {
            program
                .shaders
                .iter()
                .filter(move |s| s.stage == Some(*want))
                .map(move |s| (s, *want))
        })
    };
    let start = |condition: Option<String>| proto::LineBreakpoint {
        id: 0,
        line: 0,
        condition,
    };
    if bps.pause {
        return shaders()
            .take(1)
            .map(|(s, stage)| Attempt {
                shader: s.id,
                stage,
                sources: s.sources.clone(),
                lines: vec![(start(None), Role::Pause)],
                nan_inf: false,
            })
            .collect();
    }
    if bps.filter.frame.is_some_and(|f| f != draw.frame) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (s, stage) in shaders() {
        let mut lines: Vec<(proto::LineBreakpoint, Role)> = bps
            .by_shader
            .get(&s.id)
            .into_iter()
            .flatten()
            .map(|b| (b.clone(), Role::User))
            .collect();
        // WGSL conditions see the variables in scope only: a WGSL shader's
        // hit test selects the pixel itself (`ShaderDebug::hit_test`).
        let wgsl = s
            .sources
            .first()
            .is_some_and(|t| shaderdbg_wgsl::gl_origin::has_header(t));
        if let (Some([x, y]), Stage::Fragment, false) = (bps.filter.pixel, stage, wgsl) {
            // The pixel filter is part of the condition: a hit buffer that
            // fills with other pixels' hits must not hide this pixel's
            // (test: cli/tests/run.rs, pixel_filter_finds_its_pixel_...).
            let at_pixel = format!("uint(gl_FragCoord.x) == {x}u && uint(gl_FragCoord.y) == {y}u");
            for (b, _) in &mut lines {
                b.condition = Some(match b.condition.take() {
                    Some(c) => format!("({at_pixel}) && ({c})"),
                    None => at_pixel.clone(),
                });
            }
        }
        if let (Some([x, y]), true, Stage::Fragment) =
            (bps.filter.pixel, bps.filter.pixel_history, stage)
        {
            // Pixel history: a stop at the start of `main` of every fragment
            // shader invocation at that pixel.
            let at_pixel = (!wgsl)
                .then(|| format!("uint(gl_FragCoord.x) == {x}u && uint(gl_FragCoord.y) == {y}u"));
            lines.push((start(at_pixel), Role::PixelHistory));
        }
        let nan_inf = bps.exceptions.nan_inf && matches!(stage, Stage::Fragment | Stage::Vertex);
        if !lines.is_empty() || nan_inf {
            out.push(Attempt {
                shader: s.id,
                stage,
                sources: s.sources.clone(),
                lines,
                nan_inf,
            });
        }
    }
    out
}

/// At a draw or dispatch: the hit tests, and a stop if something hit.
/// `run_original` is the application's call: where the hit test can be
/// the draw itself (one pass, see [`Stop::one_pass`]) it runs inside, with
/// the instrumented program, and `true` says so (the caller must not run
/// it again); `false`: it has not run.
pub fn at_draw(
    dbg: &Debugger,
    ctx: ContextKey,
    draw: &DrawCall,
    run_original: &mut dyn FnMut(),
) -> bool {
    drain(dbg);
    // Most draws have nothing to debug: answer that without copying the
    // program's shadow state (all its sources).
    let busy = with_breakpoints(|b| {
        !b.by_shader.is_empty()
            || (b.filter.pixel_history && b.filter.pixel.is_some())
            || b.pause
            || b.exceptions.nan_inf
            || b.exceptions.sanitize()
    });
    let idle = !busy;
    if idle {
        return false;
    }
    let Some(program) = state::program(ctx, draw.program) else {
        return false;
    };
    let (plan, filter, generation, exceptions, pause) = with_breakpoints(|b| {
        (
            attempts(&program, b, draw),
            b.filter,
            b.generation,
            b.exceptions,
            b.pause,
        )
    });
    // Breakpoints (and a pause) win over the sanitizer at the same draw.
    let sanitize = exceptions.sanitize()
        && !pause
        && filter.frame.is_none_or(|f| f == draw.frame)
        // Every check applies to a draw (uninitialized reads: of its
        // locals; it has no shared memory).
        && (draw.args.is_compute()
            || exceptions.sanitize_oob
            || exceptions.sanitize_uninit
            || exceptions.sanitize_race);
    // One hit test can be the draw itself: where the draw has only one, and
    // is not sanitized after it (the sanitize pass is a debug draw that
    // must come before the application's draw: its stop is inside it).
    let mut original = (plan.len() == 1 && !sanitize).then_some(run_original);
    let mut ran = false;
    for attempt in plan {
        let (stopped, r) = try_stop(
            dbg,
            ctx,
            draw,
            &program,
            attempt,
            (filter, generation),
            original.take(),
        );
        ran |= r;
        if stopped {
            return ran;
        }
    }
    if sanitize {
        try_sanitize(dbg, ctx, draw, &program, exceptions, generation);
    }
    ran
}

/// Runs one hit test; stops (and serves the debugger until `Resume`) if
/// something hit. With `original` (the application's call) the hit test
/// runs in one pass where that is safe. (whether it stopped, whether the
/// application's call ran).
fn try_stop(
    dbg: &Debugger,
    ctx: ContextKey,
    draw: &DrawCall,
    program: &ProgramInfo,
    attempt: Attempt,
    (filter, generation): (proto::StopFilter, u64),
    original: Option<&mut dyn FnMut()>,
) -> (bool, bool) {
    let Attempt {
        shader,
        stage,
        sources,
        lines,
        nan_inf,
    } = attempt;
    let debug = match shader_debug(shader, stage, &sources) {
        Ok(d) => d,
        Err(e) => {
            tracing::debug!(shader, "breakpoints stay unverified: {e}");
            return (false, false);
        }
    };
    let requested: Vec<proto::LineBreakpoint> = lines.iter().map(|(b, _)| b.clone()).collect();
    let (bound, roles_ids): (Vec<BoundBreakpoint>, Vec<(Role, u32)>) = debug
        .bind(&requested)
        .into_iter()
        .zip(lines.iter().map(|(b, r)| (*r, b.id)))
        .filter_map(|(b, r)| b.ok().map(|b| (b, r)))
        .unzip();
    let (roles, ids): (Vec<Role>, Vec<u32>) = roles_ids.into_iter().unzip();
    if bound.is_empty() && !nan_inf {
        return (false, false);
    }
    let Some(mut stop) = Stop::prepare(ctx, draw, program, shader, &debug) else {
        return (false, false);
    };
    let (target, binding) = (stop.target, stop.binding);
    let key = (
        ctx,
        stop.program.id,
        shader,
        Purpose::HitTest,
        generation,
        sources_hash(&stop.program),
        binding,
    );
    let (words, ran) = stop.hit_test(
        || {
            let only = match (filter.pixel, stage) {
                (Some([x, y]), Stage::Fragment) => Some(Invocation::fragment(x, y)),
                _ => None,
            };
            Ok(debug.hit_test(&bound, nan_inf, target, binding, only)?)
        },
        (hit_buffer(), debug_draw::Readback::Hits),
        key,
        original,
    );
    let words = match words {
        Ok(w) => w,
        Err(e) => {
            dbg.send(&FromAgent::Error {
                request: None,
                message: format!("shader {shader}: hit test failed: {e}"),
            });
            return (false, ran);
        }
    };
    let (mut hits, truncated) = debug.hits(&words);
    if let Some(pixel) = filter.pixel.filter(|_| stage == Stage::Fragment) {
        hits.retain(|h| h.invocation.pixel() == Some(pixel));
    }
    // A hit's tag is the index of its breakpoint in `bound`; the debugger
    // knows its breakpoints by the ids it gave them.
    let pick = |want: Option<Role>| -> Vec<proto::Hit> {
        let mut v: Vec<proto::Hit> = hits
            .iter()
            .filter_map(|h| match (h.tag, want) {
                (HitTag::Breakpoint(i), Some(r)) if roles.get(i as usize) == Some(&r) => {
                    let id = ids.get(i as usize).copied().unwrap_or(0);
                    Some(proto::Hit {
                        tag: HitTag::Breakpoint(id),
                        ..*h
                    })
                }
                (HitTag::NanInf, None) => Some(*h),
                _ => None,
            })
            .collect();
        // A driver may run a vertex shader more than once for the same
        // vertex (indexed draws larger than its post-transform cache or
        // batch): the same invocation, reported once. Equal hits are
        // adjacent once sorted.
        v.dedup();
        v
    };
    // A breakpoint wins over everything else at the same draw.
    let (reason, hits) = [
        (proto::StopReason::Breakpoint, pick(Some(Role::User))),
        (proto::StopReason::Pause, pick(Some(Role::Pause))),
        (
            proto::StopReason::PixelHistory,
            pick(Some(Role::PixelHistory)),
        ),
        (proto::StopReason::NanInf, pick(None)),
    ]
    .into_iter()
    .find(|(_, h)| !h.is_empty())
    .unwrap_or((proto::StopReason::Breakpoint, Vec::new()));
    if hits.is_empty() {
        return (false, ran);
    }
    let _turn = conversation();
    // While this thread waited for its turn, the debugger may have changed
    // what stops (or detached): hits of an older breakpoint set do not stop.
    if with_breakpoints(|b| b.generation) != generation {
        return (false, ran);
    }
    if reason == proto::StopReason::Pause {
        with_breakpoints(|b| {
            b.pause = false;
            b.generation += 1;
        });
    }
    stop.announce(dbg, hits, truncated, reason, Vec::new());
    (true, ran)
}

/// Capacity of the sanitizer's report buffer, in records (reports are
/// deduplicated per kind and step on the GPU, so few are ever written).
const SANITIZE_CAPACITY: u32 = 1024;

/// Storage race shadow slots a sanitize buffer gets at most (112 MiB of
/// shadow, for 16 MiB of bound storage); elements past them are not
/// checked for races, and the debugger hears so.
const SANITIZE_MAX_SHADOW_SLOTS: u64 = 1 << 22;

/// Words the storage race check keeps before the shadow's slots for a
/// dispatch: one per work group (its release generation; see the GLSL
/// engine's `Checks` account); an indirect dispatch's count is not read.
const SANITIZE_INDIRECT_GROUPS: u64 = 1 << 16;

/// With a sanitizer filter on, at a dispatch or draw: runs its shaders
/// sanitized, one at a time (the compute shader; the fragment shader, then
/// the vertex shader), each as a debug draw (writes masked, the
/// application's buffers and images put back, as for a hit test) before
/// the application's own call, which runs as it would without the
/// debugger. At the first that reports something, stops with
/// `StopReason::Sanitizer` (and serves the debugger until `Resume`).
/// `true` when it stopped.
///
/// Never in one pass (the sanitized program running the application's
/// call, as a one-pass hit test does): a sanitized shader does not compute
/// what the application's does where the checks fire (an out-of-bounds
/// read yields zero, such a write is skipped or its index clamped, see
/// `instrument::Checks`), so its pictures and buffers could differ from a
/// run without the debugger exactly where the bugs are; and the programs
/// sanitized are mostly ones that write storage, which one pass excludes
/// anyway.
fn try_sanitize(
    dbg: &Debugger,
    ctx: ContextKey,
    draw: &DrawCall,
    program: &ProgramInfo,
    exceptions: proto::ExceptionFilters,
    generation: u64,
) -> bool {
    let order: &[(state::Stage, Stage)] = if draw.args.is_compute() {
        &[(state::Stage::Compute, Stage::Compute)]
    } else {
        &[
            (state::Stage::Fragment, Stage::Fragment),
            (state::Stage::Vertex, Stage::Vertex),
        ]
    };
    let shaders: Vec<(&ShaderInfo, Stage)> = order
        .iter()
        .flat_map(|(want, stage)| {
            program
                .shaders
                .iter()
                .filter(move |s| s.stage == Some(*want))
                .map(move |s| (s, *stage))
        })
        .collect();
    shaders.into_iter().any(|(s, stage)| {
        sanitize_shader(dbg, ctx, draw, program, (s, stage), exceptions, generation)
    })
}

/// Tells the debugger why a shader is not sanitized, once per shader and
/// filter generation: the same reason at every draw of a frame would only
/// bury the others.
fn tell_once(dbg: &Debugger, key: (u32, u64), message: String) {
    static TOLD: Mutex<Vec<(u32, u64)>> = Mutex::new(Vec::new());
    let mut told = TOLD.lock().unwrap_or_else(|e| e.into_inner());
    if told.contains(&key) {
        tracing::debug!("{message}");
        return;
    }
    told.retain(|(s, _)| *s != key.0);
    told.push(key);
    drop(told);
    dbg.send(&FromAgent::Error {
        request: None,
        message,
    });
}

/// [`try_sanitize`] of one shader.
fn sanitize_shader(
    dbg: &Debugger,
    ctx: ContextKey,
    draw: &DrawCall,
    program: &ProgramInfo,
    (s, stage): (&ShaderInfo, Stage),
    exceptions: proto::ExceptionFilters,
    generation: u64,
) -> bool {
    let shader = s.id;
    let debug = match shader_debug(shader, stage, &s.sources) {
        Ok(d) => d,
        Err(e) => {
            tracing::debug!(shader, "not sanitized: {e}");
            return false;
        }
    };
    if debug.is_wgsl() {
        tell_once(
            dbg,
            (shader, generation),
            format!("shader {shader}: not sanitized: the sanitizer is not available for WGSL yet"),
        );
        return false;
    }
    let checks = instrument::Checks {
        out_of_bounds: exceptions.sanitize_oob,
        uninit_shared: exceptions.sanitize_uninit,
        race: exceptions.sanitize_race,
    };
    let Some(mut stop) = Stop::prepare(ctx, draw, program, shader, &debug) else {
        return false;
    };
    let (target, binding) = (stop.target, stop.binding);
    // One shadow slot per word of the storage the program has bound (its
    // members' elements take no more), rather than a fixed number that
    // could be too few or far too many.
    let Some(app) = native_program(program.id) else {
        return false;
    };
    // SAFETY: the draw's context is current on this thread.
    let bound = unsafe { debug_draw::bound_storage_words(&stop.gl, app, binding) };
    log_own_errors(ctx);
    let groups = match draw.args {
        DrawArgs::Compute { groups } => groups.iter().map(|&g| u64::from(g)).product(),
        DrawArgs::ComputeIndirect { .. } => SANITIZE_INDIRECT_GROUPS,
        _ => 0,
    };
    let reserve = groups.div_ceil(layout::SANITIZE_SHADOW_SLOT_WORDS as u64);
    let slots = bound
        .saturating_add(reserve)
        .clamp(16, SANITIZE_MAX_SHADOW_SLOTS) as u32;
    // The header; the rest (dedup words, records, shadow) is cleared on
    // the GPU.
    let header = layout::to_bytes(&layout::sanitize_header(
        SANITIZE_CAPACITY,
        debug.table.probes.len(),
    ));
    let total = layout::sanitize_buffer_words(SANITIZE_CAPACITY, debug.table.probes.len(), slots);
    let key = (
        ctx,
        program.id,
        shader,
        Purpose::Sanitize,
        generation,
        sources_hash(program),
        binding,
    );
    let words = match stop.run(
        || Ok(debug.sanitize(checks, target, binding)?),
        (
            &header,
            debug_draw::Readback::Sanitize {
                zeroed_bytes: (total - layout::HEADER_WORDS) * 4,
            },
        ),
        Some(key),
    ) {
        Ok(w) => w,
        Err(e) => {
            tell_once(
                dbg,
                (shader, generation),
                format!("shader {shader}: sanitizing failed: {e}"),
            );
            return false;
        }
    };
    let (reports, truncated) = debug.sanitizer_reports(&words);
    // What the storage race check skipped is said, not silently left out.
    let skipped = match layout::sanitize_unchecked(&words) {
        (true, _) => Some(format!(
            "the storage race shadow holds {slots} elements ({bound} words of storage bound, \
             at most {SANITIZE_MAX_SHADOW_SLOTS}): accesses past them were not checked for races"
        )),
        (false, true) => Some(
            "some invocations are beyond what the storage race check names (a dispatch of more \
             than 2^22 invocations, fragments at x or y >= 2048, vertices >= 65536 or \
             instances >= 64): their storage accesses were not checked for races"
                .to_string(),
        ),
        (false, false) => None,
    };
    if let Some(why) = skipped {
        tell_once(dbg, (shader, generation), format!("shader {shader}: {why}"));
    }
    tracing::debug!(%ctx, frame = draw.frame, draw = draw.index, shader, slots, "sanitized: {} reports", reports.len());
    if reports.is_empty() {
        return false;
    }
    let mut hits: Vec<proto::Hit> = reports
        .iter()
        .enumerate()
        .map(|(i, r)| proto::Hit {
            tag: HitTag::Breakpoint(i as u32),
            probe: r.probe,
            line: r.line,
            occurrence: 0,
            invocation: r.invocation,
        })
        .collect();
    // A race's other invocation stops too, at its access (tagged with the
    // report's index, after the one hit per report).
    hits.extend(
        reports
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r.kind {
                SanitizerKind::Race {
                    other,
                    other_probe,
                    other_line,
                    ..
                } if other_probe != 0 => Some(proto::Hit {
                    tag: HitTag::Breakpoint(i as u32),
                    probe: other_probe,
                    line: other_line,
                    occurrence: 0,
                    invocation: other,
                }),
                _ => None,
            }),
    );
    let _turn = conversation();
    if with_breakpoints(|b| b.generation) != generation {
        return false;
    }
    stop.announce(dbg, hits, truncated, proto::StopReason::Sanitizer, reports);
    true
}

/// The GL call `call` raised `error` (exception filter `gl_error`): the
/// debugger hears of it and the application waits until `Resume`.
pub fn at_gl_error(dbg: &Debugger, ctx: ContextKey, call: &str, error: u32) {
    drain(dbg);
    if !gl_error_filter() {
        return;
    }
    let _turn = conversation();
    dbg.send(&FromAgent::GlError {
        context: ctx.handle as u64,
        frame: state::frame(ctx),
        draw: state::draws_in_frame(ctx),
        call: call.to_string(),
        error,
    });
    serve(dbg, None);
}
