//! `initialize`, `launch`, `attach`, `configurationDone`, `disconnect`,
//! `terminate`.
//!
//! Order of a session: `initialize` (capabilities, then the `initialized`
//! event) -> `launch` (arguments checked, program resolved, nothing started
//! yet) -> `setBreakpoints`... -> `configurationDone`, which starts the
//! program with the breakpoints set so far. `restart` ends it and starts
//! it again (see [`crate::restart`]).

use std::io::Write;
use std::time::{Duration, Instant};

use shaderdbg_session::{ExceptionFilters, Session, StopFilter};

use crate::engine::{Command, Engine, Job};
use crate::error::Error;
use crate::handlers::breakpoints::exception_filters;
use crate::launch;
use crate::protocol::{
    Capabilities, DisconnectArguments, Event, InitializeRequestArguments, LaunchArguments,
    RestartArguments,
};
use crate::restart::{Seek, StopKey};
use crate::state::{Adapter, State};
use crate::Input;

/// How long `disconnect` waits for the program to end after detaching or
/// killing it (to report its exit first), before answering anyway; clients
/// give up on a `disconnect` after a few seconds.
const DISCONNECT_WAIT: Duration = Duration::from_secs(2);

/// How long `restart` waits for the killed program's session to end.
const RESTART_WAIT: Duration = Duration::from_secs(10);

impl<W: Write> Adapter<W> {
    pub fn initialize(&mut self, a: InitializeRequestArguments) -> Result<Capabilities, Error> {
        if self.initialized {
            return Err(Error::AlreadyInitialized);
        }
        tracing::info!(client = ?a.client_id, adapter = ?a.adapter_id, "initialize");
        self.lines_start_at1 = a.lines_start_at1.unwrap_or(true);
        self.progress = a.supports_progress_reporting.unwrap_or(false);
        self.initialized = true;
        self.after.push(Event::Initialized);
        // Only what works is declared; everything left out is false.
        Ok(Capabilities {
            supports_configuration_done_request: Some(true),
            supports_conditional_breakpoints: Some(true),
            supports_hit_conditional_breakpoints: Some(true),
            supports_log_points: Some(true),
            supports_step_back: Some(true),
            supports_evaluate_for_hovers: Some(true),
            supports_terminate_request: Some(true),
            support_terminate_debuggee: Some(true),
            supports_loaded_sources_request: Some(true),
            supports_restart_request: Some(true),
            exception_breakpoint_filters: Some(exception_filters()),
        })
    }

    pub fn launch(&mut self, a: LaunchArguments) -> Result<(), Error> {
        if self.plan.is_some() {
            return Err(Error::AlreadyLaunched);
        }
        let plan = launch::plan(a)?;
        tracing::info!(program = %plan.config.program.display(), "launch planned; starts at configurationDone");
        self.plan = Some(plan);
        Ok(())
    }

    pub fn configuration_done(&mut self) -> Result<(), Error> {
        let Some(plan) = self.plan.clone() else {
            return Err(Error::NotLaunched);
        };
        if self.engine.is_some() {
            return Err(Error::AlreadyStarted);
        }
        self.start(plan);
        Ok(())
    }

    /// Starts the planned program with the breakpoints and filters set now.
    fn start(&mut self, plan: launch::Plan) {
        let mut breakpoints = self.breakpoints.list();
        if plan.no_debug {
            breakpoints.clear();
        }
        let filter = StopFilter {
            frame: plan.frame,
            pixel: plan.pixel,
            pixel_history: plan.pixel.is_some() && breakpoints.is_empty(),
        };
        tracing::info!(
            ?filter,
            breakpoints = breakpoints.len(),
            "starting the program"
        );
        self.pixel_history = filter.pixel_history;
        let exceptions = if plan.no_debug {
            ExceptionFilters::default()
        } else {
            self.exception_filter_state()
        };
        let shader_file = plan.shader_file.clone();
        let init: Job = Box::new(move |s: &mut Session| {
            if let Some(f) = shader_file {
                s.add_source_file(f);
            }
            if exceptions != ExceptionFilters::default() {
                s.set_exception_filters(exceptions);
            }
        });
        let title = format!("Launching {}", plan.config.program.display());
        self.launch_progress = self.progress_start(&title);
        self.engine = Some(Engine::start(
            plan.config,
            breakpoints,
            filter,
            init,
            self.tx.clone(),
        ));
        self.state = State::Running;
    }

