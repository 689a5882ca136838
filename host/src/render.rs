//! EGL context, framebuffer, program and the frame loop.
//!
//! GL is loaded the way real programs load it, so that a preloaded agent
//! sees every call: glutin `dlopen`s `libEGL.so.1`, and every GL entry point
//! (glow's and our `glShaderSource`) comes from `eglGetProcAddress`.
//! Headless, the context renders on an EGL *device* display with a pbuffer
//! surface of the frame's size; with `--window`, on an X11 EGL display with a
//! window surface. Either way every frame is drawn into our own RGBA8
//! framebuffer object and ends with `eglSwapBuffers` (the agent counts frames
//! there); a window gets the frame blitted to its back buffer first.

use std::ffi::{c_char, c_void};
use std::num::NonZeroU32;

use anyhow::{anyhow, bail, Context as _};
use glow::HasContext;
use glutin::api::egl::config::Config;
use glutin::api::egl::context::PossiblyCurrentContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::api::egl::surface::Surface;
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::prelude::*;
use glutin::surface::{PbufferSurface, SurfaceAttributesBuilder, SurfaceTypeTrait};

use crate::image::Image;
use crate::source::{context_kind, map_log, ContextKind, FragmentSource, GlslVersion};
use crate::window::X11Window;

/// Seconds between frames: frame `k` runs at `iTime = T0 + k * FRAME_TIME`.
pub const FRAME_TIME: f32 = 1.0 / 60.0;

/// What to render.
pub struct Job<'a> {
    /// The fragment shader.
    pub source: &'a FragmentSource,
    /// The shader file's path as the user wrote it (for messages).
    pub path: &'a str,
    /// Framebuffer size.
    pub width: u32,
    pub height: u32,
    /// Number of frames; `None`: one headless, until closed in a window.
    pub frames: Option<u32>,
    /// `iTime` of frame 0.
    pub time0: f32,
    /// `iMouse.xy` (and `.zw`), pixels from the bottom left.
    pub mouse: Option<[f32; 2]>,
    /// `iChannel0..3`.
    pub channels: [Option<Image>; 4],
    /// Whether the caller wants the last frame's pixels.
    pub read_back: bool,
    /// A WGSL shader's: fill the `Host` uniform block (`crate::wgsl`) at
    /// its uniform-buffer binding every frame.
    pub host_block: bool,
}

/// A compile or link failure, with the driver's log already mapped to the
/// user's file.
#[derive(Debug)]
pub struct ShaderError(pub String);

impl std::fmt::Display for ShaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShaderError {}

/// Renders `job` headless; returns the last frame's RGBA8 pixels (bottom row
/// first) if `job.read_back`.
pub fn run_headless(job: &Job<'_>) -> anyhow::Result<Option<Vec<u8>>> {
    let kind = context_kind(&job.source.version);
    let mut devices: Vec<Device> = Device::query_devices()
        .context("cannot enumerate EGL devices (eglQueryDevicesEXT)")?
        .collect();
    // Mesa's software device (llvmpipe) first, like shaderdbg-gl-headless.
    devices.sort_by_key(|d| !d.extensions().contains("EGL_MESA_device_software"));
    let mut failures = Vec::new();
    for device in &devices {
        // SAFETY: no raw display handle.
        let display = match unsafe { Display::with_device(device, None) } {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{}: {e}", device_name(device)));
                continue;
            }
        };
        let setup = match pbuffer_context(&display, kind, job.width, job.height) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: {e:#}", device_name(device)));
                continue;
            }
        };
        let (context, surface) = setup;
        let gl = load_gl(&display);
        let shader_source = load_shader_source(&display)?;
        let frames = job.frames.unwrap_or(1);
        // SAFETY: the context is current on this thread.
        let result = unsafe {
            render(&gl, shader_source, kind, job, |gl, k| {
                // Present the frame as programs do: in the surface's back
                // buffer at the swap (what a debugger's screenshot shows).
                gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
                gl.blit_framebuffer(
                    0,
                    0,
                    job.width as i32,
                    job.height as i32,
                    0,
                    0,
                    job.width as i32,
                    job.height as i32,
                    glow::COLOR_BUFFER_BIT,
                    glow::NEAREST,
                );
                surface.swap_buffers(&context).context("eglSwapBuffers")?;
                Ok(k + 1 < frames)
            })
        };
        let _ = context.make_not_current();
        return result;
    }
    bail!(
        "cannot create an {} context on any EGL device: {}",
        kind.describe(),
        if failures.is_empty() {
            "no EGL devices".to_owned()
        } else {
            failures.join("; ")
        }
    )
}

