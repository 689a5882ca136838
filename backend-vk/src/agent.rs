//! The layer's side of the conversation with the session: shader modules
//! are announced with the source they are debugged in, breakpoints are
//! bound to their steps (`breakpoints`), a submission whose hit test found
//! hits stops (`stop`: the session's recordings are answered by
//! re-executing the submission's shadows), and frames end at presents.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

use shaderdbg_core::{Invocation, Language};
use shaderdbg_protocol::agent::FrameEndScreenshots;
pub use shaderdbg_protocol::agent::{debugger, Debugger};
use shaderdbg_protocol::{FromAgent, ToAgent};

use crate::error::Error;
use crate::source::{self, Origin};

/// One conversation with the debugger at a time: replies are not addressed
/// to threads, so two threads announcing modules at once would take each
/// other's answers.
fn conversation() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Tells the session about a new shader module, one shader per entry point
/// (naga writes all of a WGSL module's entry points into one module), and
/// answers it until it lets the program go on. `context` names the device.
/// The session's id of each entry point, by name.
pub fn announce_module(dbg: &Debugger, context: u64, code: &[u32]) -> Vec<(String, u32)> {
    static NEXT_ID: AtomicU32 = AtomicU32::new(1);
    let _turn = conversation();
    // What the session said since (the WGSL files a module may come from).
    while let Some(msg) = dbg.try_recv() {
        handle(dbg, msg, &mut |_, _| Err(Error::NotStopped));
    }
    // A module without source that naga writes from one of the user's WGSL
    // files is that file's; else the source the module carries, or its
    // decompiled GLSL.
    let matched = crate::wgsl::matching_file(code);
    let sources = match &matched {
        Some((src, _)) => Ok(vec![src.clone()]),
        None => source::of_module(crate::spirv::bytes_of(code)),
    };
    let sources = match sources {
        Ok(s) => s,
        Err(e) => {
            let shader = NEXT_ID.fetch_add(1, Ordering::Relaxed);
            dbg.send(&FromAgent::Error {
                request: None,
                message: format!("shader module {shader} cannot be debugged: {e}"),
            });
            return Vec::new();
        }
    };
    // A WGSL module is debugged as its WGSL only under the options naga
    // wrote it with (found once for all its entry points).
    let wgsl = match matched {
        Some((_, module)) => Some(Ok(std::sync::Arc::new(module))),
        None => sources
            .iter()
            .find(|s| s.language == Language::Wgsl)
            .map(|s| {
                let file = match &s.origin {
                    Origin::Embedded { file } => file.as_deref(),
                    _ => None,
                };
                crate::wgsl::recompiled(&s.text, file, code).map(std::sync::Arc::new)
            }),
    };
    let mut ids = Vec::new();
    for src in sources {
        let shader = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let origin = match &src.origin {
            Origin::Embedded { file: Some(f) } => format!("source embedded from {f}"),
            Origin::Embedded { file: None } => "source embedded".into(),
            Origin::Decompiled(by) => format!("no source in the SPIR-V: decompiled by {by:?}"),
            Origin::Matched { file } => {
                format!("no source in the SPIR-V: naga writes it from {file}")
            }
            Origin::Foreign { file, why } => {
                format!(
                    "source embedded from {}: {why}",
                    file.as_deref().unwrap_or("?")
                )
            }
        };
        tracing::info!(shader, entry = %src.entry_point, "module: {origin}");
        let registered = match (&wgsl, &src.origin) {
            // Announced so that the user's file binds and says why.
            (_, Origin::Foreign { why, .. }) => Err(Error::Undebuggable(why.clone())),
            (wgsl, _) => match wgsl {
                Some(Ok(module)) => {
                    crate::breakpoints::register_wgsl(shader, src.stage, &src.entry_point, module)
                }
                Some(Err(why)) => Err(Error::Undebuggable(why.to_string())),
                None => {
                    crate::breakpoints::register(shader, src.stage, &src.entry_point, &src.text)
                }
            },
        };
        if let Err(why) = registered {
            tracing::info!(shader, "not debuggable: {why}");
            crate::breakpoints::unusable(shader, why.to_string());
        }
        dbg.send(&FromAgent::ShaderCompiled {
            context,
            shader,
            stage: src.stage,
            sources: vec![src.text],
            compiled: true,
            info_log: String::new(),
            language: src.language,
            parts: src.parts,
        });
        serve(dbg, &mut |_, _| Err(Error::NotStopped));
        ids.push((src.entry_point, shader));
    }
    ids
}

/// `shader` cannot be debugged from now on (`why`): the session hears it
/// once, and each of its breakpoints is no longer placed.
pub fn withdraw(shader: u32, why: &str) {
    let Some(lines) = crate::breakpoints::withdraw(shader, why) else {
        return;
    };
    tracing::info!(shader, "not debuggable: {why}");
    let Some(dbg) = debugger() else {
        return;
    };
    let _turn = conversation();
    while let Some(msg) = dbg.try_recv() {
        handle(dbg, msg, &mut |_, _| Err(Error::NotStopped));
    }
    dbg.send(&FromAgent::Error {
        request: None,
        message: format!("shader {shader} cannot stop: {why}"),
    });
    for requested_line in lines {
        dbg.send(&FromAgent::BreakpointStatus {
            shader,
            requested_line,
            line: None,
            message: Some(why.to_string()),
        });
    }
}

/// What the session asks of a stopped submission.
pub enum Ask {
    /// A recording of one invocation.
    Record(Invocation),
    /// The value of an expression at a line for every fragment.
    Watch { line: u32, expr: String },
    /// A screenshot of what the submission drew (`ScreenshotAt::Now`).
    Screenshot,
}

