//! The sanitizer (`Mode::Sanitize`) end to end on llvmpipe: buggy compute
//! kernels and their fixed twins. Each bug is reported at its line with the
//! invocation, index and bound; each fixed twin reports nothing; the fixed
//! twins compute bit-identical results with and without sanitizing, and the
//! buggy ones too except where the out-of-bounds access itself decides.

use std::path::Path;

use expect_test::expect_file;
use shaderdbg_core::decode::{Access, Memory, SanitizerKind, SanitizerReport};
use shaderdbg_core::layout;
use shaderdbg_core::Invocation;
use shaderdbg_gl_headless::{ContextKind, Headless, Stage as GlStage};
use shaderdbg_glsl::instrument::{
    instrument, probe_table, Checks, Instrumented, Mode, Request, Target,
};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

mod common;

use common::sanitize::{
    compute, instrumented, read_reports, report_buffer, BINDING, OOB, RACE, UNINIT,
};

const SRC_BINDING: u32 = 0;
const DST_BINDING: u32 = 1;

/// What one dispatch produced: the output buffer's words, and with
/// sanitizing the reports and whether some were lost.
struct Outcome {
    dst: Vec<u32>,
    reports: Vec<SanitizerReport>,
    lost: bool,
}

const CORE: ContextKind = ContextKind::Core45;

/// A kernel of 16 invocations that copies `float src[]` (binding 0) into
/// a shared `float tile[16]` (and has `float dst[]` at binding 1), then
/// `$rest` (of `main`, invocation `i`).
macro_rules! tile16 {
    ($rest:literal) => {
        concat!(
            "#version 430\nlayout(local_size_x = 16) in;\n",
            "layout(std430, binding = 0) buffer Src { float src[]; };\n",
            "layout(std430, binding = 1) buffer Dst { float dst[]; };\n",
            "shared float tile[16];\n",
            "void main() {\n",
            "    uint i = gl_LocalInvocationID.x;\n",
            "    tile[i] = src[gl_GlobalInvocationID.x];\n",
            $rest
        )
    };
}

/// A kernel of 8 invocations with `float dst[]` at binding 1 and a shared
/// `float tile[8]`: the header, then `$main`.
macro_rules! tile8 {
    ($main:literal) => {
        concat!(
            "#version 430\nlayout(local_size_x = 8) in;\n",
            "layout(std430, binding = 1) buffer Dst { float dst[]; };\n",
            "shared float tile[8];\n",
            $main
        )
    };
}

/// Runs `comp` over `groups` work groups with `src` at binding 0 and a
/// zeroed output of `dst_words` words at binding 1, out-of-bounds checks
/// only if `sanitize`.
fn dispatch(comp: &str, sanitize: bool, groups: u32, src: &[u32], dst_words: usize) -> Outcome {
    dispatch_in(CORE, comp, sanitize.then_some(OOB), groups, src, dst_words)
}

/// [`dispatch`] in a context of `kind` with `checks` (none: not sanitized).
fn dispatch_in(
    kind: ContextKind,
    comp: &str,
    checks: Option<Checks>,
    groups: u32,
    src: &[u32],
    dst_words: usize,
) -> Outcome {
    let (gl, out, program) = compute(kind, comp, checks);
    let src_buf = gl
        .create_storage_buffer(SRC_BINDING, &layout::to_bytes(src))
        .expect("ssbo");
    let outcome = run_checked(&gl, &out, dst_words, || {
        gl.dispatch_compute(&program, groups, 1, 1)
            .expect("dispatch")
    });
    gl.delete_storage_buffer(src_buf).expect("delete");
    outcome
}

/// Runs `run` (a dispatch or a draw of `out`'s program) with a zeroed
/// output of `dst_words` words at binding 1 and a sanitize buffer for
/// `out`'s probes; what it produced.
fn run_checked(gl: &Headless, out: &Instrumented, dst_words: usize, run: impl FnOnce()) -> Outcome {
    let dst_buf = gl
        .create_storage_buffer(DST_BINDING, &vec![0u8; dst_words * 4])
        .expect("ssbo");
    let report_buf = report_buffer(gl, out, 64);
    run();
    let dst = layout::to_words(&gl.read_storage_buffer(&dst_buf).expect("read"));
    let (reports, lost) = read_reports(gl, &report_buf, out);
    for b in [dst_buf, report_buf] {
        gl.delete_storage_buffer(b).expect("delete");
    }
    Outcome { dst, reports, lost }
}

/// A fixed twin: `run` (a dispatch with the checks given, or none) under
/// `checks` reports nothing and computes what it computes unsanitized,
/// bit for bit; its output.
fn clean(run: impl Fn(Option<Checks>) -> Outcome, checks: Checks) -> Vec<u32> {
    let plain = run(None);
    let checked = run(Some(checks));
    assert_eq!(checked.reports, []);
    assert!(!checked.lost);
    assert_eq!(checked.dst, plain.dst);
    checked.dst
}

fn floats(words: &[u32]) -> Vec<f32> {
    words.iter().map(|w| f32::from_bits(*w)).collect()
}

/// The 1-based line of the first line of `src` containing `needle`.
fn line_of(src: &str, needle: &str) -> u32 {
    src.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in the shader")) as u32
        + 1
}

fn oob(line: u32, id: u32, index: i64, bound: u32) -> (u32, [u32; 3], SanitizerKind) {
    (line, [id, 0, 0], SanitizerKind::Oob { index, bound })
}

fn found(reports: &[SanitizerReport]) -> Vec<(u32, [u32; 3], SanitizerKind)> {
    reports
        .iter()
        .map(|r| {
            let Invocation::Compute { id } = r.invocation else {
                panic!("not a compute invocation: {}", r.invocation)
            };
            (r.line, id, r.kind)
        })
        .collect()
}

/// Off-by-one in a storage-buffer loop: each invocation copies a chunk of
/// four, and `k <= CHUNK` makes the last invocation read and write one past
/// the runtime-sized arrays' ends.
const CHUNKS: &str = "#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
const uint CHUNK = 4u;
void main() {
    uint base = gl_GlobalInvocationID.x * CHUNK;
    for (uint k = 0u; k LOOP_TEST; k++) {
        float v = src[base + k];
        dst[base + k] = v * 2.0 + 1.0;
    }
}
";

fn chunks(fixed: bool) -> String {
    CHUNKS.replace("LOOP_TEST", if fixed { "< CHUNK" } else { "<= CHUNK" })
}

fn chunk_src() -> Vec<u32> {
    (0..32).map(|i| (i as f32 * 0.25 + 3.0).to_bits()).collect()
}

#[test]
fn off_by_one_in_a_storage_buffer_loop() {
    let want: Vec<f32> = (0..32)
        .map(|i| (i as f32 * 0.25 + 3.0) * 2.0 + 1.0)
        .collect();
    let bug = chunks(false);
    let plain = dispatch(&bug, false, 2, &chunk_src(), 32);
    let checked = dispatch(&bug, true, 2, &chunk_src(), 32);
    assert_eq!(
        found(&checked.reports),
        [
            oob(line_of(&bug, "float v = src"), 7, 32, 32),
            oob(line_of(&bug, "dst[base + k] ="), 7, 32, 32),
        ]
    );
    assert!(!checked.lost);
    // The out-of-bounds element is outside what is read back: everything
    // else is identical, and right.
    assert_eq!(checked.dst, plain.dst);
    assert_eq!(floats(&checked.dst), want);

    let fix = chunks(true);
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 2, &chunk_src(), 32), OOB);
    assert_eq!(floats(&dst), want);
}

