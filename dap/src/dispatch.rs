//! The adapter's state and the dispatch of every request: each one gets a
//! response (`success: false` with a message when it cannot be served), and
//! session events become DAP events.
//!
//! Order of a session: `initialize` (capabilities, then the `initialized`
//! event) -> `launch` (arguments checked, program resolved, nothing started
//! yet) -> `setBreakpoints`... -> `configurationDone`, which starts the
//! program with the breakpoints set so far; `setBreakpoints` later changes
//! the running program's list.
//!
//! A stop at a draw shows one thread per invocation that hit; thread 1 is
//! the one recorded with the stop, others are recorded when first asked for
//! (`stackTrace`, a step). Frame ids name the thread: `thread_index *
//! 65536 + level + 1`, and `2^30 + thread_index` for the draw's label frame.
//! Logpoints and hit counts are the session engine's decisions
//! (`shaderdbg_session::breakpoints`); the adapter shows their results.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use shaderdbg_session::stop::{Location, Stop};
use shaderdbg_session::{
    eval, Event, ExceptionFilters, Halt, ScreenshotAt, Session, SessionError, StopFilter,
    StopReason,
};

use crate::breakpoints::{source_of, Breakpoints};
use crate::custom;
use crate::engine::{Command, Engine, EngineEvent, Job};
use crate::evaluate::{self, EvalError};
use crate::framing::{self, FrameError};
use crate::launch::{self, Plan};
use crate::protocol::{self as p, arguments, Request};
use crate::stepping::{DrawStop, Move, Stopped};
use crate::variables::{parts, Handle, Handles, ScopeKind};
use crate::Input;

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
    Stopped(Box<DrawStop>),
    /// Blocked outside a draw (a compile error, a GL error).
    Halted(Box<Halted>),
    Exited,
}

struct Halted {
    halt: Halt,
    /// Where a compile error is shown.
    source: Option<p::Source>,
}

/// A shader without a file of its own, shown by `sourceReference`.
struct SourceItem {
    shader: u32,
    name: String,
    text: String,
    /// The text written out, so that breakpoints set in it bind by content.
    file: Option<PathBuf>,
}

/// Shaders shown by `sourceReference` (those without a file).
#[derive(Default)]
struct Sources {
    /// Reference = index + 1.
    items: Vec<SourceItem>,
    dir: Option<PathBuf>,
}

impl Sources {
    fn reference(&mut self, shader: u32, name: String, text: &str) -> i64 {
        let i = match self.items.iter().position(|it| it.shader == shader) {
            Some(i) => {
                if self.items[i].text != text {
                    self.items[i].text = text.to_string();
                    self.items[i].file = None;
                }
                i
            }
            None => {
                self.items.push(SourceItem {
                    shader,
                    name,
                    text: text.to_string(),
                    file: None,
                });
                self.items.len() - 1
            }
        };
        i as i64 + 1
    }

    fn item(&self, reference: i64) -> Option<&SourceItem> {
        usize::try_from(reference - 1)
            .ok()
            .and_then(|i| self.items.get(i))
    }

    fn source(&self, reference: i64) -> Option<p::Source> {
        self.item(reference).map(|it| p::Source {
            name: Some(it.name.clone()),
            source_reference: Some(reference),
            ..Default::default()
        })
    }

    /// The file breakpoints in a `sourceReference` source bind through.
    fn file(&mut self, reference: i64) -> Result<PathBuf, String> {
        let i = usize::try_from(reference - 1)
            .ok()
            .filter(|&i| i < self.items.len())
            .ok_or_else(|| format!("no source {reference}"))?;
        if let Some(f) = &self.items[i].file {
            return Ok(f.clone());
        }
        let dir = match &self.dir {
            Some(d) => d.clone(),
            None => {
                let d = std::env::temp_dir().join(format!("shaderdbg-dap-{}", std::process::id()));
                std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
                self.dir = Some(d.clone());
                d
            }
        };
        let it = &mut self.items[i];
        let path = dir.join(format!("shader-{}-{reference}.glsl", it.shader));
        std::fs::write(&path, &it.text).map_err(|e| format!("{}: {e}", path.display()))?;
        let path = path.canonicalize().unwrap_or(path);
        it.file = Some(path.clone());
        Ok(path)
    }

