//! The adapter's state and the dispatch of every request: each one gets a
//! response (`success: false` with a message when it cannot be served), and
//! session events become DAP events.
//!
//! Order of a session: `initialize` (capabilities, then the `initialized`
//! event) -> `launch` (arguments checked, program resolved, nothing started
//! yet) -> `setBreakpoints`... -> `configurationDone`, which starts the
//! program: the session engine takes its breakpoint list at start, and DAP
//! clients send breakpoints between `initialized` and `configurationDone`.

use std::io::Write;
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use shaderdbg_protocol::StopFilter;
use shaderdbg_session::stop::{Location, Stop};
use shaderdbg_session::Event;

use crate::breakpoints::{source_of, Breakpoints};
use crate::engine::{Command, Engine, EngineEvent};
use crate::evaluate::EvalError;
use crate::framing::{self, FrameError};
use crate::launch::{self, Plan};
use crate::protocol::{self as p, arguments, Request};
use crate::stepping::{Move, Stopped};
use crate::variables::{parts, Handle, Handles, ScopeKind};
use crate::Input;

/// The frame id of the label frame ("draw D, frame F") under the GLSL frames.
const LABEL_FRAME: i64 = 1 << 30;
/// How long `disconnect` waits for the program to end after detaching or
/// killing it (to report its exit first), before answering anyway; clients
/// give up on a `disconnect` after a few seconds.
const DISCONNECT_WAIT: Duration = Duration::from_secs(2);

/// Writes messages with the adapter's sequence numbers.
struct Out<W: Write> {
    w: W,
    seq: i64,
    broken: bool,
}

impl<W: Write> Out<W> {
    fn send(&mut self, mut msg: Value) {
        self.seq += 1;
        msg["seq"] = json!(self.seq);
        tracing::debug!("<- {msg}");
        if let Err(e) = framing::write_frame(&mut self.w, &msg) {
            if !self.broken {
                tracing::warn!("cannot write to the client: {e}");
            }
            self.broken = true;
        }
    }

    fn event(&mut self, event: &str, body: Value) {
        let mut m = json!({"type": "event", "event": event});
        if !body.is_null() {
            m["body"] = body;
        }
        self.send(m);
    }

    fn respond(&mut self, request_seq: i64, command: &str, result: Result<Value, String>) {
        let mut m = json!({
            "type": "response",
            "request_seq": request_seq,
            "command": command,
            "success": result.is_ok(),
        });
        match result {
            Ok(body) if body.is_null() => {}
            Ok(body) => m["body"] = body,
            Err(message) => {
                tracing::info!("{command} failed: {message}");
                m["message"] = json!(message);
            }
        }
        self.send(m);
    }
}

enum State {
    NotStarted,
    Running,
    Stopped(Box<Stopped>),
    Exited,
}

/// Shaders shown by `sourceReference` (those without a file).
#[derive(Default)]
struct Sources {
    /// (shader, text); reference = index + 1.
    items: Vec<(u32, String)>,
}

impl Sources {
    fn reference(&mut self, stop: &Stop) -> i64 {
        let i = match self.items.iter().position(|(s, _)| *s == stop.shader) {
            Some(i) => {
                self.items[i].1 = stop.parsed.source.text.clone();
                i
            }
            None => {
                self.items
                    .push((stop.shader, stop.parsed.source.text.clone()));
                self.items.len() - 1
            }
        };
        i as i64 + 1
    }

    fn text(&self, reference: i64) -> Option<&str> {
        usize::try_from(reference - 1)
            .ok()
            .and_then(|i| self.items.get(i))
            .map(|(_, t)| t.as_str())
    }
}

