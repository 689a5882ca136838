//! Source-to-source instrumentation. One walk over the AST assigns probe ids and,
//! depending on the [`Mode`], inserts calls that log a recording, test breakpoints,
//! or capture a watch expression. The emitted GLSL keeps every original name,
//! interface and output; the original computation always runs to its end, and
//! every inserted expression is evaluated in the order the original would be.
//!
//! # What [`Mode::Sanitize`] checks, and how
//!
//! The [`Checks`] are the debug core's (every engine's vocabulary); this is
//! how the GLSL engine carries them out.
//!
//! **Out of bounds** (`out_of_bounds`): every indexing of an array (local,
//! global, shared, uniform block member, storage-buffer member, the
//! runtime-sized last member against its `length()`) and every indexing of a
//! vector or matrix by a non-constant index is checked against its bound.
//! An out-of-bounds access is not performed: a read yields the element
//! type's zero value (a struct type without a name to construct it with: the
//! element at index 0), and a write that is the assignment or `++`/`--` of
//! an expression statement is skipped (its right-hand side is still
//! evaluated). In other places a write can be (a nested assignment, `++` in
//! an expression, an `out`/`inout` argument) the index is clamped to 0 and
//! the access lands there. Every original expression is evaluated once, in
//! the original order; in-bounds accesses are unchanged, so a shader without
//! out-of-bounds accesses computes bit-identical results. Not checked:
//! runtime-sized arrays reached through a non-constant index of an array of
//! blocks (`bufs[k].data[i]`), unsized arrays that are not storage-buffer
//! members.
//!
//! Image accesses (`imageLoad`, `imageStore`, `imageAtomic*`,
//! `texelFetch`) are checked against the image's size at the level
//! accessed (`imageSize`, `textureSize`; a cube's faces, a cube array's
//! layer-faces), a `texelFetch`'s level against `textureQueryLevels`
//! first; the report carries the function, the image variable, the
//! coordinate and the size. Unlike an array's, an out-of-bounds image
//! access is performed: OpenGL defines it (a store or atomic has no
//! effect, a load returns zeros; a `texelFetch` an undefined value with
//! no other effect), so the sanitized run computes what the unsanitized
//! one does. Not checked: multisample sample indices, image or level
//! arguments with side effects, `texelFetch` levels other than the
//! constant 0 in GLSL ES (no `textureQueryLevels`), `texelFetchOffset`.
//!
//! The report's probe is the step of the statement that made the access
//! (a loop's condition and increment: the loop statement's step), so two
//! accesses of one statement share a report.
//!
//! **Uninitialized shared reads** (`uninit_shared`): reads of
//! shared-memory elements no invocation of the work group has
//! written (compute shaders; ignored in other stages).
//!
//! Modelled: each `shared` variable declared before the end of `main`
//! gets a shadow of one word per element of its outermost array (one
//! word for a variable that is no array), cleared by the work group
//! when `main` starts (followed by `memoryBarrierShared(); barrier();`)
//! and set to 1 by every write (a plain store where it is 0: every
//! writer stores the same value): after an expression
//! statement's assignment, `++`/`--` (which, like `+=`, first check the
//! element is written), and, before the statement or as the index is
//! computed, by writes elsewhere (nested assignments, `out`/`inout`
//! arguments, atomic functions). A read of an element (`tile[i]`, a
//! read of a variable that is no array) whose shadow word is 0 is
//! reported with the element and the variable. A write to part of an
//! element (a field, a swizzle, an inner index) marks the whole
//! element, and a write to the whole array marks every element:
//! this can only hide reports, never make false ones.
//!
//! Not modelled: barriers (a read of an element another invocation
//! wrote without a barrier in between is not reported here; that is a
//! race), the old value atomic functions read (never reported), reads
//! of a whole array variable (`float copy[8] = tile;`), shared
//! variables declared after `main`, runtime-sized shared arrays.
//! The shadow is read with plain loads, as the program reads its data:
//! its visibility across invocations is the program's own (llvmpipe
//! runs a work group on one thread).
//!
//! Bounds checks of shared arrays come with this check (they keep the
//! shadow index in bounds); their violations are reported only with
//! `out_of_bounds`.
//!
//! **Uninitialized locals** (`uninit_shared`, every stage): a read of a
//! local declared without an initializer, or of an `out` parameter,
//! before the invocation wrote the part read, on the path it took.
//!
//! Modelled: each such variable has a mask (a global `uint`: GLSL has no
//! recursion, so one instance of a function's locals is live at a time)
//! cleared where it is declared (each time: a local of a loop body is
//! undefined again each iteration) and at the function's start for an
//! `out` parameter, with a bit per part: a vector's components, a
//! matrix's columns, an array's elements, a struct's fields (at most 32;
//! more: one bit for the whole variable, set by any write). A write sets
//! the bits of what it writes after an expression statement (an
//! assignment, `++`/`--`, `out`/`inout` arguments; a dynamic index is
//! evaluated again when the statement has no other write in it), and the
//! bits of the whole variable before the statement for writes nested in
//! expressions. A read (`_sdbg_keep(v, _sdbg_lr(p, decl, mask, need))`)
//! checks the bits of the part it reads (a swizzle's components, a
//! dynamic index's element), and `+=`, `++` check before the statement.
//! A write to part of a part (a component of an element) sets the whole
//! part: like marking whole variables early, this can only hide a report,
//! never make a false one. Not checked: reads through `inout` arguments
//! (the callee may only write), reads with a dynamic index that has side
//! effects, values of types generated code cannot name (local structs).
//! (A `for` initializer declaring such a local moves before the loop, in
//! a block of its own, to clear the mask.)
//!
//! **Data races** (`race`): data races on shared memory (compute shaders; ignored in other
//! stages): two invocations of a work group access one element of a
//! shared variable between the same two barriers, at least one writes,
//! and not both are atomic functions.
//!
//! Modelled: each `barrier()` call (in any function) is rewritten to
//! one that also counts the work group's barriers (a shared generation
//! word, advanced once after each barrier): the epoch of the accesses
//! until the next one (all invocations of a work group pass barriers
//! together, so the epoch orders their accesses). It counts the
//! invocations that arrive, too: a barrier that not all of the work
//! group reached (in divergent control flow, or after some returned;
//! undefined behaviour) is reported, with how many did
//! (`SANITIZE_KIND_BARRIER`); an invocation that skipped one counts the
//! following barriers as the others do. Barriers every invocation
//! reaches, as the syntax shows (`uniform`: at the top of `main` or of
//! a `for` loop with uniform bounds there, no `return` before), are not
//! counted. Each element of a shared variable's
//! outermost array (the variable if it is no array) gets shadow words
//! (per element, whatever the element's size): the last
//! writer and two of the readers of the current epoch (the lowest and
//! the highest local invocation index, kept with `atomicMin` and
//! `atomicMax`, skipped where a plain look finds the word already there:
//! the words only fall and rise until cleared), each with the access's step and whether it was
//! atomic or wrote only part of the element (a field, component or
//! inner element). A write (`atomicExchange` of the writer word)
//! reports another invocation's write or read of the element in the
//! same epoch; a read reports another invocation's write in the same
//! epoch. Two atomic functions never race; two accesses that are both
//! to a part of the element are not compared (they may be to
//! different parts: never reported, as a race between them is not);
//! an access of a whole element and a part of it is. The report names
//! this access (its step, read/write/atomic), the other invocation
//! (global id), the other access's step (0 when above 4095) and kind,
//! and the element. Only conflicts the shadow still holds are found:
//! the last writer and two readers per element and epoch (a third
//! reader's conflict with a writer that is one of those two is
//! missed). Reads of a whole array variable are not checked.
//! Invocations writing the same value are no race: a plain `=`
//! statement writing a whole element keeps the first word of the value
//! it writes, in a fourth shadow word per element (`atomicExchange`),
//! and a write that finds another's write of the same first word in
//! the epoch is not reported (elements of several words whose first
//! words agree are taken for equal: that can only hide a report).
//! Other writes (compound assignments, `++`, nested assignments,
//! `out` arguments, parts of elements) do not compare values.
//!
//! Not modelled: the order of accesses around a barrier that not all
//! invocations reached (reported as such; until the next barrier the
//! epochs of the invocations that skipped it lag behind), work
//! groups of more than 1024 invocations (no race check), the order
//! `memoryBarrierShared()` without `barrier()` gives (none between
//! invocations: not a barrier here either). The epoch has 7 bits:
//! every 128th barrier the work group clears the race shadow, behind
//! one more `barrier()` (executed where the program's own barrier is,
//! so as uniformly).
//!
//! A write whose value is not known (any but a plain `=` of a whole
//! element) says so in its writer word (a "value known" bit; the probe
//! then has 11 bits, 0 above 2047), so a later `= 0` is not taken for a
//! write of the same value as it (the value shadow holds 0 for it).
//!
//! **Data races on storage buffers** (`race`, compute, fragment and
//! vertex shaders): two invocations of one dispatch or draw access one
//! element of a storage-buffer member (each element of its outermost
//! array, runtime-sized ones to their `length()`; a member that is no
//! array is one element), at least one writes, not both are atomic
//! functions, and nothing orders them. `barrier()` orders the storage
//! accesses of one work group (of a compute shader); invocations of
//! different work groups (fragments, vertices) are ordered only through
//! a fence and atomics, as GLSL's memory model allows (below).
//!
//! Modelled: the shadow lies in the report buffer after the records
//! (`layout::SANITIZE_SHADOW_SLOT_WORDS` words per slot, as many slots as
//! the buffer holds; the host zeroes it), each member's elements in
//! consecutive slots (laid out by `_sdbg_sinit` as `main` starts). A
//! slot keeps the last writer and, per parity of the invocation, the
//! last reader: each an access word (the invocation, atomic, partial,
//! value known and a 6-bit hash of the value's first word; written with
//! `atomicExchange`) and a generation word (the work group's barrier
//! generation, 20 bits, and the step), and the last written value's
//! first word. A write reports another invocation's write, else a read;
//! a read another's write; when the two are of different work groups
//! (or stages without work groups), or of one work group with the same
//! barrier generation. As for shared memory: two atomic functions, two
//! partial accesses, and two plain `=` writes of whole elements whose
//! values hash alike (1 in 64 of different values do: that can only hide
//! a report) are not compared. The report names the member (the block's
//! instance and the member's index, or the member: `SANITIZE_MEMBER_SHIFT`),
//! the element, both invocations (a compute invocation by its global
//! id; a fragment by its pixel, the other's primitive not known; a
//! vertex by vertex and instance) and both steps, and the values where
//! known: the value this access wrote, or read (the read value is taken
//! right after the read), and the value the other wrote (not known when
//! its value word and access word were written apart by two writers at
//! once).
//!
//! Ordering between work groups (fences and atomics): GLSL's atomic
//! functions are relaxed; a memory barrier (`memoryBarrier()`,
//! `memoryBarrierBuffer()`) makes the invocation's earlier accesses
//! complete before its later ones, so "write; fence; atomic" in one work
//! group and "atomic (that reads the value it wrote or a later one); read"
//! in another order the write before the read (the "last work group does
//! the final reduction" pattern: each group writes its partial result,
//! fences and counts itself with `atomicAdd`; the one that counts last
//! reads them all). Modelled, conservatively: an atomic function on
//! memory other than shared (a storage buffer, an image, an atomic
//! counter) after a fence of the work group releases every access the
//! work group made up to that point: its release word (one per work
//! group in the report buffer, before the shadow's slots) keeps the
//! barrier generation of the release; any such atomic acquires; both
//! pass to the whole work group at its next `barrier()` (which orders its
//! invocations). An access of another work group is not reported when
//! this invocation has acquired and that work group released at or
//! after the access's barrier generation. Which atomic read which is not
//! followed (an acquire through an unrelated counter counts), nor the
//! order within a barrier interval (an access after the release, before
//! the next barrier, counts as released), and a fence or atomic is taken
//! at the start of the statement that makes it, and a record whose two
//! words two invocations wrote at once (its access word no longer the
//! writer's when it looks again) has its generation "not known" and
//! counts as released: each of these can only hide a race, never report
//! one that is not there. In fragment and
//! vertex shaders (no work groups, no barrier generations), an access of
//! another invocation is not reported once this invocation made an
//! atomic access, if the shader has a fence anywhere. Without a fence
//! before the atomic, nothing is released: the race is reported (a real
//! one: without it the writes need not be visible when the atomic is).
//! `coherent` and `volatile` are about visibility, not order: they are
//! not modelled (accesses to coherent variables race as any other, as
//! non-atomic accesses do in the Vulkan memory model; a missing
//! `coherent` is not reported). Atomics on shared memory order nothing
//! beyond themselves (a spin-wait on a shared flag within a work group,
//! which GLSL does not promise to terminate, is reported). Images have no
//! race shadow: races on images are not checked.
//!
//! Not modelled: `barrier()` is taken to order the storage accesses of
//! a work group with or without `memoryBarrierBuffer()` (the
//! specification asks for both; drivers order them with `barrier()`
//! alone, so a report would be noise): a missing memory barrier is not
//! reported. Aliasing (one buffer bound to two blocks, or two ranges
//! that overlap) is not seen: each block has its own shadow. Members of
//! `readonly` blocks, `readonly` members, and members the shader never
//! writes (none is at the root of an assignment, `++`/`--` or function
//! argument: nothing writes them in a dispatch or draw of this shader;
//! another stage of the same draw writing them is not seen), arrays of
//! blocks, storage blocks declared after `main`: no shadow.
//! Elements beyond the slots the buffer holds, invocations beyond what
//! an access word names (a compute dispatch of more than 2^22
//! invocations; fragments at x or y >= 2048; vertices >= 65536 or
//! instances >= 64): not checked, and the buffer's header says so
//! (`layout::sanitize_unchecked`; the GL agent tells the debugger).
//! Fragments of one pixel (of different
//! primitives, or samples) are one invocation to the check: never
//! compared with each other (overdraw races are missed). Two accesses are found only while the
//! shadow holds them (the last writer and two readers per element); the
//! access words of two writers at once can pair one's invocation with
//! the other's step (only when both wrote the element at once, itself a
//! race unless both were atomic). Generations have 20 bits (a million
//! barriers). Dispatches and draws are not compared with each other
//! (the agent's shadow is fresh for each).
//!
//! What a sanitized run changes: the program's own memory is only
//! changed where an index is out of bounds (see above); the shadows
//! are `shared` variables of their own (four words per element for
//! races, one for uninitialized reads), so the program's shared
//! memory budget must have room for them; the storage race shadow is
//! in the report buffer. Storage-buffer arrays with a race shadow are
//! bounds-checked (reported only with `out_of_bounds`) to keep the
//! shadow's index in bounds: an out-of-bounds access is not performed
//! then either.
//!

