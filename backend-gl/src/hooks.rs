//! The hooks, one per intercepted base command (named like the command),
//! plus the machinery every wrapper runs through ([`dispatch`],
//! [`Original`]). Most are hand-written; commands that differ only in
//! constants (the `glGetQueryObject*v` and `glGetQueryBufferObject*v`
//! families by the width of their result, the `glDrawTransformFeedback*`
//! family by stream and instance count, ...) get a hook generated from
//! their `glName -> body(args)` line in `intercept.txt` that calls a shared,
//! hand-written body here.
//!
//! A generated wrapper (see [`crate::gl`]) resolves the real function and
//! calls `dispatch(name, run, |orig| hooks::glName(orig, args..))`:
//!
//! - `orig: &mut Original<R>` runs the application's call (the real
//!   function with the application's arguments) when the hook calls
//!   [`Original::call`], at most once; its result is what the wrapper
//!   returns. If the hook did not call it (or panicked before), `dispatch`
//!   calls it afterwards, so the application's call always runs exactly
//!   once.
//! - Aliases (`glShaderSourceARB`, `glDrawArraysInstancedEXT`, ...) call
//!   the base command's hook with their arguments converted to the base's
//!   types; [`Original::name`] is the name the application called.
//! - While a hook runs, the thread's re-entrancy guard is set: GL calls
//!   that come back into a wrapper on this thread pass straight through.
//! - Panics are caught and logged, never unwound into the application.
//! - `SHADERDBG_DISABLE=1` in the environment turns every hook off (all
//!   wrappers pass through).
//!
//! The hooks keep the shadow state ([`crate::state`]) and call the session
//! ([`crate::session`]): `on_shader_compiled` after `glCompileShader`,
//! `on_program_linked` after `glLinkProgram`/`glCreateShaderProgramv`,
//! `on_draw` around every draw and dispatch, `on_swap` before every swap.
//! GL queries the hooks make (`glGetShaderiv`, ...) go through
//! [`crate::real`] and are made only on objects that exist (`glIsShader`
//! first), so they raise no GL error.
//!
//! The agent does call `glGetError` ([`crate::errors`]): before its own GL
//! work (debug draws, screenshots, patching a query result in a buffer) it
//! drains the application's pending errors into a stash, and afterwards it
//! drains and logs its own; with the debugger's `gl_error` exception filter
//! on, [`dispatch`] also checks before and after every intercepted command.
//! The `glGetError` hook hands the stashed errors back first, oldest
//! first, so the application sees exactly the errors its own calls raised.

#![allow(non_snake_case)]

use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};
use std::ops::RangeInclusive;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Once, OnceLock};

use crate::draw::{DrawArgs, DrawCall};
use crate::queries::Width;
use crate::real;
use crate::session;
use crate::state::{self, current_context, ContextKey};

// ---------------------------------------------------------------------------
// Machinery

/// The application's call, run at most once. See the module documentation.
pub struct Original<'a, R> {
    name: &'static str,
    run: &'a mut dyn FnMut() -> R,
    result: Option<R>,
}

impl<R: Copy> Original<'_, R> {
    /// The name of the command the application called.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Runs the application's call (the first time) and returns its result.
    pub fn call(&mut self) -> R {
        if let Some(r) = self.result {
            tracing::warn!(
                command = self.name,
                "original call requested twice; ran once"
            );
            return r;
        }
        let r = (self.run)();
        self.result = Some(r);
        r
    }

    /// Answers the call without running it: only for `glGetError`, which must
    /// report errors the agent set aside for the application.
    pub fn answer_instead(&mut self, r: R) {
        self.result = Some(r);
    }

    /// Whether the application's call has run.
    pub fn has_run(&self) -> bool {
        self.result.is_some()
    }
}

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Set while a hook runs on this thread.
struct Guard;

impl Guard {
    fn enter() -> Option<Guard> {
        DEPTH
            .try_with(|d| {
                if d.get() > 0 {
                    None
                } else {
                    d.set(1);
                    Some(Guard)
                }
            })
            .ok()
            .flatten()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = DEPTH.try_with(|d| d.set(0));
    }
}

/// Whether the calling thread is inside one of the agent's hooks.
pub fn in_hook() -> bool {
    DEPTH.try_with(|d| d.get() > 0).unwrap_or(true)
}

fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        !std::env::var_os("SHADERDBG_DISABLE").is_some_and(|v| !v.is_empty() && v != "0")
    })
}

