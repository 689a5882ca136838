//! The one decoder of every debug buffer (layouts in [`crate::layout`]):
//!
//! - a record buffer (step log) + probe table -> typed [`Trace`]: the steps
//!   of each recorded invocation in execution order, with call depth, every
//!   write, and how the invocation left the shader. The state of any variable
//!   at any step is a fold over the writes before it;
//! - a hit buffer -> [`Hit`]s in a deterministic order ([`decode_hits`]);
//! - a watch buffer -> one value per slot ([`decode_watch`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::layout::{self, ENTRY_HEADER_WORDS, HEADER_WORDS, HIT_TAG_NAN_INF};
use crate::probes::{DeclId, FunctionId, PathElem, ProbeId, ProbeKind, ProbeTable};
use crate::stage::Invocation;
use crate::types::Type;
use crate::value::Value;

/// How the recorded invocation left the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// `main` returned (or ran to its end).
    Returned,
    Discarded,
    /// The log filled up; the trace is a prefix of the execution.
    Overflowed,
    /// The log ends without an exit (should not happen for a complete draw).
    Incomplete,
}

/// One step: a statement about to execute.
#[derive(Clone, Debug)]
pub struct Step {
    pub probe: ProbeId,
    /// 1-based line in the runtime source.
    pub line: u32,
    /// Call depth: 0 in `main`.
    pub depth: usize,
    /// Index into [`InvocationTrace::frames`] of the frame executing this step.
    pub frame: usize,
}

/// A function activation.
#[derive(Clone, Debug)]
pub struct Frame {
    pub function: Option<FunctionId>,
    pub caller: Option<usize>,
    /// The caller's step that was executing when this frame was entered.
    pub call_step: Option<usize>,
}

/// A logged write (or input value).
#[derive(Clone, Debug)]
pub struct Write {
    pub probe: ProbeId,
    /// The step this write happened during (`None`: before the first step).
    pub step: Option<usize>,
    pub frame: usize,
    pub decl: DeclId,
    pub path: Vec<PathElem>,
    pub value: Value,
}

/// A condition that was evaluated.
#[derive(Clone, Debug)]
pub struct ConditionValue {
    pub probe: ProbeId,
    pub step: Option<usize>,
    pub value: bool,
}

/// The recorded execution of one invocation.
#[derive(Clone, Debug)]
pub struct InvocationTrace {
    /// Order in which invocations started recording.
    pub tag: u32,
    /// The invocation (from its start entry; `None` if the log has none).
    pub invocation: Option<Invocation>,
    pub steps: Vec<Step>,
    pub frames: Vec<Frame>,
    pub writes: Vec<Write>,
    pub conditions: Vec<ConditionValue>,
    /// Return values: (step during which the function returned, frame, value).
    pub returns: Vec<(Option<usize>, usize, Value)>,
    pub exit: Exit,
}

#[derive(Clone, Debug)]
pub struct Trace {
    pub invocations: Vec<InvocationTrace>,
    pub overflowed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("step log entry at word {at} names probe {probe}, which the probe table does not have (wrong table?)")]
    UnknownProbe { at: usize, probe: u32 },
    #[error("step log entry at word {at} is truncated")]
    Truncated { at: usize },
    #[error("step log has no header")]
    NoHeader,
    #[error("a watch buffer of {words} words cannot hold {slots} values of {value_words} words")]
    ShortWatch {
        words: usize,
        slots: usize,
        value_words: usize,
    },
    #[error("values of this type are not logged")]
    Unloggable,
}

struct Builder {
    inv: InvocationTrace,
    current: usize,
}

