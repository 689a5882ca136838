//! The connection to the debugger: a Unix socket named by `SHADERDBG_SOCKET`,
//! opened at the first intercepted call. No socket, a refused connection, or a
//! debugger that hangs up: the application runs on as if nothing were there.

use std::io::BufReader;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

pub struct Debugger {
    writer: Mutex<UnixStream>,
    rx: Mutex<Receiver<ToAgent>>,
    alive: AtomicBool,
}

/// How long the agent waits for the debugger's `Hello`.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// The debugger, if one is connected and still there.
pub fn get() -> Option<&'static Debugger> {
    static DEBUGGER: OnceLock<Option<Debugger>> = OnceLock::new();
    DEBUGGER
        .get_or_init(|| match connect() {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!("not debugging: {e}");
                None
            }
        })
        .as_ref()
        .filter(|d| d.alive.load(Ordering::Acquire))
}

fn connect() -> Result<Option<Debugger>, String> {
    let Some(path) = std::env::var_os(proto::SOCKET_ENV) else {
        return Ok(None);
    };
    let stream = UnixStream::connect(&path).map_err(|e| format!("connect {path:?}: {e}"))?;
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    proto::write_message(
        &mut writer,
        &FromAgent::Hello {
            version: proto::VERSION,
            pid: std::process::id(),
            exe,
        },
    )
    .map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(HELLO_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    match proto::read_message::<_, ToAgent>(&mut reader).map_err(|e| e.to_string())? {
        Some(ToAgent::Hello { version }) if version == proto::VERSION => {}
        Some(ToAgent::Hello { version }) => {
            return Err(proto::ProtocolError::Version(version).to_string())
        }
        other => return Err(format!("expected the debugger's hello, got {other:?}")),
    }
    reader
        .get_ref()
        .set_read_timeout(None)
        .map_err(|e| e.to_string())?;
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("shaderdbg-agent".into())
        .spawn(move || loop {
            match proto::read_message::<_, ToAgent>(&mut reader) {
                Ok(Some(msg)) => {
                    if tx.send(msg).is_err() {
                        return;
                    }
                }
                Ok(None) => return,
                Err(proto::ProtocolError::Malformed(e)) => {
                    tracing::warn!("malformed message from the debugger: {e}")
                }
                Err(e) => {
                    tracing::warn!("debugger connection lost: {e}");
                    return;
                }
            }
        })
        .map_err(|e| e.to_string())?;
    tracing::info!(path = ?path, "connected to the debugger");
    Ok(Some(Debugger {
        writer: Mutex::new(writer),
        rx: Mutex::new(rx),
        alive: AtomicBool::new(true),
    }))
}

impl Debugger {
    /// Sends a message; a failure means the debugger is gone.
    pub fn send(&self, msg: &FromAgent) {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = proto::write_message(&mut *w, msg) {
            tracing::warn!("debugger gone: {e}");
            self.alive.store(false, Ordering::Release);
        }
    }

    /// A message if one is waiting.
    pub fn try_recv(&self) -> Option<ToAgent> {
        let rx = self.rx.lock().unwrap_or_else(|e| e.into_inner());
        match rx.try_recv() {
            Ok(m) => Some(m),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.alive.store(false, Ordering::Release);
                None
            }
        }
    }

    /// Waits for the next message; `None` once the debugger is gone.
    pub fn recv(&self) -> Option<ToAgent> {
        let rx = self.rx.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(m) => return Some(m),
                Err(RecvTimeoutError::Timeout) if self.alive.load(Ordering::Acquire) => continue,
                Err(_) => {
                    self.alive.store(false, Ordering::Release);
                    return None;
                }
            }
        }
    }
}