/// Renders `job` in an X11 window until it is closed (or `job.frames` have
/// been shown).
pub fn run_window(job: &Job<'_>) -> anyhow::Result<Option<Vec<u8>>> {
    let kind = context_kind(&job.source.version);
    let window = X11Window::open(job.width, job.height, &window_title(job.path))?;
    // SAFETY: the X display stays open until `window` drops, after the
    // EGL display and surface (declared later, dropped first).
    let display = unsafe { Display::new(window.raw_display_handle()) }
        .context("cannot initialise EGL on the X11 display")?;
    let config = find_config(
        &display,
        kind,
        ConfigSurfaceTypes::WINDOW,
        Some(window.visual_id()),
    )?;
    let attrs = SurfaceAttributesBuilder::<glutin::surface::WindowSurface>::new().build(
        window.raw_window_handle(),
        nonzero(job.width)?,
        nonzero(job.height)?,
    );
    // SAFETY: the window belongs to the X display the EGL display uses.
    let surface = unsafe { display.create_window_surface(&config, &attrs) }
        .context("eglCreateWindowSurface")?;
    let context = current_context(&display, &config, kind, &surface, || {
        format!("cannot create an {} context", kind.describe())
    })?;
    let gl = load_gl(&display);
    let shader_source = load_shader_source(&display)?;
    let (w, h) = (job.width as i32, job.height as i32);
    let started = std::time::Instant::now();
    // SAFETY: the context is current on this thread.
    let result = unsafe {
        render(&gl, shader_source, kind, job, |gl, k| {
            let (win_w, win_h) = window.size();
            // Keep the aspect ratio, centred, black bars.
            let scale = (win_w as f32 / w as f32).min(win_h as f32 / h as f32);
            let (dw, dh) = ((w as f32 * scale) as i32, (h as f32 * scale) as i32);
            let (dx, dy) = ((win_w as i32 - dw) / 2, (win_h as i32 - dh) / 2);
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
            gl.viewport(0, 0, win_w as i32, win_h as i32);
            gl.clear_color(0.0, 0.0, 0.0, 1.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.blit_framebuffer(
                0,
                0,
                w,
                h,
                dx,
                dy,
                dx + dw,
                dy + dh,
                glow::COLOR_BUFFER_BIT,
                glow::LINEAR,
            );
            surface.swap_buffers(&context).context("eglSwapBuffers")?;
            // Pace to 60 frames per second.
            let due = started + std::time::Duration::from_secs_f32((k + 1) as f32 * FRAME_TIME);
            if let Some(wait) = due.checked_duration_since(std::time::Instant::now()) {
                std::thread::sleep(wait);
            }
            let open = window.pump_events();
            Ok(open && job.frames.is_none_or(|n| k + 1 < n))
        })
    };
    let _ = context.make_not_current();
    drop(surface);
    drop(display);
    drop(window);
    result
}

fn window_title(path: &str) -> String {
    let name = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_owned());
    format!("{name} - shaderdbg-host")
}

fn device_name(device: &Device) -> String {
    device
        .name()
        .or(device.vendor())
        .unwrap_or("unnamed EGL device")
        .to_owned()
}

fn nonzero(v: u32) -> anyhow::Result<NonZeroU32> {
    NonZeroU32::new(v).ok_or_else(|| anyhow!("size must be positive"))
}