/// Decodes a record buffer (header included) into traces.
pub fn decode(words: &[u32], table: &ProbeTable) -> Result<Trace, DecodeError> {
    if words.len() < HEADER_WORDS {
        return Err(DecodeError::NoHeader);
    }
    let (len, cap, overflow) = (words[0] as usize, words[1] as usize, words[2] != 0);
    let data = &words[HEADER_WORDS..];
    let end = len.min(cap).min(data.len());
    let mut builders: Vec<Builder> = Vec::new();
    let mut by_tag: HashMap<u32, usize> = HashMap::new();
    let mut at = 0;
    while at + ENTRY_HEADER_WORDS <= end {
        let (id, tag) = (data[at], data[at + 1]);
        if id == 0 {
            break; // never written: an allocation that lost the race for space
        }
        let probe = table
            .get(id)
            .ok_or(DecodeError::UnknownProbe { at, probe: id })?;
        let n = probe.payload_words();
        let payload = data
            .get(at + ENTRY_HEADER_WORDS..at + ENTRY_HEADER_WORDS + n)
            .filter(|_| at + ENTRY_HEADER_WORDS + n <= end)
            .ok_or(DecodeError::Truncated { at })?;
        let b = *by_tag.entry(tag).or_insert_with(|| {
            builders.push(Builder {
                inv: InvocationTrace {
                    tag,
                    invocation: None,
                    steps: Vec::new(),
                    frames: vec![Frame {
                        function: None,
                        caller: None,
                        call_step: None,
                    }],
                    writes: Vec::new(),
                    conditions: Vec::new(),
                    returns: Vec::new(),
                    exit: Exit::Incomplete,
                },
                current: 0,
            });
            builders.len() - 1
        });
        let b = &mut builders[b];
        let value = || {
            probe
                .payload
                .as_ref()
                .and_then(|t| Value::decode(t, payload))
                .map(|(v, _)| v)
                .ok_or(DecodeError::Truncated { at })
        };
        let step = b.inv.steps.len().checked_sub(1);
        match &probe.kind {
            ProbeKind::InvocationStart => {
                let mut key = [0; 3];
                for (k, w) in key.iter_mut().zip(payload) {
                    *k = *w;
                }
                b.inv.invocation = Invocation::from_key(table.stage, key);
            }
            ProbeKind::FunctionEntry => {
                let caller = (!b.inv.steps.is_empty() || b.current != 0).then_some(b.current);
                let frame = if caller.is_none()
                    && b.inv.frames.len() == 1
                    && b.inv.frames[0].function.is_none()
                {
                    0
                } else {
                    b.inv.frames.push(Frame {
                        function: None,
                        caller,
                        call_step: step,
                    });
                    b.inv.frames.len() - 1
                };
                b.inv.frames[frame].function = probe.function;
                b.current = frame;
            }
            ProbeKind::Statement | ProbeKind::Discard => {
                let depth = depth_of(&b.inv.frames, b.current);
                b.inv.steps.push(Step {
                    probe: id,
                    line: probe.line,
                    depth,
                    frame: b.current,
                });
                if probe.kind == ProbeKind::Discard {
                    b.inv.exit = Exit::Discarded;
                }
            }
            ProbeKind::Condition => b.inv.conditions.push(ConditionValue {
                probe: id,
                step,
                value: payload.first().is_some_and(|w| *w != 0),
            }),
            ProbeKind::LoopIteration => {}
            ProbeKind::FunctionReturn => {
                if probe.payload.is_some() {
                    let v = value()?;
                    b.inv.returns.push((step, b.current, v));
                }
                match b.inv.frames[b.current].caller {
                    Some(c) => b.current = c,
                    None => b.inv.exit = Exit::Returned,
                }
            }
            // An input's value when `main` starts is a write of the whole variable.
            ProbeKind::Write { decl, .. } | ProbeKind::Input { decl } => {
                let path = match &probe.kind {
                    ProbeKind::Write { path, .. } => path.clone(),
                    _ => Vec::new(),
                };
                let v = value()?;
                b.inv.writes.push(Write {
                    probe: id,
                    step,
                    frame: b.current,
                    decl: *decl,
                    path,
                    value: v,
                });
            }
        }
        at += ENTRY_HEADER_WORDS + n;
    }
    let mut invocations: Vec<InvocationTrace> = builders.into_iter().map(|b| b.inv).collect();
    if overflow {
        for inv in &mut invocations {
            if inv.exit == Exit::Incomplete {
                inv.exit = Exit::Overflowed;
            }
        }
    }
    invocations.sort_by_key(|i| i.tag);
    Ok(Trace {
        invocations,
        overflowed: overflow,
    })
}

fn depth_of(frames: &[Frame], mut f: usize) -> usize {
    let mut d = 0;
    while let Some(c) = frames[f].caller {
        d += 1;
        f = c;
    }
    d
}

