//! The GLSL that instrumented shaders carry: the debug buffer, the logging
//! primitives, and per-type helpers generated on demand (put a value's words,
//! log a write, pass a value through while logging).

use std::collections::HashSet;
use std::fmt::Write;

use crate::layout::HIT_RECORD_WORDS;
use crate::shader::{Stage, Version};
use crate::types::{GlslType, Scalar, Type};

use super::Mode;
use shaderdbg_core::Invocation;

/// Marks "no slot" in generated code.
const NONE: &str = "0xffffffffu";

/// How a hit test's record writer starts ([`super::hit_count_only`] finds
/// it there).
pub(super) const PUT_HIT: &str = "void _sdbg_put_hit(";

/// Where the debug buffer is declared and which built-ins name an
/// invocation: OpenGL's, or Vulkan GLSL's (`GL_KHR_vulkan_glsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// The debug buffer at this storage-buffer binding.
    Gl { binding: u32 },
    /// The debug buffer at binding 0 of this descriptor set;
    /// `gl_VertexIndex`/`gl_InstanceIndex`; no `gl_PrimitiveID` in fragment
    /// shaders (it needs the geometry capability).
    Vulkan { set: u32 },
}

impl Dialect {
    fn vulkan(self) -> bool {
        matches!(self, Dialect::Vulkan { .. })
    }

    fn vertex_id(self) -> &'static str {
        if self.vulkan() {
            "gl_VertexIndex"
        } else {
            "gl_VertexID"
        }
    }

    fn instance_id(self) -> &'static str {
        if self.vulkan() {
            "gl_InstanceIndex"
        } else {
            "gl_InstanceID"
        }
    }

    /// The debug buffer's layout qualifiers.
    fn buffer_layout(self) -> String {
        match self {
            Dialect::Gl { binding } => format!("std430, binding = {binding}"),
            Dialect::Vulkan { set, .. } => format!("std430, set = {set}, binding = 0"),
        }
    }
}

pub struct Runtime {
    dialect: Dialect,
    /// `"highp "` in GLSL ES (values must not lose precision on the way to the
    /// buffer), empty on desktop.
    h: &'static str,
    done: HashSet<String>,
    pending: String,
    /// The sanitizer's race check: elements of the shared variables with a
    /// race shadow so far (the size of `_sdbg_rw`, `_sdbg_rmin`, `_sdbg_rmax`).
    race_words: u32,
    /// Which shared-memory checks the shadows serve (`Checks::uninit_shared`,
    /// `Checks::race`, in a compute shader).
    shadow_uninit: bool,
    shadow_race: bool,
    /// The race check on storage buffers, in a shader of this stage.
    storage_race: bool,
    stage: Stage,
    /// Storage-buffer members with a race shadow: (number, elements (0:
    /// runtime-sized), how generated code names the member).
    storage: Vec<(usize, u32, String)>,
    /// The storage race check's model of fences and atomics as
    /// synchronisation (see [`Self::sync_prelude`]): the shader calls
    /// `_sdbg_ssync` before its atomics on memory other than shared,
    /// `_sdbg_sfence` before `memoryBarrier()`/`memoryBarrierBuffer()`.
    sync: bool,
    /// It calls `_sdbg_sfence` somewhere.
    sync_fence: bool,
    /// The race check's epoch may wrap (more than 127 barriers).
    epoch_wraps: bool,
    /// Some barrier counts its arrivals (`_sdbg_barrier`).
    counted_barriers: bool,
}

/// Bits of the race shadow words (`_sdbg_rw`: the last writer, `_sdbg_rmin`
/// / `_sdbg_rmax`: two of the readers; per element of a shared variable's
/// outermost array). From the top: the barrier epoch (7 bits; `_sdbg_rmin`
/// stores 127 minus it, so that `atomicMin` keeps the newest epoch), a
/// presence bit (set in `_sdbg_rw` and `_sdbg_rmax`, clear in `_sdbg_rmin`),
/// then an access word: atomic, partial (a field, component or inner
/// element of the element), the local invocation index (10 bits) and the
/// probe of the access (12 bits, 0 above 4095; a write's: [`RACE_KNOWN`]
/// and 11 bits, 0 above 2047).
const RACE_ATOMIC: &str = "0x800000u";
const RACE_PARTIAL: &str = "0x400000u";
/// A write's access word: the value it wrote is known (kept in
/// `_sdbg_rv`); the probe then has 11 bits (0 above 2047).
const RACE_KNOWN: &str = "0x800u";

impl Runtime {
    pub fn new(version: Version, dialect: Dialect) -> Runtime {
        Runtime {
            dialect,
            h: if version.is_es() { "highp " } else { "" },
            done: HashSet::new(),
            pending: String::new(),
            race_words: 0,
            shadow_uninit: false,
            shadow_race: false,
            storage_race: false,
            stage: Stage::Compute,
            storage: Vec::new(),
            sync: false,
            sync_fence: false,
            epoch_wraps: true,
            counted_barriers: false,
        }
    }

    /// The shader calls `_sdbg_barrier` (a barrier not every invocation
    /// may reach).
    pub fn use_counted_barrier(&mut self) {
        self.counted_barriers = true;
    }

    /// Whether an invocation may run more than 127 barriers
    /// (`uniform::barriers_bounded`): only then do the barriers clear the
    /// race shadow as the epoch wraps.
    pub fn set_epoch_wraps(&mut self, wraps: bool) {
        self.epoch_wraps = wraps;
    }

    /// The shader calls `_sdbg_ssync()` (`fence`: `_sdbg_sfence()`).
    pub fn use_sync(&mut self, fence: bool) {
        self.sync = true;
        self.sync_fence |= fence;
    }

    /// Whether storage-buffer members get race shadows (see
    /// [`Self::storage_shadow`]), in a shader of `stage`.
    pub fn set_storage_race(&mut self, on: bool, stage: Stage) {
        self.storage_race = on;
        self.stage = stage;
    }

    /// What shared-variable shadows check (see [`Self::shadow`]).
    pub fn set_shadow_checks(&mut self, uninit: bool, race: bool) {
        self.shadow_uninit = uninit;
        self.shadow_race = race;
    }

    /// Whether a shared variable's writer words (`_sdbg_rw`) also say
    /// whether an element was written, for the uninitialized-read check:
    /// a write sets its word (never 0 again but at the start, an epoch's
    /// wrap leaving 1), so that check needs no shadow of its own (a load
    /// and a store less per access; llvmpipe runs each lane by lane).
    fn uninit_in_race(&self) -> bool {
        self.shadow_uninit && self.shadow_race
    }

    /// The flags argument of the shadow helpers for an access.
    pub fn access_flags(atomic: bool, partial: bool) -> String {
        match (atomic, partial) {
            (false, false) => "0u".into(),
            (true, false) => RACE_ATOMIC.into(),
            (false, true) => RACE_PARTIAL.into(),
            (true, true) => "0xc00000u".into(),
        }
    }

