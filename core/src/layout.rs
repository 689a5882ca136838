//! The layouts of the storage buffers instrumented shaders write, shared by the
//! instrumenters (which emit code for them), the decoder, and whoever allocates
//! and reads the buffers (tests, the agent). All words are little-endian `u32`.
//!
//! Every buffer starts with a four-word header followed by `data[]`:
//!
//! | mode   | header                                          | data |
//! |--------|-------------------------------------------------|------|
//! | record | `len` (words used), `cap`, `overflow`, `invocations` | entries `[probe, tag, payload...]`; payload size from the probe table |
//! | hit    | `count` (hits, may exceed cap), `cap` (records), 0, 0 | records of [`HIT_RECORD_WORDS`]: `[probe, occurrence, key0, key1, key2, tag]`; for breakpoints one per invocation and breakpoint (its first reach where the condition held) |
//! | watch  | `width`, `height`, `stride` (words per slot), 0   | one slot per pixel/invocation: `[times reached, value...]` |
//! | sanitize | `count` (records, may exceed cap), `cap` (records), `overflow`, `flags` | `flags` dedup words, then records of [`SANITIZE_RECORD_WORDS`]: `[kind, probe, key0, key1, key2, index, bound, other0, other1, other2, other_probe, value, other_value]`, then the storage race shadow (see [`new_sanitize_buffer`]) |
//!
//! The host zeroes a buffer and writes the header fields it owns (`cap`; `width`,
//! `height`, `stride`) before the draw. Probe ids start at 1, so a zero word where
//! an entry should start marks the end of what was written.

/// Words before `data[]`.
pub const HEADER_WORDS: usize = 4;
/// Index of the capacity word (in `data` words for record, records for hit).
pub const CAP_INDEX: usize = 1;
/// Words of one hit record.
pub const HIT_RECORD_WORDS: usize = 6;
/// The `tag` word of a hit record (the last key word, 0 in every invocation
/// key) says what hit: the index of the breakpoint in the request, or this
/// value for a NaN/Inf written to an output (`Mode::HitTestNanInf`).
pub const HIT_TAG_NAN_INF: u32 = u32::MAX;

/// Words of an entry before its payload.
pub const ENTRY_HEADER_WORDS: usize = 2;

/// Builds a zeroed record buffer with room for `cap` data words.
pub fn new_record_buffer(cap_words: u32) -> Vec<u8> {
    let mut words = vec![0u32; HEADER_WORDS + cap_words as usize];
    words[CAP_INDEX] = cap_words;
    to_bytes(&words)
}

/// Builds a zeroed hit buffer with room for `cap` records.
pub fn new_hit_buffer(cap_records: u32) -> Vec<u8> {
    let mut words = vec![0u32; HEADER_WORDS + cap_records as usize * HIT_RECORD_WORDS];
    words[CAP_INDEX] = cap_records;
    to_bytes(&words)
}

/// Builds a zeroed watch buffer for a `width` x `height` grid of `value_words` values.
pub fn new_watch_buffer(width: u32, height: u32, value_words: u32) -> Vec<u8> {
    let stride = value_words + 1;
    let mut words = vec![0u32; HEADER_WORDS + (width * height * stride) as usize];
    words[0] = width;
    words[1] = height;
    words[2] = stride;
    to_bytes(&words)
}

/// The used part of a record buffer read back whole, its capacity word set
/// to what is used (as the session decodes it).
pub fn trim_record(words: &[u32]) -> Vec<u32> {
    let used = words.first().copied().unwrap_or(0) as usize;
    let cap = words.get(CAP_INDEX).copied().unwrap_or(0) as usize;
    let end = (HEADER_WORDS + used.min(cap)).min(words.len());
    let mut out = words[..end].to_vec();
    if let Some(c) = out.get_mut(CAP_INDEX) {
        *c = used.min(cap) as u32;
    }
    out
}

pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

pub fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// One record of a hit buffer, as the GPU wrote it ([`crate::decode::decode_hits`] gives typed hits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HitRecord {
    pub probe: u32,
    pub occurrence: u32,
    /// Fragment: x, y, primitive, tag. Vertex: vertex, instance, 0, tag.
    /// Compute: x, y, z, tag. The tag (see [`HIT_TAG_NAN_INF`]) is not part
    /// of the invocation: see [`HitRecord::tag`].
    pub key: [u32; 4],
}

impl HitRecord {
    /// What hit: a breakpoint's index in the request, or [`HIT_TAG_NAN_INF`].
    pub fn tag(&self) -> u32 {
        self.key[3]
    }
}

