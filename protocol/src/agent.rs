//! The agent's end of the connection (every agent: the GL preload library,
//! the Vulkan layer): a Unix socket named by [`SOCKET_ENV`], opened at the
//! first intercepted call. No socket, a refused connection, or a debugger
//! that hangs up: the application runs on as if nothing were there.

use std::io::BufReader;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::{read_message, write_message, FromAgent, ProtocolError, ToAgent, SOCKET_ENV, VERSION};

/// How long an agent waits for the debugger's `Hello`.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("connect {path}: {source}")]
    Connect {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    #[error("expected the debugger's hello, got {0}")]
    NoHello(String),
    #[error("cannot start the reader thread: {0}")]
    Thread(std::io::Error),
}

/// The process's debugger, connected at the first call, if one asked for
/// us and is still there.
pub fn debugger() -> Option<&'static Debugger> {
    static DEBUGGER: OnceLock<Option<Debugger>> = OnceLock::new();
    DEBUGGER
        .get_or_init(|| match Debugger::connect() {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!("not debugging: {e}");
                None
            }
        })
        .as_ref()
        .filter(|d| d.is_alive())
}

/// A connected debugger. Messages from it are read on a thread of their own.
pub struct Debugger {
    writer: Mutex<UnixStream>,
    rx: Mutex<Receiver<ToAgent>>,
    alive: AtomicBool,
}

impl Debugger {
    /// Connects to the debugger named in the environment and exchanges
    /// `Hello`s; `Ok(None)` when no debugger asked for us.
    pub fn connect() -> Result<Option<Debugger>, ConnectError> {
        let Some(path) = std::env::var_os(SOCKET_ENV) else {
            return Ok(None);
        };
        let io = |source| ConnectError::Connect {
            path: path.to_string_lossy().into_owned(),
            source,
        };
        let stream = UnixStream::connect(&path).map_err(io)?;
        let mut writer = stream.try_clone().map_err(io)?;
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let hello = FromAgent::Hello {
            version: VERSION,
            pid: std::process::id(),
            exe,
        };
        write_message(&mut writer, &hello)?;
        stream.set_read_timeout(Some(HELLO_TIMEOUT)).map_err(io)?;
        let mut reader = BufReader::new(stream);
        match read_message::<_, ToAgent>(&mut reader)? {
            Some(ToAgent::Hello { version }) if version == VERSION => {}
            Some(ToAgent::Hello { version }) => return Err(ProtocolError::Version(version).into()),
            other => return Err(ConnectError::NoHello(format!("{other:?}"))),
        }
        reader.get_ref().set_read_timeout(None).map_err(io)?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("shaderdbg-agent".into())
            .spawn(move || loop {
                match read_message::<_, ToAgent>(&mut reader) {
                    Ok(Some(msg)) => {
                        if tx.send(msg).is_err() {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(ProtocolError::Malformed(e)) => {
                        tracing::warn!("malformed message from the debugger: {e}")
                    }
                    Err(e) => {
                        tracing::warn!("debugger connection lost: {e}");
                        return;
                    }
                }
            })
            .map_err(ConnectError::Thread)?;
        tracing::info!(path = ?path, "connected to the debugger");
        Ok(Some(Debugger {
            writer: Mutex::new(writer),
            rx: Mutex::new(rx),
            alive: AtomicBool::new(true),
        }))
    }

    /// Whether the debugger is still there.
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }

    /// Sends a message; a failure means the debugger is gone.
    pub fn send(&self, msg: &FromAgent) {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = write_message(&mut *w, msg) {
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

    /// Answers the screenshot requests `due` at the end of `frame` with one
    /// image (width, height, RGBA rows) or the error message taking it gave;
    /// a request for a frame that had already ended is told so. `origin`:
    /// `gl_FragCoord`'s in the agent's API.
    pub fn send_frame_end_screenshots(
        &self,
        due: Vec<(u64, Option<u64>)>,
        frame: u64,
        image: Result<(u32, u32, &[u8]), &str>,
        origin: crate::Origin,
    ) {
        for (request, wanted) in due {
            self.send(&match (image, wanted) {
                (_, Some(f)) if f < frame => FromAgent::Error {
                    request: Some(request),
                    message: format!("frame {f} had already ended (now ending frame {frame})"),
                },
                (Ok((width, height, rgba)), _) => FromAgent::Screenshot {
                    request,
                    frame,
                    width,
                    height,
                    shows: crate::ScreenshotShows::FrameEnd,
                    origin,
                    rgba: crate::Blob(rgba.to_vec()),
                },
                (Err(message), _) => FromAgent::Error {
                    request: Some(request),
                    message: message.to_string(),
                },
            });
        }
    }

    /// Waits for the next message; `None` once the debugger is gone.
    pub fn recv(&self) -> Option<ToAgent> {
        let rx = self.rx.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(m) => return Some(m),
                Err(RecvTimeoutError::Timeout) if self.is_alive() => continue,
                Err(_) => {
                    self.alive.store(false, Ordering::Release);
                    return None;
                }
            }
        }
    }
}

/// `Screenshot { at: FrameEnd }` requests waiting for a frame's end: each
/// request and the frame whose end it asks for (none: the next to end).
#[derive(Debug, Default)]
pub struct FrameEndScreenshots(Vec<(u64, Option<u64>)>);

impl FrameEndScreenshots {
    pub const fn new() -> Self {
        FrameEndScreenshots(Vec::new())
    }

    pub fn push(&mut self, request: u64, frame: Option<u64>) {
        self.0.push((request, frame));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Takes the requests due at the end of `frame`: those for it, for an
    /// earlier frame, or for whichever frame ends next.
    pub fn take_due(&mut self, frame: u64) -> Vec<(u64, Option<u64>)> {
        let (due, later) = std::mem::take(&mut self.0)
            .into_iter()
            .partition(|(_, f)| f.is_none_or(|f| f <= frame));
        self.0 = later;
        due
    }
}

#[cfg(test)]
mod tests {
    use super::FrameEndScreenshots;

    #[test]
    fn screenshots_are_due_at_their_frames_end_or_the_next() {
        let mut pending = FrameEndScreenshots::new();
        pending.push(1, Some(5));
        pending.push(2, None);
        pending.push(3, Some(3));
        assert_eq!(pending.take_due(4), vec![(2, None), (3, Some(3))]);
        assert_eq!(pending.take_due(5), vec![(1, Some(5))]);
        assert!(pending.is_empty());
    }
}
