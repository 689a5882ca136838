//! What the sanitizer's GPU tests share: instrumenting a shader for a
//! check (or none), and the sanitize buffer of a run on gl-headless.

use shaderdbg_core::decode::{decode_sanitizer, SanitizerReport};
use shaderdbg_core::layout;
use shaderdbg_gl_headless::{ContextKind, Headless, Program, Stage as GlStage, StorageBuffer};
use shaderdbg_glsl::instrument::{instrument, Checks, Instrumented, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

/// The binding of the sanitize buffer in these tests.
pub const BINDING: u32 = 7;

/// The out-of-bounds check alone.
pub const OOB: Checks = Checks {
    out_of_bounds: true,
    uninit_shared: false,
    race: false,
};

/// The uninitialized-read check alone.
pub const UNINIT: Checks = Checks {
    out_of_bounds: false,
    uninit_shared: true,
    race: false,
};

/// The race check alone.
pub const RACE: Checks = Checks {
    out_of_bounds: false,
    uninit_shared: false,
    race: true,
};

/// The compute shader `comp` instrumented with `checks` (none: plain) for
/// a 4x4 context of `kind` (GLSL ES in a GLES one), its sanitize buffer at
/// [`BINDING`], and compiled there: the context, the instrumented shader
/// and its program.
pub fn compute(
    kind: ContextKind,
    comp: &str,
    checks: Option<Checks>,
) -> (Headless, Instrumented, Program) {
    let gl = Headless::new(kind, 4, 4).expect("context");
    let target = if kind == ContextKind::Gles32 {
        Target::ES
    } else {
        Target::CORE
    };
    let out = instrumented(comp, Stage::Compute, checks, target);
    let program = gl
        .compile_program(&[(GlStage::Compute, &out.glsl)])
        .unwrap_or_else(|e| panic!("{e}\n{}", out.glsl));
    (gl, out, program)
}

/// `src`, a shader of `stage`, instrumented for `target` with `checks`
/// (none: plain), its sanitize buffer at [`BINDING`].
#[track_caller]
pub fn instrumented(
    src: &str,
    stage: Stage,
    checks: Option<Checks>,
    target: Target,
) -> Instrumented {
    let parsed = parse(&[src], stage, None).expect("parses");
    let req = Request {
        mode: checks.map_or(Mode::Plain, Mode::Sanitize),
        target,
        binding: BINDING,
    };
    instrument(&parsed, &req).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// A fresh sanitize buffer for `out`'s probes keeping `reports` reports,
/// bound at [`BINDING`].
pub fn report_buffer(gl: &Headless, out: &Instrumented, reports: u32) -> StorageBuffer {
    gl.create_storage_buffer(
        BINDING,
        &layout::new_sanitize_buffer(reports, out.probes.probes.len()),
    )
    .expect("ssbo")
}

/// The reports in `buffer` (a [`report_buffer`] of `out`), and whether
/// some were lost.
pub fn read_reports(
    gl: &Headless,
    buffer: &StorageBuffer,
    out: &Instrumented,
) -> (Vec<SanitizerReport>, bool) {
    let words = layout::to_words(&gl.read_storage_buffer(buffer).expect("read"));
    decode_sanitizer(&words, &out.probes)
}
