//! The GLSL engine: parse, analyse, probe, instrument, decode, map sources.
//!
//! Data flows parse -> analysis -> instrument (which builds the probe table) ->
//! [driver runs the shader] -> decode. See ARCHITECTURE.md.

pub mod analysis;
pub mod builtins;
pub mod decode;
pub mod diagnostics;
pub mod ide;
pub mod instrument;
pub mod layout;
pub mod limits;
pub mod parse;
pub mod probes;
pub mod shader;
pub mod shadertoy;
pub mod source_map;
pub mod types;
pub mod value;

pub use diagnostics::{Diagnostic, DiagnosticKind, Severity, Span};
pub use shader::{Profile, Stage, Version};
pub use types::{Scalar, Type};
pub use value::Value;
