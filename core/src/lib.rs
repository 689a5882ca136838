//! The debug core: the language- and API-neutral middle of shaderdbg.
//!
//! Language engines (GLSL today) fill a [`probes::ProbeTable`] while they
//! instrument a shader and emit code that writes the buffers of
//! [`layout`]; API agents (the GL agent today) run it and hand the raw buffers
//! back; [`decode`] turns every buffer into typed data ([`decode::Trace`],
//! [`decode::Hit`], watch values) described by one type and value model
//! ([`types`], [`value`]). Nothing here knows GLSL syntax or GL calls.

pub mod control;
pub mod decode;
pub mod layout;
pub mod modes;
pub mod probes;
pub mod stage;
pub mod types;
pub mod value;

pub use control::{ScreenshotAt, ScreenshotShows, StopFilter, StopReason};
pub use decode::{Hit, HitTag};
pub use stage::{Invocation, Stage};
pub use types::{Language, Scalar, Type};
pub use value::Value;
