//! Headless OpenGL / OpenGL ES contexts through EGL, without X or a window.
//!
//! A [`Headless`] owns an EGL context created on an EGL *device* display
//! (`EGL_EXT_platform_device`), made current without any surface
//! (`EGL_KHR_surfaceless_context`), and a framebuffer object with an RGBA8
//! colour renderbuffer and a DEPTH24_STENCIL8 renderbuffer that every draw
//! renders into. It is meant for tests and for the built-in host on machines
//! without a GPU: Mesa's llvmpipe provides desktop OpenGL 4.5 (core and
//! compatibility profiles) and OpenGL ES 3.2.
//!
//! ```no_run
//! use shaderdbg_gl_headless::{ContextKind, Headless, Stage};
//!
//! # fn main() -> Result<(), shaderdbg_gl_headless::Error> {
//! let h = Headless::new(ContextKind::Core45, 64, 64)?;
//! let program = h.compile_program(&[
//!     (Stage::Vertex, "#version 450 core\nvoid main() {\n  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);\n  gl_Position = vec4(p, 0.0, 1.0);\n}\n"),
//!     (Stage::Fragment, "#version 450 core\nout vec4 c;\nvoid main() { c = vec4(1.0, 0.0, 0.0, 1.0); }\n"),
//! ])?;
//! h.draw_fullscreen(&program)?;
//! let rgba = h.read_pixels()?; // bottom row first
//! assert_eq!(rgba.len(), 64 * 64 * 4);
//! # Ok(())
//! # }
//! ```
//!
//! # Threads and current contexts
//!
//! An OpenGL context can only be used on the thread on which it is current,
//! so [`Headless`] is neither `Send` nor `Sync`: it stays on the thread that
//! created it. Several `Headless` values may live on one thread (and on many
//! threads at once): every method of `Headless` first makes its own context
//! current on the calling thread if it is not already, so they can be used
//! interleaved. When you make raw GL calls through [`Headless::gl`], do so
//! right after calling `gl()` (which also makes the context current) and before
//! using another `Headless` on the same thread.
//!
//! ```compile_fail
//! fn assert_send<T: Send>() {}
//! assert_send::<shaderdbg_gl_headless::Headless>();
//! ```
//!
//! # Device selection
//!
//! EGL devices are enumerated once per process. Devices advertising
//! `EGL_MESA_device_software` (llvmpipe) are tried first, then the others in
//! enumeration order; the first one on which the requested kind of context can
//! be created is used. Nothing is read from or written to the process
//! environment by this crate (Mesa itself still honours its usual variables
//! such as `LP_NUM_THREADS`).

use std::ffi::CString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use glow::HasContext;
use glutin::api::egl::context::PossiblyCurrentContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::prelude::*;

pub use glow;

/// Errors from context creation, shader compilation and GL calls.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An EGL call made through glutin failed.
    #[error("EGL: {context}: {source}")]
    Egl {
        /// What was being done.
        context: String,
        /// The error reported by glutin.
        #[source]
        source: glutin::error::Error,
    },
    /// No EGL device could provide the requested context.
    #[error("no usable EGL device: {0}")]
    NoDevice(String),
    /// `glGetError` reported an error after an operation.
    #[error("GL error {code:#06x} ({}) while {context}", gl_error_name(*.code))]
    Gl {
        /// What was being done.
        context: String,
        /// The `glGetError` code.
        code: u32,
    },
    /// A driver call failed in some other way (object creation, incomplete
    /// framebuffer, failed buffer mapping).
    #[error("{context}: {message}")]
    Driver {
        /// What was being done.
        context: String,
        /// What the driver said.
        message: String,
    },
    /// A shader failed to compile; `log` is the driver's info log.
    #[error("{stage} shader failed to compile:\n{log}")]
    Compile {
        /// The stage of the shader that failed.
        stage: Stage,
        /// The driver's shader info log.
        log: String,
    },
    /// A program failed to link; `log` is the driver's info log.
    #[error("program failed to link:\n{log}")]
    Link {
        /// The driver's program info log.
        log: String,
    },
    /// An argument was out of range (empty shader list, bad size, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// Writing a PNG file failed.
    #[error("writing PNG {path}: {source}")]
    Png {
        /// The file being written.
        path: PathBuf,
        /// The encoder or I/O error.
        #[source]
        source: png::EncodingError,
    },
    /// Creating a file failed.
    #[error("creating {path}: {source}")]
    Io {
        /// The file being created.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

fn gl_error_name(code: u32) -> &'static str {
    match code {
        glow::INVALID_ENUM => "GL_INVALID_ENUM",
        glow::INVALID_VALUE => "GL_INVALID_VALUE",
        glow::INVALID_OPERATION => "GL_INVALID_OPERATION",
        glow::INVALID_FRAMEBUFFER_OPERATION => "GL_INVALID_FRAMEBUFFER_OPERATION",
        glow::OUT_OF_MEMORY => "GL_OUT_OF_MEMORY",
        glow::STACK_UNDERFLOW => "GL_STACK_UNDERFLOW",
        glow::STACK_OVERFLOW => "GL_STACK_OVERFLOW",
        _ => "unknown",
    }
}

fn egl_err(context: impl Into<String>) -> impl FnOnce(glutin::error::Error) -> Error {
    let context = context.into();
    move |source| Error::Egl { context, source }
}

