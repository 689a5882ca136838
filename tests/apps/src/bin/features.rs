//! `features MODE [FRAMES] [WIDTH] [HEIGHT]`: renders FRAMES (default 3)
//! frames into the *default* framebuffer (a WIDTH x HEIGHT pbuffer, default
//! 1280x720: not square) with a GL 4.5 core context, reads each frame back
//! before `eglSwapBuffers` and prints `frame N checksum HEX` (FNV-1a of the
//! RGBA8 pixels, bottom row first). Every frame clears to (0.1, 0.2, 0.3, 1)
//! and draws a full-screen triangle. MODE adds:
//!
//! - `plain`: nothing more.
//! - `nan`: in frame 1 the fragment at (2, 3) writes an infinity to its
//!   output (`color.b = 0.5 / d` with `d` 0 there).
//! - `glerror`: every frame, after the draw, `glUseProgram(0xdead)` (an
//!   intercepted call raising GL_INVALID_VALUE), the app's own
//!   `glGetError`, then `glEnable(0xffff)` (not intercepted:
//!   GL_INVALID_ENUM), a second draw, and `glGetError` again; prints
//!   `frame N errors HEX HEX`.
//! - `tf`: a first pass captures the triangle's vertices with transform
//!   feedback (`glTransformFeedbackVaryings` "pos", "shade", rasterizer
//!   discard), a second draws them with `glDrawTransformFeedback`.
//! - `queries`: as `tf`, with queries around the passes: the capture in
//!   `GL_PRIMITIVES_GENERATED` and `GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN`,
//!   the draw in `GL_SAMPLES_PASSED` and `GL_TIME_ELAPSED`, then the same
//!   draw again in `GL_ANY_SAMPLES_PASSED`; prints `frame N queries
//!   generated G written W samples S any A generated-no-wait G
//!   generated-buffered G G` (the generated count read again with
//!   `GL_QUERY_RESULT_NO_WAIT`, and into an immutable query buffer: 64 bits
//!   with `GL_QUERY_BUFFER` bound, 32 bits with
//!   `glGetQueryBufferObjectuiv`); the elapsed time only has to be
//!   available, it is not printed.
//! - `image`: the triangle is drawn with a fragment shader that counts its
//!   fragments per 8 x 8 cell with `imageAtomicAdd` into an R32UI image
//!   (never cleared: counts add up over the frames) and writes its colour
//!   with `imageStore` into an RGBA8 image as well; prints `frame N image
//!   HEX HEX` (FNV-1a of both images) and `frame N count C` (cell 0's).
//! - `timed`: as `plain`, with `glFinish` before and after the draw call;
//!   prints `frame N draw_us T` (the call's wall-clock time: under the agent
//!   with a breakpoint, the hit test plus the draw). The draw and the
//!   `glFinish` after it are the function `shaderdbg_timed_draw`, for
//!   callgrind's `--toggle-collect`.
//! - `indirect`: the triangle is drawn by
//!   `glMultiDrawArraysIndirectCountARB` from two commands with a draw count
//!   of 1 in the parameter buffer (the second command would cover the same
//!   pixels again).

use anyhow::{anyhow, bail, Context as _};
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    arg, buffer, fnv1a, program, read_rgba8, texture_image, vf_program, with_context_sized, Kind,
};

const VERTEX: &str = "#version 330 core
void main() {
    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));
    gl_Position = vec4(p, 0.0, 1.0);
}
";

const TF_VERTEX: &str = "#version 330 core
out vec2 pos;
out float shade;
void main() {
    pos = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));
    shade = 0.25 + 0.25 * float(gl_VertexID);
    gl_Position = vec4(pos, 0.0, 1.0);
}
";

const TF_CAPTURE_FRAGMENT: &str = "#version 330 core
out vec4 color;
void main() { color = vec4(1.0); }
";

const TF_DRAW_VERTEX: &str = "#version 330 core
layout(location = 0) in vec2 pos;
layout(location = 1) in float shade;
out float v_shade;
void main() {
    v_shade = shade;
    gl_Position = vec4(pos, 0.0, 1.0);
}
";

