//! Debug draws: run an application's draw again with an instrumented copy of
//! its program, writes masked and the debug buffer bound, then put back every
//! piece of GL state we touched and the contents of the buffers the shaders
//! can write. Written against `glow` so it runs the same on
//! the agent's real-function loader and on the headless test harness.

use glow::HasContext;

use crate::screenshot::ScreenshotError;

/// Why a debug draw (or the program it needs) could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DebugDrawError {
    /// GL would not create an object (glow's message).
    #[error("{0}")]
    Create(String),
    #[error("instrumented shader does not compile: {0}")]
    Compile(String),
    #[error("instrumented program does not link: {0}")]
    Link(String),
    #[error(
        "the image the program writes (texture {texture}, level {level}) cannot be saved and restored: {reason}"
    )]
    Image {
        texture: u32,
        level: i32,
        reason: ImageError,
    },
    #[error("could not map the debug buffer")]
    Map,
    #[error("a debug buffer of {0} bytes is larger than GL can allocate here")]
    TooLarge(usize),
    /// The size of the draw framebuffer, for the occlusion-query aside.
    #[error(transparent)]
    FramebufferSize(#[from] ScreenshotError),
    #[error(
        "private framebuffer incomplete ({0:#06x}): occlusion queries would count the debug draw"
    )]
    IncompleteFramebuffer(u32),
}

/// Why a texture level bound to an image unit cannot be saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("no texture")]
    NoTexture,
    #[error("needs glGetTextureParameteriv (GL 4.5)")]
    NoTextureQuery,
    #[error("level size {0}x{1}")]
    LevelSize(i32, i32),
    #[error("texture target {0:#06x} is not supported")]
    Target(u32),
    /// GL would not create the copy (glow's message).
    #[error("{0}")]
    Create(String),
}

/// A program built from instrumented sources with the original's interface.
pub struct DebugProgram {
    pub program: glow::Program,
}

/// Compiles `shaders` (GL stage enum, source) into a program that has the
/// attribute locations, fragment output locations, uniform values, sampler
/// units and block bindings of `original`.
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn build_program(
    gl: &glow::Context,
    original: glow::Program,
    shaders: &[(u32, &str)],
) -> Result<DebugProgram, DebugDrawError> {
    // SAFETY: glow calls on the context this function's caller keeps current (its
    // contract); glow passes GL only pointers into live Rust values of the sizes it
    // asks for. The shaders created here are deleted, and the program too when it
    // fails.
    unsafe {
        let program = gl.create_program().map_err(DebugDrawError::Create)?;
        let mut created = Vec::new();
        let result = (|| {
            for (stage, src) in shaders {
                let shader = gl.create_shader(*stage).map_err(DebugDrawError::Create)?;
                created.push(shader);
                gl.shader_source(shader, src);
                gl.compile_shader(shader);
                if !gl.get_shader_compile_status(shader) {
                    return Err(DebugDrawError::Compile(gl.get_shader_info_log(shader)));
                }
                gl.attach_shader(program, shader);
            }
            for i in 0..gl.get_active_attributes(original) {
                if let Some(a) = gl.get_active_attribute(original, i) {
                    if a.name.starts_with("gl_") {
                        continue;
                    }
                    if let Some(loc) = gl.get_attrib_location(original, &a.name) {
                        gl.bind_attrib_location(program, loc, &a.name);
                    }
                }
            }
            copy_transform_feedback_varyings(gl, original, program);
            for name in fragment_outputs(gl, original) {
                let loc = gl.get_frag_data_location(original, &name);
                if loc >= 0 {
                    gl.bind_frag_data_location(program, loc as u32, &name);
                }
            }
            gl.link_program(program);
            if !gl.get_program_link_status(program) {
                return Err(DebugDrawError::Link(gl.get_program_info_log(program)));
            }
            copy_uniforms(gl, original, program);
            copy_block_bindings(gl, original, program);
            Ok(())
        })();
        for s in created {
            gl.detach_shader(program, s);
            gl.delete_shader(s);
        }
        match result {
            Ok(()) => Ok(DebugProgram { program }),
            Err(e) => {
                gl.delete_program(program);
                Err(e)
            }
        }
    }
}

/// Declares the transform-feedback varyings of `from` (names and buffer
/// mode) on `to`, before it links: a program whose vertex outputs are
/// captured must link the same way (capture itself is set aside during
/// debug draws: [`TransformFeedbackAside`]).
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn copy_transform_feedback_varyings(
    gl: &glow::Context,
    from: glow::Program,
    to: glow::Program,
) {
    // SAFETY: glow calls on the context this function's caller keeps current (its
    // contract); glow passes GL only pointers into live Rust values of the sizes it
    // asks for.
    unsafe {
        let count = gl
            .get_program_parameter_i32(from, glow::TRANSFORM_FEEDBACK_VARYINGS)
            .max(0) as u32;
        if count == 0 {
            return;
        }
        let names: Vec<String> = (0..count)
            .filter_map(|i| gl.get_transform_feedback_varying(from, i))
            .map(|v| v.name)
            .collect();
        let mode = gl.get_program_parameter_i32(from, glow::TRANSFORM_FEEDBACK_BUFFER_MODE) as u32;
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        gl.transform_feedback_varyings(to, &refs, mode);
    }
}

/// What a uniform's type is made of, for reading and writing it generically.
#[derive(Clone, Copy, Debug, PartialEq)]
enum UniformKind {
    Float(usize),
    Mat(usize, usize),
    Int(usize),
    Uint(usize),
}

fn uniform_kind(t: u32) -> Option<UniformKind> {
    use UniformKind::*;
    Some(match t {
        glow::FLOAT => Float(1),
        glow::FLOAT_VEC2 => Float(2),
        glow::FLOAT_VEC3 => Float(3),
        glow::FLOAT_VEC4 => Float(4),
        glow::FLOAT_MAT2 => Mat(2, 2),
        glow::FLOAT_MAT3 => Mat(3, 3),
        glow::FLOAT_MAT4 => Mat(4, 4),
        glow::FLOAT_MAT2x3 => Mat(2, 3),
        glow::FLOAT_MAT2x4 => Mat(2, 4),
        glow::FLOAT_MAT3x2 => Mat(3, 2),
        glow::FLOAT_MAT3x4 => Mat(3, 4),
        glow::FLOAT_MAT4x2 => Mat(4, 2),
        glow::FLOAT_MAT4x3 => Mat(4, 3),
        glow::INT | glow::BOOL => Int(1),
        glow::INT_VEC2 | glow::BOOL_VEC2 => Int(2),
        glow::INT_VEC3 | glow::BOOL_VEC3 => Int(3),
        glow::INT_VEC4 | glow::BOOL_VEC4 => Int(4),
        glow::UNSIGNED_INT => Uint(1),
        glow::UNSIGNED_INT_VEC2 => Uint(2),
        glow::UNSIGNED_INT_VEC3 => Uint(3),
        glow::UNSIGNED_INT_VEC4 => Uint(4),
        // Samplers and images: their value is a texture/image unit.
        _ if is_opaque(t) => Int(1),
        _ => return None,
    })
}

/// Samplers and images: a uniform of such a type holds a unit.
fn is_opaque(t: u32) -> bool {
    is_sampler(t) || is_image(t)
}

/// Sampler types (float, shadow, integer and unsigned).
fn is_sampler(t: u32) -> bool {
    sampler_binding(t).is_some()
}

/// Copies every default-block uniform value (arrays element by element).
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn copy_uniforms(gl: &glow::Context, from: glow::Program, to: glow::Program) {
    // SAFETY: glow calls on the context this function's caller keeps current (its
    // contract); glow passes GL only pointers into live Rust values of the sizes it
    // asks for. Each `get_uniform_*` reads `n` values (the uniform's component count,
    // from its type) into a local of at least that many.
    unsafe {
        for (utype, names) in uniform_elements(gl, from) {
            let Some(kind) = uniform_kind(utype) else {
                continue;
            };
            for name in names {
                let (Some(src), Some(dst)) = (
                    gl.get_uniform_location(from, &name),
                    gl.get_uniform_location(to, &name),
                ) else {
                    continue;
                };
                match kind {
                    UniformKind::Float(n) => copy_f32(gl, (from, &src), (to, &dst), n),
                    UniformKind::Mat(c, r) => {
                        let mut v = [0f32; 16];
                        let n = c * r;
                        gl.get_uniform_f32(from, &src, &mut v[..n]);
                        let v = &v[..n];
                        let d = Some(&dst);
                        match (c, r) {
                            (2, 2) => gl.program_uniform_matrix_2_f32_slice(to, d, false, v),
                            (3, 3) => gl.program_uniform_matrix_3_f32_slice(to, d, false, v),
                            (4, 4) => gl.program_uniform_matrix_4_f32_slice(to, d, false, v),
                            (2, 3) => gl.program_uniform_matrix_2x3_f32_slice(to, d, false, v),
                            (2, 4) => gl.program_uniform_matrix_2x4_f32_slice(to, d, false, v),
                            (3, 2) => gl.program_uniform_matrix_3x2_f32_slice(to, d, false, v),
                            (3, 4) => gl.program_uniform_matrix_3x4_f32_slice(to, d, false, v),
                            (4, 2) => gl.program_uniform_matrix_4x2_f32_slice(to, d, false, v),
                            _ => gl.program_uniform_matrix_4x3_f32_slice(to, d, false, v),
                        }
                    }
                    UniformKind::Int(n) => copy_i32(gl, (from, &src), (to, &dst), n),
                    UniformKind::Uint(n) => copy_u32(gl, (from, &src), (to, &dst), n),
                }
            }
        }
    }
}

