//! Lifecycle requests: `initialize`, `launch`, `configurationDone`, `terminate`, `disconnect`.

use crate::dispatch::*;

impl<W: Write> Server<W> {
    pub(in crate::dispatch) fn initialize(&mut self, a: p::InitializeArguments) -> Reply {
        if self.initialized {
            return Err("already initialized".into());
        }
        tracing::info!(client = ?a.client_id, adapter = ?a.adapter_id, "initialize");
        self.lines_start_at1 = a.lines_start_at1.unwrap_or(true);
        self.progress = a.supports_progress_reporting.unwrap_or(false);
        self.initialized = true;
        self.after.push(("initialized", Value::Null));
        let caps = p::Capabilities {
            supports_configuration_done_request: true,
            supports_conditional_breakpoints: true,
            supports_hit_conditional_breakpoints: true,
            supports_log_points: true,
            supports_step_back: true,
            supports_evaluate_for_hovers: true,
            supports_terminate_request: true,
            support_terminate_debuggee: true,
            supports_loaded_sources_request: true,
            exception_breakpoint_filters: exception_filters(),
        };
        json_body(caps)
    }

    pub(in crate::dispatch) fn launch(&mut self, a: p::LaunchArguments) -> Reply {
        if self.plan.is_some() {
            return Err("already launched".into());
        }
        let plan = launch::plan(a).map_err(|e| format!("cannot launch: {e}"))?;
        tracing::info!(program = %plan.config.program.display(), "launch planned; starts at configurationDone");
        self.plan = Some(plan);
        Ok(Value::Null)
    }

    pub(in crate::dispatch) fn configuration_done(&mut self) -> Reply {
        let Some(plan) = self.plan.clone() else {
            return Err("`launch` first: configurationDone starts the launched program".into());
        };
        if self.engine.is_some() {
            return Err("the program has already started".into());
        }
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
        let id = self.progress_start(&title);
        self.launch_progress = id;
        self.engine = Some(Engine::start(
            plan.config,
            breakpoints,
            filter,
            init,
            self.tx.clone(),
        ));
        self.state = State::Running;
        Ok(Value::Null)
    }

    pub(in crate::dispatch) fn terminate(&mut self) -> Reply {
        match &self.engine {
            Some(e) if !matches!(self.state, State::Exited) => {
                // exited + terminated follow when the engine reports the exit.
                e.send(EngineCommand::Kill);
            }
            _ => {
                if !self.terminated {
                    self.terminated = true;
                    self.after.push(("terminated", Value::Null));
                }
            }
        }
        Ok(Value::Null)
    }

    /// Detaches from (or kills) the program if it still runs.
    pub(in crate::dispatch) fn release(&mut self, how: EngineCommand) {
        if let Some(e) = &self.engine {
            if !matches!(self.state, State::Exited) && !e.finished() {
                e.send(how);
                if matches!(self.state, State::Stopped(_) | State::Halted(_)) {
                    self.state = State::Running;
                }
            }
        }
    }

    /// `disconnect`: detach (or kill, with `terminateDebuggee`), wait a
    /// while for the program to end (reporting its exit), answer, then
    /// `terminated`.
    pub(in crate::dispatch) fn finish_disconnect(
        &mut self,
        req: &Request,
        a: p::DisconnectArguments,
    ) {
        let how = if a.terminate_debuggee == Some(true) {
            EngineCommand::Kill
        } else {
            EngineCommand::Detach
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
        self.out.respond(req.seq, &req.command, Ok(Value::Null));
        if !self.terminated {
            self.terminated = true;
            self.out.event("terminated", Value::Null);
        }
        self.done = true;
    }
}
