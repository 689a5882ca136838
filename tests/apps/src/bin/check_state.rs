//! `check_state [FRAMES] [SIZE]`: does the GL state after a draw (or a
//! dispatch) equal the state before it? An OpenGL 4.5 core context. Every
//! frame the app sets unusual state (color mask (true, false, true, false),
//! depth mask false, stencil masks 0x5a/0xa5, blending, scissor, culling,
//! viewport (2, 3, 60, 58), a uniform block range on binding 2, storage
//! buffer ranges on bindings 0, 7 and the last one, texture unit 3 active
//! with textures on units 0..3, odd pack/unpack alignments, different draw
//! and read framebuffers, buffers on every generic binding), snapshots a
//! broad set of state (see [`snapshot`]), raises `GL_INVALID_ENUM` on
//! purpose, then
//!
//! - draws a full-screen triangle with `shaders/check_state.frag` (which
//!   reads the uniform block and samples unit 3); checks that `glGetError`
//!   still reports that `GL_INVALID_ENUM`, then `GL_NO_ERROR`; snapshots
//!   again and prints `frame N draw state ok` or the differences, and
//!   `frame N draw error ok` or what `glGetError` said;
//! - dispatches `shaders/check_state.comp` (which adds to the storage buffer
//!   range at binding 7) and prints `frame N dispatch state ok` or the
//!   differences. Its block `Extra` is moved to the last storage-buffer
//!   binding (`glShaderStorageBlockBinding`), holding `base` = 1000 that
//!   every invocation adds, and `total`, which it sums into.
//!
//! Then `frame N checksum HEX` (the framebuffer), `frame N data HEX` (the
//! storage buffer the dispatch adds to) and `frame N total T`. A debug draw that leaks state, loses
//! the application's error, or runs the dispatch's writes twice shows here.

use anyhow::anyhow;
use shaderdbg_test_apps::glow::{self, HasContext};
use shaderdbg_test_apps::{
    arg, bytes_of_u32, fnv1a, nearest_filtering, program, read_buffer, vf_program, with_context,
    Kind, Target,
};

const VERTEX: &str = include_str!("../../shaders/fullscreen.vert");
const FRAGMENT: &str = include_str!("../../shaders/check_state.frag");
const COMPUTE: &str = include_str!("../../shaders/check_state.comp");

/// Elements of the storage buffer range the dispatch adds to.
const DATA: u32 = 64;

/// `[("NAME", glow::NAME), ...]`: GL enums with their names, as the
/// snapshot prints them.
macro_rules! named {
    ($($name:ident),* $(,)?) => {
        [$((stringify!($name), glow::$name)),*]
    };
}

type Snapshot = Vec<(String, String)>;

