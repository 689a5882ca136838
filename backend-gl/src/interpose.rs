//! Symbol interposition: the exported `dlsym`, `glXGetProcAddress`,
//! `glXGetProcAddressARB`, `eglGetProcAddress`, `eglSwapBuffers`,
//! `glXSwapBuffers`, `eglDestroyContext` and `glXDestroyContext`, the
//! hand-written swap-with-damage wrappers, and [`wrapper_for`], the one
//! lookup all of them use.
//!
//! # `dlsym`
//!
//! glibc's `dlsym` looks at its *return address* to find the calling object:
//! `RTLD_NEXT` means "after the caller", and `RTLD_DEFAULT` uses the
//! caller's scope. A plain wrapper that calls the real `dlsym` would make
//! every `RTLD_NEXT` lookup relative to the agent, which breaks other
//! interposers (a library that wraps `malloc` and finds the real one with
//! `dlsym(RTLD_NEXT, "malloc")` would find itself). So on x86_64 the
//! exported `dlsym` is a small naked trampoline: it asks
//! `dlsym_decide(handle, name)` (plain Rust) whether the name is one of ours;
//! if so it returns our pointer, otherwise it *jumps* (not calls) to the real
//! `dlsym` with the original arguments and return address, so glibc sees the
//! application's caller. Other architectures get a plain wrapper (correct
//! except for `RTLD_NEXT` relative to the caller).
//!
//! For an intercepted name and a real handle, the real `dlsym(handle, name)`
//! runs first: if the object has no such symbol the caller gets NULL (and
//! `dlerror`) as without the agent; otherwise that pointer seeds the
//! function's [`RealFn`] and the caller gets the wrapper. `dlsym` of
//! `"dlsym"` returns the interposed `dlsym` itself.
//!
//! # GetProcAddress
//!
//! The same idea: the real GetProcAddress runs first; NULL stays NULL; a
//! pointer for an intercepted name seeds the slot and is replaced by the
//! wrapper. EGL/GLX functions are only wrapped when asked through their own
//! API's GetProcAddress (glvnd's GLX GetProcAddress returns a GL dispatch
//! stub for *any* name, including `eglSwapBuffers`).
//!
//! None of this code allocates, locks or initialises anything on the
//! `dlsym` path for names that are not intercepted, so it is safe to run
//! inside the dynamic loader's callers, in library constructors, and
//! re-entrantly.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_ulong, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::hooks;
use crate::resolve::{self, Family, RealFn};
use crate::state::{ContextApi, ContextKey};

/// Where an intercepted name leads: the wrapper the application gets and
/// the slot of the real function.
#[derive(Clone, Copy)]
pub struct Interposed {
    /// The agent's function.
    pub wrapper: *const c_void,
    /// The real function behind it.
    pub real: &'static RealFn,
}

/// The agent's wrapper for `name`, if the agent intercepts it (generated GL
/// commands and their aliases, the GetProcAddress functions, the swaps,
/// and `dlsym`).
pub fn wrapper_for(name: &CStr) -> Option<*const c_void> {
    if name.to_bytes() == b"dlsym" {
        return own_dlsym();
    }
    lookup(name.to_bytes()).map(|i| i.wrapper)
}

/// Whether `p` is one of the pointers [`wrapper_for`] hands out.
pub fn is_wrapper(p: *const c_void) -> bool {
    if p.is_null() {
        return false;
    }
    if own_dlsym() == Some(p) {
        return true;
    }
    crate::gl::INTERCEPTED
        .iter()
        .chain(HAND_WRITTEN)
        .any(|n| lookup(n.as_bytes()).is_some_and(|i| i.wrapper == p))
}