impl InvocationTrace {
    /// Values of the variables the step's scope can see, as they are when the
    /// step is about to execute: locals of its frame (from the probe table's
    /// scope list), then the globals and built-ins written or read so far.
    /// `None` for a variable not written yet.
    pub fn variables_at(&self, step: usize, table: &ProbeTable) -> Vec<(DeclId, Option<Value>)> {
        let Some(s) = self.steps.get(step) else {
            return Vec::new();
        };
        let locals = table
            .get(s.probe)
            .map(|p| p.locals.clone())
            .unwrap_or_default();
        let mut values: HashMap<DeclId, Value> = HashMap::new();
        let mut globals: Vec<DeclId> = Vec::new();
        for w in self
            .writes
            .iter()
            .take_while(|w| w.step.is_none_or(|k| k < step))
        {
            let global = table.vars.get(w.decl).is_some_and(|v| v.kind.is_global());
            if !global && w.frame != s.frame {
                continue;
            }
            if global && !globals.contains(&w.decl) {
                globals.push(w.decl);
            }
            let ty = &table.vars[w.decl].ty;
            let slot = values
                .entry(w.decl)
                .or_insert_with(|| Value::undefined_of(ty));
            slot.set_path(&w.path, w.value.clone());
        }
        locals
            .into_iter()
            .chain(globals)
            .map(|d| (d, values.get(&d).cloned()))
            .collect()
    }

    /// The call stack at a step, innermost first: (function, line executing).
    pub fn call_stack(&self, step: usize) -> Vec<(Option<FunctionId>, u32)> {
        let mut out = Vec::new();
        let Some(s) = self.steps.get(step) else {
            return out;
        };
        out.push((self.frames[s.frame].function, s.line));
        let mut f = s.frame;
        while let Some(c) = self.frames[f].caller {
            let line = self.frames[f]
                .call_step
                .and_then(|k| self.steps.get(k))
                .map_or(0, |st| st.line);
            out.push((self.frames[c].function, line));
            f = c;
        }
        out
    }

    /// The writes made while executing `step` (what the step changed).
    pub fn writes_of(&self, step: usize) -> impl Iterator<Item = &Write> {
        self.writes.iter().filter(move |w| w.step == Some(step))
    }
}

/// What a hit of the hit test is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HitTag {
    /// The breakpoint at this index of the hit test's list.
    Breakpoint(u32),
    /// A NaN or infinity written to an output.
    NanInf,
}

/// One invocation that reached a probe of the hit test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Hit {
    /// What hit: a breakpoint of the hit test's list, or a NaN/Inf check.
    pub tag: HitTag,
    /// The step that hit (a step of the recording of `invocation`).
    pub probe: ProbeId,
    /// The step's 1-based line in the runtime source.
    pub line: u32,
    /// Which reach of the step it was (0 = the first).
    pub occurrence: u32,
    pub invocation: Invocation,
}

/// Decodes a hit buffer (header included): the hits, in a deterministic order (by [`Invocation::order_key`], then occurrence,
/// line and tag, so every run reports them alike), and whether some were lost
/// because the buffer was full. Records whose key does not name an
/// invocation of the table's stage are dropped.
pub fn decode_hits(words: &[u32], table: &ProbeTable) -> (Vec<Hit>, bool) {
    let (raw, truncated) = layout::read_hits(words);
    let mut out: Vec<Hit> = raw
        .iter()
        .filter_map(|h| {
            let key = [h.key[0], h.key[1], h.key[2]];
            let tag = match h.tag() {
                HIT_TAG_NAN_INF => HitTag::NanInf,
                i => HitTag::Breakpoint(i),
            };
            Some(Hit {
                tag,
                probe: h.probe,
                line: table.get(h.probe).map_or(0, |p| p.line),
                occurrence: h.occurrence,
                invocation: Invocation::from_key(table.stage, key)?,
            })
        })
        .collect();
    out.sort_by_key(|h| (h.invocation.order_key(), h.occurrence, h.line, h.tag));
    (out, truncated)
}

