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