/// The real `eglSwapBuffers`.
pub static EGL_SWAP_BUFFERS: RealFn = RealFn::egl(c"eglSwapBuffers");
/// The real `eglSwapBuffersWithDamageKHR`.
pub static EGL_SWAP_BUFFERS_WITH_DAMAGE_KHR: RealFn = RealFn::egl(c"eglSwapBuffersWithDamageKHR");
/// The real `eglSwapBuffersWithDamageEXT`.
pub static EGL_SWAP_BUFFERS_WITH_DAMAGE_EXT: RealFn = RealFn::egl(c"eglSwapBuffersWithDamageEXT");
/// The real `glXSwapBuffers`.
pub static GLX_SWAP_BUFFERS: RealFn = RealFn::glx(c"glXSwapBuffers");
/// The real `eglDestroyContext`.
pub static EGL_DESTROY_CONTEXT: RealFn = RealFn::egl(c"eglDestroyContext");
/// The real `glXDestroyContext`.
pub static GLX_DESTROY_CONTEXT: RealFn = RealFn::glx(c"glXDestroyContext");

type EglGpa = unsafe extern "C" fn(*const c_char) -> *mut c_void;
type GlxGpa = unsafe extern "C" fn(*const u8) -> *mut c_void;
type EglSwap = unsafe extern "C" fn(*mut c_void, *mut c_void) -> u32;
type EglSwapDamage = unsafe extern "C" fn(*mut c_void, *mut c_void, *const i32, i32) -> u32;
type GlxSwap = unsafe extern "C" fn(*mut c_void, c_ulong);
type EglDestroy = unsafe extern "C" fn(*mut c_void, *mut c_void) -> u32;
type GlxDestroy = unsafe extern "C" fn(*mut c_void, *mut c_void);

/// Declares the hand-written wrappers once, as `name: fn type => real slot`:
/// gives [`HAND_WRITTEN`] and `lookup_hand_written`.
macro_rules! hand_written {
    ($($name:ident: $ty:ty => $real:expr,)*) => {
        /// Names with hand-written wrappers in this module.
        pub const HAND_WRITTEN: &[&str] = &[$(stringify!($name)),*];

        fn lookup_hand_written(name: &[u8]) -> Option<Interposed> {
            $(
                if name == stringify!($name).as_bytes() {
                    return Some(Interposed {
                        wrapper: $name as $ty as *const c_void,
                        real: &$real,
                    });
                }
            )*
            None
        }
    };
}

hand_written! {
    eglGetProcAddress: EglGpa => resolve::EGL_GET_PROC_ADDRESS,
    glXGetProcAddress: GlxGpa => resolve::GLX_GET_PROC_ADDRESS,
    glXGetProcAddressARB: GlxGpa => resolve::GLX_GET_PROC_ADDRESS_ARB,
    eglSwapBuffers: EglSwap => EGL_SWAP_BUFFERS,
    eglSwapBuffersWithDamageKHR: EglSwapDamage => EGL_SWAP_BUFFERS_WITH_DAMAGE_KHR,
    eglSwapBuffersWithDamageEXT: EglSwapDamage => EGL_SWAP_BUFFERS_WITH_DAMAGE_EXT,
    glXSwapBuffers: GlxSwap => GLX_SWAP_BUFFERS,
    eglDestroyContext: EglDestroy => EGL_DESTROY_CONTEXT,
    glXDestroyContext: GlxDestroy => GLX_DESTROY_CONTEXT,
}

fn lookup(name: &[u8]) -> Option<Interposed> {
    lookup_hand_written(name).or_else(|| {
        crate::gl::intercepted(name).map(|(wrapper, real)| Interposed { wrapper, real })
    })
}

// ---------------------------------------------------------------------------
// dlsym

/// Two pointers returned in rax:rdx (SysV): what `dlsym` returns, or, when
/// `forward` is not null, the function to jump to with the original
/// arguments.
#[repr(C)]
struct Decision {
    result: *mut c_void,
    forward: *mut c_void,
}

/// Decides what the interposed `dlsym` does. Never panics, never unwinds.
extern "C" fn dlsym_decide(handle: *mut c_void, name: *const c_char) -> Decision {
    let forward = resolve::real_dlsym_ptr();
    let pass = Decision {
        result: std::ptr::null_mut(),
        forward,
    };
    if name.is_null() || forward.is_null() {
        return pass;
    }
    // SAFETY: `name` is not null (checked above) and, as `dlsym(3)` requires
    // of its caller, NUL-terminated: `decide`'s contract.
    let decided = catch_unwind(AssertUnwindSafe(|| unsafe { decide(handle, name) }));
    match decided {
        Ok(Some(result)) => Decision {
            result,
            forward: std::ptr::null_mut(),
        },
        Ok(None) | Err(_) => pass,
    }
}