/// What the sanitizer found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SanitizerKind {
    /// An index outside `0..bound` (`index` as the shader computed it: a
    /// negative `int`, or a `uint` as is).
    Oob { index: i64, bound: u32 },
    /// An image access `op` at coordinate `coord` (its first `dims`
    /// components) outside `0..size` (the image's size at the level read);
    /// with `lod`, the level `coord[0]` was outside `0..size[0]` levels.
    /// `image`: the image or sampler variable, where known.
    ImageOob {
        image: Option<DeclId>,
        op: ImageOp,
        dims: u8,
        coord: [i32; 3],
        size: [u32; 3],
        lod: bool,
    },
    /// A read of element `element` of the shared variable `decl` (0 for a
    /// variable that is no array) that no invocation of the work group had
    /// written.
    UninitRead { decl: DeclId, element: u32 },
    /// A data race on element `element` of the shared variable `decl`, or
    /// of a storage-buffer member (`memory`): this report's invocation
    /// made `access` and the invocation `other` made `other_access` at
    /// step `other_probe` (0 and line 0: not known) with nothing ordering
    /// them (shared memory: the same work group, no barrier between;
    /// storage: another work group, or the same one and no barrier
    /// between), at least one of them writing and not both atomic. The
    /// report's own access is the later one in the order the GPU ran them.
    /// `value`: the first word of the value this access wrote or read,
    /// `other_value`: of the value the other access wrote, where known.
    Race {
        decl: DeclId,
        element: u32,
        access: Access,
        other: Invocation,
        other_probe: ProbeId,
        other_line: u32,
        other_access: Access,
        #[serde(default, skip_serializing_if = "Memory::is_shared")]
        memory: Memory,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        other_value: Option<u32>,
    },
    /// A `barrier()` (the report's step) that `arrived` of the work group's
    /// `invocations` reached: in divergent control flow, or after some
    /// invocations returned (undefined behaviour; barrier epochs, and so
    /// race reports, are then not to be trusted).
    DivergentBarrier { arrived: u32, invocations: u32 },
}

/// The image function of an [`SanitizerKind::ImageOob`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ImageOp {
    #[serde(rename = "imageLoad")]
    Load,
    #[serde(rename = "imageStore")]
    Store,
    #[serde(rename = "imageAtomic")]
    Atomic,
    #[serde(rename = "texelFetch")]
    Fetch,
}

impl ImageOp {
    /// The function as GLSL names it (the atomic ones by their family).
    pub fn name(self) -> &'static str {
        match self {
            ImageOp::Load => "imageLoad",
            ImageOp::Store => "imageStore",
            ImageOp::Atomic => "imageAtomic",
            ImageOp::Fetch => "texelFetch",
        }
    }
}

/// Which memory a race is on.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Memory {
    /// A `shared` variable (`decl`).
    #[default]
    Shared,
    /// A storage-buffer member: `decl` is the member (a block without an
    /// instance name), or the block's instance and `member` the index of
    /// the member in it.
    Storage { member: Option<u32> },
}

impl Memory {
    pub fn is_shared(&self) -> bool {
        *self == Memory::Shared
    }
}

/// How an invocation touched memory, in a race report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    Read,
    Write,
    /// An atomic function (`atomicAdd`, ...): reads and writes.
    Atomic,
}

impl Access {
    fn from_flags(kind: u32, write: u32, atomic: u32) -> Access {
        if kind & atomic != 0 {
            Access::Atomic
        } else if kind & write != 0 {
            Access::Write
        } else {
            Access::Read
        }
    }
}

/// One violation the sanitizer reported (the first of its kind at its probe).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SanitizerReport {
    pub kind: SanitizerKind,
    /// The step of the statement whose access it was.
    pub probe: ProbeId,
    /// The step's 1-based line in the runtime source.
    pub line: u32,
    pub invocation: Invocation,
}

