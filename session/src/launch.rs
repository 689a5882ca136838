//! Starting a program under the agent: a private socket in a 0700 directory,
//! `LD_PRELOAD` of the agent library, the program's output captured, the
//! agent's connection accepted and greeted.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct LaunchConfig {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    /// The agent library; found next to this executable when not given.
    pub agent: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot find the agent library libshaderdbg_agent.so (set SHADERDBG_AGENT or put it next to {0})")]
    NoAgent(String),
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error(
        "{0} did not load the agent within {1:?} (is it a dynamically linked OpenGL or Vulkan program?)"
    )]
    NoConnection(String, Duration),
    #[error("socket: {0}")]
    Socket(std::io::Error),
    #[error("agent handshake: {0}")]
    Handshake(String),
}

/// What the program and the agent send, in the order it arrives.
#[derive(Debug)]
pub enum Incoming {
    Agent(FromAgent),
    /// The agent's connection closed (the program exited or crashed).
    AgentGone,
    /// The program ended before the agent connected.
    NeverConnected,
    Output {
        stderr: bool,
        line: String,
    },
}

/// A program running under the agent.
pub struct Launched {
    pub child: Child,
    /// The connection to the agent; `None` when the program ended before
    /// it connected (it never used OpenGL or Vulkan).
    pub writer: Option<UnixStream>,
    pub pid: u32,
    socket_dir: PathBuf,
}

impl Drop for Launched {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.socket_dir);
    }
}

/// The agent library: `$SHADERDBG_AGENT`, else next to the running executable
/// (or one level up, for test binaries in `target/<profile>/deps`).
pub fn find_agent() -> Result<PathBuf, LaunchError> {
    if let Some(p) = std::env::var_os("SHADERDBG_AGENT") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| LaunchError::NoAgent(e.to_string()))?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let candidates = [
        dir.join("libshaderdbg_agent.so"),
        dir.join("../libshaderdbg_agent.so"),
        dir.join("../lib/libshaderdbg_agent.so"),
    ];
    candidates
        .into_iter()
        .find(|p| p.exists())
        .ok_or_else(|| LaunchError::NoAgent(dir.display().to_string()))
}

const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// Starts the program; everything it and the agent send goes to `tx`.
pub fn launch(config: &LaunchConfig, tx: Sender<Incoming>) -> Result<Launched, LaunchError> {
    let agent = match &config.agent {
        Some(a) => a.clone(),
        None => find_agent()?,
    };
    let agent = agent.canonicalize().unwrap_or(agent);
    let socket_dir = private_dir().map_err(LaunchError::Socket)?;
    let path = socket_dir.join("agent.sock");
    let listener = UnixListener::bind(&path).map_err(LaunchError::Socket)?;
    listener
        .set_nonblocking(true)
        .map_err(LaunchError::Socket)?;

    let program = config.program.display().to_string();
    let mut cmd = Command::new(&config.program);
    cmd.args(&config.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &config.cwd {
        cmd.current_dir(cwd);
    }
    for (k, v) in &config.env {
        cmd.env(k, v);
    }
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(existing) if !existing.is_empty() => format!("{} {existing}", agent.display()),
        _ => agent.display().to_string(),
    };
    cmd.env("LD_PRELOAD", preload).env(proto::SOCKET_ENV, &path);
    enable_vulkan_layer(&mut cmd, &agent, &socket_dir, &config.env);
    let mut child = cmd.spawn().map_err(|source| LaunchError::Spawn {
        program: program.clone(),
        source,
    })?;
    let pid = child.id();
    forward_output(&mut child, &tx);

    let deadline = Instant::now() + CONNECT_TIMEOUT;
    let stream = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if let Ok(Some(status)) = child.try_wait() {
                    // A program that never used OpenGL or Vulkan: nothing
                    // to debug, but its output and exit are the user's.
                    tracing::info!("{program} exited ({status}) before the agent connected");
                    let _ = tx.send(Incoming::NeverConnected);
                    let _ = tx.send(Incoming::AgentGone);
                    return Ok(Launched {
                        child,
                        writer: None,
                        pid,
                        socket_dir,
                    });
                }
                if Instant::now() > deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(LaunchError::NoConnection(program, CONNECT_TIMEOUT));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(LaunchError::Socket(e)),
        }
    };
    drop(listener);
    let _ = std::fs::remove_file(&path);
    stream.set_nonblocking(false).map_err(LaunchError::Socket)?;
    let mut writer = stream.try_clone().map_err(LaunchError::Socket)?;
    let mut reader = BufReader::new(stream);
    stream_timeout(&reader, Some(Duration::from_secs(30)))?;
    match proto::read_message::<_, FromAgent>(&mut reader) {
        Ok(Some(FromAgent::Hello { version, .. })) if version == proto::VERSION => {}
        Ok(Some(FromAgent::Hello { version, .. })) => {
            return Err(LaunchError::Handshake(
                proto::ProtocolError::Version(version).to_string(),
            ))
        }
        other => {
            return Err(LaunchError::Handshake(format!(
                "expected the agent's hello, got {other:?}"
            )))
        }
    }
    proto::write_message(
        &mut writer,
        &ToAgent::Hello {
            version: proto::VERSION,
        },
    )
    .map_err(|e| LaunchError::Handshake(e.to_string()))?;
    stream_timeout(&reader, None)?;
    std::thread::spawn(move || loop {
        match proto::read_message::<_, FromAgent>(&mut reader) {
            Ok(Some(m)) => {
                if tx.send(Incoming::Agent(m)).is_err() {
                    return;
                }
            }
            Ok(None) | Err(proto::ProtocolError::Io(_)) => {
                let _ = tx.send(Incoming::AgentGone);
                return;
            }
            Err(e) => tracing::warn!("bad message from the agent: {e}"),
        }
    });
    Ok(Launched {
        child,
        writer: Some(writer),
        pid,
        socket_dir,
    })
}

