//! Generated GL entry points (see `build.rs` and `intercept.txt`).
//!
//! - [`types`]: `PFN_<name>`, the exact C signature of every intercepted or
//!   called command, GL typedefs mapped to Rust (`GLenum`/`GLuint` -> `u32`,
//!   `GLsizei`/`GLint` -> `i32`, `GLboolean` -> `u8`, `GLintptr`/`GLsizeiptr`
//!   -> `isize`, `GLhandleARB` -> `u32`, `const GLchar *const*` ->
//!   `*const *const c_char`, ...).
//! - [`slots`]: one [`RealFn`](crate::resolve::RealFn) per command, the real
//!   function resolved lazily and cached.
//! - [`real`]: `real::glName(args)` calls the real function; this is how the
//!   agent itself calls GL.
//! - [`wrappers`]: what the application gets instead of the real function.
//!   Base commands are `#[no_mangle]` exports; every wrapper runs
//!   [`crate::hooks::dispatch`] with the hook of its base command.
//! - [`intercepted`], [`INTERCEPTED`], [`BASE_OF`]: the lookup used by the
//!   interposed `dlsym` and `*GetProcAddress*`.
#![allow(
    non_snake_case,
    non_camel_case_types,
    non_upper_case_globals,
    clippy::too_many_arguments,
    clippy::unnecessary_cast,
    clippy::redundant_closure,
    clippy::unused_unit
)]

include!(concat!(env!("OUT_DIR"), "/gl_generated.rs"));

/// The wrapper of an intercepted GL command or alias (generated names only;
/// [`crate::interpose::wrapper_for`] also knows the hand-written EGL/GLX
/// functions and `dlsym`).
pub fn wrapper_for(name: &std::ffi::CStr) -> Option<*const std::ffi::c_void> {
    intercepted(name.to_bytes()).map(|(wrapper, _)| wrapper)
}
