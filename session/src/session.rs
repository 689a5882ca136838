//! The session: a program under the agent, breakpoints bound as shaders are
//! announced, stops turned into recorded traces.
//!
//! Front ends call [`Session::next_event`] in a loop and answer stops with
//! [`Session::resume`] (or [`Session::detach`]).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use std::sync::Arc;

use shaderdbg_core::decode::{decode, decode_watch, SanitizerReport};
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::Language;
use shaderdbg_core::{Hit, HitTag, Invocation, ScreenshotAt, Stage, StopFilter, StopReason};
use shaderdbg_glsl::parse::parse;
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

use crate::binding::{Binder, FileBreakpoint};
use crate::breakpoints::{logpoint_lines, Counts, LOGPOINT_CAP};
use crate::images::{Screenshot, WatchImage};
use crate::launch::{launch, Incoming, LaunchConfig, LaunchError, Launched};
use crate::stop::{Source, Stop};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error("the agent did not answer: {0}")]
    Agent(String),
    /// The request needs the program stopped at a draw.
    #[error("the program is not stopped at a draw")]
    NotStopped,
    /// The agent (or the engine) could not serve the request.
    #[error("{0}")]
    Failed(String),
}

/// Why the program is blocked outside a draw stop; [`Session::resume`] lets it go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A shader failed to compile (exception filter `compile_error`): the
    /// program is blocked in `glCompileShader` until resumed.
    CompileError {
        shader: u32,
        stage: Stage,
        info_log: String,
        /// The file the shader came from (among the breakpoint files and the
        /// files named with [`Session::add_source_file`]).
        file: Option<PathBuf>,
        /// The first error's line: in `file` when the shader came from one and
        /// the line maps, else in the runtime source.
        line: Option<u32>,
        /// The first error's line in the runtime source.
        runtime_line: Option<u32>,
    },
    /// The GL call `call` raised `error` (exception filter `gl_error`); no
    /// invocation is involved.
    GlError {
        frame: u64,
        /// Draws so far in the frame.
        draw: u64,
        call: String,
        error: u32,
    },
}

/// A shader the program compiled, as the session knows it.
#[derive(Clone, Debug)]
pub struct ShaderInfo {
    pub shader: u32,
    pub stage: Stage,
    /// The runtime source (the strings given to `glShaderSource`,
    /// concatenated; for GLSL naga wrote from WGSL, that WGSL).
    pub source: String,
    /// The language `source` is in.
    pub language: Language,
    /// The file it came from, among the breakpoint files and the files named
    /// with [`Session::add_source_file`].
    pub file: Option<PathBuf>,
    pub compiled: bool,
    pub info_log: String,
}

/// The draw the program is stopped at (what [`Session::record`] records in).
#[derive(Clone, Debug)]
pub struct CurrentStop {
    pub frame: u64,
    pub draw: u64,
    pub program: u32,
    pub shader: u32,
    pub hits: Vec<Hit>,
    pub truncated: bool,
    pub reason: StopReason,
    /// The probe table the agent instrumented `shader` with.
    pub probes: Arc<ProbeTable>,
    /// [`StopReason::Sanitizer`]: the reports (hit `i` is report `i`'s).
    pub sanitizer: Vec<SanitizerReport>,
    /// [`StopReason::Sanitizer`]: the report shown (one stop per report:
    /// [`Session::continue_`] goes to the next before the program resumes).
    pub report: usize,
}

/// Which exceptional events stop the program (DAP exception breakpoints,
/// the CLI's `--catch`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExceptionFilters {
    /// A draw where an invocation writes NaN or Inf to an output.
    pub nan_inf: bool,
    /// A GL call that raised a GL error ([`Halt::GlError`]).
    pub gl_error: bool,
    /// A shader that fails to compile ([`Halt::CompileError`]).
    pub compile_error: bool,
    /// The sanitizer's out-of-bounds check at compute dispatches: a
    /// dispatch where an index is out of bounds stops
    /// ([`StopReason::Sanitizer`]).
    pub sanitize_oob: bool,
    /// The sanitizer's check of shared-memory reads before any write, at
    /// compute dispatches.
    pub sanitize_uninit: bool,
    /// The sanitizer's check of data races on shared memory, at compute
    /// dispatches.
    pub sanitize_race: bool,
}