const TF_DRAW_FRAGMENT: &str = "#version 330 core
in float v_shade;
out vec4 color;
void main() {
    float s = v_shade;
    color = vec4(s, 1.0 - s, 0.5, 1.0);
}
";

type DrawTransformFeedback = unsafe extern "C" fn(u32, u32);
type QueryBufferObject = unsafe extern "C" fn(u32, u32, u32, isize);
type MultiDrawIndirectCount = unsafe extern "C" fn(u32, *const std::ffi::c_void, isize, i32, i32);

/// `name` through `eglGetProcAddress`, looked up with `dlsym` on libEGL (as
/// programs that load GL themselves do).
fn egl_proc(name: &std::ffi::CStr) -> anyhow::Result<*mut std::ffi::c_void> {
    type Gpa = unsafe extern "C" fn(*const std::ffi::c_char) -> *mut std::ffi::c_void;
    // SAFETY: dlopen/dlsym with valid C strings; eglGetProcAddress's C signature.
    unsafe {
        let h = libc::dlopen(c"libEGL.so.1".as_ptr(), libc::RTLD_NOW);
        if h.is_null() {
            bail!("dlopen libEGL.so.1");
        }
        let gpa = libc::dlsym(h, c"eglGetProcAddress".as_ptr());
        if gpa.is_null() {
            bail!("no eglGetProcAddress");
        }
        let p = std::mem::transmute::<*mut std::ffi::c_void, Gpa>(gpa)(name.as_ptr());
        if p.is_null() {
            bail!("no {name:?}");
        }
        Ok(p)
    }
}

const FRAGMENT: &str = "#version 330 core
uniform int bad;
uniform vec2 size;
out vec4 color;
void main() {
    vec2 uv = gl_FragCoord.xy / size;
    float d = (bad == 1 && int(gl_FragCoord.x) == 2 && int(gl_FragCoord.y) == 3) ? 0.0 : 1.0;
    color = vec4(uv, 0.25, 1.0);
    color.b = 0.5 / d;
}
";

const IMAGE_FRAGMENT: &str = "#version 430 core
layout(r32ui, binding = 1) uniform uimage2D counts;
layout(rgba8, binding = 2) writeonly uniform image2D colors;
uniform vec2 size;
out vec4 color;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    imageAtomicAdd(counts, p / 8, 1u);
    vec4 c = vec4(gl_FragCoord.xy / size, 0.75, 1.0);
    imageStore(colors, p, c);
    color = c;
}
";

/// The `timed` mode's draw and the `glFinish` after it, in a function of
/// its own so that callgrind can count it alone
/// (`--toggle-collect=shaderdbg_timed_draw`: with `LP_NUM_THREADS=0`
/// llvmpipe rasterizes in `glFinish`, on this thread).
#[no_mangle]
#[inline(never)]
pub fn shaderdbg_timed_draw(gl: &glow::Context) {
    // SAFETY: called with the app's context current (`main`).
    unsafe {
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.finish();
    }
}