/// Panics inside the agent are logged instead of printed on the
/// application's stderr.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if in_hook() {
                tracing::error!("panic in the agent: {info}");
            } else {
                previous(info);
            }
        }));
    });
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_owned()
    }
}

/// Runs `hook` around the application's call `run` (see the module
/// documentation). Called by every wrapper.
pub fn dispatch<R: Copy>(
    name: &'static str,
    run: &mut dyn FnMut() -> R,
    hook: impl FnOnce(&mut Original<'_, R>),
) -> R {
    let Some(_guard) = Guard::enter() else {
        return run();
    };
    if !enabled() {
        return run();
    }
    crate::log::init();
    install_panic_hook();
    let check = checks_errors(name);
    if check {
        // Errors pending before this call were raised by calls the agent
        // does not intercept.
        check_gl_error(name, true);
    }
    let mut orig = Original {
        name,
        run,
        result: None,
    };
    if let Err(payload) = catch_unwind(AssertUnwindSafe(|| hook(&mut orig))) {
        tracing::error!(
            command = name,
            "hook failed: {}; the application goes on",
            panic_message(&*payload)
        );
    }
    let r = match orig.result {
        Some(r) => r,
        None => (orig.run)(),
    };
    if check {
        check_gl_error(name, false);
    }
    r
}

/// Whether a GL error check follows the intercepted call `name`: only while
/// the debugger's `gl_error` exception filter is on (one relaxed atomic load
/// otherwise), for GL commands (not the swaps), never for `glGetError`
/// (it consumes the errors it reports).
fn checks_errors(name: &str) -> bool {
    crate::stops::gl_error_filter()
        && name.starts_with("gl")
        && !name.starts_with("glX")
        && !name.starts_with("glGetError")
}

/// Sets a pending GL error aside for the application (its `glGetError`
/// still returns it) and tells the session (which may stop there).
fn check_gl_error(name: &'static str, before: bool) {
    let ctx = current_context();
    if ctx == ContextKey::NONE {
        return;
    }
    let found = crate::errors::stash_pending(ctx);
    let Some(&error) = found.first() else {
        return;
    };
    let call = if before {
        format!("a GL call before {name} (not intercepted)")
    } else {
        name.to_string()
    };
    session_call("on_gl_error", || session::on_gl_error(ctx, &call, error));
}

/// Called by a wrapper whose real function cannot be found: the call is
/// dropped (returns zero).
pub fn missing_real(name: &str) {
    crate::log::init();
    tracing::error!(command = name, "real function not found; call dropped");
}

/// Calls into the session, containing a panic so that the hook's own
/// bookkeeping goes on.
fn session_call(what: &str, f: impl FnOnce()) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(f)) {
        tracing::error!("session {what} failed: {}", panic_message(&*payload));
    }
}

// ---------------------------------------------------------------------------
// Reading the application's arguments

/// Most entries read from one multi-draw array.
const MAX_ARRAY: usize = 1 << 16;

/// Source strings as `glShaderSource` reads them: `lengths` NULL or an
/// entry < 0 means NUL-terminated. None when GL would reject the call.
///
/// # Safety
/// The pointers are the application's arguments to a GL call.
unsafe fn read_strings(
    count: i32,
    strings: *const *const c_char,
    lengths: *const i32,
) -> Option<Vec<String>> {
    if count < 0 || (count > 0 && strings.is_null()) {
        return None;
    }
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        // SAFETY: `strings` is not null (checked) and GL requires `count`
        // readable entries of it, and of `lengths` when that is not null
        // (this function's contract).
        let (s, len) = unsafe {
            (
                *strings.add(i),
                if lengths.is_null() {
                    -1
                } else {
                    *lengths.add(i)
                },
            )
        };
        if s.is_null() {
            return None;
        }
        // SAFETY: `s` is not null (checked); GL requires it to be
        // NUL-terminated when `len` is negative, else `len` readable bytes.
        let bytes = unsafe {
            if len < 0 {
                CStr::from_ptr(s).to_bytes()
            } else {
                std::slice::from_raw_parts(s.cast::<u8>(), len as usize)
            }
        };
        out.push(String::from_utf8_lossy(bytes).into_owned());
    }
    Some(out)
}