/// The state a debug draw could disturb, as (name, value) pairs.
///
/// # Safety
/// A context is current.
unsafe fn snapshot(gl: &glow::Context) -> Snapshot {
    let mut s: Snapshot = Vec::new();
    let mut put = |name: String, value: String| s.push((name, value));
    unsafe {
        let int = |p: u32| gl.get_parameter_i32(p);
        let ints = |p: u32, n: usize| {
            let mut v = vec![0i32; n];
            gl.get_parameter_i32_slice(p, &mut v);
            format!("{v:?}")
        };
        let enabled = |p: u32| gl.is_enabled(p);
        for (name, p) in named![
            CURRENT_PROGRAM,
            VERTEX_ARRAY_BINDING,
            ARRAY_BUFFER_BINDING,
            ELEMENT_ARRAY_BUFFER_BINDING,
            SHADER_STORAGE_BUFFER_BINDING,
            UNIFORM_BUFFER_BINDING,
            ATOMIC_COUNTER_BUFFER_BINDING,
            COPY_READ_BUFFER_BINDING,
            COPY_WRITE_BUFFER_BINDING,
            PIXEL_PACK_BUFFER_BINDING,
            PIXEL_UNPACK_BUFFER_BINDING,
            DRAW_INDIRECT_BUFFER_BINDING,
            DISPATCH_INDIRECT_BUFFER_BINDING,
            TEXTURE_BUFFER_BINDING,
            TRANSFORM_FEEDBACK_BINDING,
            PROGRAM_PIPELINE_BINDING,
            RENDERBUFFER_BINDING,
            DRAW_FRAMEBUFFER_BINDING,
            READ_FRAMEBUFFER_BINDING,
            ACTIVE_TEXTURE,
            PACK_ALIGNMENT,
            UNPACK_ALIGNMENT,
            STENCIL_WRITEMASK,
            STENCIL_BACK_WRITEMASK,
            STENCIL_FUNC,
            STENCIL_REF,
            STENCIL_VALUE_MASK,
            STENCIL_BACK_FUNC,
            STENCIL_FAIL,
            STENCIL_PASS_DEPTH_PASS,
            DEPTH_FUNC,
            BLEND_SRC_RGB,
            BLEND_DST_RGB,
            BLEND_SRC_ALPHA,
            BLEND_DST_ALPHA,
            BLEND_EQUATION_RGB,
            BLEND_EQUATION_ALPHA,
            CULL_FACE_MODE,
            FRONT_FACE,
            PATCH_VERTICES,
        ] {
            put(name.into(), int(p).to_string());
        }
        for (name, p, n) in [
            ("VIEWPORT", glow::VIEWPORT, 4),
            ("SCISSOR_BOX", glow::SCISSOR_BOX, 4),
            ("POLYGON_MODE", glow::POLYGON_MODE, 2),
        ] {
            put(name.into(), ints(p, n));
        }
        put(
            "COLOR_WRITEMASK".into(),
            format!(
                "{:?}",
                gl.get_parameter_bool_array::<4>(glow::COLOR_WRITEMASK)
            ),
        );
        put(
            "DEPTH_WRITEMASK".into(),
            gl.get_parameter_bool(glow::DEPTH_WRITEMASK).to_string(),
        );
        for (name, p) in named![
            BLEND,
            DEPTH_TEST,
            STENCIL_TEST,
            SCISSOR_TEST,
            CULL_FACE,
            RASTERIZER_DISCARD,
            POLYGON_OFFSET_FILL,
            PRIMITIVE_RESTART,
            FRAMEBUFFER_SRGB,
            SAMPLE_ALPHA_TO_COVERAGE,
        ] {
            put(name.into(), enabled(p).to_string());
        }
        let max_ssbo = int(glow::MAX_SHADER_STORAGE_BUFFER_BINDINGS).max(1) as u32;
        let ssbo_bindings: Vec<u32> = (0..8).chain([max_ssbo - 1]).collect();
        for (kind, target, start, size, bindings) in [
            (
                "SSBO",
                glow::SHADER_STORAGE_BUFFER_BINDING,
                glow::SHADER_STORAGE_BUFFER_START,
                glow::SHADER_STORAGE_BUFFER_SIZE,
                ssbo_bindings.clone(),
            ),
            (
                "UBO",
                glow::UNIFORM_BUFFER_BINDING,
                glow::UNIFORM_BUFFER_START,
                glow::UNIFORM_BUFFER_SIZE,
                (0..8).collect(),
            ),
            (
                "ATOMIC",
                glow::ATOMIC_COUNTER_BUFFER_BINDING,
                glow::ATOMIC_COUNTER_BUFFER_START,
                glow::ATOMIC_COUNTER_BUFFER_SIZE,
                (0..1).collect(),
            ),
        ] {
            for i in bindings {
                put(
                    format!("{kind}[{i}]"),
                    format!(
                        "{} @ {} + {}",
                        gl.get_parameter_indexed_i32(target, i),
                        gl.get_parameter_indexed_i64(start, i),
                        gl.get_parameter_indexed_i64(size, i)
                    ),
                );
            }
        }
        // Texture bindings per unit: select each unit, then put the active
        // one back (a query of the snapshot must not change what it checks).
        let active = int(glow::ACTIVE_TEXTURE) as u32;
        for unit in 0..4 {
            gl.active_texture(glow::TEXTURE0 + unit);
            put(
                format!("TEXTURE_BINDING_2D[{unit}]"),
                int(glow::TEXTURE_BINDING_2D).to_string(),
            );
            put(
                format!("SAMPLER_BINDING[{unit}]"),
                int(glow::SAMPLER_BINDING).to_string(),
            );
        }
        gl.active_texture(active);
        // Vertex attribute 0 of the bound vertex array.
        let mut attrib = [0f32; 4];
        gl.get_vertex_attrib_parameter_f32_slice(0, glow::VERTEX_ATTRIB_ARRAY_ENABLED, &mut attrib);
        put(
            "VERTEX_ATTRIB_ARRAY_ENABLED[0]".into(),
            attrib[0].to_string(),
        );
        put("GL_ERROR".into(), format!("{:#06x}", gl.get_error()));
    }
    s
}

/// `frame N WHAT state ok`, or what differs between the snapshots.
fn state_line(frame: u32, what: &str, before: &Snapshot, after: &Snapshot) -> String {
    let diff = differences(before, after);
    if diff.is_empty() {
        format!("frame {frame} {what} state ok")
    } else {
        format!("frame {frame} {what} state differs: {diff}")
    }
}

