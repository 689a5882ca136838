//! `dlopen_app`: loads GL the way many engines do (no link-time dependency
//! on libGL/libEGL, `dlopen` + `dlsym` + `*GetProcAddress*`), creates no
//! context, and prints one line per lookup:
//!
//! ```text
//! agent yes|no
//! <how> <name> wrapper|real|null
//! ```
//!
//! `wrapper` means the pointer is one of the agent's wrappers, as told by
//! the agent's exported `shaderdbg_agent_is_wrapper(ptr) -> bool`, found
//! with `dlsym(RTLD_DEFAULT, ...)`; without the agent every non-null
//! pointer is `real`. `<how>` is `dlsym:libGL`, `dlsym:libEGL`,
//! `dlsym:default`, `dlsym:next`, `glXGetProcAddressARB`,
//! `glXGetProcAddress` or `eglGetProcAddress`. A last line
//! `next-agent-symbol found|null` says whether `dlsym(RTLD_NEXT,
//! "shaderdbg_agent_is_wrapper")` from this executable finds the agent's
//! export (it must with the agent: RTLD_NEXT is relative to the caller), and
//! `next-puts <library file>` names the object `dlsym(RTLD_NEXT, "puts")`
//! resolved to (it must be libc, with or without the agent).

use std::ffi::{c_char, c_void, CStr, CString};

type IsWrapper = unsafe extern "C" fn(*const c_void) -> bool;
type GetProcAddress = unsafe extern "C" fn(*const c_char) -> *mut c_void;

fn main() {
    // SAFETY: plain libdl calls with NUL-terminated names; the pointers
    // returned are only compared and, for the GetProcAddress functions,
    // called with their documented signature.
    unsafe {
        let is_wrapper: Option<IsWrapper> = {
            let p = libc::dlsym(libc::RTLD_DEFAULT, c"shaderdbg_agent_is_wrapper".as_ptr());
            (!p.is_null()).then(|| std::mem::transmute::<*mut c_void, IsWrapper>(p))
        };
        println!("agent {}", if is_wrapper.is_some() { "yes" } else { "no" });
        let classify = |p: *mut c_void| -> &'static str {
            if p.is_null() {
                "null"
            } else if is_wrapper.is_some_and(|f| f(p)) {
                "wrapper"
            } else {
                "real"
            }
        };
        let report = |how: &str, name: &str, p: *mut c_void| {
            println!("{how} {name} {}", classify(p));
        };

        let libgl = libc::dlopen(c"libGL.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        assert!(!libgl.is_null(), "dlopen libGL.so.1 failed");
        let libegl = libc::dlopen(c"libEGL.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        assert!(!libegl.is_null(), "dlopen libEGL.so.1 failed");

        let names = [
            "glShaderSource",
            "glCreateShaderObjectARB",
            "glDrawArrays",
            "glClear",
            "glXGetProcAddressARB",
            "glXGetProcAddress",
            "glXSwapBuffers",
            "eglGetProcAddress",
            "eglSwapBuffers",
            "eglDestroyContext",
            "eglGetCurrentContext",
        ];
        let sym = |handle: *mut c_void, name: &str| {
            let c = CString::new(name).unwrap();
            libc::dlsym(handle, c.as_ptr())
        };
        for name in names {
            report("dlsym:libGL", name, sym(libgl, name));
            report("dlsym:libEGL", name, sym(libegl, name));
            report("dlsym:default", name, sym(libc::RTLD_DEFAULT, name));
            report("dlsym:next", name, sym(libc::RTLD_NEXT, name));
        }
        let gpas = [
            ("glXGetProcAddressARB", sym(libgl, "glXGetProcAddressARB")),
            ("glXGetProcAddress", sym(libgl, "glXGetProcAddress")),
            ("eglGetProcAddress", sym(libegl, "eglGetProcAddress")),
        ];
        for (how, p) in gpas {
            assert!(!p.is_null(), "{how} not found");
            let gpa = std::mem::transmute::<*mut c_void, GetProcAddress>(p);
            for name in names {
                let c = CString::new(name).unwrap();
                report(how, name, gpa(c.as_ptr()));
            }
        }

        // RTLD_NEXT is relative to the *caller* (this executable): the
        // agent, preloaded right after it, is searched. An interposed dlsym
        // that forwarded from inside the agent would search after it and
        // miss its own symbol.
        let own = libc::dlsym(libc::RTLD_NEXT, c"shaderdbg_agent_is_wrapper".as_ptr());
        println!(
            "next-agent-symbol {}",
            if own.is_null() { "null" } else { "found" }
        );

        let puts = libc::dlsym(libc::RTLD_NEXT, c"puts".as_ptr());
        let mut info: libc::Dl_info = std::mem::zeroed();
        let file = if !puts.is_null() && libc::dladdr(puts, &mut info) != 0 {
            CStr::from_ptr(info.dli_fname)
                .to_string_lossy()
                .into_owned()
        } else {
            "?".to_owned()
        };
        println!("next-puts {file}");
    }
}