/// A name argument (`glBindAttribLocation`, ...), copied.
///
/// # Safety
/// `s` is null or NUL-terminated.
unsafe fn read_name(s: *const c_char) -> Option<String> {
    if s.is_null() {
        return None;
    }
    // SAFETY: `s` is not null (checked), so NUL-terminated (this function's
    // contract).
    Some(unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
}

/// An array argument of `n` entries, copied (at most [`MAX_ARRAY`]).
///
/// # Safety
/// `p` is null or points to `n` readable, initialised values.
unsafe fn read_array<T: Copy>(p: *const T, n: i32) -> Vec<T> {
    if p.is_null() || n <= 0 {
        return Vec::new();
    }
    let n = (n as usize).min(MAX_ARRAY);
    // SAFETY: `p` is not null (checked) and points to at least `n` readable
    // values (this function's contract; `n` only got smaller).
    unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
}

// ---------------------------------------------------------------------------
// GL queries (never on objects that do not exist)

const GL_COMPILE_STATUS: u32 = 0x8B81;
const GL_LINK_STATUS: u32 = 0x8B82;
const GL_INFO_LOG_LENGTH: u32 = 0x8B84;
const GL_SHADER_TYPE: u32 = 0x8B4F;
const GL_SHADER_SOURCE_LENGTH: u32 = 0x8B88;

/// Reads an info log or source of `len` bytes (including the NUL) with
/// `get(capacity, &written, buffer)`.
fn read_gl_string(len: i32, get: impl FnOnce(i32, *mut i32, *mut c_char)) -> String {
    if len <= 1 {
        return String::new();
    }
    let mut buf = vec![0u8; len as usize];
    let mut written = 0i32;
    get(len, &mut written, buf.as_mut_ptr().cast());
    buf.truncate((written.max(0) as usize).min(len as usize));
    String::from_utf8_lossy(&buf).into_owned()
}

/// The real queries of one kind of object, shaders or programs, for
/// [`query_status`].
struct StatusQueries {
    /// glIsShader / glIsProgram.
    exists: unsafe fn(u32) -> u8,
    /// glGetShaderiv / glGetProgramiv.
    get: unsafe fn(u32, u32, *mut i32),
    /// glGetShaderInfoLog / glGetProgramInfoLog.
    info_log: unsafe fn(u32, i32, *mut i32, *mut c_char),
    /// GL_COMPILE_STATUS / GL_LINK_STATUS.
    status: u32,
}

/// (compile or link status, info log) of an existing shader or program.
fn query_status(object: u32, q: &StatusQueries) -> Option<(bool, String)> {
    // SAFETY: `real` GL calls inside one of the application's GL calls (its
    // context is current); queries only on an object that exists (glIs*
    // first, so no error is raised), with live locals as out-pointers and
    // `read_gl_string`'s buffer of the capacity it passes.
    unsafe {
        if (q.exists)(object) == 0 {
            return None;
        }
        let mut status = 0;
        (q.get)(object, q.status, &mut status);
        let mut len = 0;
        (q.get)(object, GL_INFO_LOG_LENGTH, &mut len);
        let log = read_gl_string(len, |cap, written, buf| {
            (q.info_log)(object, cap, written, buf)
        });
        Some((status != 0, log))
    }
}

/// (compile status, info log) of an existing shader.
fn query_shader(shader: u32) -> Option<(bool, String)> {
    let q = StatusQueries {
        exists: real::glIsShader,
        get: real::glGetShaderiv,
        info_log: real::glGetShaderInfoLog,
        status: GL_COMPILE_STATUS,
    };
    query_status(shader, &q)
}

/// (link status, info log) of an existing program.
fn query_program(program: u32) -> Option<(bool, String)> {
    let q = StatusQueries {
        exists: real::glIsProgram,
        get: real::glGetProgramiv,
        info_log: real::glGetProgramInfoLog,
        status: GL_LINK_STATUS,
    };
    query_status(program, &q)
}

/// Makes a shader the shadow state does not know (created before the agent
/// saw it, or in another context of the share group) known, from GL: its
/// type and its current source as one string.
fn adopt_shader(ctx: ContextKey, shader: u32) {
    if state::shader_current_sources(ctx, shader).is_some() {
        return;
    }
    // SAFETY: `real` GL calls inside one of the application's GL calls (its
    // context is current); queries only on a shader that exists (glIsShader
    // first, so no error is raised), with live locals as out-pointers and
    // `read_gl_string`'s buffer of the capacity it passes.
    unsafe {
        if real::glIsShader(shader) == 0 {
            return;
        }
        let mut ty = 0;
        real::glGetShaderiv(shader, GL_SHADER_TYPE, &mut ty);
        let mut len = 0;
        real::glGetShaderiv(shader, GL_SHADER_SOURCE_LENGTH, &mut len);
        let source = read_gl_string(len, |cap, written, buf| {
            real::glGetShaderSource(shader, cap, written, buf)
        });
        state::shader_created(ctx, shader, ty as u32);
        if len > 1 {
            state::shader_source(ctx, shader, vec![source]);
        }
    }
    tracing::debug!(%ctx, shader, "adopted a shader the agent had not seen created");
}

// ---------------------------------------------------------------------------
// Shader and program objects

/// `glCreateShader(type)`.
pub(crate) fn glCreateShader(orig: &mut Original<'_, u32>, ty: u32) {
    let id = orig.call();
    if id != 0 {
        state::shader_created(current_context(), id, ty);
    }
}

/// `glShaderSource(shader, count, string, length)`.
///
/// # Safety
/// The arguments are the application's, valid for the GL call as GL
/// requires of them.
pub(crate) unsafe fn glShaderSource(
    orig: &mut Original<'_, ()>,
    shader: u32,
    count: i32,
    string: *const *const c_char,
    length: *const i32,
) {
    // SAFETY: the application's arguments to glShaderSource, which GL reads
    // just as `read_strings` does (this function's contract).
    let sources = unsafe { read_strings(count, string, length) };
    orig.call();
    let Some(sources) = sources else { return };
    let ctx = current_context();
    if !state::shader_source(ctx, shader, sources.clone()) {
        adopt_shader(ctx, shader);
        state::shader_source(ctx, shader, sources);
    }
}

/// `glGetError()`: errors the application raised before a debug draw were set
/// aside so the agent's GL work started clean; they come back first, in order.
pub(crate) fn glGetError(orig: &mut Original<'_, u32>) {
    match crate::errors::take_stashed(current_context()) {
        Some(e) => orig.answer_instead(e),
        None => {
            orig.call();
        }
    }
}

/// `glCompileShader(shader)`.
pub(crate) fn glCompileShader(orig: &mut Original<'_, ()>, shader: u32) {
    orig.call();
    let ctx = current_context();
    let Some((status, log)) = query_shader(shader) else {
        return;
    };
    adopt_shader(ctx, shader);
    if let Some(info) = state::shader_compiled(ctx, shader, status, log) {
        tracing::debug!(%ctx, shader, status, "shader compiled");
        session_call("on_shader_compiled", || session::on_shader_compiled(&info));
    }
}

/// `glDeleteShader(shader)`.
pub(crate) fn glDeleteShader(orig: &mut Original<'_, ()>, shader: u32) {
    orig.call();
    if shader != 0 {
        state::shader_deleted(current_context(), shader);
    }
}

/// `glCreateProgram()`.
pub(crate) fn glCreateProgram(orig: &mut Original<'_, u32>) {
    let id = orig.call();
    if id != 0 {
        state::program_created(current_context(), id);
    }
}

/// `glAttachShader(program, shader)`.
pub(crate) fn glAttachShader(orig: &mut Original<'_, ()>, program: u32, shader: u32) {
    orig.call();
    let ctx = current_context();
    adopt_shader(ctx, shader);
    state::shader_attached(ctx, program, shader);
}

/// `glLinkProgram(program)`.
pub(crate) fn glLinkProgram(orig: &mut Original<'_, ()>, program: u32) {
    orig.call();
    let ctx = current_context();
    let Some((status, log)) = query_program(program) else {
        return;
    };
    let info = state::program_linked(ctx, program, status, log);
    tracing::debug!(%ctx, program, status, shaders = info.shaders.len(), "program linked");
    session_call("on_program_linked", || session::on_program_linked(&info));
}

/// `glDeleteProgram(program)`.
pub(crate) fn glDeleteProgram(orig: &mut Original<'_, ()>, program: u32) {
    orig.call();
    if program != 0 {
        state::program_deleted(current_context(), program);
    }
}

/// `glDeleteObjectARB(obj)`: a shader or a program.
pub(crate) fn glDeleteObjectARB(orig: &mut Original<'_, ()>, object: u32) {
    orig.call();
    if object != 0 {
        state::object_deleted(current_context(), object);
    }
}

/// `glCreateShaderProgramv(type, count, strings)`.
///
/// # Safety
/// The arguments are the application's, valid for the GL call as GL
/// requires of them.
pub(crate) unsafe fn glCreateShaderProgramv(
    orig: &mut Original<'_, u32>,
    ty: u32,
    count: i32,
    strings: *const *const c_char,
) {
    // SAFETY: the application's arguments to glCreateShaderProgramv, which
    // GL reads as NUL-terminated strings, as `read_strings` does with no
    // lengths (this function's contract).
    let sources = unsafe { read_strings(count, strings, std::ptr::null()) };
    let program = orig.call();
    if program == 0 {
        return;
    }
    let ctx = current_context();
    let (status, log) = query_program(program).unwrap_or_default();
    let info =
        state::shader_program_created(ctx, program, ty, sources.unwrap_or_default(), status, log);
    session_call("on_program_linked", || session::on_program_linked(&info));
}

/// `glBindAttribLocation(program, index, name)`.
///
/// # Safety
/// The arguments are the application's, valid for the GL call as GL
/// requires of them.
pub(crate) unsafe fn glBindAttribLocation(
    orig: &mut Original<'_, ()>,
    program: u32,
    index: u32,
    name: *const c_char,
) {
    orig.call();
    // SAFETY: the application's name argument, which GL requires to be
    // NUL-terminated (this function's contract).
    if let Some(name) = unsafe { read_name(name) } {
        state::attrib_bound(current_context(), program, index, name);
    }
}

/// The body of the `glBindFragDataLocation` and
/// `glBindFragDataLocationIndexed` hooks (generated from `intercept.txt`;
/// index 0 for the first).
///
/// # Safety
/// `name` is the application's argument, NUL-terminated as GL requires.
unsafe fn frag_data_bound(
    orig: &mut Original<'_, ()>,
    program: u32,
    color: u32,
    index: u32,
    name: *const c_char,
) {
    orig.call();
    // SAFETY: NUL-terminated (this function's contract).
    if let Some(name) = unsafe { read_name(name) } {
        state::frag_data_bound(current_context(), program, color, index, name);
    }
}

/// `glTransformFeedbackVaryings(program, count, varyings, bufferMode)`.
///
/// # Safety
/// The arguments are the application's, valid for the GL call as GL
/// requires of them.
pub(crate) unsafe fn glTransformFeedbackVaryings(
    orig: &mut Original<'_, ()>,
    program: u32,
    count: i32,
    varyings: *const *const c_char,
    buffer_mode: u32,
) {
    // SAFETY: the application's arguments to glTransformFeedbackVaryings:
    // `count` NUL-terminated names, as GL reads them (this function's
    // contract).
    let names = unsafe { read_strings(count, varyings, std::ptr::null()) };
    orig.call();
    if let Some(names) = names {
        state::transform_feedback_varyings(current_context(), program, names, buffer_mode);
    }
}

// ---------------------------------------------------------------------------
// Draws and dispatches

fn draw(orig: &mut Original<'_, ()>, args: DrawArgs) {
    let ctx = current_context();
    let pos = state::begin_draw(ctx);
    let call = DrawCall {
        context: ctx,
        command: orig.name(),
        program: pos.program,
        pipeline: pos.pipeline,
        frame: pos.frame,
        index: pos.index,
        args,
    };
    session_call("on_draw", || {
        session::on_draw(ctx, &call, &mut || {
            orig.call();
        })
    });
}

/// The body of the `glDrawArrays*` hooks (generated from `intercept.txt`).
fn draw_arrays(
    orig: &mut Original<'_, ()>,
    mode: u32,
    first: i32,
    count: i32,
    instance_count: i32,
    base_instance: u32,
) {
    let args = DrawArgs::Arrays {
        mode,
        first,
        count,
        instance_count,
        base_instance,
    };
    draw(orig, args);
}

/// The body of the `glDrawElements*` and `glDrawRangeElements*` hooks
/// (generated from `intercept.txt`).
///
/// # Safety
/// None beyond the GL call's: `indices` is kept as an offset or address,
/// never read here (the generator makes bodies with pointers `unsafe`).
#[allow(clippy::too_many_arguments)]
unsafe fn draw_elements(
    orig: &mut Original<'_, ()>,
    mode: u32,
    count: i32,
    index_type: u32,
    indices: *const c_void,
    instance_count: i32,
    base_vertex: i32,
    base_instance: u32,
    range: Option<RangeInclusive<u32>>,
) {
    let args = DrawArgs::Elements {
        mode,
        count,
        index_type,
        indices: indices as usize,
        instance_count,
        base_vertex,
        base_instance,
        range: range.map(RangeInclusive::into_inner),
    };
    draw(orig, args);
}

/// `glMultiDrawArrays(mode, first, count, drawcount)`.
///
/// # Safety
/// The arguments are the application's, valid for the GL call as GL
/// requires of them.
pub(crate) unsafe fn glMultiDrawArrays(
    orig: &mut Original<'_, ()>,
    mode: u32,
    first: *const i32,
    count: *const i32,
    draw_count: i32,
) {
    // SAFETY: the application's arrays, of which GL reads `draw_count`
    // entries each (this function's contract).
    let (firsts, counts) =
        unsafe { (read_array(first, draw_count), read_array(count, draw_count)) };
    let draws = firsts.into_iter().zip(counts).collect();
    draw(orig, DrawArgs::MultiArrays { mode, draws });
}

/// The body of the `glMultiDrawElements` and `glMultiDrawElementsBaseVertex`
/// hooks (generated from `intercept.txt`).
///
/// # Safety
/// The arguments are the application's, valid for the GL call as GL
/// requires of them; a null `base_vertex` is read as none.
unsafe fn multi_draw_elements(
    orig: &mut Original<'_, ()>,
    mode: u32,
    count: *const i32,
    ty: u32,
    indices: *const *const c_void,
    draw_count: i32,
    base_vertex: *const i32,
) {
    // SAFETY: the application's arrays, of which GL reads `draw_count`
    // entries each (this function's contract); `base_vertex` may be null.
    let (counts, offsets, bases) = unsafe {
        (
            read_array(count, draw_count),
            read_array(indices, draw_count),
            read_array(base_vertex, draw_count),
        )
    };
    let draws = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            (
                c,
                offsets.get(i).map_or(0, |&p| p as usize),
                bases.get(i).copied().unwrap_or(0),
            )
        })
        .collect();
    draw(
        orig,
        DrawArgs::MultiElements {
            mode,
            index_type: ty,
            draws,
        },
    );
}

