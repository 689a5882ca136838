//! Counting queries across debug draws. GL cannot pause a query, and every
//! draw generates primitives (and runs shaders), so while the application
//! has a `GL_PRIMITIVES_GENERATED` query (any stream) or a pipeline
//! statistics query active, a debug draw would add to it. Around every debug
//! draw the agent ends such a query, reads what it counted so far (waiting
//! for it), lets the debug draw run outside it and begins the same query
//! object again ([`CountingQueriesAside`]). The partial counts are
//! remembered per query object; the `glGetQueryObject*v` and
//! `glGetQueryBufferObject*v` hooks add them to the result the application
//! reads ([`patch_client`], [`patch_buffer`]), and the application's own
//! `glBeginQuery*`/`glQueryCounter`/`glDeleteQueries` on the object forget
//! them ([`forget`]).
//!
//! A result written to a buffer (`GL_QUERY_BUFFER` bound, or the DSA
//! commands) is patched in the buffer after the call, through copies (so
//! immutable and persistently mapped buffers work too). With
//! `GL_QUERY_RESULT_NO_WAIT` into a buffer, the result is patched only when
//! it was available before the call (when it was not, GL may still write it
//! later, and that value lacks the partial counts).
//!
//! `GL_TIME_ELAPSED` is not treated: time spent cannot be un-spent, so an
//! elapsed-time query around a debugged draw measures the agent's work too.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use glow::HasContext;

use crate::real;
use crate::state::ContextKey;

const PRIMITIVES_GENERATED: u32 = 0x8C87;
const QUERY_RESULT: u32 = 0x8866;
const QUERY_RESULT_AVAILABLE: u32 = 0x8867;
const QUERY_RESULT_NO_WAIT: u32 = 0x9194;
const CURRENT_QUERY: u32 = 0x8865;
const QUERY_BUFFER: u32 = 0x9192;
const QUERY_BUFFER_BINDING: u32 = 0x9193;
const MAX_VERTEX_STREAMS: u32 = 0x8E71;

/// Query targets whose result is a count the agent can split and sum:
/// `GL_PRIMITIVES_GENERATED` and the pipeline statistics
/// (`ARB_pipeline_statistics_query`, GL 4.6).
const SUMMED_TARGETS: [u32; 12] = [
    PRIMITIVES_GENERATED,
    0x82EE, // VERTICES_SUBMITTED
    0x82EF, // PRIMITIVES_SUBMITTED
    0x82F0, // VERTEX_SHADER_INVOCATIONS
    0x82F1, // TESS_CONTROL_SHADER_PATCHES
    0x82F2, // TESS_EVALUATION_SHADER_INVOCATIONS
    0x887F, // GEOMETRY_SHADER_INVOCATIONS
    0x82F3, // GEOMETRY_SHADER_PRIMITIVES_EMITTED
    0x82F4, // FRAGMENT_SHADER_INVOCATIONS
    0x82F5, // COMPUTE_SHADER_INVOCATIONS
    0x82F6, // CLIPPING_INPUT_PRIMITIVES
    0x82F7, // CLIPPING_OUTPUT_PRIMITIVES
];

/// What a split query object has counted outside its current run.
#[derive(Clone, Copy, Debug)]
struct Split {
    target: u32,
    index: u32,
    count: u64,
}

/// Set once anything was split: the hooks' fast path before.
static ANY: AtomicBool = AtomicBool::new(false);
static SPLITS: Mutex<Option<HashMap<(ContextKey, u32), Split>>> = Mutex::new(None);

fn with_splits<T>(f: impl FnOnce(&mut HashMap<(ContextKey, u32), Split>) -> T) -> T {
    let mut g = SPLITS.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

fn split_of(ctx: ContextKey, id: u32) -> Option<Split> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    with_splits(|m| m.get(&(ctx, id)).copied())
}

/// Whether the agent split query object `id` since the application last
/// began it (the hooks' fast path).
pub fn was_split(ctx: ContextKey, id: u32) -> bool {
    split_of(ctx, id).is_some()
}

/// The application began, reset or deleted query object `id`: what the
/// agent remembered for it is gone.
pub fn forget(ctx: ContextKey, id: u32) {
    if !ANY.load(Ordering::Acquire) {
        return;
    }
    with_splits(|m| m.remove(&(ctx, id)));
}