/// A negative index from an unsigned underflow: `i - 1u` at `i = 0`
/// indexes a fixed-size array (a storage-buffer member) at 4294967295.
const DIFFS: &str = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Weights { float weights[8]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    PREV
    dst[i] = weights[i] - prev;
}
";

fn diffs(fixed: bool) -> String {
    DIFFS.replace(
        "PREV",
        if fixed {
            "float prev = i > 0u ? weights[i - 1u] : 0.0;"
        } else {
            "uint j = i - 1u;\n    float prev = weights[j];"
        },
    )
}

#[test]
fn negative_index_from_an_unsigned_underflow() {
    let w: Vec<f32> = (0..8).map(|i| (i * i) as f32 + 0.5).collect();
    let src: Vec<u32> = w.iter().map(|f| f.to_bits()).collect();
    let want: Vec<f32> = (0..8)
        .map(|i| w[i] - if i > 0 { w[i - 1] } else { 0.0 })
        .collect();
    let bug = diffs(false);
    let plain = dispatch(&bug, false, 1, &src, 8);
    let checked = dispatch(&bug, true, 1, &src, 8);
    assert_eq!(
        found(&checked.reports),
        [oob(
            line_of(&bug, "float prev = weights[j]"),
            0,
            4294967295,
            8
        )]
    );
    // Invocation 0's result depends on the out-of-bounds read (the
    // sanitized read yields 0.0); the others are identical.
    assert_eq!(checked.dst[1..], plain.dst[1..]);
    assert_eq!(floats(&checked.dst), want);

    let fix = diffs(true);
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 1, &src, 8), OOB);
    assert_eq!(floats(&dst), want);
}

/// An out-of-bounds local array in a loop: the running sums of `1..=id+1`
/// kept in a local array one element too short for the last invocation.
const SUMS: &str = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 1) buffer Dst { float dst[]; };
void main() {
    uint id = gl_GlobalInvocationID.x;
    float acc[SIZE];
    float s = 0.0;
    for (int k = 0; k <= int(id); k++) {
        s += float(k + 1);
        acc[k] = s;
    }
    float t = 0.0;
    for (int k = 0; k <= int(id); k++) {
        t += acc[k];
    }
    dst[id] = t;
}
";

fn sums(fixed: bool) -> String {
    SUMS.replace("SIZE", if fixed { "8" } else { "7" })
}

#[test]
fn out_of_bounds_local_array_in_a_loop() {
    // sum over k <= id of (k + 1)(k + 2) / 2; invocation 7 of the buggy
    // kernel loses its last term (the skipped write, the read as 0.0).
    let tri = |k: u32| ((k + 1) * (k + 2) / 2) as f32;
    let want = |id: u32, last: u32| (0..=id.min(last)).map(tri).sum::<f32>();
    let bug = sums(false);
    let plain = dispatch(&bug, false, 1, &[0], 8);
    let checked = dispatch(&bug, true, 1, &[0], 8);
    assert_eq!(
        found(&checked.reports),
        [
            oob(line_of(&bug, "acc[k] = s"), 7, 7, 7),
            oob(line_of(&bug, "t += acc[k]"), 7, 7, 7),
        ]
    );
    assert_eq!(checked.dst[..7], plain.dst[..7]);
    let got = floats(&checked.dst);
    assert_eq!(got, (0..8).map(|id| want(id, 6)).collect::<Vec<_>>());

    let fix = sums(true);
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 1, &[0], 8), OOB);
    assert_eq!(
        floats(&dst),
        (0..8).map(|id| want(id, 7)).collect::<Vec<_>>()
    );
}

/// The instrumented GLSL of the off-by-one kernel (bounds checks) and of
/// the reduction missing a barrier (every check), to read and review.
#[test]
fn sanitized_kernels_match_snapshots() {
    let kernels = [
        (chunks(false), OOB, "chunks.comp.glsl"),
        (reduce(false), Checks::ALL, "reduce.comp.glsl"),
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let name = "runtime.sanitize.glsl";
    let runtime = std::fs::read_to_string(dir.join("snapshots").join(name)).expect("runtime");
    for (src, checks, file) in kernels {
        let parsed = parse(&[src.as_str()], Stage::Compute, None).expect("parses");
        let req = Request {
            mode: Mode::Sanitize(checks),
            target: Target::CORE,
            binding: BINDING,
        };
        let out = instrument(&parsed, &req).expect("instruments");
        // The runtime items that the sanitize snapshots already show are left out.
        let shown = common::without_runtime(&out.glsl, &runtime, name);
        expect_file![dir.join("sanitize").join(file)].assert_eq(&shown);
    }
}

/// A shared-memory read before any invocation wrote the element: the
/// last element of the tile is never written, and two invocations read it
/// at two lines.
const NEIGHBOURS: &str = tile8!(
    "void main() {
    uint i = gl_LocalInvocationID.x;
    WRITE
    memoryBarrierShared();
    barrier();
    float right = tile[(i + 1u) % 8u];
    dst[gl_GlobalInvocationID.x] = tile[i] + right;
}
"
);

fn neighbours(fixed: bool) -> String {
    NEIGHBOURS.replace(
        "WRITE",
        if fixed {
            "tile[i] = float(i) * 1.5;"
        } else {
            "if (i < 7u) tile[i] = float(i) * 1.5;"
        },
    )
}

#[test]
fn shared_memory_read_before_write() {
    let bug = neighbours(false);
    let plain = dispatch_in(CORE, &bug, None, 2, &[0], 16);
    let checked = dispatch_in(CORE, &bug, Some(UNINIT), 2, &[0], 16);
    let table = probe_table(&parse(&[bug.as_str()], Stage::Compute, None).expect("parses"));
    let tile = table
        .vars
        .iter()
        .position(|v| v.name == "tile")
        .expect("tile");
    let uninit = |line, id| {
        (
            line,
            [id, 0, 0],
            SanitizerKind::UninitRead {
                decl: tile,
                element: 7,
            },
        )
    };
    // Both work groups read tile[7]: the first report of each line is from
    // either; the local invocation is the same.
    let got: Vec<_> = found(&checked.reports)
        .into_iter()
        .map(|(line, id, kind)| (line, [id[0] % 8, id[1], id[2]], kind))
        .collect();
    assert_eq!(
        got,
        [
            uninit(line_of(&bug, "float right"), 6),
            uninit(line_of(&bug, "tile[i] + right"), 7),
        ]
    );
    // Only what reads tile[7] may differ.
    for g in [0, 8] {
        assert_eq!(checked.dst[g..g + 6], plain.dst[g..g + 6]);
    }

    let fix = neighbours(true);
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 2, &[0], 16), Checks::ALL);
    let want: Vec<f32> = (0..16)
        .map(|g| (g % 8) as f32 * 1.5 + ((g + 1) % 8) as f32 * 1.5)
        .collect();
    assert_eq!(floats(&dst), want);
}