/// `Some(pointer)` when the agent answers the lookup itself.
///
/// # Safety
/// `name` is NUL-terminated.
unsafe fn decide(handle: *mut c_void, name: *const c_char) -> Option<*mut c_void> {
    // SAFETY: `name` is NUL-terminated (this function's contract) and lives
    // for the whole lookup.
    let bytes = unsafe { CStr::from_ptr(name) }.to_bytes();
    // Cheap filter: every intercepted name starts with "gl", "egl" or "dl".
    if !(bytes.starts_with(b"gl") || bytes.starts_with(b"egl") || bytes == b"dlsym") {
        return None;
    }
    if bytes == b"dlsym" {
        return own_dlsym().map(|p| p as *mut c_void);
    }
    let i = lookup(bytes)?;
    let pseudo = handle == libc::RTLD_DEFAULT || handle == libc::RTLD_NEXT;
    // The real lookup. Real handles do not depend on the caller. For the
    // pseudo-handles the application searches the global scope, where the
    // agent's own exports come first: then the answer is what follows the
    // agent, so that a name no loaded library defines stays NULL as it
    // would be without the agent.
    let lookup_handle = if pseudo { libc::RTLD_DEFAULT } else { handle };
    // SAFETY: the application's handle (which glibc's dlsym checks) or a
    // pseudo-handle, and its NUL-terminated name (this function's contract).
    let mut real = unsafe { resolve::real_dlsym(lookup_handle, name) };
    if pseudo && resolve::is_own(real) {
        // SAFETY: a pseudo-handle and the same NUL-terminated name.
        real = unsafe { resolve::real_dlsym(libc::RTLD_NEXT, name) };
    }
    if real.is_null() {
        return Some(real);
    }
    i.real.seed(real);
    Some(i.wrapper as *mut c_void)
}

#[cfg(not(test))]
fn own_dlsym() -> Option<*const c_void> {
    type Dlsym = unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void;
    Some(dlsym as Dlsym as *const c_void)
}

#[cfg(test)]
fn own_dlsym() -> Option<*const c_void> {
    None
}

/// The interposed `dlsym` (x86_64): see the module documentation.
///
/// # Safety
/// As `dlsym(3)`.
#[cfg(all(target_arch = "x86_64", not(test)))]
#[unsafe(naked)]
#[no_mangle]
pub unsafe extern "C" fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    // On entry rsp is 8 mod 16; two pushes and 8 more bytes align it for
    // the call. rdi/rsi are restored for the tail jump; rax:rdx is the
    // Decision.
    core::arch::naked_asm!(
        "push rdi",
        "push rsi",
        "sub rsp, 8",
        "call {decide}",
        "add rsp, 8",
        "pop rsi",
        "pop rdi",
        "test rdx, rdx",
        "jnz 2f",
        "ret",
        "2:",
        "jmp rdx",
        decide = sym dlsym_decide,
    )
}

/// The interposed `dlsym` (architectures without the trampoline): as on
/// x86_64, except that a forwarded `RTLD_NEXT` lookup starts after the
/// agent rather than after the caller.
///
/// # Safety
/// As `dlsym(3)`.
#[cfg(all(not(target_arch = "x86_64"), not(test)))]
#[no_mangle]
pub unsafe extern "C" fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    let d = dlsym_decide(handle, name);
    if d.forward.is_null() {
        return d.result;
    }
    // SAFETY: the application's own arguments, under `dlsym(3)`'s contract
    // (this function's), handed on unchanged to glibc's dlsym.
    unsafe { resolve::real_dlsym(handle, name) }
}

// ---------------------------------------------------------------------------
// GetProcAddress