/// The type of every active default-block uniform of `program`, with the
/// names of its elements (`a[0]`, `a[1]`, ... for an array; its name
/// otherwise).
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn uniform_elements(gl: &glow::Context, program: glow::Program) -> Vec<(u32, Vec<String>)> {
    let mut out = Vec::new();
    // SAFETY: a current context (this function's contract).
    for i in 0..unsafe { active(gl, program, glow::ACTIVE_UNIFORMS) } {
        // SAFETY: as above; `i` is below the active uniform count.
        let Some(u) = (unsafe { gl.get_active_uniform(program, i) }) else {
            continue;
        };
        let base = u.name.strip_suffix("[0]").unwrap_or(&u.name).to_string();
        let elements = u.size.max(1) as usize;
        let names = (0..elements)
            .map(|k| {
                if elements > 1 || u.name.ends_with("[0]") {
                    format!("{base}[{k}]")
                } else {
                    base.clone()
                }
            })
            .collect();
        out.push((u.utype, names));
    }
    out
}

/// How many active uniforms / uniform blocks / ... (`pname`) `program` has.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn active(gl: &glow::Context, program: glow::Program, pname: u32) -> u32 {
    // SAFETY: a current context (this function's contract).
    unsafe { gl.get_program_parameter_i32(program, pname).max(0) as u32 }
}

/// The copy of one vector uniform value (`n` components) for one component
/// type: they differ only in the glow functions they call.
macro_rules! copy_vector {
    ($name:ident, $t:ty, $get:ident, $one:ident, $two:ident, $three:ident, $four:ident) => {
        /// Copies the `n`-component value at `src` of one program to `dst` of another.
        ///
        /// # Safety
        /// A GL context must be current on this thread; the locations belong to
        /// the programs; `n` is 1 to 4, the uniform's component count.
        unsafe fn $name(
            gl: &glow::Context,
            (from, src): (glow::Program, &glow::UniformLocation),
            (to, dst): (glow::Program, &glow::UniformLocation),
            n: usize,
        ) {
            let mut v = [<$t>::default(); 4];
            let d = Some(dst);
            // SAFETY: this function's contract; `get` reads `n` values into `v`,
            // which has room for 4.
            unsafe {
                gl.$get(from, src, &mut v[..n]);
                match n {
                    1 => gl.$one(to, d, &v[..1]),
                    2 => gl.$two(to, d, &v[..2]),
                    3 => gl.$three(to, d, &v[..3]),
                    _ => gl.$four(to, d, &v[..4]),
                }
            }
        }
    };
}

copy_vector!(
    copy_f32,
    f32,
    get_uniform_f32,
    program_uniform_1_f32_slice,
    program_uniform_2_f32_slice,
    program_uniform_3_f32_slice,
    program_uniform_4_f32_slice
);
copy_vector!(
    copy_i32,
    i32,
    get_uniform_i32,
    program_uniform_1_i32_slice,
    program_uniform_2_i32_slice,
    program_uniform_3_i32_slice,
    program_uniform_4_i32_slice
);
copy_vector!(
    copy_u32,
    u32,
    get_uniform_u32,
    program_uniform_1_u32_slice,
    program_uniform_2_u32_slice,
    program_uniform_3_u32_slice,
    program_uniform_4_u32_slice
);

/// Gives uniform blocks and storage blocks of `to` the bindings they have in `from`.
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn copy_block_bindings(gl: &glow::Context, from: glow::Program, to: glow::Program) {
    // SAFETY: glow calls on the context this function's caller keeps current (its
    // contract); glow passes GL only pointers into live Rust values of the sizes it
    // asks for.
    unsafe {
        for i in 0..active(gl, from, glow::ACTIVE_UNIFORM_BLOCKS) {
            let name = gl.get_active_uniform_block_name(from, i);
            let binding =
                gl.get_active_uniform_block_parameter_i32(from, i, glow::UNIFORM_BLOCK_BINDING);
            if let Some(j) = gl.get_uniform_block_index(to, &name) {
                gl.uniform_block_binding(to, j, binding.max(0) as u32);
            }
        }
        for (name, binding) in storage_blocks(gl, from) {
            if let Some(j) = gl.get_shader_storage_block_index(to, &name) {
                gl.shader_storage_block_binding(to, j, binding);
            }
        }
    }
}

/// The number of active resources of a program interface.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn resource_count(program: glow::Program, interface: u32) -> u32 {
    // SAFETY: glGetProgramInterfaceiv on the context this function's caller keeps
    // current, with a live GLint for its single value.
    unsafe {
        let mut n = 0i32;
        crate::real::glGetProgramInterfaceiv(
            program.0.get(),
            interface,
            glow::ACTIVE_RESOURCES,
            &mut n,
        );
        n.max(0) as u32
    }
}

/// The name of resource `i` of a program interface.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn resource_name(program: glow::Program, interface: u32, i: u32) -> String {
    // SAFETY: glGetProgramResourceName on the context this function's caller keeps
    // current: it writes at most `buf.len()` bytes (the size passed) into `buf` and
    // the length into `len`, both live locals.
    unsafe {
        let mut buf = [0u8; 256];
        let mut len = 0i32;
        crate::real::glGetProgramResourceName(
            program.0.get(),
            interface,
            i,
            buf.len() as i32,
            &mut len,
            buf.as_mut_ptr().cast(),
        );
        String::from_utf8_lossy(&buf[..len.clamp(0, 255) as usize]).into_owned()
    }
}

/// Names of a program's fragment outputs (user-declared ones).
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn fragment_outputs(_gl: &glow::Context, program: glow::Program) -> Vec<String> {
    // SAFETY: the resource queries need a current context, which this function's
    // caller guarantees.
    unsafe {
        (0..resource_count(program, glow::PROGRAM_OUTPUT))
            .map(|i| resource_name(program, glow::PROGRAM_OUTPUT, i))
            .filter(|n| !n.starts_with("gl_"))
            .map(|n| n.strip_suffix("[0]").map(str::to_string).unwrap_or(n))
            .collect()
    }
}

/// One property of resource `i` of a program interface
/// (`glGetProgramResourceiv`). Called directly: glow's
/// `get_program_resource_i32` asks for the length with a zero-sized buffer,
/// which GL answers with 0, so it always returns nothing.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn resource_property(
    program: glow::Program,
    interface: u32,
    i: u32,
    property: u32,
) -> Option<i32> {
    // SAFETY: `p` is not null and the slot holds only the real glGetProgramResourceiv,
    // of type `GetProgramResourceiv`; it reads one property from `&property` (count 1)
    // and writes at most one value (buffer size 1) to `value` and the count to `len`,
    // all live locals, on the context this function's caller keeps current.
    unsafe {
        type GetProgramResourceiv =
            unsafe extern "C" fn(u32, u32, u32, i32, *const u32, i32, *mut i32, *mut i32);
        static REAL: crate::resolve::RealFn = crate::resolve::RealFn::gl(c"glGetProgramResourceiv");
        let p = REAL.get();
        if p.is_null() {
            return None;
        }
        let f = std::mem::transmute::<*mut std::ffi::c_void, GetProgramResourceiv>(p);
        let (mut value, mut len) = (0i32, 0i32);
        f(
            program.0.get(),
            interface,
            i,
            1,
            &property,
            1,
            &mut len,
            &mut value,
        );
        (len == 1).then_some(value)
    }
}

/// Names and bindings of a program's shader storage blocks.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn storage_blocks(_gl: &glow::Context, program: glow::Program) -> Vec<(String, u32)> {
    // SAFETY: the resource queries need a current context, which this function's
    // caller guarantees.
    unsafe {
        (0..resource_count(program, glow::SHADER_STORAGE_BLOCK))
            .filter_map(|i| {
                let name = resource_name(program, glow::SHADER_STORAGE_BLOCK, i);
                let binding = resource_property(
                    program,
                    glow::SHADER_STORAGE_BLOCK,
                    i,
                    glow::BUFFER_BINDING,
                )?;
                Some((name, binding.max(0) as u32))
            })
            .collect()
    }
}

