//! Finding the real functions behind the agent's wrappers.
//!
//! Every wrapped or called function has a [`RealFn`]: a name, a family (GL,
//! EGL or GLX) and a cached pointer. The pointer is filled in two ways:
//!
//! 1. *Seeding*: when the application looks a name up through the
//!    interposed `dlsym(handle, name)` or `*GetProcAddress*(name)`, the agent
//!    performs the real lookup first (that is the pointer the application
//!    would have received) and stores it before handing out its wrapper.
//!    The first pointer seeded wins.
//! 2. *Resolution* on first use, when nothing was seeded (an application
//!    that links libGL and calls the exported symbol directly, or the
//!    agent's own calls through [`crate::real`]):
//!    - GL: the real `eglGetProcAddress` or `glXGetProcAddressARB`, the one
//!      the application used last first, else EGL then GLX, whichever
//!      library is loaded. Under glvnd both return libGLdispatch stubs that
//!      dispatch through the calling thread's current context, whatever its
//!      API, and they know every GL name (libGL/libOpenGL export only the
//!      core names, not ARB/EXT aliases or many extension functions). Then
//!      `dlsym(RTLD_NEXT, name)` (libraries in the global scope after the
//!      agent), then `dlsym` on `libGL.so.1`, `libOpenGL.so.0`,
//!      `libGLESv2.so.2` opened with `RTLD_NOLOAD` (libraries the
//!      application `dlopen`ed `RTLD_LOCAL`, which `RTLD_NEXT` does not see).
//!    - EGL / GLX: `dlsym(RTLD_NEXT)`, then `RTLD_NOLOAD` handles of
//!      `libEGL.so.1` / `libGLX.so.0`, `libGL.so.1`, then that API's real
//!      GetProcAddress (extension functions such as
//!      `eglSwapBuffersWithDamageKHR` exist only there).
//!
//! The agent never loads a library the application has not loaded
//! (`RTLD_NOLOAD`). A failed resolution is not cached (the library may be
//! loaded later). Every candidate pointer is checked not to lie inside the
//! agent itself, so a wrapper can never call itself.
//!
//! The real `dlsym` comes from `dlvsym(RTLD_NEXT, "dlsym", <glibc version>)`
//! so that the agent's own lookups never go through its interposed `dlsym`.

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};

/// Which API a function belongs to; decides how it is resolved and from
/// which GetProcAddress it may be seeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// OpenGL / OpenGL ES commands.
    Gl,
    /// EGL functions (`libEGL.so.1`).
    Egl,
    /// GLX functions (`libGLX.so.0` / `libGL.so.1`).
    Glx,
}

/// A real function, resolved lazily and cached.
pub struct RealFn {
    name: &'static CStr,
    family: Family,
    ptr: AtomicPtr<c_void>,
}

impl RealFn {
    /// A GL command.
    pub const fn gl(name: &'static CStr) -> RealFn {
        RealFn::new(name, Family::Gl)
    }

    /// An EGL function.
    pub const fn egl(name: &'static CStr) -> RealFn {
        RealFn::new(name, Family::Egl)
    }

    /// A GLX function.
    pub const fn glx(name: &'static CStr) -> RealFn {
        RealFn::new(name, Family::Glx)
    }

