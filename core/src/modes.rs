//! What an engine instruments a shader for: the modes every language's
//! engine (GLSL, WGSL) implements, writing the buffer layouts of
//! [`crate::layout`] that [`crate::decode`] reads. One vocabulary, so the
//! agents and the session ask every engine the same way.

use crate::probes::ProbeId;
use crate::Invocation;

/// A breakpoint for the hit test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakpoint {
    /// A step (statement or `discard`) of the probe table.
    pub probe: ProbeId,
    /// A boolean expression in the shader's language, evaluated in the
    /// scope of the step.
    pub condition: Option<String>,
}

/// What to instrument for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Only assign probes (the shader otherwise unchanged but for what the
    /// output needs, e.g. a raised GLSL version).
    Plain,
    /// Log every step, condition, loop iteration, call, return and write of
    /// the selected invocation (a fragment without a primitive: every
    /// primitive's fragment at that pixel), in the record layout.
    Record(Invocation),
    /// For all invocations, one hit per breakpoint whose condition held: the
    /// first reach of its step where it did (its occurrence counts the
    /// reaches before), tagged with the breakpoint's index. Kept in
    /// registers while the shader runs and written when the invocation ends
    /// (the end of the entry point, a `return` in it, a `discard`), so a
    /// breakpoint in a hot loop costs a compare and an add per iteration,
    /// not a storage write.
    HitTest(Vec<Breakpoint>),
    /// [`Mode::HitTest`] plus a check of every float value written to a
    /// shader output: a hit, tagged [`crate::layout::HIT_TAG_NAN_INF`], when
    /// it has a NaN or an infinity in it. Its probe is the writing step and
    /// its occurrence counts reaches of that step, as for breakpoints.
    HitTestNanInf(Vec<Breakpoint>),
    /// The value of `expr` (in the shader's language, in the scope of step
    /// `probe`) the first time each invocation reaches the step, for all
    /// invocations, in the watch layout: slots by pixel (`y * width + x`)
    /// for fragments, by vertex index for vertices, by linear global id for
    /// compute.
    Watch { probe: ProbeId, expr: String },
    /// For all invocations, checks on the GPU (the sanitizer, see
    /// [`Checks`]): violations go to the report buffer
    /// (`layout::new_sanitize_buffer`) once per kind and step, read by
    /// `decode::decode_sanitizer`. As with hit tests, an invocation keeps
    /// its violations in registers and writes them when it ends.
    Sanitize(Checks),
}

/// What [`Mode::Sanitize`] checks. An engine says how it carries each out,
/// and what a sanitized run may change (only the out-of-bounds access
/// itself); the GLSL engine's account is in its `instrument` module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    /// Indexing outside an array's (or a vector's, a matrix's) bounds:
    /// reported, and not performed.
    pub out_of_bounds: bool,
    /// Reads of shared-memory elements no invocation of the work group has
    /// written (compute shaders); and, in every stage, reads of locals
    /// declared without an initializer (and of `out` parameters) before
    /// the invocation wrote the part read (the name predates the latter).
    pub uninit_shared: bool,
    /// Data races on shared memory: two invocations of a work group access
    /// one element between the same two barriers, at least one writes, and
    /// not both are atomic (compute shaders); and barriers not every
    /// invocation reached. Data races on storage buffers: two invocations
    /// of one dispatch or draw access one element, at least one writes,
    /// not both are atomic, and no barrier orders them (only invocations
    /// of one work group are ordered by one; compute, fragment and vertex
    /// shaders).
    pub race: bool,
}

impl Checks {
    pub const ALL: Checks = Checks {
        out_of_bounds: true,
        uninit_shared: true,
        race: true,
    };
}