/// Words of the storage ranges bound to `program`'s storage blocks (the
/// debug buffer's `skip` binding left out), each block counted at least at
/// its own size (`GL_BUFFER_DATA_SIZE`, the fixed part of a block bound to
/// a smaller range): one storage race shadow slot per word is enough for
/// every element the blocks' members have (`shaderdbg_core::layout`).
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn bound_storage_words(gl: &glow::Context, program: glow::Program, skip: u32) -> u64 {
    // SAFETY: resource and indexed state queries on the context the caller
    // keeps current; the copy-read binding changed to ask a buffer's size is
    // put back.
    unsafe {
        let mut words = 0u64;
        let read = gl.get_parameter_i32(glow::COPY_READ_BUFFER_BINDING);
        let mut rebind = false;
        for i in 0..resource_count(program, glow::SHADER_STORAGE_BLOCK) {
            let property = |p| resource_property(program, glow::SHADER_STORAGE_BLOCK, i, p);
            let Some(binding) = property(glow::BUFFER_BINDING).map(|b| b.max(0) as u32) else {
                continue;
            };
            if binding == skip {
                continue;
            }
            let own = property(glow::BUFFER_DATA_SIZE).unwrap_or(0).max(0) as u64;
            let mut size = 0u64;
            if let Some(buffer) = native_buffer(
                gl.get_parameter_indexed_i32(glow::SHADER_STORAGE_BUFFER_BINDING, binding),
            ) {
                let start = gl
                    .get_parameter_indexed_i64(glow::SHADER_STORAGE_BUFFER_START, binding)
                    .max(0) as u64;
                let bound = gl
                    .get_parameter_indexed_i64(glow::SHADER_STORAGE_BUFFER_SIZE, binding)
                    .max(0) as u64;
                size = if bound > 0 {
                    bound
                } else {
                    // Bound with glBindBufferBase: the whole buffer.
                    rebind = true;
                    gl.bind_buffer(glow::COPY_READ_BUFFER, Some(buffer));
                    let total =
                        gl.get_buffer_parameter_i32(glow::COPY_READ_BUFFER, glow::BUFFER_SIZE);
                    (total.max(0) as u64).saturating_sub(start)
                };
            }
            words = words.saturating_add(size.max(own).div_ceil(4));
        }
        if rebind {
            gl.bind_buffer(glow::COPY_READ_BUFFER, native_buffer(read));
        }
        words
    }
}

/// Bindings of a program's atomic counter buffers.
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn atomic_counter_bindings(program: glow::Program) -> Vec<u32> {
    // SAFETY: the resource queries need a current context, which this function's
    // caller guarantees.
    unsafe {
        (0..resource_count(program, glow::ATOMIC_COUNTER_BUFFER))
            .filter_map(|i| {
                resource_property(
                    program,
                    glow::ATOMIC_COUNTER_BUFFER,
                    i,
                    glow::BUFFER_BINDING,
                )
            })
            .map(|b| b.max(0) as u32)
            .collect()
    }
}

/// One buffer range a debug draw could write, and the scratch copy of it.
struct SavedRange {
    buffer: glow::Buffer,
    offset: i32,
    size: i32,
    scratch: glow::Buffer,
}

/// The contents of every buffer range bound to the storage-buffer and
/// atomic-counter bindings a program uses: a debug draw runs the program's
/// shaders once more, and whatever they write (`buffer` blocks, atomic
/// counters) must be as it was when the original draw runs. Only the bound
/// ranges are copied (`glCopyBufferSubData` into scratch buffers, GPU-side).
pub struct SavedBuffers {
    ranges: Vec<SavedRange>,
}

impl SavedBuffers {
    /// Copies the ranges bound to the storage blocks (except the debug
    /// buffer's `skip` binding) and atomic counter buffers of `program`.
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn save(gl: &glow::Context, program: glow::Program, skip: u32) -> SavedBuffers {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. Copies go only into scratch buffers created here, within the bound
        // ranges clamped to the buffer's size; the copy bindings changed here are the
        // caller's to restore (`SavedState`).
        unsafe {
            let mut bound: Vec<(glow::Buffer, i64, i64)> = Vec::new();
            let mut add = |binding_pname: u32, start_pname: u32, size_pname: u32, index: u32| {
                let Some(buffer) =
                    native_buffer(gl.get_parameter_indexed_i32(binding_pname, index))
                else {
                    return;
                };
                let start = gl.get_parameter_indexed_i64(start_pname, index);
                let size = gl.get_parameter_indexed_i64(size_pname, index);
                if !bound.contains(&(buffer, start, size)) {
                    bound.push((buffer, start, size));
                }
            };
            for (_, b) in storage_blocks(gl, program) {
                if b != skip {
                    add(
                        glow::SHADER_STORAGE_BUFFER_BINDING,
                        glow::SHADER_STORAGE_BUFFER_START,
                        glow::SHADER_STORAGE_BUFFER_SIZE,
                        b,
                    );
                }
            }
            for b in atomic_counter_bindings(program) {
                add(
                    glow::ATOMIC_COUNTER_BUFFER_BINDING,
                    glow::ATOMIC_COUNTER_BUFFER_START,
                    glow::ATOMIC_COUNTER_BUFFER_SIZE,
                    b,
                );
            }
            let mut saved = SavedBuffers { ranges: Vec::new() };
            if bound.is_empty() {
                return saved;
            }
            // Shader writes the application made before this draw must be visible
            // to the copies (its own barrier may only cover shader reads).
            gl.memory_barrier(glow::BUFFER_UPDATE_BARRIER_BIT);
            for (buffer, start, size) in bound {
                gl.bind_buffer(glow::COPY_READ_BUFFER, Some(buffer));
                let total = i64::from(
                    gl.get_buffer_parameter_i32(glow::COPY_READ_BUFFER, glow::BUFFER_SIZE),
                );
                // Size 0: bound with glBindBufferBase, the whole buffer.
                let end = if size > 0 {
                    (start + size).min(total)
                } else {
                    total
                };
                let (offset, size) = (start.clamp(0, total), end - start.clamp(0, total));
                if size <= 0 {
                    continue;
                }
                let Ok(scratch) = gl.create_buffer() else {
                    tracing::warn!(
                        "no scratch buffer: storage the debug draw writes is not restored"
                    );
                    continue;
                };
                gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(scratch));
                gl.buffer_data_size(glow::COPY_WRITE_BUFFER, size as i32, glow::STREAM_COPY);
                gl.copy_buffer_sub_data(
                    glow::COPY_READ_BUFFER,
                    glow::COPY_WRITE_BUFFER,
                    offset as i32,
                    0,
                    size as i32,
                );
                saved.ranges.push(SavedRange {
                    buffer,
                    offset: offset as i32,
                    size: size as i32,
                    scratch,
                });
            }
            saved
        }
    }

    /// Copies the saved contents back and frees the scratch buffers. The
    /// debug draw's shader writes must be made visible first
    /// (`GL_BUFFER_UPDATE_BARRIER_BIT`).
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn restore(self, gl: &glow::Context) {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. Each scratch buffer holds exactly `r.size` bytes copied from
        // `r.offset` of `r.buffer` by `save`.
        unsafe {
            for r in self.ranges.into_iter().rev() {
                gl.bind_buffer(glow::COPY_READ_BUFFER, Some(r.scratch));
                gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(r.buffer));
                gl.copy_buffer_sub_data(
                    glow::COPY_READ_BUFFER,
                    glow::COPY_WRITE_BUFFER,
                    0,
                    r.offset,
                    r.size,
                );
                gl.delete_buffer(r.scratch);
            }
        }
    }
}