fn driver_err(context: &str) -> impl FnOnce(String) -> Error + '_ {
    move |message| Error::Driver {
        context: context.to_owned(),
        message,
    }
}

/// The kind of context to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContextKind {
    /// Desktop OpenGL 4.5, core profile (`#version 450 core`).
    Core45,
    /// Desktop OpenGL 4.5, compatibility profile (`#version 450 compatibility`,
    /// `gl_FragColor` and friends).
    Compat45,
    /// OpenGL ES 3.2 (`#version 320 es`).
    Gles32,
}

impl ContextKind {
    /// All kinds, for tests that cover each one.
    pub const ALL: [ContextKind; 3] = [
        ContextKind::Core45,
        ContextKind::Compat45,
        ContextKind::Gles32,
    ];

    /// Whether this is an OpenGL ES context.
    pub fn is_gles(self) -> bool {
        matches!(self, ContextKind::Gles32)
    }

    /// A human-readable name.
    pub fn describe(self) -> &'static str {
        match self {
            ContextKind::Core45 => "OpenGL 4.5 core",
            ContextKind::Compat45 => "OpenGL 4.5 compatibility",
            ContextKind::Gles32 => "OpenGL ES 3.2",
        }
    }

    /// What glutin needs to create a context of this kind.
    pub fn context_attributes(self) -> glutin::context::ContextAttributes {
        match self {
            ContextKind::Core45 => ContextAttributesBuilder::new()
                .with_context_api(ContextApi::OpenGl(Some(Version::new(4, 5))))
                .with_profile(GlProfile::Core),
            ContextKind::Compat45 => ContextAttributesBuilder::new()
                .with_context_api(ContextApi::OpenGl(Some(Version::new(4, 5))))
                .with_profile(GlProfile::Compatibility),
            ContextKind::Gles32 => ContextAttributesBuilder::new()
                .with_context_api(ContextApi::Gles(Some(Version::new(3, 2)))),
        }
        .build(None)
    }
}

pub use shaderdbg_core::Stage;

/// The GL shader type enum for a stage.
fn gl_shader_type(stage: Stage) -> u32 {
    match stage {
        Stage::Vertex => glow::VERTEX_SHADER,
        Stage::Fragment => glow::FRAGMENT_SHADER,
        Stage::Geometry => glow::GEOMETRY_SHADER,
        Stage::TessControl => glow::TESS_CONTROL_SHADER,
        Stage::TessEvaluation => glow::TESS_EVALUATION_SHADER,
        Stage::Compute => glow::COMPUTE_SHADER,
    }
}

/// A linked GL program. Delete it with [`Headless::delete_program`]; it is
/// not deleted on drop (it dies with its context anyway).
#[derive(Debug)]
pub struct Program {
    raw: glow::Program,
    /// Location of the first active user-defined vertex attribute, if any.
    attrib: Option<u32>,
}

impl Program {
    /// The raw glow program handle, for use with [`Headless::gl`].
    pub fn raw(&self) -> glow::Program {
        self.raw
    }

    /// Location of the first active user-defined (non `gl_`) vertex input,
    /// which [`Headless::draw_fullscreen`] feeds with positions.
    pub fn position_attribute(&self) -> Option<u32> {
        self.attrib
    }
}

/// A shader storage buffer bound with `glBindBufferBase` to an index.
#[derive(Debug)]
pub struct StorageBuffer {
    raw: glow::Buffer,
    binding: u32,
    len: usize,
}

impl StorageBuffer {
    /// The raw glow buffer handle.
    pub fn raw(&self) -> glow::Buffer {
        self.raw
    }

