//! Screenshots: the framebuffer a stopped draw renders to (colour attachment
//! 0, or the default framebuffer's back buffer), or the back buffer at a
//! swap, read back as RGBA8, bottom row first. Every piece of state touched
//! (read framebuffer binding, that framebuffer's read buffer, pack alignment,
//! row length, skips, pixel pack buffer, renderbuffer binding, the active
//! unit's texture binding when a texture attachment's size is asked without
//! the DSA query) is put back.

use std::ffi::c_void;

use glow::HasContext;

use crate::resolve::RealFn;
use crate::state::{ContextApi, ContextKey};

/// An RGBA8 image, bottom row first.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Why a screenshot (or the size of a framebuffer) could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScreenshotError {
    #[error("the window system did not say how large the surface is")]
    SurfaceSize,
    #[error("framebuffer size {width}x{height}")]
    Size { width: i32, height: i32 },
    #[error("glReadPixels failed (GL error {0:#06x})")]
    ReadPixels(u32),
    #[error(
        "framebuffer {framebuffer}: the size of texture {texture} level {level} needs glGetTextureLevelParameteriv (GL 4.5) or glGetTexLevelParameteriv (GL, GLES 3.1)"
    )]
    TextureSize {
        framebuffer: u32,
        texture: u32,
        level: i32,
    },
    #[error("framebuffer {0} has no colour attachment 0")]
    NoColorAttachment(u32),
    #[error(
        "the draw has run (its hit test was the draw itself) and the framebuffer before it was not kept: the debugger said it would ask for none"
    )]
    NotKept,
}

/// Largest side read back (a corrupt size must not allocate gigabytes).
const MAX_SIDE: i32 = 16384;

/// The framebuffer bound for drawing now (what a stopped draw renders to).
///
/// # Safety
/// `ctx` is current on this thread.
pub unsafe fn draw_framebuffer(
    gl: &glow::Context,
    ctx: ContextKey,
) -> Result<Image, ScreenshotError> {
    // SAFETY: `read` and the glow query need `ctx` current, which this function's
    // caller guarantees.
    unsafe {
        let fb = gl.get_parameter_i32(glow::DRAW_FRAMEBUFFER_BINDING);
        read(gl, ctx, fb.max(0) as u32)
    }
}

/// The default framebuffer's back buffer (at a swap, before the real swap).
///
/// # Safety
/// `ctx` is current on this thread.
pub unsafe fn back_buffer(gl: &glow::Context, ctx: ContextKey) -> Result<Image, ScreenshotError> {
    // SAFETY: `read` needs `ctx` current, which this function's caller guarantees.
    unsafe { read(gl, ctx, 0) }
}

/// The size of the framebuffer bound for drawing: the surface's for the
/// default framebuffer, colour attachment 0's for a framebuffer object
/// (its default size when it has no attachment there).
///
/// # Safety
/// `ctx` is current on this thread.
pub unsafe fn draw_framebuffer_size(
    gl: &glow::Context,
    ctx: ContextKey,
) -> Result<(i32, i32), ScreenshotError> {
    // SAFETY: glow calls and `attachment_size` on `ctx`, which this function's caller
    // keeps current; the read framebuffer binding changed here is put back before
    // returning.
    unsafe {
        let fb = gl.get_parameter_i32(glow::DRAW_FRAMEBUFFER_BINDING).max(0) as u32;
        if fb == 0 {
            return surface_size(ctx).ok_or(ScreenshotError::SurfaceSize);
        }
        let saved_read_fb = gl.get_parameter_i32(glow::READ_FRAMEBUFFER_BINDING);
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, framebuffer(fb));
        let size = attachment_size(gl, fb).or_else(|e| {
            let w = gl.get_framebuffer_parameter_i32(
                glow::READ_FRAMEBUFFER,
                glow::FRAMEBUFFER_DEFAULT_WIDTH,
            );
            let h = gl.get_framebuffer_parameter_i32(
                glow::READ_FRAMEBUFFER,
                glow::FRAMEBUFFER_DEFAULT_HEIGHT,
            );
            if w > 0 && h > 0 {
                Ok((w, h))
            } else {
                Err(e)
            }
        });
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, framebuffer(saved_read_fb as u32));
        size
    }
}