fn is_image(t: u32) -> bool {
    matches!(
        t,
        glow::IMAGE_1D
            | glow::IMAGE_2D
            | glow::IMAGE_3D
            | glow::IMAGE_2D_RECT
            | glow::IMAGE_CUBE
            | glow::IMAGE_BUFFER
            | glow::IMAGE_1D_ARRAY
            | glow::IMAGE_2D_ARRAY
            | glow::IMAGE_CUBE_MAP_ARRAY
            | glow::IMAGE_2D_MULTISAMPLE
            | glow::IMAGE_2D_MULTISAMPLE_ARRAY
            | glow::INT_IMAGE_1D
            | glow::INT_IMAGE_2D
            | glow::INT_IMAGE_3D
            | glow::INT_IMAGE_2D_RECT
            | glow::INT_IMAGE_CUBE
            | glow::INT_IMAGE_BUFFER
            | glow::INT_IMAGE_1D_ARRAY
            | glow::INT_IMAGE_2D_ARRAY
            | glow::INT_IMAGE_CUBE_MAP_ARRAY
            | glow::INT_IMAGE_2D_MULTISAMPLE
            | glow::INT_IMAGE_2D_MULTISAMPLE_ARRAY
            | glow::UNSIGNED_INT_IMAGE_1D
            | glow::UNSIGNED_INT_IMAGE_2D
            | glow::UNSIGNED_INT_IMAGE_3D
            | glow::UNSIGNED_INT_IMAGE_2D_RECT
            | glow::UNSIGNED_INT_IMAGE_CUBE
            | glow::UNSIGNED_INT_IMAGE_BUFFER
            | glow::UNSIGNED_INT_IMAGE_1D_ARRAY
            | glow::UNSIGNED_INT_IMAGE_2D_ARRAY
            | glow::UNSIGNED_INT_IMAGE_CUBE_MAP_ARRAY
            | glow::UNSIGNED_INT_IMAGE_2D_MULTISAMPLE
            | glow::UNSIGNED_INT_IMAGE_2D_MULTISAMPLE_ARRAY
    )
}

/// The image units `program`'s image uniforms refer to (arrays element by element).
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn image_units(gl: &glow::Context, program: glow::Program) -> Vec<u32> {
    // SAFETY: glow calls on the context this function's caller keeps current (its
    // contract); glow passes GL only pointers into live Rust values of the sizes it
    // asks for. `get_uniform_i32` reads one value (an image uniform is one int) into
    // `v`.
    unsafe {
        let mut units = Vec::new();
        for (utype, names) in uniform_elements(gl, program) {
            if !is_image(utype) {
                continue;
            }
            for name in names {
                if let Some(loc) = gl.get_uniform_location(program, &name) {
                    let mut v = [0i32; 1];
                    gl.get_uniform_i32(program, &loc, &mut v);
                    let unit = v[0].max(0) as u32;
                    if !units.contains(&unit) {
                        units.push(unit);
                    }
                }
            }
        }
        units
    }
}

/// `glGetTextureParameteriv` / `glGetTextureLevelParameteriv` (GL 4.5).
///
/// # Safety
/// A GL context must be current on this thread.
unsafe fn texture_parameter(texture: u32, level: Option<i32>, pname: u32) -> Option<i32> {
    // SAFETY: each pointer is checked not null and its slot holds only the real
    // function of its name, transmuted to that function's C signature; both write one
    // GLint to `v`, a live local, on the context this function's caller keeps current.
    unsafe {
        type GetTexParameter = unsafe extern "C" fn(u32, u32, *mut i32);
        type GetTexLevelParameter = unsafe extern "C" fn(u32, i32, u32, *mut i32);
        static PARAM: crate::resolve::RealFn =
            crate::resolve::RealFn::gl(c"glGetTextureParameteriv");
        static LEVEL: crate::resolve::RealFn =
            crate::resolve::RealFn::gl(c"glGetTextureLevelParameteriv");
        let mut v = 0i32;
        match level {
            None => {
                let p = PARAM.get();
                if p.is_null() {
                    return None;
                }
                std::mem::transmute::<*mut std::ffi::c_void, GetTexParameter>(p)(
                    texture, pname, &mut v,
                );
            }
            Some(level) => {
                let p = LEVEL.get();
                if p.is_null() {
                    return None;
                }
                std::mem::transmute::<*mut std::ffi::c_void, GetTexLevelParameter>(p)(
                    texture, level, pname, &mut v,
                );
            }
        }
        Some(v)
    }
}

/// One texture level a debug draw could write through an image unit, and
/// the private copy of it.
struct SavedLevel {
    texture: glow::Texture,
    target: u32,
    level: i32,
    size: [i32; 3],
    copy: glow::Texture,
}

/// The contents of the texture levels bound to the image units a program
/// can write (`imageStore`, `imageAtomic*`): a debug draw runs the shaders
/// once more, and the application's images must be as they were when the
/// original draw runs. The whole bound level (every layer) is copied to a
/// private texture with `glCopyImageSubData` and back. Units bound
/// read-only are skipped.
pub struct SavedImages {
    levels: Vec<SavedLevel>,
}

impl SavedImages {
    /// Copies every texture level bound to an image unit `program` can
    /// write (`Err`, with nothing left allocated, when one cannot be).
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn save(
        gl: &glow::Context,
        program: glow::Program,
    ) -> Result<SavedImages, DebugDrawError> {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. `save_level` and `discard` need the same current context.
        unsafe {
            let mut saved = SavedImages { levels: Vec::new() };
            let mut bound: Vec<(u32, i32)> = Vec::new();
            for unit in image_units(gl, program) {
                let name = gl
                    .get_parameter_indexed_i32(glow::IMAGE_BINDING_NAME, unit)
                    .max(0) as u32;
                let access = gl.get_parameter_indexed_i32(glow::IMAGE_BINDING_ACCESS, unit) as u32;
                if name == 0 || access == glow::READ_ONLY {
                    continue;
                }
                let level = gl.get_parameter_indexed_i32(glow::IMAGE_BINDING_LEVEL, unit);
                if !bound.contains(&(name, level)) {
                    bound.push((name, level));
                }
            }
            if bound.is_empty() {
                return Ok(saved);
            }
            // The application's earlier image writes must be visible to the copies.
            gl.memory_barrier(
                glow::SHADER_IMAGE_ACCESS_BARRIER_BIT | glow::TEXTURE_UPDATE_BARRIER_BIT,
            );
            for (name, level) in bound {
                match Self::save_level(gl, name, level) {
                    Ok(l) => saved.levels.push(l),
                    Err(e) => {
                        saved.discard(gl);
                        return Err(DebugDrawError::Image {
                            texture: name,
                            level,
                            reason: e,
                        });
                    }
                }
            }
            Ok(saved)
        }
    }

    /// Copies level `level` of texture `name` into a new private texture.
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    unsafe fn save_level(
        gl: &glow::Context,
        name: u32,
        level: i32,
    ) -> Result<SavedLevel, ImageError> {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. `copy` is created here with the target, format and size of the level
        // it receives, so the copy stays inside both textures.
        unsafe {
            let texture = std::num::NonZeroU32::new(name)
                .map(glow::NativeTexture)
                .ok_or(ImageError::NoTexture)?;
            let target = texture_parameter(name, None, glow::TEXTURE_TARGET)
                .ok_or(ImageError::NoTextureQuery)? as u32;
            let param = |p| texture_parameter(name, Some(level), p).unwrap_or(0);
            let (w, h, d) = (
                param(glow::TEXTURE_WIDTH),
                param(glow::TEXTURE_HEIGHT),
                param(glow::TEXTURE_DEPTH),
            );
            let format = param(glow::TEXTURE_INTERNAL_FORMAT) as u32;
            if w <= 0 || h <= 0 {
                return Err(ImageError::LevelSize(w, h));
            }
            let size = match target {
                glow::TEXTURE_2D | glow::TEXTURE_RECTANGLE | glow::TEXTURE_1D_ARRAY => [w, h, 1],
                glow::TEXTURE_CUBE_MAP => [w, h, 6],
                glow::TEXTURE_2D_ARRAY | glow::TEXTURE_3D | glow::TEXTURE_CUBE_MAP_ARRAY => {
                    [w, h, d.max(1)]
                }
                other => return Err(ImageError::Target(other)),
            };
            let copy = gl
                .create_named_texture(target)
                .map_err(ImageError::Create)?;
            if matches!(
                target,
                glow::TEXTURE_2D_ARRAY | glow::TEXTURE_3D | glow::TEXTURE_CUBE_MAP_ARRAY
            ) {
                gl.texture_storage_3d(copy, 1, format, size[0], size[1], size[2]);
            } else {
                gl.texture_storage_2d(copy, 1, format, size[0], size[1]);
            }
            gl.copy_image_sub_data(
                texture, target, level, 0, 0, 0, copy, target, 0, 0, 0, 0, size[0], size[1],
                size[2],
            );
            Ok(SavedLevel {
                texture,
                target,
                level,
                size,
                copy,
            })
        }
    }

    /// Frees the copies without putting them back.
    ///
    /// # Safety
    /// A GL context must be current on this thread (the one `save` ran on).
    unsafe fn discard(&mut self, gl: &glow::Context) {
        // SAFETY: glow calls on the context this function's caller keeps current; the
        // copies are textures this struct created and nothing else uses.
        unsafe {
            for l in self.levels.drain(..) {
                gl.delete_texture(l.copy);
            }
        }
    }