mod build;
mod legacy;
mod runtime;
mod uniform;
mod walk;

use glsl_lang::ast;

use crate::diagnostics::Span;
use crate::parse::Parsed;
use crate::probes::{ProbeId, ProbeTable};
use crate::shader::{Profile, Stage, Version};
use shaderdbg_core::Invocation;

/// The context the instrumented program will run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// OpenGL ES context (else desktop GL).
    pub es: bool,
    /// Desktop compatibility profile (legacy built-ins stay available).
    pub compatibility: bool,
}

impl Target {
    pub const CORE: Target = Target {
        es: false,
        compatibility: false,
    };
    pub const COMPAT: Target = Target {
        es: false,
        compatibility: true,
    };
    pub const ES: Target = Target {
        es: true,
        compatibility: false,
    };
}

pub use shaderdbg_core::modes::{Breakpoint, Checks, Mode};

/// Options of [`instrument`].
#[derive(Clone, Debug)]
pub struct Request {
    pub mode: Mode,
    pub target: Target,
    /// The storage-buffer binding the debug buffer uses (one the program does not use).
    pub binding: u32,
}

/// An instrumented shader.
#[derive(Clone, Debug)]
pub struct Instrumented {
    pub glsl: String,
    pub version: Version,
    pub probes: ProbeTable,
    /// Watch mode: words per watched value.
    pub watch_words: Option<u32>,
    /// Watch mode: the watched expression's type.
    pub watch_type: Option<crate::Type>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InstrumentError {
    #[error("this shader cannot be instrumented: {0}")]
    Unsupported(String),
    #[error("breakpoint condition `{condition}`: {message}")]
    Condition { condition: String, message: String },
    #[error("watch expression `{expr}`: {message}")]
    Watch { expr: String, message: String },
    #[error("no step with probe id {0}")]
    NoSuchProbe(ProbeId),
}

/// Instruments a parsed shader.
pub fn instrument(parsed: &Parsed, req: &Request) -> Result<Instrumented, InstrumentError> {
    let version = output_version(parsed.version, req.target)?;
    let dialect = runtime::Dialect::Gl {
        binding: req.binding,
    };
    instrument_in(parsed, &req.mode, version, dialect)
}

/// Instruments a Vulkan GLSL shader (`GL_KHR_vulkan_glsl`, as compiled to
/// SPIR-V for a Vulkan pipeline): the debug buffer is binding 0 of
/// descriptor set `set`, invocations are named by Vulkan's built-ins, and
/// the shader keeps its `#version`. The shader must have been parsed as
/// Vulkan GLSL (`parsed.api`: the text alone does not always tell, and the
/// probe table depends on it).
pub fn instrument_vulkan(
    parsed: &Parsed,
    mode: &Mode,
    set: u32,
) -> Result<Instrumented, InstrumentError> {
    let dialect = runtime::Dialect::Vulkan { set };
    instrument_in(parsed, mode, vulkan_version(parsed)?, dialect)
}

/// The `#version` a Vulkan GLSL shader keeps.
fn vulkan_version(parsed: &Parsed) -> Result<Version, InstrumentError> {
    if parsed.api != crate::Api::Vulkan {
        return Err(InstrumentError::Unsupported(
            "instrumenting for Vulkan a shader parsed as OpenGL GLSL".into(),
        ));
    }
    // Vulkan GLSL has no desktop profiles; `core` (how a desktop version
    // prints) is accepted and means nothing there. GLSL ES stays ES: 3.10
    // and 3.20 exist only as ES.
    let profile = if parsed.version.is_es() {
        crate::Profile::Es
    } else {
        crate::Profile::Core
    };
    Ok(Version {
        profile,
        ..parsed.version
    })
}

/// [`instrument_vulkan`] for a hit test (`Mode::HitTest`,
/// `Mode::HitTestNanInf`) that only counts hits ([`hit_count_only`]): the
/// debug buffer's first word becomes non-zero, and no hit is recorded. A
/// first pass over a submission that usually has no hit; the Vulkan layer
/// runs the full hit test only when it has some.
pub fn instrument_vulkan_flag(
    parsed: &Parsed,
    mode: &Mode,
    set: u32,
) -> Result<Instrumented, InstrumentError> {
    if !matches!(mode, Mode::HitTest(_) | Mode::HitTestNanInf(_)) {
        return Err(InstrumentError::Unsupported(
            "only a hit test can count its hits".into(),
        ));
    }
    let mut out = instrument_vulkan(parsed, mode, set)?;
    if let Some(counting) = hit_count_only(&out.glsl) {
        out.glsl = counting;
    }
    Ok(out)
}

fn instrument_in(
    parsed: &Parsed,
    mode: &Mode,
    version: Version,
    dialect: runtime::Dialect,
) -> Result<Instrumented, InstrumentError> {
    if let Mode::Record(sel) = mode {
        check_selector(parsed.stage, sel)?;
    }
    let mode = checkable(parsed, mode);
    let out = walk::Walker::run(parsed, &mode, version, dialect)?;
    Ok(Instrumented {
        glsl: out.glsl,
        version,
        probes: out.probes,
        watch_words: out.watch_words,
        watch_type: out.watch_type,
    })
}

/// `mode` as this shader can carry it: the shared-memory checks (uninit,
/// race) need `gl_WorkGroupSize`, which a compute shader may name only if it
/// declares its `local_size` itself; one whose size another shader of its
/// program declares (piglit's `separate-global-id-2`) is sanitized for
/// out-of-bounds accesses only.
fn checkable<'m>(parsed: &Parsed, mode: &'m Mode) -> std::borrow::Cow<'m, Mode> {
    match mode {
        Mode::Sanitize(c)
            if parsed.stage == crate::Stage::Compute
                && (c.uninit_shared || c.race)
                && !parsed.source.text.contains("local_size") =>
        {
            std::borrow::Cow::Owned(Mode::Sanitize(Checks {
                uninit_shared: false,
                race: false,
                ..*c
            }))
        }
        _ => std::borrow::Cow::Borrowed(mode),
    }
}