/// A context's query objects are gone with it.
pub fn forget_context(ctx: ContextKey) {
    if !ANY.load(Ordering::Acquire) {
        return;
    }
    with_splits(|m| m.retain(|(c, _), _| *c != ctx));
}

/// The query object active on `target`, stream `index` (0 if none).
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn current(target: u32, index: u32) -> u32 {
    // SAFETY: GL calls (`real` and glow) on the context this function's contract says
    // is current on this thread; every out-pointer is a live local of the type GL
    // writes.
    unsafe {
        let mut q = 0i32;
        if index == 0 {
            real::glGetQueryiv(target, CURRENT_QUERY, &mut q);
        } else {
            real::glGetQueryIndexediv(target, index, CURRENT_QUERY, &mut q);
        }
        q.max(0) as u32
    }
}

/// The streams `GL_PRIMITIVES_GENERATED` has (`GL_MAX_VERTEX_STREAMS`, 1
/// where there are none).
///
/// # Safety
/// A GL context must be current on this thread (`gl` loaded for it).
unsafe fn streams(gl: &glow::Context) -> u32 {
    // SAFETY: glow queries on the context the caller keeps current (this function's
    // contract).
    unsafe {
        let v = gl.version();
        if v.is_embedded || (v.major, v.minor) < (4, 0) {
            return 1;
        }
        (gl.get_parameter_i32(MAX_VERTEX_STREAMS).clamp(1, 4)) as u32
    }
}

/// Whether the context has query buffers (GL 4.4, `ARB_query_buffer_object`);
/// glow answers from what it read when it loaded the context.
fn has_query_buffers(gl: &glow::Context) -> bool {
    let v = gl.version();
    !v.is_embedded
        && ((v.major, v.minor) >= (4, 4)
            || gl
                .supported_extensions()
                .contains("GL_ARB_query_buffer_object"))
}

/// The buffer bound to `GL_QUERY_BUFFER` (0 where there are none).
///
/// # Safety
/// A GL context must be current on this thread (`gl` loaded for it).
unsafe fn query_buffer(gl: &glow::Context) -> u32 {
    // SAFETY: GL queries on the context the caller keeps current (this function's
    // contract); `b` is a live GLint for glGetIntegerv's single value.
    unsafe {
        if !has_query_buffers(gl) {
            return 0;
        }
        let mut b = 0i32;
        real::glGetIntegerv(QUERY_BUFFER_BINDING, &mut b);
        b.max(0) as u32
    }
}

/// Whether a pipeline statistics query is active (GL 4.6 or
/// `ARB_pipeline_statistics_query`). An instrumented program has side
/// effects, so the driver may not cull its fragments early: its shader
/// invocation counts can differ from the original's, and such a draw is
/// never the application's own (the one-pass hit test, [`crate::stops`]).
///
/// # Safety
/// A GL context must be current on this thread (`gl` loaded for it).
pub unsafe fn statistics_active(gl: &glow::Context) -> bool {
    // SAFETY: query state queries on the context the caller keeps current (this
    // function's contract), only where the targets exist.
    unsafe {
        let v = gl.version();
        let has = !v.is_embedded
            && ((v.major, v.minor) >= (4, 6)
                || gl
                    .supported_extensions()
                    .contains("GL_ARB_pipeline_statistics_query"));
        has && SUMMED_TARGETS[1..].iter().any(|t| current(*t, 0) != 0)
    }
}

/// The application's counting queries, ended for the agent's work and begun
/// again afterwards (see the module documentation).
pub struct CountingQueriesAside {
    /// (target, index, query object)
    ended: Vec<(u32, u32, u32)>,
}