/// Reads colour attachment 0 of framebuffer `fb` (0: the default
/// framebuffer's back buffer, or front when single-buffered).
///
/// # Safety
/// `ctx` is current on this thread (`gl` loaded for it).
unsafe fn read(gl: &glow::Context, ctx: ContextKey, fb: u32) -> Result<Image, ScreenshotError> {
    // SAFETY: glow calls on `ctx`, which this function's caller keeps current;
    // `read_pixels` writes `width * height` RGBA8 pixels with pack alignment 4, no row
    // length or skips and no pack buffer (all set just before), exactly the size of
    // `rgba`; every state changed is put back.
    unsafe {
        let es = gl.version().is_embedded;
        let saved_read_fb = gl.get_parameter_i32(glow::READ_FRAMEBUFFER_BINDING);
        let saved_pack_buffer = gl.get_parameter_i32(glow::PIXEL_PACK_BUFFER_BINDING);
        let saved_pack: Vec<(u32, i32)> = [
            glow::PACK_ALIGNMENT,
            glow::PACK_ROW_LENGTH,
            glow::PACK_SKIP_PIXELS,
            glow::PACK_SKIP_ROWS,
        ]
        .into_iter()
        .map(|p| (p, gl.get_parameter_i32(p)))
        .collect();
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, framebuffer(fb));
        // The read buffer is state of the framebuffer object itself.
        let saved_read_buffer = gl.get_parameter_i32(glow::READ_BUFFER);
        let result = (|| {
            let (width, height, source) = if fb == 0 {
                let (w, h) = surface_size(ctx).ok_or(ScreenshotError::SurfaceSize)?;
                let double = es || gl.get_parameter_bool(glow::DOUBLEBUFFER);
                (w, h, if double { glow::BACK } else { glow::FRONT })
            } else {
                let (w, h) = attachment_size(gl, fb)?;
                (w, h, glow::COLOR_ATTACHMENT0)
            };
            if width <= 0 || height <= 0 || width > MAX_SIDE || height > MAX_SIDE {
                return Err(ScreenshotError::Size { width, height });
            }
            gl.read_buffer(source);
            gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
            gl.pixel_store_i32(glow::PACK_ROW_LENGTH, 0);
            gl.pixel_store_i32(glow::PACK_SKIP_PIXELS, 0);
            gl.pixel_store_i32(glow::PACK_SKIP_ROWS, 0);
            let mut rgba = vec![0u8; width as usize * height as usize * 4];
            gl.read_pixels(
                0,
                0,
                width,
                height,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut rgba)),
            );
            let own = crate::errors::drain_own();
            if let Some(e) = own.first() {
                return Err(ScreenshotError::ReadPixels(*e));
            }
            Ok(Image {
                width: width as u32,
                height: height as u32,
                rgba,
            })
        })();
        gl.read_buffer(saved_read_buffer as u32);
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, framebuffer(saved_read_fb as u32));
        for (p, v) in saved_pack {
            gl.pixel_store_i32(p, v);
        }
        gl.bind_buffer(
            glow::PIXEL_PACK_BUFFER,
            std::num::NonZeroU32::new(saved_pack_buffer as u32).map(glow::NativeBuffer),
        );
        let own = crate::errors::drain_own();
        if !own.is_empty() {
            tracing::debug!(errors = ?own, "GL errors from a screenshot (hidden from the application)");
        }
        result
    }
}

/// What a screenshot of the draw framebuffer needs from before a draw that
/// the hit test ran itself (one pass, [`crate::stops`]): a copy of what
/// [`draw_framebuffer`] would read then, made on the GPU.
pub enum BeforeDraw {
    /// A copy of colour attachment 0 (or of the back buffer), in a private
    /// framebuffer of this context, its rows upside down where `flipped`:
    /// [`before_draw`] reads it.
    Saved {
        framebuffer: glow::Framebuffer,
        flipped: bool,
    },
    /// Nothing to copy: reading this framebuffer fails before the draw as
    /// after it (no colour attachment 0, a multisampled framebuffer
    /// object, an integer format, no surface size), so a screenshot reads
    /// it live and fails the same way.
    Unreadable,
    /// Not copied: the debugger said it would not ask
    /// (`ToAgent::SetScreenshotsAtStops`).
    NotKept,
}