/// A hit test's GLSL ([`Mode::HitTest`], [`Mode::HitTestNanInf`], as
/// [`instrument`] wrote it) that only counts its hits: every hit adds 1 to
/// the buffer's count and writes no record. The agent's one-pass hit test
/// draws with it and, where the count is not 0, runs the full hit test
/// after the draw for the records. SIMD drivers run a conditional storage
/// write at every invocation, masked, even when nothing hits (llvmpipe: a
/// loop over the lanes per write), so one atomic costs far less than the
/// atomic and six stores of a record: on a flat full-screen draw 1.2x the
/// plain shader against 3.7x. `None` when `glsl` is no hit test.
pub fn hit_count_only(glsl: &str) -> Option<String> {
    let start = glsl.find(runtime::PUT_HIT)?;
    let body = start + glsl[start..].find(") {\n")? + 4;
    let end = body + glsl[body..].find("\n}\n")? + 1;
    Some(format!(
        "{}    atomicAdd(_sdbg_hit_count, 1u);\n{}",
        &glsl[..body],
        &glsl[end..]
    ))
}

/// The probe table of a shader (the same ids every mode uses).
pub fn probe_table(parsed: &Parsed) -> ProbeTable {
    // Plain mode has no inputs that can fail, and the version only affects text.
    match walk::Walker::run(
        parsed,
        &Mode::Plain,
        parsed.version,
        runtime::Dialect::Gl { binding: 0 },
    ) {
        Ok(out) => out.probes,
        Err(_) => unreachable!("plain instrumentation cannot fail"),
    }
}