impl CountingQueriesAside {
    /// Ends every active counting query, adding what it counted to the
    /// object's remembered count. GL errors from targets the context does
    /// not have are left for the caller to drain.
    ///
    /// # Safety
    /// A GL context must be current on this thread; the application's
    /// pending errors are stashed.
    pub unsafe fn set(gl: &glow::Context, ctx: ContextKey) -> CountingQueriesAside {
        // SAFETY: GL calls on the context the caller keeps current (this function's
        // contract); `count` is a live GLuint64 for glGetQueryObjectui64v. Ending and
        // beginning queries raises no error the application sees: its pending errors are
        // stashed (contract) and the caller drains ours.
        unsafe {
            let mut ended = Vec::new();
            let streams = streams(gl);
            for target in SUMMED_TARGETS {
                let indices = if target == PRIMITIVES_GENERATED {
                    streams
                } else {
                    1
                };
                for index in 0..indices {
                    let id = current(target, index);
                    if id != 0 {
                        ended.push((target, index, id));
                    }
                }
            }
            if ended.is_empty() {
                return CountingQueriesAside { ended };
            }
            let buffer = query_buffer(gl);
            if buffer != 0 {
                real::glBindBuffer(QUERY_BUFFER, 0);
            }
            for &(target, index, id) in &ended {
                if index == 0 {
                    real::glEndQuery(target);
                } else {
                    real::glEndQueryIndexed(target, index);
                }
                let mut count = 0u64;
                real::glGetQueryObjectui64v(id, QUERY_RESULT, &mut count);
                ANY.store(true, Ordering::Release);
                with_splits(|m| {
                    let s = m.entry((ctx, id)).or_insert(Split {
                        target,
                        index,
                        count: 0,
                    });
                    s.count = s.count.saturating_add(count);
                });
                tracing::debug!(%ctx, id, target, index, count, "counting query split");
            }
            if buffer != 0 {
                real::glBindBuffer(QUERY_BUFFER, buffer);
            }
            CountingQueriesAside { ended }
        }
    }

    /// Begins the ended queries again, on the same objects.
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn restore(self) {
        // SAFETY: GL calls on the context the caller keeps current (this function's
        // contract); the objects were active queries of these targets when `set` ended
        // them, so beginning them again is valid.
        unsafe {
            for (target, index, id) in self.ended {
                if index == 0 {
                    real::glBeginQuery(target, id);
                } else {
                    real::glBeginQueryIndexed(target, index, id);
                }
            }
        }
    }
}

/// The width and signedness of a `glGetQuery*Object*v` result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    I32,
    U32,
    I64,
    U64,
}

impl Width {
    fn bytes(self) -> usize {
        match self {
            Width::I32 | Width::U32 => 4,
            Width::I64 | Width::U64 => 8,
        }
    }

    /// `value` (little-endian bytes of this width) plus `extra`, saturated
    /// as GL clamps a count that does not fit.
    fn add(self, value: &mut [u8], extra: u64) {
        match self {
            Width::I32 => {
                let v = i32::from_le_bytes(value[..4].try_into().unwrap_or_default());
                let sum = (v as i64).saturating_add(extra.min(i64::MAX as u64) as i64);
                value[..4].copy_from_slice(&(sum.min(i32::MAX as i64) as i32).to_le_bytes());
            }
            Width::U32 => {
                let v = u32::from_le_bytes(value[..4].try_into().unwrap_or_default());
                let sum = (v as u64).saturating_add(extra);
                value[..4].copy_from_slice(&(sum.min(u32::MAX as u64) as u32).to_le_bytes());
            }
            Width::I64 => {
                let v = i64::from_le_bytes(value[..8].try_into().unwrap_or_default());
                let sum = v.saturating_add(extra.min(i64::MAX as u64) as i64);
                value[..8].copy_from_slice(&sum.to_le_bytes());
            }
            Width::U64 => {
                let v = u64::from_le_bytes(value[..8].try_into().unwrap_or_default());
                value[..8].copy_from_slice(&v.saturating_add(extra).to_le_bytes());
            }
        }
    }
}

/// The split of `id` if the application's read of `pname` must be patched:
/// a result query on an object the agent split that is not active again.
///
/// # Safety
/// `ctx` must be current on this thread.
unsafe fn patchable(ctx: ContextKey, id: u32, pname: u32) -> Option<Split> {
    if pname != QUERY_RESULT && pname != QUERY_RESULT_NO_WAIT {
        return None;
    }
    let s = split_of(ctx, id)?;
    // SAFETY: `ctx` is current (this function's contract).
    let active = unsafe { current(s.target, s.index) };
    // Still running (the application reads too early: a GL error, nothing written).
    (active != id && s.count > 0).then_some(s)
}