/// Decodes a sanitize buffer (header included): one report per (kind,
/// probe) (a race: per pair of probes), the first the GPU appended, sorted by line, probe and invocation;
/// and whether some were lost because the buffer was full. Records of an
/// unknown kind or whose key names no invocation of the table's stage are
/// dropped.
pub fn decode_sanitizer(words: &[u32], table: &ProbeTable) -> (Vec<SanitizerReport>, bool) {
    let (raw, truncated) = layout::read_sanitize(words);
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<SanitizerReport> = raw
        .iter()
        .filter_map(|r| {
            let kind = match r.kind & 0xff {
                layout::SANITIZE_KIND_OOB if r.kind & layout::SANITIZE_OOB_IMAGE != 0 => {
                    let decl = r.kind >> layout::SANITIZE_IMAGE_DECL_SHIFT;
                    SanitizerKind::ImageOob {
                        image: (decl != layout::SANITIZE_IMAGE_NO_DECL).then_some(decl as DeclId),
                        op: match (r.kind >> layout::SANITIZE_IMAGE_OP_SHIFT) & 3 {
                            0 => ImageOp::Load,
                            1 => ImageOp::Store,
                            2 => ImageOp::Atomic,
                            _ => ImageOp::Fetch,
                        },
                        dims: ((r.kind >> layout::SANITIZE_IMAGE_DIMS_SHIFT) & 3).max(1) as u8,
                        coord: [r.index as i32, r.other[0] as i32, r.other[1] as i32],
                        size: [r.bound, r.value, r.other_value],
                        lod: r.kind & layout::SANITIZE_IMAGE_LOD != 0,
                    }
                }
                layout::SANITIZE_KIND_OOB => SanitizerKind::Oob {
                    index: if r.kind & layout::SANITIZE_INDEX_SIGNED != 0 {
                        i64::from(r.index as i32)
                    } else {
                        i64::from(r.index)
                    },
                    bound: r.bound,
                },
                layout::SANITIZE_KIND_UNINIT => SanitizerKind::UninitRead {
                    decl: r.bound as DeclId,
                    element: r.index,
                },
                layout::SANITIZE_KIND_RACE => SanitizerKind::Race {
                    decl: if r.kind & layout::SANITIZE_RACE_STORAGE != 0 {
                        (r.bound & ((1 << layout::SANITIZE_MEMBER_SHIFT) - 1)) as DeclId
                    } else {
                        r.bound as DeclId
                    },
                    element: r.index,
                    access: Access::from_flags(
                        r.kind,
                        layout::SANITIZE_RACE_WRITE,
                        layout::SANITIZE_RACE_ATOMIC,
                    ),
                    other: Invocation::from_key(table.stage, r.other)?,
                    other_probe: r.other_probe,
                    other_line: table.get(r.other_probe).map_or(0, |p| p.line),
                    other_access: Access::from_flags(
                        r.kind,
                        layout::SANITIZE_RACE_OTHER_WRITE,
                        layout::SANITIZE_RACE_OTHER_ATOMIC,
                    ),
                    memory: if r.kind & layout::SANITIZE_RACE_STORAGE != 0 {
                        Memory::Storage {
                            member: (r.bound >> layout::SANITIZE_MEMBER_SHIFT).checked_sub(1),
                        }
                    } else {
                        Memory::Shared
                    },
                    value: (r.kind & layout::SANITIZE_VALUE_KNOWN != 0).then_some(r.value),
                    other_value: (r.kind & layout::SANITIZE_OTHER_VALUE_KNOWN != 0)
                        .then_some(r.other_value),
                },
                layout::SANITIZE_KIND_BARRIER => SanitizerKind::DivergentBarrier {
                    arrived: r.index,
                    invocations: r.bound,
                },
                _ => return None,
            };
            // One report per kind and probe; a race per pair of probes
            // (either access may be the one that found it).
            let pair = match kind {
                SanitizerKind::Race { other_probe, .. } if other_probe != 0 => {
                    (r.probe.min(other_probe), r.probe.max(other_probe))
                }
                _ => (r.probe, 0),
            };
            if !seen.insert((r.kind & 0xff, pair)) {
                return None;
            }
            Some(SanitizerReport {
                kind,
                probe: r.probe,
                line: table.get(r.probe).map_or(0, |p| p.line),
                invocation: Invocation::from_key(table.stage, r.key)?,
            })
        })
        .collect();
    out.sort_by_key(|r| (r.line, r.probe, r.invocation.order_key(), r.kind));
    (out, truncated)
}