    /// The `binding` index the buffer was bound to.
    pub fn binding(&self) -> u32 {
        self.binding
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has zero size.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Why the EGL devices could not be listed, or one could not be
/// initialised. Remembered for the life of the process, hence `Clone`.
#[derive(Debug, Clone, thiserror::Error)]
enum DeviceError {
    #[error("eglQueryDevicesEXT: {0}")]
    Query(#[source] glutin::error::Error),
    #[error("eglQueryDevicesEXT returned no devices")]
    NoDevices,
    #[error("{device}: eglGetPlatformDisplay/eglInitialize: {source}")]
    Display {
        device: String,
        #[source]
        source: glutin::error::Error,
    },
}

struct DeviceSlot {
    device: Device,
    software: bool,
    display: OnceLock<Result<Display, DeviceError>>,
}

impl DeviceSlot {
    fn label(&self) -> String {
        format!(
            "{}{}",
            self.device
                .name()
                .or(self.device.vendor())
                .unwrap_or("unnamed EGL device"),
            if self.software { " (software)" } else { "" }
        )
    }

    fn display(&self) -> Result<&Display, DeviceError> {
        self.display
            .get_or_init(|| {
                // SAFETY: no raw display handle is passed.
                let egl_display = unsafe { Display::with_device(&self.device, None) }.map_err(
                    |source| DeviceError::Display {
                        device: self.label(),
                        source,
                    },
                )?;
                let egl_version = egl_display.version_string();
                tracing::debug!(device = %self.label(), %egl_version, "initialised EGL device display");
                Ok(egl_display)
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// EGL devices in preference order, enumerated once per process.
fn devices() -> Result<&'static [DeviceSlot], Error> {
    static DEVICES: OnceLock<Result<Vec<DeviceSlot>, DeviceError>> = OnceLock::new();
    DEVICES
        .get_or_init(|| {
            let mut slots: Vec<DeviceSlot> = Device::query_devices()
                .map_err(DeviceError::Query)?
                .map(|device| {
                    let software = device.extensions().contains("EGL_MESA_device_software");
                    tracing::debug!(
                        name = ?device.name(),
                        vendor = ?device.vendor(),
                        software,
                        extensions = ?device.extensions(),
                        "found EGL device"
                    );
                    DeviceSlot {
                        device,
                        software,
                        display: OnceLock::new(),
                    }
                })
                .collect();
            // Stable sort: software devices first, otherwise enumeration order.
            slots.sort_by_key(|s| !s.software);
            if slots.is_empty() {
                return Err(DeviceError::NoDevices);
            }
            Ok(slots)
        })
        .as_deref()
        .map_err(|e| Error::NoDevice(e.to_string()))
}

fn create_context(display: &Display, kind: ContextKind) -> Result<PossiblyCurrentContext, Error> {
    let api = if kind.is_gles() {
        Api::GLES3
    } else {
        Api::OPENGL
    };
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .with_alpha_size(0)
        .with_depth_size(0)
        .with_stencil_size(0)
        .with_api(api)
        .build();
    // SAFETY: the template has no native window.
    let config = unsafe { display.find_configs(template) }
        .map_err(egl_err(format!("eglChooseConfig for {kind:?}")))?
        .next()
        .ok_or_else(|| Error::Driver {
            context: format!("eglChooseConfig for {kind:?}"),
            message: "no EGL config supports the API".to_owned(),
        })?;
    let attributes = kind.context_attributes();
    // SAFETY: the config comes from this display and no window is involved.
    let context = unsafe { display.create_context(&config, &attributes) }
        .map_err(egl_err(format!("eglCreateContext for {kind:?}")))?;
    context
        .make_current_surfaceless()
        .map_err(egl_err("eglMakeCurrent without surfaces"))
}

/// GL objects owned by a [`Headless`].
struct Objects {
    fbo: glow::Framebuffer,
    color: glow::Renderbuffer,
    depth_stencil: glow::Renderbuffer,
    vao: glow::VertexArray,
    vbo: glow::Buffer,
}

/// The big triangle covering clip space `[-1, 1]^2`.
const FULLSCREEN_TRIANGLE: [[f32; 2]; 3] = [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]];

/// The scalar types [`Headless::set_uniform`] sets uniforms from.
pub trait UniformScalar: Copy + fmt::Debug {
    /// As GLSL messages say it: `float`, `int`.
    const NAME: &'static str;

    /// `glProgramUniform{1,2,3,4}` of `values`; false (nothing set) for
    /// another count.
    ///
    /// # Safety
    /// A context is current; `program` and `location` belong to it.
    unsafe fn program_uniform(
        gl: &glow::Context,
        program: glow::Program,
        location: &glow::UniformLocation,
        values: &[Self],
    ) -> bool;
}

/// One [`UniformScalar`] implementation per type: they differ only in which
/// glow functions they call.
macro_rules! uniform_scalar {
    ($t:ty, $name:literal, $one:ident, $two:ident, $three:ident, $four:ident) => {
        impl UniformScalar for $t {
            const NAME: &'static str = $name;

            unsafe fn program_uniform(
                gl: &glow::Context,
                p: glow::Program,
                location: &glow::UniformLocation,
                values: &[$t],
            ) -> bool {
                let l = Some(location);
                // SAFETY: the caller's contract.
                unsafe {
                    match *values {
                        [x] => gl.$one(p, l, x),
                        [x, y] => gl.$two(p, l, x, y),
                        [x, y, z] => gl.$three(p, l, x, y, z),
                        [x, y, z, w] => gl.$four(p, l, x, y, z, w),
                        _ => return false,
                    }
                }
                true
            }
        }
    };
}

uniform_scalar!(
    f32,
    "float",
    program_uniform_1_f32,
    program_uniform_2_f32,
    program_uniform_3_f32,
    program_uniform_4_f32
);
uniform_scalar!(
    i32,
    "int",
    program_uniform_1_i32,
    program_uniform_2_i32,
    program_uniform_3_i32,
    program_uniform_4_i32
);

/// A headless GL context rendering into an offscreen framebuffer.
///
/// Not `Send`/`Sync`: see the crate documentation on threads.
pub struct Headless {
    gl: glow::Context,
    /// `glClearBufferSubData` (desktop GL 4.3; glow lacks it).
    clear_buffer_sub_data: Option<ClearBufferSubData>,
    context: PossiblyCurrentContext,
    objects: Objects,
    kind: ContextKind,
    width: u32,
    height: u32,
}

/// `glClearBufferSubData(target, internalformat, offset, size, format,
/// type, data)`.
type ClearBufferSubData =
    unsafe extern "system" fn(u32, u32, isize, isize, u32, u32, *const std::ffi::c_void);

impl fmt::Debug for Headless {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Headless")
            .field("kind", &self.kind)
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

impl Headless {
    /// Creates a context of `kind` with a `width` x `height` offscreen
    /// framebuffer (RGBA8 colour, depth24/stencil8), cleared to (0,0,0,0) and
    /// depth 1. The context is current on the calling thread afterwards.
    pub fn new(kind: ContextKind, width: u32, height: u32) -> Result<Headless, Error> {
        if width == 0 || height == 0 || width > i32::MAX as u32 || height > i32::MAX as u32 {
            return Err(Error::InvalidArgument(format!(
                "framebuffer size {width}x{height}"
            )));
        }
        let mut failures = Vec::new();
        for slot in devices()? {
            let display = match slot.display() {
                Ok(d) => d,
                Err(e) => {
                    tracing::debug!("skipping EGL device: {e}");
                    failures.push(e.to_string());
                    continue;
                }
            };
            match create_context(display, kind) {
                Ok(context) => return Self::finish(kind, width, height, display.clone(), context),
                Err(e) => {
                    tracing::debug!(device = %slot.label(), "cannot create {kind:?} context: {e}");
                    failures.push(format!("{}: {e}", slot.label()));
                }
            }
        }
        Err(Error::NoDevice(format!(
            "no device can create a {kind:?} context: {}",
            failures.join("; ")
        )))
    }

    fn finish(
        kind: ContextKind,
        width: u32,
        height: u32,
        display: Display,
        context: PossiblyCurrentContext,
    ) -> Result<Headless, Error> {
        // SAFETY: the context is current on this thread; EGL's
        // eglGetProcAddress returns context-independent entry points.
        let gl = unsafe {
            glow::Context::from_loader_function_cstr(|name| display.get_proc_address(name))
        };
        let objects = match unsafe { create_objects(&gl, width, height) } {
            Ok(o) => o,
            Err(e) => {
                // Release so that eglDestroyContext (on drop) really frees it.
                let _ = context.make_not_current_in_place();
                return Err(e);
            }
        };
        let clear = display.get_proc_address(c"glClearBufferSubData");
        let clear_buffer_sub_data = (!kind.is_gles() && !clear.is_null()).then(|| {
            // SAFETY: EGL returned the entry point of this name, whose C
            // signature is `ClearBufferSubData`'s.
            unsafe { std::mem::transmute::<*const std::ffi::c_void, ClearBufferSubData>(clear) }
        });
        let h = Headless {
            gl,
            clear_buffer_sub_data,
            context,
            objects,
            kind,
            width,
            height,
        };
        tracing::debug!(
            ?kind,
            width,
            height,
            renderer = %h.renderer(),
            version = %h.version(),
            "created headless GL context"
        );
        Ok(h)
    }

    /// Makes this context current on the calling thread (a no-op if it
    /// already is). Every method does this itself.
    pub fn make_current(&self) -> Result<(), Error> {
        if self.context.is_current() {
            return Ok(());
        }
        self.context
            .make_current_surfaceless()
            .map_err(egl_err("eglMakeCurrent without surfaces"))
    }

    /// The glow context for raw GL calls. The context is made current on
    /// the calling thread first (a failure is logged; check with
    /// [`Headless::make_current`] if it matters). The offscreen framebuffer is
    /// [`Headless::framebuffer`].
    pub fn gl(&self) -> &glow::Context {
        if let Err(e) = self.make_current() {
            tracing::error!("{e}");
        }
        &self.gl
    }

    /// The offscreen framebuffer object everything renders into.
    pub fn framebuffer(&self) -> glow::Framebuffer {
        self.objects.fbo
    }

    /// The kind of context.
    pub fn kind(&self) -> ContextKind {
        self.kind
    }

    /// Framebuffer width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Framebuffer height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// `GL_RENDERER`, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub fn renderer(&self) -> String {
        // SAFETY: plain query on the current context.
        unsafe { self.gl().get_parameter_string(glow::RENDERER) }
    }

    /// `GL_VERSION`, e.g. `4.5 (Core Profile) Mesa 22.3.6`.
    pub fn version(&self) -> String {
        // SAFETY: plain query on the current context.
        unsafe { self.gl().get_parameter_string(glow::VERSION) }
    }

    /// Makes the context current and discards stale GL errors (from raw
    /// calls made through [`Headless::gl`]).
    fn begin(&self) -> Result<&glow::Context, Error> {
        self.make_current()?;
        let gl = &self.gl;
        for _ in 0..16 {
            // SAFETY: current context.
            let code = unsafe { gl.get_error() };
            if code == glow::NO_ERROR {
                break;
            }
            tracing::debug!(
                "discarding stale GL error {code:#06x} ({})",
                gl_error_name(code)
            );
        }
        Ok(gl)
    }

    /// Returns the first pending GL error, if any, as `Error::Gl`.
    fn check(&self, context: impl FnOnce() -> String) -> Result<(), Error> {
        // SAFETY: current context.
        let code = unsafe { self.gl.get_error() };
        if code == glow::NO_ERROR {
            return Ok(());
        }
        // Drain the remaining flags so they don't leak into the next call.
        for _ in 0..16 {
            // SAFETY: current context.
            if unsafe { self.gl.get_error() } == glow::NO_ERROR {
                break;
            }
        }
        Err(Error::Gl {
            context: context(),
            code,
        })
    }

    /// Compiles each `(stage, source)` and links them into a program.
    pub fn compile_program(&self, shaders: &[(Stage, &str)]) -> Result<Program, Error> {
        self.compile_program_with_attribs(shaders, &[])
    }

    /// Like [`Headless::compile_program`], but calls `glBindAttribLocation`
    /// for each `(location, name)` in `attribs` before linking.
    pub fn compile_program_with_attribs(
        &self,
        shaders: &[(Stage, &str)],
        attribs: &[(u32, &str)],
    ) -> Result<Program, Error> {
        if shaders.is_empty() {
            return Err(Error::InvalidArgument("no shaders to link".to_owned()));
        }
        let gl = self.begin()?;
        // SAFETY: all handles are created on this context and deleted on
        // every error path.
        unsafe {
            let program = gl.create_program().map_err(driver_err("glCreateProgram"))?;
            let mut compiled = Vec::with_capacity(shaders.len());
            let cleanup = |compiled: &[glow::Shader]| {
                for &s in compiled {
                    gl.delete_shader(s);
                }
                gl.delete_program(program);
            };
            for &(stage, source) in shaders {
                let shader = match gl.create_shader(gl_shader_type(stage)) {
                    Ok(s) => s,
                    Err(message) => {
                        cleanup(&compiled);
                        return Err(Error::Driver {
                            context: format!("glCreateShader({stage})"),
                            message,
                        });
                    }
                };
                compiled.push(shader);
                gl.shader_source(shader, source);
                gl.compile_shader(shader);
                let log = gl.get_shader_info_log(shader);
                if !gl.get_shader_compile_status(shader) {
                    cleanup(&compiled);
                    let log = if log.trim().is_empty() {
                        "(the driver gave no info log)".to_owned()
                    } else {
                        log
                    };
                    return Err(Error::Compile { stage, log });
                }
                if !log.trim().is_empty() {
                    tracing::debug!("{stage} shader compile log: {log}");
                }
                gl.attach_shader(program, shader);
            }
            for &(location, name) in attribs {
                if CString::new(name).is_err() {
                    cleanup(&compiled);
                    return Err(Error::InvalidArgument(format!("attribute name {name:?}")));
                }
                gl.bind_attrib_location(program, location, name);
            }
            gl.link_program(program);
            let linked = gl.get_program_link_status(program);
            let log = gl.get_program_info_log(program);
            for &s in &compiled {
                gl.detach_shader(program, s);
                gl.delete_shader(s);
            }
            if !linked {
                gl.delete_program(program);
                let log = if log.trim().is_empty() {
                    "(the driver gave no info log)".to_owned()
                } else {
                    log
                };
                return Err(Error::Link { log });
            }
            if !log.trim().is_empty() {
                tracing::debug!("program link log: {log}");
            }
            let attrib = first_user_attribute(gl, program);
            if let Err(e) = self.check(|| "compiling and linking a program".to_owned()) {
                gl.delete_program(program);
                return Err(e);
            }
            Ok(Program {
                raw: program,
                attrib,
            })
        }
    }

    /// Deletes a program.
    pub fn delete_program(&self, program: Program) -> Result<(), Error> {
        let gl = self.begin()?;
        // SAFETY: current context.
        unsafe { gl.delete_program(program.raw) };
        self.check(|| "deleting a program".to_owned())
    }

    /// Binds the framebuffer, viewport, VAO and program.
    fn prepare_draw(&self, program: &Program) -> Result<&glow::Context, Error> {
        let gl = self.begin()?;
        // SAFETY: current context, objects owned by it.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.objects.fbo));
            gl.viewport(0, 0, self.width as i32, self.height as i32);
            gl.bind_vertex_array(Some(self.objects.vao));
            gl.use_program(Some(program.raw));
        }
        Ok(gl)
    }

    /// Clears colour to (0,0,0,0), depth to 1 and stencil to 0 (subject to
    /// the current write masks and scissor, which this crate never changes).
    pub fn clear(&self) -> Result<(), Error> {
        let gl = self.begin()?;
        // SAFETY: current context.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.objects.fbo));
            clear_fbo(gl);
        }
        self.check(|| "clearing the framebuffer".to_owned())
    }

    /// Draws `positions` (clip-space xy, attribute location 0, z = 0, w = 1)
    /// with `glDrawArrays(mode, 0, positions.len())`, e.g.
    /// `mode = glow::TRIANGLES`. Does not clear.
    pub fn draw_arrays_with_positions(
        &self,
        program: &Program,
        positions: &[[f32; 2]],
        mode: u32,
    ) -> Result<(), Error> {
        let count = i32::try_from(positions.len())
            .map_err(|_| Error::InvalidArgument(format!("{} vertices", positions.len())))?;
        let gl = self.prepare_draw(program)?;
        // SAFETY: current context; the VBO holds `count` vec2s.
        unsafe {
            self.draw_with_attrib(gl, Some(0), positions, mode, count);
        }
        self.check(|| format!("drawing {count} vertices with mode {mode:#x}"))
    }

    /// Clears (see [`Headless::clear`]) and draws one triangle covering the
    /// whole framebuffer. If the program has an active user-defined vertex
    /// input, it is fed the positions (-1,-1), (3,-1), (-1,3) as a `vec2`;
    /// otherwise the vertex shader must produce positions from
    /// `gl_VertexID` 0, 1, 2.
    pub fn draw_fullscreen(&self, program: &Program) -> Result<(), Error> {
        let gl = self.prepare_draw(program)?;
        // SAFETY: current context; the VBO holds 3 vec2s.
        unsafe {
            clear_fbo(gl);
            self.draw_with_attrib(gl, program.attrib, &FULLSCREEN_TRIANGLE, glow::TRIANGLES, 3);
        }
        self.check(|| "drawing a full-screen triangle".to_owned())
    }

    /// # Safety
    /// `prepare_draw` has run; `count <= positions.len()`.
    unsafe fn draw_with_attrib(
        &self,
        gl: &glow::Context,
        location: Option<u32>,
        positions: &[[f32; 2]],
        mode: u32,
        count: i32,
    ) {
        unsafe {
            if let Some(loc) = location {
                let bytes: Vec<u8> = positions
                    .iter()
                    .flatten()
                    .flat_map(|f| f.to_ne_bytes())
                    .collect();
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.objects.vbo));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STREAM_DRAW);
                gl.enable_vertex_attrib_array(loc);
                gl.vertex_attrib_pointer_f32(loc, 2, glow::FLOAT, false, 0, 0);
            }
            gl.draw_arrays(mode, 0, count);
            if let Some(loc) = location {
                gl.disable_vertex_attrib_array(loc);
                gl.bind_buffer(glow::ARRAY_BUFFER, None);
            }
        }
    }

