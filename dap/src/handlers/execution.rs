//! `continue`, `next`, `stepIn`, `stepOut`, `stepBack`, `reverseContinue`,
//! `pause`. Within a stop these move through the recorded trace
//! ([`crate::stepping`]); `continue` past the last breakpoint of the
//! recording goes on (a sanitizer stop's next report first, as a stop of
//! its own: [`shaderdbg_session::Session::continue_`]), and any step at a
//! halt resumes the program.

use std::io::Write;

use crate::error::Error;
use crate::protocol::{
    ContinueArguments, ContinueResponseBody, Event, NextArguments, PauseArguments,
    ReverseContinueArguments, StepBackArguments, StepInArguments, StepOutArguments,
    StoppedEventBody,
};
use crate::state::{Adapter, State};
use crate::stepping::Move;

impl<W: Write> Adapter<W> {
    pub fn next(&mut self, a: NextArguments) -> Result<(), Error> {
        self.step(a.thread_id, Move::Over)
    }

    pub fn step_in(&mut self, a: StepInArguments) -> Result<(), Error> {
        self.step(a.thread_id, Move::In)
    }

    pub fn step_out(&mut self, a: StepOutArguments) -> Result<(), Error> {
        self.step(a.thread_id, Move::Out)
    }

    pub fn step_back(&mut self, a: StepBackArguments) -> Result<(), Error> {
        self.step(a.thread_id, Move::Back)
    }

    fn step(&mut self, thread: i64, m: Move) -> Result<(), Error> {
        if matches!(self.state, State::Halted(_)) {
            self.resume();
            return Ok(());
        }
        self.ensure_thread(thread)?;
        let s = self.stopped()?;
        let (target, cursor) = (s.target(m), s.cursor);
        if target.is_none() && m != Move::Back {
            self.after.push(Event::console(
                "end of the recorded invocation: continue runs the program to its next stop\n"
                    .into(),
            ));
        }
        self.move_to(target.unwrap_or(cursor), "step");
        Ok(())
    }

    pub fn continue_(&mut self, a: ContinueArguments) -> Result<ContinueResponseBody, Error> {
        let continued = |all: bool| ContinueResponseBody {
            all_threads_continued: Some(all),
        };
        let next = match &self.state {
            State::Stopped(_) => {
                self.ensure_thread(a.thread_id)?;
                self.stopped()?.next_breakpoint(&self.breakpoints)
            }
            State::Halted(_) => None,
            State::Running => return Ok(continued(true)),
            _ => return Err(Error::NotStopped),
        };
        match next {
            Some(step) => {
                self.move_to(step, "breakpoint");
                Ok(continued(false))
            }
            None => {
                self.continue_program();
                Ok(continued(true))
            }
        }
    }

    pub fn reverse_continue(&mut self, a: ReverseContinueArguments) -> Result<(), Error> {
        self.ensure_thread(a.thread_id)?;
        let s = self.stopped()?;
        match s.previous_breakpoint(&self.breakpoints) {
            Some(step) => self.move_to(step, "breakpoint"),
            None => self.move_to(0, "step"),
        }
        Ok(())
    }

    /// `pause`: the program stops at the next draw with a debuggable shader.
    pub fn pause(&mut self, _: PauseArguments) -> Result<(), Error> {
        match self.state {
            State::Running => {
                self.call(None, |s| s.pause())?;
                Ok(())
            }
            State::Stopped(_) | State::Halted(_) => Ok(()),
            _ => Err(Error::NotRunning),
        }
    }

    /// Puts the cursor of the current thread at `step` and tells the client.
    fn move_to(&mut self, step: usize, reason: &str) {
        let thread = {
            let State::Stopped(ds) = &mut self.state else {
                return;
            };
            ds.cur_mut().cursor = step;
            ds.current
        };
        let hit_ids = self.hit_ids(step);
        self.handles.clear();
        self.after.push(Event::Stopped(StoppedEventBody {
            reason: reason.to_string(),
            thread_id: Some(thread as i64 + 1),
            all_threads_stopped: Some(true),
            hit_breakpoint_ids: Some(hit_ids)
                .filter(|ids| reason == "breakpoint" && !ids.is_empty()),
            ..Default::default()
        }));
    }

    /// The breakpoints (not logpoints) at `step` of the current thread.
    pub fn hit_ids(&self, step: usize) -> Vec<i64> {
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
}