fn differences(before: &Snapshot, after: &Snapshot) -> String {
    before
        .iter()
        .zip(after)
        .filter(|(b, a)| b != a)
        .map(|((name, b), (_, a))| format!("{name}: {b} -> {a}"))
        .collect::<Vec<_>>()
        .join("; ")
}

fn main() -> anyhow::Result<()> {
    let frames: u32 = arg(0, "FRAMES", 2)?;
    let size: i32 = arg(1, "SIZE", 64)?;
    let lines = with_context(Kind::Core(4, 5), size as u32, |gl, swap| unsafe {
        let out = Target::rgba8(gl, size, size)?;
        let other = Target::rgba8(gl, 8, 8)?;
        let depth_stencil = gl.create_renderbuffer().map_err(|e| anyhow!(e))?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(depth_stencil));
        gl.renderbuffer_storage(glow::RENDERBUFFER, glow::DEPTH24_STENCIL8, size, size);
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(out.fbo));
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_STENCIL_ATTACHMENT,
            glow::RENDERBUFFER,
            Some(depth_stencil),
        );
        let vao = gl.create_vertex_array().map_err(|e| anyhow!(e))?;
        gl.bind_vertex_array(Some(vao));
        // Buffers for every generic binding, a uniform block, storage.
        let mut buffers = Vec::new();
        for _ in 0..12 {
            let b = gl.create_buffer().map_err(|e| anyhow!(e))?;
            gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(b));
            gl.buffer_data_size(glow::COPY_WRITE_BUFFER, 1024, glow::DYNAMIC_DRAW);
            buffers.push(b);
        }
        let ubo = buffers[0];
        let tint: [f32; 4] = [0.5, 1.0, 0.75, 1.0];
        gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(ubo));
        gl.buffer_sub_data_u8_slice(
            glow::COPY_WRITE_BUFFER,
            256,
            &tint
                .iter()
                .flat_map(|f| f.to_le_bytes())
                .collect::<Vec<_>>(),
        );
        let data = buffers[1];
        gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(data));
        let init: Vec<u32> = (0..256).map(|i| i * 5).collect();
        gl.buffer_sub_data_u8_slice(glow::COPY_WRITE_BUFFER, 0, &bytes_of_u32(&init));
        // Textures on units 0..3; unit 3's is sampled.
        let mut textures = Vec::new();
        for unit in 0..4u32 {
            let t = gl.create_texture().map_err(|e| anyhow!(e))?;
            gl.active_texture(glow::TEXTURE0 + unit);
            gl.bind_texture(glow::TEXTURE_2D, Some(t));
            let texels: Vec<u8> = (0..16u32)
                .flat_map(|i| [(i * 16 + unit * 7) as u8, 0, 0, 255])
                .collect();
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 4);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA8 as i32,
                4,
                4,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&texels)),
            );
            nearest_filtering(gl);
            textures.push(t);
        }
        let draw_prog = vf_program(gl, VERTEX, FRAGMENT)?;
        gl.use_program(Some(draw_prog));
        gl.uniform_1_i32(gl.get_uniform_location(draw_prog, "tex").as_ref(), 3);
        let comp_prog = program(gl, &[(glow::COMPUTE_SHADER, COMPUTE)], |_| {})?;
        let max_ssbo = gl
            .get_parameter_i32(glow::MAX_SHADER_STORAGE_BUFFER_BINDINGS)
            .max(1) as u32;
        // Block `Extra` moves to the last binding, where a debugger would like
        // to put its own buffer; `base` = 1000, `total` = 0.
        let extra = gl
            .get_shader_storage_block_index(comp_prog, "Extra")
            .ok_or_else(|| anyhow!("no block Extra"))?;
        gl.shader_storage_block_binding(comp_prog, extra, max_ssbo - 1);
        gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(buffers[11]));
        gl.buffer_sub_data_u8_slice(glow::COPY_WRITE_BUFFER, 512, &bytes_of_u32(&[1000, 0]));

        let unusual = |program: glow::Program| {
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(out.fbo));
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(other.fbo));
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(depth_stencil));
            gl.viewport(2, 3, 60, 58);
            gl.enable(glow::SCISSOR_TEST);
            gl.scissor(1, 1, 62, 62);
            gl.color_mask(true, false, true, false);
            gl.depth_mask(false);
            gl.stencil_mask_separate(glow::FRONT, 0x5a);
            gl.stencil_mask_separate(glow::BACK, 0xa5);
            gl.stencil_func_separate(glow::FRONT, glow::GEQUAL, 3, 0x0f);
            gl.stencil_func_separate(glow::BACK, glow::NOTEQUAL, 1, 0xf0);
            gl.stencil_op_separate(glow::FRONT, glow::INCR, glow::KEEP, glow::REPLACE);
            gl.disable(glow::STENCIL_TEST);
            gl.disable(glow::DEPTH_TEST);
            gl.depth_func(glow::GEQUAL);
            gl.enable(glow::BLEND);
            gl.blend_func_separate(glow::SRC_ALPHA, glow::ONE, glow::ONE, glow::ZERO);
            gl.blend_equation_separate(glow::FUNC_ADD, glow::MAX);
            gl.enable(glow::CULL_FACE);
            gl.cull_face(glow::BACK);
            gl.front_face(glow::CCW);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 2);
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 8);
            gl.bind_vertex_array(Some(vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(buffers[2]));
            gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(buffers[3]));
            gl.bind_buffer(glow::COPY_READ_BUFFER, Some(buffers[4]));
            gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(buffers[5]));
            gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, Some(buffers[6]));
            gl.bind_buffer(glow::DRAW_INDIRECT_BUFFER, Some(buffers[7]));
            gl.bind_buffer(glow::DISPATCH_INDIRECT_BUFFER, Some(buffers[8]));
            gl.bind_buffer(glow::TEXTURE_BUFFER, Some(buffers[9]));
            // Indexed bindings (each also sets its generic binding), then
            // generic bindings that differ from the last indexed one.
            gl.bind_buffer_range(glow::UNIFORM_BUFFER, 2, Some(ubo), 256, 16);
            gl.bind_buffer_range(
                glow::SHADER_STORAGE_BUFFER,
                7,
                Some(data),
                256,
                (DATA * 4) as i32,
            );
            gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, 0, Some(buffers[10]));
            gl.bind_buffer_range(
                glow::SHADER_STORAGE_BUFFER,
                max_ssbo - 1,
                Some(buffers[11]),
                512,
                64,
            );
            gl.bind_buffer_range(glow::ATOMIC_COUNTER_BUFFER, 0, Some(buffers[10]), 0, 16);
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(buffers[9]));
            gl.bind_buffer(glow::UNIFORM_BUFFER, Some(buffers[8]));
            gl.bind_buffer(glow::ATOMIC_COUNTER_BUFFER, Some(buffers[7]));
            for (unit, t) in textures.iter().enumerate() {
                gl.active_texture(glow::TEXTURE0 + unit as u32);
                gl.bind_texture(glow::TEXTURE_2D, Some(*t));
            }
            gl.active_texture(glow::TEXTURE3);
            gl.use_program(Some(program));
        };

        let mut lines = Vec::new();
        for frame in 0..frames {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(out.fbo));
            gl.disable(glow::SCISSOR_TEST);
            gl.color_mask(true, true, true, true);
            gl.clear_color(0.0, 0.0, 0.0, 0.0);
            gl.clear(glow::COLOR_BUFFER_BIT);

            unusual(draw_prog);
            let before = snapshot(gl);
            gl.enable(0xDEAD); // GL_INVALID_ENUM, on purpose
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            let (first, second) = (gl.get_error(), gl.get_error());
            lines.push(state_line(frame, "draw", &before, &snapshot(gl)));
            if (first, second) == (glow::INVALID_ENUM, glow::NO_ERROR) {
                lines.push(format!("frame {frame} draw error ok"));
            } else {
                lines.push(format!(
                    "frame {frame} draw error: {first:#06x} then {second:#06x}"
                ));
            }

            unusual(comp_prog);
            let before = snapshot(gl);
            gl.dispatch_compute(DATA / 16, 1, 1);
            lines.push(state_line(frame, "dispatch", &before, &snapshot(gl)));

            gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
            gl.disable(glow::SCISSOR_TEST);
            let sum = out.checksum(gl)?;
            let data_sum = fnv1a(&read_buffer(gl, data, 1024)?);
            let total = read_buffer(gl, buffers[11], 520)?;
            let total = u32::from_le_bytes([total[516], total[517], total[518], total[519]]);
            lines.push(format!("frame {frame} checksum {sum:016x}"));
            lines.push(format!("frame {frame} data {data_sum:016x}"));
            lines.push(format!("frame {frame} total {total}"));
            swap()?;
        }
        gl.delete_program(draw_prog);
        gl.delete_program(comp_prog);
        for b in buffers {
            gl.delete_buffer(b);
        }
        for t in textures {
            gl.delete_texture(t);
        }
        gl.delete_vertex_array(vao);
        gl.delete_renderbuffer(depth_stencil);
        out.delete(gl);
        other.delete(gl);
        Ok(lines)
    })?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
