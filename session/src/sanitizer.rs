//! What the sanitizer found at a stop ([`StopReason::Sanitizer`]), as
//! people and scripts read it: each report located in the user's file,
//! with the invocation, and the index and bound or the variable and
//! element. The front ends only print [`Finding`]s.
//!
//! [`StopReason::Sanitizer`]: shaderdbg_core::StopReason::Sanitizer

pub use shaderdbg_core::decode::{Access, ImageOp, Memory, SanitizerKind, SanitizerReport};
use shaderdbg_core::probes::VarKind;
use shaderdbg_core::types::Type;
use shaderdbg_core::value::Value;
use shaderdbg_core::{Hit, HitTag, Invocation, StopReason};

use crate::stop::{Location, Stop};

/// One sanitizer report, described.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub report: SanitizerReport,
    /// `out_of_bounds`, `uninitialized_read`, `data_race` or
    /// `divergent_barrier`.
    pub kind: &'static str,
    /// The statement whose access it was.
    pub location: Location,
    pub invocation: Invocation,
    /// A data race: the other invocation, and where its access was.
    pub other: Option<(Invocation, Location)>,
    /// The array indexed (out of bounds: when the statement indexes one
    /// array only; an uninitialized read or a race: the shared variable,
    /// or the storage buffer's block and member, `Dst.dst`).
    pub variable: Option<String>,
    /// A race: the value written, where known (this access's if it
    /// wrote, else the other's), as the element's first scalar.
    pub value_written: Option<Value>,
    /// A race: the value this access read, where known.
    pub value_read: Option<Value>,
    /// A race of two writes: the value the other access wrote, where known.
    pub other_value_written: Option<Value>,
    /// What was accessed, as the shader would name it: `tile[37]`,
    /// `Dst.dst[3]`, `v.y`, `src[32]` (the index out of bounds), `img(4,0)`
    /// (a texel), `img level 3`; `None` where not known (an out-of-bounds
    /// index on a line indexing several arrays, a divergent barrier).
    pub address: Option<String>,
    /// What a person reads: `out-of-bounds index 32 into data[] (32
    /// elements) at compute.comp:14 in compute (7,0,0)`; `data race on
    /// shared float tile[4]: invocation (4,0,0) wrote at line 14,
    /// invocation (0,0,0) read at line 13, no barrier between`.
    pub text: String,
}

impl Stop {
    /// The sanitizer's reports at this stop, described (empty for other stops).
    pub fn findings(&self) -> Vec<Finding> {
        self.sanitizer.iter().map(|r| self.describe(r)).collect()
    }

    /// The report this stop shows, described (a sanitizer stop shows one
    /// report at a time; `None` for other stops).
    pub fn finding(&self) -> Option<Finding> {
        if self.reason != StopReason::Sanitizer {
            return None;
        }
        self.sanitizer.get(self.report).map(|r| self.describe(r))
    }

    /// The invocations of the report shown, each at its access (a race:
    /// both); for other stops, every hit of the draw.
    /// Borrowed, not copied: [`Stop::invocations`] goes over them (a draw
    /// can have 65,536 hits).
    pub fn report_hits(&self) -> impl Iterator<Item = &Hit> {
        // `Some(tag)`: a sanitizer stop shows the hits of its report (none
        // when the index has no tag).
        let only = (self.reason == StopReason::Sanitizer)
            .then(|| u32::try_from(self.report).ok().map(HitTag::Breakpoint));
        self.hits
            .iter()
            .filter(move |h| only.is_none_or(|tag| tag == Some(h.tag)))
    }