/// What the interposed `*GetProcAddress*` of `family` answers: the agent's
/// wrapper where it intercepts `name` (its slot seeded with the real
/// function the real `real_gpa` gives), else the real answer.
///
/// # Safety
/// `name` is null or NUL-terminated; `real_gpa` is a GetProcAddress slot.
unsafe fn get_proc_address(real_gpa: &RealFn, family: Family, name: *const c_char) -> *mut c_void {
    let gpa = real_gpa.get();
    let call_real = |name: *const c_char| -> *mut c_void {
        if gpa.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: `gpa` is not null and the slot only holds the real
        // GetProcAddress of its name: one `const char *` argument, a pointer
        // returned (the GLX ones take `const GLubyte *`, the same ABI); `name`
        // is null or NUL-terminated, which it accepts.
        unsafe { std::mem::transmute::<*mut c_void, EglGpa>(gpa)(name) }
    };
    if name.is_null() {
        return call_real(name);
    }
    resolve::note_gpa_used(family);
    let answer = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `name` is not null (checked above) and NUL-terminated (this
        // function's contract).
        let bytes = unsafe { CStr::from_ptr(name) }.to_bytes();
        let i = lookup(bytes)?;
        if i.real.family() != Family::Gl && i.real.family() != family {
            return None;
        }
        let real = call_real(name);
        if !real.is_null() {
            i.real.seed(real);
            return Some(i.wrapper as *mut c_void);
        }
        if gpa.is_null() && !i.real.get().is_null() {
            return Some(i.wrapper as *mut c_void);
        }
        Some(std::ptr::null_mut())
    }));
    match answer {
        Ok(Some(p)) => p,
        Ok(None) | Err(_) => call_real(name),
    }
}

/// The interposed `eglGetProcAddress`.
///
/// # Safety
/// As `eglGetProcAddress`.
#[cfg_attr(not(test), no_mangle)]
pub unsafe extern "C" fn eglGetProcAddress(name: *const c_char) -> *mut c_void {
    // SAFETY: `name` is the application's argument, null or NUL-terminated
    // as `eglGetProcAddress` requires; the slot is eglGetProcAddress's.
    unsafe { get_proc_address(&resolve::EGL_GET_PROC_ADDRESS, Family::Egl, name) }
}

/// The interposed `glXGetProcAddress`.
///
/// # Safety
/// As `glXGetProcAddress`.
#[cfg_attr(not(test), no_mangle)]
pub unsafe extern "C" fn glXGetProcAddress(name: *const u8) -> *mut c_void {
    // SAFETY: `name` is the application's argument, null or NUL-terminated
    // as `glXGetProcAddress` requires (GLubyte and char have the same
    // layout); the slot is glXGetProcAddress's.
    unsafe { get_proc_address(&resolve::GLX_GET_PROC_ADDRESS, Family::Glx, name.cast()) }
}

/// The interposed `glXGetProcAddressARB`.
///
/// # Safety
/// As `glXGetProcAddressARB`.
#[cfg_attr(not(test), no_mangle)]
pub unsafe extern "C" fn glXGetProcAddressARB(name: *const u8) -> *mut c_void {
    // SAFETY: `name` is the application's argument, null or NUL-terminated
    // as `glXGetProcAddressARB` requires (GLubyte and char have the same
    // layout); the slot is glXGetProcAddressARB's.
    unsafe { get_proc_address(&resolve::GLX_GET_PROC_ADDRESS_ARB, Family::Glx, name.cast()) }
}

// ---------------------------------------------------------------------------
// Swaps: frame boundaries.

/// The interposed `eglSwapBuffers`.
///
/// # Safety
/// As `eglSwapBuffers`.
#[cfg_attr(not(test), no_mangle)]
pub unsafe extern "C" fn eglSwapBuffers(dpy: *mut c_void, surface: *mut c_void) -> u32 {
    // SAFETY: the slot only holds the real eglSwapBuffers (type `EglSwap`);
    // it gets the application's own arguments, valid under this function's
    // contract.
    unsafe {
        interposed(
            &EGL_SWAP_BUFFERS,
            |real: EglSwap| real(dpy, surface),
            hooks::swap,
        )
    }
}