/// The shader re-emitted unchanged but for its `#version`, for the other stages
/// of a program whose stages must agree on a version (GLSL ES).
pub fn raise_version(parsed: &Parsed, target: Target) -> Result<String, InstrumentError> {
    let version = output_version(parsed.version, target)?;
    let dialect = runtime::Dialect::Gl { binding: 0 };
    Ok(walk::Walker::run(parsed, &Mode::Plain, version, dialect)?.glsl)
}

/// The `#version` an instrumented shader needs: storage buffers and atomics are
/// GLSL 4.30 / ES 3.10. Legacy syntax keeps working in a compatibility profile.
pub fn output_version(v: Version, target: Target) -> Result<Version, InstrumentError> {
    let es = |number| Version {
        number,
        profile: Profile::Es,
    };
    if target.es {
        return match (v.profile, v.number) {
            (Profile::Es, 100) => Err(InstrumentError::Unsupported(
                "GLSL ES 1.00 has no storage buffers and translating it to ES 3.10 is not implemented yet"
                    .into(),
            )),
            (Profile::Es, n) if n < 310 => Ok(es(310)),
            (Profile::Es, _) => Ok(v),
            _ => Err(InstrumentError::Unsupported(format!(
                "desktop GLSL {v} in an OpenGL ES context"
            ))),
        };
    }
    if v.number >= 430 && !v.is_es() {
        return Ok(v);
    }
    let profileless = v.profile == Profile::Core && v.number < 150;
    // Shaders that may use legacy built-ins (`gl_FragColor`, `attribute`, ...).
    let legacy = v.profile == Profile::Compatibility
        || (v.is_es() && v.number == 100)
        || (profileless && v.number < 140);
    // In a core context, desktop GLSL before 1.40 is raised to 4.30 core
    // and its legacy syntax translated (`legacy`); compatibility-profile
    // and ES 1.00 shaders cannot be.
    if legacy && !target.compatibility && (v.profile == Profile::Compatibility || v.is_es()) {
        return Err(InstrumentError::Unsupported(format!(
            "GLSL {v} needs a compatibility-profile context to be raised to 4.30"
        )));
    }
    let legacy = legacy && target.compatibility;
    let compatibility = legacy || (target.compatibility && (profileless || v.is_es()));
    Ok(Version {
        number: 430,
        profile: if compatibility {
            Profile::Compatibility
        } else {
            Profile::Core
        },
    })
}