    /// A sanitizer stop's step of the reported statement that made the
    /// report (the stop's hit is at the statement's first execution by the
    /// invocation; reports carry no occurrence): the first execution where
    /// an index in the statement (out of bounds: into any array; a race or
    /// an uninitialized read: into the shared variable) is the reported
    /// one, over the recorded values. `None` where no index tells.
    pub(crate) fn failing_step(&self) -> Option<usize> {
        if self.reason != StopReason::Sanitizer || self.hit.probe == 0 {
            return None;
        }
        let HitTag::Breakpoint(i) = self.hit.tag else {
            return None;
        };
        let r = self.sanitizer.get(usize::try_from(i).ok()?)?;
        let (array, wanted) = match r.kind {
            SanitizerKind::Oob { index, .. } => (None, index),
            SanitizerKind::UninitRead { decl, element } => {
                let v = self.table.vars.get(decl)?;
                if !matches!(v.ty, Type::Array(..)) {
                    return None;
                }
                (Some(v.name.clone()), i64::from(element))
            }
            SanitizerKind::Race {
                decl,
                element,
                memory,
                ..
            } => {
                let (name, ty) = self.raced(decl, memory)?;
                if !matches!(ty, Type::Array(..)) {
                    return None;
                }
                (Some(name), i64::from(element))
            }
            SanitizerKind::DivergentBarrier { .. } | SanitizerKind::ImageOob { .. } => return None,
        };
        let indices: Vec<String> = indexings(self.line_text(self.hit.line))
            .into_iter()
            .filter(|(name, _)| array.as_ref().is_none_or(|a| a == name))
            .map(|(_, index)| index)
            .collect();
        if indices.is_empty() {
            return None;
        }
        self.trace
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.probe == self.hit.probe)
            .take(MAX_OCCURRENCES)
            .map(|(step, _)| step)
            .find(|&step| {
                indices.iter().any(|e| {
                    crate::eval::evaluate_at(self, step, e, None)
                        .ok()
                        .and_then(|t| integer(&t.value))
                        == Some(wanted)
                })
            })
    }

    fn describe(&self, r: &SanitizerReport) -> Finding {
        let location = self.location_of_line(r.line);
        let place = match &location.file {
            Some(f) => format!(
                "{}:{}",
                f.file_name().map_or_else(
                    || f.display().to_string(),
                    |n| n.to_string_lossy().into_owned()
                ),
                location.line
            ),
            None => format!("<shader {}>:{}", self.shader, location.line),
        };
        let mut other = None;
        let (mut value_written, mut value_read, mut other_value_written) = (None, None, None);
        let mut address = None;
        let (kind, variable, what) = match r.kind {
            SanitizerKind::Oob { index, bound } => {
                let array = sole_indexed_name(self.line_text(r.line));
                address = array.as_ref().map(|a| format!("{a}[{index}]"));
                let into = array
                    .as_ref()
                    .map_or(String::new(), |a| format!(" into {a}[]"));
                let elements = if bound == 1 { "element" } else { "elements" };
                (
                    "out_of_bounds",
                    array,
                    format!("out-of-bounds index {index}{into} ({bound} {elements})"),
                )
            }
            SanitizerKind::ImageOob {
                image,
                op,
                dims,
                coord,
                size,
                lod,
            } => {
                let name = image
                    .and_then(|d| self.table.vars.get(d))
                    .map(|v| v.name.clone());
                let from = match op {
                    ImageOp::Store | ImageOp::Atomic => "into",
                    ImageOp::Load | ImageOp::Fetch => "from",
                };
                let of = name
                    .as_ref()
                    .map_or(String::new(), |n| format!(" {from} {n}"));
                let n = usize::from(dims).clamp(1, 3);
                let at: Vec<String> = coord[..n].iter().map(i32::to_string).collect();
                address = name.as_ref().map(|n| {
                    if lod {
                        format!("{n} level {}", coord[0])
                    } else {
                        format!("{n}({})", at.join(","))
                    }
                });
                let what = if lod {
                    let levels = if size[0] == 1 { "level" } else { "levels" };
                    format!(
                        "out-of-bounds {}{of} at level {} ({} {levels})",
                        op.name(),
                        coord[0],
                        size[0]
                    )
                } else {
                    let extent: Vec<String> = size[..n].iter().map(u32::to_string).collect();
                    format!(
                        "out-of-bounds {}{of} at ({}) (image {})",
                        op.name(),
                        at.join(","),
                        extent.join("x")
                    )
                };
                ("out_of_bounds", name, what)
            }
            SanitizerKind::UninitRead { decl, element }
                if self
                    .table
                    .vars
                    .get(decl)
                    .is_some_and(|v| matches!(v.kind, VarKind::Local | VarKind::Param)) =>
            {
                let (name, part, shown) = self.local_part(decl, element);
                address = Some(part);
                (
                    "uninitialized_read",
                    name,
                    format!("read of {shown} before it was written"),
                )
            }
            SanitizerKind::UninitRead { decl, element } => {
                let (name, shown) = self.shared_element(decl, element, false);
                address = Some(shown.clone());
                (
                    "uninitialized_read",
                    name,
                    format!("read of shared {shown} before any invocation wrote it"),
                )
            }
            SanitizerKind::Race {
                decl,
                element,
                access,
                other: o,
                other_line,
                other_access,
                memory,
                value,
                other_value,
                ..
            } => {
                let at = |line: u32| match line {
                    0 => "at a line not known".to_string(),
                    l => format!("at line {}", self.location_of_line(l).line),
                };
                let size = match memory {
                    Memory::Shared => None,
                    Memory::Storage { .. } => self.work_group_size(),
                };
                let inv = |i: &Invocation| match (i, size) {
                    (Invocation::Compute { id }, Some(s)) => format!(
                        "{} of workgroup ({},{},{})",
                        who(i),
                        id[0] / s[0],
                        id[1] / s[1],
                        id[2] / s[2]
                    ),
                    _ => who(i),
                };
                let first = format!("{} {} {}", inv(&o), did(other_access), at(other_line));
                let then = format!("{} {} {}", inv(&r.invocation), did(access), at(r.line));
                other = Some((o, self.location_of_line(other_line)));
                let elem_ty = self.raced(decl, memory).map(|(_, t)| match t {
                    Type::Array(e, _) => *e,
                    t => t,
                });
                let typed = |w: Option<u32>| {
                    let w = w?;
                    elem_ty.as_ref().and_then(|t| first_scalar(t, w))
                };
                let (own, theirs) = (typed(value), typed(other_value));
                match access {
                    Access::Read => value_read = own,
                    _ => value_written = own,
                }
                if other_access != Access::Read {
                    if access == Access::Read {
                        value_written = theirs;
                    } else {
                        other_value_written = theirs;
                    }
                }
                match memory {
                    Memory::Shared => {
                        let (name, shown) = self.shared_element(decl, element, true);
                        address = Some(self.shared_element(decl, element, false).1);
                        (
                            "data_race",
                            name,
                            format!(
                                "data race on shared {shown}: {first}, {then}, no barrier between"
                            ),
                        )
                    }
                    Memory::Storage { member } => {
                        let name = self.storage_name(decl, member);
                        let array = self
                            .raced(decl, memory)
                            .is_some_and(|(_, t)| matches!(t, Type::Array(..)));
                        let shown = match &name {
                            Some(n) if array => format!("{n}[{element}]"),
                            Some(n) => n.clone(),
                            None => format!("variable {decl}"),
                        };
                        address = Some(shown.clone());
                        (
                            "data_race",
                            name,
                            format!(
                                "data race on storage buffer {shown}: {first}, {then}, nothing orders them"
                            ),
                        )
                    }
                }
            }
            SanitizerKind::DivergentBarrier {
                arrived,
                invocations,
            } => (
                "divergent_barrier",
                None,
                format!(
                    "barrier() reached by {arrived} of the work group's {invocations} invocations \
                     (in divergent control flow, or after a return)"
                ),
            ),
        };
        Finding {
            report: *r,
            kind,
            // A race names both invocations and lines itself.
            text: if other.is_some() {
                what
            } else {
                format!("{what} at {place} in {}", r.invocation)
            },
            location,
            invocation: r.invocation,
            other,
            variable,
            value_written,
            value_read,
            other_value_written,
            address,
        }
    }

    /// The variable a race is on, as the shader names it where it indexes
    /// it (a member of an instance-named block: the member's name), and
    /// its type.
    fn raced(&self, decl: usize, memory: Memory) -> Option<(String, Type)> {
        let v = self.table.vars.get(decl)?;
        match (memory, &v.ty) {
            (Memory::Storage { member: Some(m) }, Type::Struct(st)) => {
                let f = st.fields.get(m as usize)?;
                Some((f.name.clone(), f.ty.clone()))
            }
            _ => Some((v.name.clone(), v.ty.clone())),
        }
    }

    /// A storage-buffer member as a race report names it: its block's
    /// name and the member's, `Dst.dst` (the member alone where the block
    /// is not found).
    fn storage_name(&self, decl: usize, member: Option<u32>) -> Option<String> {
        let v = self.table.vars.get(decl)?;
        if let (Some(m), Type::Struct(st)) = (member, &v.ty) {
            let f = st.fields.get(m as usize)?;
            return Some(format!("{}.{}", st.name, f.name));
        }
        Some(match self.block_of(&v.name) {
            Some(block) => format!("{block}.{}", v.name),
            None => v.name.clone(),
        })
    }

    /// The name of the storage block without an instance name that
    /// declares `member`.
    fn block_of(&self, member: &str) -> Option<String> {
        use glsl_lang::ast;
        let crate::stop::Source::Glsl(p) = &*self.parsed else {
            return None;
        };
        p.tu.0.iter().find_map(|ext| {
            let ast::ExternalDeclarationData::Declaration(d) = &ext.content else {
                return None;
            };
            let ast::DeclarationData::Block(b) = &d.content else {
                return None;
            };
            let declares = b.identifier.is_none()
                && b.fields
                    .iter()
                    .any(|f| f.identifiers.iter().any(|i| i.ident.as_str() == member));
            declares.then(|| b.name.as_str().to_string())
        })
    }

    /// A compute shader's `local_size`, from its source (1 where a
    /// dimension is not given; `None` where a size is not a number).
    fn work_group_size(&self) -> Option<[u32; 3]> {
        let text = self.parsed.text();
        let mut size = [1u32; 3];
        let mut found = false;
        for (k, axis) in ["local_size_x", "local_size_y", "local_size_z"]
            .iter()
            .enumerate()
        {
            let Some(at) = text.find(axis) else { continue };
            let rest = text[at + axis.len()..].trim_start().strip_prefix('=')?;
            let digits: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            size[k] = digits.parse().ok().filter(|n| *n > 0)?;
            found = true;
        }
        found.then_some(size)
    }

    /// The shared variable `decl`'s name, and its element `element` as a
    /// report shows it: `tile[5]` (the name alone for a variable that is
    /// no array), after the element's type if `typed` (`float tile[5]`).
    /// A local (an `out` parameter) and the part an uninitialized read
    /// names: `element` is the component of a vector, column of a matrix,
    /// element of an array or field of a struct of at most 32 (the
    /// engine's mask; larger ones are one part): `local vec4 v.y`,
    /// `local float a[3]`, `out parameter S s.b`.
    /// (Its name, the part as the shader names it, the part as a report
    /// shows it.)
    fn local_part(&self, decl: usize, element: u32) -> (Option<String>, String, String) {
        let Some(v) = self.table.vars.get(decl) else {
            let unknown = format!("variable {decl}");
            return (None, unknown.clone(), unknown);
        };
        let n = &v.name;
        let part = match &v.ty {
            Type::Vector(_, c) if element < u32::from(*c) => ["x", "y", "z", "w"]
                .get(element as usize)
                .map(|c| format!("{n}.{c}")),
            Type::Matrix { cols, .. } if element < u32::from(*cols) => {
                Some(format!("{n}[{element}]"))
            }
            Type::Array(_, Some(len)) if *len <= 32 => Some(format!("{n}[{element}]")),
            Type::Struct(st) if st.fields.len() <= 32 => st
                .fields
                .get(element as usize)
                .map(|f| format!("{n}.{}", f.name)),
            _ => None,
        };
        let what = if v.kind == VarKind::Param {
            "out parameter"
        } else {
            "local"
        };
        let part = part.unwrap_or_else(|| n.clone());
        let shown = format!("{what} {} {part}", v.ty);
        (Some(n.clone()), part, shown)
    }

    fn shared_element(&self, decl: usize, element: u32, typed: bool) -> (Option<String>, String) {
        let Some(v) = self.table.vars.get(decl) else {
            return (None, format!("variable {decl}"));
        };
        let n = &v.name;
        let (ty, shown) = match &v.ty {
            Type::Array(elem, _) => (elem.to_string(), format!("{n}[{element}]")),
            ty => (ty.to_string(), n.clone()),
        };
        let shown = if typed {
            format!("{ty} {shown}")
        } else {
            shown
        };
        (Some(n.clone()), shown)
    }
}

