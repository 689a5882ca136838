//! A bare X11 window for `--window`, through `libX11.so.6` opened at run
//! time (no winit, no build-time X dependency). The host needs only a
//! window to give EGL, its size, and the close button / Escape / `q`.

use std::ffi::{c_char, c_int, c_long, c_uint, c_ulong, c_void, CString};
use std::ptr::NonNull;

use anyhow::{anyhow, bail};
use raw_window_handle::{RawDisplayHandle, RawWindowHandle, XlibDisplayHandle, XlibWindowHandle};

type XDisplay = c_void;
type XWindow = c_ulong;
type Atom = c_ulong;

const KEY_PRESS: c_int = 2;
const CONFIGURE_NOTIFY: c_int = 22;
const CLIENT_MESSAGE: c_int = 33;
const KEY_PRESS_MASK: c_long = 1 << 0;
const STRUCTURE_NOTIFY_MASK: c_long = 1 << 17;
const XK_ESCAPE: c_ulong = 0xff1b;
const XK_Q: c_ulong = 0x0071;

#[repr(C)]
#[derive(Clone, Copy)]
struct XClientMessageEvent {
    type_: c_int,
    serial: c_ulong,
    send_event: c_int,
    display: *mut XDisplay,
    window: XWindow,
    message_type: Atom,
    format: c_int,
    data: [c_long; 5],
}

#[repr(C)]
#[derive(Clone, Copy)]
struct XConfigureEvent {
    type_: c_int,
    serial: c_ulong,
    send_event: c_int,
    display: *mut XDisplay,
    event: XWindow,
    window: XWindow,
    x: c_int,
    y: c_int,
    width: c_int,
    height: c_int,
    border_width: c_int,
    above: XWindow,
    override_redirect: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct XKeyEvent {
    type_: c_int,
    serial: c_ulong,
    send_event: c_int,
    display: *mut XDisplay,
    window: XWindow,
    root: XWindow,
    subwindow: XWindow,
    time: c_ulong,
    x: c_int,
    y: c_int,
    x_root: c_int,
    y_root: c_int,
    state: c_uint,
    keycode: c_uint,
    same_screen: c_int,
}

#[repr(C)]
union XEvent {
    type_: c_int,
    client: XClientMessageEvent,
    configure: XConfigureEvent,
    key: XKeyEvent,
    pad: [c_long; 24],
}

/// The libX11 functions the host calls.
struct Xlib {
    open_display: unsafe extern "C" fn(*const c_char) -> *mut XDisplay,
    close_display: unsafe extern "C" fn(*mut XDisplay) -> c_int,
    default_screen: unsafe extern "C" fn(*mut XDisplay) -> c_int,
    root_window: unsafe extern "C" fn(*mut XDisplay, c_int) -> XWindow,
    black_pixel: unsafe extern "C" fn(*mut XDisplay, c_int) -> c_ulong,
    default_visual: unsafe extern "C" fn(*mut XDisplay, c_int) -> *mut c_void,
    visual_id: unsafe extern "C" fn(*mut c_void) -> c_ulong,
    create_simple_window: unsafe extern "C" fn(
        *mut XDisplay,
        XWindow,
        c_int,
        c_int,
        c_uint,
        c_uint,
        c_uint,
        c_ulong,
        c_ulong,
    ) -> XWindow,
    destroy_window: unsafe extern "C" fn(*mut XDisplay, XWindow) -> c_int,
    store_name: unsafe extern "C" fn(*mut XDisplay, XWindow, *const c_char) -> c_int,
    intern_atom: unsafe extern "C" fn(*mut XDisplay, *const c_char, c_int) -> Atom,
    set_wm_protocols: unsafe extern "C" fn(*mut XDisplay, XWindow, *mut Atom, c_int) -> c_int,
    select_input: unsafe extern "C" fn(*mut XDisplay, XWindow, c_long) -> c_int,
    map_window: unsafe extern "C" fn(*mut XDisplay, XWindow) -> c_int,
    pending: unsafe extern "C" fn(*mut XDisplay) -> c_int,
    next_event: unsafe extern "C" fn(*mut XDisplay, *mut XEvent) -> c_int,
    lookup_keysym: unsafe extern "C" fn(*mut XKeyEvent, c_int) -> c_ulong,
    flush: unsafe extern "C" fn(*mut XDisplay) -> c_int,
}

impl Xlib {
    fn load() -> anyhow::Result<Xlib> {
        // SAFETY: dlopen with a constant name.
        let handle = unsafe { libc::dlopen(c"libX11.so.6".as_ptr(), libc::RTLD_NOW) };
        if handle.is_null() {
            bail!("--window needs libX11.so.6, which could not be loaded");
        }
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the handle is open; the name is NUL-terminated.
                let p = unsafe { libc::dlsym(handle, concat!($name, "\0").as_ptr().cast()) };
                if p.is_null() {
                    bail!("libX11.so.6 has no {}", $name);
                }
                // SAFETY: the field's type is the function's C signature
                // (inferred from the field this initialises).
                #[allow(clippy::missing_transmute_annotations)]
                unsafe {
                    std::mem::transmute::<*mut c_void, _>(p)
                }
            }};
        }
        Ok(Xlib {
            open_display: sym!("XOpenDisplay"),
            close_display: sym!("XCloseDisplay"),
            default_screen: sym!("XDefaultScreen"),
            root_window: sym!("XRootWindow"),
            black_pixel: sym!("XBlackPixel"),
            default_visual: sym!("XDefaultVisual"),
            visual_id: sym!("XVisualIDFromVisual"),
            create_simple_window: sym!("XCreateSimpleWindow"),
            destroy_window: sym!("XDestroyWindow"),
            store_name: sym!("XStoreName"),
            intern_atom: sym!("XInternAtom"),
            set_wm_protocols: sym!("XSetWMProtocols"),
            select_input: sym!("XSelectInput"),
            map_window: sym!("XMapWindow"),
            pending: sym!("XPending"),
            next_event: sym!("XNextEvent"),
            lookup_keysym: sym!("XLookupKeysym"),
            flush: sym!("XFlush"),
        })
    }
}

