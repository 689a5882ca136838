//! The request handlers, one module per area of the protocol; `dispatch`
//! routes each request to one of them.

mod breakpoints;
mod custom;
mod evaluate;
mod events;
mod execution;
mod lifecycle;
mod sources;
mod stack;