/// Why the draw framebuffer cannot be copied exactly (the hit test then
/// runs in two passes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    #[error("colour format {0} has no exact copy")]
    Format(String),
    #[error("{0}")]
    Create(String),
}

/// What a private copy is stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Storage {
    /// A renderbuffer of this sized format.
    Renderbuffer(u32),
    /// An 8-bit RGBA texture made with BGRA data: Mesa stores it as BGRA,
    /// the window system buffers' order, so that llvmpipe copies into it
    /// with a `memcpy` (a blit between different formats, or flipping
    /// rows, is a textured draw there: on a full-screen draw of a cheap
    /// shader it cost as much as the draw).
    BgraTexture,
}

/// The private copy of one context: (framebuffer, the renderbuffer or
/// texture at its colour attachment 0, its storage, width, height), kept
/// for the next one-pass draw.
type PrivateCopy = (glow::Framebuffer, u32, Storage, i32, i32);

/// The private copies, by context (a context can move between threads; its
/// entry goes when it is destroyed: [`forget_context`]).
static COPIES: std::sync::Mutex<Option<std::collections::HashMap<ContextKey, PrivateCopy>>> =
    std::sync::Mutex::new(None);

fn with_copies<T>(
    f: impl FnOnce(&mut std::collections::HashMap<ContextKey, PrivateCopy>) -> T,
) -> T {
    let mut c = COPIES.lock().unwrap_or_else(|e| e.into_inner());
    f(c.get_or_insert_with(Default::default))
}

/// `ctx` was destroyed, and its objects with it: a new context with the
/// same handle must not use their names.
pub fn forget_context(ctx: ContextKey) {
    with_copies(|c| c.remove(&ctx));
}

/// The sized format that holds the colour buffer bound for reading
/// (`attachment` of the read framebuffer) bit for bit, from its component
/// type, sizes and encoding: `Ok(None)` when `glReadPixels` as RGBA8 cannot
/// read it (integer formats).
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn copy_format(gl: &glow::Context, attachment: u32) -> Result<Option<u32>, SaveError> {
    // SAFETY: attachment queries on the read framebuffer of the context this
    // function's caller keeps current.
    unsafe {
        let param =
            |p| gl.get_framebuffer_attachment_parameter_i32(glow::READ_FRAMEBUFFER, attachment, p);
        let ty = param(glow::FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE) as u32;
        let srgb = param(glow::FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING) as u32 == glow::SRGB;
        let sizes = [
            param(glow::FRAMEBUFFER_ATTACHMENT_RED_SIZE),
            param(glow::FRAMEBUFFER_ATTACHMENT_GREEN_SIZE),
            param(glow::FRAMEBUFFER_ATTACHMENT_BLUE_SIZE),
            param(glow::FRAMEBUFFER_ATTACHMENT_ALPHA_SIZE),
        ];
        let format = match (ty, srgb, sizes) {
            (glow::INT | glow::UNSIGNED_INT, _, _) => return Ok(None),
            (glow::UNSIGNED_NORMALIZED, true, [8, 8, 8, 0 | 8]) => glow::SRGB8_ALPHA8,
            (glow::UNSIGNED_NORMALIZED, false, s) => match s {
                [8, 8, 8, 8] => glow::RGBA8,
                [8, 8, 8, 0] => glow::RGB8,
                [8, 8, 0, 0] => glow::RG8,
                [8, 0, 0, 0] => glow::R8,
                [5, 6, 5, 0] => glow::RGB565,
                [4, 4, 4, 4] => glow::RGBA4,
                [5, 5, 5, 1] => glow::RGB5_A1,
                [10, 10, 10, 2] => glow::RGB10_A2,
                [16, 16, 16, 16] => glow::RGBA16,
                [16, 16, 0, 0] => glow::RG16,
                [16, 0, 0, 0] => glow::R16,
                _ => return Err(SaveError::Format(format!("unorm {s:?}"))),
            },
            (glow::FLOAT, false, s) => match s {
                [16, 16, 16, 0 | 16] => glow::RGBA16F,
                [16, 16, 0, 0] => glow::RG16F,
                [16, 0, 0, 0] => glow::R16F,
                [32, 32, 32, 0 | 32] => glow::RGBA32F,
                [32, 32, 0, 0] => glow::RG32F,
                [32, 0, 0, 0] => glow::R32F,
                [11, 11, 10, 0] => glow::R11F_G11F_B10F,
                _ => return Err(SaveError::Format(format!("float {s:?}"))),
            },
            (ty, srgb, s) => {
                return Err(SaveError::Format(format!(
                    "type {ty:#06x}{} {s:?}",
                    if srgb { " sRGB" } else { "" }
                )))
            }
        };
        Ok(Some(format))
    }
}

