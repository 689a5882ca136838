//! The session: a program under the agent, breakpoints bound as shaders are
//! announced, stops turned into recorded traces.
//!
//! Front ends call [`Session::next_event`] in a loop and answer stops with
//! [`Session::resume`] (or [`Session::detach`]).

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use shaderdbg_glsl::decode::decode;
use shaderdbg_glsl::instrument::probe_table;
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

use crate::binding::{Binder, FileBreakpoint};
use crate::launch::{launch, Incoming, LaunchConfig, LaunchError, Launched};
use crate::stop::Stop;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error("the agent did not answer: {0}")]
    Agent(String),
}

/// Something the front end should know about.
pub enum Event {
    /// The program compiled a shader; `file` is the breakpoint file it came from.
    ShaderLoaded {
        shader: u32,
        stage: Stage,
        file: Option<PathBuf>,
        compiled: bool,
    },
    /// A file breakpoint was placed in a shader (possibly on a moved line), or
    /// could not be (`line` None, with the reason).
    BreakpointBound {
        index: usize,
        shader: u32,
        line: Option<u32>,
        message: Option<String>,
    },
    Stopped(Box<Stop>),
    Output {
        stderr: bool,
        line: String,
    },
    /// The agent reported a problem (an instrumented shader that did not
    /// compile, a request it could not serve).
    AgentError(String),
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
}

struct Shader {
    stage: Stage,
    sources: Vec<String>,
}

pub struct Session {
    launched: Launched,
    rx: Receiver<Incoming>,
    breakpoints: Vec<FileBreakpoint>,
    binder: Binder,
    shaders: BTreeMap<u32, Shader>,
    /// (shader, runtime line) -> breakpoint index, for reports.
    bound: Vec<(u32, u32, usize)>,
    queue: VecDeque<Event>,
    next_request: u64,
    exited: bool,
}

fn stage_of(s: proto::Stage) -> Stage {
    match s {
        proto::Stage::Vertex => Stage::Vertex,
        proto::Stage::TessControl => Stage::TessControl,
        proto::Stage::TessEvaluation => Stage::TessEvaluation,
        proto::Stage::Geometry => Stage::Geometry,
        proto::Stage::Fragment => Stage::Fragment,
        proto::Stage::Compute => Stage::Compute,
    }
}

impl Session {
    /// Launches the program with these breakpoints and stop filter.
    pub fn start(
        config: &LaunchConfig,
        breakpoints: Vec<FileBreakpoint>,
        filter: proto::StopFilter,
    ) -> Result<Session, SessionError> {
        let (tx, rx) = mpsc::channel();
        let launched = launch(config, tx)?;
        let mut s = Session {
            launched,
            rx,
            breakpoints,
            binder: Binder::default(),
            shaders: BTreeMap::new(),
            bound: Vec::new(),
            queue: VecDeque::new(),
            next_request: 1,
            exited: false,
        };
        s.send(&ToAgent::SetStopFilter(filter));
        Ok(s)
    }

    pub fn pid(&self) -> u32 {
        self.launched.pid
    }

    fn send(&mut self, msg: &ToAgent) {
        if let Err(e) = proto::write_message(&mut self.launched.writer, msg) {
            tracing::debug!("agent gone: {e}");
        }
    }

