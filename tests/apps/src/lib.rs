//! What the test apps share: a headless context on an EGL pbuffer (the way
//! `single_pass` makes one; see its documentation for why a pbuffer and the
//! EGL device platform), program building, an RGBA8 framebuffer read back as
//! a checksum, and storage-buffer read-back.
//!
//! Every app prints one line per frame, `frame N checksum HEX` (64-bit
//! FNV-1a of the RGBA8 pixels, bottom row first), plus app-specific lines,
//! and calls `eglSwapBuffers` at the end of every frame so the agent sees
//! frame boundaries. All GL goes through `eglGetProcAddress` (glow) and EGL
//! through glutin's `dlopen` of `libEGL.so.1`, as real programs do.

use std::num::NonZeroU32;

use anyhow::{anyhow, bail, Context as _};
use glow::HasContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::prelude::*;
use glutin::surface::{PbufferSurface, SurfaceAttributesBuilder};

pub use glow;

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Positional argument `i` (flags starting with `--` are skipped), or `default`.
pub fn arg<T: std::str::FromStr>(i: usize, name: &str, default: T) -> anyhow::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    match args.get(i) {
        Some(a) => a.parse().with_context(|| format!("{name}: {a:?}")),
        None => Ok(default),
    }
}

/// Whether `--flag` was given.
pub fn flag(name: &str) -> bool {
    std::env::args().skip(1).any(|a| a == name)
}

/// The kind of context an app asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Desktop OpenGL core profile of this version.
    Core(u8, u8),
    /// Desktop OpenGL compatibility profile of this version.
    Compat(u8, u8),
    /// OpenGL ES of this version.
    Es(u8, u8),
}

