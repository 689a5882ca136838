//! The adapter's state, and what handlers share: line conversion, progress
//! around long work, running work on the session, the stop and its threads.
//!
//! A stop at a draw shows one thread per invocation that hit; thread 1 is
//! the one recorded with the stop, others are recorded when first asked for
//! (`stackTrace`, a step). Frame ids name the thread: `thread_index *
//! 65536 + level + 1`, and `2^30 + thread_index` for the draw's label frame.

use std::io::Write;
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender};

use shaderdbg_session::trace::DumpFrames;
use shaderdbg_session::{Halt, Session};

use crate::breakpoints::{source_of, Breakpoints};
use crate::engine::{Command, Engine};
use crate::error::Error;
use crate::launch::Plan;
use crate::protocol::{Event, ProgressEndEventBody, ProgressStartEventBody, Source};
use crate::restart::Seek;
use crate::sources::Sources;
use crate::stepping::{DrawStop, Stopped};
use crate::variables::Handles;
use crate::writer::Writer;
use crate::Input;

pub enum State {
    NotStarted,
    Running,
    Stopped(Box<DrawStop>),
    /// Blocked outside a draw (a compile error, a GL error).
    Halted(Box<Halted>),
    Exited,
}

pub struct Halted {
    pub halt: Halt,
    /// Where a compile error is shown.
    pub source: Option<Source>,
}

/// Pixel history asked by `shaderdbg/debugPixel`.
pub struct PixelDebug {
    pub x: u32,
    pub y: u32,
    pub frame: u64,
    pub stops: u64,
}

pub struct Adapter<W: Write> {
    pub(crate) out: Writer<W>,
    /// Everything the adapter waits for (the client, the engine).
    pub(crate) rx: Receiver<Input>,
    /// Given to the engine, which reports on it.
    pub(crate) tx: Sender<Input>,
    /// `initialize` was answered: other requests are served.
    pub(crate) initialized: bool,
    /// The client's lines count from 1 (`linesStartAt1`); ours always do.
    pub(crate) lines_start_at1: bool,
    /// The client shows progress events (`supportsProgressReporting`).
    pub(crate) progress: bool,
    /// The last progress id given out.
    pub(crate) next_progress: u64,
    /// What `launch` asked for; started at `configurationDone`.
    pub(crate) plan: Option<Plan>,
    /// The running session, from `configurationDone` on.
    pub(crate) engine: Option<Engine>,
    pub(crate) state: State,
    pub(crate) breakpoints: Breakpoints,
    /// `variablesReference`s, valid until the program moves.
    pub(crate) handles: Handles,
    /// Shaders without a file, by `sourceReference`.
    pub(crate) sources: Sources,
    /// Stops shown so far (the first may be the entry).
    pub(crate) stops: u64,
    /// Started with a pixel and no breakpoints: every stop is at `main`.
    pub(crate) pixel_history: bool,
    pub(crate) pixel_debug: Option<PixelDebug>,
    /// The exception filters on (`setExceptionBreakpoints`).
    pub(crate) exception_filters: Vec<String>,
    /// The progress shown from `configurationDone` until the program runs.
    pub(crate) launch_progress: Option<String>,
    /// `terminated` was sent.
    pub(crate) terminated: bool,
    /// `disconnect` was answered: the loop ends.
    pub(crate) done: bool,
    /// `disconnect` is waiting for the program: `terminated` comes after its response.
    pub(crate) disconnecting: bool,
    /// Events to send after the response being built.
    pub(crate) after: Vec<Event>,
    /// A restarted replay is on its way back to this stop.
    pub(crate) seek: Option<Seek>,
    /// `restart` is ending the program: its exit is not reported.
    pub(crate) restarting: bool,
    /// A recording's frames as `apitrace dump` shows them, read at the
    /// first stack trace (`Some(None)`: it could not be read).
    pub(crate) dump: Option<Option<DumpFrames>>,
}

const LABEL_BASE: i64 = 1 << 30;
const PER_THREAD: i64 = 1 << 16;

pub fn frame_id(thread: usize, level: usize) -> i64 {
    thread as i64 * PER_THREAD + level as i64 + 1
}

/// The id of a thread's label frame (the draw).
pub fn label_frame_id(thread: usize) -> i64 {
    LABEL_BASE + thread as i64
}