/// What the shadow models without false reports: one invocation writes a
/// shared counter, a barrier, atomics on it and on the elements of a
/// shared histogram, writes through a field and a swizzle, `+=` after a
/// write.
#[test]
fn shared_memory_written_before_read_reports_nothing() {
    let comp = "#version 430
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Src { uint values[]; };
layout(std430, binding = 1) buffer Dst { uint dst[]; };
struct Stats { uint total; vec2 range; };
shared uint count;
shared uint hist[4];
shared Stats stats;
shared vec4 parts[16];
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) {
        count = 0u;
        stats.total = 0u;
        stats.range = vec2(0.0);
    }
    if (i < 4u) hist[i] = 0u;
    parts[i].xy = vec2(float(i));
    parts[i].zw = vec2(1.0);
    parts[i] += vec4(1.0);
    memoryBarrierShared();
    barrier();
    atomicAdd(count, 1u);
    atomicAdd(hist[values[gl_GlobalInvocationID.x] % 4u], 1u);
    atomicAdd(stats.total, values[gl_GlobalInvocationID.x]);
    memoryBarrierShared();
    barrier();
    vec4 p = parts[(i + 1u) % 16u];
    dst[gl_GlobalInvocationID.x] = count * 1000u + hist[i % 4u] * 100u + stats.total + uint(p.x + p.w);
}
";
    let src: Vec<u32> = (0..32).map(|i| (i * 7 + 3) % 11).collect();
    let dst = clean(|c| dispatch_in(CORE, comp, c, 2, &src, 32), Checks::ALL);
    let want: Vec<u32> = (0..32usize)
        .map(|g| {
            let group = &src[g / 16 * 16..g / 16 * 16 + 16];
            let hist = group
                .iter()
                .filter(|v| **v % 4 == (g as u32 % 16) % 4)
                .count() as u32;
            let total: u32 = group.iter().sum();
            let next = (g as u32 % 16 + 1) % 16;
            16 * 1000 + hist * 100 + total + (next + 1) + 2
        })
        .collect();
    assert_eq!(dst, want);
}

/// Index shapes the rewrite must keep working: matrices and vectors by
/// variable indices, arrays of arrays, arrays of structs in a storage
/// buffer, `out`/`inout` arguments, `++` and assignments inside
/// expressions, compound assignments, swizzled writes, indices with side
/// effects. Without a bug nothing is reported and the results are
/// identical; with `BUG` defined an early `return` in `main` still writes
/// the violations of the invocation that returns.
const SHAPES: &str = "#version 430
layout(local_size_x = 8) in;
struct Item { vec2 p; float w[3]; };
layout(std430, binding = 0) buffer Src { Item items[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
void bump(inout float x, out int n) { x += 1.0; n = 2; }
void main() {
    uint id = gl_GlobalInvocationID.x;
    int k = int(id % 3u);
    mat3 m = mat3(float(id));
    vec4 v = vec4(1.0, 2.0, 3.0, 4.0);
    float grid[2][3];
    for (int a = 0; a < 2; a++) for (int b = 0; b < 3; b++) grid[a][b] = float(a * 3 + b);
    int n = 0;
    bump(grid[k % 2][k], n);
    float s = m[k][2 - k] + v[k + 1] + grid[1][k];
    v[k] += s;
    v.yzw[k] = 0.5;
    int j = 0;
    float picked = items[id].w[j++] + items[id].w[j++];
    float q = (grid[0][k] = 7.0) + float(j);
    int c = 0;
    grid[1][c++] *= 2.0;
    items[id].p[k % 2] = float(n) + picked;
#ifdef BUG
    if (id == 5u) {
        dst[id + 100u] = 1.0;
        return;
    }
#endif
    dst[id] = s + v.x + v.y + v.z + v.w + q + grid[1][0] + items[id].p.x + items[id].p.y;
}
";

#[test]
fn index_shapes_are_checked_without_changing_results() {
    // Items of 6 words (vec2 + float[3], std430: 8-byte alignment).
    let src: Vec<u32> = (0..8 * 6).map(|i| (i as f32 * 0.5).to_bits()).collect();
    let plain = clean(|c| dispatch_in(CORE, SHAPES, c, 1, &src, 8), OOB);
    assert!(floats(&plain).iter().all(|f| f.is_finite() && *f != 0.0));

    let bug = SHAPES.replace("#version 430\n", "#version 430\n#define BUG\n");
    let checked = dispatch(&bug, true, 1, &src, 8);
    assert_eq!(
        found(&checked.reports),
        [oob(line_of(&bug, "dst[id + 100u]"), 5, 105, 8)]
    );
    assert_eq!(checked.dst[..5], plain[..5]);
    assert_eq!(checked.dst[6..], plain[6..]);
    assert_eq!(checked.dst[5], 0);
}

/// The two checks are independent filters: bounds checks alone report no
/// uninitialized reads, and the uninitialized-read check alone reports no
/// out-of-bounds index (it still keeps shared indices in bounds).
#[test]
fn checks_are_independent() {
    let comp = tile8!(
        "void main() {
    uint i = gl_LocalInvocationID.x;
    if (i > 0u) tile[i] = 1.0;
    barrier();
    float a = tile[0];
    float b = tile[i + 1u];
    dst[i + 1u] = a + b;
}
"
    );
    let oob_only = dispatch(comp, true, 1, &[0], 8);
    assert_eq!(
        found(&oob_only.reports),
        [
            oob(line_of(comp, "float b"), 7, 8, 8),
            oob(line_of(comp, "dst[i + 1u]"), 7, 8, 8),
        ]
    );
    let uninit_only = dispatch_in(CORE, comp, Some(UNINIT), 1, &[0], 8);
    let kinds: Vec<(u32, bool)> = uninit_only
        .reports
        .iter()
        .map(|r| {
            (
                r.line,
                matches!(r.kind, SanitizerKind::UninitRead { element: 0, .. }),
            )
        })
        .collect();
    assert_eq!(kinds, [(line_of(comp, "float a"), true)]);
    // Every check: a shared read's bounds check reports from the race
    // check's call site, alike (invocation 7's third report, the
    // output's index, is lost to its two).
    let all = dispatch_in(CORE, comp, Some(Checks::ALL), 1, &[0], 8);
    let mut got = found(&all.reports);
    got.sort_by_key(|r| r.0);
    let a = line_of(comp, "float a");
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].0 == a && matches!(got[0].2, SanitizerKind::UninitRead { element: 0, .. }),
        "{got:?}"
    );
    assert_eq!(got[1], oob(line_of(comp, "float b"), 7, 8, 8));
    assert!(all.lost);
}

/// GLSL ES 3.10 compute, raised to nothing else: precision qualifiers on
/// everything generated, the same reports.
#[test]
fn es_compute_is_sanitized_alike() {
    let es = |src: &str| src.replace("#version 430", "#version 310 es\nprecision highp float;");
    let bug = es(&chunks(false));
    let checked = dispatch_in(
        ContextKind::Gles32,
        &bug,
        Some(Checks::ALL),
        2,
        &chunk_src(),
        32,
    );
    assert_eq!(
        found(&checked.reports),
        [
            oob(line_of(&bug, "float v = src"), 7, 32, 32),
            oob(line_of(&bug, "dst[base + k] ="), 7, 32, 32),
        ]
    );
    let fix = es(&neighbours(true));
    let es32 = ContextKind::Gles32;
    clean(|c| dispatch_in(es32, &fix, c, 2, &[0], 16), Checks::ALL);
    let bug = es(&neighbours(false));
    let checked = dispatch_in(ContextKind::Gles32, &bug, Some(Checks::ALL), 1, &[0], 8);
    assert_eq!(checked.reports.len(), 2, "{:?}", checked.reports);
}

/// A reduction missing the barrier between one step's writes and the next
/// step's reads of the shared tile: invocation `i` reads `tile[i + s]`,
/// which invocation `i + s` wrote a step before, between the same two
/// barriers. On llvmpipe the result is right anyway (a work group runs in
/// order on one thread); on another driver it would not be.
const REDUCE: &str = tile16!(
    "    memoryBarrierShared();
    barrier();
    for (uint s = 8u; s > 0u; s >>= 1u) {
        if (i < s) {
            float other = tile[i + s];
            tile[i] = tile[i] + other;
        }
        SYNC
    }
    if (i == 0u) dst[gl_WorkGroupID.x] = tile[0];
}
"
);

