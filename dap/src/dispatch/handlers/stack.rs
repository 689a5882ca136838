//! Threads, stack and variables: `threads` (the invocations that hit), `stackTrace`, `scopes`, `variables`.

use crate::dispatch::*;

impl<W: Write> Server<W> {
    pub(in crate::dispatch) fn draw_stop(&self) -> Result<&DrawStop, AdapterError> {
        match &self.state {
            State::Stopped(s) => Ok(s),
            State::Halted(_) => {
                Err("stopped outside a draw: there are no shader values here".into())
            }
            _ => Err(not_stopped()),
        }
    }

    /// The current thread's recording.
    pub(in crate::dispatch) fn stopped(&self) -> Result<&Stopped, AdapterError> {
        Ok(self.draw_stop()?.cur())
    }

    /// Makes thread `thread` (an id) current, recording its invocation the
    /// first time; its index.
    pub(in crate::dispatch) fn ensure_thread(
        &mut self,
        thread: i64,
    ) -> Result<usize, AdapterError> {
        let (i, todo) = {
            let ds = self.draw_stop()?;
            let i = usize::try_from(thread - 1)
                .ok()
                .filter(|&i| i < ds.invocations.len())
                .ok_or_else(|| format!("no thread {thread}"))?;
            (i, ds.thread(i).is_none().then(|| ds.invocations[i]))
        };
        if let Some(hit) = todo {
            let name = hit.invocation.to_string();
            let stop = self
                .call(Some(&format!("Recording {name}")), move |s| {
                    s.record_hit(hit)
                })?
                .map_err(|e| format!("cannot record {name}: {e}"))?;
            if let State::Stopped(ds) = &mut self.state {
                ds.threads[i] = Some(Stopped::new(Box::new(stop)));
            }
        }
        if let State::Stopped(ds) = &mut self.state {
            if ds.current != i {
                ds.current = i;
            }
        }
        Ok(i)
    }

    pub(in crate::dispatch) fn threads(&self) -> Reply {
        let threads: Vec<p::Thread> = match &self.state {
            State::Stopped(s) => s
                .threads()
                .into_iter()
                .map(|(id, name)| p::Thread { id, name })
                .collect(),
            State::Halted(h) => vec![p::Thread {
                id: 1,
                name: match &h.halt {
                    Halt::CompileError { shader, stage, .. } => {
                        format!("compiling {stage} shader {shader}")
                    }
                    Halt::GlError { call, .. } => format!("GL error in {call}"),
                },
            }],
            State::Running | State::NotStarted => vec![p::Thread {
                id: 1,
                name: "shader invocations (running)".into(),
            }],
            State::Exited => Vec::new(),
        };
        json_body(p::ThreadsResponse { threads })
    }

    pub(in crate::dispatch) fn source_for(
        &mut self,
        thread: usize,
        loc: &Location,
    ) -> Option<p::Source> {
        match &loc.file {
            Some(f) => Some(self.source_of_file(f)),
            None => {
                let State::Stopped(ds) = &self.state else {
                    return None;
                };
                let s = ds.thread(thread)?;
                let name = format!("shader {} ({})", s.stop.shader, s.stop.stage);
                let (shader, text) = (s.stop.shader, s.stop.parsed.source.text.clone());
                let r = self.sources.reference(shader, name, &text);
                self.sources.source(r)
            }
        }
    }

    pub(in crate::dispatch) fn stack_trace(&mut self, a: p::StackTraceArguments) -> Reply {
        if let State::Halted(h) = &self.state {
            let frames = self.halt_frames(h);
            let total_frames = frames.len();
            return json_body(p::StackTraceResponse {
                stack_frames: frames,
                total_frames,
            });
        }
        let t = self.ensure_thread(a.thread_id)?;
        let s = self.stopped()?;
        let stack = s.stop.call_stack(s.cursor);
        let label = format!("draw {}, frame {}", s.stop.draw, s.stop.frame);
        let mut frames = Vec::new();
        for (level, (name, loc)) in stack.iter().enumerate() {
            let source = self.source_for(t, loc);
            frames.push(p::StackFrame {
                id: frame_id(t, level),
                name: name.clone(),
                source,
                line: self.line_out(loc.line),
                column: 1,
                presentation_hint: None,
            });
        }
        frames.push(p::StackFrame {
            id: LABEL_BASE + t as i64,
            name: label,
            source: None,
            line: 0,
            column: 0,
            presentation_hint: Some("label".into()),
        });
        let total = frames.len();
        let start = a.start_frame.unwrap_or(0).min(total);
        let levels = a.levels.filter(|&l| l > 0).unwrap_or(total);
        let frames: Vec<_> = frames.into_iter().skip(start).take(levels).collect();
        json_body(p::StackTraceResponse {
            stack_frames: frames,
            total_frames: total,
        })
    }