fn find_config(
    display: &Display,
    kind: ContextKind,
    surfaces: ConfigSurfaceTypes,
    visual: Option<u32>,
) -> anyhow::Result<Config> {
    let api = if kind == ContextKind::Gles32 {
        Api::GLES3
    } else {
        Api::OPENGL
    };
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(surfaces)
        .with_alpha_size(0)
        .with_api(api)
        .build();
    // SAFETY: no native window in the template.
    let configs: Vec<Config> = unsafe { display.find_configs(template) }
        .context("eglChooseConfig")?
        .collect();
    // A window needs a config of its own visual.
    let preferred = visual.and_then(|v| configs.iter().position(|c| c.native_visual() == v));
    configs
        .into_iter()
        .nth(preferred.unwrap_or(0))
        .ok_or_else(|| anyhow!("no EGL config for {} with {surfaces:?}", kind.describe()))
}

fn pbuffer_context(
    display: &Display,
    kind: ContextKind,
    width: u32,
    height: u32,
) -> anyhow::Result<(PossiblyCurrentContext, Surface<PbufferSurface>)> {
    let config = find_config(display, kind, ConfigSurfaceTypes::PBUFFER, None)?;
    let attrs =
        SurfaceAttributesBuilder::<PbufferSurface>::new().build(nonzero(width)?, nonzero(height)?);
    // SAFETY: the config belongs to this display.
    let surface = unsafe { display.create_pbuffer_surface(&config, &attrs) }
        .context("eglCreatePbufferSurface")?;
    let context = current_context(display, &config, kind, &surface, || {
        format!("eglCreateContext ({})", kind.describe())
    })?;
    Ok((context, surface))
}

/// A context of `kind` for `config` (of `display`), made current on
/// `surface`; `what` says what could not be created.
fn current_context<T: SurfaceTypeTrait>(
    display: &Display,
    config: &Config,
    kind: ContextKind,
    surface: &Surface<T>,
    what: impl FnOnce() -> String,
) -> anyhow::Result<PossiblyCurrentContext> {
    // SAFETY: the config belongs to this display.
    unsafe { display.create_context(config, &kind.context_attributes()) }
        .with_context(what)?
        .make_current(surface)
        .context("eglMakeCurrent")
}

fn load_gl(display: &Display) -> glow::Context {
    // SAFETY: eglGetProcAddress entry points are context-independent; the
    // caller makes a context current before any call.
    unsafe { glow::Context::from_loader_function_cstr(|name| display.get_proc_address(name)) }
}

type ShaderSourceFn = unsafe extern "system" fn(u32, i32, *const *const c_char, *const i32);

/// `glShaderSource` itself: glow passes one string only.
fn load_shader_source(display: &Display) -> anyhow::Result<ShaderSourceFn> {
    let ptr = display.get_proc_address(c"glShaderSource");
    if ptr.is_null() {
        bail!("eglGetProcAddress(\"glShaderSource\") returned NULL");
    }
    // SAFETY: glShaderSource has this signature.
    Ok(unsafe { std::mem::transmute::<*const c_void, ShaderSourceFn>(ptr) })
}

/// The vertex shader for a fragment shader of `version`: one input,
/// `shaderdbg_position`, at location 0. ES needs the same `#version` in every
/// stage; desktop gets the fragment shader's version and profile too.
fn vertex_shader(version: &GlslVersion) -> String {
    let input = if version.has_out_variables() {
        "in"
    } else {
        "attribute"
    };
    format!(
        "{}\n{input} vec2 shaderdbg_position;\nvoid main() {{ gl_Position = vec4(shaderdbg_position, 0.0, 1.0); }}\n",
        version.directive()
    )
}

/// The big triangle covering clip space `[-1, 1]^2`.
const FULLSCREEN_TRIANGLE: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];

/// Uniform values of one frame.
struct FrameUniforms {
    resolution: [f32; 3],
    time: f32,
    frame: i32,
    mouse: [f32; 4],
    channel_resolution: [[f32; 3]; 4],
}

