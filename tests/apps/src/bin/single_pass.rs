//! `single_pass [FRAMES] [SIZE] [THREADS]`: renders FRAMES (default 3)
//! frames of a full-screen GLSL 330 core fragment shader
//! (`shaders/single_pass.{vert,frag}`) into a SIZE x SIZE (default 64) RGBA8
//! framebuffer object, reads every frame back, calls `eglSwapBuffers` at the
//! end of every frame, and finally prints one line per frame to stdout:
//!
//! ```text
//! frame N checksum HEX
//! ```
//!
//! (64-bit FNV-1a of the RGBA8 pixels, bottom row first, 16 hex digits).
//! With THREADS > 1 every thread creates its own context, pbuffer and
//! program and renders the same frames; lines are then
//! `thread T frame N checksum HEX`, thread by thread.
//!
//! # Frame boundaries
//!
//! The agent counts frames at `eglSwapBuffers`/`glXSwapBuffers`, so the app
//! needs a surface to swap. On Mesa 22.3 (llvmpipe) the EGL *device* platform
//! (`EGL_EXT_platform_device`, the display `shaderdbg-gl-headless` uses)
//! offers configs with `EGL_PBUFFER_BIT`, and `eglCreatePbufferSurface`,
//! `eglMakeCurrent(ctx, pbuffer)` and `eglSwapBuffers` all succeed there, so
//! neither X nor Mesa's surfaceless platform (`EGL_PLATFORM_SURFACELESS_MESA`)
//! is needed. Swapping a pbuffer does nothing by the EGL specification
//! (there is no front buffer), which is why the app renders into its own FBO
//! and reads the pixels back before the swap.
//!
//! The app loads EGL and GL the way real programs do: glutin `dlopen`s
//! `libEGL.so.1` and looks EGL entry points up with `dlsym` on that handle;
//! GL entry points come from `eglGetProcAddress` (glow loads every function
//! through it). A preloaded agent sees all of it.

use std::num::NonZeroU32;

use anyhow::{anyhow, bail, Context as _};
use glow::HasContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::prelude::*;
use glutin::surface::{PbufferSurface, SurfaceAttributesBuilder};

const VERTEX_SHADER: &str = include_str!("../../shaders/single_pass.vert");
const FRAGMENT_SHADER: &str = include_str!("../../shaders/single_pass.frag");

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize, name: &str, default: T) -> anyhow::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    match args.get(i) {
        Some(a) => a.parse().with_context(|| format!("{name}: {a:?}")),
        None => Ok(default),
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames: u32 = arg(&args, 0, "FRAMES", 3)?;
    let size: u32 = arg(&args, 1, "SIZE", 64)?;
    let threads: u32 = arg(&args, 2, "THREADS", 1)?;
    if size == 0 || threads == 0 {
        bail!("SIZE and THREADS must be positive");
    }

    // Prefer Mesa's software device (llvmpipe), like shaderdbg-gl-headless.
    let mut devices: Vec<Device> = Device::query_devices()
        .context("eglQueryDevicesEXT")?
        .collect();
    devices.sort_by_key(|d| !d.extensions().contains("EGL_MESA_device_software"));
    let device = devices
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("no EGL device"))?;
    // SAFETY: no raw display handle.
    let display = unsafe { Display::with_device(&device, None) }.context("EGL device display")?;

    if threads == 1 {
        for (frame, sum) in run(&display, frames, size)?.iter().enumerate() {
            println!("frame {frame} checksum {sum:016x}");
        }
        return Ok(());
    }
    let results: Vec<anyhow::Result<Vec<u64>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| run(&display, frames, size)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("thread panicked"))))
            .collect()
    });
    for (t, sums) in results.into_iter().enumerate() {
        for (frame, sum) in sums?.iter().enumerate() {
            println!("thread {t} frame {frame} checksum {sum:016x}");
        }
    }
    Ok(())
}