fn check_selector(stage: Stage, sel: &Invocation) -> Result<(), InstrumentError> {
    if sel.stage() == stage {
        Ok(())
    } else {
        Err(InstrumentError::Unsupported(format!(
            "cannot select the {sel} in a {stage} shader (recording supports fragment, vertex and compute)"
        )))
    }
}

/// Why a user expression (breakpoint condition, watch) cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    #[error("preprocessor directives are not allowed in an expression")]
    Directive,
    /// Beyond what the engine parses safely (`glsl::limits`), or not GLSL.
    #[error("{0}")]
    Syntax(String),
    #[error("must not assign or increment (it would change what the shader computes)")]
    SideEffects,
    /// It does not type-check in the scope of its statement.
    #[error("{0}")]
    Type(String),
    #[error("must be a bool, not {0}")]
    NotBool(crate::Type),
    #[error("values of type {0} cannot be captured")]
    NotLoggable(crate::Type),
}

/// Parses a user expression (breakpoint condition, watch) as GLSL.
fn parse_expr(text: &str) -> Result<ast::Expr, ExprError> {
    use glsl_lang::parse::DefaultParse;
    if text.contains('#') {
        return Err(ExprError::Directive);
    }
    crate::limits::check(text).map_err(|d| ExprError::Syntax(d.message))?;
    ast::Expr::parse(text).map_err(|e| ExprError::Syntax(crate::syntax::expression_error(text, &e)))
}

