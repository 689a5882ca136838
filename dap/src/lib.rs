//! `shaderdbg-dap`: the Debug Adapter Protocol front end of the session
//! engine.
//!
//! - [`framing`]: `Content-Length` frames of UTF-8 JSON, read forgivingly.
//! - [`protocol`]: the DAP messages used: every request as one enum
//!   ([`protocol::Request`]), arguments and bodies generated from the DAP
//!   schema, the events sent.
//! - [`custom`]: the custom requests of the VS Code extension
//!   (`shaderdbg/frameImage`, `shaderdbg/debugPixel`, `shaderdbg/valuesImage`):
//!   the contract and its types.
//! - [`dispatch`]: the router: frame -> [`protocol::Request`] -> handler ->
//!   response; every request answered.
//! - [`handlers`]: the request handlers by area (lifecycle, breakpoints,
//!   execution, stack, evaluate, sources, custom).
//! - [`state`]: the adapter's state and what handlers share (threads,
//!   frame ids, running work on the session).
//! - [`events`]: session events turned into DAP events.
//! - [`writer`]: responses and events out, with sequence numbers.
//! - [`error`]: why a request failed (the response's message).
//! - [`sources`]: shaders without a file, shown by `sourceReference`.
//! - [`engine`]: the session engine on its own thread (start, pump events,
//!   resume/detach/kill).
//! - [`launch`]: `launch` arguments -> the program to start (a shader file
//!   runs in the built-in host).
//! - [`restart`]: `restart` of a recording returns to the same stop.
//! - [`breakpoints`]: breakpoints per file, their ids and binding state.
//! - [`stepping`]: a stop, its cursor and threads, moves through the trace.
//! - [`variables`]: values in the stop's language (GLSL or WGSL), scopes,
//!   expandable parts, handles.
//! - [`evaluate`]: expressions over the values at the cursor.

pub mod breakpoints;
pub mod custom;
pub mod dispatch;
pub mod engine;
pub mod error;
pub mod evaluate;
pub mod events;
pub mod framing;
pub mod handlers;
pub mod launch;
pub mod protocol;
pub mod restart;
pub mod sources;
pub mod state;
pub mod stepping;
pub mod variables;
pub mod writer;

use std::io::{BufRead, Write};
use std::sync::mpsc;

/// Everything the dispatcher waits for, on one channel.
pub enum Input {
    /// A frame from the client (or why it was not one).
    Client(Result<serde_json::Value, framing::FrameError>),
    /// The client's stream ended.
    ClientGone,
    Engine(engine::EngineEvent),
}

/// Serves one client: reads frames from `reader` (on a thread of its own),
/// answers on `writer`, until `disconnect` or the end of the input. Returns
/// once the program is no longer waiting on the debugger.
pub fn serve<R, W>(reader: R, writer: W)
where
    R: BufRead + Send + 'static,
    W: Write,
{
    let (tx, rx) = mpsc::channel();
    let client = tx.clone();
    std::thread::Builder::new()
        .name("dap-reader".into())
        .spawn(move || {
            let mut reader = reader;
            loop {
                match framing::read_frame(&mut reader) {
                    Ok(Some(frame)) => {
                        if client.send(Input::Client(frame)).is_err() {
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        tracing::warn!("reading from the client: {e}");
                        break;
                    }
                }
            }
            let _ = client.send(Input::ClientGone);
        })
        .expect("spawning the reader thread");
    dispatch::Server::new(writer, rx, tx).run();
}