pub struct Server<W: Write> {
    out: Out<W>,
    rx: Receiver<Input>,
    tx: Sender<Input>,
    initialized: bool,
    lines_start_at1: bool,
    plan: Option<Plan>,
    engine: Option<Engine>,
    state: State,
    breakpoints: Breakpoints,
    handles: Handles,
    sources: Sources,
    stops: u64,
    /// Started with a pixel and no breakpoints: every stop is at `main`.
    pixel_history: bool,
    terminated: bool,
    /// `disconnect` was answered: the loop ends.
    done: bool,
    /// `disconnect` is waiting for the program: `terminated` comes after its response.
    disconnecting: bool,
    /// Events to send after the response being built.
    after: Vec<(&'static str, Value)>,
}

type Reply = Result<Value, String>;

fn not_stopped() -> String {
    "the program is not stopped".into()
}

impl<W: Write> Server<W> {
    pub fn new(w: W, rx: Receiver<Input>, tx: Sender<Input>) -> Self {
        Server {
            out: Out {
                w,
                seq: 0,
                broken: false,
            },
            rx,
            tx,
            initialized: false,
            lines_start_at1: true,
            plan: None,
            engine: None,
            state: State::NotStarted,
            breakpoints: Breakpoints::default(),
            handles: Handles::default(),
            sources: Sources::default(),
            stops: 0,
            pixel_history: false,
            terminated: false,
            done: false,
            disconnecting: false,
            after: Vec::new(),
        }
    }