/// Creates a context of `kind` with a `size` x `size` pbuffer, makes it
/// current and runs `body` with the GL functions and a swap function.
pub fn with_context<T>(
    kind: Kind,
    size: u32,
    body: impl FnOnce(&glow::Context, &mut dyn FnMut() -> anyhow::Result<()>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    with_context_sized(kind, size, size, body)
}

/// As [`with_context`], with a `width` x `height` pbuffer.
pub fn with_context_sized<T>(
    kind: Kind,
    width: u32,
    height: u32,
    body: impl FnOnce(&glow::Context, &mut dyn FnMut() -> anyhow::Result<()>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    with_context_on(&device_display()?, kind, width, height, body)
}

/// The display of Mesa's software device (llvmpipe) where there is one, like
/// shaderdbg-gl-headless; else of the first EGL device.
pub fn device_display() -> anyhow::Result<Display> {
    let mut devices: Vec<Device> = Device::query_devices()
        .context("eglQueryDevicesEXT")?
        .collect();
    devices.sort_by_key(|d| !d.extensions().contains("EGL_MESA_device_software"));
    let device = devices
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("no EGL device"))?;
    // SAFETY: no raw display handle.
    unsafe { Display::with_device(&device, None) }.context("EGL device display")
}

/// As [`with_context_sized`], on `display` (one display serves contexts on
/// several threads).
pub fn with_context_on<T>(
    display: &Display,
    kind: Kind,
    width: u32,
    height: u32,
    body: impl FnOnce(&glow::Context, &mut dyn FnMut() -> anyhow::Result<()>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let width_nz = NonZeroU32::new(width).ok_or_else(|| anyhow!("WIDTH must be positive"))?;
    let height_nz = NonZeroU32::new(height).ok_or_else(|| anyhow!("HEIGHT must be positive"))?;
    let api = match kind {
        Kind::Es(..) => Api::GLES3,
        _ => Api::OPENGL,
    };
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::PBUFFER)
        .with_api(api)
        .build();
    // SAFETY: no native window involved.
    let config = unsafe { display.find_configs(template) }
        .context("eglChooseConfig")?
        .next()
        .ok_or_else(|| anyhow!("no EGL config with EGL_PBUFFER_BIT and {api:?}"))?;
    let surface_attrs =
        SurfaceAttributesBuilder::<PbufferSurface>::new().build(width_nz, height_nz);
    // SAFETY: the config belongs to this display.
    let surface = unsafe { display.create_pbuffer_surface(&config, &surface_attrs) }
        .context("eglCreatePbufferSurface")?;
    let attrs = match kind {
        Kind::Core(major, minor) => ContextAttributesBuilder::new()
            .with_context_api(ContextApi::OpenGl(Some(Version::new(major, minor))))
            .with_profile(GlProfile::Core),
        Kind::Compat(major, minor) => ContextAttributesBuilder::new()
            .with_context_api(ContextApi::OpenGl(Some(Version::new(major, minor))))
            .with_profile(GlProfile::Compatibility),
        Kind::Es(major, minor) => ContextAttributesBuilder::new()
            .with_context_api(ContextApi::Gles(Some(Version::new(major, minor)))),
    }
    .build(None);
    // SAFETY: the config belongs to this display.
    let context = unsafe { display.create_context(&config, &attrs) }
        .context("eglCreateContext")?
        .make_current(&surface)
        .context("eglMakeCurrent")?;
    // SAFETY: the context is current; eglGetProcAddress pointers are
    // context-independent.
    let gl =
        unsafe { glow::Context::from_loader_function_cstr(|name| display.get_proc_address(name)) };
    let mut swap = || surface.swap_buffers(&context).context("eglSwapBuffers");
    let out = body(&gl, &mut swap)?;
    context
        .make_not_current()
        .context("releasing the context")?;
    Ok(out)
}

/// Compiles and links a program from `(GL stage, source)` pairs; `before_link`
/// runs between attaching and linking (attribute locations, ...).
///
/// # Safety
/// A context is current.
pub unsafe fn program(
    gl: &glow::Context,
    shaders: &[(u32, &str)],
    before_link: impl FnOnce(glow::Program),
) -> anyhow::Result<glow::Program> {
    unsafe {
        let program = gl.create_program().map_err(|e| anyhow!(e))?;
        let mut made = Vec::new();
        for (kind, source) in shaders {
            let shader = gl.create_shader(*kind).map_err(|e| anyhow!(e))?;
            gl.shader_source(shader, source);
            gl.compile_shader(shader);
            if !gl.get_shader_compile_status(shader) {
                bail!("compile: {}", gl.get_shader_info_log(shader));
            }
            gl.attach_shader(program, shader);
            made.push(shader);
        }
        before_link(program);
        gl.link_program(program);
        if !gl.get_program_link_status(program) {
            bail!("link: {}", gl.get_program_info_log(program));
        }
        for shader in made {
            gl.detach_shader(program, shader);
            gl.delete_shader(shader);
        }
        Ok(program)
    }
}

/// A program of one vertex and one fragment shader.
///
/// # Safety
/// A context is current.
pub unsafe fn vf_program(
    gl: &glow::Context,
    vertex: &str,
    fragment: &str,
) -> anyhow::Result<glow::Program> {
    unsafe {
        program(
            gl,
            &[
                (glow::VERTEX_SHADER, vertex),
                (glow::FRAGMENT_SHADER, fragment),
            ],
            |_| {},
        )
    }
}

/// A buffer object bound to `target` and filled with `bytes` (`STATIC_DRAW`).
///
/// # Safety
/// A context is current.
pub unsafe fn buffer(
    gl: &glow::Context,
    target: u32,
    bytes: &[u8],
) -> anyhow::Result<glow::Buffer> {
    unsafe {
        let b = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(target, Some(b));
        gl.buffer_data_u8_slice(target, bytes, glow::STATIC_DRAW);
        Ok(b)
    }
}

/// The GLSL 430 vertex shader of a full-screen triangle from `gl_VertexID`
/// (see [`draw_full_screen`]).
pub const FULL_SCREEN_VERTEX: &str = "#version 430
void main() {
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
";

/// Clears a `size` x `size` viewport to transparent black and draws the
/// full-screen triangle of [`FULL_SCREEN_VERTEX`] with `program`.
///
/// # Safety
/// A context is current and `program` and `vao` belong to it.
pub unsafe fn draw_full_screen(
    gl: &glow::Context,
    program: glow::Program,
    vao: glow::VertexArray,
    size: i32,
) {
    unsafe {
        gl.viewport(0, 0, size, size);
        gl.clear_color(0.0, 0.0, 0.0, 0.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.bind_vertex_array(None);
        gl.use_program(None);
    }
}

/// Fills `buffer` with `len` zero bytes and binds it to storage binding
/// `binding`.
///
/// # Safety
/// A context is current and `buffer` belongs to it.
pub unsafe fn zero_storage(gl: &glow::Context, buffer: glow::Buffer, binding: u32, len: usize) {
    unsafe {
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(buffer));
        gl.buffer_data_u8_slice(
            glow::SHADER_STORAGE_BUFFER,
            &vec![0u8; len],
            glow::DYNAMIC_COPY,
        );
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, None);
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, binding, Some(buffer));
    }
}

/// Nearest filtering, both ways, for the texture bound to `TEXTURE_2D`.
///
/// # Safety
/// A context is current.
pub unsafe fn nearest_filtering(gl: &glow::Context) {
    unsafe {
        for p in [glow::TEXTURE_MIN_FILTER, glow::TEXTURE_MAG_FILTER] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, p, glow::NEAREST as i32);
        }
    }
}