fn reduce(fixed: bool) -> String {
    REDUCE.replace(
        "SYNC",
        if fixed {
            "memoryBarrierShared();\n        barrier();"
        } else {
            ""
        },
    )
}

/// The race reports of `reports` as (line, local id, other line, other
/// local id, element, this access, other access).
fn races(reports: &[SanitizerReport]) -> Vec<(u32, u32, u32, u32, u32, Access, Access)> {
    reports
        .iter()
        .filter_map(|r| {
            let (
                Invocation::Compute { id },
                SanitizerKind::Race {
                    element,
                    access,
                    other,
                    other_line,
                    other_access,
                    ..
                },
            ) = (r.invocation, r.kind)
            else {
                return None;
            };
            let Invocation::Compute { id: o } = other else {
                return None;
            };
            Some((
                r.line,
                id[0],
                other_line,
                o[0],
                element,
                access,
                other_access,
            ))
        })
        .collect()
}

#[test]
fn reduction_without_a_barrier_races() {
    let src: Vec<u32> = (0..32).map(|i| (i as f32 * 0.5 + 1.0).to_bits()).collect();
    let bug = reduce(false);
    let plain = dispatch_in(CORE, &bug, None, 2, &src, 2);
    let checked = dispatch_in(CORE, &bug, Some(RACE), 2, &src, 2);
    let read = line_of(&bug, "float other = tile[i + s]");
    let write = line_of(&bug, "tile[i] = tile[i] + other");
    let got = races(&checked.reports);
    assert_eq!(got.len(), 1, "{:?}", checked.reports);
    let (line, id, other_line, other, element, access, other_access) = got[0];
    // Invocation `i` of either work group read what `i + s` wrote at the
    // step before (s = 4, 2 or 1), no barrier between.
    assert_eq!(
        (line, other_line, access, other_access),
        (read, write, Access::Read, Access::Write)
    );
    let (id, other) = (id % 16, other % 16);
    assert!(
        [4, 2, 1].contains(&(other - id)) && id < other - id,
        "{got:?}"
    );
    assert_eq!(element, other);
    // The value read is taken right after the read: what the other wrote.
    let read: Vec<_> = checked
        .reports
        .iter()
        .filter_map(|r| match r.kind {
            SanitizerKind::Race {
                value, other_value, ..
            } => Some((value, other_value)),
            _ => None,
        })
        .collect();
    assert!(read[0].0.is_some() && read[0].0 == read[0].1, "{read:?}");
    assert!(!checked.lost);
    // Sanitizing changes nothing the kernel computes.
    assert_eq!(checked.dst, plain.dst);

    let fix = reduce(true);
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 2, &src, 2), Checks::ALL);
    let sum = |g: usize| {
        (g * 16..g * 16 + 16)
            .map(|i| i as f32 * 0.5 + 1.0)
            .sum::<f32>()
    };
    assert_eq!(floats(&dst), [sum(0), sum(1)]);
}

/// A histogram in shared memory: with atomics nothing races (and a
/// barrier orders the counts before they are read); with `+= 1u`
/// invocations of one bin race at that line.
const HISTOGRAM: &str = "#version 430
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer Src { uint values[]; };
layout(std430, binding = 1) buffer Dst { uint dst[]; };
shared uint hist[4];
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i < 4u) hist[i] = 0u;
    barrier();
    uint b = values[gl_GlobalInvocationID.x] % 4u;
    COUNT
    barrier();
    if (i < 4u) dst[gl_WorkGroupID.x * 4u + i] = hist[i];
}
";

#[test]
fn atomics_on_shared_memory_do_not_race() {
    let src: Vec<u32> = (0..64).map(|i| (i * 7 + 3) % 13).collect();
    let fix = HISTOGRAM.replace("COUNT", "atomicAdd(hist[b], 1u);");
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 2, &src, 8), Checks::ALL);
    let want: Vec<u32> = (0..8)
        .map(|k| {
            let group = &src[k / 4 * 32..k / 4 * 32 + 32];
            group.iter().filter(|v| **v % 4 == k as u32 % 4).count() as u32
        })
        .collect();
    assert_eq!(dst, want);

    let bug = HISTOGRAM.replace("COUNT", "hist[b] += 1u;");
    let checked = dispatch_in(CORE, &bug, Some(RACE), 2, &src, 8);
    let line = line_of(&bug, "hist[b] += 1u");
    let got = races(&checked.reports);
    assert_eq!(got.len(), 1, "{:?}", checked.reports);
    // Which of the two found the other depends on the order they ran in:
    // a read then a write, or the other way round, or two writes.
    let (l, id, other_line, other, element, access, other_access) = got[0];
    assert_eq!((l, other_line), (line, line));
    assert!(
        access == Access::Write || other_access == Access::Write,
        "{got:?}"
    );
    assert_ne!(id, other);
    assert_eq!(src[id as usize] % 4, element);
    assert_eq!(src[other as usize] % 4, element);
}

/// A write racing with an atomic function is a race (only two atomics are
/// not); writes to different fields of one shared struct by two
/// invocations are not compared.
#[test]
fn atomic_against_plain_write_races_and_fields_do_not() {
    let comp = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 1) buffer Dst { uint dst[]; };
struct Pair { uint a; uint b; };
shared uint count;
shared Pair pair;
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) count = 0u;
    if (i == 1u) pair.a = 1u;
    if (i == 2u) pair.b = 2u;
    barrier();
    if (i == 3u) count = 5u;
    atomicAdd(count, 1u);
    barrier();
    dst[i] = count + pair.a + pair.b;
}
";
    let checked = dispatch_in(CORE, comp, Some(RACE), 1, &[0], 8);
    let got = races(&checked.reports);
    assert_eq!(got.len(), 1, "{:?}", checked.reports);
    let (line, _, other_line, _, element, _, _) = got[0];
    let lines = [line, other_line];
    assert!(lines.contains(&line_of(comp, "count = 5u")), "{got:?}");
    assert!(lines.contains(&line_of(comp, "atomicAdd(count")), "{got:?}");
    assert_eq!(element, 0);
}

/// The barrier epoch wraps every 128 barriers: what an invocation wrote
/// 128 barriers ago is not taken for a write of the current epoch (the
/// work group clears the race shadow as the epoch wraps), and races after
/// the wrap are still found.
#[test]
fn races_are_told_apart_across_many_barriers() {
    let comp = tile8!(
        "void main() {
    uint i = gl_LocalInvocationIndex;
    tile[i] = float(i);
    for (int k = 0; k < ROUNDS; k++) {
        barrier();
    }
    float right = tile[(i + 1u) % 8u];
    RACE
    dst[i] = right;
}
"
    );
    for rounds in [127, 128, 129, 256, 300] {
        let src = comp.replace("ROUNDS", &rounds.to_string());
        let fix = src.replace("RACE", "");
        let checked = dispatch_in(CORE, &fix, Some(RACE), 1, &[0], 8);
        assert_eq!(checked.reports, [], "{rounds} barriers");
        let want: Vec<f32> = (0..8).map(|i| ((i + 1) % 8) as f32).collect();
        assert_eq!(floats(&checked.dst), want);
        let bug = src.replace("RACE", "tile[i] = right;");
        let checked = dispatch_in(CORE, &bug, Some(RACE), 1, &[0], 8);
        assert_eq!(races(&checked.reports).len(), 1, "{rounds} barriers");
    }
}