/// `glDrawArraysIndirect(mode, indirect)`.
pub(crate) fn glDrawArraysIndirect(
    orig: &mut Original<'_, ()>,
    mode: u32,
    indirect: *const c_void,
) {
    glMultiDrawArraysIndirect(orig, mode, indirect, 1, 0);
}

/// `glMultiDrawArraysIndirect(mode, indirect, drawcount, stride)`.
pub(crate) fn glMultiDrawArraysIndirect(
    orig: &mut Original<'_, ()>,
    mode: u32,
    indirect: *const c_void,
    draw_count: i32,
    stride: i32,
) {
    let args = DrawArgs::ArraysIndirect {
        mode,
        indirect: indirect as usize,
        draw_count,
        stride,
        count_offset: None,
    };
    draw(orig, args);
}

/// `glMultiDrawArraysIndirectCount(mode, indirect, drawcount, maxdrawcount, stride)`.
pub(crate) fn glMultiDrawArraysIndirectCount(
    orig: &mut Original<'_, ()>,
    mode: u32,
    indirect: *const c_void,
    count_offset: isize,
    max_draw_count: i32,
    stride: i32,
) {
    let args = DrawArgs::ArraysIndirect {
        mode,
        indirect: indirect as usize,
        draw_count: max_draw_count,
        stride,
        count_offset: Some(count_offset),
    };
    draw(orig, args);
}