/// `source` (a `#version 430` shader), with `#define FIXED` after its
/// version line where `fixed`: the sanitizer apps' bug-free variant
/// (`--fixed`).
pub fn with_fixed(source: &str, fixed: bool) -> String {
    if fixed {
        source.replacen("#version 430\n", "#version 430\n#define FIXED\n", 1)
    } else {
        source.to_string()
    }
}

/// The frame loop of the single-target apps: each of `frames` frames binds
/// `out`, clears it to transparent black, runs `draw(frame)`, then takes the
/// checksum of `out` and swaps.
///
/// # Safety
/// A context is current and `out` belongs to it.
pub unsafe fn render_frames(
    gl: &glow::Context,
    out: &Target,
    frames: u32,
    swap: &mut dyn FnMut() -> anyhow::Result<()>,
    mut draw: impl FnMut(u32),
) -> anyhow::Result<Vec<u64>> {
    unsafe {
        let mut sums = Vec::new();
        for frame in 0..frames {
            out.bind(gl);
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            draw(frame);
            sums.push(out.checksum(gl)?);
            swap()?;
        }
        Ok(sums)
    }
}

/// Prints `frame N checksum HEX` per frame: what every app prints, and what
/// the tests compare with and without the agent.
pub fn print_checksums(sums: &[u64]) {
    for (frame, sum) in sums.iter().enumerate() {
        println!("frame {frame} checksum {sum:016x}");
    }
}

/// `FRAMES` (default 3) and `SIZE` (default 64), the first two arguments of
/// most apps.
pub fn frames_and_size() -> anyhow::Result<(u32, i32)> {
    Ok((arg(0, "FRAMES", 3)?, arg(1, "SIZE", 64)?))
}

/// The whole of a single-target app: a `kind` context with a `size` x `size`
/// pbuffer, then [`render_scene`], then the checksums printed.
pub fn run_app<S>(
    kind: Kind,
    size: i32,
    frames: u32,
    setup: impl FnOnce(&glow::Context, &mut Scene) -> anyhow::Result<S>,
    draw: impl FnMut(&glow::Context, &S, u32),
) -> anyhow::Result<()> {
    let sums = with_context(kind, size as u32, |gl, swap| unsafe {
        render_scene(gl, swap, size, frames, setup, draw)
    })?;
    print_checksums(&sums);
    Ok(())
}

/// Makes a `size` x `size` RGBA8 target, runs `setup`, then
/// [`render_frames`] with `draw(gl, what setup returned, frame)`, then
/// deletes the scene and the target. The frames' checksums.
///
/// # Safety
/// A context is current; `setup` and `draw` use only it.
pub unsafe fn render_scene<S>(
    gl: &glow::Context,
    swap: &mut dyn FnMut() -> anyhow::Result<()>,
    size: i32,
    frames: u32,
    setup: impl FnOnce(&glow::Context, &mut Scene) -> anyhow::Result<S>,
    mut draw: impl FnMut(&glow::Context, &S, u32),
) -> anyhow::Result<Vec<u64>> {
    unsafe {
        let out = Target::rgba8(gl, size, size)?;
        let mut scene = Scene::default();
        let state = setup(gl, &mut scene)?;
        let sums = render_frames(gl, &out, frames, swap, |frame| draw(gl, &state, frame))?;
        scene.delete(gl);
        out.delete(gl);
        Ok(sums)
    }
}

/// The GL objects an app makes for its frames, deleted after the last one
/// (programs, then buffers, then vertex arrays).
#[derive(Default)]
pub struct Scene {
    programs: Vec<glow::Program>,
    buffers: Vec<glow::Buffer>,
    vertex_arrays: Vec<glow::VertexArray>,
}

impl Scene {
    /// Keeps `program` for deletion; returns it.
    pub fn program(&mut self, program: glow::Program) -> glow::Program {
        self.programs.push(program);
        program
    }

    /// Keeps `buffer` for deletion; returns it.
    pub fn buffer(&mut self, buffer: glow::Buffer) -> glow::Buffer {
        self.buffers.push(buffer);
        buffer
    }

    /// A kept [`vf_program`], made current with the float uniform `name` set
    /// to `value`, for [`Framed::use_at`] every frame.
    ///
    /// # Safety
    /// A context is current.
    pub unsafe fn framed(
        &mut self,
        gl: &glow::Context,
        (vertex, fragment): (&str, &str),
        (name, value): (&str, f32),
    ) -> anyhow::Result<Framed> {
        unsafe {
            let program = self.program(vf_program(gl, vertex, fragment)?);
            gl.use_program(Some(program));
            gl.uniform_1_f32(gl.get_uniform_location(program, name).as_ref(), value);
            Ok(Framed::new(gl, program))
        }
    }