    const fn new(name: &'static CStr, family: Family) -> RealFn {
        RealFn {
            name,
            family,
            ptr: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The function's name.
    pub fn name(&self) -> &'static CStr {
        self.name
    }

    /// The function's family.
    pub fn family(&self) -> Family {
        self.family
    }

    /// The cached pointer, without trying to resolve it.
    pub fn cached(&self) -> *mut c_void {
        self.ptr.load(Ordering::Acquire)
    }

    /// The real function, resolving it if needed; null if it cannot be
    /// found (yet).
    pub fn get(&self) -> *mut c_void {
        let p = self.cached();
        if !p.is_null() {
            return p;
        }
        let p = self.resolve();
        if p.is_null() {
            tracing::debug!(name = ?self.name, "real function not found");
            return p;
        }
        match self.ptr.compare_exchange(
            std::ptr::null_mut(),
            p,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => {
                tracing::debug!(name = ?self.name, ptr = ?p, "resolved real function");
                p
            }
            Err(earlier) => earlier,
        }
    }

    /// Records `p` (the result of the application's own lookup) as the
    /// real function unless one is known already or `p` is null or one of
    /// the agent's own functions.
    pub fn seed(&self, p: *mut c_void) {
        if p.is_null() || !self.cached().is_null() || is_own(p) {
            return;
        }
        if self
            .ptr
            .compare_exchange(std::ptr::null_mut(), p, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            tracing::debug!(name = ?self.name, ptr = ?p, "seeded real function");
        }
    }

    fn resolve(&self) -> *mut c_void {
        let name = self.name;
        match self.family {
            Family::Gl => real_gl_proc(name),
            Family::Egl => {
                let p = first_acceptable(&[RTLD_NEXT], EGL_LIBS, name);
                if acceptable(p) || is_gpa_name(name) {
                    return p;
                }
                call_gpa(Family::Egl, name)
            }
            Family::Glx => {
                let p = first_acceptable(&[RTLD_NEXT], GLX_LIBS, name);
                if acceptable(p) || is_gpa_name(name) {
                    return p;
                }
                call_gpa(Family::Glx, name)
            }
        }
    }
}

/// The real implementation of any GL function (never one of our wrappers),
/// or null. This is the loader of the agent's own `glow` contexts.
pub fn real_gl_proc(name: &CStr) -> *mut c_void {
    let egl_first = LAST_GPA.load(Ordering::Relaxed) != GPA_GLX;
    let order = if egl_first {
        [Family::Egl, Family::Glx]
    } else {
        [Family::Glx, Family::Egl]
    };
    for family in order {
        let p = call_gpa(family, name);
        if acceptable(p) {
            return p;
        }
    }
    first_acceptable(&[RTLD_NEXT], GL_LIBS, name)
}

const RTLD_NEXT: *mut c_void = libc::RTLD_NEXT;

const GL_LIBS: &[&CStr] = &[c"libGL.so.1", c"libOpenGL.so.0", c"libGLESv2.so.2"];
const EGL_LIBS: &[&CStr] = &[c"libEGL.so.1"];
const GLX_LIBS: &[&CStr] = &[c"libGLX.so.0", c"libGL.so.1"];

/// The real `eglGetProcAddress`.
pub static EGL_GET_PROC_ADDRESS: RealFn = RealFn::egl(c"eglGetProcAddress");
/// The real `glXGetProcAddressARB`.
pub static GLX_GET_PROC_ADDRESS_ARB: RealFn = RealFn::glx(c"glXGetProcAddressARB");
/// The real `glXGetProcAddress`.
pub static GLX_GET_PROC_ADDRESS: RealFn = RealFn::glx(c"glXGetProcAddress");

const GPA_NONE: u8 = 0;
const GPA_EGL: u8 = 1;
const GPA_GLX: u8 = 2;
static LAST_GPA: AtomicU8 = AtomicU8::new(GPA_NONE);

/// Notes which GetProcAddress the application used last; GL functions are
/// then resolved through that one first.
pub fn note_gpa_used(family: Family) {
    let v = match family {
        Family::Egl => GPA_EGL,
        Family::Glx => GPA_GLX,
        Family::Gl => return,
    };
    LAST_GPA.store(v, Ordering::Relaxed);
}

fn is_gpa_name(name: &CStr) -> bool {
    matches!(
        name.to_bytes(),
        b"eglGetProcAddress" | b"glXGetProcAddress" | b"glXGetProcAddressARB"
    )
}

type GetProcAddress = unsafe extern "C" fn(*const c_char) -> *mut c_void;

/// Calls the real GetProcAddress of `family` (when its library is loaded).
fn call_gpa(family: Family, name: &CStr) -> *mut c_void {
    let gpa = match family {
        Family::Egl => EGL_GET_PROC_ADDRESS.get(),
        Family::Glx => {
            let p = GLX_GET_PROC_ADDRESS_ARB.get();
            if p.is_null() {
                GLX_GET_PROC_ADDRESS.get()
            } else {
                p
            }
        }
        Family::Gl => return std::ptr::null_mut(),
    };
    if gpa.is_null() {
        return gpa;
    }
    // SAFETY: `gpa` is not null and is the real GetProcAddress of `family`
    // (the slots hold nothing else), whose C signature is
    // `void (*(const char *))(void)`; `name` is NUL-terminated.
    unsafe {
        let gpa = std::mem::transmute::<*mut c_void, GetProcAddress>(gpa);
        gpa(name.as_ptr())
    }
}

fn acceptable(p: *mut c_void) -> bool {
    !p.is_null() && !is_own(p)
}

fn first_acceptable(handles: &[*mut c_void], libs: &[&CStr], name: &CStr) -> *mut c_void {
    for &h in handles {
        // SAFETY: `handles` are pseudo-handles (RTLD_DEFAULT/RTLD_NEXT) and
        // `name` is NUL-terminated.
        let p = unsafe { real_dlsym(h, name.as_ptr()) };
        if acceptable(p) {
            return p;
        }
    }
    for lib in libs {
        let h = loaded_library(lib);
        if h.is_null() {
            continue;
        }
        // SAFETY: `h` is a live handle from dlopen (kept open for the
        // process's life) and `name` is NUL-terminated.
        let p = unsafe { real_dlsym(h, name.as_ptr()) };
        if acceptable(p) {
            return p;
        }
    }
    std::ptr::null_mut()
}

/// A handle of `lib` if the process has loaded it, without loading it.
/// Handles are kept open (one reference each) so that cached pointers stay
/// valid.
fn loaded_library(lib: &CStr) -> *mut c_void {
    const N: usize = 5;
    static NAMES: [&CStr; N] = [
        c"libGL.so.1",
        c"libOpenGL.so.0",
        c"libGLESv2.so.2",
        c"libEGL.so.1",
        c"libGLX.so.0",
    ];
    static HANDLES: [AtomicPtr<c_void>; N] = [const { AtomicPtr::new(std::ptr::null_mut()) }; N];
    let slot = NAMES.iter().position(|n| *n == lib);
    if let Some(i) = slot {
        let h = HANDLES[i].load(Ordering::Acquire);
        if !h.is_null() {
            return h;
        }
    }
    // SAFETY: a NUL-terminated name; with RTLD_NOLOAD dlopen only returns a
    // library already loaded (no initialiser runs).
    let h = unsafe { libc::dlopen(lib.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
    if h.is_null() {
        return h;
    }
    match slot {
        Some(i) => match HANDLES[i].compare_exchange(
            std::ptr::null_mut(),
            h,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => h,
            Err(earlier) => {
                // SAFETY: `h` is the handle this call's dlopen returned, not
                // stored anywhere: closing it drops only that extra reference
                // (the library stays loaded through `earlier`).
                unsafe { libc::dlclose(h) };
                earlier
            }
        },
        None => h,
    }
}

type DlsymFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void;
static REAL_DLSYM: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// glibc's own `dlsym`, found with `dlvsym` so that the lookup does not go
/// through the agent's `dlsym`. `GLIBC_2.34` is the default version since
/// glibc 2.34 (libdl merged into libc); older versions only have the
/// architecture's base version.
pub fn real_dlsym_ptr() -> *mut c_void {
    let p = REAL_DLSYM.load(Ordering::Acquire);
    if !p.is_null() {
        return p;
    }
    #[cfg(target_arch = "x86_64")]
    const BASE: &CStr = c"GLIBC_2.2.5";
    #[cfg(target_arch = "aarch64")]
    const BASE: &CStr = c"GLIBC_2.17";
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    const BASE: &CStr = c"GLIBC_2.0";
    for version in [c"GLIBC_2.34", BASE] {
        // SAFETY: NUL-terminated strings and a pseudo-handle; dlvsym is not
        // interposed, so this cannot recurse into the agent.
        let p = unsafe { libc::dlvsym(libc::RTLD_NEXT, c"dlsym".as_ptr(), version.as_ptr()) };
        if !p.is_null() && !is_own(p) {
            REAL_DLSYM.store(p, Ordering::Release);
            return p;
        }
    }
    std::ptr::null_mut()
}

/// Calls glibc's `dlsym`. For `RTLD_NEXT` the search starts after the
/// agent's library (the caller is the agent).
///
/// # Safety
/// `name` is NUL-terminated; `handle` is a handle or pseudo-handle.
pub unsafe fn real_dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    let p = real_dlsym_ptr();
    if p.is_null() {
        return p;
    }
    // SAFETY: `p` is not null and is glibc's dlsym (`real_dlsym_ptr` only
    // returns that), of type `DlsymFn`; `handle` and `name` are as it
    // requires (this function's contract).
    unsafe {
        let f = std::mem::transmute::<*mut c_void, DlsymFn>(p);
        f(handle, name)
    }
}

/// The load address of the object containing the agent's code.
fn own_base() -> *mut c_void {
    static BASE: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
    let b = BASE.load(Ordering::Acquire);
    if !b.is_null() {
        return b;
    }
    let b = object_base(own_base as *const c_void);
    BASE.store(b, Ordering::Release);
    b
}

fn object_base(p: *const c_void) -> *mut c_void {
    // SAFETY: dladdr only reads the loader's tables for any address, and
    // writes `info`, a zero-initialised live local (all-zero is a valid
    // `Dl_info`: null pointers).
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(p, &mut info) == 0 {
            return std::ptr::null_mut();
        }
        info.dli_fbase
    }
}

/// Whether `p` lies in the agent's own object (a wrapper, or the
/// interposed `dlsym`/GetProcAddress).
pub fn is_own(p: *const c_void) -> bool {
    let base = own_base();
    !p.is_null() && !base.is_null() && object_base(p) == base
}
