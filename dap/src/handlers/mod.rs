//! The request handlers, by area; each is a method of
//! [`Adapter`](crate::state::Adapter) that takes the request's typed
//! arguments and returns its typed response body (`()`: none) or why it
//! failed. Events a handler causes go out after its response
//! (`Adapter::after`), progress events at once.
//!
//! - [`lifecycle`]: `initialize`, `launch`, `attach`, `configurationDone`,
//!   `disconnect`, `terminate`.
//! - [`breakpoints`]: `setBreakpoints`, `setExceptionBreakpoints`.
//! - [`execution`]: `continue`, `next`, `stepIn`, `stepOut`, `stepBack`,
//!   `reverseContinue`, `pause`.
//! - [`stack`]: `threads`, `stackTrace`, `scopes`, `variables`.
//! - [`evaluate`]: the `evaluate` request.
//! - [`sources`]: `loadedSources`, `source`.
//! - [`custom`]: `shaderdbg/frameImage`, `shaderdbg/debugPixel`,
//!   `shaderdbg/valuesImage`.

pub mod breakpoints;
pub mod custom;
pub mod evaluate;
pub mod execution;
pub mod lifecycle;
pub mod sources;
pub mod stack;