    /// A new vertex array object, bound and kept.
    ///
    /// # Safety
    /// A context is current.
    pub unsafe fn vertex_array(&mut self, gl: &glow::Context) -> anyhow::Result<glow::VertexArray> {
        unsafe {
            let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
            gl.bind_vertex_array(Some(vao));
            self.vertex_arrays.push(vao);
            Ok(vao)
        }
    }

    /// # Safety
    /// A context is current, the one the objects were made in.
    pub unsafe fn delete(self, gl: &glow::Context) {
        unsafe {
            for p in self.programs {
                gl.delete_program(p);
            }
            for b in self.buffers {
                gl.delete_buffer(b);
            }
            for vao in self.vertex_arrays {
                gl.delete_vertex_array(vao);
            }
        }
    }
}

/// A program with an `int frame` uniform that every use sets.
pub struct Framed {
    pub program: glow::Program,
    frame: Option<glow::UniformLocation>,
}

impl Framed {
    /// # Safety
    /// A context is current and `program` belongs to it.
    pub unsafe fn new(gl: &glow::Context, program: glow::Program) -> Framed {
        let frame = unsafe { gl.get_uniform_location(program, "frame") };
        Framed { program, frame }
    }

    /// Makes the program current with `frame` in its uniform.
    ///
    /// # Safety
    /// A context is current, the program's.
    pub unsafe fn use_at(&self, gl: &glow::Context, frame: u32) {
        unsafe {
            gl.use_program(Some(self.program));
            gl.uniform_1_i32(self.frame.as_ref(), frame as i32);
        }
    }
}

/// The RGBA8 pixels of the bound read framebuffer's `width` x `height`
/// corner, bottom row first; fails on a GL error.
///
/// # Safety
/// A context is current.
pub unsafe fn read_rgba8(gl: &glow::Context, width: i32, height: i32) -> anyhow::Result<Vec<u8>> {
    unsafe {
        let mut pixels = vec![0u8; (width * height * 4) as usize];
        gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
        gl.read_pixels(
            0,
            0,
            width,
            height,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut pixels)),
        );
        check(gl, "glReadPixels")?;
        Ok(pixels)
    }
}

/// Level 0 of a 2D texture of `texels` texels of 4 bytes in `format`/`ty`
/// (as for `glGetTexImage`); leaves no texture bound.
///
/// # Safety
/// A context is current and `texture` belongs to it.
pub unsafe fn texture_image(
    gl: &glow::Context,
    texture: glow::Texture,
    texels: usize,
    format: u32,
    ty: u32,
) -> Vec<u8> {
    unsafe {
        let mut bytes = vec![0u8; texels * 4];
        gl.bind_texture(glow::TEXTURE_2D, Some(texture));
        gl.get_tex_image(
            glow::TEXTURE_2D,
            0,
            format,
            ty,
            glow::PixelPackData::Slice(Some(&mut bytes)),
        );
        gl.bind_texture(glow::TEXTURE_2D, None);
        bytes
    }
}

/// A framebuffer object with one color attachment.
pub struct Target {
    pub fbo: glow::Framebuffer,
    pub texture: glow::Texture,
    pub width: i32,
    pub height: i32,
}

