//! The WGSL engine: naga's WGSL front end gives the module with spans; one
//! walk over its IR fills the core's probe table and, for a recording,
//! inserts the logging (in the IR itself); naga's back ends emit the result.
//!
//! Pipeline: [`parse::parse`] -> [`instrument::instrument`] (or
//! [`instrument::probe_table`]) -> [`emit`] (GLSL for GL, WGSL to read) ->
//! [driver runs it] -> `shaderdbg_core::decode`.
//!
//! Around it: [`gl_origin`], the header by which GLSL that naga wrote for
//! GL names the WGSL it came from (so the GL agent debugs the WGSL), and
//! [`eval`], WGSL expressions over recorded values on the CPU (naga's
//! constant evaluator).

pub mod emit;
pub mod eval;
pub mod expr;
pub mod gl_origin;
pub mod instrument;
pub mod parse;
mod runtime;
pub mod types;
mod walk;

pub use expr::ExprError;
pub use instrument::{
    instrument, probe_table, Breakpoint, InstrumentError, Instrumented, Mode, Request,
};
/// The naga this engine speaks (binding maps, back-end options, modules).
pub use naga;
pub use parse::{parse, ParseError, Parsed};

/// The uniform block the built-in host gives a WGSL shader that does not
/// declare `host` or `Host` itself (host/README.md, "WGSL"); appended after
/// the shader's text, so every span stays the file's own. Its WGSL uniform
/// layout is std140's: offsets 0, 8, 12, 16, 32; 48 bytes.
pub const HOST_PRELUDE: &str = "\
struct Host {
    resolution: vec2<f32>,
    time: f32,
    time_delta: f32,
    frame: u32,
    mouse: vec4<f32>,
}
@group(0) @binding(0) var<uniform> host: Host;
";
