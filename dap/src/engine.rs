//! The session engine on its own thread: starts the program, pumps
//! [`Session::next_event`] and carries out resume/detach/kill. Everything it
//! learns goes to the dispatcher's input channel, so the dispatcher waits on
//! one channel for both the client and the program.

use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread::JoinHandle;
use std::time::Duration;

use shaderdbg_session::binding::FileBreakpoint;
use shaderdbg_session::launch::LaunchConfig;
use shaderdbg_session::StopFilter;
use shaderdbg_session::{Event, Session};

use crate::Input;

/// Work run on the session's thread.
pub type Job = Box<dyn FnOnce(&mut Session) + Send>;

/// What the dispatcher asks of the running session.
pub enum Command {
    /// Leave the stop: the program runs on.
    Resume,
    /// Continue from the stop: a sanitizer stop's next report first
    /// ([`Session::continue_`]), else as `Resume`.
    Continue,
    /// Remove every breakpoint and let the program run to its end.
    Detach,
    Kill,
    /// Anything else, run on the session (see [`Engine::call`]).
    Call(Job),
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Command::Resume => "Resume",
            Command::Continue => "Continue",
            Command::Detach => "Detach",
            Command::Kill => "Kill",
            Command::Call(_) => "Call",
        })
    }
}

/// The session's thread has ended: the program exited (or never started).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the program has ended")]
pub struct Ended;

/// The session thread's stack, as the architecture promises engine work in
/// servers: session work (parsing, instrumenting, decoding) recurses within
/// `glsl::limits`, for which 8 MiB is enough in debug builds; 16 leaves room.
const STACK: usize = 16 << 20;

/// What the engine thread reports.
pub enum EngineEvent {
    Started { pid: u32 },
    StartFailed(String),
    Session(Event),
}

pub struct Engine {
    commands: Sender<Command>,
    thread: Option<JoinHandle<()>>,
}

/// How long one wait for the session lasts before commands are looked at again.
const POLL: Duration = Duration::from_millis(5);

impl Engine {
    pub fn start(
        config: LaunchConfig,
        breakpoints: Vec<FileBreakpoint>,
        filter: StopFilter,
        init: Job,
        out: Sender<Input>,
    ) -> Engine {
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("session".into())
            .stack_size(STACK)
            .spawn(move || run(config, breakpoints, filter, init, rx, out))
            .expect("spawning the session thread");
        Engine {
            commands: tx,
            thread: Some(thread),
        }
    }

    pub fn send(&self, c: Command) {
        if let Err(e) = self.commands.send(c) {
            tracing::debug!("{:?}: the session has ended", e.0);
        }
    }

    /// Runs `f` on the session and waits for its result (events that come
    /// meanwhile keep their order on the dispatcher's channel).
    pub fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, Ended> {
        let (tx, rx) = mpsc::channel();
        self.send(Command::Call(Box::new(move |s| {
            let _ = tx.send(f(s));
        })));
        rx.recv().map_err(|_| Ended)
    }

    /// Whether the thread has ended (the program exited, or never started).
    pub fn finished(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Waits for the thread to end.
    pub fn join(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(
    config: LaunchConfig,
    breakpoints: Vec<FileBreakpoint>,
    filter: StopFilter,
    init: Job,
    commands: Receiver<Command>,
    out: Sender<Input>,
) {
    let send = |e: EngineEvent| out.send(Input::Engine(e)).is_ok();
    let mut session = match Session::start(&config, breakpoints, filter) {
        Ok(s) => s,
        Err(e) => {
            send(EngineEvent::StartFailed(e.to_string()));
            return;
        }
    };
    init(&mut session);
    tracing::info!(pid = session.pid(), "program started");
    send(EngineEvent::Started { pid: session.pid() });
    let mut dispatcher_gone = false;
    loop {
        loop {
            match commands.try_recv() {
                Ok(Command::Resume) => session.resume(),
                Ok(Command::Continue) => session.continue_(),
                Ok(Command::Detach) => session.detach(),
                Ok(Command::Kill) => session.kill(),
                Ok(Command::Call(f)) => f(&mut session),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if !dispatcher_gone {
                        // Nobody will answer stops: let the program run to its end.
                        session.detach();
                        dispatcher_gone = true;
                    }
                    break;
                }
            }
        }
        match session.next_event(POLL) {
            Some(e) => {
                let exited = matches!(e, Event::Exited { .. });
                if !send(EngineEvent::Session(e)) && !dispatcher_gone {
                    session.detach();
                    dispatcher_gone = true;
                }
                if exited {
                    return;
                }
            }
            None if session.has_exited() => return,
            None => {}
        }
    }
}
