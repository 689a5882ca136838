//! The GLSL engine: parse, analyse, probe, instrument, map sources.
//!
//! Data flows parse -> analysis -> instrument (which fills the debug core's
//! probe table) -> [driver runs the shader] -> `shaderdbg_core::decode`.
//! See ARCHITECTURE.md.

pub mod analysis;
pub mod builtins;
pub mod diagnostics;
pub mod ide;
pub mod instrument;
pub mod limits;
pub mod parse;
pub mod preprocess;
pub mod shader;
pub mod shadertoy;
pub mod source_map;
pub mod syntax;
pub mod types;

pub use diagnostics::{Diagnostic, DiagnosticKind, Severity, Span};
pub use shader::{Api, Profile, Stage, Version};
pub use shaderdbg_core::Value;
pub use types::{Scalar, Type};

// The debug core's modules, under the names the engine's code uses.
pub(crate) use shaderdbg_core::{layout, probes};