    /// Sets a float or int (or sampler/bool) uniform with
    /// `glProgramUniform{1,2,3,4}{f,i}` according to `values.len()`. Returns
    /// `Ok(false)` (and sets nothing) when the program has no active uniform
    /// called `name`, e.g. because the compiler optimised it away.
    pub fn set_uniform<T: UniformScalar>(
        &self,
        program: &Program,
        name: &str,
        values: &[T],
    ) -> Result<bool, Error> {
        let gl = self.begin()?;
        // SAFETY: current context; uniform location from this program.
        unsafe {
            let Some(loc) = gl.get_uniform_location(program.raw, name) else {
                return Ok(false);
            };
            if !T::program_uniform(gl, program.raw, &loc, values) {
                return Err(Error::InvalidArgument(format!(
                    "uniform {name}: {} {} components (need 1 to 4)",
                    values.len(),
                    T::NAME
                )));
            }
        }
        self.check(|| format!("setting {} uniform {name} to {values:?}", T::NAME))?;
        Ok(true)
    }

    /// Reads the colour buffer as RGBA8, `width * height * 4` bytes, bottom
    /// row first (GL order).
    pub fn read_pixels(&self) -> Result<Vec<u8>, Error> {
        let gl = self.begin()?;
        let mut pixels = vec![0u8; self.width as usize * self.height as usize * 4];
        // SAFETY: current context; `pixels` is exactly large enough with
        // PACK_ALIGNMENT 1 and no pack buffer bound.
        unsafe {
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(self.objects.fbo));
            gl.read_buffer(glow::COLOR_ATTACHMENT0);
            gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.pixel_store_i32(glow::PACK_ROW_LENGTH, 0);
            gl.pixel_store_i32(glow::PACK_SKIP_ROWS, 0);
            gl.pixel_store_i32(glow::PACK_SKIP_PIXELS, 0);
            gl.read_pixels(
                0,
                0,
                self.width as i32,
                self.height as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut pixels)),
            );
        }
        self.check(|| "reading pixels".to_owned())?;
        Ok(pixels)
    }

    /// Creates a `GL_SHADER_STORAGE_BUFFER` holding `contents` and binds it
    /// to index `binding` (`layout(binding = N) buffer ...`).
    pub fn create_storage_buffer(
        &self,
        binding: u32,
        contents: &[u8],
    ) -> Result<StorageBuffer, Error> {
        if i32::try_from(contents.len()).is_err() {
            return Err(Error::InvalidArgument(format!(
                "storage buffer of {} bytes",
                contents.len()
            )));
        }
        let gl = self.begin()?;
        // SAFETY: current context.
        unsafe {
            let raw = gl.create_buffer().map_err(driver_err("glGenBuffers"))?;
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(raw));
            gl.buffer_data_u8_slice(glow::SHADER_STORAGE_BUFFER, contents, glow::DYNAMIC_COPY);
            gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, binding, Some(raw));
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
            if let Err(e) = self.check(|| {
                format!(
                    "creating a {}-byte storage buffer at binding {binding}",
                    contents.len()
                )
            }) {
                gl.delete_buffer(raw);
                return Err(e);
            }
            Ok(StorageBuffer {
                raw,
                binding,
                len: contents.len(),
            })
        }
    }

    /// Reads back a storage buffer after a `glMemoryBarrier(GL_ALL_BARRIER_BITS)`.
    /// Uses `glGetBufferSubData` on desktop GL and `glMapBufferRange` on GLES.
    pub fn read_storage_buffer(&self, buf: &StorageBuffer) -> Result<Vec<u8>, Error> {
        self.read_storage_buffer_range(buf, 0, usize::MAX)
    }

    /// [`Self::read_storage_buffer`] of at most `len` bytes from byte
    /// `offset` (what the buffer has of them).
    pub fn read_storage_buffer_range(
        &self,
        buf: &StorageBuffer,
        offset: usize,
        len: usize,
    ) -> Result<Vec<u8>, Error> {
        let gl = self.begin()?;
        let target = glow::SHADER_STORAGE_BUFFER;
        // SAFETY: current context; reads stay within the buffer's size
        // queried from the driver.
        unsafe {
            gl.memory_barrier(glow::ALL_BARRIER_BITS);
            gl.bind_buffer(target, Some(buf.raw));
            let whole = gl
                .get_buffer_parameter_i32(target, glow::BUFFER_SIZE)
                .max(0) as usize;
            let start = offset.min(whole);
            let size = len.min(whole - start) as i32;
            let mut data = vec![0u8; size as usize];
            let result = if size == 0 {
                Ok(())
            } else if self.kind.is_gles() {
                let ptr = gl.map_buffer_range(target, start as i32, size, glow::MAP_READ_BIT);
                if ptr.is_null() {
                    Err(Error::Driver {
                        context: format!("glMapBufferRange of storage buffer ({size} bytes)"),
                        message: format!("returned NULL (GL error {:#06x})", gl.get_error()),
                    })
                } else {
                    std::ptr::copy_nonoverlapping(ptr, data.as_mut_ptr(), data.len());
                    gl.unmap_buffer(target);
                    Ok(())
                }
            } else {
                gl.get_buffer_sub_data(target, start as i32, &mut data);
                Ok(())
            };
            gl.bind_buffer(target, None);
            result?;
            self.check(|| format!("reading a {size}-byte storage buffer"))?;
            Ok(data)
        }
    }

    /// Writes `bytes` into a storage buffer at byte `offset`.
    pub fn write_storage_buffer(
        &self,
        buf: &StorageBuffer,
        offset: usize,
        bytes: &[u8],
    ) -> Result<(), Error> {
        if offset + bytes.len() > buf.len {
            return Err(Error::InvalidArgument(format!(
                "{} bytes at {offset} of a {}-byte buffer",
                bytes.len(),
                buf.len
            )));
        }
        let gl = self.begin()?;
        // SAFETY: current context; the range is within the buffer.
        unsafe {
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(buf.raw));
            gl.buffer_sub_data_u8_slice(glow::SHADER_STORAGE_BUFFER, offset as i32, bytes);
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
        }
        self.check(|| format!("writing {} bytes of a storage buffer", bytes.len()))
    }

    /// Zeroes `len` bytes of a storage buffer at byte `offset` (multiples
    /// of 4): on the GPU with `glClearBufferSubData` on desktop GL, else by
    /// uploading zeros.
    pub fn clear_storage_buffer(
        &self,
        buf: &StorageBuffer,
        offset: usize,
        len: usize,
    ) -> Result<(), Error> {
        let Some(clear) = self.clear_buffer_sub_data else {
            return self.write_storage_buffer(buf, offset, &vec![0; len]);
        };
        if offset + len > buf.len || !offset.is_multiple_of(4) || !len.is_multiple_of(4) {
            return Err(Error::InvalidArgument(format!(
                "clearing {len} bytes at {offset} of a {}-byte buffer",
                buf.len
            )));
        }
        let gl = self.begin()?;
        // SAFETY: current context; the range is within the buffer; a null
        // `data` fills with zeros.
        unsafe {
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(buf.raw));
            clear(
                glow::SHADER_STORAGE_BUFFER,
                glow::R32UI,
                offset as isize,
                len as isize,
                glow::RED_INTEGER,
                glow::UNSIGNED_INT,
                std::ptr::null(),
            );
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
        }
        self.check(|| format!("clearing {len} bytes of a storage buffer"))
    }

    /// Deletes a storage buffer.
    pub fn delete_storage_buffer(&self, buf: StorageBuffer) -> Result<(), Error> {
        let gl = self.begin()?;
        // SAFETY: current context.
        unsafe { gl.delete_buffer(buf.raw) };
        self.check(|| "deleting a storage buffer".to_owned())
    }

    /// Runs a compute program with `glDispatchCompute(x, y, z)` followed by
    /// `glMemoryBarrier(GL_ALL_BARRIER_BITS)`.
    pub fn dispatch_compute(&self, program: &Program, x: u32, y: u32, z: u32) -> Result<(), Error> {
        let gl = self.begin()?;
        // SAFETY: current context.
        unsafe {
            gl.use_program(Some(program.raw));
            gl.dispatch_compute(x, y, z);
            gl.memory_barrier(glow::ALL_BARRIER_BITS);
        }
        self.check(|| format!("dispatching compute ({x}, {y}, {z})"))
    }
}