/// Copies what [`draw_framebuffer`] would read now into a private
/// framebuffer of `ctx` (one per context, reused), before a draw the hit
/// test runs itself. The copy is a `glBlitFramebuffer` into a renderbuffer
/// of the same sized format (scissor test, rasterizer discard and sRGB
/// conversion off while it runs), or for the default framebuffer's 8-bit
/// RGBA into BGRA storage upside down ([`Storage::BgraTexture`]), so
/// reading it later gives the pixels a read before the draw would have
/// given. Every piece of state touched is put back.
///
/// # Safety
/// `ctx` is current on this thread.
pub unsafe fn save_draw_framebuffer(
    gl: &glow::Context,
    ctx: ContextKey,
) -> Result<BeforeDraw, SaveError> {
    // SAFETY: glow calls on `ctx`, which this function's caller keeps current; the
    // framebuffer and renderbuffer written are this agent's private ones; every
    // binding, read buffer and enable changed is captured first and put back.
    unsafe {
        let es = gl.version().is_embedded;
        if gl.version().major < 3 {
            return Err(SaveError::Create(
                "no glBlitFramebuffer before GL 3.0 / GLES 3.0".into(),
            ));
        }
        let fb = gl.get_parameter_i32(glow::DRAW_FRAMEBUFFER_BINDING).max(0) as u32;
        if fb != 0 && gl.get_parameter_i32(glow::SAMPLE_BUFFERS) > 0 {
            // glReadPixels cannot read a multisampled framebuffer object.
            return Ok(BeforeDraw::Unreadable);
        }
        let saved_read_fb = gl.get_parameter_i32(glow::READ_FRAMEBUFFER_BINDING);
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, framebuffer(fb));
        let saved_read_buffer = gl.get_parameter_i32(glow::READ_BUFFER);
        let put_back = |gl: &glow::Context| {
            gl.read_buffer(saved_read_buffer as u32);
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, framebuffer(saved_read_fb as u32));
        };
        // What `read` reads: the source buffer, its size, its format.
        let source = (|| {
            if fb == 0 {
                let Some((w, h)) = surface_size(ctx) else {
                    return Ok(None);
                };
                let double = es || gl.get_parameter_bool(glow::DOUBLEBUFFER);
                let (source, attachment) = match (double, es) {
                    (_, true) => (glow::BACK, glow::BACK),
                    (true, false) => (glow::BACK, glow::BACK_LEFT),
                    (false, false) => (glow::FRONT, glow::FRONT_LEFT),
                };
                Ok(copy_format(gl, attachment)?.map(|f| (source, w, h, f)))
            } else {
                let ty = gl.get_framebuffer_attachment_parameter_i32(
                    glow::READ_FRAMEBUFFER,
                    glow::COLOR_ATTACHMENT0,
                    glow::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE,
                ) as u32;
                if ty == glow::NONE {
                    return Ok(None);
                }
                let Ok((w, h)) = attachment_size(gl, fb) else {
                    return Ok(None);
                };
                Ok(copy_format(gl, glow::COLOR_ATTACHMENT0)?
                    .map(|f| (glow::COLOR_ATTACHMENT0, w, h, f)))
            }
        })();
        let (source, width, height, format) = match source {
            Ok(Some((_, w, h, _))) if w <= 0 || h <= 0 || w > MAX_SIDE || h > MAX_SIDE => {
                put_back(gl);
                return Ok(BeforeDraw::Unreadable);
            }
            Ok(Some(s)) => s,
            Ok(None) => {
                put_back(gl);
                return Ok(BeforeDraw::Unreadable);
            }
            Err(e) => {
                put_back(gl);
                return Err(e);
            }
        };
        let srgb = !es && gl.is_enabled(glow::FRAMEBUFFER_SRGB);
        // The window system's buffer (BGRA, its top row first in memory on
        // Mesa) is copied upside down into BGRA storage, which llvmpipe does
        // with a `memcpy`; the rows are flipped back when read. Its 8-bit
        // values are copied as they are, and read back so, as the
        // original's are while sRGB writes are off (GL converts nothing
        // when reading then).
        let flipped = fb == 0 && !es && matches!(format, glow::RGBA8 | glow::SRGB8_ALPHA8) && !srgb;
        let storage = if flipped {
            Storage::BgraTexture
        } else {
            Storage::Renderbuffer(format)
        };
        let copy = match private_copy(gl, ctx, storage, width, height) {
            Ok(c) => c,
            Err(e) => {
                put_back(gl);
                return Err(e);
            }
        };
        let scissor = gl.is_enabled(glow::SCISSOR_TEST);
        let discard = gl.is_enabled(glow::RASTERIZER_DISCARD);
        gl.read_buffer(source);
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(copy));
        gl.disable(glow::SCISSOR_TEST);
        gl.disable(glow::RASTERIZER_DISCARD);
        if srgb {
            gl.disable(glow::FRAMEBUFFER_SRGB);
        }
        let (top, bottom) = if flipped { (height, 0) } else { (0, height) };
        gl.blit_framebuffer(
            0,
            0,
            width,
            height,
            0,
            top,
            width,
            bottom,
            glow::COLOR_BUFFER_BIT,
            glow::NEAREST,
        );
        if srgb {
            gl.enable(glow::FRAMEBUFFER_SRGB);
        }
        if discard {
            gl.enable(glow::RASTERIZER_DISCARD);
        }
        if scissor {
            gl.enable(glow::SCISSOR_TEST);
        }
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, framebuffer(fb));
        put_back(gl);
        Ok(BeforeDraw::Saved {
            framebuffer: copy,
            flipped,
        })
    }
}

