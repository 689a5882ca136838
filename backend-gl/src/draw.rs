//! Descriptions of intercepted draws and dispatches, handed to
//! [`crate::session::on_draw`].

use serde::Serialize;

use crate::state::ContextKey;

/// One intercepted draw or compute dispatch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DrawCall {
    /// The context it was issued in.
    pub context: ContextKey,
    /// The command the application called, e.g. `glDrawArraysInstancedARB`.
    pub command: &'static str,
    /// The program of `glUseProgram` when the call was made (0: none; then
    /// `pipeline` says which program pipeline supplies the stages).
    pub program: u32,
    /// The bound program pipeline object (0: none).
    pub pipeline: u32,
    /// The frame: number of swaps in this context before this call.
    pub frame: u64,
    /// Position among the draws and dispatches of this frame, from 0.
    pub index: u64,
    /// The arguments.
    pub args: DrawArgs,
}

/// The arguments of a draw or dispatch, by shape. Offsets into bound
/// buffers (`indices` with an element array buffer, `indirect`) and client
/// pointers are both given as addresses (`usize`), as GL receives them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DrawArgs {
    /// `glDrawArrays*`: vertices `first .. first + count`.
    Arrays {
        /// Primitive mode.
        mode: u32,
        /// First vertex.
        first: i32,
        /// Vertex count.
        count: i32,
        /// Instances (1 for non-instanced draws).
        instance_count: i32,
        /// Base instance (0 unless `*BaseInstance`).
        base_instance: u32,
    },
    /// `glDrawElements*` / `glDrawRangeElements*`.
    Elements {
        /// Primitive mode.
        mode: u32,
        /// Index count.
        count: i32,
        /// `GL_UNSIGNED_BYTE`/`SHORT`/`INT`.
        index_type: u32,
        /// Offset into the element array buffer, or a client pointer.
        indices: usize,
        /// Instances (1 for non-instanced draws).
        instance_count: i32,
        /// Added to every index (0 unless `*BaseVertex`).
        base_vertex: i32,
        /// Base instance (0 unless `*BaseInstance`).
        base_instance: u32,
        /// `(start, end)` of `glDrawRangeElements*`.
        range: Option<(u32, u32)>,
    },
    /// `glMultiDrawArrays`: one `(first, count)` per draw.
    MultiArrays {
        /// Primitive mode.
        mode: u32,
        /// `(first, count)` per draw.
        draws: Vec<(i32, i32)>,
    },
    /// `glMultiDrawElements[BaseVertex]`: one `(count, indices, base_vertex)`
    /// per draw.
    MultiElements {
        /// Primitive mode.
        mode: u32,
        /// Index type.
        index_type: u32,
        /// `(count, indices, base_vertex)` per draw.
        draws: Vec<(i32, usize, i32)>,
    },
    /// `glDrawArraysIndirect`, `glMultiDrawArraysIndirect[Count]`.
    ArraysIndirect {
        /// Primitive mode.
        mode: u32,
        /// Offset into the draw indirect buffer (or client pointer).
        indirect: usize,
        /// Number of commands (the maximum for `*Count`); 1 for
        /// `glDrawArraysIndirect`.
        draw_count: i32,
        /// Stride between commands (0: tightly packed).
        stride: i32,
        /// `*IndirectCount`: offset of the draw count in the parameter
        /// buffer.
        count_offset: Option<isize>,
    },
    /// `glDrawElementsIndirect`, `glMultiDrawElementsIndirect[Count]`.
    ElementsIndirect {
        /// Primitive mode.
        mode: u32,
        /// Index type.
        index_type: u32,
        /// Offset into the draw indirect buffer (or client pointer).
        indirect: usize,
        /// Number of commands (the maximum for `*Count`).
        draw_count: i32,
        /// Stride between commands.
        stride: i32,
        /// `*IndirectCount`: offset of the draw count in the parameter
        /// buffer.
        count_offset: Option<isize>,
    },
    /// `glDrawTransformFeedback*`.
    TransformFeedback {
        /// Primitive mode.
        mode: u32,
        /// Transform feedback object.
        id: u32,
        /// Vertex stream (0 unless `*Stream*`).
        stream: u32,
        /// Instances (1 unless `*Instanced`).
        instance_count: i32,
    },
    /// `glDispatchCompute`.
    Compute {
        /// Work groups in x, y, z.
        groups: [u32; 3],
    },
    /// `glDispatchComputeIndirect`.
    ComputeIndirect {
        /// Offset into the dispatch indirect buffer.
        indirect: isize,
    },
}

impl DrawArgs {
    /// Whether this is a compute dispatch rather than a draw.
    pub fn is_compute(&self) -> bool {
        matches!(
            self,
            DrawArgs::Compute { .. } | DrawArgs::ComputeIndirect { .. }
        )
    }
}