/// An invocation as a race report names it: `invocation (3,0,0)` (a
/// compute invocation by its global id). Fragments by their pixel
/// alone: the storage check knows the other fragment's pixel but not its
/// primitive (and compares fragments by pixel), so naming one side's
/// primitive read as if the two differed by it.
fn who(inv: &Invocation) -> String {
    match inv {
        Invocation::Compute { id: [x, y, z] } => format!("invocation ({x},{y},{z})"),
        Invocation::Fragment { x, y, sample, .. } => Invocation::Fragment {
            x: *x,
            y: *y,
            primitive: None,
            sample: *sample,
        }
        .to_string(),
        other => other.to_string(),
    }
}

/// A value's first word (what a race report carries) as the first scalar
/// of type `ty` (the whole value for a scalar).
fn first_scalar(ty: &Type, word: u32) -> Option<Value> {
    use shaderdbg_core::Scalar;
    match ty {
        Type::Scalar(s) => Some(match s {
            Scalar::Float => Value::Float(f32::from_bits(word)),
            Scalar::Int => Value::Int(word as i32),
            Scalar::Uint => Value::Uint(word),
            Scalar::Bool => Value::Bool(word != 0),
            Scalar::Double => return None,
        }),
        Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => {
            first_scalar(&Type::Scalar(*s), word)
        }
        Type::Array(e, _) => first_scalar(e, word),
        Type::Struct(st) => first_scalar(&st.fields.first()?.ty, word),
        _ => None,
    }
}

