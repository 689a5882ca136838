//! GL errors and the agent's own GL work. Before a debug draw the agent drains
//! the application's pending errors (GL reports each flag once) into a stash;
//! the `glGetError` hook hands them back before asking the driver. Errors the
//! agent's work raises are drained and logged, never seen by the application.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::state::ContextKey;

static ANY: AtomicBool = AtomicBool::new(false);
static STASH: Mutex<Vec<(ContextKey, u32)>> = Mutex::new(Vec::new());

const NO_ERROR: u32 = 0;

/// Drains the current context's pending errors into the stash; returns them.
pub fn stash_pending(ctx: ContextKey) -> Vec<u32> {
    let mut found = Vec::new();
    // A lost context can report errors forever: bound the loop.
    for _ in 0..16 {
        // SAFETY: glGetError takes no arguments and touches no memory of
        // ours; its callers run inside one of the application's GL calls or
        // the agent's own GL work, so the context is current on this thread.
        let e = unsafe { crate::real::glGetError() };
        if e == NO_ERROR {
            break;
        }
        found.push((ctx, e));
    }
    if !found.is_empty() {
        let mut stash = STASH.lock().unwrap_or_else(|e| e.into_inner());
        stash.extend(found.iter().copied());
        ANY.store(true, Ordering::Release);
    }
    found.into_iter().map(|(_, e)| e).collect()
}

/// Drains errors the agent's own work raised; returns them for logging.
pub fn drain_own() -> Vec<u32> {
    let mut own = Vec::new();
    for _ in 0..16 {
        // SAFETY: as in `stash_pending`: no arguments, and called right after
        // the agent's own GL work on the current context.
        let e = unsafe { crate::real::glGetError() };
        if e == NO_ERROR {
            break;
        }
        own.push(e);
    }
    own
}

/// The oldest stashed error of `ctx`, if any.
pub fn take_stashed(ctx: ContextKey) -> Option<u32> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    let mut stash = STASH.lock().unwrap_or_else(|e| e.into_inner());
    let i = stash.iter().position(|(c, _)| *c == ctx)?;
    let (_, e) = stash.remove(i);
    if stash.is_empty() {
        ANY.store(false, Ordering::Release);
    }
    Some(e)
}