/// With the race check, a shared element's writer word also says that it
/// was written (no shadow of its own for uninitialized reads): the epoch's
/// wrap, which clears the race shadow, keeps that, so a read of an element
/// written before the wrap is not reported and one of an element never
/// written is.
#[test]
fn written_shared_elements_stay_written_across_the_epochs_wrap() {
    let comp = tile8!(
        "void main() {
    uint i = gl_LocalInvocationIndex;
    if (i < 4u) tile[i] = float(i);
    for (int k = 0; k < ROUNDS; k++) {
        barrier();
    }
    float a = tile[i % 4u];
    dst[i] = a + tile[i];
}
"
    );
    for rounds in [1, 127, 128, 129, 300] {
        let src = comp.replace("ROUNDS", &rounds.to_string());
        let checked = dispatch_in(CORE, &src, Some(Checks::ALL), 1, &[0], 8);
        let got = found(&checked.reports);
        let line = line_of(&src, "dst[i] = a + tile[i]");
        assert_eq!(got.len(), 1, "{rounds} barriers: {got:?}");
        let (at, id, kind) = got[0];
        assert_eq!(at, line, "{rounds} barriers: {got:?}");
        assert!(
            matches!(kind, SanitizerKind::UninitRead { element, .. } if element == id[0] && element >= 4),
            "{rounds} barriers: {got:?}"
        );
    }
}

/// Reports are kept once per kind and pair of steps: a read that races
/// with writes at two statements is two reports (the second partner of a
/// step used to be dropped, on the GPU and in the invocation's registers).
#[test]
fn a_step_racing_with_two_others_is_two_reports() {
    let comp = tile8!(
        "void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 1u) tile[0] = 1.0;
    if (i == 2u) tile[1] = 2.0;
    if (i == 0u) dst[0] = tile[0] + tile[1];
}
"
    );
    let checked = dispatch_in(CORE, comp, Some(RACE), 1, &[0], 8);
    let read = line_of(comp, "dst[0] = tile[0] + tile[1]");
    let mut got = races(&checked.reports);
    got.sort();
    assert_eq!(
        got,
        [
            (read, 0, read - 2, 1, 0, Access::Read, Access::Write),
            (read, 0, read - 1, 2, 1, Access::Read, Access::Write),
        ],
        "{:?}",
        checked.reports
    );
    assert!(!checked.lost);
}

/// Invocations that write the same value to a shared element between two
/// barriers (a flag set by whoever finds something) do not race; writing
/// different values (who found it) does.
#[test]
fn invocations_writing_the_same_value_do_not_race() {
    let comp = "#version 430
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer Src { uint values[]; };
layout(std430, binding = 1) buffer Dst { uint dst[]; };
shared bool found;
shared uint marks[2];
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) found = false;
    if (i < 2u) marks[i] = 0u;
    barrier();
    if (values[gl_GlobalInvocationID.x] > 5u) {
        found = true;
        marks[1] = 7u;
        WHO
    }
    barrier();
    dst[i] = (found ? 1u : 0u) + marks[1] + marks[0];
}
";
    let src: Vec<u32> = (0..32).map(|i| (i * 7 + 3) % 13).collect();
    let fix = comp.replace("WHO", "");
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 1, &src, 32), Checks::ALL);
    assert_eq!(dst, vec![8; 32]);

    let bug = comp.replace("WHO", "marks[0] = i;");
    let checked = dispatch_in(CORE, &bug, Some(RACE), 1, &src, 32);
    let got = races(&checked.reports);
    assert_eq!(got.len(), 1, "{:?}", checked.reports);
    let (line, _, other_line, _, element, access, other_access) = got[0];
    let at = line_of(&bug, "marks[0] = i;");
    assert_eq!(
        (line, other_line, element, access, other_access),
        (at, at, 0, Access::Write, Access::Write)
    );
}

/// A prefix sum with a `barrier()` inside divergent control flow
/// (undefined behaviour: not every invocation reaches it) says so: the
/// barrier reached by 15 of 16 invocations. Its fixed twin (the barrier
/// where all reach it) reports nothing.
const SCAN: &str = tile16!(
    "    barrier();
    for (uint s = 1u; s < 16u; s <<= 1u) {
        STEP
        barrier();
    }
    dst[gl_GlobalInvocationID.x] = tile[i];
}
"
);

#[test]
fn barrier_in_divergent_control_flow_is_reported() {
    let src: Vec<u32> = (0..16).map(|i| (i as f32 + 1.0).to_bits()).collect();
    let bug = SCAN.replace(
        "STEP",
        "if (i >= s) {\n            float t = tile[i - s];\n            barrier();\n            tile[i] += t;\n        }",
    );
    let checked = dispatch_in(CORE, &bug, Some(RACE), 1, &src, 16);
    let inner = line_of(&bug, "            barrier();");
    let divergent: Vec<(u32, SanitizerKind)> = checked
        .reports
        .iter()
        .filter(|r| matches!(r.kind, SanitizerKind::DivergentBarrier { .. }))
        .map(|r| (r.line, r.kind))
        .collect();
    let want = SanitizerKind::DivergentBarrier {
        arrived: 15,
        invocations: 16,
    };
    assert_eq!(divergent, [(inner, want)], "{:?}", checked.reports);

    let fix = SCAN.replace(
        "STEP",
        "float t = i >= s ? tile[i - s] : 0.0;\n        barrier();\n        tile[i] += t;",
    );
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 1, &src, 16), Checks::ALL);
    let want: Vec<f32> = (1..=16).map(|n| (n * (n + 1) / 2) as f32).collect();
    assert_eq!(floats(&dst), want);
}

/// Barriers without shared variables: counted (all arrive), nothing else.
#[test]
fn barriers_without_shared_memory_report_nothing() {
    let comp = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 1) buffer Dst { uint dst[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    dst[i] = i;
    memoryBarrierBuffer();
    barrier();
    dst[i] += 1u;
}
";
    let dst = clean(|c| dispatch_in(CORE, comp, c, 1, &[0], 8), Checks::ALL);
    assert_eq!(dst, (1..=8).collect::<Vec<u32>>());
}

/// The race reports of `reports` on storage buffers: (line, global id,
/// other line, other global id, element, this access, other access).
fn storage_races(reports: &[SanitizerReport]) -> Vec<(u32, u32, u32, u32, u32, Access, Access)> {
    let storage: Vec<SanitizerReport> = reports
        .iter()
        .filter(|r| {
            matches!(
                r.kind,
                SanitizerKind::Race {
                    memory: Memory::Storage { .. },
                    ..
                }
            )
        })
        .copied()
        .collect();
    races(&storage)
}

/// Two work groups writing the same output element race (nothing orders
/// invocations of different work groups within a dispatch); writing each
/// its own element, or the same value, does not.
const SCATTER: &str = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    float v = src[gl_GlobalInvocationID.x];
    dst[INDEX] = VALUE;
}
";