impl Headless {
    /// Renders one full-screen frame with a vertex and a fragment shader (the
    /// vertex shader's `pos` input at location 0), with a storage buffer
    /// holding `storage.1` bound at `storage.0` if given: the pixels, and
    /// the buffer's words after the draw (empty without one). Everything it
    /// creates is deleted again.
    pub fn render(
        &self,
        vert: &str,
        frag: &str,
        storage: Option<(u32, &[u8])>,
    ) -> Result<(Vec<u8>, Vec<u32>), Error> {
        let program = self.compile_program_with_attribs(
            &[(Stage::Vertex, vert), (Stage::Fragment, frag)],
            &[(0, "pos")],
        )?;
        let buffer = match storage {
            Some((binding, bytes)) => Some(self.create_storage_buffer(binding, bytes)?),
            None => None,
        };
        self.draw_fullscreen(&program)?;
        let pixels = self.read_pixels()?;
        let words = match buffer {
            Some(b) => {
                let bytes = self.read_storage_buffer(&b)?;
                self.delete_storage_buffer(b)?;
                bytes
                    .chunks_exact(4)
                    .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                    .collect()
            }
            None => Vec::new(),
        };
        self.delete_program(program)?;
        Ok((pixels, words))
    }
}

impl Drop for Headless {
    fn drop(&mut self) {
        if self.make_current().is_ok() {
            let o = &self.objects;
            // SAFETY: current context, objects owned by it.
            unsafe {
                self.gl.bind_framebuffer(glow::FRAMEBUFFER, None);
                self.gl.delete_framebuffer(o.fbo);
                self.gl.delete_renderbuffer(o.color);
                self.gl.delete_renderbuffer(o.depth_stencil);
                self.gl.delete_vertex_array(o.vao);
                self.gl.delete_buffer(o.vbo);
            }
            // eglDestroyContext (when `context` drops) only frees a context
            // once it is no longer current anywhere.
            if let Err(e) = self.context.make_not_current_in_place() {
                tracing::debug!("releasing EGL context: {e}");
            }
        }
    }
}