/// Reads the hits of a hit buffer; `true` in the second field if some were lost
/// because the buffer was full.
pub fn read_hits(words: &[u32]) -> (Vec<HitRecord>, bool) {
    let count = words.first().copied().unwrap_or(0) as usize;
    let cap = words.get(CAP_INDEX).copied().unwrap_or(0) as usize;
    let n = count.min(cap);
    let hits = words
        .get(HEADER_WORDS..)
        .unwrap_or_default()
        .chunks_exact(HIT_RECORD_WORDS)
        .take(n)
        .map(|r| HitRecord {
            probe: r[0],
            occurrence: r[1],
            key: [r[2], r[3], r[4], r[5]],
        })
        .collect();
    (hits, count > cap)
}

// ---- sanitizer report buffer ------------------------------------------------
//
// | mode     | header                                                   | data |
// |----------|----------------------------------------------------------|------|
// | sanitize | `count` (records appended, may exceed cap), `cap` (records), `overflow` (1 once a record was lost), `flags` (dedup words before the records) | `flags` dedup words ([`SANITIZE_FLAG_WORDS_PER_PROBE`] per probe: one per kind at `probe * SANITIZE_FLAG_WORDS_PER_PROBE + kind - 1`, the race kind's holding its first partner, then the race kind's further partners), then records of [`SANITIZE_RECORD_WORDS`]: `[kind, probe, key0, key1, key2, index, bound, other0, other1, other2, other_probe, value, other_value]`, then the storage race shadow: [`SANITIZE_SHADOW_SLOT_WORDS`] words per slot (one slot per element of a storage-buffer member), as many slots as the rest of the buffer holds |
//
// The shader appends a record only for the first violation of each (kind,
// probe) (`atomicOr` on its dedup word), and of a race for the first of
// each (probe, other probe): the probe's race words keep up to
// [`SANITIZE_RACE_PARTNERS`] other probes (+ 1, `atomicCompSwap` into the
// first free word); a race with a further partner is lost (`overflow`).
// Where the dedup words would lie at or past `flags` it appends every
// violation (the decoder deduplicates). `overflow` is also set by an
// invocation that had more distinct violations than it keeps (the GLSL
// engine keeps two). Its other bits say what the storage race check
// skipped (see [`sanitize_unchecked`]).