    /// The race check's part of the prelude: the shadow words of every
    /// shared element the walk gave a shadow, the barrier epoch, and the
    /// read and write checks (`_sdbg_rd`, `_sdbg_wr`: element `elem` of
    /// variable `decl` at shadow word `at`, by the step `p`, flags `f`).
    /// What needs `gl_WorkGroupSize` is defined in [`Self::epilogue`]
    /// (after the shader's `local_size` layout).
    fn race_prelude(&self) -> String {
        use crate::layout::{
            SANITIZE_KIND_RACE as RACE, SANITIZE_OTHER_VALUE_KNOWN as OK,
            SANITIZE_RACE_ATOMIC as A, SANITIZE_RACE_OTHER_ATOMIC as OA,
            SANITIZE_RACE_OTHER_WRITE as OW, SANITIZE_RACE_WRITE as W, SANITIZE_VALUE_KNOWN as VK,
        };
        let h = self.h;
        let n = self.race_words;
        let divergent = crate::layout::SANITIZE_KIND_BARRIER;
        // A read's one report call site, its bounds check's too (SIMD
        // drivers run each, masked, whether or not a lane reports): a read
        // of an element nothing wrote (`w` 0) finds no write to race with.
        let report = if self.uninit_in_race() {
            format!(
                "bool un = inb && w == 0u;
    if (inb ? un || race : oobk != 0u)
        _sdbg_rep(!inb ? oobk : un ? {}u : {RACE}u | _sdbg_wkind(w), p, elem, decl, race ? w & 0x3fffffu : 0u, 0u, 0u, race ? _sdbg_rv[at] : 0u);",
                crate::layout::SANITIZE_KIND_UNINIT
            )
        } else {
            format!("if (inb ? race : oobk != 0u)
        _sdbg_rep(!inb ? oobk : {RACE}u | _sdbg_wkind(w), p, elem, decl, race ? w & 0x3fffffu : 0u, 0u, 0u, race ? _sdbg_rv[at] : 0u);")
        };
        // Fences and atomics as synchronisation: what one invocation did
        // before a barrier, the work group did after it.
        let (sync_decl, sync_before, sync_after) = if self.sync {
            (
                format!("shared {h}uint _sdbg_gsync;\n"),
                "\n    {h}uint mine = (_sdbg_sacq ? 1u : 0u) | (_sdbg_sfenced ? 2u : 0u);\n    if (mine != 0u) atomicOr(_sdbg_gsync, mine);".replace("{h}", h),
                "\n    {h}uint all = _sdbg_gsync;\n    _sdbg_sacq = _sdbg_sacq || (all & 1u) != 0u;\n    _sdbg_sfenced = _sdbg_sfenced || (all & 2u) != 0u;".replace("{h}", h),
            )
        } else {
            (String::new(), String::new(), String::new())
        };
        // The work group's barrier generation is one shared word
        // (`_sdbg_gen`, advanced after each barrier by every invocation
        // that passed it, all storing the same value), so an invocation
        // that skipped a barrier (divergent control flow) counts the next
        // ones as the others do. A barrier orders shared memory: only the
        // arrivals need an atomic. `_sdbg_arrive`: arrivals at the barriers
        // of the last three generations (the one waited at, the one before,
        // which slower invocations may still be reading, and the next,
        // which is cleared). Without such barriers every invocation passes
        // every barrier: the generation is its own count, with no shared
        // word to load and store (SIMD drivers run each lane by lane: 8% of
        // the shared reduction's dispatch). The epoch's wrap: code SIMD
        // drivers run, masked, at every barrier (its loop, stores and
        // barrier: 15% of the reduction's), left out where it cannot happen.
        let wrap = if self.epoch_wraps {
            "\n    if (_sdbg_ep == 0u) { _sdbg_race_clear(1u); memoryBarrierShared(); barrier(); }"
        } else {
            ""
        };
        let uniform_generation = if self.counted_barriers {
            "_sdbg_gen;{sync_before}
    barrier();{sync_after}
    _sdbg_arrive[(g + 2u) % 3u] = 0u;
    _sdbg_gen = g + 1u;"
        } else {
            "_sdbg_g;{sync_before}
    barrier();{sync_after}"
        }
        .replace("{sync_before}", &sync_before)
        .replace("{sync_after}", &sync_after);
        let mut s = format!(
            "{h}uvec4 _sdbg_other_key({h}uint o);
void _sdbg_race_clear({h}uint keep);
void _sdbg_race_init();
{h}uint _sdbg_ep = 0u;
bool _sdbg_race_on = false;
{h}uint _sdbg_wg = 0u;
shared {h}uint _sdbg_gen;
shared {h}uint _sdbg_arrive[3];
{sync_decl}void _sdbg_barrier({h}uint p) {{
    {h}uint g = _sdbg_gen;
    atomicAdd(_sdbg_arrive[g % 3u], 1u);{sync_before}
    barrier();
    {h}uint arrived = _sdbg_arrive[g % 3u];{sync_after}
    _sdbg_arrive[(g + 2u) % 3u] = 0u;
    _sdbg_gen = g + 1u;
    if (arrived != _sdbg_wg) _sdbg_report({divergent}u, p, arrived, _sdbg_wg, 0u);
    _sdbg_g = g + 1u;
    _sdbg_ep = (g + 1u) & 127u;{wrap}
}}
// A barrier every invocation reaches (`uniform::uniform_barriers`): its
// arrivals are not counted.
void _sdbg_ubarrier({h}uint p) {{
    {h}uint g = {uniform_generation}
    _sdbg_g = g + 1u;
    _sdbg_ep = (g + 1u) & 127u;{wrap}
}}
"
        );
        if n == 0 {
            return s;
        }
        let _ = write!(
            s,
            "shared {h}uint _sdbg_rw[{n}];
shared {h}uint _sdbg_rmin[{n}];
shared {h}uint _sdbg_rmax[{n}];
shared {h}uint _sdbg_rv[{n}];
{h}uint _sdbg_acc({h}uint p, {h}uint f) {{ return f | (gl_LocalInvocationIndex << 12u) | (p < 2048u ? p : 0u); }}
bool _sdbg_other({h}uint v, {h}uint a) {{ return ((v ^ a) & 0x3ff000u) != 0u && (v & a & 0xc00000u) == 0u; }}
{h}uint _sdbg_wkind({h}uint w) {{ return {OW}u | ((w & {RACE_ATOMIC}) != 0u ? {OA}u : 0u) | ((w & {RACE_KNOWN}) != 0u ? {OK}u : 0u); }}
// `inb`: whether the index is in bounds; if not (`at`, `elem` clamped
// to 0, `decl` the bound), the report is its (`oobk`, 0 not to report).
void _sdbg_rd({h}uint p, {h}uint at, {h}uint elem, {h}uint decl, {h}uint f, bool inb, {h}uint oobk) {{
    _sdbg_rpend = false;
    {h}uint w = _sdbg_rw[at];
    {h}uint a = _sdbg_acc(p, f);
    bool race = inb && _sdbg_race_on && (w >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(w, a);
    {report}
    if (!_sdbg_race_on || !inb) return;
    // The reader words only fall (`_sdbg_rmin`) or rise (`_sdbg_rmax`)
    // until the work group clears them behind a barrier: a look that
    // finds one already at or past this read skips its atomic.
    {h}uint lo = ((127u - _sdbg_ep) << 25u) | a;
    {h}uint hi = (_sdbg_ep << 25u) | 0x1000000u | a;
    if (_sdbg_rmin[at] > lo) atomicMin(_sdbg_rmin[at], lo);
    if (_sdbg_rmax[at] < hi) atomicMax(_sdbg_rmax[at], hi);
}}
void _sdbg_wr({h}uint p, {h}uint at, {h}uint elem, {h}uint decl, {h}uint f, bool known, {h}uint v) {{
    // A write whose value is known (a plain `=` of a whole element)
    // says so in its access word; the value's first word is kept apart.
    {h}uint a = _sdbg_acc(p, f) | (known ? {RACE_KNOWN} : 0u);
    {h}uint kind = {RACE}u | {W}u | ((f & {RACE_ATOMIC}) != 0u ? {A}u : 0u) | (known ? {VK}u : 0u);
    // Without the race check (a work group too large), 1: written.
    {h}uint w = atomicExchange(_sdbg_rw[at], _sdbg_race_on ? (_sdbg_ep << 25u) | 0x1000000u | a : 1u);
    if (!_sdbg_race_on) return;
    {h}uint ov = atomicExchange(_sdbg_rv[at], v);
    {h}uint r = _sdbg_rmin[at];
    {h}uint s = _sdbg_rmax[at];
    // Two plain writes of a whole element with the same known value (its
    // first word) are no race; a write whose value is not known is never
    // taken for one of the same value.
    bool same = known && (w & {RACE_KNOWN}) != 0u && ov == v && ((w | a) & 0xc00000u) == 0u;
    // One report call site (see `_sdbg_swr`).
    bool hit = true;
    {h}uint o = w;
    if ((w >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(w, a)) {{
        hit = !same;
        kind |= _sdbg_wkind(w);
    }}
    else {{
        ov = 0u;
        if ((r >> 24u) == ((127u - _sdbg_ep) << 1u) && _sdbg_other(r, a)) o = r;
        else if ((s >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(s, a)) o = s;
        else hit = false;
    }}
    if (hit) _sdbg_rep(kind, p, elem, decl, o & 0x3fffffu, 0u, v, ov);
}}
"
        );
        s
    }

    /// The race check on storage buffers: the write and read checks
    /// (`_sdbg_swr`, `_sdbg_srd`: slot `slot` of the shadow, element
    /// `elem` of the member `decl` (`SANITIZE_MEMBER_SHIFT`), by the step
    /// `p`, flags `f`).
    ///
    /// The shadow lies in the report buffer after the records, as many
    /// slots of [`crate::layout::SANITIZE_SHADOW_SLOT_WORDS`] words as
    /// fit; each storage member's elements have consecutive slots
    /// (`_sdbg_sb{k}`, from `_sdbg_sinit`). A slot: the last writer's
    /// access word and its generation word, two readers' (even and odd
    /// invocations), and the last written value's first word. An access
    /// word: present (bit 31), atomic (30), partial (29), value known
    /// (28), a 6-bit hash of the value's first word (27..22), the
    /// invocation (21..0: a compute shader's work group, linear, times
    /// its size plus the local index; a
    /// fragment's `x | y << 11`, a vertex's `vertex | instance << 16`;
    /// invocations beyond those bits are not checked). A generation word:
    /// the work group's barrier generation (20 bits, compute) and the
    /// step (12 bits, 0 above 4095). Two accesses are ordered only if
    /// they are of one work group with a `barrier()` between.
    fn storage_prelude(&self) -> String {
        use crate::layout::{
            SANITIZE_KIND_RACE as RACE, SANITIZE_OTHER_VALUE_KNOWN as OK,
            SANITIZE_RACE_ATOMIC as A, SANITIZE_RACE_OTHER_ATOMIC as OA,
            SANITIZE_RACE_OTHER_WRITE as OW, SANITIZE_RACE_STORAGE as ST, SANITIZE_RACE_WRITE as W,
            SANITIZE_RECORD_WORDS as RW, SANITIZE_SHADOW_SLOT_WORDS as SW,
            SANITIZE_VALUE_KNOWN as VK,
        };
        let (unnamed, short) = (
            crate::layout::SANITIZE_UNNAMED,
            crate::layout::SANITIZE_SHADOW_SHORT,
        );
        let h = self.h;
        // With fences and atomics ordering work groups, a record's
        // generation decides whether it was released: a record whose
        // access word another invocation overwrote between its two
        // words may hold that one's generation, so it says "not known".
        let (untorn_writer, untorn_reader) = if self.sync {
            (
                "\n    if (_sdbg_data[at] != me) _sdbg_data[at + 1u] = 0xfffff000u;",
                "\n    if (_sdbg_data[r] != me) _sdbg_data[r + 1u] = 0xfffff000u;",
            )
        } else {
            ("", "")
        };
        // The records another access may race with: with fences and
        // atomics (a look at the release words per `_sdbg_sunord`) a loop,
        // else straight code.
        let find_other = if self.sync && self.stage == Stage::Compute {
            r#"    // The writer, then the two readers, each found another's: a loop with
    // one `_sdbg_sunord` (one look at the release words) where three
    // inlined copies cost 3% of the stencil (without fences, no look:
    // the straight code, the loop 2% dearer in the tile). The first
    // unordered one is the race, for one report call site: llvmpipe runs
    // an inlined call's code, masked, even where no lane takes its branch.
    {h}uint r0 = _sdbg_data[at + 2u];
    {h}uint r1 = _sdbg_data[at + 4u];
    {h}uint todo = (_sdbg_sother(w, me) ? 1u : 0u) | (_sdbg_sother(r0, me) ? 2u : 0u) | (_sdbg_sother(r1, me) ? 4u : 0u);
    {h}uint o = 0u;
    {h}uint og = 0u;
    bool hit = false;
    bool byw = false;
    while (todo != 0u) {
        {h}uint j = uint(findLSB(todo));
        todo &= todo - 1u;
        o = j == 0u ? w : j == 1u ? r0 : r1;
        og = j == 0u ? wg : _sdbg_data[at + 1u + 2u * j];
        hit = _sdbg_sunord(o, og);
        byw = hit && j == 0u;
        if (hit) todo = 0u;
    }
    {h}uint ov = 0u;
    if (byw) {
        // The value word only shows the value (its hash in the access
        // word decides): a plain store, and none for a value not known.
        ov = _sdbg_data[at + 6u];
        kind |= _sdbg_swkind(w, ov);
        // Two plain writes of a whole element whose values are known and
        // hash alike are no race (nor is a reader looked at then).
        hit = !known || (w & 0x7fc00000u) != (me & 0x7fc00000u);
    }
"#
        } else {
            r#"    // The other access found (its access and generation words), and the
    // value it wrote, for one report call site: llvmpipe runs an inlined
    // call's code, masked, even where no lane takes its branch (three
    // call sites cost a tenth of the dispatch).
    {h}uint o = w;
    {h}uint og = wg;
    {h}uint ov = 0u;
    bool hit = _sdbg_sother(w, me) && _sdbg_sunord(w, wg);
    if (hit) {
        // The value word only shows the value (its hash in the access
        // word decides): a plain store, and none for a value not known.
        ov = _sdbg_data[at + 6u];
        kind |= _sdbg_swkind(w, ov);
        // Two plain writes of a whole element whose values are known and
        // hash alike are no race.
        hit = !known || (w & 0x7fc00000u) != (me & 0x7fc00000u);
    } else {
        // The two readers, without a loop.
        {h}uint r0 = _sdbg_data[at + 2u];
        {h}uint r1 = _sdbg_data[at + 4u];
        bool o0 = _sdbg_sother(r0, me);
        bool o1 = _sdbg_sother(r1, me);
        if (o0 || o1) {
            {h}uint g0 = o0 ? _sdbg_data[at + 3u] : 0u;
            {h}uint g1 = o1 ? _sdbg_data[at + 5u] : 0u;
            bool h0 = o0 && _sdbg_sunord(r0, g0);
            hit = h0 || (o1 && _sdbg_sunord(r1, g1));
            o = h0 ? r0 : r1;
            og = h0 ? g0 : g1;
        }
    }
"#
        }
        .replace("{h}", h);
        // Ids are work-group major (the work group's first id, then the
        // local index): one subtraction tells whether an id is of this
        // work group (a division per check cost 2x on llvmpipe, which
        // scalarizes integer division).
        let wgsame = if self.stage == Stage::Compute {
            format!(
                "{h}uint _sdbg_swg0 = 0u;\n{h}uint _sdbg_swgn = 0u;\n{h}uint _sdbg_swgl = 0u;\nbool _sdbg_swgsame({h}uint id) {{ return id - _sdbg_swg0 < _sdbg_swgn; }}\n"
            )
        } else {
            format!("bool _sdbg_swgsame({h}uint id) {{ return false; }}\n")
        };
        // Whether an access of another work group (another invocation,
        // out of compute shaders) is ordered before this one by fences and
        // atomics (see `sync_prelude`); without them, never.
        let released = match (self.sync, self.stage) {
            (false, _) => "return false;".to_string(),
            (true, Stage::Compute) => {
                // A generation not known (0xfffff: a record two invocations
                // wrote at once) is taken as released.
                "return _sdbg_sacq && ((og >> 12u) == 0xfffffu || _sdbg_data[_sdbg_srel + _sdbg_fdiv(id, _sdbg_swgn)] > (og >> 12u));"
                    .to_string()
            }
            (true, _) => format!("return _sdbg_sacq && {};", self.sync_fence),
        };
        format!(
            "void _sdbg_sinit();
{h}uvec4 _sdbg_sother_key({h}uint o, {h}uint og);
{wgsame}{h}uint _sdbg_sid = 0xffffffffu;
{h}uint _sdbg_sb = 0u;
{h}uint _sdbg_scap = 0u;
{h}uint _sdbg_srel = 0u;
{h}uint _sdbg_fdiv({h}uint a, {h}uint b) {{
    // `a / b` for `a` below 2^24, by a float division and a correction
    // (llvmpipe runs an integer division lane by lane).
    {h}uint q = uint(float(a) / float(b));
    if (q * b > a) q--;
    else if (a - q * b >= b) q++;
    return q;
}}
bool _sdbg_sreleased({h}uint id, {h}uint og) {{ {released} }}
void _sdbg_sbase({h}uint reserve) {{
    // The shadow's slots after `reserve` words (the work groups' release
    // generations).
    _sdbg_srel = _sdbg_san_flags + _sdbg_san_cap * {RW}u;
    _sdbg_sb = _sdbg_srel + reserve;
    {h}uint len = uint(_sdbg_data.length());
    _sdbg_scap = len > _sdbg_sb ? (len - _sdbg_sb) / {SW}u : 0u;
}}
{h}uint _sdbg_sh6({h}uint v) {{ return (v * 0x9e3779b1u) >> 26u; }}
// An access the check skips: the host hears why (`layout::sanitize_unchecked`)
// from `_sdbg_flush`, which has the one atomic on the header's word.
void _sdbg_sskip({h}uint slot) {{ _sdbg_skipw |= _sdbg_sid == 0xffffffffu ? {unnamed}u : {short}u; }}
// Whether `o` is another invocation's access that can conflict with
// `me` (not two atomics, not two partial accesses), and whether nothing
// orders it (generation word `og`) with this one. Generation words are
// read only where needed: most accesses find no other's.
bool _sdbg_sother({h}uint o, {h}uint me) {{
    return (o & 0x80000000u) != 0u && ((o ^ me) & 0x3fffffu) != 0u && (o & me & 0x60000000u) == 0u;
}}
bool _sdbg_sunord({h}uint o, {h}uint og) {{
    {h}uint id = o & 0x3fffffu;
    if (_sdbg_swgsame(id)) return (og >> 12u) == (_sdbg_g & 0xfffffu);
    return !_sdbg_sreleased(id, og);
}}
{h}uint _sdbg_swkind({h}uint w, {h}uint wv) {{
    bool known = (w & 0x10000000u) != 0u && _sdbg_sh6(wv) == ((w >> 22u) & 63u);
    return {OW}u | ((w & 0x40000000u) != 0u ? {OA}u : 0u) | (known ? {OK}u : 0u);
}}
void _sdbg_swr({h}uint p, {h}uint slot, {h}uint elem, {h}uint decl, {h}uint f, bool known, {h}uint v) {{
    if (_sdbg_sid == 0xffffffffu || slot >= _sdbg_scap) {{ _sdbg_sskip(slot); return; }}
    {h}uint at = _sdbg_sb + slot * {SW}u;
    {h}uint me = 0x80000000u | ((f & {RACE_ATOMIC}) != 0u ? 0x40000000u : 0u) | ((f & {RACE_PARTIAL}) != 0u ? 0x20000000u : 0u)
        | (known ? 0x10000000u | (_sdbg_sh6(v) << 22u) : 0u) | _sdbg_sid;
    {h}uint mg = ((_sdbg_g & 0xfffffu) << 12u) | (p < 4096u ? p : 0u);
    {h}uint kind = {RACE}u | {ST}u | {W}u | ((f & {RACE_ATOMIC}) != 0u ? {A}u : 0u) | (known ? {VK}u : 0u);
    {h}uint w = atomicExchange(_sdbg_data[at], me);
    {h}uint wg = atomicExchange(_sdbg_data[at + 1u], mg);
{find_other}    if (known) _sdbg_data[at + 6u] = v;{untorn_writer}
    if (hit) _sdbg_rep(kind, p, elem, decl, o, og, v, ov);
}}
void _sdbg_srd({h}uint p, {h}uint slot, {h}uint elem, {h}uint decl, {h}uint f) {{
    _sdbg_rpend = false;
    if (_sdbg_sid == 0xffffffffu || slot >= _sdbg_scap) {{ _sdbg_sskip(slot); return; }}
    {h}uint at = _sdbg_sb + slot * {SW}u;
    {h}uint me = 0x80000000u | ((f & {RACE_PARTIAL}) != 0u ? 0x20000000u : 0u) | _sdbg_sid;
    {h}uint mg = ((_sdbg_g & 0xfffffu) << 12u) | (p < 4096u ? p : 0u);
    {h}uint w = _sdbg_data[at];
    if (_sdbg_sother(w, me)) {{
        {h}uint wg = _sdbg_data[at + 1u];
        if (_sdbg_sunord(w, wg)) {{
            {h}uint wv = _sdbg_data[at + 6u];
            _sdbg_rep({RACE}u | {ST}u | _sdbg_swkind(w, wv), p, elem, decl, w, wg, 0u, wv);
        }}
    }}
    // This invocation's reader record (no look first whether it holds
    // this read already: llvmpipe runs a load lane by lane, dearer than
    // the stores it would spare). Plain stores: readers of one parity at
    // once are of one work group's same generation (their words agree)
    // or of different work groups (whose generations only the
    // fences-and-atomics model reads, which checks the pair).
    {h}uint r = at + 2u + (_sdbg_sid & 1u) * 2u;
    _sdbg_data[r] = me;
    _sdbg_data[r + 1u] = mg;{untorn_reader}
}}
"
        )
    }

    /// Fences and atomics as synchronisation between work groups (the
    /// storage race check): `_sdbg_sfence()` runs before each
    /// `memoryBarrier()`/`memoryBarrierBuffer()`, `_sdbg_ssync()` before
    /// each atomic function on memory other than shared (storage buffers,
    /// images, atomic counters). An atomic after a fence releases what
    /// the work group accessed until then: the work group's release word
    /// (one per work group before the shadow's slots) keeps the barrier
    /// generation after its last release (`atomicMax`, then a fence, so
    /// that whoever sees the program's atomic sees the word). An atomic
    /// acquires (`_sdbg_sacq`). Both pass to the whole work group at the
    /// next `barrier()` (`_sdbg_barrier`). An access of another work group
    /// is then taken as ordered before this one when this invocation has
    /// acquired and the other work group released after that access
    /// (`_sdbg_sreleased`). This is a sufficient condition for "not
    /// reported", not the memory model's happens-before: which atomic
    /// read which is not followed, so some races go unreported, never
    /// the other way round.
    fn sync_prelude(&self, storage: bool) -> String {
        let release = if storage && self.stage == Stage::Compute {
            format!(
                "if (_sdbg_sfenced && _sdbg_sid != {NONE}) {{
        atomicMax(_sdbg_data[_sdbg_srel + _sdbg_swgl], (_sdbg_g & 0xfffffu) + 1u);
        memoryBarrierBuffer();
    }}
    "
            )
        } else {
            String::new()
        };
        format!(
            "void _sdbg_sfence() {{ _sdbg_sfenced = true; }}
void _sdbg_ssync() {{
    {release}_sdbg_sacq = true;
}}
"
        )
    }

    /// The race shadow of storage-buffer member number `k` (`words`
    /// elements, 0: runtime-sized; `access` names it in generated code,
    /// `code` in reports) and its helpers, named as [`Self::shadow`]'s
    /// (plus `_sdbg_ui{k}(p, i, f)`: the read of element `i`, in bounds,
    /// returns `i`). Its slots start at `_sdbg_sb{k}`, its length is
    /// `_sdbg_sn{k}`, both set by `_sdbg_sinit`.
    pub fn storage_shadow(&mut self, k: usize, words: u32, access: &str, code: u32) {
        let h = self.h;
        self.storage.push((k, words, access.to_string()));
        let mut s = format!("{h}uint _sdbg_sb{k} = 0u;\n{h}int _sdbg_sn{k} = 0;\n");
        for t in ["int", "uint"] {
            let _ = write!(
                s,
                "void _sdbg_markv{k}({h}uint p, {h}{t} i, {h}uint f, bool known, {h}uint v) {{ _sdbg_swr(p, _sdbg_sb{k} + uint(i), uint(i), {code}u, f, known, v); }}
void _sdbg_mark{k}({h}uint p, {h}{t} i, {h}uint f) {{ _sdbg_markv{k}(p, i, f, false, 0u); }}
void _sdbg_uchk{k}({h}uint p, {h}{t} i, {h}uint f) {{ _sdbg_srd(p, _sdbg_sb{k} + uint(i), uint(i), {code}u, f); }}
{h}{t} _sdbg_ui{k}({h}uint p, {h}{t} i, {h}uint f) {{ _sdbg_uchk{k}(p, i, f); return i; }}
{h}{t} _sdbg_u{k}({h}uint p, {h}{t} i, {h}uint f) {{ {h}{t} c = _sdbg_cl(p, i, _sdbg_sn{k}); if (_sdbg_ok) _sdbg_uchk{k}(p, c, f); return c; }}
{h}{t} _sdbg_wm{k}({h}uint p, {h}{t} i, {h}uint f) {{ {h}{t} c = _sdbg_cl(p, i, _sdbg_sn{k}); if (_sdbg_ok) _sdbg_mark{k}(p, c, f); return c; }}
"
            );
        }
        let _ = write!(
            s,
            "void _sdbg_markall{k}({h}uint p, {h}uint f) {{ for (int i = 0; i < _sdbg_sn{k}; i++) _sdbg_mark{k}(p, i, f); }}
{h}uint _sdbg_uv{k}({h}uint p, {h}uint f) {{ _sdbg_uchk{k}(p, 0u, f); return 0u; }}
"
        );
        self.pending.push_str(&s);
    }

    /// The storage race check's part of the epilogue: `_sdbg_sinit` (this
    /// invocation's id, the shadow's place, each member's slots),
    /// `_sdbg_sother_key` (the key of the invocation of an access word)
    /// and, in a compute shader, `_sdbg_swgsame` (whether an access word's
    /// invocation is of this work group).
    fn storage_epilogue(&self) -> String {
        if !self.storage_race || self.storage.is_empty() {
            return String::new();
        }
        let h = self.h;
        // With fences and atomics as synchronisation, a word per work
        // group before the slots: the generation after its last release.
        let reserve = if self.sync {
            "\n        reserve = w.x * w.y * w.z;"
        } else {
            ""
        };
        let (id, key, wg) = match self.stage {
            Stage::Compute => (
                format!(
                    "{h}uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;
    {h}uvec3 w = gl_NumWorkGroups;
    {h}uint s = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    {h}uint reserve = 0u;
    // At most 2^22 invocations (a float product: no integer division,
    // which llvmpipe runs lane by lane).
    if (float(n.x) * float(n.y) * float(n.z) <= 4194304.0) {{
        _sdbg_swgn = s;
        _sdbg_swgl = gl_WorkGroupID.x + w.x * (gl_WorkGroupID.y + w.y * gl_WorkGroupID.z);
        _sdbg_swg0 = _sdbg_swgl * s;
        _sdbg_sid = _sdbg_swg0 + gl_LocalInvocationIndex;{reserve}
    }}
    _sdbg_sbase(reserve);"
                ),
                format!(
                    "{h}uvec3 w = gl_NumWorkGroups;
    {h}uvec3 s = gl_WorkGroupSize;
    {h}uint id = o & 0x3fffffu;
    {h}uint g = id / (s.x * s.y * s.z);
    {h}uint l = id % (s.x * s.y * s.z);
    {h}uint gy = _sdbg_fdiv(g, w.x);
    {h}uint gz = _sdbg_fdiv(gy, w.y);
    {h}uvec3 c = uvec3(g - gy * w.x, gy - gz * w.y, gz) * s + uvec3(l % s.x, (l / s.x) % s.y, l / (s.x * s.y));"
                ),
                String::new(),
            ),
            Stage::Fragment => (
                format!(
                    "{h}uvec2 c = uvec2(gl_FragCoord.xy);
    if (c.x < 2048u && c.y < 2048u) _sdbg_sid = c.x | (c.y << 11u);
    _sdbg_sbase(0u);"
                ),
                format!(
                    "{h}uvec3 c = uvec3(o & 2047u, (o >> 11u) & 2047u, {NONE});"
                ),
                String::new(),
            ),
            _ => (
                format!(
                    "if ({v} >= 0 && {v} < 65536 && {i} >= 0 && {i} < 64)
        _sdbg_sid = uint({v}) | (uint({i}) << 16u);
    _sdbg_sbase(0u);",
                    v = self.dialect.vertex_id(),
                    i = self.dialect.instance_id()
                ),
                format!("{h}uvec3 c = uvec3(o & 0xffffu, (o >> 16u) & 63u, 0u);"),
                String::new(),
            ),
        };
        let mut bases = String::new();
        for (k, words, access) in &self.storage {
            let n = if *words == 0 {
                format!("int({access}.length())")
            } else {
                words.to_string()
            };
            let _ = write!(
                bases,
                "\n    _sdbg_sb{k} = _sdbg_sx; _sdbg_sn{k} = {n}; _sdbg_sx += uint(_sdbg_sn{k});"
            );
        }
        format!(
            "void _sdbg_sinit() {{
    {id}
    {h}uint _sdbg_sx = 0u;{bases}
}}
{h}uvec4 _sdbg_sother_key({h}uint o, {h}uint og) {{
    {key}
    return uvec4(c, og & 4095u);
}}
{wg}"
        )
    }