/// This context's private framebuffer with `storage` of that size at
/// colour attachment 0, single-sampled (made, or remade, as needed). The
/// renderbuffer and texture bindings are put back.
///
/// # Safety
/// `ctx` is current on this thread; the caller puts the draw framebuffer
/// binding back (this binds the private one for drawing).
unsafe fn private_copy(
    gl: &glow::Context,
    ctx: ContextKey,
    storage: Storage,
    width: i32,
    height: i32,
) -> Result<glow::Framebuffer, SaveError> {
    // SAFETY: glow calls on `ctx`, current (this function's contract); the objects
    // are created here or are this context's cached private ones; the texture is
    // specified with no data and no pixel unpack buffer bound, so GL reads nothing.
    unsafe {
        let cached = with_copies(|c| c.get(&ctx).copied());
        if let Some((f, _, s, w, h)) = cached {
            if (s, w, h) == (storage, width, height) {
                return Ok(f);
            }
        }
        let f = match cached {
            Some((f, old, old_storage, ..)) => {
                delete_storage(gl, old, old_storage);
                f
            }
            None => gl.create_framebuffer().map_err(SaveError::Create)?,
        };
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(f));
        let name = match storage {
            Storage::Renderbuffer(format) => {
                let rb = gl.create_renderbuffer().map_err(SaveError::Create);
                let rb = rb.inspect_err(|_| gl.delete_framebuffer(f))?;
                let saved_rb = gl.get_parameter_i32(glow::RENDERBUFFER_BINDING);
                gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb));
                gl.renderbuffer_storage(glow::RENDERBUFFER, format, width, height);
                gl.framebuffer_renderbuffer(
                    glow::DRAW_FRAMEBUFFER,
                    glow::COLOR_ATTACHMENT0,
                    glow::RENDERBUFFER,
                    Some(rb),
                );
                gl.bind_renderbuffer(
                    glow::RENDERBUFFER,
                    std::num::NonZeroU32::new(saved_rb as u32).map(glow::NativeRenderbuffer),
                );
                rb.0.get()
            }
            Storage::BgraTexture => {
                let t = gl.create_texture().map_err(SaveError::Create);
                let t = t.inspect_err(|_| gl.delete_framebuffer(f))?;
                let saved_t = gl.get_parameter_i32(glow::TEXTURE_BINDING_2D);
                let saved_unpack = gl.get_parameter_i32(glow::PIXEL_UNPACK_BUFFER_BINDING);
                gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
                gl.bind_texture(glow::TEXTURE_2D, Some(t));
                gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    glow::RGBA as i32,
                    width,
                    height,
                    0,
                    glow::BGRA,
                    glow::UNSIGNED_BYTE,
                    glow::PixelUnpackData::Slice(None),
                );
                gl.bind_texture(
                    glow::TEXTURE_2D,
                    std::num::NonZeroU32::new(saved_t as u32).map(glow::NativeTexture),
                );
                gl.bind_buffer(
                    glow::PIXEL_UNPACK_BUFFER,
                    std::num::NonZeroU32::new(saved_unpack as u32).map(glow::NativeBuffer),
                );
                gl.framebuffer_texture_2d(
                    glow::DRAW_FRAMEBUFFER,
                    glow::COLOR_ATTACHMENT0,
                    glow::TEXTURE_2D,
                    Some(t),
                    0,
                );
                t.0.get()
            }
        };
        let status = gl.check_framebuffer_status(glow::DRAW_FRAMEBUFFER);
        if status != glow::FRAMEBUFFER_COMPLETE {
            with_copies(|c| c.remove(&ctx));
            gl.delete_framebuffer(f);
            delete_storage(gl, name, storage);
            return Err(SaveError::Create(format!(
                "private framebuffer incomplete ({status:#06x}) for {storage:?}"
            )));
        }
        with_copies(|c| c.insert(ctx, (f, name, storage, width, height)));
        Ok(f)
    }
}

