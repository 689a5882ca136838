//! The connection to the debugger: the agent end every agent shares
//! (`shaderdbg_protocol::agent`), opened at the first intercepted call. No
//! socket, a refused connection, or a debugger that hangs up: the
//! application runs on as if nothing were there.

pub use shaderdbg_protocol::agent::{debugger as get, Debugger};