    /// What goes after the shader's own text (sanitizing a compute shader
    /// for races: the helpers that read `gl_WorkGroupSize`, which may only
    /// be named after the `local_size` layout; the storage race check's
    /// helpers that name the storage-buffer members).
    pub fn epilogue(&self, mode: &Mode, stage: Stage) -> String {
        let storage = if matches!(mode, Mode::Sanitize(c) if c.race) {
            self.storage_epilogue()
        } else {
            String::new()
        };
        if !matches!(mode, Mode::Sanitize(c) if c.race) || stage != Stage::Compute {
            return storage;
        }
        let h = self.h;
        let n = self.race_words;
        let clear = if n == 0 {
            String::new()
        } else {
            format!(
                "\n    for ({h}uint i = gl_LocalInvocationIndex; i < {n}u; i += n) {{ _sdbg_rw[i] = {rw}; _sdbg_rmin[i] = 0xffffffffu; _sdbg_rmax[i] = 0u; _sdbg_rv[i] = 0u; }}",
                // Written elements stay written across an epoch's wrap
                // (`keep`: 1 there, 0 at the start).
                rw = if self.uninit_in_race() { "min(_sdbg_rw[i], keep)" } else { "0u" }
            )
        };
        let sync_init = if self.sync {
            "\n    if (gl_LocalInvocationIndex == 0u) _sdbg_gsync = 0u;"
        } else {
            ""
        };
        format!(
            "{h}uvec4 _sdbg_other_key({h}uint o) {{
    {h}uvec3 s = gl_WorkGroupSize;
    {h}uint l = (o >> 12u) & 1023u;
    return uvec4(gl_WorkGroupID * s + uvec3(l % s.x, (l / s.x) % s.y, l / (s.x * s.y)), o & 2047u);
}}
void _sdbg_race_clear({h}uint keep) {{
    {h}uint n = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    _sdbg_race_on = n <= 1024u;{clear}
}}
void _sdbg_race_init() {{
    _sdbg_wg = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    if (gl_LocalInvocationIndex < 3u) _sdbg_arrive[gl_LocalInvocationIndex] = 0u;
    if (gl_LocalInvocationIndex == 0u) _sdbg_gen = 0u;{sync_init}
    _sdbg_race_clear(0u);
}}
{storage}"
        )
    }

    /// Helpers generated since the last call, to be emitted before the function
    /// that uses them (after every type they mention is declared).
    pub fn take_pending(&mut self) -> String {
        std::mem::take(&mut self.pending)
    }

    /// The fixed part: buffer declaration and primitives for `mode`.
    pub fn prelude(
        &self,
        mode: &Mode,
        stage: Stage,
        version: Version,
        breakpoints: &[u32],
        nan_slots: usize,
    ) -> String {
        let h = self.h;
        let key = invocation_key(stage, version, self.dialect);
        let mut s = String::new();
        let buffer = |s: &mut String, header: [&str; 4]| {
            let _ = writeln!(
                s,
                "layout({}) buffer _sdbg_Buffer {{ {h}uint {}; {h}uint {}; {h}uint {}; {h}uint {}; {h}uint _sdbg_data[]; }};",
                self.dialect.buffer_layout(),
                header[0], header[1], header[2], header[3]
            );
        };
        match mode {
            Mode::Plain => {}
            Mode::Record(sel) => {
                buffer(
                    &mut s,
                    [
                        "_sdbg_len",
                        "_sdbg_cap",
                        "_sdbg_overflow",
                        "_sdbg_invocations",
                    ],
                );
                let select = selector_condition(sel, self.dialect);
                let _ = write!(
                    s,
                    "bool _sdbg_active = false;
{h}uint _sdbg_tag = 0u;
{h}uint _sdbg_alloc({h}uint p, {h}uint n) {{
    if (!_sdbg_active || _sdbg_overflow != 0u) return {NONE};
    {h}uint at = atomicAdd(_sdbg_len, n + 2u);
    if (at + n + 2u > _sdbg_cap) {{ _sdbg_overflow = 1u; return {NONE}; }}
    _sdbg_data[at] = p;
    _sdbg_data[at + 1u] = _sdbg_tag;
    return at + 2u;
}}
void _sdbg_step({h}uint p) {{ _sdbg_alloc(p, 0u); }}
bool _sdbg_cond({h}uint p, bool c) {{
    {h}uint at = _sdbg_alloc(p, 1u);
    if (at != {NONE}) _sdbg_data[at] = c ? 1u : 0u;
    return c;
}}
void _sdbg_begin({h}uint p) {{
    _sdbg_active = {select};
    if (!_sdbg_active) return;
    _sdbg_tag = atomicAdd(_sdbg_invocations, 1u);
    {h}uint at = _sdbg_alloc(p, 4u);
    if (at == {NONE}) return;
    _sdbg_data[at] = {k0}; _sdbg_data[at + 1u] = {k1}; _sdbg_data[at + 2u] = {k2}; _sdbg_data[at + 3u] = {k3};
}}
",
                    k0 = key[0],
                    k1 = key[1],
                    k2 = key[2],
                    k3 = key[3]
                );
            }
            Mode::HitTest(_) | Mode::HitTestNanInf(_) => {
                buffer(
                    &mut s,
                    [
                        "_sdbg_hit_count",
                        "_sdbg_hit_cap",
                        "_sdbg_pad0",
                        "_sdbg_pad1",
                    ],
                );
                // Per breakpoint k: how often its step was reached and the
                // first reach where the condition held, in registers; the
                // hit is written once, when the invocation ends
                // (`_sdbg_flush`). A storage write inside the shader's
                // loops costs a masked atomic and six stores per iteration
                // on SIMD drivers even when nothing hits: 4x the frame of a
                // 64-step ray marcher on llvmpipe, against 1.2x this way.
                for k in 0..breakpoints.len() {
                    let _ = write!(
                        s,
                        "{h}uint _sdbg_occ{k} = 0u;\n{h}uint _sdbg_first{k} = {NONE};\n"
                    );
                }
                // The last key word is the hit's tag (layout::HIT_TAG_NAN_INF).
                let _ = write!(
                        s,
                        "{PUT_HIT}{h}uint p, {h}uint occ, {h}uint tag) {{
    {h}uint i = atomicAdd(_sdbg_hit_count, 1u);
    if (i >= _sdbg_hit_cap) return;
    {h}uint at = i * {HIT_RECORD_WORDS}u;
    _sdbg_data[at] = p; _sdbg_data[at + 1u] = occ;
    _sdbg_data[at + 2u] = {k0}; _sdbg_data[at + 3u] = {k1}; _sdbg_data[at + 4u] = {k2}; _sdbg_data[at + 5u] = tag;
}}
",
                        k0 = key[0],
                        k1 = key[1],
                        k2 = key[2],
                    );
                for k in 0..breakpoints.len() {
                    let _ = write!(
                        s,
                        "void _sdbg_hit{k}(bool c) {{
    if (c && _sdbg_first{k} == {NONE}) _sdbg_first{k} = _sdbg_occ{k};
    _sdbg_occ{k} = _sdbg_occ{k} + 1u;
}}
"
                    );
                }
                s.push_str("void _sdbg_flush() {\n");
                for (k, p) in breakpoints.iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    if (_sdbg_first{k} != {NONE}) {{ _sdbg_put_hit({p}u, _sdbg_first{k}, {k}u); _sdbg_first{k} = {NONE}; }}"
                    );
                }
                s.push_str("}\n");
                if matches!(mode, Mode::HitTestNanInf(_)) {
                    let n = nan_slots.max(1);
                    let zeros = vec!["0u"; n].join(", ");
                    let tag = crate::layout::HIT_TAG_NAN_INF;
                    let _ = write!(
                        s,
                        "{h}uint _sdbg_nocc[{n}] = uint[{n}]({zeros});
void _sdbg_nan_reach(int k) {{ _sdbg_nocc[k] = _sdbg_nocc[k] + 1u; }}
void _sdbg_nan({h}uint p, int k, bool bad) {{ if (bad) _sdbg_put_hit(p, _sdbg_nocc[k] - 1u, {tag}u); }}
{h}uint _sdbg_nan_u({h}uint p, int k, bool bad) {{ _sdbg_nan(p, k, bad); return 0u; }}
bool _sdbg_bad({h}float v) {{ return isnan(v) || isinf(v); }}
bool _sdbg_bad({h}vec2 v) {{ return any(isnan(v)) || any(isinf(v)); }}
bool _sdbg_bad({h}vec3 v) {{ return any(isnan(v)) || any(isinf(v)); }}
bool _sdbg_bad({h}vec4 v) {{ return any(isnan(v)) || any(isinf(v)); }}
"
                    );
                }
            }
            Mode::Sanitize(checks) => {
                buffer(
                    &mut s,
                    [
                        "_sdbg_san_count",
                        "_sdbg_san_cap",
                        "_sdbg_san_overflow",
                        "_sdbg_san_flags",
                    ],
                );
                use crate::layout::{
                    SANITIZE_FLAG_WORDS_PER_PROBE as FW, SANITIZE_INDEX_SIGNED, SANITIZE_KINDS,
                    SANITIZE_KIND_OOB, SANITIZE_KIND_RACE, SANITIZE_RACE_PARTNERS,
                    SANITIZE_RACE_STORAGE, SANITIZE_RECORD_WORDS,
                };
                let oob = SANITIZE_KIND_OOB;
                let soob = SANITIZE_KIND_OOB | SANITIZE_INDEX_SIGNED;
                // `_sdbg_ok`: whether the last `_sdbg_cl` found its index in
                // bounds (read right after the access it guards).
                // Violations are kept in registers, two distinct (kind,
                // probe) per invocation, and written when the invocation
                // ends (`_sdbg_flush`): SIMD drivers run a conditional
                // storage write at every check, masked, even when nothing
                // is out of bounds (16x the dispatch on llvmpipe, against
                // a few x this way).
                // A race's record names the other invocation and its step
                // (`_sdbg_other_words`, zeros without the race check).
                let race = checks.race && stage == Stage::Compute;
                let storage = self.storage_race && !self.storage.is_empty();
                // An image's out-of-bounds record keeps the coordinate's
                // other components where a race keeps the other invocation.
                let mut put_other = format!(
                    "if ((kind & {img}u) != 0u) o = uvec4(other, og, 0u, 0u); ",
                    img = crate::layout::SANITIZE_OOB_IMAGE
                );
                if race {
                    let _ = write!(
                        put_other,
                        "if ((kind & {}u) == {}u) o = _sdbg_other_key(other); ",
                        0xff | crate::layout::SANITIZE_RACE_STORAGE,
                        crate::layout::SANITIZE_KIND_RACE
                    );
                }
                if storage {
                    let _ = write!(
                        put_other,
                        "if ((kind & {}u) != 0u) o = _sdbg_sother_key(other, og); ",
                        crate::layout::SANITIZE_RACE_STORAGE
                    );
                }
                let mut race_decls = String::new();
                if self.sync {
                    race_decls.push_str("bool _sdbg_sacq = false;\nbool _sdbg_sfenced = false;\n");
                }
                if race {
                    race_decls.push_str(&self.race_prelude());
                }
                if storage {
                    race_decls.push_str(&self.storage_prelude());
                }
                if self.sync {
                    race_decls.push_str(&self.sync_prelude(storage));
                }
                let _ = write!(
                    s,
                    "bool _sdbg_ok = true;
const bool _sdbg_oob = {report_oob};
{h}uint _sdbg_v = 0u;
{h}uint _sdbg_g = 0u;
{h}uint _sdbg_r0k = 0u; {h}uint _sdbg_r0p = 0u; {h}uint _sdbg_r0i = 0u; {h}uint _sdbg_r0b = 0u; {h}uint _sdbg_r0o = 0u; {h}uint _sdbg_r0g = 0u; {h}uint _sdbg_r0v = 0u; {h}uint _sdbg_r0w = 0u; {h}uint _sdbg_r0q = 0u;
{h}uint _sdbg_r1k = 0u; {h}uint _sdbg_r1p = 0u; {h}uint _sdbg_r1i = 0u; {h}uint _sdbg_r1b = 0u; {h}uint _sdbg_r1o = 0u; {h}uint _sdbg_r1g = 0u; {h}uint _sdbg_r1v = 0u; {h}uint _sdbg_r1w = 0u; {h}uint _sdbg_r1q = 0u;
bool _sdbg_more = false;
bool _sdbg_rpend = false;
{h}uint _sdbg_rlast = 0u;
{h}uint _sdbg_skipw = 0u;
{h}uint _sdbg_pkey({h}uint kind, {h}uint other, {h}uint og) {{
    // What tells reports of a step apart beyond their kind: a race's other
    // step (+ 1; a shared race's other access word holds it in 11 bits, a
    // storage race's generation word in 12), 1 for other kinds.
    if ((kind & 0xffu) != {race_kind}u) return 1u;
    return (kind & {storage}u) != 0u ? (og & 4095u) + 0x1001u : (other & 2047u) + 1u;
}}
void _sdbg_rep({h}uint kind, {h}uint p, {h}uint idx, {h}uint bound, {h}uint other, {h}uint og, {h}uint v, {h}uint w) {{
    // Inlined, masked, at every check (SIMD drivers run it whether or not
    // a lane reports): straight-line, each slot's key kept (`_sdbg_r0q`).
    {h}uint pk = _sdbg_pkey(kind, other, og);
    bool s0 = _sdbg_r0p == p && ((_sdbg_r0k ^ kind) & 0xffu) == 0u && _sdbg_r0q == pk;
    bool s1 = _sdbg_r1p == p && ((_sdbg_r1k ^ kind) & 0xffu) == 0u && _sdbg_r1q == pk;
    bool to0 = _sdbg_r0p == 0u;
    bool to1 = !to0 && !s0 && _sdbg_r1p == 0u;
    _sdbg_more = _sdbg_more || !(to0 || to1 || s0 || s1);
    if (to0) {{ _sdbg_r0k = kind; _sdbg_r0p = p; _sdbg_r0i = idx; _sdbg_r0b = bound; _sdbg_r0o = other; _sdbg_r0g = og; _sdbg_r0v = v; _sdbg_r0w = w; _sdbg_r0q = pk; }}
    if (to1) {{ _sdbg_r1k = kind; _sdbg_r1p = p; _sdbg_r1i = idx; _sdbg_r1b = bound; _sdbg_r1o = other; _sdbg_r1g = og; _sdbg_r1v = v; _sdbg_r1w = w; _sdbg_r1q = pk; }}
    _sdbg_rlast = to1 ? 1u : 0u;
    // A read's race report takes the value read, right after the read.
    _sdbg_rpend = (to0 || to1) && (kind & {race_read_mask}u) == {race_kind}u;
}}
void _sdbg_rcap({h}uint b) {{
    if (!_sdbg_rpend) return;
    if (_sdbg_rlast == 0u) {{ _sdbg_r0v = b; _sdbg_r0k |= {value_known}u; }} else {{ _sdbg_r1v = b; _sdbg_r1k |= {value_known}u; }}
    _sdbg_rpend = false;
}}
void _sdbg_report({h}uint kind, {h}uint p, {h}uint idx, {h}uint bound, {h}uint other) {{ _sdbg_rep(kind, p, idx, bound, other, 0u, 0u, 0u); }}
{h}uint _sdbg_key({h}uint j) {{ return j == 0u ? {k0} : j == 1u ? {k1} : {k2}; }}
{race_decls}{h}uvec4 _sdbg_other_words({h}uint kind, {h}uint other, {h}uint og) {{ {h}uvec4 o = uvec4(0u); {put_other}return o; }}
bool _sdbg_put({h}uint kind, {h}uint p, {h}uint idx, {h}uint bound, {h}uint other, {h}uint og, {h}uint v, {h}uint w) {{
    // A report into the buffer; false if it is lost (to the record cap,
    // or to a step's race partner words).
    {h}uint base = p * {FW}u;
    {h}uint k = kind & 0xffu;
    if (base + {FW}u <= _sdbg_san_flags) {{
        // The first report of each kind of a step: its key (1; a race's,
        // the partner's, into the first free of the step's race words:
        // the first of each pair of steps) into its dedup word.
        {h}uint key = _sdbg_pkey(kind, other, og);
        {h}uint tries = k == {race_kind}u ? {SANITIZE_RACE_PARTNERS}u : 1u;
        bool fresh = false;
        bool seen = false;
        for ({h}uint j = 0u; j < tries && !fresh && !seen; j++) {{
            {h}uint at = j == 0u ? base + k - 1u : base + {SANITIZE_KINDS}u + j - 1u;
            {h}uint was = _sdbg_data[at];
            if (was == 0u) was = atomicCompSwap(_sdbg_data[at], 0u, key);
            fresh = was == 0u;
            seen = was == key;
        }}
        if (!fresh) return seen;
    }}
    {h}uint i = atomicAdd(_sdbg_san_count, 1u);
    if (i >= _sdbg_san_cap) return false;
    {h}uint at = _sdbg_san_flags + i * {SANITIZE_RECORD_WORDS}u;
    {h}uvec4 o = _sdbg_other_words(kind, other, og);
    // The record's words by one store in a loop: SIMD drivers run a
    // store at every lane, masked, where no lane reports, a loop's body
    // once where no lane enters it. The step is 1 (probe ids are small)
    // where the compiler cannot see it: a loop it can count, it unrolls.
    for ({h}uint j = 0u; j < {SANITIZE_RECORD_WORDS}u; j += 1u + (p >> 31u)) {{
        _sdbg_data[at + j] = j == 0u ? kind : j == 1u ? p : j < 5u ? _sdbg_key(j - 2u)
            : j == 5u ? idx : j == 6u ? bound : j < 11u ? o[j - 7u] : j == 11u ? v : w;
    }}
    return true;
}}
void _sdbg_flush() {{
    // One path writes both slots, a loop over those in use: SIMD drivers
    // run every path, taken or not, so two would cost twice.
    {h}uint n = _sdbg_r0p == 0u ? 0u : _sdbg_r1p == 0u ? 1u : 2u;
    bool lost = _sdbg_more;
    for ({h}uint s = 0u; s < n; s++) {{
        bool z = s == 0u;
        lost = !_sdbg_put(z ? _sdbg_r0k : _sdbg_r1k, z ? _sdbg_r0p : _sdbg_r1p, z ? _sdbg_r0i : _sdbg_r1i, z ? _sdbg_r0b : _sdbg_r1b,
            z ? _sdbg_r0o : _sdbg_r1o, z ? _sdbg_r0g : _sdbg_r1g, z ? _sdbg_r0v : _sdbg_r1v, z ? _sdbg_r0w : _sdbg_r1w) || lost;
    }}
    {h}uint why = (lost ? 1u : 0u) | _sdbg_skipw;
    if (why != 0u) atomicOr(_sdbg_san_overflow, why);
    _sdbg_r0p = 0u; _sdbg_r1p = 0u; _sdbg_more = false; _sdbg_skipw = 0u;
}}
{h}int _sdbg_cl({h}uint p, {h}int i, {h}int n) {{
    _sdbg_ok = i >= 0 && i < n;
    if (_sdbg_ok) return i;
    if (_sdbg_oob) _sdbg_report({soob}u, p, uint(i), uint(n), 0u);
    return 0;
}}
{h}uint _sdbg_cl({h}uint p, {h}uint i, {h}int n) {{
    _sdbg_ok = n > 0 && i < uint(n);
    if (_sdbg_ok) return i;
    if (_sdbg_oob) _sdbg_report({oob}u, p, i, uint(n), 0u);
    return 0u;
}}
bool _sdbg_chk(bool prev, {h}uint p, {h}int i, {h}int n, out {h}int t) {{
    t = i;
    bool ok = i >= 0 && i < n;
    if (!ok && _sdbg_oob) _sdbg_report({soob}u, p, uint(i), uint(n), 0u);
    return prev && ok;
}}
bool _sdbg_chk(bool prev, {h}uint p, {h}uint i, {h}int n, out {h}uint t) {{
    t = i;
    bool ok = n > 0 && i < uint(n);
    if (!ok && _sdbg_oob) _sdbg_report({oob}u, p, i, uint(n), 0u);
    return prev && ok;
}}
{h}uint _sdbg_lr({h}uint p, {h}uint d, {h}uint m, {h}uint need) {{
    {h}uint miss = need & ~m;
    if (miss != 0u) _sdbg_report({uninit}u, p, uint(findLSB(miss)), d, 0u);
    return 0u;
}}
{h}uint _sdbg_bit({h}int i, {h}int n) {{ return i >= 0 && i < n ? 1u << uint(i) : 0u; }}
{h}uint _sdbg_bit({h}uint i, {h}int n) {{ return i < uint(n) ? 1u << i : 0u; }}
void _sdbg_irep({h}uint p, {h}uint t, {h}ivec3 c, {h}ivec3 s) {{
    _sdbg_rep({img}u | t, p, uint(c.x), uint(s.x), uint(c.y), uint(c.z), uint(s.y), uint(s.z));
}}
{h}int _sdbg_ic({h}uint p, {h}int c, {h}int s, {h}uint t) {{
    if (_sdbg_oob && (c < 0 || c >= s)) _sdbg_irep(p, t, ivec3(c, 0, 0), ivec3(s, 0, 0));
    return c;
}}
{h}ivec2 _sdbg_ic({h}uint p, {h}ivec2 c, {h}ivec2 s, {h}uint t) {{
    if (_sdbg_oob && (any(lessThan(c, ivec2(0))) || any(greaterThanEqual(c, s)))) _sdbg_irep(p, t, ivec3(c, 0), ivec3(s, 0));
    return c;
}}
{h}ivec3 _sdbg_ic({h}uint p, {h}ivec3 c, {h}ivec3 s, {h}uint t) {{
    if (_sdbg_oob && (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, s)))) _sdbg_irep(p, t, c, s);
    return c;
}}
{h}int _sdbg_tc({h}uint p, {h}int c, {h}int l, {h}int n, {h}int s, {h}uint t) {{
    if (l < 0 || l >= n) {{ if (_sdbg_oob) _sdbg_irep(p, t | {lod}u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }}
    return _sdbg_ic(p, c, s, t);
}}
{h}ivec2 _sdbg_tc({h}uint p, {h}ivec2 c, {h}int l, {h}int n, {h}ivec2 s, {h}uint t) {{
    if (l < 0 || l >= n) {{ if (_sdbg_oob) _sdbg_irep(p, t | {lod}u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }}
    return _sdbg_ic(p, c, s, t);
}}
{h}ivec3 _sdbg_tc({h}uint p, {h}ivec3 c, {h}int l, {h}int n, {h}ivec3 s, {h}uint t) {{
    if (l < 0 || l >= n) {{ if (_sdbg_oob) _sdbg_irep(p, t | {lod}u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }}
    return _sdbg_ic(p, c, s, t);
}}
",
                    img = crate::layout::SANITIZE_OOB_IMAGE | soob,
                    uninit = crate::layout::SANITIZE_KIND_UNINIT,
                    lod = crate::layout::SANITIZE_IMAGE_LOD,
                    k0 = key[0],
                    k1 = key[1],
                    k2 = key[2],
                    report_oob = checks.out_of_bounds,
                    race_read_mask = 0xff | crate::layout::SANITIZE_RACE_WRITE,
                    race_kind = SANITIZE_KIND_RACE,
                    storage = SANITIZE_RACE_STORAGE,
                    value_known = crate::layout::SANITIZE_VALUE_KNOWN,
                );
            }
            Mode::Watch { .. } => {
                buffer(
                    &mut s,
                    [
                        "_sdbg_w_width",
                        "_sdbg_w_height",
                        "_sdbg_w_stride",
                        "_sdbg_pad0",
                    ],
                );
                let index = match stage {
                    Stage::Fragment => format!(
                        "{h}uvec2 c = uvec2(gl_FragCoord.xy);\n    if (c.x >= _sdbg_w_width || c.y >= _sdbg_w_height) return {NONE};\n    {h}uint idx = c.y * _sdbg_w_width + c.x;"
                    ),
                    Stage::Vertex => format!("{h}uint idx = uint({});", self.dialect.vertex_id()),
                    Stage::Compute => format!(
                        "{h}uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;\n    {h}uint idx = gl_GlobalInvocationID.x + n.x * (gl_GlobalInvocationID.y + n.y * gl_GlobalInvocationID.z);"
                    ),
                    _ => format!("{h}uint idx = uint(gl_PrimitiveIDIn);"),
                };
                let _ = write!(
                    s,
                    "{h}uint _sdbg_slot() {{
    {index}
    if (idx >= _sdbg_w_width * _sdbg_w_height) return {NONE};
    {h}uint at = idx * _sdbg_w_stride;
    if (atomicAdd(_sdbg_data[at], 1u) != 0u) return {NONE};
    return at + 1u;
}}
"
                );
            }
        }
        s
    }

    /// `_sdbg_put_M(at, v)`: stores `v`'s words at `_sdbg_data[at..]`.
    fn put(&mut self, ty: &Type) -> String {
        let name = format!("_sdbg_put_{}", ty.mangle());
        if self.done.contains(&name) {
            return name;
        }
        let h = self.h;
        let mut body = String::new();
        match ty {
            Type::Scalar(s) => {
                let expr = match s {
                    Scalar::Float => "floatBitsToUint(v)",
                    Scalar::Int => "uint(v)",
                    Scalar::Uint => "v",
                    Scalar::Bool => "v ? 1u : 0u",
                    Scalar::Double => "",
                };
                if *s == Scalar::Double {
                    let _ = write!(body, "{h}uvec2 d = unpackDouble2x32(v); _sdbg_data[at] = d.x; _sdbg_data[at + 1u] = d.y;");
                } else {
                    let _ = write!(body, "_sdbg_data[at] = {expr};");
                }
            }
            Type::Vector(s, n) => {
                let f = self.put(&Type::Scalar(*s));
                for i in 0..*n {
                    let _ = write!(body, "{f}(at + {}u, v[{i}]); ", u32::from(i) * s.words());
                }
            }
            Type::Matrix { scalar, cols, rows } => {
                let col = Type::Vector(*scalar, *rows);
                let f = self.put(&col);
                let w = col.words().unwrap_or(0);
                for c in 0..*cols {
                    let _ = write!(body, "{f}(at + {}u, v[{c}]); ", u32::from(c) * w);
                }
            }
            Type::Array(elem, Some(n)) => {
                let f = self.put(elem);
                let w = elem.words().unwrap_or(0);
                let _ = write!(
                    body,
                    "for (int i = 0; i < {n}; i++) {f}(at + uint(i) * {w}u, v[i]);"
                );
            }
            Type::Struct(st) => {
                let mut off = 0;
                for field in &st.fields {
                    let f = self.put(&field.ty);
                    let _ = write!(body, "{f}(at + {off}u, v.{}); ", field.name);
                    off += field.ty.words().unwrap_or(0);
                }
            }
            _ => {}
        }
        let _ = writeln!(
            self.pending,
            "void {name}({h}uint at, {}) {{ {body} }}",
            self.param(ty, "v")
        );
        self.done.insert(name.clone());
        name
    }

    /// `_sdbg_w_M(p, v)`: logs an entry of probe `p` with `v` as payload; returns 0u.
    pub fn write(&mut self, ty: &Type) -> String {
        let name = format!("_sdbg_w_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let put = self.put(ty);
            let h = self.h;
            let words = ty.words().unwrap_or(0);
            let _ = writeln!(
                self.pending,
                "{h}uint {name}({h}uint p, {}) {{ {h}uint at = _sdbg_alloc(p, {words}u); if (at != {NONE}) {put}(at, v); return 0u; }}",
                self.param(ty, "v")
            );
        }
        name
    }

    /// `_sdbg_keep_M(v, ignored)`: returns `v`; lets a log call ride along an expression.
    /// The mask of uninitialized local number `k` (a bit per part
    /// written), declared once at global scope: GLSL has no recursion, so
    /// one instance of a function's locals is live at a time, and the
    /// local's declaration clears it.
    pub fn local_mask(&mut self, k: usize) -> String {
        let name = format!("_sdbg_m{k}");
        if self.done.insert(name.clone()) {
            let _ = writeln!(self.pending, "{}uint {name} = 0u;", self.h);
        }
        name
    }

    pub fn keep(&mut self, ty: &Type) -> String {
        let name = format!("_sdbg_keep_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let h = self.h;
            let _ = writeln!(
                self.pending,
                "{} {name}({}, {h}uint ignored) {{ return v; }}",
                self.ret(ty),
                self.param(ty, "v")
            );
        }
        name
    }

    /// `_sdbg_ret_M(p, v)`: logs the return value with probe `p` and returns it.
    pub fn ret_value(&mut self, ty: &Type) -> String {
        let name = format!("_sdbg_ret_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let w = self.write(ty);
            let h = self.h;
            let _ = writeln!(
                self.pending,
                "{} {name}({h}uint p, {}) {{ {w}(p, v); return v; }}",
                self.ret(ty),
                self.param(ty, "v")
            );
        }
        name
    }

    /// `_sdbg_watch_M(v)`: stores `v` in this invocation's watch slot (first time only).
    pub fn watch(&mut self, ty: &Type) -> String {
        let name = format!("_sdbg_watch_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let put = self.put(ty);
            let h = self.h;
            let _ = writeln!(
                self.pending,
                "void {name}({}) {{ {h}uint at = _sdbg_slot(); if (at != {NONE}) {put}(at, v); }}",
                self.param(ty, "v")
            );
        }
        name
    }

    /// `_sdbg_bits_M(v)`: the first word of `v` as a buffer holds it (the
    /// race check compares what two invocations wrote by it); `None` for
    /// types without one (doubles, structs without a usable name).
    fn bits(&mut self, ty: &Type, named: &dyn Fn(&Type) -> bool) -> Option<String> {
        let first = match ty {
            Type::Scalar(s) => match s {
                Scalar::Float => "floatBitsToUint(v)",
                Scalar::Int => "uint(v)",
                Scalar::Uint => "v",
                Scalar::Bool => "v ? 1u : 0u",
                Scalar::Double => return None,
            }
            .to_string(),
            Type::Vector(s, _) => format!("{}(v.x)", self.bits(&Type::Scalar(*s), named)?),
            Type::Matrix { scalar, .. } => {
                format!("{}(v[0][0])", self.bits(&Type::Scalar(*scalar), named)?)
            }
            Type::Array(elem, Some(_)) => format!("{}(v[0])", self.bits(elem, named)?),
            Type::Struct(st) if named(ty) => {
                let f = st.fields.first()?;
                format!("{}(v.{})", self.bits(&f.ty, named)?, f.name)
            }
            _ => return None,
        };
        let name = format!("_sdbg_bits_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let h = self.h;
            let _ = writeln!(
                self.pending,
                "{h}uint {name}({}) {{ return {first}; }}",
                self.param(ty, "v")
            );
        }
        Some(name)
    }

    /// `_sdbg_val_M(v)`: returns `v`, its first word ([`Self::bits`]) kept
    /// in `_sdbg_v` (declared with the race check's prelude).
    pub fn value_keeper(&mut self, ty: &Type, named: &dyn Fn(&Type) -> bool) -> Option<String> {
        let bits = self.bits(ty, named)?;
        let name = format!("_sdbg_val_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let _ = writeln!(
                self.pending,
                "{} {name}({}) {{ _sdbg_v = {bits}(v); return v; }}",
                self.ret(ty),
                self.param(ty, "v")
            );
        }
        Some(name)
    }

    /// `_sdbg_rval_M(v)`: returns `v`; if the race check just reported the
    /// read of `v` (`_sdbg_rpend`), the report takes its first word as
    /// the value read. `None` as for [`Self::bits`].
    pub fn read_capture(&mut self, ty: &Type, named: &dyn Fn(&Type) -> bool) -> Option<String> {
        let bits = self.bits(ty, named)?;
        let name = format!("_sdbg_rval_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let _ = writeln!(
                self.pending,
                "{} {name}({}) {{ if (_sdbg_rpend) _sdbg_rcap({bits}(v)); return v; }}",
                self.ret(ty),
                self.param(ty, "v")
            );
        }
        Some(name)
    }

    /// `_sdbg_pick_M(v)`: `v` if the last bounds check passed (`_sdbg_ok`),
    /// else `M`'s zero value; `None` where the zero value cannot be
    /// spelled (a struct without a usable name).
    pub fn pick(&mut self, ty: &Type, named: &dyn Fn(&Type) -> bool) -> Option<String> {
        let zero = zero_value(ty, named)?;
        let name = format!("_sdbg_pick_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let _ = writeln!(
                self.pending,
                "{} {name}({}) {{ return _sdbg_ok ? v : {zero}; }}",
                self.ret(ty),
                self.param(ty, "v")
            );
        }
        Some(name)
    }

    /// `_sdbg_zero_M()`: `M`'s zero value (`None` as for [`Self::pick`]).
    pub fn zero(&mut self, ty: &Type, named: &dyn Fn(&Type) -> bool) -> Option<String> {
        let zero = zero_value(ty, named)?;
        let name = format!("_sdbg_zero_{}", ty.mangle());
        if self.done.insert(name.clone()) {
            let _ = writeln!(
                self.pending,
                "{} {name}() {{ return {zero}; }}",
                self.ret(ty)
            );
        }
        Some(name)
    }

    /// The shadow of shared variable `decl` (sanitizer number `k`, `n`
    /// elements) and its helpers, for an access by step `p` with flags `f`
    /// ([`Self::access_flags`]): `_sdbg_mark{k}(p, i, f)` (a write of
    /// element `i`), `_sdbg_markall{k}(p, f)`, `_sdbg_uchk{k}(p, i, f)` (a
    /// read of `i`), `_sdbg_u{k}(p, i, f)` (bounds check and read, returns
    /// the index to read), `_sdbg_wm{k}(p, i, f)` (bounds check and write,
    /// returns the index to write), `_sdbg_uv{k}(p, f)` (a read of element
    /// 0, returns 0u), `_sdbg_markv{k}(p, i, f, known, v)` (a write whose
    /// value's first word `v` is `known`: [`Self::bits`]). Uninitialized reads: `_sdbg_sh{k}`, a word per
    /// element, nonzero once an invocation of the work group wrote the
    /// element. Races: the element's words in the race shadow (see
    /// [`Self::race_prelude`]).
    pub fn shadow(&mut self, k: usize, n: u32, decl: usize) {
        let h = self.h;
        let uninit = crate::layout::SANITIZE_KIND_UNINIT;
        let oob = crate::layout::SANITIZE_KIND_OOB;
        let soob = oob | crate::layout::SANITIZE_INDEX_SIGNED;
        let base = self.race_words;
        if self.shadow_race {
            self.race_words += n;
        }
        let mut s = String::new();
        let own = self.shadow_uninit && !self.uninit_in_race();
        if own {
            let _ = writeln!(s, "shared {h}uint _sdbg_sh{k}[{n}];");
        }
        for t in ["int", "uint"] {
            let (mut mark, mut check) = (String::new(), String::new());
            if own {
                // Every writer stores the same 1: a plain store, and only
                // where the word is still 0 (SIMD drivers run atomics lane
                // by lane).
                mark.push_str(&format!(" if (_sdbg_sh{k}[i] == 0u) _sdbg_sh{k}[i] = 1u;"));
                check.push_str(&format!(
                    " if (_sdbg_sh{k}[i] == 0u) _sdbg_report({uninit}u, p, uint(i), {decl}u, 0u);"
                ));
            }
            if self.shadow_race {
                mark.push_str(&format!(
                    " _sdbg_wr(p, {base}u + uint(i), uint(i), {decl}u, f, known, v);"
                ));
                check.push_str(&format!(
                    " _sdbg_rd(p, {base}u + uint(i), uint(i), {decl}u, f, true, 0u);"
                ));
            }
            // With the race check, a read's bounds check reports from
            // `_sdbg_rd`'s call site (one report site per read).
            let read = if self.shadow_race {
                let (inb, zero, kind) = if t == "int" {
                    ("i >= 0 && i < {n}", "0", "{soob}")
                } else {
                    ("i < {n}u", "0u", "{oob}")
                };
                let (inb, kind) = (
                    inb.replace("{n}", &n.to_string()),
                    kind.replace("{soob}", &soob.to_string())
                        .replace("{oob}", &oob.to_string()),
                );
                format!("bool ok = {inb}; _sdbg_ok = ok; {h}{t} c = ok ? i : {zero}; _sdbg_rd(p, {base}u + uint(c), uint(i), ok ? {decl}u : {n}u, f, ok, _sdbg_oob ? {kind}u : 0u); return c;")
            } else {
                format!("{h}{t} c = _sdbg_cl(p, i, {n}); if (_sdbg_ok) _sdbg_uchk{k}(p, c, f); return c;")
            };
            let _ = write!(
                s,
                "void _sdbg_markv{k}({h}uint p, {h}{t} i, {h}uint f, bool known, {h}uint v) {{{mark} }}
void _sdbg_mark{k}({h}uint p, {h}{t} i, {h}uint f) {{ _sdbg_markv{k}(p, i, f, false, 0u); }}
void _sdbg_uchk{k}({h}uint p, {h}{t} i, {h}uint f) {{{check} }}
{h}{t} _sdbg_u{k}({h}uint p, {h}{t} i, {h}uint f) {{ {read} }}
{h}{t} _sdbg_wm{k}({h}uint p, {h}{t} i, {h}uint f) {{ {h}{t} c = _sdbg_cl(p, i, {n}); if (_sdbg_ok) _sdbg_mark{k}(p, c, f); return c; }}
"
            );
        }
        let _ = write!(
            s,
            "void _sdbg_markall{k}({h}uint p, {h}uint f) {{ for (int i = 0; i < {n}; i++) _sdbg_mark{k}(p, i, f); }}
{h}uint _sdbg_uv{k}({h}uint p, {h}uint f) {{ _sdbg_uchk{k}(p, 0u, f); return 0u; }}
"
        );
        self.pending.push_str(&s);
    }

    /// `_sdbg_shadow_init()`: the invocations of a work group clear the
    /// shadows (of `n` words each) between them; `main` calls it first,
    /// then waits at a barrier.
    pub fn shadow_init(&mut self, shadows: &[(usize, u32)]) {
        let h = self.h;
        let mut body = String::new();
        if self.shadow_uninit && !self.uninit_in_race() {
            let _ = writeln!(
                body,
                "    {h}uint n = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;"
            );
            for (k, words) in shadows {
                let _ = writeln!(
                    body,
                    "    for ({h}uint i = gl_LocalInvocationIndex; i < {words}u; i += n) _sdbg_sh{k}[i] = 0u;"
                );
            }
        }
        if self.shadow_race {
            body.push_str("    _sdbg_race_init();\n");
        }
        let _ = write!(self.pending, "void _sdbg_shadow_init() {{\n{body}}}\n");
    }

    /// Declares the global `_sdbg_t{site}` that holds a checked index.
    pub fn index_temp(&mut self, site: u32, signed: bool) -> String {
        let name = format!("_sdbg_t{site}");
        let ty = if signed { "int" } else { "uint" };
        let _ = writeln!(self.pending, "{}{ty} {name};", self.h);
        name
    }

    /// Declares the global `_sdbg_ok{site}` that holds a statement's
    /// bounds checks.
    pub fn flag_temp(&mut self, site: u32) -> String {
        let name = format!("_sdbg_ok{site}");
        let _ = writeln!(self.pending, "bool {name};");
        name
    }

    /// Declares the global `_sdbg_h{site}` of type `ty` that holds the
    /// value a checked statement writes.
    pub fn value_temp(&mut self, site: u32, ty: &Type) -> String {
        let name = format!("_sdbg_h{site}");
        let _ = writeln!(
            self.pending,
            "{}{};",
            self.precision(ty),
            crate::types::decl_text(ty, &name)
        );
        name
    }

    fn precision(&self, ty: &Type) -> &'static str {
        match ty {
            Type::Array(elem, _) => self.precision(elem),
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix { scalar: s, .. }
                if *s != Scalar::Bool =>
            {
                self.h
            }
            _ => "",
        }
    }

    fn param(&self, ty: &Type, name: &str) -> String {
        let (base, dims) = base_and_dims(ty);
        format!("{}{base} {name}{dims}", self.precision(ty))
    }

    fn ret(&self, ty: &Type) -> String {
        let (base, dims) = base_and_dims(ty);
        format!("{}{base}{dims}", self.precision(ty))
    }
}