/// Something the front end should know about.
pub enum Event {
    /// A logpoint printed its message for one time an invocation reached it
    /// (`index` into the breakpoint list; `line` in `file`, or in the
    /// runtime source when there is no file).
    Log {
        index: usize,
        file: Option<PathBuf>,
        line: u32,
        text: String,
    },
    /// The program compiled a shader; `file` is the breakpoint file it came
    /// from, `source` what the program compiled (its strings concatenated).
    ShaderLoaded {
        shader: u32,
        stage: Stage,
        file: Option<PathBuf>,
        compiled: bool,
        source: String,
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
    /// The program is blocked outside a draw (a compile error, a GL error)
    /// until [`Session::resume`].
    Halted(Halt),
    /// The answer to [`Session::request_screenshot`].
    Screenshot {
        request: u64,
        result: Result<Screenshot, SessionError>,
    },
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
    /// What the program compiled; for GLSL naga wrote from WGSL (with the
    /// header of `shaderdbg_wgsl::gl_origin`), the WGSL, one string.
    sources: Vec<String>,
    language: Language,
    /// What files are matched against: the sources, or for WGSL the part
    /// of its text that is the file's (`WgslOrigin::file_part`).
    file_text: String,
    compiled: bool,
    info_log: String,
}

pub struct Session {
    launched: Launched,
    rx: Receiver<Incoming>,
    breakpoints: Vec<FileBreakpoint>,
    /// How many invocations reached each breakpoint so far.
    counts: Counts,
    binder: Binder,
    shaders: BTreeMap<u32, Shader>,
    /// (shader, runtime line) -> breakpoint index, for reports.
    bound: Vec<(u32, u32, usize)>,
    /// Per shader, the (line, condition) of each line breakpoint sent and
    /// not answered yet: the agent answers each with one
    /// `BreakpointStatus`, in order, so a status belongs to the file
    /// breakpoints with that line *and condition*.
    awaiting_status: HashMap<u32, VecDeque<(u32, Option<String>)>>,
    queue: VecDeque<Event>,
    next_request: u64,
    exited: bool,
    /// Files shaders may come from besides the breakpoint files.
    extra_files: Vec<PathBuf>,
    current: Option<CurrentStop>,
    /// Stop at shaders that fail to compile.
    compile_error: bool,
    /// Screenshot requests answered by `Event::Screenshot`.
    pending_screenshots: Vec<u64>,
    filter: StopFilter,
    /// A one-frame filter in effect: (its frame, the filter to restore after it).
    one_frame: Option<(u64, StopFilter)>,
    /// Frames ended so far (the frame being drawn now).
    frame: u64,
    /// The WGSL files last sent to the agent as `ToAgent::SourceFiles`.
    sent_sources: Vec<PathBuf>,
}

impl Session {
    /// Launches the program with these breakpoints and stop filter.
    pub fn start(
        config: &LaunchConfig,
        breakpoints: Vec<FileBreakpoint>,
        filter: StopFilter,
    ) -> Result<Session, SessionError> {
        let (tx, rx) = mpsc::channel();
        let launched = launch(config, tx)?;
        let mut s = Session {
            launched,
            rx,
            breakpoints,
            counts: Counts::default(),
            binder: Binder::default(),
            shaders: BTreeMap::new(),
            bound: Vec::new(),
            awaiting_status: HashMap::new(),
            queue: VecDeque::new(),
            next_request: 1,
            exited: false,
            extra_files: Vec::new(),
            current: None,
            compile_error: false,
            pending_screenshots: Vec::new(),
            filter,
            one_frame: None,
            frame: 0,
            sent_sources: Vec::new(),
        };
        s.send(&ToAgent::SetStopFilter(filter));
        s.send_source_files();
        Ok(s)
    }