/// Words of one sanitizer record: `[kind, probe, key0, key1, key2, index,
/// bound, other0, other1, other2, other_probe, value, other_value]` (an
/// uninitialized read or a race: `index` is the element, `bound` the
/// variable's `DeclId`; a race on a storage buffer
/// ([`SANITIZE_RACE_STORAGE`]): `bound` is the `DeclId` of the block
/// member (a block without an instance name) or of the block's instance,
/// plus the member's index + 1 shifted left by [`SANITIZE_MEMBER_SHIFT`];
/// a race: `other*` the key of the other invocation and the probe of its
/// access, 0 where not known, `value` the first word of the value this
/// access wrote or read ([`SANITIZE_VALUE_KNOWN`]), `other_value` of the
/// value the other access wrote ([`SANITIZE_OTHER_VALUE_KNOWN`]); other
/// kinds: `other*` and the values are 0).
pub const SANITIZE_RECORD_WORDS: usize = 13;
/// A storage race's `bound`: the member of an instance-named block, + 1,
/// above this bit (0: the `DeclId` is the member's own).
pub const SANITIZE_MEMBER_SHIFT: u32 = 20;
/// Words per slot of the storage race shadow after the records: the last
/// writer (invocation, flags, a hash of the value) and its generation and
/// step, two readers (the same two words each), and the last written
/// value's first word.
pub const SANITIZE_SHADOW_SLOT_WORDS: usize = 7;
/// Storage race shadow slots [`new_sanitize_buffer`] makes room for (one
/// per element of the storage-buffer members a shader accesses; elements
/// past what the shadow holds are not checked for races).
pub const SANITIZE_DEFAULT_SHADOW_SLOTS: u32 = 1 << 16;
/// Index of the header word holding the number of dedup words before the records.
pub const SANITIZE_FLAGS_INDEX: usize = 3;
/// Index of the header word of flags ([`SANITIZE_LOST`],
/// [`SANITIZE_SHADOW_SHORT`], [`SANITIZE_UNNAMED`]), set with `atomicOr`.
pub const SANITIZE_OVERFLOW_INDEX: usize = 2;
/// A report was lost (the records full, or an invocation found more than
/// it keeps).
pub const SANITIZE_LOST: u32 = 1;
/// A storage access was past the elements the race shadow holds: not
/// checked for races.
pub const SANITIZE_SHADOW_SHORT: u32 = 2;
/// An invocation the storage race check cannot name (beyond the bits of
/// an access word) accessed a storage buffer: not checked for races.
pub const SANITIZE_UNNAMED: u32 = 4;
/// Kinds of violation (the low byte of a record's `kind` word).
pub const SANITIZE_KIND_OOB: u32 = 1;
pub const SANITIZE_KIND_UNINIT: u32 = 2;
/// Two invocations of a work group accessed one shared element between the
/// same two barriers, at least one writing, not both atomically.
pub const SANITIZE_KIND_RACE: u32 = 3;
/// A `barrier()` that not every invocation of the work group reached (in
/// divergent control flow, or after some returned): `index` is how many
/// did, `bound` the work group's size.
pub const SANITIZE_KIND_BARRIER: u32 = 4;
/// How many kinds there are.
pub const SANITIZE_KINDS: u32 = 4;
/// Distinct other steps a step's races are reported with (dedup words of
/// the race kind per probe).
pub const SANITIZE_RACE_PARTNERS: u32 = 4;
/// Dedup words per probe: one per kind, and the race kind's further
/// partners after them.
pub const SANITIZE_FLAG_WORDS_PER_PROBE: u32 = SANITIZE_KINDS + SANITIZE_RACE_PARTNERS - 1;
/// Set in a record's `kind` word when its `index` is a signed `int`.
pub const SANITIZE_INDEX_SIGNED: u32 = 0x100;
/// A race: set in the `kind` word when the reporting invocation's access
/// wrote (else it read).
pub const SANITIZE_RACE_WRITE: u32 = 0x200;
/// A race: set when the reporting invocation's access was an atomic function.
pub const SANITIZE_RACE_ATOMIC: u32 = 0x400;
/// A race: set when the other invocation's access wrote (else it read).
pub const SANITIZE_RACE_OTHER_WRITE: u32 = 0x800;
/// A race: set when the other invocation's access was an atomic function.
pub const SANITIZE_RACE_OTHER_ATOMIC: u32 = 0x1000;
/// A race on a storage-buffer element (else on a shared variable's).
pub const SANITIZE_RACE_STORAGE: u32 = 0x2000;
/// A race: the record's `value` word is known (the first word of the value
/// this access wrote or read).
pub const SANITIZE_VALUE_KNOWN: u32 = 0x4000;
/// A race: the record's `other_value` word is known (the first word of
/// the value the other access wrote).
pub const SANITIZE_OTHER_VALUE_KNOWN: u32 = 0x8000;
/// Out of bounds: set in the `kind` word when the access was an image's
/// (`imageLoad`, `imageStore`, `imageAtomic*`, `texelFetch`). The record
/// then holds the coordinate in `index`, `other[0]`, `other[1]` (signed)
/// and the image's size at that level in `bound`, `value`, `other_value`;
/// the `kind` word says how many components count
/// ([`SANITIZE_IMAGE_DIMS_SHIFT`]), whether the level was out of range
/// ([`SANITIZE_IMAGE_LOD`]: then `index` is the level and `bound` the
/// number of levels), which function ([`SANITIZE_IMAGE_OP_SHIFT`]) and the
/// image variable ([`SANITIZE_IMAGE_DECL_SHIFT`]).
pub const SANITIZE_OOB_IMAGE: u32 = 0x1_0000;
/// The coordinate's component count (1..=3), 2 bits at this shift.
pub const SANITIZE_IMAGE_DIMS_SHIFT: u32 = 17;
/// The level of detail of a `texelFetch` was out of range.
pub const SANITIZE_IMAGE_LOD: u32 = 1 << 19;
/// The function, 2 bits at this shift: 0 `imageLoad`, 1 `imageStore`, 2
/// an `imageAtomic*`, 3 `texelFetch`.
pub const SANITIZE_IMAGE_OP_SHIFT: u32 = 20;
/// The image or sampler variable's declaration, 10 bits at this shift
/// ([`SANITIZE_IMAGE_NO_DECL`]: not known).
pub const SANITIZE_IMAGE_DECL_SHIFT: u32 = 22;
pub const SANITIZE_IMAGE_NO_DECL: u32 = 0x3ff;

