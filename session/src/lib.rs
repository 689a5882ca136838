//! The session engine: everything a debugger front end (the `shaderdbg`
//! command line, the DAP server) needs, with no front end in it.
//!
//! - [`launch`]: start a program with the agent preloaded and a private
//!   socket, accept its connection.
//! - [`binding`]: breakpoints set in files bound to the shaders the program
//!   compiled, by content (a header prepended or a larger document still binds).
//! - [`session`]: the event loop: shaders announced, breakpoints bound, stops
//!   recorded into traces, resume, detach.
//! - [`breakpoints`]: the decisions at a breakpoint: hit counts and hit
//!   conditions, logpoints, which invocation the program stops at.
//! - [`stop`]: one stop: the recorded trace of the invocation, a cursor, the
//!   variables in scope with file locations.
//! - [`sanitizer`]: the sanitizer's reports at a stop, described
//!   ([`sanitizer::Finding`]: located, with the invocation, index and bound).
//! - [`images`]: screenshots (PNG) and watch images (one value per
//!   fragment of a draw).
//! - [`eval`]: expressions (watch, hover, console) over the values at a
//!   stop's cursor, in the shader's language (GLSL semantics, or WGSL's
//!   through naga's constant evaluator); texture sampling and derivatives
//!   on the GPU through a watch.
//! - [`present`]: values as text people read (GLSL or WGSL notation) and
//!   their parts.
//! - [`trace`]: apitrace recordings: capture a program, replay it under the
//!   agent.
//! - [`json`]: values as JSON (numbers, booleans, arrays for vectors, arrays of
//!   columns for matrices, objects for structs).

pub mod binding;
pub mod breakpoints;
pub mod eval;
pub mod images;
pub mod json;
pub mod launch;
pub mod present;
pub mod sanitizer;
pub mod session;
pub mod stop;
pub mod trace;

pub use images::{Screenshot, WatchImage};
pub use session::{CurrentStop, Event, ExceptionFilters, Halt, Session, SessionError, ShaderInfo};

// The debug core's vocabulary, as front ends use it with the session.
pub use shaderdbg_core::{
    Hit, HitTag, Invocation, ScreenshotAt, ScreenshotShows, Stage, StopFilter, StopReason,
};