/// Decodes a watch buffer (header + `[times reached, value...]` slots) of
/// `slots` values of type `ty`: `None` where no invocation reached the probe.
pub fn decode_watch(
    words: &[u32],
    ty: &Type,
    slots: usize,
) -> Result<Vec<Option<Value>>, DecodeError> {
    let value_words = ty.words().ok_or(DecodeError::Unloggable)? as usize;
    let stride = value_words + 1;
    let data = words.get(HEADER_WORDS..).unwrap_or_default();
    if data.len() < slots * stride {
        return Err(DecodeError::ShortWatch {
            words: words.len(),
            slots,
            value_words,
        });
    }
    Ok(data
        .chunks_exact(stride)
        .take(slots)
        .map(|slot| {
            if slot[0] == 0 {
                None
            } else {
                Value::decode(ty, &slot[1..]).map(|(v, _)| v)
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probes::{Probe, Span};
    use crate::stage::Stage;

    #[test]
    fn short_buffers_are_errors_not_panics() {
        let table = ProbeTable {
            stage: Stage::Fragment,
            probes: Vec::new(),
            vars: Vec::new(),
            functions: Vec::new(),
        };
        assert_eq!(decode(&[1, 2], &table).unwrap_err(), DecodeError::NoHeader);
        let err = decode(&[2, 100, 0, 1, 7, 0], &table).unwrap_err();
        assert_eq!(err, DecodeError::UnknownProbe { at: 0, probe: 7 });
        let t = decode(&[0, 100, 0, 0], &table).unwrap();
        assert!(t.invocations.is_empty());
    }

    fn one_step_table() -> ProbeTable {
        ProbeTable {
            stage: Stage::Fragment,
            probes: vec![Probe {
                id: 1,
                kind: ProbeKind::Statement,
                span: Span::default(),
                line: 5,
                function: None,
                payload: None,
                locals: Vec::new(),
            }],
            vars: Vec::new(),
            functions: Vec::new(),
        }
    }

    #[test]
    fn hits_are_sorted_by_primitive_then_y_then_x() {
        let table = one_step_table();
        let mut words = vec![4, 10, 0, 0];
        for key in [
            [5, 1, 0, 0],
            [2, 3, 0, 0],
            [1, 1, 1, 0],
            [0, 0, 0, HIT_TAG_NAN_INF],
        ] {
            words.extend([1, 0]);
            words.extend(key);
        }
        let (hits, truncated) = decode_hits(&words, &table);
        assert!(!truncated);
        let got: Vec<String> = hits
            .iter()
            .map(|h| format!("{} {:?} line {}", h.invocation, h.tag, h.line))
            .collect();
        assert_eq!(
            got,
            [
                "fragment (0,0) prim 0 NanInf line 5",
                "fragment (5,1) prim 0 Breakpoint(0) line 5",
                "fragment (2,3) prim 0 Breakpoint(0) line 5",
                "fragment (1,1) prim 1 Breakpoint(0) line 5",
            ]
        );
        let (_, truncated) = decode_hits(&[11, 10, 0, 0], &table);
        assert!(truncated);
    }

    #[test]
    fn sanitizer_records_become_reports_once_per_kind_and_probe() {
        let table = compute_table(1);
        let signed = layout::SANITIZE_KIND_OOB | layout::SANITIZE_INDEX_SIGNED;
        let barrier = layout::SANITIZE_KIND_BARRIER;
        let mut words = sanitize_buffer(
            &table,
            &[
                [signed, 1, 3, 0, 0, (-1i32) as u32, 8, 0, 0, 0, 0, 0, 0],
                [signed, 1, 4, 0, 0, 9, 8, 0, 0, 0, 0, 0, 0],
                [
                    layout::SANITIZE_KIND_UNINIT,
                    1,
                    2,
                    1,
                    0,
                    5,
                    16,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                ],
                [barrier, 1, 6, 0, 0, 12, 16, 0, 0, 0, 0, 0, 0],
            ],
        );
        words.extend([0; layout::SANITIZE_RECORD_WORDS]);
        assert_eq!(
            described(&words, &table),
            [
                "Oob { index: -1, bound: 8 } line 5 compute (3,0,0)",
                "DivergentBarrier { arrived: 12, invocations: 16 } line 5 compute (6,0,0)",
                "UninitRead { decl: 16, element: 5 } line 5 compute (2,1,0)",
            ]
        );
        // More records than the buffer's capacity (8) were appended.
        words[0] = 9;
        let (reports, truncated) = decode_sanitizer(&words, &table);
        assert!(truncated);
        assert_eq!(reports.len(), 3);
        let json = serde_json::to_string(&reports[0]).unwrap();
        assert!(json.contains(r#""kind":"oob","index":-1"#), "{json}");
    }

    #[test]
    fn image_records_become_image_reports() {
        let table = compute_table(2);
        let store = layout::SANITIZE_KIND_OOB
            | layout::SANITIZE_INDEX_SIGNED
            | layout::SANITIZE_OOB_IMAGE
            | (2 << layout::SANITIZE_IMAGE_DIMS_SHIFT)
            | (1 << layout::SANITIZE_IMAGE_OP_SHIFT)
            | (3 << layout::SANITIZE_IMAGE_DECL_SHIFT);
        let fetch = layout::SANITIZE_KIND_OOB
            | layout::SANITIZE_INDEX_SIGNED
            | layout::SANITIZE_OOB_IMAGE
            | layout::SANITIZE_IMAGE_LOD
            | (1 << layout::SANITIZE_IMAGE_DIMS_SHIFT)
            | (3 << layout::SANITIZE_IMAGE_OP_SHIFT)
            | (layout::SANITIZE_IMAGE_NO_DECL << layout::SANITIZE_IMAGE_DECL_SHIFT);
        let words = sanitize_buffer(
            &table,
            &[
                [store, 1, 16, 2, 0, 16, 16, 2, (-1i32) as u32, 0, 0, 8, 1],
                [fetch, 2, 0, 0, 0, 3, 2, 0, 0, 0, 0, 0, 0],
            ],
        );
        let (reports, _) = decode_sanitizer(&words, &table);
        assert_eq!(
            reports.iter().map(|r| r.kind).collect::<Vec<_>>(),
            [
                SanitizerKind::ImageOob {
                    image: Some(3),
                    op: ImageOp::Store,
                    dims: 2,
                    coord: [16, 2, -1],
                    size: [16, 8, 1],
                    lod: false,
                },
                SanitizerKind::ImageOob {
                    image: None,
                    op: ImageOp::Fetch,
                    dims: 1,
                    coord: [3, 0, 0],
                    size: [2, 0, 0],
                    lod: true,
                },
            ]
        );
        let json = serde_json::to_string(&reports[0].kind).unwrap();
        assert!(json.contains(r#""op":"imageStore""#), "{json}");
    }

    /// A compute table of `steps` steps, step `k` at line `5 + 2 (k - 1)`.
    fn compute_table(steps: u32) -> ProbeTable {
        let mut table = one_step_table();
        table.stage = Stage::Compute;
        for id in 2..=steps {
            let mut p = table.probes[0].clone();
            p.id = id;
            p.line = 5 + 2 * (id - 1);
            table.probes.push(p);
        }
        table
    }

    /// A sanitize buffer for `table` holding `records`.
    fn sanitize_buffer(
        table: &ProbeTable,
        records: &[[u32; layout::SANITIZE_RECORD_WORDS]],
    ) -> Vec<u32> {
        let flags = layout::sanitize_flag_words(table.probes.len());
        let mut words = vec![records.len() as u32, 8, 0, flags];
        words.extend(vec![0; flags as usize]);
        words.extend(records.iter().flatten());
        words
    }

    /// The decoded reports, one line each; the buffer must not be truncated.
    fn described(words: &[u32], table: &ProbeTable) -> Vec<String> {
        let (reports, truncated) = decode_sanitizer(words, table);
        assert!(!truncated);
        reports
            .iter()
            .map(|r| format!("{:?} line {} {}", r.kind, r.line, r.invocation))
            .collect()
    }

    /// A race names both invocations, both accesses and both lines; the
    /// same pair of steps found from either side is one report.
    #[test]
    fn race_records_name_both_invocations() {
        let table = compute_table(2);
        let race = layout::SANITIZE_KIND_RACE;
        let atomic_on_write = race
            | layout::SANITIZE_RACE_WRITE
            | layout::SANITIZE_RACE_ATOMIC
            | layout::SANITIZE_RACE_OTHER_WRITE;
        let words = sanitize_buffer(
            &table,
            &[
                // Invocation 4 read at step 2 what invocation 3 wrote at step 1.
                [
                    race | layout::SANITIZE_RACE_OTHER_WRITE,
                    2,
                    4,
                    0,
                    0,
                    37,
                    6,
                    3,
                    0,
                    0,
                    1,
                    0,
                    0,
                ],
                // The same pair seen from the writer: left out.
                [
                    race | layout::SANITIZE_RACE_WRITE,
                    1,
                    5,
                    0,
                    0,
                    38,
                    6,
                    6,
                    0,
                    0,
                    2,
                    0,
                    0,
                ],
                // An atomic against a plain write, the other's step not known.
                [atomic_on_write, 1, 9, 0, 0, 0, 6, 8, 0, 0, 0, 0, 0],
            ],
        );
        assert_eq!(
            described(&words, &table),
            [
                "Race { decl: 6, element: 0, access: Atomic, other: Compute { id: [8, 0, 0] }, \
                 other_probe: 0, other_line: 0, other_access: Write, memory: Shared, value: None, \
                 other_value: None } line 5 compute (9,0,0)",
                "Race { decl: 6, element: 37, access: Read, other: Compute { id: [3, 0, 0] }, \
                 other_probe: 1, other_line: 5, other_access: Write, memory: Shared, value: None, \
                 other_value: None } line 7 compute (4,0,0)",
            ]
        );
        let (reports, _) = decode_sanitizer(&words, &table);
        let json = serde_json::to_string(&reports[1]).unwrap();
        assert!(
            json.contains(r#""kind":"race","decl":6,"element":37,"access":"read","other":{"stage":"compute","id":[3,0,0]}"#),
            "{json}"
        );
        let back: SanitizerReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, reports[1]);
    }

    /// A race on a storage buffer names the block member (an
    /// instance-named block's by its index) and carries the values known.
    #[test]
    fn storage_race_records_name_the_member_and_the_values() {
        let table = compute_table(2);
        let kind = layout::SANITIZE_KIND_RACE
            | layout::SANITIZE_RACE_STORAGE
            | layout::SANITIZE_RACE_WRITE
            | layout::SANITIZE_RACE_OTHER_WRITE
            | layout::SANITIZE_VALUE_KNOWN
            | layout::SANITIZE_OTHER_VALUE_KNOWN;
        let member = 9 | (2 << layout::SANITIZE_MEMBER_SHIFT);
        let words = sanitize_buffer(
            &table,
            &[
                [kind, 2, 35, 0, 0, 3, member, 3, 0, 0, 1, 7, 5],
                [
                    layout::SANITIZE_KIND_RACE | layout::SANITIZE_RACE_STORAGE,
                    1,
                    1,
                    0,
                    0,
                    4,
                    11,
                    40,
                    0,
                    0,
                    0,
                    0,
                    0,
                ],
            ],
        );
        let (reports, _) = decode_sanitizer(&words, &table);
        let kinds: Vec<_> = reports.iter().map(|r| r.kind).collect();
        assert!(
            matches!(
                kinds[0],
                SanitizerKind::Race {
                    decl: 11,
                    element: 4,
                    memory: Memory::Storage { member: None },
                    value: None,
                    other_value: None,
                    ..
                }
            ),
            "{kinds:?}"
        );
        assert!(
            matches!(
                kinds[1],
                SanitizerKind::Race {
                    decl: 9,
                    element: 3,
                    memory: Memory::Storage { member: Some(1) },
                    value: Some(7),
                    other_value: Some(5),
                    ..
                }
            ),
            "{kinds:?}"
        );
        let json = serde_json::to_string(&reports[1]).unwrap();
        assert!(
            json.contains(r#""memory":{"storage":{"member":1}},"value":7,"other_value":5"#),
            "{json}"
        );
        let back: SanitizerReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, reports[1]);
    }

    #[test]
    fn watch_slots_are_values_where_reached() {
        let ty = crate::types::FLOAT;
        let words = [2, 1, 2, 0, 1, 1.5f32.to_bits(), 0, 0];
        let values = decode_watch(&words, &ty, 2).unwrap();
        assert_eq!(values, vec![Some(Value::Float(1.5)), None]);
        assert!(decode_watch(&words, &ty, 3).is_err());
    }

    #[test]
    fn probe_tables_travel_intact() {
        let table = one_step_table();
        let text = serde_json::to_string(&table).unwrap();
        let back: ProbeTable = serde_json::from_str(&text).unwrap();
        assert_eq!(back, table);
    }
}
