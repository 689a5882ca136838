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

use shaderdbg_core::decode::{decode, InvocationTrace, Trace};
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
        let dir = profile_dir().join(format!("tmp-dbg-{app}-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("socket dir");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let path: PathBuf = dir.join("agent.sock");
        let listener = UnixListener::bind(&path).expect("bind");
        let child = Command::new(artifacts().app(app))
            .args(args)
            .env("LD_PRELOAD", &artifacts().agent)
            .env(proto::SOCKET_ENV, &path)
            .env_remove("SHADERDBG_TRACE_FILE")
            .env_remove("SHADERDBG_DISABLE")
            .envs(env.iter().copied())
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
    /// The probe table the agent instrumented the shader with.
    pub probes: ProbeTable,
    /// Every shader announced so far.
    pub shaders: Vec<Shader>,
}

impl Stop {
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
    let mut shaders: HashMap<u32, Shader> = HashMap::new();
    while let Some(msg) = s.recv() {
        match msg {
            FromAgent::ShaderCompiled {
                shader,
                stage,
                sources,
                compiled,
                info_log,
                ..
            } => {
                assert!(
                    compiled,
                    "{app}: shader {shader} does not compile: {info_log}"
                );
                let sh = Shader {
                    id: shader,
                    stage,
                    sources,
                };
                let breakpoints = on_shader(&sh);
                if !breakpoints.is_empty() {
                    s.send(&ToAgent::SetBreakpoints {
                        shader,
                        breakpoints,
                    });
                }
                shaders.insert(shader, sh.clone());
                out.shaders.push(sh);
                s.send(&ToAgent::Resume);
            }
            FromAgent::BreakpointStatus {
                shader,
                requested_line,
                line,
                message,
            } => out.statuses.push((shader, requested_line, line, message)),
            FromAgent::Stopped {
                frame,
                draw,
                program,
                shader,
                hits,
                truncated,
                probes,
                ..
            } => {
                out.stops.push((frame, draw, shader));
                let stop = Stop {
                    frame,
                    draw,
                    program,
                    shader: shaders
                        .get(&shader)
                        .cloned()
                        .unwrap_or_else(|| panic!("stop in unannounced shader {shader}")),
                    hits,
                    truncated,
                    probes,
                    shaders: out.shaders.clone(),
                };
                on_stop(&mut s, &stop);
                s.send(&ToAgent::Resume);
            }
            FromAgent::Error { message, .. } => out.errors.push(message),
            _ => {}
        }
    }
    out.stdout = s.finish();
    out
}

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