/// Deletes the renderbuffer or texture `name` of a private copy.
///
/// # Safety
/// `name` is an object of that kind the agent made in the context current
/// on this thread.
unsafe fn delete_storage(gl: &glow::Context, name: u32, storage: Storage) {
    // SAFETY: the caller's contract.
    unsafe {
        let Some(n) = std::num::NonZeroU32::new(name) else {
            return;
        };
        match storage {
            Storage::Renderbuffer(_) => gl.delete_renderbuffer(glow::NativeRenderbuffer(n)),
            Storage::BgraTexture => gl.delete_texture(glow::NativeTexture(n)),
        }
    }
}

/// A screenshot of what the draw framebuffer held before the draw.
///
/// # Safety
/// `ctx` is current on this thread.
pub unsafe fn before_draw(
    gl: &glow::Context,
    ctx: ContextKey,
    saved: &BeforeDraw,
) -> Result<Image, ScreenshotError> {
    // SAFETY: `read` and `draw_framebuffer` need `ctx` current, which this
    // function's caller guarantees; the saved framebuffer is this context's.
    unsafe {
        match saved {
            BeforeDraw::Saved {
                framebuffer,
                flipped,
            } => {
                let mut image = read(gl, ctx, framebuffer.0.get())?;
                if *flipped {
                    let row = image.width as usize * 4;
                    image.rgba = image
                        .rgba
                        .chunks_exact(row)
                        .rev()
                        .flatten()
                        .copied()
                        .collect();
                }
                Ok(image)
            }
            BeforeDraw::Unreadable => draw_framebuffer(gl, ctx),
            BeforeDraw::NotKept => Err(ScreenshotError::NotKept),
        }
    }
}

fn framebuffer(name: u32) -> Option<glow::Framebuffer> {
    std::num::NonZeroU32::new(name).map(glow::NativeFramebuffer)
}