fn did(access: Access) -> &'static str {
    match access {
        Access::Read => "read",
        Access::Write => "wrote",
        Access::Atomic => "wrote atomically",
    }
}

/// Executions of a statement [`Stop::failing_step`] looks at, at most.
const MAX_OCCURRENCES: usize = 4096;

fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(i64::from(*i)),
        Value::Uint(u) => Some(i64::from(*u)),
        _ => None,
    }
}

/// Each indexing `name[index]` in a statement's text (nested ones too), as
/// (name, index text).
fn indexings(line: &str) -> Vec<(String, String)> {
    let code = code_of(line);
    let bytes = code.as_bytes();
    bracketed_names(code)
        .filter_map(|(name, open)| {
            let mut depth = 0usize;
            let close = (open..bytes.len()).find(|&k| {
                match bytes[k] {
                    b'[' => depth += 1,
                    b']' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })?;
            Some((
                code[name].to_string(),
                code[open + 1..close].trim().to_string(),
            ))
        })
        .collect()
}

/// The one name indexed (`name[`) in a statement's text, if there is exactly
/// one: the report does not name the array, its statement usually does.
fn sole_indexed_name(line: &str) -> Option<String> {
    let code = code_of(line);
    let bytes = code.as_bytes();
    let mut names: Vec<&str> = Vec::new();
    for (name, _) in bracketed_names(code) {
        let member = name.start > 0 && bytes[name.start - 1] == b'.';
        let name = &code[name];
        if !member && !names.contains(&name) {
            names.push(name);
        }
    }
    match names.as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    }
}