/// # Safety
/// The context is current.
unsafe fn clear_fbo(gl: &glow::Context) {
    unsafe {
        gl.clear_color(0.0, 0.0, 0.0, 0.0);
        gl.clear_depth_f32(1.0);
        gl.clear_stencil(0);
        gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT);
    }
}

/// A `w` x `h` renderbuffer of `format`, attached at `attachment` of the
/// bound framebuffer; left bound.
///
/// # Safety
/// The context is current.
unsafe fn attach_renderbuffer(
    gl: &glow::Context,
    format: u32,
    attachment: u32,
    (w, h): (i32, i32),
) -> Result<glow::Renderbuffer, Error> {
    unsafe {
        let rb = gl
            .create_renderbuffer()
            .map_err(driver_err("glGenRenderbuffers"))?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
        gl.renderbuffer_storage(glow::RENDERBUFFER, format, w, h);
        gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, attachment, glow::RENDERBUFFER, Some(rb));
        Ok(rb)
    }
}

/// # Safety
/// The context is current.
unsafe fn create_objects(gl: &glow::Context, width: u32, height: u32) -> Result<Objects, Error> {
    unsafe {
        let max = gl.get_parameter_i32(glow::MAX_RENDERBUFFER_SIZE);
        if width as i64 > max as i64 || height as i64 > max as i64 {
            return Err(Error::InvalidArgument(format!(
                "framebuffer size {width}x{height} exceeds GL_MAX_RENDERBUFFER_SIZE {max}"
            )));
        }
        let (w, h) = (width as i32, height as i32);
        let fbo = gl
            .create_framebuffer()
            .map_err(driver_err("glGenFramebuffers"))?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        let color = attach_renderbuffer(gl, glow::RGBA8, glow::COLOR_ATTACHMENT0, (w, h))?;
        let depth_stencil = attach_renderbuffer(
            gl,
            glow::DEPTH24_STENCIL8,
            glow::DEPTH_STENCIL_ATTACHMENT,
            (w, h),
        )?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, None);
        gl.draw_buffers(&[glow::COLOR_ATTACHMENT0]);
        gl.read_buffer(glow::COLOR_ATTACHMENT0);
        let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
        if status != glow::FRAMEBUFFER_COMPLETE {
            return Err(Error::Driver {
                context: format!(
                    "creating a {width}x{height} RGBA8 + DEPTH24_STENCIL8 framebuffer"
                ),
                message: format!("glCheckFramebufferStatus returned {status:#06x}"),
            });
        }
        gl.viewport(0, 0, w, h);
        clear_fbo(gl);
        let vao = gl
            .create_vertex_array()
            .map_err(driver_err("glGenVertexArrays"))?;
        gl.bind_vertex_array(Some(vao));
        let vbo = gl.create_buffer().map_err(driver_err("glGenBuffers"))?;
        let code = gl.get_error();
        if code != glow::NO_ERROR {
            return Err(Error::Gl {
                context: "creating the offscreen framebuffer".to_owned(),
                code,
            });
        }
        Ok(Objects {
            fbo,
            color,
            depth_stencil,
            vao,
            vbo,
        })
    }
}