/// (thread index, level; `None`: the label frame).
pub fn decode_frame(id: i64) -> Option<(usize, Option<usize>)> {
    if id >= LABEL_BASE {
        return usize::try_from(id - LABEL_BASE).ok().map(|t| (t, None));
    }
    let id = usize::try_from(id.checked_sub(1)?).ok()?;
    Some((id / PER_THREAD as usize, Some(id % PER_THREAD as usize)))
}

impl<W: Write> Adapter<W> {
    pub fn new(w: W, rx: Receiver<Input>, tx: Sender<Input>) -> Self {
        Adapter {
            out: Writer::new(w),
            rx,
            tx,
            initialized: false,
            lines_start_at1: true,
            progress: false,
            next_progress: 0,
            plan: None,
            engine: None,
            state: State::NotStarted,
            breakpoints: Breakpoints::default(),
            handles: Handles::default(),
            sources: Sources::default(),
            stops: 0,
            pixel_history: false,
            pixel_debug: None,
            exception_filters: Vec::new(),
            launch_progress: None,
            terminated: false,
            done: false,
            disconnecting: false,
            after: Vec::new(),
            seek: None,
            restarting: false,
            dump: None,
        }
    }

    // ---- lines -----------------------------------------------------------

    pub fn line_out(&self, line: u32) -> i64 {
        i64::from(line) - i64::from(!self.lines_start_at1)
    }

    pub fn line_in(&self, line: i64) -> i64 {
        line + i64::from(!self.lines_start_at1)
    }

    // ---- progress and the session ------------------------------------------

    pub fn progress_start(&mut self, title: &str) -> Option<String> {
        if !self.progress {
            return None;
        }
        self.next_progress += 1;
        let id = format!("shaderdbg-{}", self.next_progress);
        self.out.event(Event::ProgressStart(ProgressStartEventBody {
            progress_id: id.clone(),
            title: title.to_string(),
        }));
        Some(id)
    }

    pub fn progress_end(&mut self, id: Option<String>) {
        if let Some(progress_id) = id {
            self.out
                .event(Event::ProgressEnd(ProgressEndEventBody { progress_id }));
        }
    }

    /// Runs `f` on the session, with progress events around it.
    pub fn call<T: Send + 'static>(
        &mut self,
        title: Option<&str>,
        f: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, Error> {
        let engine = self.engine.as_ref().ok_or(Error::NotStarted)?;
        if engine.finished() {
            return Err(Error::Ended(crate::engine::Ended));
        }
        let id = title.and_then(|t| self.progress_start(t));
        let r = match &self.engine {
            Some(e) => e.call(f).map_err(Error::from),
            None => Err(Error::NotStarted),
        };
        self.progress_end(id);
        r
    }

    /// Whether the program has started and not ended.
    pub fn live(&self) -> bool {
        self.engine.is_some() && !matches!(self.state, State::Exited)
    }

    pub fn resume(&mut self) {
        self.handles.clear();
        self.state = State::Running;
        if let Some(e) = &self.engine {
            e.send(Command::Resume);
        }
    }

    /// `continue` past the recording: a sanitizer stop's next report comes
    /// as a new stop before the program resumes.
    pub fn continue_program(&mut self) {
        self.handles.clear();
        self.state = State::Running;
        if let Some(e) = &self.engine {
            e.send(Command::Continue);
        }
    }

    /// Detaches from (or kills) the program if it still runs.
    pub fn release(&mut self, how: Command) {
        if let Some(e) = &self.engine {
            if !matches!(self.state, State::Exited) && !e.finished() {
                e.send(how);
                if matches!(self.state, State::Stopped(_) | State::Halted(_)) {
                    self.state = State::Running;
                }
            }
        }
    }

    /// Sends `terminated` once (after the response being built).
    pub fn terminated_after(&mut self) {
        if !self.terminated {
            self.terminated = true;
            self.after.push(Event::Terminated);
        }
    }

    /// Sends `terminated` once, now, unless `disconnect` will.
    pub fn terminated_now(&mut self) {
        if !self.terminated && !self.disconnecting {
            self.terminated = true;
            self.out.event(Event::Terminated);
        }
    }

    // ---- the stop ----------------------------------------------------------

    pub fn draw_stop(&self) -> Result<&DrawStop, Error> {
        match &self.state {
            State::Stopped(s) => Ok(s),
            State::Halted(_) => Err(Error::OutsideDraw),
            _ => Err(Error::NotStopped),
        }
    }