#[test]
fn two_work_groups_writing_the_same_output_element_race() {
    let src: Vec<u32> = (0..16).map(|i| (i as f32 + 1.0).to_bits()).collect();
    let bug = SCATTER.replace("INDEX", "i").replace("VALUE", "v");
    let plain = dispatch_in(CORE, &bug, None, 2, &src, 16);
    let checked = dispatch_in(CORE, &bug, Some(RACE), 2, &src, 16);
    let at = line_of(&bug, "dst[i] = v;");
    let got = storage_races(&checked.reports);
    assert_eq!(got.len(), 1, "{:?}", checked.reports);
    let (line, id, other_line, other, element, access, other_access) = got[0];
    assert_eq!(
        (line, other_line, access, other_access),
        (at, at, Access::Write, Access::Write)
    );
    assert_eq!((id % 8, other % 8, element), (element, element, id % 8));
    assert_ne!(id / 8, other / 8, "{got:?}");
    // The values both wrote travel with the report.
    let SanitizerKind::Race {
        value, other_value, ..
    } = checked.reports[0].kind
    else {
        unreachable!()
    };
    assert_eq!(value, Some(src[id as usize]));
    // The other's value is known unless the two wrote the shadow at once.
    assert!(
        [None, Some(src[other as usize])].contains(&other_value),
        "{other_value:?}"
    );
    assert!(!checked.lost);
    // A race: which work group writes last is up to the driver's threads,
    // in either run. What the sanitized run may write is what some run of
    // the program writes: each element one of its two writers' values.
    for run in [&plain.dst, &checked.dst] {
        for (e, v) in run.iter().enumerate().take(8) {
            assert!([src[e], src[e + 8]].contains(v), "{run:?}");
        }
        assert_eq!(run[8..], plain.dst[8..]);
    }

    let fix = SCATTER
        .replace("INDEX", "gl_GlobalInvocationID.x")
        .replace("VALUE", "v");
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 2, &src, 16), Checks::ALL);
    assert_eq!(dst, src);
    let same = SCATTER.replace("INDEX", "i").replace("VALUE", "1.0");
    clean(|c| dispatch_in(CORE, &same, c, 2, &src, 16), Checks::ALL);
}

/// A write finds another invocation's read of its element that nothing
/// orders with it in either reader record (the element's readers of even
/// and odd ids keep one each), with or without a fence (which changes
/// how the check looks: a loop); a barrier between them orders the two.
const READ_THEN_WRITE: &str = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 1) buffer Dst { float dst[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    float v = i == READERu ? dst[WRITERu] : 0.0;
    SYNC
    dst[i] = v + 1.0;
}
";

#[test]
fn a_storage_write_races_with_an_earlier_read_of_either_parity() {
    for (reader, writer) in [(0, 1), (3, 6)] {
        let bug = READ_THEN_WRITE
            .replace("READER", &reader.to_string())
            .replace("WRITER", &writer.to_string());
        let (read, write) = (line_of(&bug, "float v"), line_of(&bug, "dst[i] = v"));
        let want = (
            write,
            writer,
            read,
            reader,
            writer,
            Access::Write,
            Access::Read,
        );
        for fence in ["", "memoryBarrierBuffer();"] {
            let run = bug.replace("SYNC", fence);
            let checked = dispatch_in(CORE, &run, Some(RACE), 1, &[0], 8);
            let got = storage_races(&checked.reports);
            assert_eq!(got, [want], "{fence}: {:?}", checked.reports);
        }
        let fix = bug.replace("SYNC", "memoryBarrierBuffer();\n    barrier();");
        clean(|c| dispatch_in(CORE, &fix, c, 1, &[0], 8), Checks::ALL);
    }
}

/// In a dispatch of work groups along x, y and z, a storage race names
/// the other invocation by its global id (the record's id, linear over
/// the dispatch, is taken apart on the GPU without an integer division):
/// two work groups write the same elements.
#[test]
fn a_storage_race_names_the_other_invocation_in_a_dispatch_of_three_dimensions() {
    let src: Vec<u32> = (0..8).map(|i| (i as f32 + 1.0).to_bits()).collect();
    let bug = SCATTER
        .replace("src[gl_GlobalInvocationID.x]", "src[i] + float(gl_WorkGroupID.z)")
        .replace(
            "dst[INDEX] = VALUE;",
            "if (gl_WorkGroupID == uvec3(1u, 1u, 0u) || gl_WorkGroupID == uvec3(2u, 1u, 1u)) dst[i] = v;",
        );
    let (gl, out, program) = compute(CORE, &bug, Some(RACE));
    let src_buf = gl
        .create_storage_buffer(SRC_BINDING, &layout::to_bytes(&src))
        .expect("ssbo");
    let checked = run_checked(&gl, &out, 8, || {
        gl.dispatch_compute(&program, 3, 2, 2).expect("dispatch")
    });
    gl.delete_storage_buffer(src_buf).expect("delete");
    assert_eq!(checked.reports.len(), 1, "{:?}", checked.reports);
    let r = &checked.reports[0];
    let (
        Invocation::Compute { id },
        SanitizerKind::Race {
            element,
            other: Invocation::Compute { id: other },
            ..
        },
    ) = (r.invocation, r.kind)
    else {
        panic!("{r:?}")
    };
    let mut groups = [id, other].map(|g| [g[0] / 8, g[1], g[2]]);
    groups.sort();
    assert_eq!(groups, [[1, 1, 0], [2, 1, 1]], "{r:?}");
    assert_eq!((id[0] % 8, other[0] % 8), (element, element), "{r:?}");
}

/// Storage accesses past the elements the race shadow holds are not
/// checked, and the buffer says so (`layout::sanitize_unchecked`), rather
/// than leaving them out silently.
#[test]
fn accesses_past_the_storage_shadow_are_told() {
    let src: Vec<u32> = (0..16).map(|i| (i as f32 + 1.0).to_bits()).collect();
    let bug = SCATTER.replace("INDEX", "i").replace("VALUE", "v");
    let (gl, out, program) = compute(CORE, &bug, Some(RACE));
    let src_buf = gl
        .create_storage_buffer(SRC_BINDING, &layout::to_bytes(&src))
        .expect("ssbo");
    let dst_buf = gl
        .create_storage_buffer(DST_BINDING, &[0u8; 64])
        .expect("ssbo");
    // Slots for 4 of the 16 elements: the race on elements 0..3 is
    // found, accesses to the others are skipped and said to be.
    for (slots, short) in [(4, true), (16, false)] {
        let report = gl
            .create_storage_buffer(
                BINDING,
                &layout::new_sanitize_buffer_with_shadow(64, out.probes.probes.len(), slots),
            )
            .expect("ssbo");
        gl.dispatch_compute(&program, 2, 1, 1).expect("dispatch");
        let words = layout::to_words(&gl.read_storage_buffer(&report).expect("read"));
        assert_eq!(
            layout::sanitize_unchecked(&words),
            (short, false),
            "{slots} slots"
        );
        let (reports, lost) = read_reports(&gl, &report, &out);
        assert!(!lost, "{slots} slots");
        let elements: Vec<u32> = storage_races(&reports).iter().map(|r| r.4).collect();
        let checked = if short { slots } else { 8 };
        assert!(
            !elements.is_empty() && elements.iter().all(|&e| e < checked),
            "{reports:?}"
        );
        gl.delete_storage_buffer(report).expect("delete");
    }
    for b in [src_buf, dst_buf] {
        gl.delete_storage_buffer(b).expect("delete");
    }
}

/// Within a work group, `barrier()` (with `memoryBarrierBuffer()`)
/// orders storage accesses: a neighbour's element read after it is no
/// race, read without it is; across work groups nothing orders them.
const NEIGHBOUR: &str = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 1) buffer Dst { uint dst[]; };
layout(std430, binding = 0) buffer Src { uint got[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    uint base = gl_WorkGroupID.x * 8u;
    dst[base + i] = i + 1u;
    SYNC
    got[base + i] = dst[NEXT];
}
";

#[test]
fn storage_accesses_are_ordered_by_barriers_within_a_work_group_only() {
    let sync = "memoryBarrierBuffer();\n    barrier();";
    let within = "base + (i + 1u) % 8u";
    let fix = NEIGHBOUR.replace("SYNC", sync).replace("NEXT", within);
    let src = vec![0u32; 16];
    clean(|c| dispatch_in(CORE, &fix, c, 2, &src, 16), Checks::ALL);

    let read = line_of(NEIGHBOUR, "got[base + i]");
    let write = line_of(NEIGHBOUR, "dst[base + i] = i + 1u;");
    // No barrier: a neighbour of the same work group.
    let bug = NEIGHBOUR.replace("SYNC", "").replace("NEXT", within);
    let checked = dispatch_in(CORE, &bug, Some(RACE), 2, &src, 16);
    let got = storage_races(&checked.reports);
    assert_eq!(got.len(), 1, "{:?}", checked.reports);
    let (line, id, other_line, other, ..) = got[0];
    assert_eq!(id / 8, other / 8, "{got:?}");
    assert_eq!([line, other_line].iter().filter(|l| **l == read).count(), 1);
    assert!([line, other_line].contains(&write), "{got:?}");
    // The values: what the writer wrote (`i + 1u`), and what the reader
    // read, taken right after the read (where the reader found the race).
    let SanitizerKind::Race {
        access,
        value,
        other_value,
        ..
    } = checked.reports[0].kind
    else {
        unreachable!()
    };
    let (writer, reader) = if access == Access::Read {
        (other, id)
    } else {
        (id, other)
    };
    assert_eq!((writer % 8 + 7) % 8, reader % 8, "{got:?}");
    if access == Access::Read {
        assert_eq!(value, Some(writer % 8 + 1));
        assert!([None, value].contains(&other_value), "{other_value:?}");
    } else {
        assert_eq!(value, Some(writer % 8 + 1));
    }

    // A barrier, but the last invocation reads the next work group's
    // first element.
    let across = NEIGHBOUR
        .replace("SYNC", sync)
        .replace("NEXT", "(base + i + 1u) % 16u");
    let checked = dispatch_in(CORE, &across, Some(RACE), 2, &src, 16);
    let got = storage_races(&checked.reports);
    assert!(!got.is_empty(), "{:?}", checked.reports);
    for (_, id, _, other, element, ..) in got {
        assert_ne!(id / 8, other / 8, "{:?}", checked.reports);
        assert!([0, 8].contains(&element), "{:?}", checked.reports);
    }
}

/// Atomic functions on a storage buffer never race with each other; a
/// plain `+=` of the same counters from two work groups does. The block
/// has an instance name: reports name its member.
const STORAGE_HISTOGRAM: &str = "#version 430
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Src { uint values[]; };
layout(std430, binding = 1) buffer Hist { uint total; uint bins[4]; } h;
void main() {
    uint b = values[gl_GlobalInvocationID.x] % 4u;
    COUNT
}
";

#[test]
fn atomics_on_storage_buffers_do_not_race() {
    let src: Vec<u32> = (0..32).map(|i| (i * 7 + 3) % 13).collect();
    let fix = STORAGE_HISTOGRAM.replace(
        "COUNT",
        "atomicAdd(h.bins[b], 1u);\n    atomicAdd(h.total, 1u);",
    );
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 2, &src, 5), Checks::ALL);
    assert_eq!(dst[0], 32);
    let bug = STORAGE_HISTOGRAM.replace("COUNT", "h.bins[b] += 1u;");
    let checked = dispatch_in(CORE, &bug, Some(RACE), 2, &src, 5);
    let got = storage_races(&checked.reports);
    assert_eq!(got.len(), 1, "{:?}", checked.reports);
    let SanitizerKind::Race {
        memory, element, ..
    } = checked.reports[0].kind
    else {
        unreachable!()
    };
    assert_eq!(memory, Memory::Storage { member: Some(1) });
    assert!(element < 4);
}