/// The zero value of `ty` as a GLSL expression.
fn zero_value(ty: &Type, named: &dyn Fn(&Type) -> bool) -> Option<String> {
    Some(match ty {
        Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. } => format!("{ty}(0)"),
        // Longer constructors would only bloat the shader.
        Type::Array(_, Some(n)) if *n > 64 => return None,
        Type::Array(elem, Some(n)) => {
            let z = zero_value(elem, named)?;
            let (base, dims) = base_and_dims(ty);
            let items = vec![z; *n as usize].join(", ");
            format!("{base}{dims}({items})")
        }
        Type::Struct(st) if named(ty) => {
            let fields: Option<Vec<String>> =
                st.fields.iter().map(|f| zero_value(&f.ty, named)).collect();
            format!("{}({})", st.name, fields?.join(", "))
        }
        _ => return None,
    })
}

/// `float[2][3]` as GLSL wants it: innermost type, then dimensions outermost first.
fn base_and_dims(ty: &Type) -> (String, String) {
    match ty {
        Type::Array(elem, n) => {
            let (base, dims) = base_and_dims(elem);
            let n = n.map(|n| n.to_string()).unwrap_or_default();
            (base, format!("[{n}]{dims}"))
        }
        other => (other.to_string(), String::new()),
    }
}

/// The words that identify an invocation (`Invocation::key` reads them back).
fn invocation_key(stage: Stage, version: Version, dialect: Dialect) -> [String; 4] {
    let prim = if dialect.vulkan() {
        NONE
    } else if !version.is_es() || version.number >= 320 {
        "uint(gl_PrimitiveID)"
    } else {
        NONE
    };
    let k = |a: &str, b: &str, c: &str| {
        [
            a.to_string(),
            b.to_string(),
            c.to_string(),
            "0u".to_string(),
        ]
    };
    match stage {
        Stage::Fragment => k("uint(gl_FragCoord.x)", "uint(gl_FragCoord.y)", prim),
        Stage::Vertex => k(
            &format!("uint({})", dialect.vertex_id()),
            &format!("uint({})", dialect.instance_id()),
            "0u",
        ),
        Stage::Compute => k(
            "gl_GlobalInvocationID.x",
            "gl_GlobalInvocationID.y",
            "gl_GlobalInvocationID.z",
        ),
        Stage::Geometry => k("uint(gl_PrimitiveIDIn)", "uint(gl_InvocationID)", "0u"),
        Stage::TessControl => k("uint(gl_PrimitiveID)", "uint(gl_InvocationID)", "0u"),
        Stage::TessEvaluation => k("uint(gl_PrimitiveID)", "0u", "0u"),
    }
}

fn selector_condition(sel: &Invocation, dialect: Dialect) -> String {
    match sel {
        Invocation::Fragment {
            x, y, primitive, ..
        } => {
            let mut s = format!("(uint(gl_FragCoord.x) == {x}u && uint(gl_FragCoord.y) == {y}u");
            if let Some(p) = primitive.filter(|_| !dialect.vulkan()) {
                let _ = write!(s, " && uint(gl_PrimitiveID) == {p}u");
            }
            s.push(')');
            s
        }
        Invocation::Vertex { vertex, instance } => {
            format!(
                "({} == {vertex} && {} == {instance})",
                dialect.vertex_id(),
                dialect.instance_id()
            )
        }
        Invocation::Compute { id } => format!(
            "all(equal(gl_GlobalInvocationID, uvec3({}u, {}u, {}u)))",
            id[0], id[1], id[2]
        ),
    }
}
