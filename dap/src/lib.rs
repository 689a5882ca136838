//! `shaderdbg-dap`: the Debug Adapter Protocol front end of the session
//! engine.
//!
//! - [`framing`]: `Content-Length` frames of UTF-8 JSON, read forgivingly.
//! - [`protocol`]: the DAP messages used, as serde types (written by hand
//!   for the fields this adapter uses: the `dap` crate's request parsing
//!   drops unknown requests, and generating the whole schema would be
//!   thousands of lines for a few dozen used), the request enum and the
//!   adapter's error.
//! - [`custom`]: the custom requests of the VS Code extension
//!   (`shaderdbg/frameImage`, `shaderdbg/debugPixel`, `shaderdbg/valuesImage`).
//! - [`dispatch`]: the adapter's state and the router: each request parsed
//!   into one [`protocol::Command`] (typed arguments; `Unknown` for the rest,
//!   so every request is answered), handled in `dispatch::handlers::*` by
//!   area (lifecycle, breakpoints, execution, stack and variables, evaluate,
//!   sources, custom requests; session events in `events`), answered with a
//!   typed body or an [`protocol::AdapterError`].
//! - [`engine`]: the session engine on its own thread (start, pump events,
//!   resume/detach/kill).
//! - [`launch`]: `launch` arguments -> the program to start (a shader file
//!   runs in the built-in host).
//! - [`breakpoints`]: breakpoints per file, their ids and binding state.
//! - [`stepping`]: a stop, its cursor and threads, moves through the trace.
//! - [`variables`]: GLSL-style values, scopes, expandable parts, handles.
//! - [`evaluate`]: expressions over the values at the cursor.

pub mod breakpoints;
pub mod custom;
pub mod dispatch;
pub mod engine;
pub mod evaluate;
pub mod framing;
pub mod launch;
pub mod protocol;
pub mod stepping;
pub mod variables;

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
