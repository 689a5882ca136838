//! The layer's side of the conversation with the session: shader modules
//! are announced with the source they are debugged in, and frames end at
//! presents. Stopping inside a Vulkan submission is not built yet, so every
//! breakpoint the session binds to a module is answered "not placed" with
//! that reason, and the program runs untouched.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

pub use shaderdbg_protocol::agent::{debugger, Debugger};
use shaderdbg_protocol::{FromAgent, ToAgent};

use crate::source::{self, Origin};

/// Why a breakpoint in a Vulkan program is not placed (yet).
pub const NOT_YET: &str = "the shader was found in this Vulkan program, but stopping in \
                           Vulkan submissions is not built yet (the program runs untouched)";

/// One conversation with the debugger at a time: replies are not addressed
/// to threads, so two threads announcing modules at once would take each
/// other's answers.
fn conversation() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Tells the session about a new shader module and answers it until it
/// lets the program go on. `context` names the device.
pub fn announce_module(dbg: &Debugger, context: u64, code: &[u8]) {
    static NEXT_ID: AtomicU32 = AtomicU32::new(1);
    let shader = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let _turn = conversation();
    match source::of_module(code) {
        Ok(src) => {
            let origin = match &src.origin {
                Origin::Embedded { file: Some(f) } => format!("source embedded from {f}"),
                Origin::Embedded { file: None } => "source embedded".into(),
                Origin::Decompiled(by) => format!("no source in the SPIR-V: decompiled by {by:?}"),
            };
            tracing::info!(shader, entry = %src.entry_point, "module: {origin}");
            dbg.send(&FromAgent::ShaderCompiled {
                context,
                shader,
                stage: src.stage,
                sources: vec![src.text],
                compiled: true,
                info_log: String::new(),
            });
            serve(dbg);
        }
        Err(e) => dbg.send(&FromAgent::Error {
            request: None,
            message: format!("shader module {shader} cannot be debugged: {e}"),
        }),
    }
}

/// A frame ended at a present on `context`.
pub fn frame_end(dbg: &Debugger, context: u64, frame: u64) {
    let _turn = conversation();
    while let Some(msg) = dbg.try_recv() {
        handle(dbg, msg);
    }
    dbg.send(&FromAgent::FrameEnd { context, frame });
}

/// Answers the debugger until it says `Resume` (or is gone).
fn serve(dbg: &Debugger) {
    while let Some(msg) = dbg.recv() {
        if handle(dbg, msg) {
            return;
        }
    }
}

/// Handles one message; `true` when it ends the wait.
fn handle(dbg: &Debugger, msg: ToAgent) -> bool {
    match msg {
        ToAgent::SetBreakpoints {
            shader,
            breakpoints,
        } => {
            for bp in breakpoints {
                dbg.send(&FromAgent::BreakpointStatus {
                    shader,
                    requested_line: bp.line,
                    line: None,
                    message: Some(NOT_YET.into()),
                });
            }
            false
        }
        ToAgent::Record { request, .. }
        | ToAgent::Watch { request, .. }
        | ToAgent::Screenshot { request, .. } => {
            dbg.send(&FromAgent::Error {
                request: Some(request),
                message: "not stopped at a draw (the Vulkan layer does not stop yet)".into(),
            });
            false
        }
        ToAgent::Hello { .. }
        | ToAgent::SetStopFilter(_)
        | ToAgent::SetExceptionFilters(_)
        | ToAgent::Pause => false,
        ToAgent::Resume | ToAgent::Detach => true,
    }
}