/// An open X display with one mapped window.
pub struct X11Window {
    xlib: Xlib,
    display: NonNull<XDisplay>,
    screen: c_int,
    window: XWindow,
    wm_delete: Atom,
    size: std::cell::Cell<(u32, u32)>,
}

impl X11Window {
    /// Opens `$DISPLAY` and maps a `width` x `height` window titled `title`.
    pub fn open(width: u32, height: u32, title: &str) -> anyhow::Result<X11Window> {
        let xlib = Xlib::load()?;
        // SAFETY: plain Xlib calls on the display we opened, in order.
        unsafe {
            let display = NonNull::new((xlib.open_display)(std::ptr::null())).ok_or_else(|| {
                anyhow!(
                    "--window: cannot open the X display {:?} (is DISPLAY set?)",
                    std::env::var("DISPLAY").unwrap_or_default()
                )
            })?;
            let dpy = display.as_ptr();
            let screen = (xlib.default_screen)(dpy);
            let root = (xlib.root_window)(dpy, screen);
            let black = (xlib.black_pixel)(dpy, screen);
            let window =
                (xlib.create_simple_window)(dpy, root, 0, 0, width, height, 0, black, black);
            let title = CString::new(title.replace('\0', "")).unwrap_or_default();
            (xlib.store_name)(dpy, window, title.as_ptr());
            let mut wm_delete = (xlib.intern_atom)(dpy, c"WM_DELETE_WINDOW".as_ptr(), 0);
            (xlib.set_wm_protocols)(dpy, window, &mut wm_delete, 1);
            (xlib.select_input)(dpy, window, KEY_PRESS_MASK | STRUCTURE_NOTIFY_MASK);
            (xlib.map_window)(dpy, window);
            (xlib.flush)(dpy);
            Ok(X11Window {
                xlib,
                display,
                screen,
                window,
                wm_delete,
                size: std::cell::Cell::new((width, height)),
            })
        }
    }

    /// The visual id of the window (the screen's default visual), to pick a
    /// matching EGL config.
    pub fn visual_id(&self) -> u32 {
        // SAFETY: the display is open.
        unsafe {
            let visual = (self.xlib.default_visual)(self.display.as_ptr(), self.screen);
            (self.xlib.visual_id)(visual) as u32
        }
    }

    pub fn raw_display_handle(&self) -> RawDisplayHandle {
        RawDisplayHandle::Xlib(XlibDisplayHandle::new(
            Some(self.display.cast()),
            self.screen,
        ))
    }

    pub fn raw_window_handle(&self) -> RawWindowHandle {
        RawWindowHandle::Xlib(XlibWindowHandle::new(self.window))
    }

    /// The window's current size.
    pub fn size(&self) -> (u32, u32) {
        self.size.get()
    }

    /// Handles pending events; returns false once the window was closed or
    /// Escape or `q` was pressed.
    pub fn pump_events(&self) -> bool {
        let dpy = self.display.as_ptr();
        let mut open = true;
        // SAFETY: events are read into a buffer as large as Xlib's XEvent,
        // and only the member matching `type_` is read.
        unsafe {
            while (self.xlib.pending)(dpy) > 0 {
                let mut event: XEvent = std::mem::zeroed();
                (self.xlib.next_event)(dpy, &mut event);
                match event.type_ {
                    CLIENT_MESSAGE if event.client.data[0] as Atom == self.wm_delete => {
                        open = false;
                    }
                    CONFIGURE_NOTIFY => {
                        let c = event.configure;
                        if c.width > 0 && c.height > 0 {
                            self.size.set((c.width as u32, c.height as u32));
                        }
                    }
                    KEY_PRESS => {
                        let sym = (self.xlib.lookup_keysym)(&mut event.key, 0);
                        if sym == XK_ESCAPE || sym == XK_Q {
                            open = false;
                        }
                    }
                    _ => {}
                }
            }
        }
        open
    }
}

impl Drop for X11Window {
    fn drop(&mut self) {
        // SAFETY: the window and display are ours; the library stays loaded
        // (Xlib registers callbacks that may run at exit).
        unsafe {
            (self.xlib.destroy_window)(self.display.as_ptr(), self.window);
            (self.xlib.close_display)(self.display.as_ptr());
        }
    }
}
