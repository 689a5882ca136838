//! The session: what the agent does with what it intercepts.
//!
//! Every event is handed to [`crate::stops`] when a debugger is connected
//! (breakpoints, hit tests, stops) and, when the environment variable
//! `SHADERDBG_TRACE_FILE` names a file, appended to it as one JSON line
//! (`{"pid":..,"event":"shader_compiled"|"program_linked"|"draw"|"swap",..}`).
//! That is how the interception tests observe the agent without a debugger.
//!
//! # Contract with the hooks
//!
//! - All four run on the application's thread, inside the intercepted call,
//!   with the agent's re-entrancy guard set: GL calls made from here must go
//!   through [`crate::real`] (calling the exported wrappers also works: they
//!   pass straight through while the guard is set). They may block (a
//!   breakpoint hit); other threads keep running.
//! - The shadow-state lock is *not* held.
//! - A panic is caught by the hook machinery and logged; the application
//!   goes on.
//! - [`on_draw`] must call `run_original` exactly once (the hook
//!   machinery runs the original draw itself if it was not called and
//!   ignores a second call, but instrumentation that expects its effect must
//!   call it).
//! - [`on_swap`] runs *before* the real swap (the back buffer still holds
//!   the frame), `frame` is the number of the frame that ends.

use std::fs::File;
use std::io::Write as _;
use std::sync::{Mutex, OnceLock};

use serde::Serialize;

use crate::draw::DrawCall;
use crate::state::{ContextKey, ProgramInfo, ShaderInfo};

/// Something the session saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// `glCompileShader` returned.
    ShaderCompiled(ShaderInfo),
    /// `glLinkProgram` (or `glCreateShaderProgramv`) returned.
    ProgramLinked(ProgramInfo),
    /// A draw or dispatch (recorded before it runs).
    Draw(DrawCall),
    /// A swap (recorded before it runs).
    Swap {
        /// The context.
        context: ContextKey,
        /// The frame that ends.
        frame: u64,
    },
}

/// A shader compiled (successfully or not). With a debugger attached the
/// application waits here until the debugger has bound its breakpoints.
pub fn on_shader_compiled(info: &ShaderInfo) {
    if trace_enabled() {
        record(Event::ShaderCompiled(info.clone()));
    }
    if let Some(dbg) = crate::debugger::get() {
        crate::stops::announce_shader(dbg, info);
    }
}

/// A program linked (successfully or not).
pub fn on_program_linked(info: &ProgramInfo) {
    if trace_enabled() {
        record(Event::ProgramLinked(info.clone()));
    }
    if let Some(dbg) = crate::debugger::get() {
        crate::stops::announce_program(dbg, info);
    }
}

/// A draw or dispatch is about to run; `run_original` runs it. With a
/// debugger attached and breakpoints in the program, the hit test runs
/// and, if something hit, the application stops here. Where it can, the
/// hit test is the application's call itself, run once with the
/// instrumented program (one pass: `run_original` is called inside
/// [`crate::stops::at_draw`], and a stop comes after the draw); otherwise
/// it runs first as a debug draw and the original afterwards.
pub fn on_draw(ctx: ContextKey, draw: &DrawCall, run_original: &mut dyn FnMut()) {
    if trace_enabled() {
        record(Event::Draw(draw.clone()));
    }
    let mut ran = false;
    if let Some(dbg) = crate::debugger::get() {
        ran = crate::stops::at_draw(dbg, ctx, draw, run_original);
    }
    if !ran {
        run_original();
    }
}

/// The GL call `call` raised `error` (only checked while the debugger's
/// `gl_error` exception filter is on). The error is already set aside for the
/// application's own `glGetError`. With a debugger the application waits here.
pub fn on_gl_error(ctx: ContextKey, call: &str, error: u32) {
    if let Some(dbg) = crate::debugger::get() {
        crate::stops::at_gl_error(dbg, ctx, call, error);
    }
}

/// Frame `frame` of `ctx` ends; the real swap follows.
pub fn on_swap(ctx: ContextKey, frame: u64) {
    if trace_enabled() {
        record(Event::Swap {
            context: ctx,
            frame,
        });
    }
    if let Some(dbg) = crate::debugger::get() {
        crate::stops::at_swap(dbg, ctx, frame);
    }
}

/// Whether `SHADERDBG_TRACE_FILE` asks for an event trace (checked once: the
/// draw path must stay cheap when it does not).
fn trace_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("SHADERDBG_TRACE_FILE").is_some())
}

fn record(event: Event) {
    write_trace(&event);
}

#[derive(Serialize)]
struct Line<'a> {
    pid: u32,
    #[serde(flatten)]
    event: &'a Event,
}

fn write_trace(event: &Event) {
    static FILE: OnceLock<Option<Mutex<File>>> = OnceLock::new();
    let file = FILE.get_or_init(|| {
        let path = std::env::var_os("SHADERDBG_TRACE_FILE")?;
        match File::options().create(true).append(true).open(&path) {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                tracing::warn!(path = ?path, "cannot open SHADERDBG_TRACE_FILE: {e}");
                None
            }
        }
    });
    let Some(file) = file else { return };
    let line = Line {
        pid: std::process::id(),
        event,
    };
    let mut text = match serde_json::to_string(&line) {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!("cannot serialise trace event: {e}");
            return;
        }
    };
    text.push('\n');
    // One write per line: with O_APPEND, lines of several processes (or
    // threads) do not interleave.
    let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = f.write_all(text.as_bytes()) {
        tracing::warn!("cannot write SHADERDBG_TRACE_FILE: {e}");
    }
}