/// Size of colour attachment 0 of the framebuffer bound for reading.
///
/// # Safety
/// A GL context must be current on this thread (`gl` loaded for it), with
/// `fb` bound for reading.
unsafe fn attachment_size(gl: &glow::Context, fb: u32) -> Result<(i32, i32), ScreenshotError> {
    // SAFETY: glow calls on the context this function's caller keeps current. `p`,
    // when not null, is the real glGetTextureLevelParameteriv (the slot holds nothing
    // else), of type `GetTextureLevel`, called only where GL 4.5 has it, with live
    // locals as its out-pointers; the renderbuffer binding changed here is put back.
    unsafe {
        let param = |p| {
            gl.get_framebuffer_attachment_parameter_i32(
                glow::READ_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                p,
            )
        };
        let ty = param(glow::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) as u32;
        let name = param(glow::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME) as u32;
        match ty {
            glow::TEXTURE => {
                let level = param(glow::FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL);
                let face = param(glow::FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE) as u32;
                type GetTextureLevel = unsafe extern "C" fn(u32, i32, u32, *mut i32);
                static REAL: RealFn = RealFn::gl(c"glGetTextureLevelParameteriv");
                let p = REAL.get();
                let v = gl.version();
                if !p.is_null() && !v.is_embedded && (v.major, v.minor) >= (4, 5) {
                    let f = std::mem::transmute::<*mut c_void, GetTextureLevel>(p);
                    let (mut w, mut h) = (0, 0);
                    f(name, level, glow::TEXTURE_WIDTH, &mut w);
                    f(name, level, glow::TEXTURE_HEIGHT, &mut h);
                    return Ok((w, h));
                }
                bound_texture_level_size(gl, name, level, face).ok_or(
                    ScreenshotError::TextureSize {
                        framebuffer: fb,
                        texture: name,
                        level,
                    },
                )
            }
            glow::RENDERBUFFER => {
                let saved = gl.get_parameter_i32(glow::RENDERBUFFER_BINDING);
                gl.bind_renderbuffer(
                    glow::RENDERBUFFER,
                    std::num::NonZeroU32::new(name).map(glow::NativeRenderbuffer),
                );
                let w =
                    gl.get_renderbuffer_parameter_i32(glow::RENDERBUFFER, glow::RENDERBUFFER_WIDTH);
                let h = gl
                    .get_renderbuffer_parameter_i32(glow::RENDERBUFFER, glow::RENDERBUFFER_HEIGHT);
                gl.bind_renderbuffer(
                    glow::RENDERBUFFER,
                    std::num::NonZeroU32::new(saved as u32).map(glow::NativeRenderbuffer),
                );
                Ok((w, h))
            }
            _ => Err(ScreenshotError::NoColorAttachment(fb)),
        }
    }
}

/// The size of level `level` of texture `name` without the DSA query
/// (GLES, desktop GL before 4.5): the texture is bound on the active unit
/// to the target it was created with, found by trying each (binding a
/// texture to another target fails and changes nothing; the agent drains
/// that error), and asked with `glGetTexLevelParameteriv` (GLES 3.1); the
/// unit's binding is put back. `face`: the attached cube map face, if any.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn bound_texture_level_size(
    gl: &glow::Context,
    name: u32,
    level: i32,
    face: u32,
) -> Option<(i32, i32)> {
    // SAFETY: glow calls on the context this function's caller keeps current. `p`,
    // when not null, is the real glGetTexLevelParameteriv (the slot holds nothing
    // else), of type `GetTexLevel`, called only where GL or GLES 3.1 has it, with live
    // locals as its out-pointers; the unit's binding is put back.
    unsafe {
        let v = gl.version();
        if v.is_embedded && (v.major, v.minor) < (3, 1) {
            return None;
        }
        let texture = std::num::NonZeroU32::new(name).map(glow::NativeTexture)?;
        let targets = [
            (glow::TEXTURE_2D, glow::TEXTURE_BINDING_2D),
            (glow::TEXTURE_2D_ARRAY, glow::TEXTURE_BINDING_2D_ARRAY),
            (glow::TEXTURE_CUBE_MAP, glow::TEXTURE_BINDING_CUBE_MAP),
            (glow::TEXTURE_3D, glow::TEXTURE_BINDING_3D),
            (
                glow::TEXTURE_2D_MULTISAMPLE,
                glow::TEXTURE_BINDING_2D_MULTISAMPLE,
            ),
            (
                glow::TEXTURE_2D_MULTISAMPLE_ARRAY,
                glow::TEXTURE_BINDING_2D_MULTISAMPLE_ARRAY,
            ),
            (glow::TEXTURE_RECTANGLE, glow::TEXTURE_BINDING_RECTANGLE),
            (glow::TEXTURE_1D_ARRAY, glow::TEXTURE_BINDING_1D_ARRAY),
        ];
        for (target, binding) in targets {
            let saved = gl.get_parameter_i32(binding);
            gl.bind_texture(target, Some(texture));
            if gl.get_parameter_i32(binding) as u32 != name {
                continue;
            }
            let query = if target == glow::TEXTURE_CUBE_MAP && face != 0 {
                face
            } else if target == glow::TEXTURE_CUBE_MAP {
                glow::TEXTURE_CUBE_MAP_POSITIVE_X
            } else {
                target
            };
            type GetTexLevel = unsafe extern "C" fn(u32, i32, u32, *mut i32);
            static REAL: RealFn = RealFn::gl(c"glGetTexLevelParameteriv");
            let p = REAL.get();
            let (mut w, mut h) = (0, 0);
            if !p.is_null() {
                let f = std::mem::transmute::<*mut c_void, GetTexLevel>(p);
                f(query, level, glow::TEXTURE_WIDTH, &mut w);
                f(query, level, glow::TEXTURE_HEIGHT, &mut h);
            }
            gl.bind_texture(
                target,
                std::num::NonZeroU32::new(saved as u32).map(glow::NativeTexture),
            );
            return (w > 0 && h > 0).then_some((w, h));
        }
        None
    }
}