fn main() -> anyhow::Result<()> {
    let mode: String = arg(0, "MODE", "plain".to_string())?;
    let frames: u32 = arg(1, "FRAMES", 3)?;
    let width: u32 = arg(2, "WIDTH", 1280)?;
    let height: u32 = arg(3, "HEIGHT", 720)?;
    if ![
        "plain", "nan", "glerror", "tf", "queries", "image", "indirect", "timed",
    ]
    .contains(&mode.as_str())
    {
        bail!("unknown mode {mode:?}");
    }
    let lines = with_context_sized(Kind::Core(4, 5), width, height, |gl, swap| unsafe {
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(vao));
        let prog = vf_program(gl, VERTEX, FRAGMENT)?;
        gl.use_program(Some(prog));
        let size = gl.get_uniform_location(prog, "size");
        let bad = gl.get_uniform_location(prog, "bad");
        gl.uniform_2_f32(size.as_ref(), width as f32, height as f32);
        // Transform feedback: capture program, object, buffer, draw program.
        let tf_capture = program(
            gl,
            &[
                (glow::VERTEX_SHADER, TF_VERTEX),
                (glow::FRAGMENT_SHADER, TF_CAPTURE_FRAGMENT),
            ],
            |p| gl.transform_feedback_varyings(p, &["pos", "shade"], glow::INTERLEAVED_ATTRIBS),
        )?;
        let tf_draw = vf_program(gl, TF_DRAW_VERTEX, TF_DRAW_FRAGMENT)?;
        let image_prog = vf_program(gl, VERTEX, IMAGE_FRAGMENT)?;
        gl.use_program(Some(image_prog));
        gl.uniform_2_f32(
            gl.get_uniform_location(image_prog, "size").as_ref(),
            width as f32,
            height as f32,
        );
        let (cells_w, cells_h) = (width.div_ceil(8) as i32, height.div_ceil(8) as i32);
        let counts = gl.create_texture().map_err(|e| anyhow!(e))?;
        gl.bind_texture(glow::TEXTURE_2D, Some(counts));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::R32UI, cells_w, cells_h);
        let zeros = vec![0u8; (cells_w * cells_h * 4) as usize];
        gl.tex_sub_image_2d(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            cells_w,
            cells_h,
            glow::RED_INTEGER,
            glow::UNSIGNED_INT,
            glow::PixelUnpackData::Slice(Some(&zeros)),
        );
        let colors = gl.create_texture().map_err(|e| anyhow!(e))?;
        gl.bind_texture(glow::TEXTURE_2D, Some(colors));
        gl.tex_storage_2d(
            glow::TEXTURE_2D,
            1,
            glow::RGBA8,
            width as i32,
            height as i32,
        );
        gl.bind_texture(glow::TEXTURE_2D, None);
        gl.bind_image_texture(1, Some(counts), 0, false, 0, glow::READ_WRITE, glow::R32UI);
        gl.bind_image_texture(2, Some(colors), 0, false, 0, glow::WRITE_ONLY, glow::RGBA8);
        let tfo = gl.create_transform_feedback().map_err(|e| anyhow!(e))?;
        let tf_buffer = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(tf_buffer));
        gl.buffer_data_size(glow::ARRAY_BUFFER, 3 * 3 * 4, glow::STATIC_COPY);
        let tf_vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(tf_vao));
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 12, 0);
        gl.enable_vertex_attrib_array(1);
        gl.vertex_attrib_pointer_f32(1, 1, glow::FLOAT, false, 12, 8);
        gl.bind_buffer(glow::ARRAY_BUFFER, None);
        gl.bind_vertex_array(Some(vao));
        // Indirect-count draws: two commands, a count of 1.
        let commands = gl.create_buffer().map_err(|e| anyhow!(e))?;
        gl.bind_buffer(glow::DRAW_INDIRECT_BUFFER, Some(commands));
        let words: [u32; 8] = [3, 1, 0, 0, 3, 1, 0, 0];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        gl.buffer_data_u8_slice(glow::DRAW_INDIRECT_BUFFER, &bytes, glow::STATIC_DRAW);
        gl.bind_buffer(glow::DRAW_INDIRECT_BUFFER, None);
        let count = buffer(gl, glow::PARAMETER_BUFFER, &1u32.to_le_bytes())?;
        gl.bind_buffer(glow::PARAMETER_BUFFER, None);
        let multi_draw: Option<MultiDrawIndirectCount> = if mode == "indirect" {
            Some(std::mem::transmute::<
                *mut std::ffi::c_void,
                MultiDrawIndirectCount,
            >(egl_proc(
                c"glMultiDrawArraysIndirectCountARB",
            )?))
        } else {
            None
        };
        let draw_tf: Option<DrawTransformFeedback> = if mode == "tf" || mode == "queries" {
            Some(std::mem::transmute::<
                *mut std::ffi::c_void,
                DrawTransformFeedback,
            >(egl_proc(c"glDrawTransformFeedback")?))
        } else {
            None
        };
        let (query_buffer_object, query_buffer): (Option<QueryBufferObject>, _) = if mode
            == "queries"
        {
            let b = gl.create_buffer().map_err(|e| anyhow!(e))?;
            gl.bind_buffer(glow::QUERY_BUFFER, Some(b));
            gl.buffer_storage(glow::QUERY_BUFFER, 16, None, 0);
            gl.bind_buffer(glow::QUERY_BUFFER, None);
            (
                Some(std::mem::transmute::<
                    *mut std::ffi::c_void,
                    QueryBufferObject,
                >(egl_proc(c"glGetQueryBufferObjectuiv")?)),
                Some(b),
            )
        } else {
            (None, None)
        };
        let mut lines = Vec::new();
        for frame in 0..frames {
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            gl.viewport(0, 0, width as i32, height as i32);
            gl.clear_color(0.1, 0.2, 0.3, 1.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
            gl.use_program(Some(prog));
            gl.uniform_1_i32(bad.as_ref(), i32::from(mode == "nan" && frame == 1));
            let queries = mode == "queries";
            let q: Vec<glow::Query> = (0..5)
                .map(|_| gl.create_query().map_err(|e| anyhow!(e)))
                .collect::<anyhow::Result<_>>()?;
            match mode.as_str() {
                "tf" | "queries" => {
                    gl.use_program(Some(tf_capture));
                    gl.enable(glow::RASTERIZER_DISCARD);
                    gl.bind_transform_feedback(glow::TRANSFORM_FEEDBACK, Some(tfo));
                    gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(tf_buffer));
                    gl.begin_transform_feedback(glow::TRIANGLES);
                    if queries {
                        gl.begin_query(glow::PRIMITIVES_GENERATED, q[0]);
                        gl.begin_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, q[1]);
                    }
                    gl.draw_arrays(glow::TRIANGLES, 0, 3);
                    if queries {
                        gl.end_query(glow::PRIMITIVES_GENERATED);
                        gl.end_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
                    }
                    gl.end_transform_feedback();
                    gl.disable(glow::RASTERIZER_DISCARD);
                    gl.bind_transform_feedback(glow::TRANSFORM_FEEDBACK, None);
                    gl.use_program(Some(tf_draw));
                    gl.bind_vertex_array(Some(tf_vao));
                    if queries {
                        gl.begin_query(glow::SAMPLES_PASSED, q[2]);
                        gl.begin_query(glow::TIME_ELAPSED, q[3]);
                    }
                    if let Some(f) = draw_tf {
                        f(glow::TRIANGLES, tfo.0.get());
                    }
                    if queries {
                        gl.end_query(glow::SAMPLES_PASSED);
                        gl.end_query(glow::TIME_ELAPSED);
                        gl.begin_query(glow::ANY_SAMPLES_PASSED, q[4]);
                        if let Some(f) = draw_tf {
                            f(glow::TRIANGLES, tfo.0.get());
                        }
                        gl.end_query(glow::ANY_SAMPLES_PASSED);
                        let r: Vec<u32> = q
                            .iter()
                            .map(|q| gl.get_query_parameter_u32(*q, glow::QUERY_RESULT))
                            .collect();
                        // The generated count again: without waiting, and
                        // into a query buffer (bound: 64 bits at offset 8;
                        // DSA: 32 bits at offset 0).
                        let no_wait = gl.get_query_parameter_u32(q[0], glow::QUERY_RESULT_NO_WAIT);
                        let mut buffered = [0u8; 16];
                        if let (Some(f), Some(b)) = (query_buffer_object, query_buffer) {
                            gl.bind_buffer(glow::QUERY_BUFFER, Some(b));
                            gl.get_query_parameter_u64_with_offset(q[0], glow::QUERY_RESULT, 8);
                            gl.bind_buffer(glow::QUERY_BUFFER, None);
                            f(q[0].0.get(), b.0.get(), glow::QUERY_RESULT, 0);
                            gl.bind_buffer(glow::COPY_READ_BUFFER, Some(b));
                            gl.get_buffer_sub_data(glow::COPY_READ_BUFFER, 0, &mut buffered);
                            gl.bind_buffer(glow::COPY_READ_BUFFER, None);
                        }
                        lines.push(format!(
                            "frame {frame} queries generated {} written {} samples {} any {} \
                             generated-no-wait {no_wait} generated-buffered {} {}",
                            r[0],
                            r[1],
                            r[2],
                            r[4],
                            u32::from_le_bytes(buffered[..4].try_into()?),
                            u64::from_le_bytes(buffered[8..].try_into()?),
                        ));
                    }
                    gl.bind_vertex_array(Some(vao));
                }
                "indirect" => {
                    gl.bind_buffer(glow::DRAW_INDIRECT_BUFFER, Some(commands));
                    gl.bind_buffer(glow::PARAMETER_BUFFER, Some(count));
                    if let Some(f) = multi_draw {
                        f(glow::TRIANGLES, std::ptr::null(), 0, 2, 0);
                    }
                    gl.bind_buffer(glow::DRAW_INDIRECT_BUFFER, None);
                    gl.bind_buffer(glow::PARAMETER_BUFFER, None);
                }
                "image" => {
                    gl.use_program(Some(image_prog));
                    gl.draw_arrays(glow::TRIANGLES, 0, 3);
                    gl.memory_barrier(glow::TEXTURE_UPDATE_BARRIER_BIT);
                    let [c, rgba] = [
                        (
                            counts,
                            cells_w * cells_h,
                            glow::RED_INTEGER,
                            glow::UNSIGNED_INT,
                        ),
                        (
                            colors,
                            (width * height) as i32,
                            glow::RGBA,
                            glow::UNSIGNED_BYTE,
                        ),
                    ]
                    .map(|(t, n, format, ty)| texture_image(gl, t, n as usize, format, ty));
                    lines.push(format!(
                        "frame {frame} image {:016x} {:016x}",
                        fnv1a(&c),
                        fnv1a(&rgba)
                    ));
                    lines.push(format!(
                        "frame {frame} count {}",
                        u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                    ));
                }
                "timed" => {
                    gl.finish();
                    let start = std::time::Instant::now();
                    shaderdbg_timed_draw(gl);
                    let us = start.elapsed().as_micros();
                    lines.push(format!("frame {frame} draw_us {us}"));
                }
                _ => gl.draw_arrays(glow::TRIANGLES, 0, 3),
            }
            if mode == "glerror" {
                gl.use_program(std::num::NonZeroU32::new(0xdead).map(glow::NativeProgram));
                let first = gl.get_error();
                gl.enable(0xffff);
                gl.use_program(Some(prog));
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
                let second = gl.get_error();
                lines.push(format!("frame {frame} errors {first:#06x} {second:#06x}"));
            }
            let pixels = read_rgba8(gl, width as i32, height as i32)
                .with_context(|| format!("frame {frame}"))?;
            lines.push(format!("frame {frame} checksum {:016x}", fnv1a(&pixels)));
            for q in q {
                gl.delete_query(q);
            }
            swap()?;
        }
        gl.delete_program(prog);
        gl.delete_program(tf_capture);
        gl.delete_program(tf_draw);
        gl.delete_program(image_prog);
        gl.delete_texture(counts);
        gl.delete_texture(colors);
        gl.delete_transform_feedback(tfo);
        for b in [tf_buffer, commands, count] {
            gl.delete_buffer(b);
        }
        if let Some(b) = query_buffer {
            gl.delete_buffer(b);
        }
        gl.delete_vertex_array(tf_vao);
        gl.delete_vertex_array(vao);
        Ok(lines)
    })?;
    for l in lines {
        println!("{l}");
    }
    Ok(())
}