impl Target {
    /// A texture-backed framebuffer (`internal`, `format`, `ty` as for
    /// `glTexImage2D`), NEAREST filtering.
    ///
    /// # Safety
    /// A context is current.
    pub unsafe fn new(
        gl: &glow::Context,
        width: i32,
        height: i32,
        internal: u32,
        format: u32,
        ty: u32,
    ) -> anyhow::Result<Target> {
        unsafe {
            let texture = gl.create_texture().map_err(|e| anyhow!(e))?;
            gl.bind_texture(glow::TEXTURE_2D, Some(texture));
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                internal as i32,
                width,
                height,
                0,
                format,
                ty,
                glow::PixelUnpackData::Slice(None),
            );
            nearest_filtering(gl);
            for p in [glow::TEXTURE_WRAP_S, glow::TEXTURE_WRAP_T] {
                gl.tex_parameter_i32(glow::TEXTURE_2D, p, glow::CLAMP_TO_EDGE as i32);
            }
            gl.bind_texture(glow::TEXTURE_2D, None);
            let fbo = gl.create_framebuffer().map_err(|e| anyhow!(e))?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(texture),
                0,
            );
            if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
                bail!("framebuffer incomplete");
            }
            Ok(Target {
                fbo,
                texture,
                width,
                height,
            })
        }
    }

    /// An RGBA8 target.
    ///
    /// # Safety
    /// A context is current.
    pub unsafe fn rgba8(gl: &glow::Context, width: i32, height: i32) -> anyhow::Result<Target> {
        unsafe {
            Target::new(
                gl,
                width,
                height,
                glow::RGBA8,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
            )
        }
    }

    /// Binds the framebuffer and sets the viewport to all of it.
    ///
    /// # Safety
    /// A context is current.
    pub unsafe fn bind(&self, gl: &glow::Context) {
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo));
            gl.viewport(0, 0, self.width, self.height);
        }
    }

    /// The RGBA8 pixels (bottom row first) and their checksum.
    ///
    /// # Safety
    /// A context is current.
    pub unsafe fn checksum(&self, gl: &glow::Context) -> anyhow::Result<u64> {
        unsafe {
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(self.fbo));
            Ok(fnv1a(&read_rgba8(gl, self.width, self.height)?))
        }
    }

    /// # Safety
    /// A context is current.
    pub unsafe fn delete(self, gl: &glow::Context) {
        unsafe {
            gl.delete_framebuffer(self.fbo);
            gl.delete_texture(self.texture);
        }
    }
}

/// Fails on a pending GL error.
///
/// # Safety
/// A context is current.
pub unsafe fn check(gl: &glow::Context, what: &str) -> anyhow::Result<()> {
    let err = unsafe { gl.get_error() };
    if err != glow::NO_ERROR {
        bail!("GL error {err:#06x} after {what}");
    }
    Ok(())
}

/// A buffer's first `len` bytes, by mapping it (works on GL and GLES).
///
/// # Safety
/// A context is current.
pub unsafe fn read_buffer(
    gl: &glow::Context,
    buffer: glow::Buffer,
    len: usize,
) -> anyhow::Result<Vec<u8>> {
    unsafe {
        gl.memory_barrier(glow::BUFFER_UPDATE_BARRIER_BIT);
        gl.bind_buffer(glow::COPY_READ_BUFFER, Some(buffer));
        let ptr = gl.map_buffer_range(glow::COPY_READ_BUFFER, 0, len as i32, glow::MAP_READ_BIT);
        if ptr.is_null() {
            bail!("glMapBufferRange failed");
        }
        let bytes = std::slice::from_raw_parts(ptr, len).to_vec();
        gl.unmap_buffer(glow::COPY_READ_BUFFER);
        gl.bind_buffer(glow::COPY_READ_BUFFER, None);
        Ok(bytes)
    }
}

/// Little-endian bytes of `u32`s / `f32`s.
pub fn bytes_of_u32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

pub fn bytes_of_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The compute apps of the sanitizer's tests (`APP [FRAMES]`, 2 frames by
/// default): `kernel` (a uniform `uint frame`) reads a storage buffer
/// holding `src` at binding 0 and writes one of `dst_len` zeroed bytes at
/// binding 1; each frame dispatches `groups` work groups and prints
/// `frame N dst HEX` (FNV-1a of the output buffer's bytes).
pub fn run_storage_kernel(
    kernel: &str,
    src: &[f32],
    dst_len: usize,
    groups: u32,
) -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 2)?;
    let lines = with_context(Kind::Core(4, 5), 16, |gl, swap| unsafe {
        let src_buf = buffer(gl, glow::SHADER_STORAGE_BUFFER, &bytes_of_f32(src))?;
        let dst = gl.create_buffer().map_err(|e| anyhow!(e))?;
        zero_storage(gl, dst, 1, dst_len);
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 0, Some(src_buf));
        let kernel = program(gl, &[(glow::COMPUTE_SHADER, kernel)], |_| {})?;
        let frame_at = gl.get_uniform_location(kernel, "frame");
        let mut lines = Vec::new();
        for frame in 0..frames {
            gl.use_program(Some(kernel));
            gl.uniform_1_u32(frame_at.as_ref(), frame);
            gl.dispatch_compute(groups, 1, 1);
            gl.memory_barrier(glow::BUFFER_UPDATE_BARRIER_BIT);
            gl.use_program(None);
            check(gl, "the frame's commands")?;
            let sum = fnv1a(&read_buffer(gl, dst, dst_len)?);
            lines.push(format!("frame {frame} dst {sum:016x}"));
            swap()?;
        }
        gl.delete_program(kernel);
        gl.delete_buffer(src_buf);
        gl.delete_buffer(dst);
        Ok(lines)
    })?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