    /// Copies the saved levels back and frees the copies. The debug draw's
    /// image writes must be made visible first
    /// (`GL_SHADER_IMAGE_ACCESS_BARRIER_BIT`).
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn restore(mut self, gl: &glow::Context) {
        // SAFETY: glow calls on the context this function's caller keeps current; each
        // copy has the size, target and format `save_level` gave it from the level it goes
        // back to.
        unsafe {
            for l in self.levels.iter().rev() {
                gl.copy_image_sub_data(
                    l.copy, l.target, 0, 0, 0, 0, l.texture, l.target, l.level, 0, 0, 0, l.size[0],
                    l.size[1], l.size[2],
                );
            }
            self.discard(gl);
        }
    }
}

/// Whether `program` can write anything but the framebuffer and
/// transform feedback: it has storage blocks (read-only ones included: GL
/// does not say which are), atomic counter buffers, or image uniforms on
/// units bound for writing.
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn writes_storage(gl: &glow::Context, program: glow::Program) -> bool {
    // SAFETY: resource and binding queries on the context this function's caller
    // keeps current.
    unsafe {
        resource_count(program, glow::SHADER_STORAGE_BLOCK) > 0
            || resource_count(program, glow::ATOMIC_COUNTER_BUFFER) > 0
            || image_units(gl, program).into_iter().any(|unit| {
                gl.get_parameter_indexed_i32(glow::IMAGE_BINDING_ACCESS, unit) as u32
                    != glow::READ_ONLY
            })
    }
}

/// Whether [`copy_uniforms`] copies every default-block uniform of
/// `program` (it copies float, int, uint and bool vectors and matrices,
/// samplers and images; not doubles or 64-bit integers).
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn copies_every_uniform(gl: &glow::Context, program: glow::Program) -> bool {
    // SAFETY: uniform queries on the context this function's caller keeps current.
    unsafe {
        uniform_elements(gl, program)
            .iter()
            .all(|(t, _)| uniform_kind(*t).is_some())
    }
}

/// Whether `program` has subroutine uniforms in any stage (their values
/// are context state that `glUseProgram` resets).
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn has_subroutines(gl: &glow::Context, program: glow::Program) -> bool {
    // SAFETY: glGetProgramStageiv on the context this function's caller keeps current,
    // with a live GLint for its single value; only where GL 4.0 has it.
    unsafe {
        let v = gl.version();
        if v.is_embedded || (v.major, v.minor) < (4, 0) {
            return false;
        }
        [
            glow::VERTEX_SHADER,
            glow::TESS_CONTROL_SHADER,
            glow::TESS_EVALUATION_SHADER,
            glow::GEOMETRY_SHADER,
            glow::FRAGMENT_SHADER,
        ]
        .into_iter()
        .any(|stage| {
            let mut n = 0i32;
            crate::real::glGetProgramStageiv(
                program.0.get(),
                stage,
                glow::ACTIVE_SUBROUTINE_UNIFORMS,
                &mut n,
            );
            n > 0
        })
    }
}

/// The texture binding query of each sampler target, with the sampler
/// types of that target (float, shadow where there is one, integer,
/// unsigned).
const SAMPLER_BINDINGS: [(u32, &[u32]); 11] = [
    (
        glow::TEXTURE_BINDING_1D,
        &[
            glow::SAMPLER_1D,
            glow::SAMPLER_1D_SHADOW,
            glow::INT_SAMPLER_1D,
            glow::UNSIGNED_INT_SAMPLER_1D,
        ],
    ),
    (
        glow::TEXTURE_BINDING_2D,
        &[
            glow::SAMPLER_2D,
            glow::SAMPLER_2D_SHADOW,
            glow::INT_SAMPLER_2D,
            glow::UNSIGNED_INT_SAMPLER_2D,
        ],
    ),
    (
        glow::TEXTURE_BINDING_3D,
        &[
            glow::SAMPLER_3D,
            glow::INT_SAMPLER_3D,
            glow::UNSIGNED_INT_SAMPLER_3D,
        ],
    ),
    (
        glow::TEXTURE_BINDING_CUBE_MAP,
        &[
            glow::SAMPLER_CUBE,
            glow::SAMPLER_CUBE_SHADOW,
            glow::INT_SAMPLER_CUBE,
            glow::UNSIGNED_INT_SAMPLER_CUBE,
        ],
    ),
    (
        glow::TEXTURE_BINDING_1D_ARRAY,
        &[
            glow::SAMPLER_1D_ARRAY,
            glow::SAMPLER_1D_ARRAY_SHADOW,
            glow::INT_SAMPLER_1D_ARRAY,
            glow::UNSIGNED_INT_SAMPLER_1D_ARRAY,
        ],
    ),
    (
        glow::TEXTURE_BINDING_2D_ARRAY,
        &[
            glow::SAMPLER_2D_ARRAY,
            glow::SAMPLER_2D_ARRAY_SHADOW,
            glow::INT_SAMPLER_2D_ARRAY,
            glow::UNSIGNED_INT_SAMPLER_2D_ARRAY,
        ],
    ),
    (
        glow::TEXTURE_BINDING_2D_MULTISAMPLE,
        &[
            glow::SAMPLER_2D_MULTISAMPLE,
            glow::INT_SAMPLER_2D_MULTISAMPLE,
            glow::UNSIGNED_INT_SAMPLER_2D_MULTISAMPLE,
        ],
    ),
    (
        glow::TEXTURE_BINDING_2D_MULTISAMPLE_ARRAY,
        &[
            glow::SAMPLER_2D_MULTISAMPLE_ARRAY,
            glow::INT_SAMPLER_2D_MULTISAMPLE_ARRAY,
            glow::UNSIGNED_INT_SAMPLER_2D_MULTISAMPLE_ARRAY,
        ],
    ),
    (
        glow::TEXTURE_BINDING_BUFFER,
        &[
            glow::SAMPLER_BUFFER,
            glow::INT_SAMPLER_BUFFER,
            glow::UNSIGNED_INT_SAMPLER_BUFFER,
        ],
    ),
    (
        glow::TEXTURE_BINDING_RECTANGLE,
        &[
            glow::SAMPLER_2D_RECT,
            glow::SAMPLER_2D_RECT_SHADOW,
            glow::INT_SAMPLER_2D_RECT,
            glow::UNSIGNED_INT_SAMPLER_2D_RECT,
        ],
    ),
    (
        glow::TEXTURE_BINDING_CUBE_MAP_ARRAY,
        &[
            glow::SAMPLER_CUBE_MAP_ARRAY,
            glow::SAMPLER_CUBE_MAP_ARRAY_SHADOW,
            glow::INT_SAMPLER_CUBE_MAP_ARRAY,
            glow::UNSIGNED_INT_SAMPLER_CUBE_MAP_ARRAY,
        ],
    ),
];

/// The texture binding query of a sampler type's target (`None`: not a
/// sampler type).
fn sampler_binding(t: u32) -> Option<u32> {
    SAMPLER_BINDINGS
        .iter()
        .find(|(_, types)| types.contains(&t))
        .map(|(binding, _)| *binding)
}

/// Whether `program` samples a texture attached to the framebuffer bound
/// for drawing (a feedback loop: a draw after it would read what it
/// wrote). The active texture unit is put back.
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn samples_render_target(gl: &glow::Context, program: glow::Program) -> bool {
    // SAFETY: glow calls on the context this function's caller keeps current (its
    // contract); glow passes GL only pointers into live Rust values of the sizes it
    // asks for; the active unit changed here is put back.
    unsafe {
        if gl.get_parameter_i32(glow::DRAW_FRAMEBUFFER_BINDING) == 0 {
            return false;
        }
        let colors = gl
            .get_parameter_i32(glow::MAX_COLOR_ATTACHMENTS)
            .clamp(1, 32) as u32;
        let attached: Vec<i32> = (0..colors)
            .map(|i| glow::COLOR_ATTACHMENT0 + i)
            .chain([glow::DEPTH_ATTACHMENT, glow::STENCIL_ATTACHMENT])
            .filter_map(|a| {
                let param =
                    |p| gl.get_framebuffer_attachment_parameter_i32(glow::DRAW_FRAMEBUFFER, a, p);
                (param(glow::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) as u32 == glow::TEXTURE)
                    .then(|| param(glow::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME))
            })
            .collect();
        if attached.is_empty() {
            return false;
        }
        let active = gl.get_parameter_i32(glow::ACTIVE_TEXTURE) as u32;
        let mut found = false;
        'uniforms: for (utype, names) in uniform_elements(gl, program) {
            let Some(binding) = sampler_binding(utype) else {
                continue;
            };
            for name in names {
                let Some(loc) = gl.get_uniform_location(program, &name) else {
                    continue;
                };
                let mut unit = [0i32; 1];
                gl.get_uniform_i32(program, &loc, &mut unit);
                gl.active_texture(glow::TEXTURE0 + unit[0].max(0) as u32);
                if attached.contains(&gl.get_parameter_i32(binding)) {
                    found = true;
                    break 'uniforms;
                }
            }
        }
        gl.active_texture(active);
        found
    }
}