/// Location of the first active vertex input not named `gl_*`.
///
/// # Safety
/// The context is current and `program` is linked.
unsafe fn first_user_attribute(gl: &glow::Context, program: glow::Program) -> Option<u32> {
    unsafe {
        let mut best: Option<u32> = None;
        for i in 0..gl.get_active_attributes(program) {
            let Some(attr) = gl.get_active_attribute(program, i) else {
                continue;
            };
            if attr.name.starts_with("gl_") {
                continue;
            }
            if let Some(loc) = gl.get_attrib_location(program, &attr.name) {
                best = Some(best.map_or(loc, |b| b.min(loc)));
            }
        }
        best
    }
}

/// Writes `rgba_bottom_up` (RGBA8, bottom row first, as from
/// [`Headless::read_pixels`]) to `path` as a PNG with the top row first.
pub fn write_png(
    path: impl AsRef<Path>,
    width: u32,
    height: u32,
    rgba_bottom_up: &[u8],
) -> Result<(), Error> {
    let path = path.as_ref();
    let row = width as usize * 4;
    if width == 0 || height == 0 || rgba_bottom_up.len() != row * height as usize {
        return Err(Error::InvalidArgument(format!(
            "{} bytes of RGBA8 for a {width}x{height} image",
            rgba_bottom_up.len()
        )));
    }
    let mut flipped = Vec::with_capacity(rgba_bottom_up.len());
    for r in rgba_bottom_up.chunks_exact(row).rev() {
        flipped.extend_from_slice(r);
    }
    let file = std::fs::File::create(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let png_err = |source| Error::Png {
        path: path.to_owned(),
        source,
    };
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(png_err)?;
    writer.write_image_data(&flipped).map_err(png_err)?;
    writer.finish().map_err(png_err)
}
