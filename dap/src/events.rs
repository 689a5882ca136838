//! What the program does, as DAP events: the engine's reports and the
//! session's events become `process`, `output`, `breakpoint`, `stopped`,
//! `exited` and `terminated`. Breakpoint stops come decided: the session
//! engine has applied hit conditions and printed logpoints
//! (`shaderdbg_session::breakpoints`); the adapter shows their results.

use std::io::Write;

use shaderdbg_session::stop::Stop;
use shaderdbg_session::{Event as SessionEvent, Halt, StopReason};

use crate::custom::RuntimeSourceBody;
use crate::engine::EngineEvent;
use crate::protocol::{
    BreakpointEventBody, Event, ExitedEventBody, OutputEventBody, ProcessEventBody,
    StoppedEventBody,
};
use crate::restart::{Arrival, StopKey};
use crate::state::{Adapter, Halted, State};
use crate::stepping::DrawStop;

/// GL error names.
pub fn gl_error_name(e: u32) -> &'static str {
    match e {
        0x0500 => "GL_INVALID_ENUM",
        0x0501 => "GL_INVALID_VALUE",
        0x0502 => "GL_INVALID_OPERATION",
        0x0503 => "GL_STACK_OVERFLOW",
        0x0504 => "GL_STACK_UNDERFLOW",
        0x0505 => "GL_OUT_OF_MEMORY",
        0x0506 => "GL_INVALID_FRAMEBUFFER_OPERATION",
        0x0507 => "GL_CONTEXT_LOST",
        _ => "GL error",
    }
}

/// A `stopped` event for thread 1, all threads stopped.
fn stopped(reason: &str, description: Option<String>) -> StoppedEventBody {
    StoppedEventBody {
        reason: reason.to_string(),
        thread_id: Some(1),
        all_threads_stopped: Some(true),
        description,
        ..Default::default()
    }
}

impl<W: Write> Adapter<W> {
    pub fn engine_event(&mut self, e: EngineEvent) {
        match e {
            EngineEvent::Started { pid } => {
                let id = self.launch_progress.take();
                self.progress_end(id);
                let name = self
                    .plan
                    .as_ref()
                    .map(|p| p.config.program.display().to_string())
                    .unwrap_or_default();
                self.out.event(Event::Process(ProcessEventBody {
                    name,
                    system_process_id: Some(i64::from(pid)),
                    is_local_process: Some(true),
                    start_method: Some("launch".into()),
                }));
            }
            EngineEvent::StartFailed(m) => {
                let id = self.launch_progress.take();
                self.progress_end(id);
                self.out
                    .event(Event::console(format!("cannot start the program: {m}\n")));
                self.state = State::Exited;
                self.terminated_now();
            }
            EngineEvent::Session(ev) => self.session_event(ev),
        }
    }

    fn session_event(&mut self, ev: SessionEvent) {
        match ev {
            SessionEvent::ShaderLoaded {
                shader,
                stage,
                file,
                compiled,
                source,
            } => {
                tracing::info!(shader, %stage, ?file, compiled, "shader loaded");
                if let Some(path) = file {
                    self.out.event(Event::RuntimeSource(RuntimeSourceBody {
                        path: path.display().to_string(),
                        source,
                    }));
                }
            }
            SessionEvent::BreakpointBound {
                index,
                line,
                message,
                ..
            } => {
                if let Some(mut breakpoint) = self.breakpoints.bound(index, line, message) {
                    breakpoint.line = breakpoint
                        .line
                        .map(|l| l - i64::from(!self.lines_start_at1));
                    self.out.event(Event::Breakpoint(BreakpointEventBody {
                        reason: "changed".into(),
                        breakpoint,
                    }));
                }
            }
            SessionEvent::Stopped(stop) => self.on_stop(stop),
            SessionEvent::Log {
                file, line, text, ..
            } => {
                let mut body = OutputEventBody {
                    category: Some("console".into()),
                    output: format!("{text}\n"),
                    ..Default::default()
                };
                if let Some(f) = &file {
                    body.source = Some(self.source_of_file(f));
                    body.line = Some(self.line_out(line));
                }
                self.out.event(Event::Output(body));
            }
            SessionEvent::Halted(h) => self.on_halt(h),
            SessionEvent::Screenshot { request, .. } => {
                tracing::debug!(request, "a screenshot nobody asked for");
            }
            SessionEvent::Output { stderr, line } => {
                let category = if stderr { "stderr" } else { "stdout" };
                self.out.event(Event::Output(OutputEventBody {
                    category: Some(category.into()),
                    output: format!("{line}\n"),
                    ..Default::default()
                }));
            }
            SessionEvent::AgentError(m) => self
                .out
                .event(Event::console(format!("shaderdbg agent: {m}\n"))),
            SessionEvent::Exited { .. } if self.restarting => {
                self.state = State::Exited;
                self.handles.clear();
            }
            SessionEvent::Exited { .. } if self.seek.is_some() => {
                let seek = self.seek.take().expect("seeking");
                self.out.event(Event::console(format!(
                    "the replay ended before stop {} ({}) came again: \
                     replaying it once more, to its first stop\n",
                    seek.ordinal, seek.key
                )));
                self.replay_from_start();
            }
            SessionEvent::Exited { code, signal } => {
                self.state = State::Exited;
                self.handles.clear();
                let exit_code = code.unwrap_or_else(|| 128 + signal.unwrap_or(0));
                if let Some(s) = signal {
                    self.out.event(Event::console(format!(
                        "the program was ended by signal {s}\n"
                    )));
                }
                self.out.event(Event::Exited(ExitedEventBody {
                    exit_code: i64::from(exit_code),
                }));
                self.terminated_now();
            }
        }
    }