/// Reports a stop and answers the session until it resumes the program:
/// `answer` makes a recording or a values image of the stopped submission
/// (the reply for request `u64`, or the error to send).
pub fn stop(dbg: &Debugger, stopped: FromAgent, answer: Answer<'_>) {
    let _turn = conversation();
    dbg.send(&stopped);
    serve(dbg, answer);
    if !dbg.is_alive() {
        // No later submission is hit-tested (`debugger()` is none now).
        tracing::warn!("the debugger went away during a stop: the program runs on without it");
    }
}

/// `Screenshot { at: FrameEnd }` requests waiting for their frame's end.
fn pending_screenshots() -> MutexGuard<'static, FrameEndScreenshots> {
    static PENDING: Mutex<FrameEndScreenshots> = Mutex::new(FrameEndScreenshots::new());
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Answers the screenshots due at the end of `frame` (the ones for it or
/// for the next frame's end), with the image `shoot` takes once if any
/// are due; cheap when none is.
pub fn screenshots_at_frame_end(
    dbg: &Debugger,
    frame: u64,
    shoot: &mut dyn FnMut() -> Result<crate::screenshot::Shot, Error>,
) {
    let _turn = conversation();
    while let Some(msg) = dbg.try_recv() {
        handle(dbg, msg, &mut |_, _| Err(Error::NotStopped));
    }
    let due = {
        let mut pending = pending_screenshots();
        if pending.is_empty() {
            return;
        }
        pending.take_due(frame)
    };
    if due.is_empty() {
        return;
    }
    let shot = shoot().map_err(|why| {
        Error::FrameEndScreenshot {
            frame,
            source: Box::new(why),
        }
        .to_string()
    });
    let image = match &shot {
        Ok(s) => Ok((s.width, s.height, &s.rgba[..])),
        Err(why) => Err(why.as_str()),
    };
    dbg.send_frame_end_screenshots(due, frame, image, shaderdbg_protocol::Origin::TopLeft);
}

/// A frame ended at a present on `context`.
pub fn frame_end(dbg: &Debugger, context: u64, frame: u64) {
    let _turn = conversation();
    while let Some(msg) = dbg.try_recv() {
        handle(dbg, msg, &mut |_, _| Err(Error::NotStopped));
    }
    dbg.send(&FromAgent::FrameEnd { context, frame });
}

/// What answers a request of the session while stopped: the reply, or the
/// error to send.
pub type Answer<'a> = &'a mut dyn FnMut(u64, Ask) -> Result<FromAgent, Error>;

/// Answers the debugger until it says `Resume` (or is gone).
fn serve(dbg: &Debugger, answer: Answer<'_>) {
    while let Some(msg) = dbg.recv() {
        if handle(dbg, msg, answer) {
            return;
        }
    }
}

/// Sends an answer, or the error it came to.
fn reply(dbg: &Debugger, request: u64, answer: Result<FromAgent, Error>) {
    dbg.send(&answer.unwrap_or_else(|why| FromAgent::Error {
        request: Some(request),
        message: why.to_string(),
    }));
}

/// Handles one message; `true` when it ends the wait.
fn handle(dbg: &Debugger, msg: ToAgent, answer: Answer<'_>) -> bool {
    match msg {
        ToAgent::SetBreakpoints {
            shader,
            breakpoints,
        } => {
            let placed = crate::breakpoints::set(shader, &breakpoints);
            for (bp, placed) in breakpoints.iter().zip(placed) {
                let (line, message) = match placed {
                    Ok(line) => (Some(line), None),
                    Err(why) => (None, Some(why.to_string())),
                };
                dbg.send(&FromAgent::BreakpointStatus {
                    shader,
                    requested_line: bp.line,
                    line,
                    message,
                });
            }
            false
        }
        ToAgent::Record { request, selector } => {
            reply(dbg, request, answer(request, Ask::Record(selector)));
            false
        }
        ToAgent::Watch {
            request,
            line,
            expr,
        } => {
            reply(dbg, request, answer(request, Ask::Watch { line, expr }));
            false
        }
        ToAgent::Screenshot {
            request,
            at: shaderdbg_protocol::ScreenshotAt::Now,
        } => {
            reply(dbg, request, answer(request, Ask::Screenshot));
            false
        }
        ToAgent::Screenshot {
            request,
            at: shaderdbg_protocol::ScreenshotAt::FrameEnd { frame },
        } => {
            pending_screenshots().push(request, frame);
            false
        }
        ToAgent::SetStopFilter(filter) => {
            crate::breakpoints::set_filter(filter);
            false
        }
        ToAgent::Pause => {
            crate::breakpoints::request_pause();
            false
        }
        ToAgent::SetScreenshotsAtStops { .. } => false,
        ToAgent::SourceFiles { files } => {
            crate::wgsl::set_candidates(
                files
                    .into_iter()
                    .filter(|f| f.path.ends_with(".wgsl"))
                    .map(|f| (f.path, f.text))
                    .collect(),
            );
            false
        }
        ToAgent::SetExceptionFilters(f) => {
            if crate::breakpoints::set_exceptions(f) {
                static SAID: std::sync::Once = std::sync::Once::new();
                SAID.call_once(|| {
                    dbg.send(&FromAgent::Error {
                        request: None,
                        message: "Vulkan programs stop on NaN/Inf only: the sanitizer's filters \
                                  and GL errors are OpenGL's"
                            .into(),
                    })
                });
            }
            false
        }
        ToAgent::Hello { .. } => false,
        ToAgent::Resume => true,
        ToAgent::Detach => {
            crate::breakpoints::clear();
            true
        }
    }
}