/// The wrappers of the `eglSwapBuffersWithDamage*` functions, which differ
/// only in their name.
macro_rules! swap_with_damage {
    ($($name:ident => $slot:ident,)*) => {
        $(
            #[doc = concat!("The wrapper of `", stringify!($name), "` (not exported: only")]
            /// reachable through `eglGetProcAddress`, like the real one).
            ///
            /// # Safety
            /// As the real function.
            pub unsafe extern "C" fn $name(
                dpy: *mut c_void,
                surface: *mut c_void,
                rects: *const i32,
                n_rects: i32,
            ) -> u32 {
                let call = |real: EglSwapDamage| {
                    // SAFETY: the application's own arguments, valid under
                    // this function's contract.
                    unsafe { real(dpy, surface, rects, n_rects) }
                };
                // SAFETY: the slot only holds the real function of this
                // name, of type `EglSwapDamage`.
                unsafe { interposed(&$slot, call, hooks::swap) }
            }
        )*
    };
}

swap_with_damage! {
    eglSwapBuffersWithDamageKHR => EGL_SWAP_BUFFERS_WITH_DAMAGE_KHR,
    eglSwapBuffersWithDamageEXT => EGL_SWAP_BUFFERS_WITH_DAMAGE_EXT,
}

/// The interposed `glXSwapBuffers`.
///
/// # Safety
/// As `glXSwapBuffers`.
#[cfg_attr(not(test), no_mangle)]
pub unsafe extern "C" fn glXSwapBuffers(dpy: *mut c_void, drawable: c_ulong) {
    // SAFETY: the slot only holds the real glXSwapBuffers (type `GlxSwap`);
    // it gets the application's own arguments, valid under this function's
    // contract.
    unsafe {
        interposed(
            &GLX_SWAP_BUFFERS,
            |f: GlxSwap| f(dpy, drawable),
            hooks::swap,
        )
    }
}

// ---------------------------------------------------------------------------
// Context destruction: the shadow state of a destroyed context is dropped, so
// that a new context that reuses the handle starts clean.

/// The interposed `eglDestroyContext`.
///
/// # Safety
/// As `eglDestroyContext`.
#[cfg_attr(not(test), no_mangle)]
pub unsafe extern "C" fn eglDestroyContext(dpy: *mut c_void, ctx: *mut c_void) -> u32 {
    let api = ContextApi::Egl;
    // SAFETY: the slot only holds the real eglDestroyContext (type
    // `EglDestroy`); it gets the application's own arguments, valid under
    // this function's contract.
    unsafe { destroy(&EGL_DESTROY_CONTEXT, api, ctx, |f: EglDestroy| f(dpy, ctx)) }
}

/// The interposed `glXDestroyContext`.
///
/// # Safety
/// As `glXDestroyContext`.
#[cfg_attr(not(test), no_mangle)]
pub unsafe extern "C" fn glXDestroyContext(dpy: *mut c_void, ctx: *mut c_void) {
    let api = ContextApi::Glx;
    // SAFETY: the slot only holds the real glXDestroyContext (type
    // `GlxDestroy`); it gets the application's own arguments, valid under
    // this function's contract.
    unsafe { destroy(&GLX_DESTROY_CONTEXT, api, ctx, |f: GlxDestroy| f(dpy, ctx)) }
}

/// The body of the context destruction wrappers: [`interposed`] with
/// [`hooks::context_destroyed`] of `ctx` of `api`.
///
/// # Safety
/// As for [`interposed`].
unsafe fn destroy<F: Copy, R: Copy + Default>(
    slot: &'static RealFn,
    api: ContextApi,
    ctx: *mut c_void,
    call: impl Fn(F) -> R,
) -> R {
    let key = ContextKey {
        api,
        handle: ctx as usize,
    };
    // SAFETY: this function's contract.
    unsafe { interposed(slot, call, |orig| hooks::context_destroyed(orig, key)) }
}

/// The body of every hand-written wrapper: the real function in `slot`,
/// called by `call` inside `hook` ([`hooks::dispatch`]); where it cannot be
/// found, what `R` defaults to (`EGL_FALSE`, nothing), after saying so.
///
/// # Safety
/// `slot` holds (or resolves to) only the real function of its name, whose
/// type is the function pointer type `F`; `call` gives it the application's
/// arguments, valid as that function requires.
unsafe fn interposed<F: Copy, R: Copy + Default>(
    slot: &'static RealFn,
    call: impl Fn(F) -> R,
    hook: impl FnOnce(&mut hooks::Original<'_, R>),
) -> R {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>()) };
    let name = slot
        .name()
        .to_str()
        .unwrap_or("(a swap or destroy function)");
    let p = slot.get();
    if p.is_null() {
        hooks::missing_real(name);
        return R::default();
    }
    // SAFETY: `p` is not null and is the real function of `name`, of type
    // `F` (this function's contract; `F` is pointer-sized, checked above).
    let real = unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) };
    let mut run = || call(real);
    hooks::dispatch(name, &mut run, hook)
}