    /// Tells the agent the WGSL files shaders may come from, when they
    /// changed: the Vulkan layer binds a module without source to the file
    /// naga writes it from. A file that cannot be read is left out.
    fn send_source_files(&mut self) {
        let wgsl: Vec<PathBuf> = self
            .candidate_files()
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "wgsl"))
            .collect();
        if wgsl == self.sent_sources {
            return;
        }
        let files = wgsl
            .iter()
            .filter_map(|path| {
                let text = std::fs::read_to_string(path).ok()?;
                Some(proto::SourceFile {
                    path: path.display().to_string(),
                    text,
                })
            })
            .collect();
        self.send(&ToAgent::SourceFiles { files });
        self.sent_sources = wgsl;
    }

    pub fn pid(&self) -> u32 {
        self.launched.pid
    }

    fn send(&mut self, msg: &ToAgent) {
        let Some(writer) = self.launched.writer.as_mut() else {
            return;
        };
        if let Err(e) = proto::write_message(writer, msg) {
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
                self.current = None;
            }
            Incoming::NeverConnected => self.queue.push_back(Event::AgentError(
                "the program ended before it used OpenGL or Vulkan (the agent never \
                 connected): nothing to debug"
                    .into(),
            )),
            Incoming::Agent(m) => self.agent_message(m),
        }
    }

    fn candidate_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.breakpoints.iter().map(|b| b.file.clone()).collect();
        for f in &self.extra_files {
            if !files.contains(f) {
                files.push(f.clone());
            }
        }
        files
    }

    /// Binds the breakpoints to one shader; sends its list when it has
    /// breakpoints or had some (`force`: send even an empty list).
    fn bind_shader(&mut self, shader: u32, force: bool) {
        let Some(sh) = self.shaders.get(&shader) else {
            return;
        };
        let runtime = sh.file_text.clone();
        let bound = self.binder.bind(shader, &runtime, &self.breakpoints);
        let had = self.bound.iter().any(|(s, _, _)| *s == shader);
        self.bound.retain(|(s, _, _)| *s != shader);
        let mut lines: Vec<proto::LineBreakpoint> = Vec::new();
        for b in &bound {
            self.bound.push((shader, b.runtime_line, b.index));
            let condition = self.breakpoints[b.index].condition.clone();
            if !lines
                .iter()
                .any(|l| l.line == b.runtime_line && l.condition == condition)
            {
                lines.push(proto::LineBreakpoint {
                    id: b.index as u32,
                    line: b.runtime_line,
                    condition,
                });
            }
        }
        if !lines.is_empty() || had || force {
            self.awaiting_status
                .entry(shader)
                .or_default()
                .extend(lines.iter().map(|l| (l.line, l.condition.clone())));
            self.send(&ToAgent::SetBreakpoints {
                shader,
                breakpoints: lines,
            });
        }
    }

    fn agent_message(&mut self, m: FromAgent) {
        match m {
            FromAgent::Hello { .. } | FromAgent::ProgramLinked { .. } => {}
            FromAgent::FrameEnd { frame, .. } => {
                self.frame = self.frame.max(frame + 1);
                if let Some((f, previous)) = self.one_frame {
                    if frame >= f {
                        self.one_frame = None;
                        self.set_stop_filter(previous);
                    }
                }
            }
            FromAgent::ShaderCompiled {
                shader,
                stage,
                sources,
                compiled,
                info_log,
                language,
                parts,
                ..
            } => {
                self.binder.set_parts(shader, parts);
                // GLSL naga wrote from WGSL is debugged as that WGSL (the
                // agent instruments the WGSL: its lines are the WGSL's).
                let (sources, language, file_text) = match language {
                    Language::Wgsl => {
                        let all = sources.concat();
                        (sources, Language::Wgsl, all)
                    }
                    Language::Glsl => match shaderdbg_wgsl::gl_origin::extract(&sources.concat()) {
                        Some(origin) => {
                            let file_text = origin.file_part().to_string();
                            (vec![origin.source], Language::Wgsl, file_text)
                        }
                        None => {
                            let all = sources.concat();
                            (sources, Language::Glsl, all)
                        }
                    },
                };
                let runtime = sources.concat();
                let files = self.candidate_files();
                let file = self.binder.file_of(shader, &file_text, &files);
                self.shaders.insert(
                    shader,
                    Shader {
                        stage,
                        sources,
                        language,
                        file_text: file_text.clone(),
                        compiled,
                        info_log: info_log.clone(),
                    },
                );
                self.bind_shader(shader, false);
                self.queue.push_back(Event::ShaderLoaded {
                    shader,
                    stage,
                    file: file.clone(),
                    compiled,
                    source: runtime.clone(),
                });
                if !compiled && self.compile_error {
                    // The agent waits in glCompileShader until Resume.
                    let runtime_line = error_line(&info_log);
                    let file_line = match (&file, runtime_line) {
                        (Some(f), Some(l)) => self
                            .binder
                            .map(shader, &file_text, f)
                            .and_then(|m| m.runtime_to_file(l)),
                        _ => None,
                    };
                    let (file, line) = match (file_line, runtime_line) {
                        (Some(l), _) => (file, Some(l)),
                        (None, None) => (file, None),
                        (None, l) => (None, l),
                    };
                    self.queue.push_back(Event::Halted(Halt::CompileError {
                        shader,
                        stage,
                        info_log,
                        file,
                        line,
                        runtime_line,
                    }));
                } else {
                    self.send(&ToAgent::Resume);
                }
            }
            FromAgent::BreakpointStatus {
                shader,
                requested_line,
                line,
                message,
            } => {
                // The condition of the line breakpoint answered, when the
                // answers are in step with what was sent.
                let expected = self
                    .awaiting_status
                    .get_mut(&shader)
                    .and_then(VecDeque::pop_front);
                let condition = match expected {
                    Some((l, c)) if l == requested_line => Some(c),
                    _ => {
                        self.awaiting_status.remove(&shader);
                        None
                    }
                };
                let indices: Vec<usize> = self
                    .bound
                    .iter()
                    .filter(|(s, l, i)| {
                        *s == shader
                            && *l == requested_line
                            && condition.as_ref().is_none_or(|c| {
                                self.breakpoints.get(*i).map(|b| &b.condition) == Some(c)
                            })
                    })
                    .map(|(_, _, i)| *i)
                    .collect();
                for index in indices {
                    let Some(bp) = self.breakpoints.get(index) else {
                        continue;
                    };
                    let file = bp.file.clone();
                    let file_line = match (line, self.shaders.get(&shader)) {
                        (Some(l), Some(sh)) => {
                            let runtime = sh.file_text.clone();
                            self.binder
                                .map(shader, &runtime, &file)
                                .and_then(|m| m.runtime_to_file(l))
                        }
                        _ => None,
                    };
                    let message = match (line, file_line) {
                        (Some(_), None) => Some("the breakpoint's line is not in the file".into()),
                        _ => message.clone(),
                    };
                    self.queue.push_back(Event::BreakpointBound {
                        index,
                        shader,
                        line: file_line,
                        message,
                    });
                }
            }
            FromAgent::Stopped {
                frame,
                draw,
                program,
                shader,
                hits,
                truncated,
                reason,
                probes,
                sanitizer,
                ..
            } => {
                self.current = Some(CurrentStop {
                    frame,
                    draw,
                    program,
                    shader,
                    hits: hits.clone(),
                    truncated,
                    reason,
                    probes: Arc::new(probes),
                    sanitizer,
                    report: 0,
                });
                let first = if reason == StopReason::Breakpoint {
                    self.breakpoint_hits(shader, &hits)
                } else {
                    hits.first().map(|h| (*h, Vec::new()))
                };
                let Some((hit, for_breakpoints)) = first else {
                    // Only logpoints, hit counts not reached, breakpoints
                    // removed since: the program goes on.
                    self.resume();
                    return;
                };
                match self.record_in_current(hit.invocation, Some(hit)) {
                    Ok(mut stop) => {
                        stop.breakpoints = for_breakpoints;
                        self.queue.push_back(Event::Stopped(Box::new(stop)))
                    }
                    Err(e) => {
                        self.queue.push_back(Event::AgentError(e.to_string()));
                        self.resume();
                    }
                }
            }
            FromAgent::Error {
                request: Some(r),
                message,
            } if self.pending_screenshots.contains(&r) => {
                self.pending_screenshots.retain(|p| *p != r);
                self.queue.push_back(Event::Screenshot {
                    request: r,
                    result: Err(SessionError::Failed(message)),
                });
            }
            FromAgent::Error { message, .. } => self.queue.push_back(Event::AgentError(message)),
            FromAgent::GlError {
                frame,
                draw,
                call,
                error,
                ..
            } => {
                self.queue.push_back(Event::Halted(Halt::GlError {
                    frame,
                    draw,
                    call,
                    error,
                }));
            }
            m @ FromAgent::Screenshot { request, .. }
                if self.pending_screenshots.contains(&request) =>
            {
                self.pending_screenshots.retain(|r| *r != request);
                if let Some(shot) = Screenshot::from_reply(m) {
                    self.queue.push_back(Event::Screenshot {
                        request,
                        result: Ok(shot),
                    });
                }
            }
            FromAgent::Recorded { .. }
            | FromAgent::WatchImage { .. }
            | FromAgent::Screenshot { .. } => {
                tracing::debug!("unexpected reply outside a request");
            }
        }
    }

    /// The file breakpoints a hit tagged `Breakpoint(id)` in `shader` is for:
    /// those bound to the same runtime line with the same condition as
    /// breakpoint `id` (they share one line breakpoint in the agent).
    fn breakpoints_of(&self, shader: u32, id: u32) -> Vec<usize> {
        let id = id as usize;
        let Some(&(_, line, _)) = self.bound.iter().find(|(s, _, i)| *s == shader && *i == id)
        else {
            return Vec::new();
        };
        let condition = self.breakpoints.get(id).map(|b| &b.condition);
        self.bound
            .iter()
            .filter(|(s, l, i)| {
                *s == shader
                    && *l == line
                    && self.breakpoints.get(*i).map(|b| &b.condition) == condition
            })
            .map(|(_, _, i)| *i)
            .collect()
    }

    /// A breakpoint stop's hits: counts advance, logpoints print (their
    /// invocations recorded), and the hit to stop at with the breakpoints it
    /// stops for, if any (see [`crate::breakpoints`]).
    fn breakpoint_hits(&mut self, shader: u32, hits: &[Hit]) -> Option<(Hit, Vec<usize>)> {
        let targets: HashMap<u32, Vec<usize>> = hits
            .iter()
            .filter_map(|h| match h.tag {
                HitTag::Breakpoint(id) => Some(id),
                HitTag::NanInf => None,
            })
            .collect::<std::collections::BTreeSet<u32>>()
            .into_iter()
            .map(|id| (id, self.breakpoints_of(shader, id)))
            .collect();
        let decision = self.counts.decide(&self.breakpoints, hits, |id| {
            targets.get(&id).cloned().unwrap_or_default()
        });
        let mut recorded: HashMap<Invocation, Stop> = HashMap::new();
        for (index, hit) in decision.logs {
            let Some(message) = self
                .breakpoints
                .get(index)
                .and_then(|b| b.log_message.clone())
            else {
                continue;
            };
            if let std::collections::hash_map::Entry::Vacant(slot) = recorded.entry(hit.invocation)
            {
                match self.record_in_current(hit.invocation, Some(hit)) {
                    Ok(stop) => {
                        slot.insert(stop);
                    }
                    Err(e) => {
                        self.queue.push_back(Event::AgentError(format!(
                            "logpoint: cannot record the {}: {e}",
                            hit.invocation
                        )));
                        continue;
                    }
                }
            }
            let Some(stop) = recorded.get(&hit.invocation) else {
                continue;
            };
            let loc = stop.location_of_line(hit.line);
            for text in logpoint_lines(stop, hit.line, &message) {
                self.queue.push_back(Event::Log {
                    index,
                    file: loc.file.clone(),
                    line: loc.line,
                    text,
                });
            }
        }
        for (index, more) in decision.unlogged {
            let Some(bp) = self.breakpoints.get(index) else {
                continue;
            };
            self.queue.push_back(Event::Log {
                index,
                file: Some(bp.file.clone()),
                line: bp.line,
                text: format!(
                    "... and {more} more invocation{} reached this line in this draw (a logpoint prints at most {LOGPOINT_CAP} a draw)",
                    if more == 1 { "" } else { "s" }
                ),
            });
        }
        decision.stop
    }

    /// Waits for the reply to `request`, keeping other messages for later.
    fn wait_reply(&mut self, request: u64) -> Result<FromAgent, SessionError> {
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
                Ok(Incoming::Agent(m @ FromAgent::Screenshot { request: r, .. }))
                    if r == request =>
                {
                    return Ok(m)
                }
                Ok(Incoming::Agent(FromAgent::Error {
                    request: Some(r),
                    message,
                })) if r == request => return Err(SessionError::Failed(message)),
                Ok(Incoming::AgentGone) | Err(RecvTimeoutError::Disconnected) => {
                    self.handle(Incoming::AgentGone);
                    return Err(SessionError::Agent("the program ended".into()));
                }
                Ok(Incoming::Agent(FromAgent::Error {
                    request: Some(r),
                    message,
                })) if self.pending_screenshots.contains(&r) => {
                    self.pending_screenshots.retain(|p| *p != r);
                    self.queue.push_back(Event::Screenshot {
                        request: r,
                        result: Err(SessionError::Failed(message)),
                    });
                }
                Ok(other) => self.handle(other),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(SessionError::Agent("no reply in 120 s".into()))
                }
            }
        }
    }

    fn request_id(&mut self) -> u64 {
        let r = self.next_request;
        self.next_request += 1;
        r
    }

    /// Records `invocation` in the current stop; the cursor goes to `hit`'s
    /// step, else to the invocation's first hit, else to the start of `main`.
    fn record_in_current(
        &mut self,
        invocation: Invocation,
        hit: Option<Hit>,
    ) -> Result<Stop, SessionError> {
        let cur = self.current.clone().ok_or(SessionError::NotStopped)?;
        let (stage, sources, language, file_text) = {
            let sh = self
                .shaders
                .get(&cur.shader)
                .ok_or_else(|| SessionError::Failed("a stop in an unknown shader".into()))?;
            (
                sh.stage,
                sh.sources.clone(),
                sh.language,
                sh.file_text.clone(),
            )
        };
        if invocation.stage() != stage {
            return Err(SessionError::Failed(format!(
                "cannot record a {} invocation in a {stage} shader",
                invocation.stage()
            )));
        }
        let table = cur.probes.clone();
        let hit = hit
            .or_else(|| {
                cur.hits
                    .iter()
                    .find(|h| invocation.selects(&h.invocation))
                    .copied()
            })
            .unwrap_or_else(|| {
                let start = table.entry_step();
                Hit {
                    tag: HitTag::Breakpoint(0),
                    probe: start.map_or(0, |p| p.id),
                    line: start.map_or(0, |p| p.line),
                    occurrence: 0,
                    invocation,
                }
            });
        let request = self.request_id();
        self.send(&ToAgent::Record {
            request,
            selector: invocation,
        });
        let log = match self.wait_reply(request)? {
            FromAgent::Recorded { log, .. } => log,
            _ => return Err(SessionError::Failed("unexpected reply".into())),
        };
        let parsed = match language {
            Language::Glsl => {
                let strings: Vec<&str> = sources.iter().map(String::as_str).collect();
                Source::Glsl(
                    parse(&strings, stage, None).map_err(|d| SessionError::Failed(d.message))?,
                )
            }
            Language::Wgsl => Source::Wgsl(Box::new(
                shaderdbg_wgsl::parse(&sources.concat())
                    .map_err(|e| SessionError::Failed(e.to_string()))?,
            )),
        };
        let trace =
            decode(&log.words(), &table).map_err(|e| SessionError::Failed(e.to_string()))?;
        let inv = trace.invocations.into_iter().next().ok_or_else(|| {
            SessionError::Failed("the recording is empty (no such invocation in this draw)".into())
        })?;
        // A fragment selected by its pixel: the recording says which primitive.
        let hit = Hit {
            invocation: inv.invocation.unwrap_or(hit.invocation),
            ..hit
        };
        let cursor = Stop::hit_step(&table, &inv, &hit).unwrap_or(0);
        let runtime = file_text;
        let candidates = self.candidate_files();
        let files = self.binder.files_of(cur.shader, &runtime, &candidates);
        let mut stop = Stop {
            shader: cur.shader,
            stage,
            frame: cur.frame,
            draw: cur.draw,
            program: cur.program,
            hit,
            hits: cur.hits.clone(),
            truncated: cur.truncated,
            reason: cur.reason,
            sanitizer: cur.sanitizer.clone(),
            report: cur.report,
            breakpoints: Vec::new(),
            files,
            parsed: Arc::new(parsed),
            table,
            trace: inv,
            cursor,
        };
        if let Some(step) = stop.failing_step() {
            stop.cursor = step;
        }
        Ok(stop)
    }

    /// The draw the program is stopped at, if it is.
    pub fn current_stop(&self) -> Option<&CurrentStop> {
        self.current.as_ref()
    }

    /// While stopped at a draw: records another invocation of it (any
    /// selector, not only those that hit). The cursor of the returned stop is
    /// at the invocation's first hit, else at its first step.
    pub fn record(&mut self, selector: Invocation) -> Result<Stop, SessionError> {
        self.record_in_current(selector, None)
    }

    /// While stopped at a draw: records the invocation of one of its hits,
    /// the cursor at that hit's step.
    pub fn record_hit(&mut self, hit: Hit) -> Result<Stop, SessionError> {
        self.record_in_current(hit.invocation, Some(hit))
    }

    /// Replaces the breakpoint list at any time: every shader known so far is
    /// bound again and gets its new list (`Event::BreakpointBound` follow,
    /// indices into `breakpoints`); shaders compiled later bind as they come.
    /// A stop already in flight for a removed breakpoint may still arrive.
    pub fn set_breakpoints(&mut self, breakpoints: Vec<FileBreakpoint>) {
        self.counts = self.counts.carry_over(&self.breakpoints, &breakpoints);
        self.breakpoints = breakpoints;
        self.send_source_files();
        let shaders: Vec<u32> = self.shaders.keys().copied().collect();
        for shader in shaders {
            self.bind_shader(shader, false);
        }
    }

    /// The breakpoint list in effect.
    pub fn breakpoints(&self) -> &[FileBreakpoint] {
        &self.breakpoints
    }

    /// How many invocations reached breakpoint `index` so far (logpoints
    /// are not counted).
    pub fn hit_count(&self, index: usize) -> u64 {
        self.counts.get(index)
    }

    /// A file shaders may come from (e.g. the shader the built-in host
    /// runs): stops and compile errors in shaders built from it are located
    /// in it even without breakpoints there.
    pub fn add_source_file(&mut self, file: PathBuf) {
        if !self.extra_files.contains(&file) {
            self.extra_files.push(file);
            self.send_source_files();
        }
    }

    /// Every shader the program compiled so far, by GL name.
    pub fn shaders(&mut self) -> Vec<ShaderInfo> {
        let files = self.candidate_files();
        let ids: Vec<u32> = self.shaders.keys().copied().collect();
        let mut out = Vec::new();
        for shader in ids {
            let Some(sh) = self.shaders.get(&shader) else {
                continue;
            };
            let source = sh.sources.concat();
            let (stage, compiled, info_log) = (sh.stage, sh.compiled, sh.info_log.clone());
            let language = sh.language;
            let file_text = sh.file_text.clone();
            let file = self.binder.file_of(shader, &file_text, &files);
            out.push(ShaderInfo {
                shader,
                stage,
                source,
                language,
                file,
                compiled,
                info_log,
            });
        }
        out
    }

    /// Replaces the stop filter (frame, pixel, pixel history).
    pub fn set_stop_filter(&mut self, filter: StopFilter) {
        self.filter = filter;
        self.send(&ToAgent::SetStopFilter(filter));
    }

    /// The stop filter in effect.
    pub fn stop_filter(&self) -> StopFilter {
        self.filter
    }

    /// The frame being drawn (frames ended so far, or the frame of the
    /// current stop when that is later).
    pub fn frame(&self) -> u64 {
        self.current
            .as_ref()
            .map_or(self.frame, |c| c.frame.max(self.frame))
    }

    /// Pixel history of one pixel in the next frame: the program stops at
    /// every draw whose fragments cover `(x, y)` in that frame
    /// (`StopReason::PixelHistory`), then the filter in effect before comes
    /// back. Returns the frame. Does not resume a stop.
    pub fn debug_pixel(&mut self, x: u32, y: u32) -> u64 {
        let frame = self.frame() + 1;
        let previous = match self.one_frame {
            Some((_, p)) => p,
            None => self.filter,
        };
        self.set_stop_filter(StopFilter {
            frame: Some(frame),
            pixel: Some([x, y]),
            pixel_history: true,
        });
        self.one_frame = Some((frame, previous));
        frame
    }

    /// Which exceptional events stop the program: `nan_inf` and `gl_error`
    /// are the agent's; `compile_error` is the session's (a shader that fails
    /// to compile halts the program with [`Halt::CompileError`]).
    pub fn set_exception_filters(&mut self, filters: ExceptionFilters) {
        self.compile_error = filters.compile_error;
        self.send(&ToAgent::SetExceptionFilters(proto::ExceptionFilters {
            nan_inf: filters.nan_inf,
            gl_error: filters.gl_error,
            sanitize_oob: filters.sanitize_oob,
            sanitize_uninit: filters.sanitize_uninit,
            sanitize_race: filters.sanitize_race,
        }));
    }

    /// Stop at the next draw that has a debuggable shader
    /// (`StopReason::Pause`: every invocation at the start of `main`).
    pub fn pause(&mut self) {
        self.send(&ToAgent::Pause);
    }

    /// A screenshot, waiting for it. `ScreenshotAt::Now` needs a stop; for
    /// `FrameEnd` while breakpoints may stop the program first, use
    /// [`Session::request_screenshot`].
    pub fn screenshot(&mut self, at: ScreenshotAt) -> Result<Screenshot, SessionError> {
        if at == ScreenshotAt::Now && self.current.is_none() {
            return Err(SessionError::NotStopped);
        }
        let request = self.request_id();
        self.send(&ToAgent::Screenshot { request, at });
        Screenshot::from_reply(self.wait_reply(request)?)
            .ok_or_else(|| SessionError::Failed("unexpected reply".into()))
    }

    /// Says this debugger will never ask for `ScreenshotAt::Now` (the GL
    /// agent then keeps no copy of the framebuffer before each draw whose
    /// hit test is the draw itself; see `ToAgent::SetScreenshotsAtStops`).
    pub fn never_screenshot_at_stops(&mut self) {
        self.send(&ToAgent::SetScreenshotsAtStops { may_ask: false });
    }

    /// Asks for a screenshot without waiting: `Event::Screenshot` with this
    /// request id answers it.
    pub fn request_screenshot(&mut self, at: ScreenshotAt) -> u64 {
        let request = self.request_id();
        self.pending_screenshots.push(request);
        self.send(&ToAgent::Screenshot { request, at });
        request
    }

    /// While stopped at a draw: the value of `expr` just before
    /// `runtime_line` of the stopped shader executes (its first execution),
    /// for every invocation of the draw (fragments: one per pixel).
    pub fn watch(&mut self, runtime_line: u32, expr: &str) -> Result<WatchImage, SessionError> {
        if self.current.is_none() {
            return Err(SessionError::NotStopped);
        }
        let request = self.request_id();
        self.send(&ToAgent::Watch {
            request,
            line: runtime_line,
            expr: expr.to_string(),
        });
        match self.wait_reply(request)? {
            FromAgent::WatchImage {
                width,
                height,
                ty,
                data,
                origin,
                ..
            } => {
                let slots = width as usize * height as usize;
                let values = decode_watch(&data.words(), &ty, slots)
                    .map_err(|e| SessionError::Failed(format!("watch image: {e}")))?;
                Ok(WatchImage {
                    expr: expr.to_string(),
                    ty,
                    line: runtime_line,
                    width,
                    height,
                    values,
                    origin,
                })
            }
            _ => Err(SessionError::Failed("unexpected reply".into())),
        }
    }

    /// Continues from the current stop: at a sanitizer stop with a report
    /// after the one shown, stops at that report ([`Event::Stopped`], its
    /// first invocation recorded; the agent stays stopped at the dispatch);
    /// else leaves the stop as [`Session::resume`] does.
    pub fn continue_(&mut self) {
        loop {
            let Some(c) = self
                .current
                .as_mut()
                .filter(|c| c.reason == StopReason::Sanitizer && c.report + 1 < c.sanitizer.len())
            else {
                // After the last report the program goes on.
                self.resume();
                return;
            };
            c.report += 1;
            let tag = u32::try_from(c.report).ok().map(HitTag::Breakpoint);
            let Some(hit) = c.hits.iter().find(|h| Some(h.tag) == tag).copied() else {
                // A report without its hit (the agent's hit buffer was
                // full) is skipped.
                continue;
            };
            match self.record_in_current(hit.invocation, Some(hit)) {
                Ok(stop) => {
                    self.queue.push_back(Event::Stopped(Box::new(stop)));
                    return;
                }
                Err(e) => self.queue.push_back(Event::AgentError(e.to_string())),
            }
        }
    }

    /// Leaves the current stop (or halt): the program runs on (a sanitizer
    /// stop's reports after the one shown are not shown).
    pub fn resume(&mut self) {
        self.current = None;
        self.send(&ToAgent::Resume);
    }

    /// Removes every breakpoint and lets the program run to its end.
    pub fn detach(&mut self) {
        self.current = None;
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

/// The first line number of a compile log: Mesa's `0:12(5): error`, or
/// `ERROR: 0:12: ...` of other drivers (the runtime source's line).
pub fn error_line(log: &str) -> Option<u32> {
    for line in log.lines() {
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i < b.len()
                    && b[i] == b':'
                    && (start == 0 || !b[start - 1].is_ascii_alphanumeric())
                {
                    let j = i + 1;
                    let mut k = j;
                    while k < b.len() && b[k].is_ascii_digit() {
                        k += 1;
                    }
                    if k > j && k < b.len() && matches!(b[k], b'(' | b':') {
                        return line[j..k].parse().ok();
                    }
                }
            } else {
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::error_line;

    #[test]
    fn compile_log_lines() {
        assert_eq!(error_line("0:12(5): error: `x' undeclared"), Some(12));
        assert_eq!(
            error_line("ERROR: 0:7: 'y' : undeclared identifier"),
            Some(7)
        );
        assert_eq!(error_line("warning only\n1:3(1): error: bad"), Some(3));
        assert_eq!(error_line("no line here"), None);
    }
}