    /// The reference whose text was written to `file`.
    fn reference_of_file(&self, file: &Path) -> Option<i64> {
        self.items
            .iter()
            .position(|it| it.file.as_deref() == Some(file))
            .map(|i| i as i64 + 1)
    }
}

impl Drop for Sources {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Pixel history asked by `shaderdbg/debugPixel`.
struct PixelDebug {
    x: u32,
    y: u32,
    frame: u64,
    stops: u64,
}

pub struct Server<W: Write> {
    out: Out<W>,
    rx: Receiver<Input>,
    tx: Sender<Input>,
    initialized: bool,
    lines_start_at1: bool,
    progress: bool,
    next_progress: u64,
    plan: Option<Plan>,
    engine: Option<Engine>,
    state: State,
    breakpoints: Breakpoints,
    handles: Handles,
    sources: Sources,
    stops: u64,
    /// Started with a pixel and no breakpoints: every stop is at `main`.
    pixel_history: bool,
    pixel_debug: Option<PixelDebug>,
    exception_filters: Vec<String>,
    launch_progress: Option<String>,
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

const LABEL_BASE: i64 = 1 << 30;
const PER_THREAD: i64 = 1 << 16;

fn frame_id(thread: usize, level: usize) -> i64 {
    thread as i64 * PER_THREAD + level as i64 + 1
}

/// (thread index, level; `None`: the label frame).
fn decode_frame(id: i64) -> Option<(usize, Option<usize>)> {
    if id >= LABEL_BASE {
        return usize::try_from(id - LABEL_BASE).ok().map(|t| (t, None));
    }
    let id = usize::try_from(id.checked_sub(1)?).ok()?;
    Some((id / PER_THREAD as usize, Some(id % PER_THREAD as usize)))
}

/// GL error names.
fn gl_error_name(e: u32) -> &'static str {
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

/// The exception filters offered (`initialize`).
pub fn exception_filters() -> Vec<Value> {
    vec![
        json!({"filter": "nan_inf", "label": "NaN or Inf written to an output", "default": false}),
        json!({"filter": "gl_error", "label": "GL error", "default": false}),
        json!({"filter": "compile_error", "label": "Shader failed to compile", "default": false}),
    ]
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
            "setExceptionBreakpoints" => self.set_exception_breakpoints(req),
            "configurationDone" => self.configuration_done(),
            "threads" => Ok(self.threads()),
            "stackTrace" => self.stack_trace(req),
            "scopes" => self.scopes(req),
            "variables" => self.variables(req),
            "evaluate" => self.evaluate(req),
            "source" => self.source(req),
            "loadedSources" => self.loaded_sources(),
            "next" => self.step(req, Move::Over),
            "stepIn" => self.step(req, Move::In),
            "stepOut" => self.step(req, Move::Out),
            "stepBack" => self.step(req, Move::Back),
            "continue" => self.continue_(req),
            "reverseContinue" => self.reverse_continue(req),
            "pause" => self.pause(req),
            "terminate" => self.terminate(),
            "disconnect" => {
                let _: p::DisconnectArguments = arguments(req)?;
                Ok(Value::Null)
            }
            custom::FRAME_IMAGE => self.frame_image(),
            custom::DEBUG_PIXEL => self.debug_pixel(req),
            custom::VALUES_IMAGE => self.values_image(req),
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

    // ---- progress --------------------------------------------------------

    fn progress_start(&mut self, title: &str) -> Option<String> {
        if !self.progress {
            return None;
        }
        self.next_progress += 1;
        let id = format!("shaderdbg-{}", self.next_progress);
        self.out
            .event("progressStart", json!({"progressId": id, "title": title}));
        Some(id)
    }

    fn progress_end(&mut self, id: Option<String>) {
        if let Some(id) = id {
            self.out.event("progressEnd", json!({"progressId": id}));
        }
    }

    /// Runs `f` on the session, with progress events around it.
    fn call<T: Send + 'static>(
        &mut self,
        title: Option<&str>,
        f: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, String> {
        let engine = self.engine.as_ref().ok_or("the program has not started")?;
        if engine.finished() {
            return Err("the program has ended".into());
        }
        let id = title.and_then(|t| self.progress_start(t));
        let r = match &self.engine {
            Some(e) => e.call(f),
            None => Err("the program has not started".into()),
        };
        self.progress_end(id);
        r
    }

    // ---- configuration -------------------------------------------------

    fn initialize(&mut self, req: &Request) -> Reply {
        if self.initialized {
            return Err("already initialized".into());
        }
        let a: p::InitializeArguments = arguments(req)?;
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
        let file = match (&a.source.path, a.source.source_reference.filter(|&r| r > 0)) {
            (_, Some(r)) => self.sources.file(r),
            (Some(path), None) => Path::new(path)
                .canonicalize()
                .map_err(|e| format!("cannot read {path}: {e}")),
            (None, None) => Err("a source needs a path or a sourceReference".into()),
        };
        let mut answer = self.breakpoints.set(&a.source, file, &requested);
        for b in &mut answer {
            b.line = b.line.map(|l| l - i64::from(!self.lines_start_at1));
        }
        if self.engine.is_some() && !matches!(self.state, State::Exited) {
            let list = self.breakpoints.list();
            if self.call(None, move |s| s.set_breakpoints(list)).is_err() {
                tracing::debug!("breakpoints not sent: the program has ended");
            }
        }
        Ok(json!({ "breakpoints": answer }))
    }

    fn exception_filter_state(&self) -> ExceptionFilters {
        let on = |f: &str| self.exception_filters.iter().any(|x| x == f);
        ExceptionFilters {
            nan_inf: on("nan_inf"),
            gl_error: on("gl_error"),
            compile_error: on("compile_error"),
        }
    }

    fn set_exception_breakpoints(&mut self, req: &Request) -> Reply {
        let a: p::SetExceptionBreakpointsArguments = arguments(req)?;
        let known = ["nan_inf", "gl_error", "compile_error"];
        let mut answer = Vec::new();
        let mut filters = Vec::new();
        for f in &a.filters {
            if known.contains(&f.as_str()) {
                filters.push(f.clone());
                answer.push(json!({"verified": true}));
            } else {
                answer.push(json!({"verified": false, "message": format!("no exception filter `{f}` (there are {})", known.join(", "))}));
            }
        }
        let before = self.exception_filter_state();
        self.exception_filters = filters;
        let now = self.exception_filter_state();
        if now != before && self.engine.is_some() && !matches!(self.state, State::Exited) {
            let _ = self.call(None, move |s| s.set_exception_filters(now));
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
    // ---- the stop --------------------------------------------------------

    fn draw_stop(&self) -> Result<&DrawStop, String> {
        match &self.state {
            State::Stopped(s) => Ok(s),
            State::Halted(_) => {
                Err("stopped outside a draw: there are no shader values here".into())
            }
            _ => Err(not_stopped()),
        }
    }

    /// The current thread's recording.
    fn stopped(&self) -> Result<&Stopped, String> {
        Ok(self.draw_stop()?.cur())
    }

    /// Makes thread `thread` (an id) current, recording its invocation the
    /// first time; its index.
    fn ensure_thread(&mut self, thread: i64) -> Result<usize, String> {
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

    fn threads(&self) -> Value {
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
        json!({ "threads": threads })
    }

    /// The source a file is shown as: the client's own, a `sourceReference`
    /// source for shader texts, else the path.
    fn source_of_file(&self, f: &Path) -> p::Source {
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

    fn source_for(&mut self, thread: usize, loc: &Location) -> Option<p::Source> {
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

    fn stack_trace(&mut self, req: &Request) -> Reply {
        let a: p::StackTraceArguments = arguments(req)?;
        if let State::Halted(h) = &self.state {
            let frames = self.halt_frames(h);
            return Ok(json!({ "stackFrames": frames, "totalFrames": frames.len() }));
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
        Ok(json!({ "stackFrames": frames, "totalFrames": total }))
    }

    fn halt_frames(&self, h: &Halted) -> Vec<p::StackFrame> {
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
    fn frame_step(&mut self, frame_id: i64) -> Result<(usize, Option<usize>), String> {
        let (t, level) = decode_frame(frame_id).ok_or_else(|| format!("no frame {frame_id}"))?;
        self.ensure_thread(t as i64 + 1)?;
        let Some(level) = level else {
            return Ok((t, None));
        };
        let s = self.stopped()?;
        match s.frame_steps().get(level) {
            Some(Some(step)) => Ok((t, Some(*step))),
            Some(None) => Err(format!("frame {frame_id} has no recorded step")),
            None => Err(format!("no frame {frame_id}")),
        }
    }

    fn thread_at(&self, t: usize) -> Result<&Stopped, String> {
        self.draw_stop()?
            .thread(t)
            .ok_or_else(|| format!("thread {} is not recorded", t + 1))
    }

    fn scopes(&mut self, req: &Request) -> Reply {
        let a: p::ScopesArguments = arguments(req)?;
        if matches!(self.state, State::Halted(_)) {
            return Ok(json!({ "scopes": [] }));
        }
        let (thread, Some(step)) = self.frame_step(a.frame_id)? else {
            return Ok(json!({ "scopes": [] }));
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
        Ok(json!({ "variables": out }))
    }

    /// The thread and step of an optional frame (the current thread's cursor without one).
    fn frame_or_cursor(&mut self, frame_id: Option<i64>) -> Result<(usize, usize), String> {
        let (t, step) = match frame_id {
            Some(f) => self.frame_step(f)?,
            None => {
                let ds = self.draw_stop().map_err(|e| {
                    if matches!(self.state, State::Halted(_)) {
                        e
                    } else {
                        "the program is not stopped: there are no values to evaluate over"
                            .to_string()
                    }
                })?;
                (ds.current, Some(ds.cur().cursor))
            }
        };
        let step = step.ok_or("the draw's frame has no values: pick a shader frame")?;
        Ok((t, step))
    }

    fn evaluate(&mut self, req: &Request) -> Reply {
        let a: p::EvaluateArguments = arguments(req)?;
        let (t, step) = self.frame_or_cursor(a.frame_id)?;
        let expr = a.expression.trim();
        let result = {
            let s = self.thread_at(t)?;
            // What the CPU cannot evaluate faithfully (texture lookups,
            // derivatives) is watched on the GPU in the stopped draw.
            let engine = self.engine.as_ref().filter(|e| !e.finished());
            let mut gpu = engine.map(|e| {
                move |line: u32, text: &str| {
                    let text = text.to_string();
                    e.call(move |sess| sess.watch(line, &text))
                        .map_err(SessionError::Agent)
                        .and_then(|r| r)
                }
            });
            evaluate::evaluate_at(
                &s.stop,
                step,
                expr,
                gpu.as_mut().map(|g| g as &mut dyn eval::GpuWatch),
            )
        };
        match result {
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
        let item = self
            .sources
            .item(r)
            .ok_or_else(|| format!("no source {r}"))?;
        Ok(json!({ "content": item.text, "mimeType": "text/x-glsl" }))
    }

    /// Every shader the program compiled: its file, or a `sourceReference`.
    fn loaded_sources(&mut self) -> Reply {
        if self.engine.is_none() {
            return Ok(json!({ "sources": [] }));
        }
        let shaders = match self.call(None, |s| s.shaders()) {
            Ok(s) => s,
            Err(_) => return Ok(json!({ "sources": self.known_sources() })),
        };
        let mut out: Vec<p::Source> = Vec::new();
        for sh in shaders {
            let src = match &sh.file {
                Some(f) if self.sources.reference_of_file(f).is_none() => self.source_of_file(f),
                _ => {
                    let name = format!("shader {} ({})", sh.shader, sh.stage);
                    let r = self.sources.reference(sh.shader, name, &sh.source);
                    match self.sources.source(r) {
                        Some(s) => s,
                        None => continue,
                    }
                }
            };
            if !out.contains(&src) {
                out.push(src);
            }
        }
        Ok(json!({ "sources": out }))
    }

    fn known_sources(&self) -> Vec<p::Source> {
        (1..=self.sources.items.len() as i64)
            .filter_map(|r| self.sources.source(r))
            .collect()
    }
    // ---- moving ----------------------------------------------------------

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
        let mut body =
            json!({"reason": reason, "threadId": thread as i64 + 1, "allThreadsStopped": true});
        if reason == "breakpoint" && !hit_ids.is_empty() {
            body["hitBreakpointIds"] = json!(hit_ids);
        }
        self.after.push(("stopped", body));
    }

    /// The breakpoints (not logpoints) at `step` of the current thread.
    fn hit_ids(&self, step: usize) -> Vec<i64> {
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

    fn step(&mut self, req: &Request, m: Move) -> Reply {
        let a: p::ThreadArguments = arguments(req)?;
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

    fn continue_(&mut self, req: &Request) -> Reply {
        let a: p::ThreadArguments = arguments(req)?;
        let next = match &self.state {
            State::Stopped(_) => {
                self.ensure_thread(a.thread_id)?;
                self.stopped()?.next_breakpoint(&self.breakpoints)
            }
            State::Halted(_) => None,
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
        self.ensure_thread(a.thread_id)?;
        let s = self.stopped()?;
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

    /// `pause`: the program stops at the next draw with a debuggable shader.
    fn pause(&mut self, req: &Request) -> Reply {
        let _: p::ThreadArguments = arguments(req)?;
        match self.state {
            State::Running => {
                self.call(None, |s| s.pause())?;
                Ok(Value::Null)
            }
            State::Stopped(_) | State::Halted(_) => Ok(Value::Null),
            _ => Err("the program is not running".into()),
        }
    }

    // ---- custom requests (see `custom`) ----------------------------------

    fn frame_image(&mut self) -> Reply {
        let draw = match &self.state {
            State::Stopped(ds) => ds.cur().stop.draw,
            State::Halted(_) => {
                return Err(
                    "shaderdbg/frameImage: stopped outside a draw (no framebuffer to show)".into(),
                )
            }
            _ => return Err("shaderdbg/frameImage: the program is not stopped at a draw".into()),
        };
        let shot = self
            .call(Some("Reading the framebuffer"), |s| {
                s.screenshot(ScreenshotAt::Now)
            })?
            .map_err(|e| format!("shaderdbg/frameImage: {e}"))?;
        let png = shot
            .png()
            .map_err(|e| format!("shaderdbg/frameImage: {e}"))?;
        Ok(json!({
            "frame": shot.frame,
            "draw": draw,
            "width": shot.width,
            "height": shot.height,
            "png": custom::base64(&png),
        }))
    }

    fn debug_pixel(&mut self, req: &Request) -> Reply {
        let a: custom::DebugPixelArguments = arguments(req)?;
        if !matches!(
            self.state,
            State::Running | State::Stopped(_) | State::Halted(_)
        ) {
            return Err("shaderdbg/debugPixel: the program is not running".into());
        }
        let (x, y) = (a.x, a.y);
        let frame = self.call(None, move |s| s.debug_pixel(x, y))?;
        self.pixel_debug = Some(PixelDebug {
            x,
            y,
            frame,
            stops: 0,
        });
        if !matches!(self.state, State::Running) {
            self.resume();
        }
        Ok(json!({ "frame": frame }))
    }

    fn values_image(&mut self, req: &Request) -> Reply {
        let a: custom::ValuesImageArguments = arguments(req)?;
        let (t, step) = self
            .frame_or_cursor(a.frame_id)
            .map_err(|e| format!("shaderdbg/valuesImage: {e}"))?;
        let loc = self.thread_at(t)?.stop.location(step);
        let expr = a.expression.trim().to_string();
        if expr.is_empty() {
            return Err("shaderdbg/valuesImage: an empty expression".into());
        }
        let runtime_line = loc.runtime_line;
        let title = format!("Computing `{expr}` for every fragment");
        let img = self
            .call(Some(&title), move |s| s.watch(runtime_line, &expr))?
            .map_err(|e| format!("shaderdbg/valuesImage: {e}"))?;
        custom::values_image_body(&img, self.line_out(loc.line) as u32)
            .map_err(|e| format!("shaderdbg/valuesImage: {e}"))
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
                if matches!(self.state, State::Stopped(_) | State::Halted(_)) {
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

    fn on_halt(&mut self, halt: Halt) {
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
    fn on_stop(&mut self, stop: Box<Stop>) {
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

    fn show_stop(&mut self, stop: Box<Stop>, reason: &str, description: Option<String>) {
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