/// # Safety
/// A context of `kind` is current; `shader_source` belongs to it.
unsafe fn render(
    gl: &glow::Context,
    shader_source: ShaderSourceFn,
    kind: ContextKind,
    job: &Job<'_>,
    mut end_frame: impl FnMut(&glow::Context, u32) -> anyhow::Result<bool>,
) -> anyhow::Result<Option<Vec<u8>>> {
    unsafe {
        let (w, h) = (job.width as i32, job.height as i32);
        let max = gl.get_parameter_i32(glow::MAX_RENDERBUFFER_SIZE);
        if w > max || h > max {
            bail!("size {w}x{h} exceeds the driver's maximum framebuffer size {max}x{max}");
        }
        let fbo = gl.create_framebuffer().map_err(|e| anyhow!(e))?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        let color = gl.create_renderbuffer().map_err(|e| anyhow!(e))?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(color));
        gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, w, h);
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::RENDERBUFFER,
            Some(color),
        );
        let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
        if status != glow::FRAMEBUFFER_COMPLETE {
            bail!("framebuffer incomplete ({status:#06x})");
        }

        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(vao));
        let vbo = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
        let bytes: Vec<u8> = FULLSCREEN_TRIANGLE
            .iter()
            .flat_map(|f| f.to_ne_bytes())
            .collect();
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 0, 0);

        let program = build_program(gl, shader_source, job)?;
        let host_ubo = if job.host_block {
            let ubo = gl.create_buffer().map_err(|e| anyhow!(e))?;
            gl.bind_buffer(glow::UNIFORM_BUFFER, Some(ubo));
            gl.buffer_data_size(
                glow::UNIFORM_BUFFER,
                crate::wgsl::HOST_BLOCK_SIZE as i32,
                glow::DYNAMIC_DRAW,
            );
            gl.bind_buffer_base(
                glow::UNIFORM_BUFFER,
                crate::wgsl::HOST_BLOCK_BINDING,
                Some(ubo),
            );
            Some(ubo)
        } else {
            None
        };

        let mut textures = Vec::new();
        let mut channel_resolution = [[0.0f32; 3]; 4];
        for (unit, image) in job.channels.iter().enumerate() {
            let Some(image) = image else { continue };
            let tex = gl.create_texture().map_err(|e| anyhow!(e))?;
            gl.active_texture(glow::TEXTURE0 + unit as u32);
            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA8 as i32,
                image.width as i32,
                image.height as i32,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&image.rgba_bottom_up)),
            );
            for (p, v) in [
                (glow::TEXTURE_MIN_FILTER, glow::LINEAR),
                (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
                (glow::TEXTURE_WRAP_S, glow::REPEAT),
                (glow::TEXTURE_WRAP_T, glow::REPEAT),
            ] {
                gl.tex_parameter_i32(glow::TEXTURE_2D, p, v as i32);
            }
            channel_resolution[unit] = [image.width as f32, image.height as f32, 1.0];
            textures.push(tex);
        }
        gl.active_texture(glow::TEXTURE0);
        let err = gl.get_error();
        if err != glow::NO_ERROR {
            bail!("GL error {err:#06x} while setting up ({})", kind.describe());
        }

        let mouse = job.mouse.map(|[x, y]| [x, y, x, y]).unwrap_or([0.0; 4]);
        let mut pixels = job
            .read_back
            .then(|| vec![0u8; w as usize * h as usize * 4]);
        let mut k = 0u32;
        loop {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.viewport(0, 0, w, h);
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.use_program(Some(program));
            let time = job.time0 + k as f32 * FRAME_TIME;
            set_uniforms(
                gl,
                program,
                &FrameUniforms {
                    resolution: [w as f32, h as f32, 1.0],
                    time,
                    frame: k as i32,
                    mouse,
                    channel_resolution,
                },
            );
            if let Some(ubo) = host_ubo {
                let block =
                    crate::wgsl::host_block([w as f32, h as f32], time, FRAME_TIME, k, mouse);
                gl.bind_buffer(glow::UNIFORM_BUFFER, Some(ubo));
                gl.buffer_sub_data_u8_slice(glow::UNIFORM_BUFFER, 0, &block);
            }
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.use_program(None);
            let err = gl.get_error();
            if err != glow::NO_ERROR {
                bail!("GL error {err:#06x} while drawing frame {k}");
            }
            if let Some(pixels) = pixels.as_mut() {
                gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
                gl.read_buffer(glow::COLOR_ATTACHMENT0);
                gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
                gl.read_pixels(
                    0,
                    0,
                    w,
                    h,
                    glow::RGBA,
                    glow::UNSIGNED_BYTE,
                    glow::PixelPackData::Slice(Some(pixels)),
                );
            }
            if !end_frame(gl, k)? {
                break;
            }
            k += 1;
        }
        for tex in textures {
            gl.delete_texture(tex);
        }
        if let Some(ubo) = host_ubo {
            gl.delete_buffer(ubo);
        }
        gl.delete_program(program);
        gl.delete_buffer(vbo);
        gl.delete_vertex_array(vao);
        gl.delete_renderbuffer(color);
        gl.delete_framebuffer(fbo);
        Ok(pixels)
    }
}