/// A storage-buffer binding `program` does not use, for the debug buffer.
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn free_storage_binding(gl: &glow::Context, program: glow::Program) -> u32 {
    // SAFETY: glow calls on the context this function's caller keeps current (its
    // contract); glow passes GL only pointers into live Rust values of the sizes it
    // asks for.
    unsafe {
        let used: Vec<u32> = storage_blocks(gl, program)
            .into_iter()
            .map(|(_, b)| b)
            .collect();
        let max = gl
            .get_parameter_i32(glow::MAX_SHADER_STORAGE_BUFFER_BINDINGS)
            .max(1) as u32;
        (0..max)
            .rev()
            .find(|b| !used.contains(b))
            .unwrap_or(max - 1)
    }
}

/// The application's transform feedback, set aside for the agent's work at
/// a draw (building instrumented programs and debug draws): if capture is
/// active and running it is paused, and a private, inactive transform
/// feedback object is bound in its place (GL allows rebinding while the
/// active object is paused). So debug draws capture nothing and count in no
/// transform-feedback query, and `glTransformFeedbackVaryings` on an
/// instrumented program is legal (it is `GL_INVALID_OPERATION` while the
/// bound object is active, paused or not).
pub struct TransformFeedbackAside {
    /// The application's binding; `None` when nothing was set aside.
    binding: Option<i32>,
    paused_by_us: bool,
    private: Option<glow::TransformFeedback>,
}

impl TransformFeedbackAside {
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn set(gl: &glow::Context) -> TransformFeedbackAside {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. Pausing an active, unpaused transform feedback and binding another
        // object while it is paused are valid GL; `restore` undoes both.
        unsafe {
            let none = TransformFeedbackAside {
                binding: None,
                paused_by_us: false,
                private: None,
            };
            if !gl.get_parameter_bool(glow::TRANSFORM_FEEDBACK_ACTIVE) {
                return none;
            }
            let paused_by_us = !gl.get_parameter_bool(glow::TRANSFORM_FEEDBACK_PAUSED);
            if paused_by_us {
                gl.pause_transform_feedback();
            }
            let binding = gl.get_parameter_i32(glow::TRANSFORM_FEEDBACK_BINDING);
            let private = gl.create_transform_feedback().ok();
            if private.is_none() {
                tracing::warn!("no private transform feedback object: capture only paused");
            }
            gl.bind_transform_feedback(glow::TRANSFORM_FEEDBACK, private);
            TransformFeedbackAside {
                binding: Some(binding),
                paused_by_us,
                private,
            }
        }
    }

    /// Rebinds the application's object and resumes it if [`Self::set`]
    /// paused it. The application's program must be current again
    /// (resuming with another program is `GL_INVALID_OPERATION`, which
    /// would leave capture paused and the application's draw uncaptured).
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn restore(self, gl: &glow::Context) {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. The application's object is rebound before it is resumed, as `set`
        // found it.
        unsafe {
            let Some(binding) = self.binding else {
                return;
            };
            gl.bind_transform_feedback(
                glow::TRANSFORM_FEEDBACK,
                std::num::NonZeroU32::new(binding as u32).map(glow::NativeTransformFeedback),
            );
            if let Some(p) = self.private {
                gl.delete_transform_feedback(p);
            }
            if self.paused_by_us {
                gl.resume_transform_feedback();
            }
        }
    }
}

/// The occlusion query targets (one can be active at a time).
const OCCLUSION_TARGETS: [u32; 3] = [
    glow::SAMPLES_PASSED,
    glow::ANY_SAMPLES_PASSED,
    glow::ANY_SAMPLES_PASSED_CONSERVATIVE,
];

/// The query object active on `target` (`glGetQueryiv(GL_CURRENT_QUERY)`), 0 if none.
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn current_query(target: u32) -> u32 {
    // SAFETY: `p` is not null and the slot holds only the real glGetQueryiv, of type
    // `GetQueryiv`; it writes one GLint to `q`, a live local, on the context this
    // function's caller keeps current.
    unsafe {
        type GetQueryiv = unsafe extern "C" fn(u32, u32, *mut i32);
        static REAL: crate::resolve::RealFn = crate::resolve::RealFn::gl(c"glGetQueryiv");
        let p = REAL.get();
        if p.is_null() {
            return 0;
        }
        let f = std::mem::transmute::<*mut std::ffi::c_void, GetQueryiv>(p);
        let mut q = 0i32;
        f(target, glow::CURRENT_QUERY, &mut q);
        q.max(0) as u32
    }
}

/// While an occlusion query of the application is active, a debug draw must
/// add no samples to it. GL cannot pause queries, so the debug draw's
/// fragments are made to fail a late test: the draw goes to a private
/// framebuffer of the same size and sample count with only a
/// depth/stencil attachment, and the stencil test is `GL_NEVER`. The
/// instrumented shaders write the debug buffer (side effects) and have no
/// `early_fragment_tests`, so they still run for every fragment, before the
/// stencil test; viewport, scissor and every other rasterization state are
/// the application's, so `gl_FragCoord` and coverage are unchanged.
pub struct OcclusionAside {
    draw_framebuffer: i32,
    renderbuffer: i32,
    stencil_test: bool,
    /// (face, func, ref, value mask)
    stencil: [(u32, i32, i32, i32); 2],
    framebuffer: glow::Framebuffer,
    depth_stencil: glow::Renderbuffer,
}

impl OcclusionAside {
    /// Sets the draw aside if an occlusion query is active; `size` is the
    /// size of the application's draw framebuffer. `Ok(None)`: no query
    /// active.
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn set(
        gl: &glow::Context,
        size: impl FnOnce() -> Result<(i32, i32), ScreenshotError>,
    ) -> Result<Option<OcclusionAside>, DebugDrawError> {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. The renderbuffer and framebuffer are created here; every binding and
        // stencil state changed is captured first and put back by `restore` (also on the
        // incomplete-framebuffer path).
        unsafe {
            if OCCLUSION_TARGETS.iter().all(|t| current_query(*t) == 0) {
                return Ok(None);
            }
            let (width, height) = size()?;
            let samples = gl.get_parameter_i32(glow::SAMPLES).max(0);
            let draw_framebuffer = gl.get_parameter_i32(glow::DRAW_FRAMEBUFFER_BINDING);
            let renderbuffer = gl.get_parameter_i32(glow::RENDERBUFFER_BINDING);
            let depth_stencil = gl.create_renderbuffer().map_err(DebugDrawError::Create)?;
            let framebuffer = match gl.create_framebuffer() {
                Ok(f) => f,
                Err(e) => {
                    gl.delete_renderbuffer(depth_stencil);
                    return Err(DebugDrawError::Create(e));
                }
            };
            let face = |face: u32, func: u32, reference: u32, mask: u32| {
                (
                    face,
                    gl.get_parameter_i32(func),
                    gl.get_parameter_i32(reference),
                    gl.get_parameter_i32(mask),
                )
            };
            let aside = OcclusionAside {
                draw_framebuffer,
                renderbuffer,
                stencil_test: gl.is_enabled(glow::STENCIL_TEST),
                stencil: [
                    face(
                        glow::FRONT,
                        glow::STENCIL_FUNC,
                        glow::STENCIL_REF,
                        glow::STENCIL_VALUE_MASK,
                    ),
                    face(
                        glow::BACK,
                        glow::STENCIL_BACK_FUNC,
                        glow::STENCIL_BACK_REF,
                        glow::STENCIL_BACK_VALUE_MASK,
                    ),
                ],
                framebuffer,
                depth_stencil,
            };
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(depth_stencil));
            gl.renderbuffer_storage_multisample(
                glow::RENDERBUFFER,
                samples,
                glow::DEPTH24_STENCIL8,
                width,
                height,
            );
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(framebuffer));
            gl.framebuffer_renderbuffer(
                glow::DRAW_FRAMEBUFFER,
                glow::DEPTH_STENCIL_ATTACHMENT,
                glow::RENDERBUFFER,
                Some(depth_stencil),
            );
            let status = gl.check_framebuffer_status(glow::DRAW_FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                aside.restore(gl);
                return Err(DebugDrawError::IncompleteFramebuffer(status));
            }
            gl.enable(glow::STENCIL_TEST);
            gl.stencil_func(glow::NEVER, 0, 0);
            Ok(Some(aside))
        }
    }

    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn restore(self, gl: &glow::Context) {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. The framebuffer and renderbuffer deleted are the private ones `set`
        // created.
        unsafe {
            for (face, func, reference, mask) in self.stencil {
                gl.stencil_func_separate(face, func as u32, reference, mask as u32);
            }
            if self.stencil_test {
                gl.enable(glow::STENCIL_TEST);
            } else {
                gl.disable(glow::STENCIL_TEST);
            }
            gl.bind_framebuffer(
                glow::DRAW_FRAMEBUFFER,
                std::num::NonZeroU32::new(self.draw_framebuffer as u32)
                    .map(glow::NativeFramebuffer),
            );
            gl.bind_renderbuffer(
                glow::RENDERBUFFER,
                std::num::NonZeroU32::new(self.renderbuffer as u32).map(glow::NativeRenderbuffer),
            );
            gl.delete_framebuffer(self.framebuffer);
            gl.delete_renderbuffer(self.depth_stencil);
        }
    }
}