impl DrawCall {
    /// Issues the same draw again through the real GL functions (the program
    /// bound now is the one that runs). Every kind of draw and dispatch can
    /// be repeated (the `Result` stays for kinds added later).
    ///
    /// # Safety
    /// The draw's context must be current, with the state of the original call.
    pub unsafe fn replay(&self) -> Result<(), &'static str> {
        // SAFETY: the real draw and dispatch commands, with the arguments of the
        // application's original call, on its context and with its state (this function's
        // contract): the element and indirect offsets are read from the same bound
        // buffers, or client memory, as in that call.
        unsafe {
            use crate::real;
            use std::ffi::c_void;
            let ptr = |offset: usize| offset as *const c_void;
            match &self.args {
                DrawArgs::Arrays {
                    mode,
                    first,
                    count,
                    instance_count: n,
                    base_instance: b,
                } => match (*b, *n) {
                    (0, 1) => real::glDrawArrays(*mode, *first, *count),
                    (0, n) => real::glDrawArraysInstanced(*mode, *first, *count, n),
                    (b, n) => real::glDrawArraysInstancedBaseInstance(*mode, *first, *count, n, b),
                },
                DrawArgs::Elements {
                    mode,
                    count,
                    index_type,
                    indices,
                    instance_count,
                    base_vertex,
                    base_instance,
                    range: _,
                } => {
                    let (m, c, t, i) = (*mode, *count, *index_type, ptr(*indices));
                    if *base_instance != 0 {
                        real::glDrawElementsInstancedBaseVertexBaseInstance(
                            m,
                            c,
                            t,
                            i,
                            *instance_count,
                            *base_vertex,
                            *base_instance,
                        )
                    } else if *instance_count != 1 && *base_vertex != 0 {
                        real::glDrawElementsInstancedBaseVertex(
                            m,
                            c,
                            t,
                            i,
                            *instance_count,
                            *base_vertex,
                        )
                    } else if *instance_count != 1 {
                        real::glDrawElementsInstanced(m, c, t, i, *instance_count)
                    } else if *base_vertex != 0 {
                        real::glDrawElementsBaseVertex(m, c, t, i, *base_vertex)
                    } else {
                        real::glDrawElements(m, c, t, i)
                    }
                }
                DrawArgs::MultiArrays { mode, draws } => {
                    for (first, count) in draws {
                        real::glDrawArrays(*mode, *first, *count);
                    }
                }
                DrawArgs::MultiElements {
                    mode,
                    index_type,
                    draws,
                } => {
                    for (count, indices, base_vertex) in draws {
                        real::glDrawElementsBaseVertex(
                            *mode,
                            *count,
                            *index_type,
                            ptr(*indices),
                            *base_vertex,
                        );
                    }
                }
                // With a count offset, the draw count is read from the bound
                // parameter buffer, which is still bound as the application left it.
                DrawArgs::ArraysIndirect {
                    mode,
                    indirect,
                    draw_count,
                    stride,
                    count_offset,
                } => match count_offset {
                    None if *draw_count == 1 => real::glDrawArraysIndirect(*mode, ptr(*indirect)),
                    None => {
                        real::glMultiDrawArraysIndirect(*mode, ptr(*indirect), *draw_count, *stride)
                    }
                    Some(count) => real::glMultiDrawArraysIndirectCount(
                        *mode,
                        ptr(*indirect),
                        *count,
                        *draw_count,
                        *stride,
                    ),
                },
                DrawArgs::ElementsIndirect {
                    mode,
                    index_type,
                    indirect,
                    draw_count,
                    stride,
                    count_offset,
                } => match count_offset {
                    None if *draw_count == 1 => {
                        real::glDrawElementsIndirect(*mode, *index_type, ptr(*indirect))
                    }
                    None => real::glMultiDrawElementsIndirect(
                        *mode,
                        *index_type,
                        ptr(*indirect),
                        *draw_count,
                        *stride,
                    ),
                    Some(count) => real::glMultiDrawElementsIndirectCount(
                        *mode,
                        *index_type,
                        ptr(*indirect),
                        *count,
                        *draw_count,
                        *stride,
                    ),
                },
                DrawArgs::Compute { groups } => {
                    real::glDispatchCompute(groups[0], groups[1], groups[2])
                }
                DrawArgs::ComputeIndirect { indirect } => {
                    real::glDispatchComputeIndirect(*indirect)
                }
                // Vertices come from what the transform feedback object captured
                // last (capture is paused during debug draws, so it is unchanged).
                DrawArgs::TransformFeedback {
                    mode,
                    id,
                    stream,
                    instance_count,
                } => match (*stream, *instance_count) {
                    (0, 1) => real::glDrawTransformFeedback(*mode, *id),
                    (0, n) => real::glDrawTransformFeedbackInstanced(*mode, *id, n),
                    (s, 1) => real::glDrawTransformFeedbackStream(*mode, *id, s),
                    (s, n) => real::glDrawTransformFeedbackStreamInstanced(*mode, *id, s, n),
                },
            }
            Ok(())
        }
    }
}