/// `glDrawElementsIndirect(mode, type, indirect)`.
pub(crate) fn glDrawElementsIndirect(
    orig: &mut Original<'_, ()>,
    mode: u32,
    ty: u32,
    indirect: *const c_void,
) {
    glMultiDrawElementsIndirect(orig, mode, ty, indirect, 1, 0);
}

/// `glMultiDrawElementsIndirect(mode, type, indirect, drawcount, stride)`.
pub(crate) fn glMultiDrawElementsIndirect(
    orig: &mut Original<'_, ()>,
    mode: u32,
    ty: u32,
    indirect: *const c_void,
    draw_count: i32,
    stride: i32,
) {
    let args = DrawArgs::ElementsIndirect {
        mode,
        index_type: ty,
        indirect: indirect as usize,
        draw_count,
        stride,
        count_offset: None,
    };
    draw(orig, args);
}

/// `glMultiDrawElementsIndirectCount(mode, type, indirect, drawcount, maxdrawcount, stride)`.
pub(crate) fn glMultiDrawElementsIndirectCount(
    orig: &mut Original<'_, ()>,
    mode: u32,
    ty: u32,
    indirect: *const c_void,
    count_offset: isize,
    max_draw_count: i32,
    stride: i32,
) {
    let args = DrawArgs::ElementsIndirect {
        mode,
        index_type: ty,
        indirect: indirect as usize,
        draw_count: max_draw_count,
        stride,
        count_offset: Some(count_offset),
    };
    draw(orig, args);
}