/// Whether query `id`'s result is available, read into client memory.
///
/// # Safety
/// A GL context must be current on this thread (`gl` loaded for it).
unsafe fn available(gl: &glow::Context, id: u32) -> bool {
    // SAFETY: GL calls on the context the caller keeps current (this function's
    // contract); `a` is a live GLuint for the single value written; with the query
    // buffer unbound for the call the result goes to `a`, not into a buffer.
    unsafe {
        let buffer = query_buffer(gl);
        if buffer != 0 {
            real::glBindBuffer(QUERY_BUFFER, 0);
        }
        let mut a = 0u32;
        real::glGetQueryObjectuiv(id, QUERY_RESULT_AVAILABLE, &mut a);
        if buffer != 0 {
            real::glBindBuffer(QUERY_BUFFER, buffer);
        }
        a != 0
    }
}

/// The hook of `glGetQueryObject{i,ui,i64,ui64}v(id, pname, params)`: runs
/// the application's call (`call`) and adds the remembered count to what it
/// wrote, in `params` or, with a `GL_QUERY_BUFFER` bound, in that buffer at
/// offset `params`.
///
/// # Safety
/// A GL context must be current on this thread (`gl` loaded for it);
/// `params` is the application's argument to the `glGetQueryObject*v` call
/// of `width` that `call` makes: null, an offset into the bound query
/// buffer, or writable memory for one value of that width.
pub unsafe fn patch_client(
    gl: &glow::Context,
    ctx: ContextKey,
    id: u32,
    pname: u32,
    params: *mut u8,
    width: Width,
    call: impl FnOnce(),
) {
    // SAFETY: a context is current (this function's contract).
    let Some(split) = (unsafe { patchable(ctx, id, pname) }) else {
        call();
        return;
    };
    // SAFETY: as above, with `gl` loaded for it.
    let buffer = unsafe { query_buffer(gl) };
    if buffer != 0 {
        // SAFETY: as above.
        let write = pname == QUERY_RESULT || unsafe { available(gl, id) };
        call();
        if write {
            // SAFETY: as above; with a query buffer bound, `params` is an
            // offset into it, not a pointer.
            unsafe { patch_buffer_at(gl, buffer, params as usize as i64, width, split.count) };
        }
        return;
    }
    if params.is_null() {
        call();
        return;
    }
    let n = width.bytes();
    // The slices over `params` live only between GL's accesses, never
    // across `call()` (which writes through the application's pointer).
    if pname == QUERY_RESULT {
        call();
        // SAFETY: `params` is the application's non-null argument of this
        // width: `n` bytes GL has just written (the caller's contract), with
        // no other reference to them while the slice lives.
        width.add(
            unsafe { std::slice::from_raw_parts_mut(params, n) },
            split.count,
        );
        return;
    }
    // GL_QUERY_RESULT_NO_WAIT writes nothing when the result is not
    // available: tell the cases apart with a sentinel no count reaches.
    let saved = {
        // SAFETY: `params` points to the `n` bytes GL may write in this call
        // (the caller's contract); nothing else refers to them meanwhile.
        let value = unsafe { std::slice::from_raw_parts_mut(params, n) };
        let saved = value.to_vec();
        value.fill(0xff);
        saved
    };
    call();
    // SAFETY: as above, after the call.
    let value = unsafe { std::slice::from_raw_parts_mut(params, n) };
    if value.iter().all(|b| *b == 0xff) {
        value.copy_from_slice(&saved);
    } else {
        width.add(value, split.count);
    }
}

/// The hook of `glGetQueryBufferObject{i,ui,i64,ui64}v(id, buffer, pname,
/// offset)`: runs the call and adds the remembered count in the buffer.
///
/// # Safety
/// A GL context must be current on this thread.
#[allow(clippy::too_many_arguments)]
pub unsafe fn patch_buffer(
    gl: &glow::Context,
    ctx: ContextKey,
    id: u32,
    buffer: u32,
    pname: u32,
    offset: isize,
    width: Width,
    call: impl FnOnce(),
) {
    // SAFETY: `patchable`, `available` and `patch_buffer_at` need a current context,
    // which this function's caller guarantees; `call` is the application's own call.
    unsafe {
        let Some(split) = patchable(ctx, id, pname) else {
            call();
            return;
        };
        let write = pname == QUERY_RESULT || available(gl, id);
        call();
        if write && buffer != 0 {
            patch_buffer_at(gl, buffer, offset as i64, width, split.count);
        }
    }
}