/// The real functions of `slots`, or `None` when one cannot be found.
fn real_fns<const N: usize>(slots: [&RealFn; N]) -> Option<[*mut c_void; N]> {
    let fns = slots.map(RealFn::get);
    fns.iter().all(|p| !p.is_null()).then_some(fns)
}

/// The size of the current draw surface, from EGL or GLX.
fn surface_size(ctx: ContextKey) -> Option<(i32, i32)> {
    // SAFETY: each slot holds only the real EGL/GLX function of its name,
    // checked not null and transmuted to that function's C signature; the
    // eglGetCurrent*/glXGetCurrent* calls have no preconditions, the query
    // gets the current display and surface (checked) and live locals as its
    // out-pointers.
    unsafe {
        type Current = unsafe extern "C" fn() -> *mut c_void;
        match ctx.api {
            ContextApi::Egl => {
                type CurrentSurface = unsafe extern "C" fn(i32) -> *mut c_void;
                type Query = unsafe extern "C" fn(*mut c_void, *mut c_void, i32, *mut i32) -> u32;
                static DPY: RealFn = RealFn::egl(c"eglGetCurrentDisplay");
                static SURF: RealFn = RealFn::egl(c"eglGetCurrentSurface");
                static QUERY: RealFn = RealFn::egl(c"eglQuerySurface");
                let [d, s, q] = real_fns([&DPY, &SURF, &QUERY])?;
                let dpy = std::mem::transmute::<*mut c_void, Current>(d)();
                let surface = std::mem::transmute::<*mut c_void, CurrentSurface>(s)(0x3059);
                if surface.is_null() {
                    return None;
                }
                let q = std::mem::transmute::<*mut c_void, Query>(q);
                let (mut w, mut h) = (0, 0);
                let ok =
                    q(dpy, surface, 0x3057, &mut w) != 0 && q(dpy, surface, 0x3056, &mut h) != 0;
                ok.then_some((w, h))
            }
            ContextApi::Glx => {
                type Drawable = unsafe extern "C" fn() -> std::ffi::c_ulong;
                type Query = unsafe extern "C" fn(*mut c_void, std::ffi::c_ulong, i32, *mut u32);
                static DPY: RealFn = RealFn::glx(c"glXGetCurrentDisplay");
                static DRAWABLE: RealFn = RealFn::glx(c"glXGetCurrentDrawable");
                static QUERY: RealFn = RealFn::glx(c"glXQueryDrawable");
                let [d, s, q] = real_fns([&DPY, &DRAWABLE, &QUERY])?;
                let dpy = std::mem::transmute::<*mut c_void, Current>(d)();
                let drawable = std::mem::transmute::<*mut c_void, Drawable>(s)();
                if dpy.is_null() || drawable == 0 {
                    return None;
                }
                let q = std::mem::transmute::<*mut c_void, Query>(q);
                let (mut w, mut h) = (0u32, 0u32);
                q(dpy, drawable, 0x801D, &mut w);
                q(dpy, drawable, 0x801E, &mut h);
                (w > 0 && h > 0).then_some((w as i32, h as i32))
            }
            ContextApi::None => None,
        }
    }
}