/// Creates a context and a pbuffer on the calling thread and renders.
fn run(display: &Display, frames: u32, size: u32) -> anyhow::Result<Vec<u64>> {
    let size_nz = NonZeroU32::new(size).ok_or_else(|| anyhow!("SIZE must be positive"))?;
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::PBUFFER)
        .with_api(Api::OPENGL)
        .build();
    // SAFETY: no native window involved.
    let config = unsafe { display.find_configs(template) }
        .context("eglChooseConfig")?
        .next()
        .ok_or_else(|| anyhow!("no EGL config with EGL_PBUFFER_BIT and OpenGL"))?;
    let surface_attrs = SurfaceAttributesBuilder::<PbufferSurface>::new().build(size_nz, size_nz);
    // SAFETY: the config belongs to this display.
    let surface = unsafe { display.create_pbuffer_surface(&config, &surface_attrs) }
        .context("eglCreatePbufferSurface")?;
    let context_attrs = ContextAttributesBuilder::new()
        .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
        .with_profile(GlProfile::Core)
        .build(None);
    // SAFETY: the config belongs to this display.
    let context = unsafe { display.create_context(&config, &context_attrs) }
        .context("eglCreateContext")?
        .make_current(&surface)
        .context("eglMakeCurrent")?;
    // SAFETY: the context is current; eglGetProcAddress pointers are
    // context-independent.
    let gl =
        unsafe { glow::Context::from_loader_function_cstr(|name| display.get_proc_address(name)) };
    // SAFETY: a 3.3 core context is current on this thread.
    let sums = unsafe { render(&gl, frames, size, || surface.swap_buffers(&context)) }?;
    context
        .make_not_current()
        .context("releasing the context")?;
    Ok(sums)
}

/// # Safety
/// A GL 3.3 core context is current.
unsafe fn render(
    gl: &glow::Context,
    frames: u32,
    size: u32,
    mut swap: impl FnMut() -> glutin::error::Result<()>,
) -> anyhow::Result<Vec<u64>> {
    unsafe {
        let s = size as i32;
        let fbo = gl.create_framebuffer().map_err(|e| anyhow!(e))?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        let color = gl.create_renderbuffer().map_err(|e| anyhow!(e))?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(color));
        gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, s, s);
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::RENDERBUFFER,
            Some(color),
        );
        if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
            bail!("framebuffer incomplete");
        }
        gl.viewport(0, 0, s, s);
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(vao));

        let program = gl.create_program().map_err(|e| anyhow!(e))?;
        let mut shaders = Vec::new();
        for (kind, source) in [
            (glow::VERTEX_SHADER, VERTEX_SHADER),
            (glow::FRAGMENT_SHADER, FRAGMENT_SHADER),
        ] {
            let shader = gl.create_shader(kind).map_err(|e| anyhow!(e))?;
            gl.shader_source(shader, source);
            gl.compile_shader(shader);
            if !gl.get_shader_compile_status(shader) {
                bail!("compile: {}", gl.get_shader_info_log(shader));
            }
            gl.attach_shader(program, shader);
            shaders.push(shader);
        }
        gl.link_program(program);
        if !gl.get_program_link_status(program) {
            bail!("link: {}", gl.get_program_info_log(program));
        }
        for shader in shaders {
            gl.detach_shader(program, shader);
            gl.delete_shader(shader);
        }
        let frame_loc = gl.get_uniform_location(program, "frame");

        let mut pixels = vec![0u8; (size * size * 4) as usize];
        let mut sums = Vec::new();
        for frame in 0..frames {
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.use_program(Some(program));
            gl.uniform_1_i32(frame_loc.as_ref(), frame as i32);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.use_program(None);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.read_pixels(
                0,
                0,
                s,
                s,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut pixels)),
            );
            let err = gl.get_error();
            if err != glow::NO_ERROR {
                bail!("GL error {err:#06x} in frame {frame}");
            }
            sums.push(fnv1a(&pixels));
            swap().context("eglSwapBuffers")?;
        }
        gl.delete_program(program);
        gl.delete_vertex_array(vao);
        gl.delete_renderbuffer(color);
        gl.delete_framebuffer(fbo);
        Ok(sums)
    }
}