    /// `restart`: a recording (`.trace`) is replayed again and the session
    /// brought back to the stop shown now ([`crate::restart`]); a live
    /// program starts again from the beginning. The launch configuration
    /// the client sends with it, if any, replaces the first one.
    pub fn restart(&mut self, a: RestartArguments) -> Result<(), Error> {
        if !self.live() {
            return Err(Error::NotRunning);
        }
        let plan = match a.arguments {
            Some(args) => launch::plan(args)?,
            None => self.plan.clone().ok_or(Error::NotLaunched)?,
        };
        let seek = match &self.state {
            State::Stopped(ds) if plan.trace.is_some() => Some(Seek {
                ordinal: self.stops,
                key: StopKey::of(&ds.first().stop),
                cursor: ds.first().cursor,
            }),
            _ => None,
        };
        self.end_for_restart();
        let what = match (&plan.trace, &seek) {
            (Some(t), Some(s)) => format!(
                "replaying {} again, back to stop {} ({})",
                t.display(),
                s.ordinal,
                s.key
            ),
            (Some(t), None) => format!("replaying {} again", t.display()),
            (None, _) => format!("restarting {}", plan.config.program.display()),
        };
        self.out.event(Event::console(format!("{what}\n")));
        self.relaunch(plan, seek);
        Ok(())
    }

    /// Starts `plan` afresh in place of the ended program; `seek`: the stop
    /// to come back to.
    pub(crate) fn relaunch(&mut self, plan: launch::Plan, seek: Option<Seek>) {
        self.stops = 0;
        self.pixel_debug = None;
        self.handles.clear();
        self.seek = seek;
        if self.plan.as_ref().map(|p| &p.trace) != Some(&plan.trace) {
            self.dump = None;
        }
        self.plan = Some(plan.clone());
        self.start(plan);
    }

    /// Ends the program for a restart and waits for its session to end;
    /// its exit is not reported (the session goes on), stops that come
    /// meanwhile are resumed, client requests wait their turn.
    pub(crate) fn end_for_restart(&mut self) {
        self.restarting = true;
        self.seek = None;
        if let Some(e) = &self.engine {
            if !e.finished() {
                e.send(Command::Kill);
            }
        }
        let mut deferred = Vec::new();
        let deadline = Instant::now() + RESTART_WAIT;
        loop {
            let finished = self.engine.as_ref().is_none_or(Engine::finished);
            match self.rx.recv_timeout(Duration::from_millis(20)) {
                Ok(Input::Engine(e)) => self.engine_event(e),
                Ok(other) => deferred.push(other),
                Err(_) if finished || Instant::now() > deadline => break,
                Err(_) => {}
            }
        }
        if let Some(mut e) = self.engine.take() {
            if e.finished() {
                e.join();
            } else {
                tracing::warn!("the program did not end in {RESTART_WAIT:?}; starting anew anyway");
            }
        }
        for input in deferred {
            let _ = self.tx.send(input);
        }
        self.state = State::NotStarted;
        self.restarting = false;
    }

    /// `terminate`: kill the program; `exited` and `terminated` follow when
    /// the engine reports the exit.
    pub fn terminate(&mut self) -> Result<(), Error> {
        match &self.engine {
            Some(e) if !matches!(self.state, State::Exited) => e.send(Command::Kill),
            _ => self.terminated_after(),
        }
        Ok(())
    }

    /// `disconnect`: detach (or kill, with `terminateDebuggee`), wait a
    /// while for the program to end (reporting its exit), then answer and
    /// send `terminated`; the adapter ends.
    pub fn disconnect(&mut self, a: DisconnectArguments) -> Result<(), Error> {
        let how = if a.terminate_debuggee == Some(true) {
            Command::Kill
        } else {
            Command::Detach
        };
        self.release(how);
        self.disconnecting = true;
        let deadline = Instant::now() + DISCONNECT_WAIT;
        while self.engine.is_some() && !matches!(self.state, State::Exited | State::NotStarted) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Input::Engine(e)) => self.engine_event(e),
                Ok(Input::Client(_)) => tracing::debug!("ignoring a message after disconnect"),
                Ok(Input::ClientGone) => {}
                Err(_) => break,
            }
        }
        self.terminated_after();
        self.done = true;
        Ok(())
    }
}