/// The body of the `glDrawTransformFeedback*` hooks (generated from
/// `intercept.txt`): stream 0 and one instance where the command has none.
fn draw_transform_feedback(
    orig: &mut Original<'_, ()>,
    mode: u32,
    id: u32,
    stream: u32,
    instance_count: i32,
) {
    let args = DrawArgs::TransformFeedback {
        mode,
        id,
        stream,
        instance_count,
    };
    draw(orig, args);
}

/// `glDispatchCompute(x, y, z)`.
pub(crate) fn glDispatchCompute(orig: &mut Original<'_, ()>, x: u32, y: u32, z: u32) {
    draw(orig, DrawArgs::Compute { groups: [x, y, z] });
}

/// `glDispatchComputeIndirect(indirect)`.
pub(crate) fn glDispatchComputeIndirect(orig: &mut Original<'_, ()>, indirect: isize) {
    draw(orig, DrawArgs::ComputeIndirect { indirect });
}

// ---------------------------------------------------------------------------
// Counting queries (see crate::queries)

/// The body of the `glBeginQuery`, `glBeginQueryIndexed` and
/// `glQueryCounter` hooks (generated from `intercept.txt`): a new run of
/// query object `id` (or `id` becomes a timestamp query); what the agent
/// remembered of the last one is forgotten.
fn query_begun(orig: &mut Original<'_, ()>, id: u32) {
    orig.call();
    crate::queries::forget(current_context(), id);
}