// ---------------------------------------------------------------------------
// For tests and tools.

/// Whether `p` is one of the agent's wrappers (C ABI, for test programs
/// that look it up with `dlsym(RTLD_DEFAULT, "shaderdbg_agent_is_wrapper")`).
#[no_mangle]
pub extern "C" fn shaderdbg_agent_is_wrapper(p: *const c_void) -> bool {
    catch_unwind(|| is_wrapper(p)).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide_for(handle: *mut c_void, name: &CStr) -> Decision {
        dlsym_decide(handle, name.as_ptr())
    }

    #[test]
    fn names_that_are_not_ours_are_forwarded() {
        for name in [c"malloc", c"glClear", c"eglGetCurrentContext", c"dl"] {
            let d = decide_for(libc::RTLD_DEFAULT, name);
            assert!(d.result.is_null(), "{name:?}");
            assert_eq!(d.forward, resolve::real_dlsym_ptr(), "{name:?}");
        }
        assert!(!resolve::real_dlsym_ptr().is_null());
        assert!(!resolve::is_own(resolve::real_dlsym_ptr()));
    }

    #[test]
    fn intercepted_names_answer_like_the_real_lookup() {
        // No GL library is in this test's global scope: NULL, as glibc says.
        let d = decide_for(libc::RTLD_DEFAULT, c"glShaderSourceARB");
        assert!(d.result.is_null() && d.forward.is_null());

        // SAFETY: a NUL-terminated library name; loading libGL runs only its
        // own initialisers.
        let gl = unsafe { libc::dlopen(c"libGL.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if gl.is_null() {
            eprintln!("skipped: no libGL.so.1");
            return;
        }
        let d = decide_for(gl, c"glShaderSource");
        assert!(d.forward.is_null());
        assert_eq!(
            Some(d.result as *const c_void),
            wrapper_for(c"glShaderSource")
        );
        assert!(is_wrapper(d.result));
        // The real lookup seeded the slot with libGL's own function.
        // SAFETY: a live handle from dlopen and a NUL-terminated name.
        let real = unsafe { resolve::real_dlsym(gl, c"glShaderSource".as_ptr()) };
        assert_eq!(crate::gl::slots::glShaderSource.cached(), real);

        // Not in libGL: NULL even though the name is intercepted.
        let d = decide_for(gl, c"eglSwapBuffers");
        assert!(d.result.is_null() && d.forward.is_null());
        // Not intercepted: forwarded.
        let d = decide_for(gl, c"glClear");
        assert!(d.result.is_null() && !d.forward.is_null());
    }

    #[test]
    fn lookup_covers_generated_and_hand_written_names() {
        for name in crate::gl::INTERCEPTED.iter().chain(HAND_WRITTEN) {
            let i = lookup(name.as_bytes()).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(i.real.name().to_bytes(), name.as_bytes());
            assert!(is_wrapper(i.wrapper));
        }
        assert!(lookup(b"glClear").is_none());
        // Aliases from gl.xml and from intercept.txt.
        for (alias, base) in [
            ("glShaderSourceARB", "glShaderSource"),
            ("glCreateShaderObjectARB", "glCreateShader"),
            ("glUseProgramObjectARB", "glUseProgram"),
            ("glDrawArraysInstancedEXT", "glDrawArraysInstanced"),
            ("glMultiDrawArraysIndirectAMD", "glMultiDrawArraysIndirect"),
            ("glCreateShaderProgramvEXT", "glCreateShaderProgramv"),
        ] {
            assert!(
                crate::gl::BASE_OF.contains(&(alias, base)),
                "{alias} -> {base}"
            );
        }
        assert!(!is_wrapper(std::ptr::null()));
        assert!(!is_wrapper(libc::malloc as *const c_void));
    }
}
