//! Execution: `next`, `stepIn`, `stepOut`, `stepBack`, `continue`, `reverseContinue`, `pause` (moves through the recorded trace; `continue` past its end resumes the program).

use crate::dispatch::*;

impl<W: Write> Server<W> {
    /// Puts the cursor of the current thread at `step` and tells the client.
    pub(in crate::dispatch) fn move_to(&mut self, step: usize, reason: &str) {
        let thread = {
            let State::Stopped(ds) = &mut self.state else {
                return;
            };
            ds.cur_mut().cursor = step;
            ds.current
        };
        let hit_ids = self.hit_ids(step);
        self.handles.clear();
        let mut body =
            json!({"reason": reason, "threadId": thread as i64 + 1, "allThreadsStopped": true});
        if reason == "breakpoint" && !hit_ids.is_empty() {
            body["hitBreakpointIds"] = json!(hit_ids);
        }
        self.after.push(("stopped", body));
    }

    /// The breakpoints (not logpoints) at `step` of the current thread.
    pub(in crate::dispatch) fn hit_ids(&self, step: usize) -> Vec<i64> {
        let Ok(s) = self.stopped() else {
            return Vec::new();
        };
        let loc = s.stop.location(step);
        loc.file
            .as_deref()
            .map(|f| {
                self.breakpoints
                    .at(f, loc.line)
                    .iter()
                    .filter(|e| e.stops())
                    .map(|e| e.id)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(in crate::dispatch) fn step(&mut self, a: p::ThreadArguments, m: Move) -> Reply {
        if matches!(self.state, State::Halted(_)) {
            self.resume();
            return Ok(Value::Null);
        }
        self.ensure_thread(a.thread_id)?;
        let s = self.stopped()?;
        let (target, cursor) = (s.target(m), s.cursor);
        if target.is_none() && m != Move::Back {
            self.after.push((
                "output",
                json!({"category": "console", "output": "end of the recorded invocation: continue runs the program to its next stop\n"}),
            ));
        }
        self.move_to(target.unwrap_or(cursor), "step");
        Ok(Value::Null)
    }

    pub(in crate::dispatch) fn continue_(&mut self, a: p::ThreadArguments) -> Reply {
        let next = match &self.state {
            State::Stopped(_) => {
                self.ensure_thread(a.thread_id)?;
                self.stopped()?.next_breakpoint(&self.breakpoints)
            }
            State::Halted(_) => None,
            State::Running => {
                return json_body(p::ContinueResponse {
                    all_threads_continued: true,
                })
            }
            _ => return Err(not_stopped()),
        };
        match next {
            Some(step) => {
                self.move_to(step, "breakpoint");
                json_body(p::ContinueResponse {
                    all_threads_continued: false,
                })
            }
            None => {
                self.resume();
                json_body(p::ContinueResponse {
                    all_threads_continued: true,
                })
            }
        }
    }

    pub(in crate::dispatch) fn reverse_continue(&mut self, a: p::ThreadArguments) -> Reply {
        self.ensure_thread(a.thread_id)?;
        let s = self.stopped()?;
        match s.previous_breakpoint(&self.breakpoints) {
            Some(step) => self.move_to(step, "breakpoint"),
            None => self.move_to(0, "step"),
        }
        Ok(Value::Null)
    }

    pub(in crate::dispatch) fn resume(&mut self) {
        self.handles.clear();
        self.state = State::Running;
        if let Some(e) = &self.engine {
            e.send(EngineCommand::Resume);
        }
    }

    /// `pause`: the program stops at the next draw with a debuggable shader.
    pub(in crate::dispatch) fn pause(&mut self, _: p::ThreadArguments) -> Reply {
        match self.state {
            State::Running => {
                self.call(None, |s| s.pause())?;
                Ok(Value::Null)
            }
            State::Stopped(_) | State::Halted(_) => Ok(Value::Null),
            _ => Err("the program is not running".into()),
        }
    }
}
