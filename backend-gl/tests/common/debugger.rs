//! A scripted debugger over the real socket protocol: starts a test app
//! under the agent, answers shader announcements with breakpoints, and hands
//! every stop to the test, which asks for recordings and watch images before
//! the script resumes. Also: the app's output without the agent, and
//! decoding of recordings.

use std::collections::HashMap;
use std::io::BufReader;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use shaderdbg_core::decode::{decode, InvocationTrace, SanitizerReport, Trace};
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::{Stage, Value};
use shaderdbg_glsl::instrument::probe_table;
use shaderdbg_glsl::parse::parse;
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

use super::{artifacts, profile_dir};

/// A debugger connection to an app running under the agent.
pub struct Session {
    app: String,
    child: Child,
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_request: u64,
}

impl Session {
    /// Starts test app `app` with `args` under the agent, accepts its
    /// connection and exchanges `Hello`.
    pub fn start(app: &str, args: &[&str], tag: &str) -> Session {
        Self::start_with_env(app, args, tag, &[])
    }

    /// [`Session::start`] with more environment variables for the app
    /// (`SHADERDBG_LOG`, to read what the agent did).
    pub fn start_with_env(
        app: &str,
        args: &[&str],
        tag: &str,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Session {
        let mut cmd = Command::new(artifacts().app(app));
        cmd.args(args)
            .env("LD_PRELOAD", &artifacts().agent)
            .env_remove("SHADERDBG_TRACE_FILE")
            .env_remove("SHADERDBG_DISABLE")
            .envs(env.iter().copied());
        Self::spawn(app, cmd, tag)
    }

    /// Starts `cmd` (named `app` in messages), which preloads the agent
    /// where it wants it (`LD_PRELOAD`), with the debugger's socket in its
    /// environment; accepts the agent's connection and exchanges `Hello`.
    pub fn spawn(app: &str, mut cmd: Command, tag: &str) -> Session {
        let dir = profile_dir().join(format!("tmp-dbg-{app}-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("socket dir");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let path: PathBuf = dir.join("agent.sock");
        let listener = UnixListener::bind(&path).expect("bind");
        let child = cmd
            .env(proto::SOCKET_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {app}: {e}"));
        listener.set_nonblocking(true).expect("nonblocking");
        let deadline = Instant::now() + Duration::from_secs(60);
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(e) => panic!("the agent in {app} did not connect: {e}"),
            }
        };
        let _ = std::fs::remove_dir_all(&dir);
        stream.set_nonblocking(false).expect("blocking");
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .expect("timeout");
        let writer = stream.try_clone().expect("clone");
        let mut s = Session {
            app: app.to_string(),
            child,
            reader: BufReader::new(stream),
            writer,
            next_request: 1,
        };
        match s.recv() {
            Some(FromAgent::Hello { version, .. }) => assert_eq!(version, proto::VERSION),
            other => panic!("expected hello, got {other:?}"),
        }
        s.send(&ToAgent::Hello {
            version: proto::VERSION,
        });
        s
    }

    pub fn send(&mut self, msg: &ToAgent) {
        proto::write_message(&mut self.writer, msg).expect("send");
    }

    pub fn recv(&mut self) -> Option<FromAgent> {
        proto::read_message(&mut self.reader).expect("a well-formed message")
    }

    /// While stopped: records one invocation; the step log's words, or the
    /// agent's error.
    pub fn record(&mut self, selector: proto::Invocation) -> Result<Vec<u32>, String> {
        let request = self.next_request;
        self.next_request += 1;
        self.send(&ToAgent::Record { request, selector });
        match self.recv() {
            Some(FromAgent::Recorded {
                request: r,
                selector: s,
                log,
                ..
            }) if r == request => {
                assert_eq!(s, selector);
                Ok(log.words())
            }
            Some(FromAgent::Error {
                request: Some(r),
                message,
            }) if r == request => Err(message),
            other => panic!("expected the recording of request {request}, got {other:?}"),
        }
    }

    /// While stopped: records one invocation of `shader` and decodes it
    /// with the shader's probe table.
    pub fn record_decoded(
        &mut self,
        shader: &Shader,
        selector: proto::Invocation,
    ) -> (Trace, ProbeTable) {
        let words = self.record(selector).expect("a recording");
        shader.decode(&words)
    }

    /// While stopped: a watch image (width, height, words per value, data).
    pub fn watch(&mut self, line: u32, expr: &str) -> Result<(u32, u32, u32, Vec<u32>), String> {
        let request = self.next_request;
        self.next_request += 1;
        self.send(&ToAgent::Watch {
            request,
            line,
            expr: expr.into(),
        });
        match self.recv() {
            Some(FromAgent::WatchImage {
                request: r,
                width,
                height,
                value_words,
                data,
                ..
            }) if r == request => Ok((width, height, value_words, data.words())),
            Some(FromAgent::Error {
                request: Some(r),
                message,
            }) if r == request => Err(message),
            other => panic!("expected the watch image of request {request}, got {other:?}"),
        }
    }

    /// Hangs up and waits for the app to exit; returns its stdout.
    pub fn finish(self) -> String {
        drop(self.writer);
        drop(self.reader);
        let out = self.child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{} failed under the debugger: {}",
            self.app,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// A shader the agent announced.
#[derive(Clone, Debug)]
pub struct Shader {
    pub id: u32,
    pub stage: proto::Stage,
    pub sources: Vec<String>,
}

impl Shader {
    /// The shader `msg` announces, if it is a `ShaderCompiled`.
    pub fn announced(msg: &FromAgent) -> Option<Shader> {
        match msg {
            FromAgent::ShaderCompiled {
                shader,
                stage,
                sources,
                ..
            } => Some(Shader {
                id: *shader,
                stage: *stage,
                sources: sources.clone(),
            }),
            _ => None,
        }
    }

    /// The shader with id `id` among `shaders`, its latest announcement (a
    /// stop names an announced shader).
    pub fn find(shaders: &[Shader], id: u32) -> &Shader {
        shaders
            .iter()
            .rev()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("stop in unannounced shader {id}"))
    }

    /// The 1-based line of the first line of the runtime source containing
    /// `needle`.
    pub fn line_of(&self, needle: &str) -> u32 {
        self.sources
            .concat()
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?}")) as u32
            + 1
    }

    /// Whether this is the shader whose source is `text`.
    pub fn is(&self, text: &str) -> bool {
        self.sources.concat() == text
    }

    pub fn glsl_stage(&self) -> Stage {
        match self.stage {
            proto::Stage::Vertex => Stage::Vertex,
            proto::Stage::TessControl => Stage::TessControl,
            proto::Stage::TessEvaluation => Stage::TessEvaluation,
            proto::Stage::Geometry => Stage::Geometry,
            proto::Stage::Fragment => Stage::Fragment,
            proto::Stage::Compute => Stage::Compute,
        }
    }

    /// The probe table of the runtime sources (what a recording decodes with).
    pub fn table(&self) -> ProbeTable {
        let strings: Vec<&str> = self.sources.iter().map(String::as_str).collect();
        let parsed = parse(&strings, self.glsl_stage(), None).expect("the shader parses");
        probe_table(&parsed)
    }

    /// Decodes a recording of this shader.
    pub fn decode(&self, words: &[u32]) -> (Trace, ProbeTable) {
        let table = self.table();
        let trace = decode(words, &table).expect("the recording decodes");
        (trace, table)
    }
}

/// A stop, as the test's stop handler sees it.
#[derive(Clone, Debug)]
pub struct Stop {
    pub frame: u64,
    pub draw: u64,
    pub program: u32,
    pub shader: Shader,
    pub hits: Vec<proto::Hit>,
    pub truncated: bool,
    pub reason: proto::StopReason,
    /// What the sanitizer found (a `StopReason::Sanitizer` stop).
    pub reports: Vec<SanitizerReport>,
    /// The probe table the agent instrumented the shader with.
    pub probes: ProbeTable,
    /// Every shader announced so far.
    pub shaders: Vec<Shader>,
}

impl Stop {
    /// The stop `msg` says, if it is a `Stopped`, in one of the announced
    /// `shaders`.
    pub fn of(msg: &FromAgent, shaders: &[Shader]) -> Option<Stop> {
        let FromAgent::Stopped {
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
        } = msg
        else {
            return None;
        };
        Some(Stop {
            frame: *frame,
            draw: *draw,
            program: *program,
            shader: Shader::find(shaders, *shader).clone(),
            hits: hits.clone(),
            truncated: *truncated,
            reason: *reason,
            reports: sanitizer.clone(),
            probes: probes.clone(),
            shaders: shaders.to_vec(),
        })
    }

    /// The announced shader whose source is `text`.
    pub fn shader_with(&self, text: &str) -> &Shader {
        self.shaders
            .iter()
            .find(|s| s.is(text))
            .expect("the shader was announced")
    }
}

/// What happened in a scripted session.
#[derive(Debug, Default)]
pub struct Outcome {
    /// (frame, draw, shader) of every stop.
    pub stops: Vec<(u64, u64, u32)>,
    /// Every `Error` message the agent sent outside requests.
    pub errors: Vec<String>,
    /// (shader, requested line, bound line, message) of every breakpoint.
    pub statuses: Vec<(u32, u32, Option<u32>, Option<String>)>,
    /// Every shader announced.
    pub shaders: Vec<Shader>,
    /// The app's stdout.
    pub stdout: String,
}

/// Answers every message with `f` (which may send requests and read their
/// answers) and resumes after shader announcements, stops and GL-error
/// stops; `f` also gets every shader announced so far (the one `msg`
/// announces included). Every message and the app's stdout.
pub fn drive(
    mut s: Session,
    mut f: impl FnMut(&mut Session, &FromAgent, &[Shader]),
) -> (Vec<FromAgent>, String) {
    let mut all = Vec::new();
    let mut shaders = Vec::new();
    while let Some(msg) = s.recv() {
        shaders.extend(Shader::announced(&msg));
        f(&mut s, &msg, &shaders);
        let resume = matches!(
            msg,
            FromAgent::ShaderCompiled { .. }
                | FromAgent::Stopped { .. }
                | FromAgent::GlError { .. }
        );
        all.push(msg);
        if resume {
            s.send(&ToAgent::Resume);
        }
    }
    (all, s.finish())
}

/// Runs `app` under the debugger: `filter` is set first; every announced
/// shader gets the breakpoints `on_shader` returns (none: an empty list is not
/// sent); every stop goes to `on_stop`, then the script resumes.
pub fn debug(
    app: &str,
    args: &[&str],
    tag: &str,
    filter: proto::StopFilter,
    mut on_shader: impl FnMut(&Shader) -> Vec<proto::LineBreakpoint>,
    mut on_stop: impl FnMut(&mut Session, &Stop),
) -> Outcome {
    let mut s = Session::start(app, args, tag);
    s.send(&ToAgent::SetStopFilter(filter));
    let mut out = Outcome::default();
    let (_, stdout) = drive(s, |s, msg, shaders| match msg {
        FromAgent::ShaderCompiled {
            shader,
            compiled,
            info_log,
            ..
        } => {
            assert!(
                *compiled,
                "{app}: shader {shader} does not compile: {info_log}"
            );
            let sh = Shader::find(shaders, *shader);
            let breakpoints = on_shader(sh);
            if !breakpoints.is_empty() {
                s.send(&ToAgent::SetBreakpoints {
                    shader: *shader,
                    breakpoints,
                });
            }
            out.shaders.push(sh.clone());
        }
        FromAgent::BreakpointStatus {
            shader,
            requested_line,
            line,
            message,
        } => out
            .statuses
            .push((*shader, *requested_line, *line, message.clone())),
        FromAgent::Stopped { .. } => {
            let stop = Stop::of(msg, shaders).expect("a stop");
            out.stops.push((stop.frame, stop.draw, stop.shader.id));
            on_stop(s, &stop);
        }
        FromAgent::Error { message, .. } => out.errors.push(message.clone()),
        _ => {}
    });
    out.stdout = stdout;
    out
}

/// A stop whose first hit's invocation was recorded (see
/// [`record_first_hits`]).
pub struct RecordedStop {
    pub frame: u64,
    pub reason: proto::StopReason,
    pub shader: Shader,
    pub reports: Vec<SanitizerReport>,
    pub hits: Vec<proto::Hit>,
    /// The step log of the first hit's invocation, or the agent's error.
    pub recording: Result<Vec<u32>, String>,
}

/// Runs the script `s` to the app's end, recording the first hit's
/// invocation at every stop: the stops, the agent's `Error` messages and
/// the app's stdout.
pub fn record_first_hits(s: Session) -> (Vec<RecordedStop>, Vec<String>, String) {
    let mut stops = Vec::new();
    let mut errors = Vec::new();
    let (_, stdout) = drive(s, |s, msg, shaders| match Stop::of(msg, shaders) {
        Some(stop) => stops.push(RecordedStop {
            recording: s.record(stop.hits[0].invocation),
            frame: stop.frame,
            reason: stop.reason,
            shader: stop.shader,
            reports: stop.reports,
            hits: stop.hits,
        }),
        None => {
            if let FromAgent::Error { message, .. } = msg {
                errors.push(message.clone());
            }
        }
    });
    (stops, errors, stdout)
}

/// The agent's log of one run (`SHADERDBG_LOG`, debug level), in the
/// profile directory.
pub struct AgentLog(PathBuf);

impl AgentLog {
    /// A fresh log named after `name` and this process.
    pub fn new(name: &str) -> AgentLog {
        let path = profile_dir().join(format!("{name}-{}.log", std::process::id()));
        let _ = std::fs::remove_file(&path);
        AgentLog(path)
    }

    /// Starts `app` under the agent logging here ([`Session::start_with_env`]).
    pub fn start(&self, app: &str, args: &[&str], tag: &str) -> Session {
        self.start_with_env(app, args, tag, &[])
    }

    /// [`AgentLog::start`] with more environment variables for the app.
    pub fn start_with_env(
        &self,
        app: &str,
        args: &[&str],
        tag: &str,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Session {
        let mut all = vec![
            ("SHADERDBG_LOG", self.0.as_os_str()),
            ("SHADERDBG_LOG_LEVEL", std::ffi::OsStr::new("debug")),
        ];
        all.extend_from_slice(env);
        Session::start_with_env(app, args, tag, &all)
    }

    /// [`Session::spawn`] of `cmd` logging here.
    pub fn spawn(&self, app: &str, mut cmd: Command, tag: &str) -> Session {
        cmd.env("SHADERDBG_LOG", &self.0)
            .env("SHADERDBG_LOG_LEVEL", "debug");
        Session::spawn(app, cmd, tag)
    }

    /// What the agent wrote (empty if nothing); removes the file.
    pub fn take(self) -> String {
        let text = std::fs::read_to_string(&self.0).unwrap_or_default();
        let _ = std::fs::remove_file(&self.0);
        text
    }
}

/// Every exception filter off; set the ones a test wants with
/// `..NO_FILTERS`.
pub const NO_FILTERS: proto::ExceptionFilters = proto::ExceptionFilters {
    nan_inf: false,
    gl_error: false,
    sanitize_oob: false,
    sanitize_uninit: false,
    sanitize_race: false,
};

/// Every sanitizer check on.
pub const EVERY_CHECK: proto::ExceptionFilters = proto::ExceptionFilters {
    sanitize_oob: true,
    sanitize_uninit: true,
    sanitize_race: true,
    ..NO_FILTERS
};

/// The app's stdout without the agent.
pub fn run_plain(app: &str, args: &[&str]) -> String {
    let mut cmd = Command::new(artifacts().app(app));
    cmd.env_remove("LD_PRELOAD");
    stdout_of(app, "", cmd.args(args))
}

/// The app's stdout under the agent with no debugger.
pub fn run_preloaded(app: &str, args: &[&str]) -> String {
    let mut cmd = Command::new(artifacts().app(app));
    cmd.env("LD_PRELOAD", &artifacts().agent)
        .env_remove(proto::SOCKET_ENV)
        .env_remove("SHADERDBG_TRACE_FILE")
        .env_remove("SHADERDBG_DISABLE");
    stdout_of(app, " under the agent", cmd.args(args))
}

/// Runs `cmd` (test app `app`) to its end; its stdout, after checking it
/// succeeded.
fn stdout_of(app: &str, how: &str, cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {app}: {e}"));
    assert!(
        out.status.success(),
        "{app} failed{how}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The value of every variable after the invocation's last write, by name
/// (all writes folded, locals of every frame included).
pub fn final_values(inv: &InvocationTrace, table: &ProbeTable) -> HashMap<String, Value> {
    let mut values: HashMap<String, Value> = HashMap::new();
    for w in &inv.writes {
        let var = &table.vars[w.decl];
        let slot = values
            .entry(var.name.clone())
            .or_insert_with(|| Value::undefined_of(&var.ty));
        slot.set_path(&w.path, w.value.clone());
    }
    values
}

/// A vector of floats.
pub fn floats(v: &[f32]) -> Value {
    Value::List(v.iter().map(|x| Value::Float(*x)).collect())
}

/// A vector of unsigned ints.
pub fn uints(v: &[u32]) -> Value {
    Value::List(v.iter().map(|x| Value::Uint(*x)).collect())
}

/// A breakpoint.
pub fn bp(line: u32, condition: Option<&str>) -> proto::LineBreakpoint {
    proto::LineBreakpoint {
        id: 0,
        line,
        condition: condition.map(str::to_string),
    }
}