/// The last work group to finish does the final reduction: each work
/// group's first invocation writes its partial sum, makes it visible with
/// `memoryBarrierBuffer()` and takes a ticket with `atomicAdd`; the group
/// that draws the last ticket reads every partial sum (here by another
/// invocation than the one that drew it, after a `barrier()`). The fence
/// before the atomic orders each write before every later ticket, so the
/// reads race with nothing; without the fence nothing orders them.
const LAST_GROUP: &str = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { uint done; float total; float partial[]; };
shared float sums[8];
shared bool last;
void main() {
    uint l = gl_LocalInvocationIndex;
    sums[l] = src[gl_GlobalInvocationID.x];
    barrier();
    for (uint s = 4u; s > 0u; s >>= 1u) {
        if (l < s) sums[l] += sums[l + s];
        barrier();
    }
    if (l == 0u) {
        partial[gl_WorkGroupID.x] = sums[0];
        FENCE
        last = atomicAdd(done, 1u) == gl_NumWorkGroups.x - 1u;
    }
    barrier();
    if (last && l == 1u) {
        float t = 0.0;
        for (uint g = 0u; g < gl_NumWorkGroups.x; g++) t += partial[g];
        total = t;
    }
}
";

#[test]
fn the_last_work_group_reads_what_fences_and_atomics_ordered() {
    let src: Vec<u32> = (0..32).map(|i| (i as f32 + 0.5).to_bits()).collect();
    let fix = LAST_GROUP.replace("FENCE", "memoryBarrierBuffer();");
    let dst = clean(|c| dispatch_in(CORE, &fix, c, 4, &src, 6), Checks::ALL);
    assert_eq!(dst[0], 4);
    let sum: f32 = (0..32).map(|i| i as f32 + 0.5).sum();
    assert_eq!(f32::from_bits(dst[1]), sum);

    // No fence: the atomic orders nothing (GLSL's atomics are relaxed).
    let bug = LAST_GROUP.replace("FENCE", "");
    let checked = dispatch_in(CORE, &bug, Some(RACE), 4, &src, 6);
    let got = storage_races(&checked.reports);
    assert!(!got.is_empty(), "{:?}", checked.reports);
    let read = line_of(&bug, "t += partial[g]");
    let write = line_of(&bug, "partial[gl_WorkGroupID.x] = sums[0]");
    for (line, id, other_line, other, element, ..) in got {
        let (reader, writer) = if line == read {
            (id, other)
        } else {
            (other, id)
        };
        assert_eq!(
            (
                [line, other_line].contains(&read),
                [line, other_line].contains(&write)
            ),
            (true, true),
            "{:?}",
            checked.reports
        );
        assert_eq!((reader % 8, writer % 8, writer / 8), (1, 0, element));
        assert_ne!(reader / 8, writer / 8);
    }
}

/// A write whose value is not known (`+=`) followed, between the same
/// two barriers, by another invocation's `= 0u` of the same element is a
/// race: the unknown value used to be kept as 0 and taken for the same
/// value as the `= 0u`.
#[test]
fn a_write_of_an_unknown_value_is_not_taken_for_the_same_value() {
    let comp = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 1) buffer Dst { uint dst[]; };
shared uint marks[2];
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i < 2u) marks[i] = 5u;
    barrier();
    if (i == 0u) marks[1] += 1u;
    if (i == 1u) marks[1] = ZERO;
    barrier();
    dst[i] = marks[1];
}
";
    let bug = comp.replace("ZERO", "0u");
    let checked = dispatch_in(CORE, &bug, Some(RACE), 1, &[0], 8);
    let got = races(&checked.reports);
    assert_eq!(got.len(), 1, "{:?}", checked.reports);
    let (line, id, other_line, other, element, access, other_access) = got[0];
    assert_eq!(
        (line, id, other_line, other, element, access, other_access),
        (
            line_of(&bug, "marks[1] = 0u"),
            1,
            line_of(&bug, "marks[1] += 1u"),
            0,
            1,
            Access::Write,
            Access::Write
        )
    );
    let SanitizerKind::Race {
        value, other_value, ..
    } = checked.reports[0].kind
    else {
        unreachable!()
    };
    assert_eq!((value, other_value), (Some(0), None));
}