    /// Serves until `disconnect` or the end of the client's stream; then
    /// makes sure the program is not left waiting on a debugger.
    pub fn run(mut self) {
        while !self.done {
            let Ok(input) = self.rx.recv() else { break };
            match input {
                Input::Client(Ok(msg)) => self.message(msg),
                Input::Client(Err(e)) => self.bad_frame(e),
                Input::ClientGone => {
                    tracing::info!("the client closed the connection");
                    self.release(Command::Detach);
                    break;
                }
                Input::Engine(e) => self.engine_event(e),
            }
        }
        // A detached program still writes to our pipes: keep reading them
        // (and telling the client, while it listens) until it ends, so that
        // it is not killed by a broken pipe. Any stop still in flight is
        // resumed (`done`).
        self.done = true;
        while let Some(engine) = &self.engine {
            let finished = engine.finished();
            match self.rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Input::Engine(e)) => self.engine_event(e),
                Ok(_) => {}
                Err(_) if finished => break,
                Err(_) => {}
            }
        }
        if let Some(engine) = &mut self.engine {
            engine.join();
        }
    }

    fn bad_frame(&mut self, e: FrameError) {
        tracing::warn!("{e}");
        self.out.respond(0, "", Err(e.to_string()));
    }

    fn message(&mut self, msg: Value) {
        tracing::debug!("-> {msg}");
        let req: Request = match serde_json::from_value(msg.clone()) {
            Ok(r) => r,
            Err(e) => {
                if matches!(
                    msg.get("type").and_then(Value::as_str),
                    Some("response" | "event")
                ) {
                    tracing::debug!("ignoring a client {}", msg["type"]);
                    return;
                }
                let seq = msg.get("seq").and_then(Value::as_i64).unwrap_or(0);
                let command = msg.get("command").and_then(Value::as_str).unwrap_or("");
                self.out
                    .respond(seq, command, Err(format!("not a DAP request: {e}")));
                return;
            }
        };
        if req.kind != "request" {
            tracing::debug!("ignoring a client {}", req.kind);
            return;
        }
        let result =
            if !self.initialized && !matches!(req.command.as_str(), "initialize" | "disconnect") {
                Err(format!(
                    "`{}` before `initialize`: the adapter must be initialized first",
                    req.command
                ))
            } else {
                self.request(&req)
            };
        if req.command == "disconnect" && result.is_ok() {
            self.finish_disconnect(&req);
            return;
        }
        self.out.respond(req.seq, &req.command, result);
        for (event, body) in std::mem::take(&mut self.after) {
            self.out.event(event, body);
        }
    }

    fn request(&mut self, req: &Request) -> Reply {
        match req.command.as_str() {
            "initialize" => self.initialize(req),
            "launch" => self.launch(req),
            "attach" => Err("attach is not supported: use launch".into()),
            "setBreakpoints" => self.set_breakpoints(req),
            "setExceptionBreakpoints" => {
                let a: p::SetExceptionBreakpointsArguments = arguments(req)?;
                if a.filters.is_empty() {
                    Ok(json!({"breakpoints": []}))
                } else {
                    Err("no exception filters are supported yet".into())
                }
            }
            "configurationDone" => self.configuration_done(),
            "threads" => Ok(self.threads()),
            "stackTrace" => self.stack_trace(req),
            "scopes" => self.scopes(req),
            "variables" => self.variables(req),
            "evaluate" => self.evaluate(req),
            "source" => self.source(req),
            "next" => self.step(req, Move::Over),
            "stepIn" => self.step(req, Move::In),
            "stepOut" => self.step(req, Move::Out),
            "stepBack" => self.step(req, Move::Back),
            "continue" => self.continue_(req),
            "reverseContinue" => self.reverse_continue(req),
            "pause" => {
                let _: p::ThreadArguments = arguments(req)?;
                Err("pause is not supported: the program stops only where a breakpoint (or the launch pixel) is hit".into())
            }
            "terminate" => self.terminate(),
            "disconnect" => {
                let _: p::DisconnectArguments = arguments(req)?;
                Ok(Value::Null)
            }
            other => Err(format!("unknown or unsupported command `{other}`")),
        }
    }

    // ---- lines ---------------------------------------------------------

    fn line_out(&self, line: u32) -> i64 {
        i64::from(line) - i64::from(!self.lines_start_at1)
    }

    fn line_in(&self, line: i64) -> i64 {
        line + i64::from(!self.lines_start_at1)
    }

    // ---- configuration -------------------------------------------------

    fn initialize(&mut self, req: &Request) -> Reply {
        if self.initialized {
            return Err("already initialized".into());
        }
        let a: p::InitializeArguments = arguments(req)?;
        tracing::info!(client = ?a.client_id, adapter = ?a.adapter_id, "initialize");
        self.lines_start_at1 = a.lines_start_at1.unwrap_or(true);
        self.initialized = true;
        self.after.push(("initialized", Value::Null));
        let caps = p::Capabilities {
            supports_configuration_done_request: true,
            supports_conditional_breakpoints: true,
            supports_step_back: true,
            supports_evaluate_for_hovers: true,
            supports_terminate_request: true,
            support_terminate_debuggee: true,
            exception_breakpoint_filters: Vec::new(),
        };
        serde_json::to_value(caps).map_err(|e| e.to_string())
    }

    fn launch(&mut self, req: &Request) -> Reply {
        if self.plan.is_some() {
            return Err("already launched".into());
        }
        let a: p::LaunchArguments = arguments(req)?;
        let plan = launch::plan(a).map_err(|e| format!("cannot launch: {e}"))?;
        tracing::info!(program = %plan.config.program.display(), "launch planned; starts at configurationDone");
        self.plan = Some(plan);
        Ok(Value::Null)
    }

    fn set_breakpoints(&mut self, req: &Request) -> Reply {
        let mut a: p::SetBreakpointsArguments = arguments(req)?;
        let mut requested = a.breakpoints.take().unwrap_or_else(|| {
            a.lines
                .clone()
                .unwrap_or_default()
                .into_iter()
                .map(|line| p::SourceBreakpoint {
                    line,
                    column: None,
                    condition: None,
                    hit_condition: None,
                    log_message: None,
                })
                .collect()
        });
        for b in &mut requested {
            b.line = self.line_in(b.line);
        }
        let mut answer = self.breakpoints.set(&a.source, &requested);
        for b in &mut answer {
            b.line = b.line.map(|l| l - i64::from(!self.lines_start_at1));
        }
        Ok(json!({ "breakpoints": answer }))
    }

    fn configuration_done(&mut self) -> Reply {
        let Some(plan) = self.plan.clone() else {
            return Err("`launch` first: configurationDone starts the launched program".into());
        };
        if self.engine.is_some() {
            return Err("the program has already started".into());
        }
        let mut breakpoints = self.breakpoints.launch_list();
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
        self.engine = Some(Engine::start(
            plan.config,
            breakpoints,
            filter,
            self.tx.clone(),
        ));
        self.state = State::Running;
        Ok(Value::Null)
    }

    // ---- the stop --------------------------------------------------------

    fn stopped(&self) -> Result<&Stopped, String> {
        match &self.state {
            State::Stopped(s) => Ok(s),
            _ => Err(not_stopped()),
        }
    }

    /// The stop, for a request on `thread`: only the recorded invocation
    /// (thread 1) has a trace.
    fn stopped_thread(&self, thread: i64) -> Result<&Stopped, String> {
        let s = self.stopped()?;
        match thread {
            1 => Ok(s),
            t if t >= 2 && (t as usize) <= s.invocations.len() => Err(format!(
                "{} is not recorded yet: the session engine records only the first invocation that hit (thread 1)",
                shaderdbg_session::stop::invocation_name_of(s.stop.stage, s.invocations[t as usize - 1])
            )),
            t => Err(format!("no thread {t}")),
        }
    }

    fn threads(&self) -> Value {
        let threads: Vec<p::Thread> = match &self.state {
            State::Stopped(s) => s
                .threads()
                .into_iter()
                .map(|(id, name)| p::Thread { id, name })
                .collect(),
            State::Running | State::NotStarted => vec![p::Thread {
                id: 1,
                name: "shader invocations (running)".into(),
            }],
            State::Exited => Vec::new(),
        };
        json!({ "threads": threads })
    }

    fn source_for(&mut self, loc: &Location) -> Option<p::Source> {
        let State::Stopped(s) = &self.state else {
            return None;
        };
        match &loc.file {
            Some(f) => {
                let path = self
                    .breakpoints
                    .client_path(f)
                    .map_or_else(|| f.display().to_string(), str::to_string);
                Some(source_of(&path))
            }
            None => {
                let name = format!("shader {} ({})", s.stop.shader, s.stop.stage);
                let r = self.sources.reference(&s.stop);
                Some(p::Source {
                    name: Some(name),
                    source_reference: Some(r),
                    ..Default::default()
                })
            }
        }
    }

    fn stack_trace(&mut self, req: &Request) -> Reply {
        let a: p::StackTraceArguments = arguments(req)?;
        let s = self.stopped_thread(a.thread_id)?;
        let stack = s.stop.call_stack(s.cursor);
        let label = format!("draw {}, frame {}", s.stop.draw, s.stop.frame);
        let mut frames = Vec::new();
        for (level, (name, loc)) in stack.iter().enumerate() {
            let source = self.source_for(loc);
            frames.push(p::StackFrame {
                id: level as i64 + 1,
                name: name.clone(),
                source,
                line: self.line_out(loc.line),
                column: 1,
                presentation_hint: None,
            });
        }
        frames.push(p::StackFrame {
            id: LABEL_FRAME,
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
        Ok(json!({ "stackFrames": frames, "totalFrames": total }))
    }

    /// The step a frame id stands for (`None`: the label frame).
    fn frame_step(&self, frame_id: i64) -> Result<Option<usize>, String> {
        let s = self.stopped()?;
        if frame_id == LABEL_FRAME {
            return Ok(None);
        }
        let steps = s.frame_steps();
        let level = usize::try_from(frame_id - 1).map_err(|_| format!("no frame {frame_id}"))?;
        match steps.get(level) {
            Some(Some(step)) => Ok(Some(*step)),
            Some(None) => Err(format!("frame {frame_id} has no recorded step")),
            None => Err(format!("no frame {frame_id}")),
        }
    }

    fn scopes(&mut self, req: &Request) -> Reply {
        let a: p::ScopesArguments = arguments(req)?;
        let Some(step) = self.frame_step(a.frame_id)? else {
            return Ok(json!({ "scopes": [] }));
        };
        let vars = self.stopped()?.variables(step);
        let mut scopes = Vec::new();
        for kind in ScopeKind::ALL {
            let n = vars.iter().filter(|v| kind.holds(v.scope)).count();
            if kind == ScopeKind::Globals && n == 0 {
                continue;
            }
            let r = self.handles.add(Handle::Scope { step, scope: kind });
            scopes.push(p::Scope {
                name: kind.name().into(),
                presentation_hint: (kind == ScopeKind::Locals).then(|| "locals".to_string()),
                variables_reference: r,
                named_variables: n,
                expensive: false,
            });
        }
        Ok(json!({ "scopes": scopes }))
    }

    fn variables(&mut self, req: &Request) -> Reply {
        let a: p::VariablesArguments = arguments(req)?;
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
            Handle::Scope { step, scope } => {
                let vars = self.stopped()?.variables(step);
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
        Ok(json!({ "variables": out }))
    }

    fn evaluate(&mut self, req: &Request) -> Reply {
        let a: p::EvaluateArguments = arguments(req)?;
        let step = match a.frame_id {
            Some(f) => self.frame_step(f)?,
            None => Some(
                self.stopped()
                    .map_err(|_| {
                        "the program is not stopped: there are no values to evaluate over"
                            .to_string()
                    })?
                    .cursor,
            ),
        };
        let Some(step) = step else {
            return Err("the draw's frame has no values: pick a shader frame".into());
        };
        let s = self.stopped()?;
        let expr = a.expression.trim();
        match s.evaluate(expr, step) {
            Ok(t) => {
                let v = self.handles.variable(expr, &t.ty, Some(&t.value), expr);
                Ok(json!({
                    "result": v.value,
                    "type": v.ty,
                    "variablesReference": v.variables_reference,
                }))
            }
            Err(EvalError::Unsupported(m)) => Err(format!("cannot evaluate `{expr}` yet: {m}")),
            Err(EvalError::Invalid(m)) => Err(m),
        }
    }

    fn source(&mut self, req: &Request) -> Reply {
        let a: p::SourceArguments = arguments(req)?;
        let r = a
            .source
            .as_ref()
            .and_then(|s| s.source_reference)
            .or(a.source_reference)
            .filter(|&r| r > 0)
            .ok_or("`source` needs a sourceReference")?;
        let text = self
            .sources
            .text(r)
            .ok_or_else(|| format!("no source {r}"))?;
        Ok(json!({ "content": text, "mimeType": "text/x-glsl" }))
    }

    // ---- moving ----------------------------------------------------------

    /// Puts the cursor at `step` and tells the client.
    fn move_to(&mut self, step: usize, reason: &str) {
        let hit_ids = {
            let State::Stopped(s) = &mut self.state else {
                return;
            };
            s.cursor = step;
            self.hit_ids(step)
        };
        self.handles.clear();
        let mut body = json!({"reason": reason, "threadId": 1, "allThreadsStopped": true});
        if reason == "breakpoint" && !hit_ids.is_empty() {
            body["hitBreakpointIds"] = json!(hit_ids);
        }
        self.after.push(("stopped", body));
    }

    fn hit_ids(&self, step: usize) -> Vec<i64> {
        let State::Stopped(s) = &self.state else {
            return Vec::new();
        };
        let loc = s.stop.location(step);
        loc.file
            .as_deref()
            .map(|f| {
                self.breakpoints
                    .at(f, loc.line)
                    .iter()
                    .map(|e| e.id)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn step(&mut self, req: &Request, m: Move) -> Reply {
        let a: p::ThreadArguments = arguments(req)?;
        let s = self.stopped_thread(a.thread_id)?;
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

    fn continue_(&mut self, req: &Request) -> Reply {
        let _: p::ThreadArguments = arguments(req)?;
        let next = match &self.state {
            State::Stopped(s) => s.next_breakpoint(&self.breakpoints),
            State::Running => return Ok(json!({"allThreadsContinued": true})),
            _ => return Err(not_stopped()),
        };
        match next {
            Some(step) => {
                self.move_to(step, "breakpoint");
                Ok(json!({"allThreadsContinued": false}))
            }
            None => {
                self.resume();
                Ok(json!({"allThreadsContinued": true}))
            }
        }
    }

    fn reverse_continue(&mut self, req: &Request) -> Reply {
        let a: p::ThreadArguments = arguments(req)?;
        let s = self.stopped_thread(a.thread_id)?;
        match s.previous_breakpoint(&self.breakpoints) {
            Some(step) => self.move_to(step, "breakpoint"),
            None => self.move_to(0, "step"),
        }
        Ok(Value::Null)
    }

    fn resume(&mut self) {
        self.handles.clear();
        self.state = State::Running;
        if let Some(e) = &self.engine {
            e.send(Command::Resume);
        }
    }

    // ---- ending ----------------------------------------------------------

    fn terminate(&mut self) -> Reply {
        match &self.engine {
            Some(e) if !matches!(self.state, State::Exited) => {
                // exited + terminated follow when the engine reports the exit.
                e.send(Command::Kill);
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
    fn release(&mut self, how: Command) {
        if let Some(e) = &self.engine {
            if !matches!(self.state, State::Exited) && !e.finished() {
                e.send(how);
                if matches!(self.state, State::Stopped(_)) {
                    self.state = State::Running;
                }
            }
        }
    }

    /// `disconnect`: detach (or kill, with `terminateDebuggee`), wait a
    /// while for the program to end (reporting its exit), answer, then
    /// `terminated`.
    fn finish_disconnect(&mut self, req: &Request) {
        let a: p::DisconnectArguments = arguments(req).unwrap_or_default();
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
        self.out.respond(req.seq, &req.command, Ok(Value::Null));
        if !self.terminated {
            self.terminated = true;
            self.out.event("terminated", Value::Null);
        }
        self.done = true;
    }

    // ---- session events --------------------------------------------------

    fn engine_event(&mut self, e: EngineEvent) {
        match e {
            EngineEvent::Started { pid } => {
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

    fn session_event(&mut self, ev: Event) {
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

    fn on_stop(&mut self, stop: Box<Stop>) {
        let from_breakpoint = !self.pixel_history;
        if self.done {
            self.resume();
            return;
        }
        let mut stopped = Stopped::new(stop);
        // A breakpoint removed (or its condition changed) since the program
        // started still stops the program (the engine cannot change its
        // list): not a stop for the user.
        if from_breakpoint && !stopped.breaks_at(stopped.cursor, &self.breakpoints) {
            tracing::info!("stop at a breakpoint that is no longer set: resuming");
            self.resume();
            return;
        }
        let stop = &stopped.stop;
        self.stops += 1;
        let entry = self.stops == 1 && self.plan.as_ref().is_some_and(|p| p.stop_on_entry);
        let invocations = stop
            .hits
            .iter()
            .map(|h| h.key)
            .collect::<std::collections::HashSet<_>>()
            .len();
        let description = format!(
            "{} at draw {}, frame {} ({invocations} invocation{} hit)",
            stop.invocation_name(),
            stop.draw,
            stop.frame,
            if invocations == 1 { "" } else { "s" }
        );
        if entry {
            stopped.cursor = 0;
        }
        self.handles.clear();
        let cursor = stopped.cursor;
        self.state = State::Stopped(Box::new(stopped));
        let reason = if entry {
            "entry"
        } else if from_breakpoint {
            "breakpoint"
        } else {
            // Every draw covering the launch pixel stops at `main`.
            "pixel history"
        };
        let mut body = json!({
            "reason": reason,
            "description": description,
            "threadId": 1,
            "allThreadsStopped": true,
        });
        let ids = self.hit_ids(cursor);
        if reason == "breakpoint" && !ids.is_empty() {
            body["hitBreakpointIds"] = json!(ids);
        }
        self.out.event("stopped", body);
    }
}