/// A statement's text without its `//` comment.
fn code_of(line: &str) -> &str {
    line.split("//").next().unwrap_or(line)
}

/// Each name in `code` followed by `[` (whitespace between allowed),
/// nested ones too: (the name's byte range, the byte index of its `[`).
/// Numbers are skipped whole (`1e5`, `2u` are no names).
fn bracketed_names(code: &str) -> impl Iterator<Item = (std::ops::Range<usize>, usize)> + '_ {
    let bytes = code.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let c = bytes[i];
            if c.is_ascii_digit() {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
                continue;
            }
            if !(c.is_ascii_alphabetic() || c == b'_') {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let end = i;
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if bytes.get(j) == Some(&b'[') {
                // The index is looked at next: indexings inside it too.
                i = j + 1;
                return Some((start..end, j));
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::{indexings, sole_indexed_name, who};
    use shaderdbg_core::Invocation;

    /// The fragment race report named its own fragment with its primitive
    /// (`fragment (15,15) prim 0`) and the other without (not known).
    #[test]
    fn race_reports_name_fragments_by_pixel_on_both_sides() {
        let known = Invocation::Fragment {
            x: 15,
            y: 15,
            primitive: Some(0),
            sample: None,
        };
        let unknown = Invocation::Fragment {
            x: 14,
            y: 14,
            primitive: None,
            sample: None,
        };
        assert_eq!(who(&known), "fragment (15,15)");
        assert_eq!(who(&unknown), "fragment (14,14)");
        let compute = Invocation::Compute { id: [3, 0, 0] };
        assert_eq!(who(&compute), "invocation (3,0,0)");
    }

    #[test]
    fn indexings_are_found_with_their_index_text_nested_ones_too() {
        let pairs = |s: &str| indexings(s);
        let own = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            pairs("    float v = src[base + k];"),
            own(&[("src", "base + k")])
        );
        assert_eq!(
            pairs("tile[i] = tile[i + s] + w[idx[j]]; // a[1]"),
            own(&[
                ("tile", "i"),
                ("tile", "i + s"),
                ("w", "idx[j]"),
                ("idx", "j")
            ])
        );
        assert_eq!(pairs("x = a[ (1 + 2) ;"), own(&[]));
    }

    #[test]
    fn the_array_of_a_statement_is_named_only_when_it_is_the_only_one() {
        let name = |s: &str| sole_indexed_name(s);
        assert_eq!(name("    float v = src[base + k];").as_deref(), Some("src"));
        assert_eq!(name("dst[i] = dst[i - 1u] * 2.0;").as_deref(), Some("dst"));
        assert_eq!(name("dst[i] = src[i]; // a[1]").as_deref(), None);
        assert_eq!(name("x = tile [i];").as_deref(), Some("tile"));
        assert_eq!(name("x = 1.0;"), None);
    }
}