/// The GL state a debug draw changes, captured so it can be put back exactly.
pub struct SavedState {
    program: i32,
    color_mask: [bool; 4],
    depth_mask: bool,
    stencil_front: i32,
    stencil_back: i32,
    ssbo_generic: i32,
    copy_read: i32,
    copy_write: i32,
    ssbo_indexed: (i32, i64, i64),
    binding: u32,
}

impl SavedState {
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn save(gl: &glow::Context, binding: u32) -> SavedState {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for. `get_parameter_bool_array::<4>` gets the four booleans of
        // COLOR_WRITEMASK.
        unsafe {
            SavedState {
                program: gl.get_parameter_i32(glow::CURRENT_PROGRAM),
                color_mask: gl.get_parameter_bool_array::<4>(glow::COLOR_WRITEMASK),
                depth_mask: gl.get_parameter_bool(glow::DEPTH_WRITEMASK),
                stencil_front: gl.get_parameter_i32(glow::STENCIL_WRITEMASK),
                stencil_back: gl.get_parameter_i32(glow::STENCIL_BACK_WRITEMASK),
                ssbo_generic: gl.get_parameter_i32(glow::SHADER_STORAGE_BUFFER_BINDING),
                copy_read: gl.get_parameter_i32(glow::COPY_READ_BUFFER_BINDING),
                copy_write: gl.get_parameter_i32(glow::COPY_WRITE_BUFFER_BINDING),
                ssbo_indexed: (
                    gl.get_parameter_indexed_i32(glow::SHADER_STORAGE_BUFFER_BINDING, binding),
                    gl.get_parameter_indexed_i64(glow::SHADER_STORAGE_BUFFER_START, binding),
                    gl.get_parameter_indexed_i64(glow::SHADER_STORAGE_BUFFER_SIZE, binding),
                ),
                binding,
            }
        }
    }

    /// Masks every framebuffer write (transform feedback is set aside by
    /// the caller: [`TransformFeedbackAside`]).
    ///
    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn mask_writes(&self, gl: &glow::Context) {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for.
        unsafe {
            gl.color_mask(false, false, false, false);
            gl.depth_mask(false);
            gl.stencil_mask(0);
        }
    }

    /// # Safety
    /// A GL context must be current on this thread.
    pub unsafe fn restore(&self, gl: &glow::Context) {
        // SAFETY: glow calls on the context this function's caller keeps current (its
        // contract); glow passes GL only pointers into live Rust values of the sizes it
        // asks for.
        unsafe {
            let [r, g, b, a] = self.color_mask;
            gl.color_mask(r, g, b, a);
            gl.depth_mask(self.depth_mask);
            gl.stencil_mask_separate(glow::FRONT, self.stencil_front as u32);
            gl.stencil_mask_separate(glow::BACK, self.stencil_back as u32);
            gl.use_program(native_program(self.program));
            let (buf, start, size) = self.ssbo_indexed;
            match native_buffer(buf) {
                Some(b) if size > 0 => gl.bind_buffer_range(
                    glow::SHADER_STORAGE_BUFFER,
                    self.binding,
                    Some(b),
                    start as i32,
                    size as i32,
                ),
                b => gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, self.binding, b),
            }
            gl.bind_buffer(
                glow::SHADER_STORAGE_BUFFER,
                native_buffer(self.ssbo_generic),
            );
            gl.bind_buffer(glow::COPY_READ_BUFFER, native_buffer(self.copy_read));
            gl.bind_buffer(glow::COPY_WRITE_BUFFER, native_buffer(self.copy_write));
        }
    }
}

fn native_buffer(name: i32) -> Option<glow::Buffer> {
    std::num::NonZeroU32::new(name as u32).map(glow::NativeBuffer)
}

fn native_program(name: i32) -> Option<glow::Program> {
    std::num::NonZeroU32::new(name as u32).map(glow::NativeProgram)
}

/// Whose draw an instrumented draw is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// The agent's own: every write masked, and the contents of the storage
    /// and atomic counter buffers the program can write ([`SavedBuffers`])
    /// and of the images it can write ([`SavedImages`]) put back (an image
    /// that cannot be saved is an error, and nothing is drawn).
    Debug,
    /// The application's own call, with `program` *instead of* the
    /// application's: nothing is masked and nothing is saved, the draw's
    /// results are the application's (the one-pass hit test, see
    /// [`crate::stops`]). The caller makes sure the program writes no
    /// storage buffer, image or atomic counter (the draw writes only the
    /// framebuffer, as the original would) and that `program` computes the
    /// original's outputs.
    Application,
}

/// Runs `draw` once with `program` current and a debug buffer initialised
/// from `contents` bound at `binding`, as `pass` says; returns the buffer's
/// words afterwards (the part `readback` says). The state changed here is
/// restored, even when `draw` fails.
///
/// # Safety
/// A GL context must be current on this thread.
pub unsafe fn instrumented_draw(
    gl: &glow::Context,
    program: glow::Program,
    binding: u32,
    (contents, readback): (&[u8], Readback),
    draw: &mut dyn FnMut(),
    pass: Pass,
) -> Result<Vec<u32>, DebugDrawError> {
    // SAFETY: glow calls on the context this function's caller keeps current (its
    // contract); glow passes GL only pointers into live Rust values of the sizes it
    // asks for. The debug buffer is created here with `contents.len()` bytes and
    // mapped for reading over exactly that length, so a non-null `ptr` is valid for
    // `contents.len()` bytes until the unmap, and is copied out before it. The
    // caller's `draw` runs on the same context.
    unsafe {
        let zeroed = readback.zeroed_bytes();
        let len = i32::try_from(contents.len() + zeroed)
            .map_err(|_| DebugDrawError::TooLarge(contents.len() + zeroed))?;
        let saved = SavedState::save(gl, binding);
        // A hit buffer is kept for the context's next hit test (only the part
        // a draw used is put back to its initial contents afterwards):
        // uploading all of it at every draw cost as much as reading it.
        // A sanitize buffer too: allocating tens of megabytes of shadow at
        // every dispatch cost page faults on top of clearing it.
        let keep = matches!(
            readback,
            Readback::Hits | Readback::Header | Readback::Sanitize { .. }
        )
        .then(crate::state::current_context);
        let kept = keep.and_then(|ctx| take_kept(ctx, contents.len() + zeroed));
        let buffer = match kept {
            Some(b) => b,
            None => gl.create_buffer().map_err(DebugDrawError::Create)?,
        };
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(buffer));
        if zeroed > 0 {
            // Kept or not, a sanitize buffer starts fresh: its header, then
            // zeros.
            if kept.is_none() {
                gl.buffer_data_size(glow::SHADER_STORAGE_BUFFER, len, glow::DYNAMIC_READ);
            }
            gl.buffer_sub_data_u8_slice(glow::SHADER_STORAGE_BUFFER, 0, contents);
            zero_tail(gl, contents.len(), zeroed);
        } else if kept.is_none() {
            gl.buffer_data_u8_slice(glow::SHADER_STORAGE_BUFFER, contents, glow::DYNAMIC_READ);
        }
        gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, binding, Some(buffer));
        let mut put_back = None;
        if pass == Pass::Debug {
            let images = match SavedImages::save(gl, program) {
                Ok(i) => i,
                Err(e) => {
                    saved.restore(gl);
                    gl.delete_buffer(buffer);
                    return Err(e);
                }
            };
            let storage = SavedBuffers::save(gl, program, binding);
            saved.mask_writes(gl);
            put_back = Some((storage, images));
        }
        gl.use_program(Some(program));
        draw();
        gl.memory_barrier(
            glow::BUFFER_UPDATE_BARRIER_BIT
                | glow::SHADER_STORAGE_BARRIER_BIT
                | glow::SHADER_IMAGE_ACCESS_BARRIER_BIT
                | glow::TEXTURE_UPDATE_BARRIER_BIT,
        );
        if let Some((storage, images)) = put_back {
            storage.restore(gl);
            images.restore(gl);
        }
        // Mapping works on desktop GL and GLES alike (GLES has no glGetBufferSubData).
        gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(buffer));
        let total = (contents.len() + zeroed) / 4;
        let words = match read_words(gl, 0, total.min(HEADER_WORDS)) {
            Ok(header) => {
                let n = readback.words(&header, total);
                if n <= header.len() {
                    Ok(header)
                } else {
                    read_words(gl, 0, n)
                }
            }
            Err(e) => Err(e),
        };
        match (keep, &words) {
            (Some(ctx), Ok(w)) => {
                // A hit buffer goes back to its initial contents where the
                // draw wrote (the header and the records it counted; it
                // writes nowhere else); a sanitize buffer is reset at its
                // next use.
                if zeroed == 0 {
                    let used = readback.words(w, total).max(HEADER_WORDS.min(total)) * 4;
                    gl.buffer_sub_data_u8_slice(glow::SHADER_STORAGE_BUFFER, 0, &contents[..used]);
                }
                put_kept(gl, ctx, buffer, contents.len() + zeroed);
            }
            _ => gl.delete_buffer(buffer),
        }
        saved.restore(gl);
        words
    }
}