    /// The current thread's recording.
    pub fn stopped(&self) -> Result<&Stopped, Error> {
        Ok(self.draw_stop()?.cur())
    }

    pub fn thread_at(&self, t: usize) -> Result<&Stopped, Error> {
        self.draw_stop()?
            .thread(t)
            .ok_or(Error::NotRecorded(t as i64 + 1))
    }

    /// Makes thread `thread` (an id) current, recording its invocation the
    /// first time; its index.
    pub fn ensure_thread(&mut self, thread: i64) -> Result<usize, Error> {
        let (i, todo) = {
            let ds = self.draw_stop()?;
            let i = usize::try_from(thread - 1)
                .ok()
                .filter(|&i| i < ds.invocations.len())
                .ok_or(Error::NoThread(thread))?;
            (i, ds.thread(i).is_none().then(|| ds.invocations[i]))
        };
        if let Some(hit) = todo {
            let invocation = hit.invocation.to_string();
            let stop = self
                .call(Some(&format!("Recording {invocation}")), move |s| {
                    s.record_hit(hit)
                })?
                .map_err(|source| Error::Record { invocation, source })?;
            if let State::Stopped(ds) = &mut self.state {
                ds.threads[i] = Some(Stopped::new(Box::new(stop)));
            }
        }
        if let State::Stopped(ds) = &mut self.state {
            ds.current = i;
        }
        Ok(i)
    }

    /// The thread index and step a frame id stands for (step `None`: the label frame).
    pub fn frame_step(&mut self, frame_id: i64) -> Result<(usize, Option<usize>), Error> {
        let (t, level) = decode_frame(frame_id).ok_or(Error::NoFrame(frame_id))?;
        self.ensure_thread(t as i64 + 1)?;
        let Some(level) = level else {
            return Ok((t, None));
        };
        match self.stopped()?.frame_steps().get(level) {
            Some(Some(step)) => Ok((t, Some(*step))),
            Some(None) => Err(Error::NoFrameStep(frame_id)),
            None => Err(Error::NoFrame(frame_id)),
        }
    }

    /// The thread and step of an optional frame (the current thread's cursor without one).
    pub fn frame_or_cursor(&mut self, frame_id: Option<i64>) -> Result<(usize, usize), Error> {
        let (t, step) = match frame_id {
            Some(f) => self.frame_step(f)?,
            None => {
                let ds = self.draw_stop().map_err(|e| match e {
                    Error::OutsideDraw => e,
                    _ => Error::NoValues,
                })?;
                (ds.current, Some(ds.cur().cursor))
            }
        };
        Ok((t, step.ok_or(Error::LabelFrame)?))
    }

    /// The trace call of draw `draw` of frame `frame` of the recording
    /// replayed, as `apitrace dump` numbers it (`None`: not a recording, or
    /// no such call).
    pub fn trace_call(&mut self, frame: u64, draw: u64) -> Option<u64> {
        let trace = self.plan.as_ref()?.trace.clone()?;
        let dump = self.dump.get_or_insert_with(|| {
            DumpFrames::of(&trace)
                .inspect_err(|e| tracing::warn!("reading the trace's frames: {e}"))
                .ok()
        });
        dump.as_ref()?.call(frame, draw)
    }

    // ---- sources -------------------------------------------------------------

    /// The source a file is shown as: the client's own, a `sourceReference`
    /// source for shader texts, else the path.
    pub fn source_of_file(&self, f: &Path) -> Source {
        if let Some(s) = self.breakpoints.client_source(f) {
            let mut s = s.clone();
            if s.name.is_none() {
                s.name = s.path.as_deref().and_then(|p| source_of(p).name);
            }
            return s;
        }
        if let Some(s) = self
            .sources
            .reference_of_file(f)
            .and_then(|r| self.sources.source(r))
        {
            return s;
        }
        source_of(&f.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_ids() {
        assert_eq!(decode_frame(frame_id(0, 0)), Some((0, Some(0))));
        assert_eq!(decode_frame(frame_id(3, 2)), Some((3, Some(2))));
        assert_eq!(decode_frame(LABEL_BASE + 5), Some((5, None)));
        assert_eq!(decode_frame(0), None);
    }
}
