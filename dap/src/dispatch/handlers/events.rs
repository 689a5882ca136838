//! Session events become DAP events: stops, halts, logpoint lines, output, exit.

use crate::dispatch::*;

impl<W: Write> Server<W> {
    pub(in crate::dispatch) fn engine_event(&mut self, e: EngineEvent) {
        match e {
            EngineEvent::Started { pid } => {
                let id = self.launch_progress.take();
                self.progress_end(id);
                let name = self
                    .plan
                    .as_ref()
                    .map(|p| p.config.program.display().to_string())
                    .unwrap_or_default();
                self.out.event(
                    "process",
                    json!({"name": name, "systemProcessId": pid, "isLocalProcess": true, "startMethod": "launch"}),
                );
            }
            EngineEvent::StartFailed(m) => {
                let id = self.launch_progress.take();
                self.progress_end(id);
                self.out.event(
                    "output",
                    json!({"category": "console", "output": format!("cannot start the program: {m}\n")}),
                );
                self.state = State::Exited;
                if !self.terminated && !self.disconnecting {
                    self.terminated = true;
                    self.out.event("terminated", Value::Null);
                }
            }
            EngineEvent::Session(ev) => self.session_event(ev),
        }
    }

    pub(in crate::dispatch) fn session_event(&mut self, ev: Event) {
        match ev {
            Event::ShaderLoaded {
                shader,
                stage,
                file,
                compiled,
            } => {
                tracing::info!(shader, %stage, ?file, compiled, "shader loaded");
            }
            Event::BreakpointBound {
                index,
                line,
                message,
                ..
            } => {
                if let Some(mut b) = self.breakpoints.bound(index, line, message) {
                    b.line = b.line.map(|l| l - i64::from(!self.lines_start_at1));
                    self.out
                        .event("breakpoint", json!({"reason": "changed", "breakpoint": b}));
                }
            }
            Event::Stopped(stop) => self.on_stop(stop),
            Event::Log {
                file, line, text, ..
            } => {
                let mut body = json!({"category": "console", "output": format!("{text}\n")});
                if let Some(f) = &file {
                    body["source"] = json!(self.source_of_file(f));
                    body["line"] = json!(self.line_out(line));
                }
                self.out.event("output", body);
            }
            Event::Halted(h) => self.on_halt(h),
            Event::Screenshot { request, .. } => {
                tracing::debug!(request, "a screenshot nobody asked for");
            }
            Event::Output { stderr, line } => {
                let category = if stderr { "stderr" } else { "stdout" };
                self.out.event(
                    "output",
                    json!({"category": category, "output": format!("{line}\n")}),
                );
            }
            Event::AgentError(m) => self.out.event(
                "output",
                json!({"category": "console", "output": format!("shaderdbg agent: {m}\n")}),
            ),
            Event::Exited { code, signal } => {
                self.state = State::Exited;
                self.handles.clear();
                let exit_code = code.unwrap_or_else(|| 128 + signal.unwrap_or(0));
                if let Some(s) = signal {
                    self.out.event(
                        "output",
                        json!({"category": "console", "output": format!("the program was ended by signal {s}\n")}),
                    );
                }
                self.out.event("exited", json!({ "exitCode": exit_code }));
                if !self.terminated && !self.disconnecting {
                    self.terminated = true;
                    self.out.event("terminated", Value::Null);
                }
            }
        }
    }

    pub(in crate::dispatch) fn on_halt(&mut self, halt: Halt) {
        if self.done {
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
            Halt::CompileError {
                shader,
                stage,
                file: Some(f),
                ..
            } => {
                let _ = (shader, stage);
                Some(self.source_of_file(f))
            }
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
        self.out.event(
            "stopped",
            json!({
                "reason": "exception",
                "description": description,
                "text": text,
                "threadId": 1,
                "allThreadsStopped": true,
            }),
        );
    }

    /// A stop at a draw (breakpoint stops come decided: the session engine
    /// has applied hit conditions and printed logpoints).
    pub(in crate::dispatch) fn on_stop(&mut self, stop: Box<Stop>) {
        if self.done {
            self.resume();
            return;
        }
        let pixel_history = stop.reason == StopReason::PixelHistory
            || (stop.reason == StopReason::Breakpoint && stop.hit.line == 0);
        let (stop, reason, description) = match stop.reason {
            StopReason::Pause => (stop, "pause", None),
            StopReason::NanInf => (
                stop,
                "exception",
                Some("NaN or Inf written to an output".to_string()),
            ),
            _ if pixel_history => match &mut self.pixel_debug {
                Some(pd) if stop.frame == pd.frame => {
                    pd.stops += 1;
                    let reason = if pd.stops == 1 { "entry" } else { "step" };
                    let d = format!("Pixel ({}, {}) history", pd.x, pd.y);
                    (stop, reason, Some(d))
                }
                _ => (stop, "pixel history", None),
            },
            _ => (stop, "breakpoint", None),
        };
        self.show_stop(stop, reason, description);
    }

    pub(in crate::dispatch) fn show_stop(
        &mut self,
        stop: Box<Stop>,
        reason: &str,
        description: Option<String>,
    ) {
        self.stops += 1;
        let entry = self.stops == 1
            && reason == "breakpoint"
            && self.plan.as_ref().is_some_and(|p| p.stop_on_entry);
        let mut ds = DrawStop::new(stop);
        if entry {
            ds.cur_mut().cursor = 0;
        }
        self.handles.clear();
        let cursor = ds.cur().cursor;
        self.state = State::Stopped(Box::new(ds));
        let reason = if entry { "entry" } else { reason };
        // No description for breakpoint/step stops: clients then say
        // "Paused on breakpoint"; the thread's name tells the invocation.
        let mut body = json!({
            "reason": reason,
            "threadId": 1,
            "allThreadsStopped": true,
        });
        if let Some(d) = description {
            body["description"] = json!(d);
        }
        if reason == "exception" {
            body["text"] = body["description"].clone();
        }
        let ids = self.hit_ids(cursor);
        if reason == "breakpoint" && !ids.is_empty() {
            body["hitBreakpointIds"] = json!(ids);
        }
        self.out.event("stopped", body);
    }
}