    /// The next event, waiting at most `timeout` (`None`: timed out).
    pub fn next_event(&mut self, timeout: Duration) -> Option<Event> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(e) = self.queue.pop_front() {
                return Some(e);
            }
            if self.exited {
                return None;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(msg) => self.handle(msg),
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => self.handle(Incoming::AgentGone),
            }
        }
    }

    fn handle(&mut self, msg: Incoming) {
        match msg {
            Incoming::Output { stderr, line } => {
                self.queue.push_back(Event::Output { stderr, line })
            }
            Incoming::AgentGone => {
                // Output may still be in flight: let the readers finish first.
                let status = self.launched.child.wait();
                while let Ok(Incoming::Output { stderr, line }) =
                    self.rx.recv_timeout(Duration::from_millis(200))
                {
                    self.queue.push_back(Event::Output { stderr, line });
                }
                use std::os::unix::process::ExitStatusExt;
                let (code, signal) = match status {
                    Ok(s) => (s.code(), s.signal()),
                    Err(_) => (None, None),
                };
                self.queue.push_back(Event::Exited { code, signal });
                self.exited = true;
            }
            Incoming::Agent(m) => self.agent_message(m),
        }
    }

    fn agent_message(&mut self, m: FromAgent) {
        match m {
            FromAgent::Hello { .. }
            | FromAgent::FrameEnd { .. }
            | FromAgent::ProgramLinked { .. } => {}
            FromAgent::ShaderCompiled {
                shader,
                stage,
                sources,
                compiled,
                ..
            } => {
                let stage = stage_of(stage);
                let runtime = sources.concat();
                let files: Vec<PathBuf> = self.breakpoints.iter().map(|b| b.file.clone()).collect();
                let file = self.binder.file_of(shader, &runtime, &files);
                let bound = self.binder.bind(shader, &runtime, &self.breakpoints);
                self.bound.retain(|(s, _, _)| *s != shader);
                let mut lines = Vec::new();
                for b in &bound {
                    self.bound.push((shader, b.runtime_line, b.index));
                    lines.push(proto::LineBreakpoint {
                        line: b.runtime_line,
                        condition: self.breakpoints[b.index].condition.clone(),
                    });
                }
                self.shaders.insert(shader, Shader { stage, sources });
                if !lines.is_empty() {
                    self.send(&ToAgent::SetBreakpoints {
                        shader,
                        breakpoints: lines,
                    });
                }
                self.send(&ToAgent::Resume);
                self.queue.push_back(Event::ShaderLoaded {
                    shader,
                    stage,
                    file,
                    compiled,
                });
            }
            FromAgent::BreakpointStatus {
                shader,
                requested_line,
                line,
                message,
            } => {
                let Some(&(_, _, index)) = self
                    .bound
                    .iter()
                    .find(|(s, l, _)| *s == shader && *l == requested_line)
                else {
                    return;
                };
                let file_line = match (line, self.shaders.get(&shader)) {
                    (Some(l), Some(sh)) => {
                        let runtime = sh.sources.concat();
                        let file = self.breakpoints[index].file.clone();
                        self.binder
                            .map(shader, &runtime, &file)
                            .and_then(|m| m.runtime_to_file(l))
                    }
                    _ => None,
                };
                let message = match (line, file_line) {
                    (Some(_), None) => Some("the breakpoint's line is not in the file".into()),
                    _ => message,
                };
                self.queue.push_back(Event::BreakpointBound {
                    index,
                    shader,
                    line: file_line,
                    message,
                });
            }
            FromAgent::Stopped {
                frame,
                draw,
                program,
                shader,
                hits,
                ..
            } => match self.record_stop(frame, draw, program, shader, hits) {
                Ok(stop) => self.queue.push_back(Event::Stopped(Box::new(stop))),
                Err(e) => {
                    self.queue.push_back(Event::AgentError(e));
                    self.send(&ToAgent::Resume);
                }
            },
            FromAgent::Error { message, .. } => self.queue.push_back(Event::AgentError(message)),
            FromAgent::GlError { call, error, .. } => {
                // Not asked for yet (no exception filters are set): go on.
                tracing::debug!("GL error {error:#x} in {call}");
                self.send(&ToAgent::Resume);
            }
            FromAgent::Recorded { .. }
            | FromAgent::WatchImage { .. }
            | FromAgent::Screenshot { .. } => {
                tracing::debug!("unexpected reply outside a request");
            }
        }
    }

    /// Waits for the reply to `request`, keeping other messages for later.
    fn wait_reply(&mut self, request: u64) -> Result<FromAgent, String> {
        loop {
            match self.rx.recv_timeout(Duration::from_secs(120)) {
                Ok(Incoming::Agent(m @ FromAgent::Recorded { request: r, .. })) if r == request => {
                    return Ok(m)
                }
                Ok(Incoming::Agent(m @ FromAgent::WatchImage { request: r, .. }))
                    if r == request =>
                {
                    return Ok(m)
                }
                Ok(Incoming::Agent(FromAgent::Error {
                    request: Some(r),
                    message,
                })) if r == request => return Err(message),
                Ok(Incoming::AgentGone) | Err(RecvTimeoutError::Disconnected) => {
                    self.handle(Incoming::AgentGone);
                    return Err("the program ended".into());
                }
                Ok(other) => self.handle(other),
                Err(RecvTimeoutError::Timeout) => {
                    return Err("no reply from the agent in 120 s".into())
                }
            }
        }
    }

    fn record_stop(
        &mut self,
        frame: u64,
        draw: u64,
        program: u32,
        shader: u32,
        hits: Vec<proto::Hit>,
    ) -> Result<Stop, String> {
        let hit = *hits.first().ok_or("a stop without hits")?;
        let (stage, sources) = {
            let sh = self
                .shaders
                .get(&shader)
                .ok_or("a stop in an unknown shader")?;
            (sh.stage, sh.sources.clone())
        };
        let selector = match stage {
            Stage::Fragment => proto::Selector::Fragment {
                x: hit.key[0],
                y: hit.key[1],
                primitive: (hit.key[2] != u32::MAX).then_some(hit.key[2]),
            },
            Stage::Vertex => proto::Selector::Vertex {
                vertex: hit.key[0] as i32,
                instance: hit.key[1] as i32,
            },
            Stage::Compute => proto::Selector::Compute {
                id: [hit.key[0], hit.key[1], hit.key[2]],
            },
            other => return Err(format!("recording {other} shaders is not supported yet")),
        };
        let request = self.next_request;
        self.next_request += 1;
        self.send(&ToAgent::Record { request, selector });
        let log = match self.wait_reply(request)? {
            FromAgent::Recorded { log, .. } => log,
            _ => return Err("unexpected reply".into()),
        };
        let strings: Vec<&str> = sources.iter().map(String::as_str).collect();
        let parsed = parse(&strings, stage, None).map_err(|d| d.message)?;
        let table = probe_table(&parsed);
        let trace = decode(&log.words(), &table).map_err(|e| e.to_string())?;
        let inv = trace
            .invocations
            .into_iter()
            .next()
            .ok_or("the recording is empty")?;
        let cursor = Stop::hit_step(&table, &inv, &hit).unwrap_or(0);
        let runtime = sources.concat();
        let files: Vec<PathBuf> = self.breakpoints.iter().map(|b| b.file.clone()).collect();
        let file = self.binder.file_of(shader, &runtime, &files);
        let map = file
            .as_ref()
            .and_then(|f| self.binder.map(shader, &runtime, f).cloned());
        Ok(Stop {
            shader,
            stage,
            frame,
            draw,
            program,
            hit,
            hits,
            file,
            map,
            parsed,
            table,
            trace: inv,
            cursor,
        })
    }

    /// Leaves the current stop.
    pub fn resume(&mut self) {
        self.send(&ToAgent::Resume);
    }

    /// Removes every breakpoint and lets the program run to its end.
    pub fn detach(&mut self) {
        self.send(&ToAgent::Detach);
    }

    /// Ends the program.
    pub fn kill(&mut self) {
        let _ = self.launched.child.kill();
    }

    pub fn has_exited(&self) -> bool {
        self.exited
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.exited {
            // Never leave the program blocked in a stop: resume, then let it run.
            self.send(&ToAgent::Detach);
        }
    }
}
