//! `threads`, `stackTrace`, `scopes`, `variables`: the invocations of a
//! stop, their call stacks (with the draw as a label frame), and the values
//! before the cursor's step executes. See [`crate::state`] for the ids.

use std::io::Write;

use shaderdbg_session::stop::Location;
use shaderdbg_session::Halt;

use crate::error::Error;
use crate::events::gl_error_name;
use crate::protocol::{
    Scope, ScopesArguments, ScopesResponseBody, Source, StackFrame, StackTraceArguments,
    StackTraceResponseBody, Thread, ThreadsResponseBody, VariablesArguments, VariablesResponseBody,
};
use crate::state::{frame_id, label_frame_id, Adapter, Halted, State};
use crate::variables::{parts, Handle, ScopeKind};

/// The label frame that names a draw or a halt (no source, no values).
fn label_frame(id: i64, name: String) -> StackFrame {
    StackFrame {
        id,
        name,
        presentation_hint: Some("label".into()),
        ..Default::default()
    }
}

/// `start`/`count` paging of a list (0 or absent: all).
fn page<T>(items: Vec<T>, start: Option<usize>, count: Option<usize>) -> Vec<T> {
    let start = start.unwrap_or(0).min(items.len());
    let count = count.filter(|&c| c > 0).unwrap_or(items.len());
    items.into_iter().skip(start).take(count).collect()
}

impl<W: Write> Adapter<W> {
    pub fn threads(&self) -> Result<ThreadsResponseBody, Error> {
        let one = |name: String| vec![Thread { id: 1, name }];
        let threads = match &self.state {
            State::Stopped(s) => s
                .threads()
                .into_iter()
                .map(|(id, name)| Thread { id, name })
                .collect(),
            State::Halted(h) => one(match &h.halt {
                Halt::CompileError { shader, stage, .. } => {
                    format!("compiling {stage} shader {shader}")
                }
                Halt::GlError { call, .. } => format!("GL error in {call}"),
            }),
            State::Running | State::NotStarted => one("shader invocations (running)".into()),
            State::Exited => Vec::new(),
        };
        Ok(ThreadsResponseBody { threads })
    }

    fn source_for(&mut self, thread: usize, loc: &Location) -> Option<Source> {
        match &loc.file {
            Some(f) => Some(self.source_of_file(f)),
            None => {
                let State::Stopped(ds) = &self.state else {
                    return None;
                };
                let s = ds.thread(thread)?;
                let name = format!("shader {} ({})", s.stop.shader, s.stop.stage);
                let (shader, text) = (s.stop.shader, s.stop.parsed.text().to_string());
                let r = self.sources.reference(shader, name, &text);
                self.sources.source(r)
            }
        }
    }

    pub fn stack_trace(&mut self, a: StackTraceArguments) -> Result<StackTraceResponseBody, Error> {
        if let State::Halted(h) = &self.state {
            let stack_frames = self.halt_frames(h);
            return Ok(StackTraceResponseBody {
                total_frames: Some(stack_frames.len() as i64),
                stack_frames,
            });
        }
        let t = self.ensure_thread(a.thread_id)?;
        let s = self.stopped()?;
        let stack = s.stop.call_stack(s.cursor);
        let (draw, frame) = (s.stop.draw, s.stop.frame);
        let mut label = format!("draw {draw}, frame {frame}");
        // A recording's draw is also named by its call in `apitrace dump`.
        if let Some(call) = self.trace_call(frame, draw) {
            label.push_str(&format!(", call {call}"));
        }
        let mut frames = Vec::new();
        for (level, (name, loc)) in stack.iter().enumerate() {
            let source = self.source_for(t, loc);
            frames.push(StackFrame {
                id: frame_id(t, level),
                name: name.clone(),
                source,
                line: self.line_out(loc.line),
                column: 1,
                presentation_hint: None,
            });
        }
        frames.push(label_frame(label_frame_id(t), label));
        let total = frames.len();
        Ok(StackTraceResponseBody {
            stack_frames: page(frames, a.start_frame, a.levels),
            total_frames: Some(total as i64),
        })
    }

    fn halt_frames(&self, h: &Halted) -> Vec<StackFrame> {
        match &h.halt {
            Halt::CompileError { line, stage, .. } => vec![StackFrame {
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
            } => vec![label_frame(
                label_frame_id(0),
                format!(
                    "{call}: {} (0x{error:04x}), frame {frame} after {draw} draw{}",
                    gl_error_name(*error),
                    if *draw == 1 { "" } else { "s" }
                ),
            )],
        }
    }

    pub fn scopes(&mut self, a: ScopesArguments) -> Result<ScopesResponseBody, Error> {
        if matches!(self.state, State::Halted(_)) {
            return Ok(ScopesResponseBody::default());
        }
        let (thread, Some(step)) = self.frame_step(a.frame_id)? else {
            return Ok(ScopesResponseBody::default());
        };
        let stop = &self.thread_at(thread)?.stop;
        let vars = stop.variables(step);
        self.handles.language = stop.language();
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
            scopes.push(Scope {
                name: kind.name().into(),
                presentation_hint: (kind == ScopeKind::Locals).then(|| "locals".to_string()),
                variables_reference: r,
                named_variables: Some(n as i64),
                expensive: false,
            });
        }
        Ok(ScopesResponseBody { scopes })
    }

    pub fn variables(&mut self, a: VariablesArguments) -> Result<VariablesResponseBody, Error> {
        let handle = self
            .handles
            .get(a.variables_reference)
            .cloned()
            .ok_or(Error::NoVariables(a.variables_reference))?;
        let mut out = Vec::new();
        match handle {
            Handle::Scope {
                thread,
                step,
                scope,
            } => {
                let stop = &self.thread_at(thread)?.stop;
                let vars = stop.variables(step);
                self.handles.language = stop.language();
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
        Ok(VariablesResponseBody {
            variables: page(out, a.start, a.count),
        })
    }
}