/// # Safety
/// The context is current.
unsafe fn build_program(
    gl: &glow::Context,
    shader_source: ShaderSourceFn,
    job: &Job<'_>,
) -> anyhow::Result<glow::Program> {
    unsafe {
        let source = job.source;
        let vs_text = vertex_shader(&source.version);
        let (vs, compiled) = compile(gl, shader_source, glow::VERTEX_SHADER, &[&vs_text])?;
        if !compiled {
            let log = gl.get_shader_info_log(vs);
            gl.delete_shader(vs);
            return Err(ShaderError(format!(
                "the host's vertex shader for `{}` failed to compile (is that GLSL version supported?):\n{}\n{}",
                source.version.directive(),
                log.trim_end(),
                vs_text.trim_end()
            ))
            .into());
        }
        let (fs, compiled) = compile(gl, shader_source, glow::FRAGMENT_SHADER, &source.strings())?;
        let log = gl.get_shader_info_log(fs);
        if crate::verbose() && !log.trim().is_empty() {
            eprintln!("shaderdbg-host: driver log (unmapped):\n{}", log.trim_end());
        }
        if !compiled {
            gl.delete_shader(vs);
            gl.delete_shader(fs);
            let mut message = format!("{}: fragment shader failed to compile", job.path);
            if job.host_block {
                message.push_str(" (the GLSL naga wrote for this WGSL shader)");
            }
            if source.wrapped {
                message.push_str(" (wrapped as a Shadertoy mainImage shader)");
            }
            message.push('\n');
            message.push_str(&map_log(&log, source, job.path));
            return Err(ShaderError(message.trim_end().to_owned()).into());
        }
        if !log.trim().is_empty() {
            eprint!("{}", map_log(&log, source, job.path));
        }
        let program = gl.create_program().map_err(|e| anyhow!(e))?;
        gl.attach_shader(program, vs);
        gl.attach_shader(program, fs);
        gl.bind_attrib_location(program, 0, "shaderdbg_position");
        gl.link_program(program);
        gl.detach_shader(program, vs);
        gl.detach_shader(program, fs);
        gl.delete_shader(vs);
        gl.delete_shader(fs);
        if !gl.get_program_link_status(program) {
            let log = gl.get_program_info_log(program);
            gl.delete_program(program);
            return Err(ShaderError(format!(
                "{}: program failed to link\n{}",
                job.path,
                map_log(&log, source, job.path).trim_end()
            ))
            .into());
        }
        Ok(program)
    }
}