/// `glDeleteQueries(n, ids)`.
///
/// # Safety
/// The arguments are the application's, valid for the GL call as GL
/// requires of them.
pub(crate) unsafe fn glDeleteQueries(orig: &mut Original<'_, ()>, n: i32, ids: *const u32) {
    // SAFETY: the application's array, of which GL reads `n` names (this
    // function's contract).
    let ids = unsafe { read_array(ids, n) };
    orig.call();
    let ctx = current_context();
    for id in ids {
        crate::queries::forget(ctx, id);
    }
}

/// The body of the `glGetQueryObject{i,ui,i64,ui64}v(id, pname, params)`
/// hooks (generated from `intercept.txt`), `width` the width of their result.
///
/// # Safety
/// Called inside the application's `glGetQueryObject*v` call of `width`
/// (its context current); `params` is that call's argument.
unsafe fn query_object(
    orig: &mut Original<'_, ()>,
    id: u32,
    pname: u32,
    params: *mut u8,
    width: Width,
) {
    split_query_read(orig, id, |gl, ctx, call| {
        // SAFETY: inside the application's GL call, so its context is
        // current; `params` is its argument to the call `orig` makes, of
        // `width` (this function's contract).
        unsafe { crate::queries::patch_client(gl, ctx, id, pname, params, width, call) }
    });
}

/// The body of the `glGetQueryBufferObject{i,ui,i64,ui64}v(id, buffer,
/// pname, offset)` hooks (generated from `intercept.txt`), `width` the width
/// of their result.
fn query_buffer_object(
    orig: &mut Original<'_, ()>,
    id: u32,
    buffer: u32,
    pname: u32,
    offset: isize,
    width: Width,
) {
    split_query_read(orig, id, |gl, ctx, call| {
        // SAFETY: hooks run inside the application's GL call, so its context
        // is current; `buffer` and `offset` are only used in GL calls.
        unsafe { crate::queries::patch_buffer(gl, ctx, id, buffer, pname, offset, width, call) }
    });
}

/// A read of query `id`'s result: the application's call as it is, unless
/// debug draws split the query; then `patch(gl, context, call)`, which makes
/// the application's call and corrects what it reads.
fn split_query_read(
    orig: &mut Original<'_, ()>,
    id: u32,
    patch: impl FnOnce(&glow::Context, ContextKey, &mut dyn FnMut()),
) {
    let ctx = current_context();
    if !crate::queries::was_split(ctx, id) {
        orig.call();
        return;
    }
    let gl = crate::stops::gl_for(ctx);
    patch(&gl, ctx, &mut || {
        orig.call();
    });
}