/// The dedup words a sanitize buffer needs for a probe table of `probes` probes.
pub fn sanitize_flag_words(probes: usize) -> u32 {
    (probes as u32 + 1) * SANITIZE_FLAG_WORDS_PER_PROBE
}

/// The header of a fresh sanitize buffer (every word after it is zero).
pub fn sanitize_header(cap_records: u32, probes: usize) -> [u32; HEADER_WORDS] {
    let mut header = [0; HEADER_WORDS];
    header[CAP_INDEX] = cap_records;
    header[SANITIZE_FLAGS_INDEX] = sanitize_flag_words(probes);
    header
}

/// Words of a sanitize buffer with room for `cap_records` records, the
/// dedup words of `probes` probes and `shadow_slots` storage race shadow
/// slots.
pub fn sanitize_buffer_words(cap_records: u32, probes: usize, shadow_slots: u32) -> usize {
    HEADER_WORDS
        + sanitize_flag_words(probes) as usize
        + cap_records as usize * SANITIZE_RECORD_WORDS
        + shadow_slots as usize * SANITIZE_SHADOW_SLOT_WORDS
}

/// What the storage race check of a sanitize buffer's dispatch or draw
/// left unchecked: (accesses past its shadow, invocations it cannot name).
pub fn sanitize_unchecked(words: &[u32]) -> (bool, bool) {
    let flags = words.get(SANITIZE_OVERFLOW_INDEX).copied().unwrap_or(0);
    (
        flags & SANITIZE_SHADOW_SHORT != 0,
        flags & SANITIZE_UNNAMED != 0,
    )
}

/// Builds a zeroed sanitize buffer with room for `cap_records` records,
/// the dedup words of a probe table of `probes` probes, and
/// [`SANITIZE_DEFAULT_SHADOW_SLOTS`] storage race shadow slots.
pub fn new_sanitize_buffer(cap_records: u32, probes: usize) -> Vec<u8> {
    new_sanitize_buffer_with_shadow(cap_records, probes, SANITIZE_DEFAULT_SHADOW_SLOTS)
}

/// [`new_sanitize_buffer`] with `shadow_slots` storage race shadow slots
/// (one per element of the storage-buffer members the shader accesses
/// suffices; the words of the bound storage ranges always do).
pub fn new_sanitize_buffer_with_shadow(
    cap_records: u32,
    probes: usize,
    shadow_slots: u32,
) -> Vec<u8> {
    let mut words = vec![0u32; sanitize_buffer_words(cap_records, probes, shadow_slots)];
    words[..HEADER_WORDS].copy_from_slice(&sanitize_header(cap_records, probes));
    to_bytes(&words)
}

/// One record of a sanitize buffer, as the GPU wrote it
/// ([`crate::decode::decode_sanitizer`] gives typed reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SanitizeRecord {
    /// The kind (low byte) and [`SANITIZE_INDEX_SIGNED`].
    pub kind: u32,
    pub probe: u32,
    /// The invocation key words (compute: the global id).
    pub key: [u32; 3],
    pub index: u32,
    pub bound: u32,
    /// A race: the other invocation's key words.
    pub other: [u32; 3],
    /// A race: the probe of the other invocation's access (0: unknown).
    pub other_probe: u32,
    /// A race: the first word of the value this access wrote or read.
    pub value: u32,
    /// A race: the first word of the value the other access wrote.
    pub other_value: u32,
}

/// Reads the records of a sanitize buffer; `true` in the second field if some
/// were lost because the buffer was full.
pub fn read_sanitize(words: &[u32]) -> (Vec<SanitizeRecord>, bool) {
    let header = |i: usize| words.get(i).copied().unwrap_or(0) as usize;
    let (count, cap) = (header(0), header(CAP_INDEX));
    let flags = header(SANITIZE_FLAGS_INDEX);
    let records = words
        .get(HEADER_WORDS.saturating_add(flags)..)
        .unwrap_or_default()
        .chunks_exact(SANITIZE_RECORD_WORDS)
        .take(count.min(cap))
        .map(|r| SanitizeRecord {
            kind: r[0],
            probe: r[1],
            key: [r[2], r[3], r[4]],
            index: r[5],
            bound: r[6],
            other: [r[7], r[8], r[9]],
            other_probe: r[10],
            value: r[11],
            other_value: r[12],
        })
        .collect();
    let lost = header(SANITIZE_OVERFLOW_INDEX) as u32 & SANITIZE_LOST != 0;
    (records, count > cap || lost)
}