    /// A restarted replay that cannot come back to its stop: once more
    /// from the start, to stop at its first stop.
    fn replay_from_start(&mut self) {
        let Some(plan) = self.plan.clone() else {
            return;
        };
        self.end_for_restart();
        self.relaunch(plan, None);
    }

    fn on_halt(&mut self, halt: Halt) {
        if self.done || self.restarting || self.seek.is_some() {
            self.resume();
            return;
        }
        let (description, text) = match &halt {
            Halt::CompileError {
                shader,
                stage,
                info_log,
                ..
            } => (
                info_log.trim().to_string(),
                format!("Shader failed to compile ({stage} shader {shader})"),
            ),
            Halt::GlError { call, error, .. } => {
                let d = format!(
                    "GL error {} (0x{error:04x}) in {call}",
                    gl_error_name(*error)
                );
                (d.clone(), d)
            }
        };
        let source = match &halt {
            Halt::CompileError { file: Some(f), .. } => Some(self.source_of_file(f)),
            Halt::CompileError { shader, stage, .. } => {
                let shader = *shader;
                let text = self
                    .call(None, move |s| {
                        s.shaders()
                            .into_iter()
                            .find(|i| i.shader == shader)
                            .map(|i| i.source)
                    })
                    .ok()
                    .flatten();
                text.and_then(|t| {
                    let r =
                        self.sources
                            .reference(shader, format!("shader {shader} ({stage})"), &t);
                    self.sources.source(r)
                })
            }
            Halt::GlError { .. } => None,
        };
        self.handles.clear();
        self.state = State::Halted(Box::new(Halted { halt, source }));
        self.out.event(Event::Stopped(StoppedEventBody {
            text: Some(text),
            ..stopped("exception", Some(description))
        }));
    }

    /// A stop at a draw.
    fn on_stop(&mut self, stop: Box<Stop>) {
        if self.done || self.restarting {
            self.resume();
            return;
        }
        let mut cursor = None;
        if let Some(seek) = &self.seek {
            let ordinal = self.stops + 1;
            let key = StopKey::of(&stop);
            match seek.arrival(ordinal, &key) {
                Arrival::Skip => {
                    self.stops = ordinal;
                    // A sanitizer stop's next report is a stop of its own.
                    self.continue_program();
                    return;
                }
                Arrival::Found => {
                    cursor = Some(seek.cursor);
                    self.seek = None;
                }
                Arrival::Different => {
                    let seek = self.seek.take().expect("seeking");
                    self.out.event(Event::console(format!(
                        "the replay did not come back to stop {} ({}): stop {ordinal} is {key}; \
                         replaying it once more, to its first stop\n",
                        seek.ordinal, seek.key
                    )));
                    self.replay_from_start();
                    return;
                }
            }
        }
        let pixel_history = stop.reason == StopReason::PixelHistory
            || (stop.reason == StopReason::Breakpoint && stop.hit.line == 0);
        let (reason, description) = match stop.reason {
            StopReason::Pause => ("pause", None),
            StopReason::NanInf => (
                "exception",
                Some("NaN or Inf written to an output".to_string()),
            ),
            StopReason::Sanitizer => {
                // One stop per report (`continue` goes to the next); on
                // the console too.
                let text = stop.finding().map(|f| f.text);
                if let Some(t) = &text {
                    self.out.event(Event::console(format!("sanitizer: {t}\n")));
                }
                // Said once per dispatch or draw, with its first report.
                if stop.truncated && stop.report == 0 {
                    self.out.event(Event::console(
                        "sanitizer: more reports than the agent keeps were found at this \
                         dispatch or draw; the others are lost\n"
                            .to_string(),
                    ));
                }
                ("exception", text)
            }
            _ if pixel_history => match &mut self.pixel_debug {
                Some(pd) if stop.frame == pd.frame => {
                    pd.stops += 1;
                    let reason = if pd.stops == 1 { "entry" } else { "step" };
                    (reason, Some(format!("Pixel ({}, {}) history", pd.x, pd.y)))
                }
                _ => ("pixel history", None),
            },
            _ => ("breakpoint", None),
        };
        self.show_stop(stop, reason, description, cursor);
    }

    /// Shows a stop; `cursor`: where thread 1's cursor goes (a restart's).
    fn show_stop(
        &mut self,
        stop: Box<Stop>,
        reason: &str,
        description: Option<String>,
        cursor: Option<usize>,
    ) {
        self.stops += 1;
        let entry = self.stops == 1
            && reason == "breakpoint"
            && self.plan.as_ref().is_some_and(|p| p.stop_on_entry);
        let mut ds = DrawStop::new(stop);
        if entry {
            ds.cur_mut().cursor = 0;
        }
        if let Some(c) = cursor.filter(|&c| c < ds.cur().stop.trace.steps.len()) {
            ds.cur_mut().cursor = c;
        }
        self.handles.clear();
        let cursor = ds.cur().cursor;
        self.state = State::Stopped(Box::new(ds));
        let reason = if entry { "entry" } else { reason };
        // No description for breakpoint/step stops: clients then say
        // "Paused on breakpoint"; the thread's name tells the invocation.
        let mut body = stopped(reason, description);
        if reason == "exception" {
            body.text.clone_from(&body.description);
        }
        let ids = self.hit_ids(cursor);
        if reason == "breakpoint" && !ids.is_empty() {
            body.hit_breakpoint_ids = Some(ids);
        }
        self.out.event(Event::Stopped(body));
    }
}