/// The span of a node, for probe records.
fn span_of<T: glsl_lang::ast::NodeContent>(n: &ast::Node<T>) -> Span {
    crate::diagnostics::span_from_node(n.span)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sanitized(src: &str) -> String {
        let parsed = crate::parse::parse(&[src], crate::Stage::Compute, None).expect("parses");
        let all = Checks {
            out_of_bounds: true,
            uninit_shared: true,
            race: true,
        };
        let req = Request {
            mode: Mode::Sanitize(all),
            target: Target::CORE,
            binding: 7,
        };
        instrument(&parsed, &req).expect("instruments").glsl
    }

    /// The count-only hit test differs from the hit test only in the
    /// record writer's body (one atomic), in GLSL ES (precision qualifiers)
    /// and with NaN/Inf checks (which write hits through it too).
    #[test]
    fn a_count_only_hit_test_is_the_hit_test_with_one_atomic_per_hit() {
        let src = "#version 310 es\nprecision mediump float;\nout vec4 o;\nvoid main() {\n    float x = gl_FragCoord.x;\n    o = vec4(x);\n}\n";
        let parsed = crate::parse::parse(&[src], crate::Stage::Fragment, None).expect("parses");
        let probe = probe_table(&parsed)
            .step_for_line(6)
            .expect("a step on line 6")
            .id;
        let req = Request {
            mode: Mode::HitTestNanInf(vec![Breakpoint {
                probe,
                condition: Some("x > 2.0".into()),
            }]),
            target: Target::ES,
            binding: 3,
        };
        let full = instrument(&parsed, &req).expect("instruments").glsl;
        let count = hit_count_only(&full).expect("a hit test");
        let (f, c): (Vec<&str>, Vec<&str>) = (full.lines().collect(), count.lines().collect());
        let start = f
            .iter()
            .position(|l| l.starts_with("void _sdbg_put_hit("))
            .expect("the writer");
        assert_eq!(f[..=start], c[..=start]);
        assert_eq!(
            c[start..start + 3],
            [
                "void _sdbg_put_hit(highp uint p, highp uint occ, highp uint tag) {",
                "    atomicAdd(_sdbg_hit_count, 1u);",
                "}"
            ]
        );
        let end = start + f[start..].iter().position(|l| *l == "}").expect("its end");
        assert_eq!(f[end..], c[start + 2..]);
        assert!(
            !count.contains("_sdbg_data[at"),
            "no record written: {count}"
        );
        assert!(
            count.contains("_sdbg_nan(7u, 0, _sdbg_bad(o))"),
            "NaN checks stay: {count}"
        );
        assert!(count.contains("_sdbg_put_hit(p, _sdbg_nocc"), "{count}");
        assert_eq!(hit_count_only(src), None);
    }

    /// piglit's `simple-barrier`: `barrier()` of GL_ARB_compute_shader in a
    /// 3.30 shader counts for the race check like the core one (it was left
    /// alone, so every barrier looked absent and a read after three of them
    /// was reported as a race).
    #[test]
    fn extension_barriers_count_for_the_race_check() {
        let src = "#version 330\n#extension GL_ARB_compute_shader: enable\nlayout(local_size_x = 8) in;\nshared uint s[8];\nvoid main() {\n    s[gl_LocalInvocationIndex] = 1u;\n    barrier();\n    uint x = s[(gl_LocalInvocationIndex + 1u) % 8u];\n}\n";
        let out = sanitized(src);
        let main = &out[out.find("void main()").expect("main")..];
        // Every invocation reaches it: its arrivals are not counted.
        assert!(main.contains("_sdbg_ubarrier("), "{main}");
        assert!(!main.contains("\n    barrier();\n    uint x"), "{main}");
    }

    /// piglit's `separate-global-id-2`: a compute shader whose `local_size`
    /// another shader of the program declares cannot name
    /// `gl_WorkGroupSize`; it is sanitized for out-of-bounds accesses only.
    #[test]
    fn a_shader_without_its_work_group_size_is_checked_for_bounds_only() {
        let src = "#version 430\nshared uint s[4];\nuniform uint k;\nbuffer B { uint v[]; };\nvoid main() {\n    s[k] = 1u;\n    v[k] = s[k];\n}\n";
        let out = sanitized(src);
        assert!(!out.contains("gl_WorkGroupSize"), "{out}");
        assert!(out.contains("_sdbg_cl"), "bounds are still checked: {out}");
        let sized =
            sanitized(&src.replace("shared uint", "layout(local_size_x = 4) in;\nshared uint"));
        assert!(sized.contains("gl_WorkGroupSize"), "{sized}");
    }

    #[test]
    fn versions_are_raised_to_what_storage_buffers_need() {
        let v = |number, profile| Version { number, profile };
        let cases = [
            (v(110, Profile::Core), Target::COMPAT, "430 compatibility"),
            // Translated (`legacy`): `#version 430 compatibility` does not
            // compile in a core context, where drivers take GLSL 1.10-1.30.
            (v(110, Profile::Core), Target::CORE, "430 core"),
            (v(130, Profile::Core), Target::CORE, "430 core"),
            (v(140, Profile::Core), Target::CORE, "430 core"),
            (v(330, Profile::Core), Target::CORE, "430 core"),
            (v(330, Profile::Core), Target::COMPAT, "430 core"),
            (v(450, Profile::Core), Target::CORE, "450 core"),
            (
                v(150, Profile::Compatibility),
                Target::COMPAT,
                "430 compatibility",
            ),
            (v(100, Profile::Es), Target::COMPAT, "430 compatibility"),
            (v(300, Profile::Es), Target::ES, "310 es"),
            (v(320, Profile::Es), Target::ES, "320 es"),
        ];
        for (from, target, want) in cases {
            assert_eq!(
                output_version(from, target).map(|v| v.to_string()),
                Ok(want.to_string()),
                "{from}"
            );
        }
        assert!(output_version(v(150, Profile::Compatibility), Target::CORE).is_err());
        assert!(output_version(v(100, Profile::Es), Target::ES).is_err());
        assert!(output_version(v(330, Profile::Core), Target::ES).is_err());
    }

    /// A condition naming a built-in of the raised version resolves the same in
    /// every function, before or after `main` (it used to depend on whether
    /// `main`'s input logging had looked the name up yet).
    #[test]
    fn conditions_resolve_builtins_wherever_they_are() {
        let src = "attribute vec4 p;\nfloat before(float x) {\n    return x * 2.0;\n}\nfloat after(float x);\nvoid main() {\n    gl_Position = p * before(1.0) * after(1.0);\n}\nfloat after(float x) {\n    return x * 3.0;\n}\n";
        let parsed = crate::parse::parse(&[src], Stage::Vertex, None).unwrap();
        let table = probe_table(&parsed);
        for line in [3, 7, 10] {
            let probe = table.step_for_line(line).unwrap().id;
            let req = Request {
                mode: Mode::HitTest(vec![Breakpoint {
                    probe,
                    condition: Some("gl_VertexID == 0".into()),
                }]),
                target: Target::COMPAT,
                binding: 3,
            };
            assert!(instrument(&parsed, &req).is_ok(), "line {line}");
        }
    }

    /// NaN/Inf checks go after the statements that write outputs (and only
    /// those), count reaches of those steps, and leave the probe table as it
    /// is in every other mode.
    #[test]
    fn nan_inf_checks_follow_output_writes() {
        let src = "#version 330 core\nuniform float u;\nout vec4 color;\nvoid set(out vec4 c) { c = vec4(u); }\nvoid main() {\n    float x = 1.0 / u;\n    color = vec4(x);\n    color.y = x;\n    set(color);\n    x = x + 1.0;\n}\n";
        let parsed = crate::parse::parse(&[src], Stage::Fragment, None).unwrap();
        let plain = probe_table(&parsed);
        let out = instrument(
            &parsed,
            &Request {
                mode: Mode::HitTestNanInf(Vec::new()),
                target: Target::CORE,
                binding: 2,
            },
        )
        .unwrap();
        assert_eq!(out.probes.render(), plain.render());
        let glsl = &out.glsl;
        for (line, lhs) in [(7, "color"), (8, "color.y"), (9, "color")] {
            let p = plain.step_for_line(line).unwrap().id;
            assert!(
                glsl.contains(&format!("_sdbg_nan({p}u, "))
                    && glsl.contains(&format!("_sdbg_bad({lhs})")),
                "line {line}: {glsl}"
            );
        }
        // `c = vec4(u)` writes a parameter, not the output; `x` is no output
        // (+ 2 and + 1: the helpers' definitions).
        assert_eq!(glsl.matches("_sdbg_nan(").count(), 3 + 2, "{glsl}");
        assert_eq!(glsl.matches("_sdbg_nan_reach(").count(), 3 + 1, "{glsl}");
    }
}