/// A new shader of type `ty` with `strings` as its source, compiled, and
/// whether it compiled.
///
/// # Safety
/// The context is current; `shader_source` belongs to it.
unsafe fn compile(
    gl: &glow::Context,
    shader_source: ShaderSourceFn,
    ty: u32,
    strings: &[&str],
) -> anyhow::Result<(glow::Shader, bool)> {
    unsafe {
        let shader = gl.create_shader(ty).map_err(|e| anyhow!(e))?;
        set_sources(shader_source, shader, strings);
        gl.compile_shader(shader);
        Ok((shader, gl.get_shader_compile_status(shader)))
    }
}

/// # Safety
/// The context is current and `shader` is a shader object of it.
unsafe fn set_sources(shader_source: ShaderSourceFn, shader: glow::Shader, strings: &[&str]) {
    let ptrs: Vec<*const c_char> = strings.iter().map(|s| s.as_ptr().cast()).collect();
    let lens: Vec<i32> = strings.iter().map(|s| s.len() as i32).collect();
    // SAFETY: the arrays hold `strings.len()` entries, each string is valid
    // for its length; GL copies the text.
    unsafe {
        shader_source(
            shader.0.get(),
            strings.len() as i32,
            ptrs.as_ptr(),
            lens.as_ptr(),
        )
    };
}

/// Sets the Shadertoy uniforms (and the common `time`/`resolution`/`mouse`
/// spellings) that the program has, each according to its declared type;
/// a uniform of another type is left alone.
///
/// # Safety
/// The context is current and `program` is in use.
unsafe fn set_uniforms(gl: &glow::Context, program: glow::Program, u: &FrameUniforms) {
    unsafe {
        for index in 0..gl.get_active_uniforms(program) {
            let Some(active) = gl.get_active_uniform(program, index) else {
                continue;
            };
            let name = active.name.strip_suffix("[0]").unwrap_or(&active.name);
            let Some(loc) = gl.get_uniform_location(program, name) else {
                continue;
            };
            let loc = Some(&loc);
            let ty = active.utype;
            let floats: &[f32] = match name {
                "iResolution" | "resolution" | "u_resolution" => &u.resolution,
                "iTime" | "iGlobalTime" | "time" | "u_time" => &[u.time],
                "iTimeDelta" => &[FRAME_TIME],
                "iMouse" | "mouse" | "u_mouse" => &u.mouse,
                "iFrame" => {
                    match ty {
                        glow::INT => gl.uniform_1_i32(loc, u.frame),
                        glow::FLOAT => gl.uniform_1_f32(loc, u.frame as f32),
                        _ => {}
                    }
                    continue;
                }
                "iChannel0" | "iChannel1" | "iChannel2" | "iChannel3" => {
                    if is_sampler(ty) {
                        let unit = name.as_bytes()[8] - b'0';
                        gl.uniform_1_i32(loc, i32::from(unit));
                    }
                    continue;
                }
                "iChannelResolution" => {
                    if ty == glow::FLOAT_VEC3 {
                        let n = (active.size.clamp(0, 4)) as usize;
                        let flat: Vec<f32> = u.channel_resolution[..n]
                            .iter()
                            .flatten()
                            .copied()
                            .collect();
                        gl.uniform_3_f32_slice(loc, &flat);
                    }
                    continue;
                }
                _ => continue,
            };
            let get = |i: usize| floats.get(i).copied().unwrap_or(0.0);
            match ty {
                glow::FLOAT => gl.uniform_1_f32(loc, get(0)),
                glow::FLOAT_VEC2 => gl.uniform_2_f32(loc, get(0), get(1)),
                glow::FLOAT_VEC3 => gl.uniform_3_f32(loc, get(0), get(1), get(2)),
                glow::FLOAT_VEC4 => gl.uniform_4_f32(loc, get(0), get(1), get(2), get(3)),
                _ => {}
            }
        }
    }
}

fn is_sampler(ty: u32) -> bool {
    matches!(
        ty,
        glow::SAMPLER_2D | glow::INT_SAMPLER_2D | glow::UNSIGNED_INT_SAMPLER_2D
    )
}