// The hooks `intercept.txt` gives as `glName -> body(args)`: the query reads
// and begins above, the transform feedback draws.
include!(concat!(env!("OUT_DIR"), "/hooks_generated.rs"));

// ---------------------------------------------------------------------------
// Swaps

/// `eglSwapBuffers`, `eglSwapBuffersWithDamage{KHR,EXT}`, `glXSwapBuffers`:
/// the session sees the end of the frame, then the real swap runs, then
/// the context's frame counter moves on.
pub(crate) fn swap<R: Copy>(orig: &mut Original<'_, R>) {
    let ctx = current_context();
    let frame = state::frame(ctx);
    tracing::trace!(%ctx, frame, command = orig.name(), "swap");
    session_call("on_swap", || session::on_swap(ctx, frame));
    orig.call();
    state::end_frame(ctx);
}

// ---------------------------------------------------------------------------
// Contexts

/// `eglDestroyContext` / `glXDestroyContext`: the shadow state of the
/// context goes (GL defers the destruction of a context current somewhere
/// until it is released, but its handle is not used for new calls by a
/// correct application).
pub(crate) fn context_destroyed<R: Copy>(orig: &mut Original<'_, R>, ctx: ContextKey) {
    orig.call();
    if ctx.handle != 0 {
        tracing::debug!(%ctx, "context destroyed");
        state::context_destroyed(ctx);
        crate::queries::forget_context(ctx);
        crate::screenshot::forget_context(ctx);
        crate::debug_draw::forget_context(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn original_runs_exactly_once() {
        let mut calls = 0;
        let mut run = || {
            calls += 1;
            calls
        };
        // Hook calls twice: the second call returns the first result.
        let r = dispatch("t", &mut run, |o| {
            assert_eq!(o.call(), 1);
            assert_eq!(o.call(), 1);
        });
        assert_eq!(r, 1);
        assert_eq!(calls, 1);

        // Hook never calls: dispatch does.
        let mut calls = 0;
        let mut run = || {
            calls += 1;
            7u32
        };
        assert_eq!(dispatch("t", &mut run, |_| {}), 7);
        assert_eq!(calls, 1);

        // Hook panics before and after the call.
        let mut calls = 0;
        let mut run = || {
            calls += 1;
            3u32
        };
        assert_eq!(dispatch("t", &mut run, |_| panic!("before")), 3);
        assert_eq!(calls, 1);
        let mut calls = 0;
        let mut run = || {
            calls += 1;
            4u32
        };
        assert_eq!(
            dispatch("t", &mut run, |o| {
                o.call();
                panic!("after")
            }),
            4
        );
        assert_eq!(calls, 1);
    }

    #[test]
    fn nested_calls_pass_through() {
        let mut inner_hook_ran = false;
        let mut outer_run = || {
            let mut inner_run = || 5u32;
            dispatch("inner", &mut inner_run, |_| inner_hook_ran = true)
        };
        let r = dispatch("outer", &mut outer_run, |o| {
            o.call();
        });
        assert_eq!(r, 5);
        assert!(!inner_hook_ran);
    }

    #[test]
    fn shader_source_strings() {
        let a = c"void main() {}\n";
        let b = b"#define X 1\nignored";
        let strings = [a.as_ptr(), b.as_ptr().cast::<c_char>(), a.as_ptr()];
        // Second string: explicit length (no NUL); third: negative length.
        let lengths = [-1, 12, -5];
        // SAFETY: three string pointers and three lengths, live locals;
        // the explicit length 12 is within `b`.
        let got = unsafe { read_strings(3, strings.as_ptr(), lengths.as_ptr()) }.unwrap();
        assert_eq!(
            got,
            ["void main() {}\n", "#define X 1\n", "void main() {}\n"]
        );
        // NULL lengths: all NUL-terminated.
        let strings = [a.as_ptr()];
        // SAFETY: one NUL-terminated string, live; no lengths.
        let got = unsafe { read_strings(1, strings.as_ptr(), std::ptr::null()) }.unwrap();
        assert_eq!(got, ["void main() {}\n"]);
        // SAFETY: a negative count and a zero count: `read_strings`
        // returns before reading anything, as GL rejects or ignores them.
        unsafe {
            assert!(read_strings(-1, strings.as_ptr(), std::ptr::null()).is_none());
            assert_eq!(
                read_strings(0, std::ptr::null(), std::ptr::null()),
                Some(vec![])
            );
        }
    }
}
