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
use crate::engine::{Command as EngineCommand, Engine, EngineEvent, Job};
use crate::evaluate::{self, EvalError};
use crate::framing::{self, FrameError};
use crate::launch::{self, Plan};
use crate::protocol::{self as p, AdapterError, Command, Request};
use crate::stepping::{DrawStop, Move, Stopped};
use crate::variables::{parts, Handle, Handles, ScopeKind};
use crate::Input;

mod handlers;

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

    fn respond(&mut self, request_seq: i64, command: &str, result: Reply) {
        let mut m = json!({
            "type": "response",
            "request_seq": request_seq,
            "command": command,
            "success": result.is_ok(),
        });
        match result {
            Ok(body) if body.is_null() => {}
            Ok(body) => m["body"] = body,
            Err(e) => {
                let message = e.to_string();
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
    fn file(&mut self, reference: i64) -> Result<PathBuf, AdapterError> {
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

type Reply = Result<Value, AdapterError>;

fn not_stopped() -> AdapterError {
    AdapterError::Refused("the program is not stopped".into())
}

/// A typed response body as JSON.
fn json_body(body: impl serde::Serialize) -> Reply {
    serde_json::to_value(body).map_err(|e| AdapterError::Refused(format!("response body: {e}")))
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
                    self.release(EngineCommand::Detach);
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
        self.out.respond(0, "", Err(e.to_string().into()));
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
                    .respond(seq, command, Err(format!("not a DAP request: {e}").into()));
                return;
            }
        };
        if req.kind != "request" {
            tracing::debug!("ignoring a client {}", req.kind);
            return;
        }
        let command = Command::parse(&req);
        let result = match command {
            Ok(Command::Disconnect(a)) => {
                self.finish_disconnect(&req, a);
                return;
            }
            Ok(c) if !self.initialized && !matches!(c, Command::Initialize(_)) => {
                Err(AdapterError::NotInitialized(req.command.clone()))
            }
            Ok(c) => self.request(c),
            Err(e) => Err(e),
        };
        self.out.respond(req.seq, &req.command, result);
        for (event, body) in std::mem::take(&mut self.after) {
            self.out.event(event, body);
        }
    }

    /// The router: every command to its handler (handlers/ by area).
    fn request(&mut self, command: Command) -> Reply {
        match command {
            Command::Initialize(a) => self.initialize(a),
            Command::Launch(a) => self.launch(*a),
            Command::Attach => Err("attach is not supported: use launch".into()),
            Command::SetBreakpoints(a) => self.set_breakpoints(a),
            Command::SetExceptionBreakpoints(a) => self.set_exception_breakpoints(a),
            Command::ConfigurationDone => self.configuration_done(),
            Command::Threads => self.threads(),
            Command::StackTrace(a) => self.stack_trace(a),
            Command::Scopes(a) => self.scopes(a),
            Command::Variables(a) => self.variables(a),
            Command::Evaluate(a) => self.evaluate(a),
            Command::Source(a) => self.source(a),
            Command::LoadedSources => self.loaded_sources(),
            Command::Next(a) => self.step(a, Move::Over),
            Command::StepIn(a) => self.step(a, Move::In),
            Command::StepOut(a) => self.step(a, Move::Out),
            Command::StepBack(a) => self.step(a, Move::Back),
            Command::Continue(a) => self.continue_(a),
            Command::ReverseContinue(a) => self.reverse_continue(a),
            Command::Pause(a) => self.pause(a),
            Command::Terminate => self.terminate(),
            // Answered by `finish_disconnect` once the program is released.
            Command::Disconnect(_) => Ok(Value::Null),
            Command::FrameImage => self.frame_image(),
            Command::DebugPixel(a) => self.debug_pixel(a),
            Command::ValuesImage(a) => self.values_image(a),
            Command::Unknown(other) => Err(AdapterError::UnknownCommand(other)),
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
    ) -> Result<T, AdapterError> {
        let engine = self.engine.as_ref().ok_or("the program has not started")?;
        if engine.finished() {
            return Err("the program has ended".into());
        }
        let id = title.and_then(|t| self.progress_start(t));
        let r = match &self.engine {
            Some(e) => e.call(f).map_err(AdapterError::from),
            None => Err("the program has not started".into()),
        };
        self.progress_end(id);
        r
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
