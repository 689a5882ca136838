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

use anyhow::{anyhow, bail};
use glutin::api::egl::display::Display;
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    arg, device_display, print_checksums, render_scene, vf_program, with_context_on, Framed, Kind,
    Scene,
};

const VERTEX_SHADER: &str = include_str!("../../shaders/single_pass.vert");
const FRAGMENT_SHADER: &str = include_str!("../../shaders/single_pass.frag");

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 3)?;
    let size: u32 = arg(1, "SIZE", 64)?;
    let threads: u32 = arg(2, "THREADS", 1)?;
    if size == 0 || threads == 0 {
        bail!("SIZE and THREADS must be positive");
    }
    let display = device_display()?;

    if threads == 1 {
        print_checksums(&run(&display, frames, size)?);
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

/// Creates a 3.3 core context and a pbuffer on the calling thread and renders.
fn run(display: &Display, frames: u32, size: u32) -> anyhow::Result<Vec<u64>> {
    with_context_on(display, Kind::Core(3, 3), size, size, |gl, swap| unsafe {
        let setup = |gl: &glow::Context, scene: &mut Scene| {
            scene.vertex_array(gl)?;
            let program = scene.program(vf_program(gl, VERTEX_SHADER, FRAGMENT_SHADER)?);
            Ok(Framed::new(gl, program))
        };
        render_scene(
            gl,
            swap,
            size as i32,
            frames,
            setup,
            |gl, program, frame| {
                program.use_at(gl, frame);
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
                gl.use_program(None);
            },
        )
    })
}