/// Zeroes `len` bytes at `offset` of the buffer bound to
/// `GL_SHADER_STORAGE_BUFFER` (multiples of 4): with `glClearBufferSubData`
/// where the context has it (desktop GL 4.3), else by uploading zeros a
/// mebibyte at a time. Uploading a CPU-zeroed shadow of megabytes at every
/// sanitized dispatch cost as much as the dispatch.
///
/// # Safety
/// A GL context must be current on this thread, with a buffer of at least
/// `offset + len` bytes bound there.
unsafe fn zero_tail(gl: &glow::Context, offset: usize, len: usize) {
    // SAFETY: GL calls on the current context (the caller's contract), on
    // the bound buffer within its size; `glClearBufferSubData` with a null
    // `data` fills with zeros and reads no memory of ours.
    unsafe {
        let v = gl.version();
        let clear = !v.is_embedded
            && (v.major, v.minor) >= (4, 3)
            && !crate::gl::slots::glClearBufferSubData.get().is_null();
        if clear {
            crate::real::glClearBufferSubData(
                glow::SHADER_STORAGE_BUFFER,
                glow::R32UI,
                offset as isize,
                len as isize,
                glow::RED_INTEGER,
                glow::UNSIGNED_INT,
                std::ptr::null(),
            );
            return;
        }
        const CHUNK: usize = 1 << 20;
        let zeros = vec![0u8; CHUNK.min(len)];
        let mut at = 0;
        while at < len {
            let n = CHUNK.min(len - at);
            gl.buffer_sub_data_u8_slice(
                glow::SHADER_STORAGE_BUFFER,
                (offset + at) as i32,
                &zeros[..n],
            );
            at += n;
        }
    }
}

/// A hit buffer kept per context between hit tests: (buffer, bytes).
type Kept = (glow::Buffer, usize);

static KEPT: std::sync::Mutex<Vec<(crate::state::ContextKey, Kept)>> =
    std::sync::Mutex::new(Vec::new());

/// The hit buffer kept for `ctx`, if it has `len` bytes (taken: a thread
/// stopped in a draw and another drawing in the same context cannot share
/// it).
fn take_kept(ctx: crate::state::ContextKey, len: usize) -> Option<glow::Buffer> {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let i = kept.iter().position(|(c, (_, l))| *c == ctx && *l == len)?;
    Some(kept.swap_remove(i).1 .0)
}

/// Keeps `buffer` (`len` bytes, back to its initial contents) for `ctx`'s
/// next hit test; one per context.
///
/// # Safety
/// `ctx` is current on this thread and `buffer` is the agent's, in it.
unsafe fn put_kept(
    gl: &glow::Context,
    ctx: crate::state::ContextKey,
    buffer: glow::Buffer,
    len: usize,
) {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = kept.iter().position(|(c, _)| *c == ctx) {
        let (_, (old, _)) = kept.swap_remove(i);
        // SAFETY: an agent buffer of this context (the caller's contract).
        unsafe { gl.delete_buffer(old) };
    }
    kept.push((ctx, (buffer, len)));
}

/// `ctx` was destroyed, and its buffers with it.
pub fn forget_context(ctx: crate::state::ContextKey) {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    kept.retain(|(c, _)| *c != ctx);
}

/// How much of a debug buffer is read back after its draw: the header
/// says how much the shaders used, and a hit buffer or a recording is
/// mostly empty (reading all of a 1.5 MiB hit buffer cost more than the
/// one-pass hit test's own draw over the plain one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Readback {
    /// Every word (watch and sanitizer buffers).
    Whole,
    /// The header and the hit records written (`count`, at most `cap`).
    Hits,
    /// The header alone (a count-only hit test writes no records).
    Header,
    /// The header and the log words written (`len`, at most `cap`).
    Record,
    /// The header, the dedup words and the sanitizer records written
    /// (`count`, at most `cap`), not the storage race shadow after them.
    /// The buffer is the contents given and `zeroed_bytes` more of zeros
    /// (the rest of the dedup words, the records and the shadow, cleared
    /// on the GPU).
    Sanitize { zeroed_bytes: usize },
}

const HEADER_WORDS: usize = shaderdbg_core::layout::HEADER_WORDS;

impl Readback {
    /// Zero bytes the buffer has after the contents given.
    fn zeroed_bytes(self) -> usize {
        match self {
            Readback::Sanitize { zeroed_bytes } => zeroed_bytes,
            _ => 0,
        }
    }

    /// The words to read of a buffer of `total` words with this `header`.
    fn words(self, header: &[u32], total: usize) -> usize {
        let used = |i: usize| {
            let n = header.first().copied().unwrap_or(0);
            let cap = header.get(i).copied().unwrap_or(0);
            n.min(cap) as usize
        };
        let n = match self {
            Readback::Whole => return total,
            Readback::Hits => {
                HEADER_WORDS
                    + used(shaderdbg_core::layout::CAP_INDEX)
                        * shaderdbg_core::layout::HIT_RECORD_WORDS
            }
            Readback::Header => HEADER_WORDS,
            Readback::Record => HEADER_WORDS + used(shaderdbg_core::layout::CAP_INDEX),
            Readback::Sanitize { .. } => {
                let flags = header
                    .get(shaderdbg_core::layout::SANITIZE_FLAGS_INDEX)
                    .copied()
                    .unwrap_or(0) as usize;
                HEADER_WORDS.saturating_add(flags).saturating_add(
                    used(shaderdbg_core::layout::CAP_INDEX)
                        * shaderdbg_core::layout::SANITIZE_RECORD_WORDS,
                )
            }
        };
        n.min(total)
    }
}

/// Words `offset .. offset + count` of the buffer bound to
/// `GL_SHADER_STORAGE_BUFFER`, through a read mapping.
///
/// # Safety
/// A GL context must be current on this thread, with a buffer of at least
/// `(offset + count) * 4` bytes bound there.
unsafe fn read_words(
    gl: &glow::Context,
    offset: usize,
    count: usize,
) -> Result<Vec<u32>, DebugDrawError> {
    // SAFETY: the mapped range is `count * 4` bytes of the bound buffer (this
    // function's contract), so a non-null `ptr` is valid for that many bytes until
    // the unmap, and is copied out before it.
    unsafe {
        if count == 0 {
            return Ok(Vec::new());
        }
        let ptr = gl.map_buffer_range(
            glow::SHADER_STORAGE_BUFFER,
            (offset * 4) as i32,
            (count * 4) as i32,
            glow::MAP_READ_BIT,
        );
        if ptr.is_null() {
            return Err(DebugDrawError::Map);
        }
        let words = std::slice::from_raw_parts(ptr, count * 4)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        gl.unmap_buffer(glow::SHADER_STORAGE_BUFFER);
        Ok(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every image type's unit is copied into the instrumented program (a
    /// cube-map-array, multisample or 1D integer image used to keep unit 0).
    #[test]
    fn every_sampler_and_image_uniform_is_a_unit() {
        for t in [
            glow::SAMPLER_2D,
            glow::IMAGE_2D,
            glow::IMAGE_CUBE_MAP_ARRAY,
            glow::IMAGE_2D_MULTISAMPLE,
            glow::INT_IMAGE_1D,
            glow::UNSIGNED_INT_IMAGE_2D_MULTISAMPLE_ARRAY,
        ] {
            assert_eq!(uniform_kind(t), Some(UniformKind::Int(1)), "{t:#x}");
        }
        assert_eq!(uniform_kind(glow::FLOAT_VEC3), Some(UniformKind::Float(3)));
        assert_eq!(uniform_kind(0xdead), None);
    }
}