    pub(in crate::dispatch) fn halt_frames(&self, h: &Halted) -> Vec<p::StackFrame> {
        match &h.halt {
            Halt::CompileError { line, stage, .. } => vec![p::StackFrame {
                id: 1,
                name: format!("{stage} shader failed to compile"),
                source: h.source.clone(),
                line: line.map_or(0, |l| self.line_out(l)),
                column: 1,
                presentation_hint: None,
            }],
            Halt::GlError {
                frame,
                draw,
                call,
                error,
            } => vec![p::StackFrame {
                id: LABEL_BASE,
                name: format!(
                    "{call}: {} (0x{error:04x}), frame {frame} after {draw} draw{}",
                    gl_error_name(*error),
                    if *draw == 1 { "" } else { "s" }
                ),
                source: None,
                line: 0,
                column: 0,
                presentation_hint: Some("label".into()),
            }],
        }
    }

    /// The thread index and step a frame id stands for (step `None`: the label frame).
    pub(in crate::dispatch) fn frame_step(
        &mut self,
        frame_id: i64,
    ) -> Result<(usize, Option<usize>), AdapterError> {
        let (t, level) = decode_frame(frame_id).ok_or_else(|| format!("no frame {frame_id}"))?;
        self.ensure_thread(t as i64 + 1)?;
        let Some(level) = level else {
            return Ok((t, None));
        };
        let s = self.stopped()?;
        match s.frame_steps().get(level) {
            Some(Some(step)) => Ok((t, Some(*step))),
            Some(None) => Err(format!("frame {frame_id} has no recorded step").into()),
            None => Err(format!("no frame {frame_id}").into()),
        }
    }

    pub(in crate::dispatch) fn thread_at(&self, t: usize) -> Result<&Stopped, AdapterError> {
        self.draw_stop()?
            .thread(t)
            .ok_or_else(|| format!("thread {} is not recorded", t + 1).into())
    }

    pub(in crate::dispatch) fn scopes(&mut self, a: p::ScopesArguments) -> Reply {
        if matches!(self.state, State::Halted(_)) {
            return json_body(p::ScopesResponse { scopes: Vec::new() });
        }
        let (thread, Some(step)) = self.frame_step(a.frame_id)? else {
            return json_body(p::ScopesResponse { scopes: Vec::new() });
        };
        let vars = self.thread_at(thread)?.variables(step);
        let mut scopes = Vec::new();
        for kind in ScopeKind::ALL {
            let n = vars.iter().filter(|v| kind.holds(v.scope)).count();
            if kind == ScopeKind::Globals && n == 0 {
                continue;
            }
            let r = self.handles.add(Handle::Scope {
                thread,
                step,
                scope: kind,
            });
            scopes.push(p::Scope {
                name: kind.name().into(),
                presentation_hint: (kind == ScopeKind::Locals).then(|| "locals".to_string()),
                variables_reference: r,
                named_variables: n,
                expensive: false,
            });
        }
        json_body(p::ScopesResponse { scopes })
    }

    pub(in crate::dispatch) fn variables(&mut self, a: p::VariablesArguments) -> Reply {
        let handle = self
            .handles
            .get(a.variables_reference)
            .cloned()
            .ok_or_else(|| {
                format!(
                    "no variables reference {} (the program moved on?)",
                    a.variables_reference
                )
            })?;
        let mut out = Vec::new();
        match handle {
            Handle::Scope {
                thread,
                step,
                scope,
            } => {
                let vars = self.thread_at(thread)?.variables(step);
                for v in vars.iter().filter(|v| scope.holds(v.scope)) {
                    out.push(
                        self.handles
                            .variable(&v.name, &v.ty, v.value.as_ref(), &v.name),
                    );
                }
            }
            Handle::Value {
                ty,
                value,
                evaluate_name,
            } => {
                for (name, t, v, eval) in parts(&ty, &value, &evaluate_name) {
                    out.push(self.handles.variable(&name, &t, Some(&v), &eval));
                }
            }
        }
        let start = a.start.unwrap_or(0).min(out.len());
        let count = a.count.filter(|&c| c > 0).unwrap_or(out.len());
        let out: Vec<_> = out.into_iter().skip(start).take(count).collect();
        json_body(p::VariablesResponse { variables: out })
    }

    /// The thread and step of an optional frame (the current thread's cursor without one).
    pub(in crate::dispatch) fn frame_or_cursor(
        &mut self,
        frame_id: Option<i64>,
    ) -> Result<(usize, usize), AdapterError> {
        let (t, step) = match frame_id {
            Some(f) => self.frame_step(f)?,
            None => {
                let ds = self.draw_stop().map_err(|e| {
                    if matches!(self.state, State::Halted(_)) {
                        e
                    } else {
                        "the program is not stopped: there are no values to evaluate over".into()
                    }
                })?;
                (ds.current, Some(ds.cur().cursor))
            }
        };
        let step = step.ok_or("the draw's frame has no values: pick a shader frame")?;
        Ok((t, step))
    }
}