/// Enables the Vulkan agent (a layer, next to the GL agent) for the
/// program through the loader's environment: its manifest goes to the
/// session's private directory, so nothing is installed anywhere. Without
/// the layer library a Vulkan program simply runs undebugged.
fn enable_vulkan_layer(cmd: &mut Command, agent: &Path, dir: &Path, env: &[(String, String)]) {
    let Some(library) = agent
        .parent()
        .map(|d| d.join(proto::vulkan::LIBRARY))
        .filter(|l| l.exists())
    else {
        tracing::info!(
            "no {} next to the agent: Vulkan is not debugged",
            proto::vulkan::LIBRARY
        );
        return;
    };
    let manifest = proto::vulkan::manifest(&library.display().to_string());
    if let Err(e) = std::fs::write(dir.join(proto::vulkan::MANIFEST), manifest) {
        tracing::warn!("cannot write the Vulkan layer manifest: {e}");
        return;
    }
    // The program's own settings (its environment, then the launch
    // configuration's) come after ours.
    let var = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
            .filter(|v| !v.is_empty())
    };
    let joined = |ours: String, name: &str| match var(name) {
        Some(theirs) => format!("{ours}:{theirs}"),
        None => ours,
    };
    cmd.env(
        "VK_ADD_LAYER_PATH",
        joined(dir.display().to_string(), "VK_ADD_LAYER_PATH"),
    )
    .env(
        "VK_INSTANCE_LAYERS",
        joined(proto::vulkan::LAYER_NAME.to_string(), "VK_INSTANCE_LAYERS"),
    );
}

fn stream_timeout(reader: &BufReader<UnixStream>, t: Option<Duration>) -> Result<(), LaunchError> {
    reader
        .get_ref()
        .set_read_timeout(t)
        .map_err(LaunchError::Socket)
}

/// A fresh directory only this user can enter.
fn private_dir() -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    loop {
        let dir = base.join(format!(
            "shaderdbg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

fn forward_output(child: &mut Child, tx: &Sender<Incoming>) {
    let streams: [(bool, Option<Box<dyn std::io::Read + Send>>); 2] = [
        (
            false,
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ),
        (
            true,
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ),
    ];
    for (stderr, stream) in streams {
        let Some(stream) = stream else { continue };
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { return };
                if tx.send(Incoming::Output { stderr, line }).is_err() {
                    return;
                }
            }
        });
    }
}