/// Adds `extra` to the value of `width` at `offset` in `buffer`, through a
/// private buffer and copies (works on immutable and mapped storage). The
/// application's pending errors are set aside first and the agent's own
/// (an offset GL rejected for the application's call too) drained.
///
/// # Safety
/// A GL context must be current on this thread (`gl` loaded for it).
unsafe fn patch_buffer_at(gl: &glow::Context, buffer: u32, offset: i64, width: Width, extra: u64) {
    // SAFETY: `patch_buffer_copies` needs a current context, which this function's
    // caller guarantees.
    unsafe {
        let ctx = crate::state::current_context();
        crate::errors::stash_pending(ctx);
        patch_buffer_copies(gl, buffer, offset, width, extra);
        let own = crate::errors::drain_own();
        if !own.is_empty() {
            tracing::warn!(?own, "GL errors patching a query result in a buffer");
        }
    }
}

/// The copies of [`patch_buffer_at`], without its error handling.
///
/// # Safety
/// A GL context must be current on this thread (`gl` loaded for it).
unsafe fn patch_buffer_copies(
    gl: &glow::Context,
    buffer: u32,
    offset: i64,
    width: Width,
    extra: u64,
) {
    // SAFETY: glow calls on the context the caller keeps current (this function's
    // contract); `value` is a local of at least `n` bytes for get_buffer_sub_data; the
    // copy bindings are put back and the temporary buffer deleted.
    unsafe {
        let Some(target) = std::num::NonZeroU32::new(buffer).map(glow::NativeBuffer) else {
            return;
        };
        let n = width.bytes() as i32;
        let read = gl.get_parameter_i32(glow::COPY_READ_BUFFER_BINDING);
        let write = gl.get_parameter_i32(glow::COPY_WRITE_BUFFER_BINDING);
        let Ok(temp) = gl.create_buffer() else {
            return;
        };
        gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(temp));
        gl.buffer_data_size(glow::COPY_WRITE_BUFFER, n, glow::DYNAMIC_COPY);
        gl.bind_buffer(glow::COPY_READ_BUFFER, Some(target));
        gl.copy_buffer_sub_data(
            glow::COPY_READ_BUFFER,
            glow::COPY_WRITE_BUFFER,
            offset as i32,
            0,
            n,
        );
        let mut value = [0u8; 8];
        gl.get_buffer_sub_data(glow::COPY_WRITE_BUFFER, 0, &mut value[..n as usize]);
        width.add(&mut value, extra);
        gl.buffer_sub_data_u8_slice(glow::COPY_WRITE_BUFFER, 0, &value[..n as usize]);
        gl.bind_buffer(glow::COPY_READ_BUFFER, Some(temp));
        gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(target));
        gl.copy_buffer_sub_data(
            glow::COPY_READ_BUFFER,
            glow::COPY_WRITE_BUFFER,
            0,
            offset as i32,
            n,
        );
        let native = |b: i32| std::num::NonZeroU32::new(b as u32).map(glow::NativeBuffer);
        gl.bind_buffer(glow::COPY_READ_BUFFER, native(read));
        gl.bind_buffer(glow::COPY_WRITE_BUFFER, native(write));
        gl.delete_buffer(temp);
    }
}

#[cfg(test)]
mod tests {
    use super::Width;

    #[test]
    fn counts_add_and_saturate() {
        let mut v = 5u32.to_le_bytes();
        Width::U32.add(&mut v, 2);
        assert_eq!(u32::from_le_bytes(v), 7);
        let mut v = (u32::MAX - 1).to_le_bytes();
        Width::U32.add(&mut v, 5);
        assert_eq!(u32::from_le_bytes(v), u32::MAX);
        let mut v = (i32::MAX - 1).to_le_bytes();
        Width::I32.add(&mut v, 5);
        assert_eq!(i32::from_le_bytes(v), i32::MAX);
        let mut v = 1u64.to_le_bytes();
        Width::U64.add(&mut v, 1 << 40);
        assert_eq!(u64::from_le_bytes(v), (1 << 40) + 1);
        let mut v = 3i64.to_le_bytes();
        Width::I64.add(&mut v, 4);
        assert_eq!(i64::from_le_bytes(v), 7);
    }
}