/// Fragments writing a storage buffer: two fragments writing one word
/// with different values race, atomics do not; an index one past the
/// buffer's end is reported at its fragment.
const FRAGMENT_SSBO: &str = "#version 430
layout(std430, binding = 1) buffer Hits { uint hits[]; };
out vec4 color;
void main() {
    uvec2 p = uvec2(gl_FragCoord.xy);
    WRITE
    color = vec4(1.0);
}
";

const FULLSCREEN_VS: &str = "#version 430
void main() {
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
";

/// Draws a full-screen triangle over 4x4 pixels with `frag` sanitized
/// with `checks` (none: plain), `hits` of 16 words at binding 1.
fn draw_fragments(frag: &str, checks: Option<Checks>) -> Outcome {
    draw_fragments_over(frag, checks, 4, 16)
}

/// [`draw_fragments`] over `size` x `size` pixels, `words` words at
/// binding 1.
fn draw_fragments_over(frag: &str, checks: Option<Checks>, size: u32, words: usize) -> Outcome {
    draw_sanitized(Stage::Fragment, frag, FULLSCREEN_VS, checks, size, words)
}

/// Draws a full-screen triangle over `size` x `size` pixels with `shader`
/// of `stage` (the vertex or fragment stage) sanitized with `checks`
/// (none: plain), linked with `partner` of the other stage as it is,
/// `words` words at binding 1.
fn draw_sanitized(
    stage: Stage,
    shader: &str,
    partner: &str,
    checks: Option<Checks>,
    size: u32,
    words: usize,
) -> Outcome {
    let gl = Headless::new(CORE, size, size).expect("context");
    let out = instrumented(shader, stage, checks, Target::CORE);
    let (vertex, fragment) = match stage {
        Stage::Vertex => (out.glsl.as_str(), partner),
        _ => (partner, out.glsl.as_str()),
    };
    let program = gl
        .compile_program(&[(GlStage::Vertex, vertex), (GlStage::Fragment, fragment)])
        .unwrap_or_else(|e| panic!("{e}\n{}", out.glsl));
    run_checked(&gl, &out, words, || {
        gl.draw_fullscreen(&program).expect("draw")
    })
}

#[test]
fn fragments_writing_a_storage_buffer_are_sanitized() {
    let frag = |w: &str| FRAGMENT_SSBO.replace("WRITE", w);
    // Each fragment its own word, in bounds: nothing.
    let own = frag("hits[p.y * 4u + p.x] = p.x + 1u;");
    let dst = clean(|c| draw_fragments(&own, c), Checks::ALL);
    assert_eq!(dst, (0..16).map(|k| k % 4 + 1).collect::<Vec<u32>>());
    let atomic = frag("atomicMax(hits[0], p.x);");
    let dst = clean(|c| draw_fragments(&atomic, c), Checks::ALL);
    assert_eq!(dst[0], 3);

    let bug = frag("hits[0] = p.x;");
    let checked = draw_fragments(&bug, Some(RACE));
    let at = line_of(&bug, "hits[0] = p.x;");
    let got: Vec<_> = checked
        .reports
        .iter()
        .filter_map(|r| match (r.invocation, r.kind) {
            (
                Invocation::Fragment { x, .. },
                SanitizerKind::Race {
                    other: Invocation::Fragment { x: ox, .. },
                    other_line,
                    element,
                    memory: Memory::Storage { member: None },
                    ..
                },
            ) => Some((r.line, other_line, element, x != ox)),
            _ => None,
        })
        .collect();
    assert_eq!(got, [(at, at, 0, true)], "{:?}", checked.reports);

    let oob_bug = frag("hits[p.y * 4u + p.x + 1u] = 1u;");
    let checked = draw_fragments(&oob_bug, Some(Checks::ALL));
    let got: Vec<_> = checked
        .reports
        .iter()
        .map(|r| (r.line, r.invocation.pixel(), r.kind))
        .collect();
    assert_eq!(
        got,
        [(
            line_of(&oob_bug, "hits[p.y"),
            Some([3, 3]),
            SanitizerKind::Oob {
                index: 16,
                bound: 16
            }
        )],
        "{:?}",
        checked.reports
    );
}

/// The fragment shader of the `fragment_ssbo` test app: its racy count
/// and last pixel and its mark one past the end are found at their lines
/// (what the agent will report once it sanitizes draws); `FIXED` reports
/// nothing.
#[test]
fn the_fragment_ssbo_app_shader_is_found_at_its_lines() {
    let frag = include_str!("../../tests/apps/shaders/fragment_ssbo.frag");
    let words = 2 + 16 * 16;
    // Each check alone: an invocation keeps two reports (the last pixel
    // has three: the third would be lost, and say so).
    let found = |checks| {
        let checked = draw_fragments_over(frag, Some(checks), 16, words);
        let mut got: Vec<(u32, &str)> = checked
            .reports
            .iter()
            .map(|r| {
                let what = match r.kind {
                    SanitizerKind::Oob {
                        index: 256,
                        bound: 256,
                    } if r.invocation.pixel() == Some([15, 15]) => "oob",
                    SanitizerKind::Race {
                        memory: Memory::Storage { member: None },
                        element: 0,
                        ..
                    } => "race",
                    _ => "other",
                };
                (r.line, what)
            })
            .collect();
        got.sort();
        got.dedup();
        assert!(!checked.lost, "{:?}", checked.reports);
        got
    };
    let line = |needle| line_of(frag, needle);
    assert_eq!(
        found(RACE),
        [(line("count += 1u"), "race"), (line("last = k"), "race")]
    );
    assert_eq!(found(OOB), [(line("seen[k + 1u]"), "oob")]);
    let fixed = frag.replacen("#version 430\n", "#version 430\n#define FIXED\n", 1);
    clean(|c| draw_fragments_over(&fixed, c, 16, words), Checks::ALL);
}

/// Vertices writing a storage buffer: the three vertices of a triangle
/// writing one word with their own ids race; atomics do not.
#[test]
fn vertices_writing_a_storage_buffer_race() {
    let vs = |write: &str| {
        format!(
            "#version 430
layout(std430, binding = 1) buffer Hits {{ uint hits[]; }};
void main() {{
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    {write}
    gl_Position = vec4(p, 0.0, 1.0);
}}
"
        )
    };
    let fs = "#version 430\nout vec4 color;\nvoid main() { color = vec4(1.0); }\n";
    let draw = |vert: &str, checks| draw_sanitized(Stage::Vertex, vert, fs, checks, 4, 4);
    let atomic = vs("atomicAdd(hits[0], 1u);");
    let dst = clean(|c| draw(&atomic, c), Checks::ALL);
    assert!(dst[0] >= 3, "{dst:?}");

    let bug = vs("hits[0] = uint(gl_VertexID) + 1u;");
    let checked = draw(&bug, Some(RACE));
    let at = line_of(&bug, "hits[0] = uint(gl_VertexID)");
    let got: Vec<_> = checked
        .reports
        .iter()
        .filter_map(|r| match (r.invocation, r.kind) {
            (
                Invocation::Vertex { vertex, .. },
                SanitizerKind::Race {
                    other: Invocation::Vertex { vertex: o, .. },
                    other_line,
                    value,
                    memory: Memory::Storage { member: None },
                    ..
                },
            ) => Some((
                r.line,
                other_line,
                vertex != o,
                value == Some(vertex as u32 + 1),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(got, [(at, at, true, true)], "{:?}", checked.reports);
}
