//! The router: every frame from the client is read as a [`Request`],
//! routed to its handler (`crate::handlers`), and answered with the typed
//! response — `success: false` with a message when it cannot be served,
//! including unknown commands and malformed frames. Events a handler causes
//! follow its response; session events become DAP events (`crate::events`).

use std::io::Write;
use std::sync::mpsc::{Receiver, Sender};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::engine::Command;
use crate::error::Error;
use crate::framing::FrameError;
use crate::protocol::{Incoming, Request};
use crate::state::Adapter;
use crate::Input;

/// The adapter with its input loop.
pub struct Server<W: Write> {
    adapter: Adapter<W>,
}

impl<W: Write> Server<W> {
    pub fn new(w: W, rx: Receiver<Input>, tx: Sender<Input>) -> Self {
        Server {
            adapter: Adapter::new(w, rx, tx),
        }
    }

    /// Serves until `disconnect` or the end of the client's stream; then
    /// makes sure the program is not left waiting on a debugger.
    pub fn run(mut self) {
        let ad = &mut self.adapter;
        while !ad.done {
            let Ok(input) = ad.rx.recv() else { break };
            match input {
                Input::Client(Ok(msg)) => message(ad, msg),
                Input::Client(Err(e)) => bad_frame(ad, e),
                Input::ClientGone => {
                    tracing::info!("the client closed the connection");
                    ad.release(Command::Detach);
                    break;
                }
                Input::Engine(e) => ad.engine_event(e),
            }
        }
        // A detached program still writes to our pipes: keep reading them
        // (and telling the client, while it listens) until it ends, so that
        // it is not killed by a broken pipe. Any stop still in flight is
        // resumed (`done`).
        ad.done = true;
        while let Some(engine) = &ad.engine {
            let finished = engine.finished();
            match ad.rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Input::Engine(e)) => ad.engine_event(e),
                Ok(_) => {}
                Err(_) if finished => break,
                Err(_) => {}
            }
        }
        if let Some(engine) = &mut ad.engine {
            engine.join();
        }
    }
}

fn bad_frame<W: Write>(ad: &mut Adapter<W>, e: FrameError) {
    tracing::warn!("{e}");
    ad.out.respond::<()>(0, "", Err(Error::Frame(e)));
}

fn message<W: Write>(ad: &mut Adapter<W>, msg: Value) {
    tracing::debug!("-> {msg}");
    let (seq, command, arguments) = match Incoming::read(msg) {
        Incoming::Request {
            seq,
            command,
            arguments,
        } => (seq, command, arguments),
        Incoming::Ignored { kind, request_seq } => {
            // No reverse requests are sent: nothing waits for a response.
            tracing::debug!(?request_seq, "ignoring a client {kind}");
            return;
        }
        Incoming::Malformed {
            seq,
            command,
            error,
        } => {
            ad.out.respond::<()>(seq, &command, Err(error));
            return;
        }
    };
    if !ad.initialized && !matches!(command.as_str(), "initialize" | "disconnect") {
        ad.out
            .respond::<()>(seq, &command, Err(Error::NotInitialized(command.clone())));
        return;
    }
    match Request::parse(&command, arguments) {
        Ok(request) => route(ad, seq, &command, request),
        Err(e) => ad.out.respond::<()>(seq, &command, Err(e)),
    }
    for event in std::mem::take(&mut ad.after) {
        ad.out.event(event);
    }
}

/// Calls the request's handler and answers with what it returns.
fn route<W: Write>(ad: &mut Adapter<W>, seq: i64, command: &str, request: Request) {
    match request {
        Request::Initialize(a) => respond(ad, seq, command, |ad| ad.initialize(a)),
        Request::Launch(a) => respond(ad, seq, command, |ad| ad.launch(a)),
        Request::Attach => respond(ad, seq, command, |_| Err::<(), _>(Error::AttachUnsupported)),
        Request::ConfigurationDone => respond(ad, seq, command, Adapter::configuration_done),
        Request::Disconnect(a) => respond(ad, seq, command, |ad| ad.disconnect(a)),
        Request::Terminate => respond(ad, seq, command, Adapter::terminate),
        Request::Restart(a) => respond(ad, seq, command, |ad| ad.restart(a)),
        Request::SetBreakpoints(a) => respond(ad, seq, command, |ad| ad.set_breakpoints(a)),
        Request::SetExceptionBreakpoints(a) => {
            respond(ad, seq, command, |ad| ad.set_exception_breakpoints(a))
        }
        Request::Continue(a) => respond(ad, seq, command, |ad| ad.continue_(a)),
        Request::Next(a) => respond(ad, seq, command, |ad| ad.next(a)),
        Request::StepIn(a) => respond(ad, seq, command, |ad| ad.step_in(a)),
        Request::StepOut(a) => respond(ad, seq, command, |ad| ad.step_out(a)),
        Request::StepBack(a) => respond(ad, seq, command, |ad| ad.step_back(a)),
        Request::ReverseContinue(a) => respond(ad, seq, command, |ad| ad.reverse_continue(a)),
        Request::Pause(a) => respond(ad, seq, command, |ad| ad.pause(a)),
        Request::Threads => respond(ad, seq, command, |ad| ad.threads()),
        Request::StackTrace(a) => respond(ad, seq, command, |ad| ad.stack_trace(a)),
        Request::Scopes(a) => respond(ad, seq, command, |ad| ad.scopes(a)),
        Request::Variables(a) => respond(ad, seq, command, |ad| ad.variables(a)),
        Request::Evaluate(a) => respond(ad, seq, command, |ad| ad.evaluate(a)),
        Request::Source(a) => respond(ad, seq, command, |ad| ad.source(a)),
        Request::LoadedSources => respond(ad, seq, command, Adapter::loaded_sources),
        Request::FrameImage => respond(ad, seq, command, Adapter::frame_image),
        Request::DebugPixel(a) => respond(ad, seq, command, |ad| ad.debug_pixel(a)),
        Request::ValuesImage(a) => respond(ad, seq, command, |ad| ad.values_image(a)),
        Request::Unknown { command: c, .. } => {
            respond(ad, seq, command, |_| Err::<(), _>(Error::UnknownCommand(c)))
        }
    }
}

fn respond<W: Write, B: Serialize>(
    ad: &mut Adapter<W>,
    seq: i64,
    command: &str,
    handler: impl FnOnce(&mut Adapter<W>) -> Result<B, Error>,
) {
    let r = handler(ad);
    ad.out.respond(seq, command, r);
}
