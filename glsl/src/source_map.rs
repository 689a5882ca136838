//! Source maps: which file a runtime shader source was built from, and how their
//! lines correspond.
//!
//! The source an application hands `glShaderSource` is often not a file verbatim:
//! a header may be prepended (`#version`, `#define`s, `precision`), the file may be
//! a larger document of which the shader is one section (a Piglit `.shader_test`),
//! and placeholders such as `$DO_LIGHTS$` may be replaced by generated code (glmark2
//! does all of these). We align the two texts by content with a patience diff over
//! normalized lines (trimmed, inner whitespace runs collapsed), then clean it up:
//!
//! * matched runs are grouped into clusters (runs whose file sides are at most
//!   [`CLUSTER_GAP`] non-blank lines apart, so a replaced placeholder does not split
//!   a cluster); only *strong* clusters are kept: at least [`STRONG_CLUSTER`]
//!   matched code lines, one of them occurring once in each text (or else the
//!   heaviest cluster). The rest are stray matches of common lines (`#version 110`,
//!   `void main()`, `}`), e.g. between a header and another section of a document;
//! * kept runs then grow over adjacent identical lines and over small gaps (see
//!   [`Grower`]), which recovers lines the diff paired with an equal line elsewhere
//!   (the fragment section's `#version 110` rather than the vertex section's).
//!
//! Duplicate trivial lines (`}`) thus only map inside an aligned region.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};

/// Share of code lines that must match for [`SourceMap::is_match`] when the file is
/// the shader: on both sides, the file's code lines and the runtime's (after its
/// header, generated placeholder code left out).
///
/// 0.6 is a clear majority: a file with a third of its lines edited since the shader
/// was compiled still matches. Both sides are required because small shaders share
/// much boilerplate: over glmark2's 71 shaders (header prepended, placeholders
/// expanded), "file side >= 0.6" alone accepted 261 pairs of different shaders
/// whose file is not contained in the other; requiring both sides leaves 54, all
/// close variants (bump-normals vs bump-normals-tangent), which ranking in
/// [`find_shaders_for_file`] orders correctly. Every true pair matches, also with
/// a third of its code lines edited.
const MATCH_THRESHOLD: f32 = 0.6;
/// Share of code lines that must match when the file is a larger document holding
/// the shader (file side low): of the runtime's code lines, and of those in the
/// part of the file that matched. Higher than [`MATCH_THRESHOLD`] because a section
/// is normally embedded verbatim and because tiny runtimes (3 code lines, 2 of
/// them `varying vec4 color;` / `void main()`) otherwise match half of glmark2.
const SECTION_THRESHOLD: f32 = 0.8;
/// Runs whose file sides are at most this many non-blank lines apart form one cluster.
const CLUSTER_GAP: usize = 2;
/// Matched code lines that make a cluster strong enough to anchor the alignment.
const STRONG_CLUSTER: usize = 3;
/// Largest gap (non-blank file lines) between surviving lines inside which a
/// breakpoint moves to the next surviving line: a placeholder, or a few lines added
/// since the shader was compiled. Longer gaps are likely another shader's code.
const MAX_INTERIOR_MOVE: usize = 8;
/// Largest gap (non-blank file lines) before the first / after the last surviving
/// line inside which a breakpoint moves; beyond it lies another section.
const MAX_EDGE_MOVE: usize = 2;
/// Upper bound on diff time for pathological inputs (large unrelated texts); the
/// diff then approximates. Ordinary inputs finish in a few milliseconds.
const DIFF_DEADLINE: Duration = Duration::from_millis(200);

/// What a line contributes to the evidence that two texts are the same shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Empty or whitespace only.
    Blank,
    /// Only comments.
    Comment,
    /// Braces, parentheses, `;`, `else`, `#else`, `#endif`: occurs everywhere.
    Trivial,
    /// A template placeholder like `$DO_LIGHTS$`, replaced at runtime.
    Placeholder,
    /// Anything else: real evidence.
    Code,
}

impl Kind {
    /// Whether a breakpoint may bind to a line of this kind.
    fn is_bindable(self) -> bool {
        !matches!(self, Kind::Blank | Kind::Comment)
    }
}

/// A text split into lines with their comparison keys and kinds.
struct Lines<'a> {
    keys: Vec<Cow<'a, str>>,
    kinds: Vec<Kind>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        let mut keys = Vec::new();
        let mut kinds = Vec::new();
        let mut in_block_comment = false;
        for line in text.lines() {
            keys.push(normalize(line));
            kinds.push(classify(line, &mut in_block_comment));
        }
        Lines { keys, kinds }
    }
}

/// Comparison key: trimmed (this also drops a `\r`), inner whitespace runs collapsed
/// to one space (keeping whether there was whitespace: `A(x)` != `A (x)` in macros).
fn normalize(line: &str) -> Cow<'_, str> {
    let t = line.trim();
    let mut prev_ws = false;
    let clean = t.chars().all(|c| {
        let ok = !(c.is_whitespace() && (prev_ws || c != ' '));
        prev_ws = c.is_whitespace();
        ok
    });
    if clean {
        Cow::Borrowed(t)
    } else {
        Cow::Owned(t.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// Classifies a line, tracking `/* ... */` comments across lines.
fn classify(line: &str, in_block_comment: &mut bool) -> Kind {
    if line.trim().is_empty() {
        return if *in_block_comment {
            Kind::Comment
        } else {
            Kind::Blank
        };
    }
    // The line's code with comments removed (borrowed when it has no comments).
    let code: Cow<str> = if !*in_block_comment && !line.contains('/') {
        Cow::Borrowed(line.trim())
    } else {
        let b = line.as_bytes();
        let mut out = String::new();
        let (mut i, mut seg) = (0, 0);
        while i < b.len() {
            if *in_block_comment {
                if b[i..].starts_with(b"*/") {
                    *in_block_comment = false;
                    i += 2;
                    seg = i;
                } else {
                    i += 1;
                }
            } else if b[i..].starts_with(b"//") {
                break;
            } else if b[i..].starts_with(b"/*") {
                out.push_str(&line[seg..i]);
                out.push(' ');
                *in_block_comment = true;
                i += 2;
            } else {
                i += 1;
            }
        }
        if !*in_block_comment {
            out.push_str(&line[seg..i]);
        }
        Cow::Owned(out.trim().to_owned())
    };
    let code = code.as_ref();
    if code.is_empty() {
        return Kind::Comment;
    }
    if code
        .chars()
        .all(|c| "{}()[];,".contains(c) || c.is_whitespace())
    {
        return Kind::Trivial;
    }
    let directive = code.strip_prefix('#').map(str::trim_start);
    if code == "else" || matches!(directive, Some("else" | "endif")) {
        return Kind::Trivial;
    }
    let is_placeholder = code.len() >= 3
        && code.starts_with('$')
        && code.ends_with('$')
        && code[1..code.len() - 1]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if is_placeholder {
        return Kind::Placeholder;
    }
    Kind::Code
}

/// Whether a (normalized) line is what a prepended header holds: preprocessor
/// directives, `precision` statements, constants.
fn is_header_like(key: &str) -> bool {
    key.starts_with('#') || key.starts_with("precision ") || key.starts_with("const ")
}

/// A run of consecutive matched lines (0-based starts).
#[derive(Clone, Copy, Debug)]
struct Run {
    file: usize,
    runtime: usize,
    len: usize,
}

/// `counts[i]` = number of lines before line `i` (0-based) satisfying `pred`.
fn prefix_counts(kinds: &[Kind], pred: impl Fn(Kind) -> bool) -> Vec<usize> {
    let mut counts = Vec::with_capacity(kinds.len() + 1);
    let mut n = 0;
    counts.push(0);
    for &k in kinds {
        n += usize::from(pred(k));
        counts.push(n);
    }
    counts
}

/// The 1-based line `line` maps to in `map` (0-based lines both sides).
fn map_line(map: &[Option<u32>], line: u32) -> Option<u32> {
    let i = line.checked_sub(1)? as usize;
    map.get(i).copied().flatten().map(|l| l + 1)
}

/// Line alignment between a runtime shader source and a file the user edits.
#[derive(Clone, Debug)]
pub struct SourceMap {
    /// For each file line (0-based), its runtime line (0-based).
    file_to_runtime: Vec<Option<u32>>,
    /// For each runtime line (0-based), its file line (0-based).
    runtime_to_file: Vec<Option<u32>>,
    /// Kind of each file line.
    file_kinds: Vec<Kind>,
    /// Matched non-blank file lines / non-blank file lines.
    coverage: f32,
    /// Matched code lines of the file / code lines of the file.
    file_code_coverage: f32,
    /// Matched code lines of the runtime / its code lines after the header.
    runtime_code_coverage: f32,
    /// Like `runtime_code_coverage`, but unmatched code lines in the header count,
    /// unless header-like.
    runtime_section_coverage: f32,
    /// Matched lines / all lines of both texts (less the runtime's header).
    exact: f32,
    /// Matched code lines / code lines in the file's aligned span.
    file_span_coverage: f32,
    /// Number of matched code lines.
    matched_code: usize,
}

impl SourceMap {
    /// Aligns `runtime` (what the driver compiled) with `file` (what the user edits).
    pub fn new(runtime: &str, file: &str) -> SourceMap {
        let f = Lines::new(file);
        let r = Lines::new(runtime);
        let runs = align(&f, &r);

        let mut file_to_runtime = vec![None; f.keys.len()];
        let mut runtime_to_file = vec![None; r.keys.len()];
        for run in &runs {
            for k in 0..run.len {
                file_to_runtime[run.file + k] = Some((run.runtime + k) as u32);
                runtime_to_file[run.runtime + k] = Some((run.file + k) as u32);
            }
        }

        let ratio = |num: usize, den: usize| {
            if den == 0 {
                0.0
            } else {
                num as f32 / den as f32
            }
        };
        let count = |kinds: &[Kind], map: &[Option<u32>], range: std::ops::Range<usize>| {
            let mut total = (0, 0, 0, 0); // (non-blank, matched non-blank, code, matched code)
            for i in range {
                let matched = usize::from(map[i].is_some());
                if kinds[i] != Kind::Blank {
                    total.0 += 1;
                    total.1 += matched;
                }
                if kinds[i] == Kind::Code {
                    total.2 += 1;
                    total.3 += matched;
                }
            }
            total
        };

        let (nonblank, matched_nonblank, code, matched_code) =
            count(&f.kinds, &file_to_runtime, 0..f.kinds.len());
        let file_span = match (runs.first(), runs.last()) {
            (Some(a), Some(b)) => a.file..b.file + b.len,
            _ => 0..0,
        };
        let (_, _, span_code, span_matched) = count(&f.kinds, &file_to_runtime, file_span);
        // Runtime code lines that should come from the file: all but the prepended
        // header (up to the first matched code line that is not header-like, so a
        // matched `#version` does not end it) and what replaced a placeholder. In a
        // gap whose file side holds a placeholder, the runtime side is generated
        // code, except for as many lines as the file side has other code lines
        // (edited lines next to the placeholder): those count as unmatched.
        let header_end = (0..r.kinds.len())
            .find(|&i| {
                runtime_to_file[i].is_some()
                    && r.kinds[i] == Kind::Code
                    && !is_header_like(&r.keys[i])
            })
            .unwrap_or(r.kinds.len());
        let mut expansion = vec![false; r.kinds.len()];
        let mut edited_near_placeholders = 0;
        for (k, run) in runs.iter().enumerate() {
            let (file_end, runtime_end) = runs
                .get(k + 1)
                .map_or((f.kinds.len(), r.kinds.len()), |n| (n.file, n.runtime));
            let file_gap = &f.kinds[run.file + run.len..file_end];
            let runtime_gap = run.runtime + run.len..runtime_end;
            if file_gap.contains(&Kind::Placeholder) && runtime_gap.start >= header_end {
                let code = |kinds: &[Kind]| kinds.iter().filter(|&&k| k == Kind::Code).count();
                edited_near_placeholders += code(file_gap).min(code(&r.kinds[runtime_gap.clone()]));
                expansion[runtime_gap].fill(true);
            }
        }
        let (mut rt_code, mut rt_matched, mut unexplained) = (edited_near_placeholders, 0, 0);
        let mut matched_lines = 0;
        for i in 0..r.kinds.len() {
            let matched = runtime_to_file[i].is_some();
            matched_lines += usize::from(matched);
            if r.kinds[i] != Kind::Code || expansion[i] {
                continue;
            }
            if i >= header_end {
                rt_code += 1;
                rt_matched += usize::from(matched);
            } else if !matched && !is_header_like(&r.keys[i]) {
                unexplained += 1;
            }
        }
        // Tie-breaker for ranking: share of all lines (blank ones included) that
        // match, the runtime's header left out.
        let header_len = runs.first().map_or(0, |a| a.runtime);
        let exact = ratio(
            2 * matched_lines,
            f.kinds.len() + r.kinds.len() - header_len,
        );

        SourceMap {
            file_to_runtime,
            runtime_to_file,
            file_kinds: f.kinds,
            coverage: ratio(matched_nonblank, nonblank),
            file_code_coverage: ratio(matched_code, code),
            runtime_code_coverage: ratio(rt_matched, rt_code),
            runtime_section_coverage: ratio(rt_matched, rt_code + unexplained),
            exact,
            file_span_coverage: ratio(span_matched, span_code),
            matched_code,
        }
    }

    /// How much of the file survives in the runtime source: matched file lines /
    /// non-blank file lines (0.0..=1.0).
    pub fn coverage(&self) -> f32 {
        self.coverage
    }

    /// Whether the shader was plausibly built from this file.
    ///
    /// Only code lines count (not blank, comment-only, brace-only or placeholder
    /// lines), and at least one must match. Then either the file is the shader
    /// (possibly with a header prepended or placeholders replaced): at least
    /// [`MATCH_THRESHOLD`] of the file's code lines survive and of the runtime's code
    /// lines after its prepended header (generated placeholder code not counted)
    /// come from the file; or the file is a larger document containing the shader:
    /// at least [`SECTION_THRESHOLD`] of the runtime's code lines come from the file,
    /// with nothing but header-like lines (`#...`, `precision`, `const`) unexplained
    /// before them, and the part of the file they come from is that dense too (a few
    /// common lines scattered over an unrelated file are no match).
    pub fn is_match(&self) -> bool {
        let shader = self.file_code_coverage >= MATCH_THRESHOLD
            && self.runtime_code_coverage >= MATCH_THRESHOLD;
        let section = self.runtime_section_coverage >= SECTION_THRESHOLD
            && self.file_span_coverage >= SECTION_THRESHOLD;
        self.matched_code >= 1 && (shader || section)
    }

    /// Quality used to rank candidates: harmonic mean of the share of the runtime
    /// that comes from the file and the share of the file that survives.
    fn score(&self) -> f32 {
        let (p, r) = (self.runtime_code_coverage, self.file_code_coverage);
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }

    /// Runtime line for a file line, if that exact line survives.
    pub fn file_to_runtime(&self, file_line: u32) -> Option<u32> {
        map_line(&self.file_to_runtime, file_line)
    }

    /// File line for a runtime line, if it came from the file.
    pub fn runtime_to_file(&self, runtime_line: u32) -> Option<u32> {
        map_line(&self.runtime_to_file, runtime_line)
    }

    /// For a breakpoint on `file_line`: the runtime line to bind, moving to the
    /// nearest following surviving line (then the nearest preceding one) within the
    /// same block of matched lines if the line itself does not survive; returns the
    /// (possibly moved) file line too. None when nothing near survives (reported
    /// unverified by callers).
    ///
    /// A moved breakpoint lands on a surviving line that is not blank or comment-only.
    /// "Near" means: inside a gap between surviving lines of at most
    /// [`MAX_INTERIOR_MOVE`] non-blank lines (moves forward), or before the first /
    /// after the last surviving line in a gap of at most [`MAX_EDGE_MOVE`] non-blank
    /// lines (moves towards the surviving line); larger gaps are other sections.
    pub fn bind_breakpoint(&self, file_line: u32) -> Option<BoundLine> {
        let i = file_line.checked_sub(1)? as usize;
        let bind = |f: usize, moved: bool| {
            self.file_to_runtime[f].map(|r| BoundLine {
                file_line: f as u32 + 1,
                runtime_line: r + 1,
                moved,
            })
        };
        if self.file_to_runtime.get(i)?.is_some() {
            return bind(i, false);
        }
        let target =
            |f: &usize| self.file_to_runtime[*f].is_some() && self.file_kinds[*f].is_bindable();
        let prev = (0..i).rev().find(target);
        let next = (i + 1..self.file_kinds.len()).find(target);
        let non_blank = |range: std::ops::Range<usize>| {
            self.file_kinds[range]
                .iter()
                .filter(|k| **k != Kind::Blank)
                .count()
        };
        let to = match (prev, next) {
            (Some(p), Some(n)) if non_blank(p + 1..n) <= MAX_INTERIOR_MOVE => n,
            (None, Some(n)) if non_blank(0..n) <= MAX_EDGE_MOVE => n,
            (Some(p), None) if non_blank(p + 1..self.file_kinds.len()) <= MAX_EDGE_MOVE => p,
            _ => return None,
        };
        bind(to, true)
    }
}

/// What the program put around a file when it built a shader from it: the
/// text before the file's first surviving line (a prepended header) and the
/// text that replaced each whole-line `$NAME$` placeholder. An editor that
/// analyses the file with these sees what the program compiled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuntimeContext {
    pub header: String,
    pub placeholders: Vec<(String, String)>,
}

impl SourceMap {
    /// The header and placeholder texts of `runtime` around `file` (the two
    /// texts this map was made from).
    pub fn runtime_context(&self, runtime: &str, file: &str) -> RuntimeContext {
        let r: Vec<&str> = runtime.lines().collect();
        let f: Vec<&str> = file.lines().collect();
        // The header ends at the file's first surviving line, its `#version`
        // aside: an editor puts the header after the file's own `#version`.
        let is_version = |i: usize| {
            f.get(i)
                .is_some_and(|l| l.trim_start().starts_with("#version"))
        };
        let first = (0..f.len())
            .filter(|&i| !is_version(i))
            .find_map(|i| self.file_to_runtime[i]);
        let header_end = first.map_or(r.len(), |l| l as usize);
        let version_line: Vec<usize> = (0..f.len())
            .filter(|&i| is_version(i))
            .filter_map(|i| self.file_to_runtime[i].map(|l| l as usize))
            .collect();
        let text = |range: std::ops::Range<usize>| {
            range
                .filter(|i| !version_line.contains(i))
                .filter_map(|i| r.get(i))
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        };
        // Each gap between surviving lines, by the runtime line after its
        // start: the file's unmatched placeholder lines in it. A gap with
        // several placeholders cannot be divided, so none of them is taken.
        let mut gaps: Vec<(Option<u32>, Vec<usize>)> = Vec::new();
        let mut prev = None;
        for (i, mapped) in self.file_to_runtime.iter().enumerate() {
            match mapped {
                Some(r) => prev = Some(*r),
                None if self.file_kinds[i] == Kind::Placeholder => match gaps.last_mut() {
                    Some((p, lines)) if *p == prev => lines.push(i),
                    _ => gaps.push((prev, vec![i])),
                },
                None => {}
            }
        }
        let mut placeholders = Vec::new();
        for (prev, lines) in gaps {
            let [i] = lines[..] else { continue };
            let from = prev.map_or(header_end, |p| p as usize + 1);
            let to = self.file_to_runtime[i..]
                .iter()
                .flatten()
                .next()
                .map_or(r.len(), |n| *n as usize);
            if from > to {
                continue;
            }
            let name = f[i].trim().trim_matches('$').to_string();
            let value = text(from..to);
            placeholders.push((name, value.trim_end_matches('\n').to_string()));
        }
        RuntimeContext {
            header: text(0..header_end),
            placeholders,
        }
    }
}

/// A breakpoint bound to a runtime line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundLine {
    /// The file line the breakpoint ends up on (1-based); differs from the requested
    /// one when `moved`.
    pub file_line: u32,
    /// The runtime line to bind (1-based).
    pub runtime_line: u32,
    /// Whether the requested line did not survive and the breakpoint was moved.
    pub moved: bool,
}

/// Picks, among several candidate runtime sources (e.g. all shaders a program
/// compiled), those built from `file`, best first, with their maps.
///
/// Candidates that do not [`SourceMap::is_match`] are left out; the rest are ranked
/// by how much of the runtime's code comes from the file and how much of the file's
/// code survives (harmonic mean), then by the share of all lines that match (blank
/// and brace lines included), then in the candidates' order.
pub fn find_shaders_for_file<'a>(
    file: &str,
    candidates: impl IntoIterator<Item = (usize, &'a str)>,
) -> Vec<(usize, SourceMap)> {
    let mut found: Vec<(usize, SourceMap)> = candidates
        .into_iter()
        .map(|(id, runtime)| (id, SourceMap::new(runtime, file)))
        .filter(|(_, map)| map.is_match())
        .collect();
    found.sort_by(|a, b| {
        (b.1.score().total_cmp(&a.1.score())).then(b.1.exact.total_cmp(&a.1.exact))
    });
    found
}

/// Aligns file lines with runtime lines; returns non-overlapping runs in order.
fn align(f: &Lines, r: &Lines) -> Vec<Run> {
    // Intern keys so the diff compares integers.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    fn intern<'k>(ids: &mut HashMap<&'k str, u32>, keys: &'k [Cow<str>]) -> Vec<u32> {
        keys.iter()
            .map(|k| {
                let next = ids.len() as u32;
                *ids.entry(k.as_ref()).or_insert(next)
            })
            .collect()
    }
    let fid = intern(&mut ids, &f.keys);
    let rid = intern(&mut ids, &r.keys);
    if fid.is_empty() || rid.is_empty() {
        return Vec::new();
    }
    // Occurrences of each key: (in the file, in the runtime) and runtime positions.
    let mut occurrences = vec![(0u32, 0u32); ids.len()];
    let mut runtime_positions = vec![Vec::new(); ids.len()];
    for &id in &fid {
        occurrences[id as usize].0 += 1;
    }
    for (i, &id) in rid.iter().enumerate() {
        occurrences[id as usize].1 += 1;
        runtime_positions[id as usize].push(i);
    }

    // Diff only lines that occur in both texts: the others cannot match, and
    // leaving them out keeps the diff fast on unrelated texts (same alignment).
    let shared = |ids: &[u32]| -> Vec<usize> {
        (0..ids.len())
            .filter(|&i| {
                let (in_file, in_runtime) = occurrences[ids[i] as usize];
                in_file > 0 && in_runtime > 0
            })
            .collect()
    };
    let (file_lines, runtime_lines) = (shared(&fid), shared(&rid));
    let file_shared: Vec<u32> = file_lines.iter().map(|&i| fid[i]).collect();
    let runtime_shared: Vec<u32> = runtime_lines.iter().map(|&i| rid[i]).collect();
    let deadline = Instant::now() + DIFF_DEADLINE;
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Patience,
        &file_shared,
        &runtime_shared,
        Some(deadline),
    );
    let mut runs: Vec<Run> = Vec::new();
    for op in ops {
        let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        else {
            continue;
        };
        for k in 0..len {
            let (file, runtime) = (file_lines[old_index + k], runtime_lines[new_index + k]);
            match runs.last_mut() {
                Some(last)
                    if last.file + last.len == file && last.runtime + last.len == runtime =>
                {
                    last.len += 1
                }
                _ => runs.push(Run {
                    file,
                    runtime,
                    len: 1,
                }),
            }
        }
    }

    // Group runs into clusters; keep the strong ones (or else the heaviest).
    let non_blank = prefix_counts(&f.kinds, |k| k != Kind::Blank);
    let code = prefix_counts(&f.kinds, |k| k == Kind::Code);
    // (first run, end run, matched code lines, has a line unique in both texts)
    let mut clusters: Vec<(usize, usize, usize, bool)> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let weight = code[run.file + run.len] - code[run.file];
        let unique = (run.file..run.file + run.len)
            .any(|l| f.kinds[l] == Kind::Code && occurrences[fid[l] as usize] == (1, 1));
        match clusters.last_mut() {
            Some(c)
                if non_blank[run.file] - non_blank[runs[i - 1].file + runs[i - 1].len]
                    <= CLUSTER_GAP =>
            {
                c.1 = i + 1;
                c.2 += weight;
                c.3 |= unique;
            }
            _ => clusters.push((i, i + 1, weight, unique)),
        }
    }
    let mut kept: Vec<Run> = clusters
        .iter()
        .filter(|c| c.2 >= STRONG_CLUSTER && c.3)
        .flat_map(|c| runs[c.0..c.1].iter().copied())
        .collect();
    if kept.is_empty() {
        if let Some(c) = clusters
            .iter()
            .filter(|c| c.2 > 0)
            .max_by(|a, b| a.2.cmp(&b.2).then(b.0.cmp(&a.0)))
        {
            kept = runs[c.0..c.1].to_vec();
        }
    }

    // Grow the kept runs into the gaps around them.
    let grower = Grower {
        fid: &fid,
        rid: &rid,
        kinds: &f.kinds,
        runtime_positions: &runtime_positions,
    };
    let mut out: Vec<Run> = Vec::with_capacity(kept.len());
    for (i, &run) in kept.iter().enumerate() {
        let low = out
            .last()
            .map_or((0, 0), |p: &Run| (p.file + p.len, p.runtime + p.len));
        let start = out.len();
        grower.backward(run, low, &mut out);
        out[start..].reverse();
        let high = kept
            .get(i + 1)
            .map_or((fid.len(), rid.len()), |n| (n.file, n.runtime));
        grower.forward(high, &mut out);
    }
    // Merge touching runs.
    let mut merged: Vec<Run> = Vec::with_capacity(out.len());
    for run in out {
        match merged.last_mut() {
            Some(last)
                if last.file + last.len == run.file && last.runtime + last.len == run.runtime =>
            {
                last.len += run.len
            }
            _ => merged.push(run),
        }
    }
    merged
}

/// Grows kept runs into neighbouring gaps: over directly adjacent identical lines,
/// then by hopping over at most [`CLUSTER_GAP`] non-blank unmatched file lines (a
/// placeholder, an edited line) to the nearest runtime occurrence of a code line.
/// This recovers lines the diff paired with an equal line elsewhere, e.g. the
/// fragment section's declarations rather than the vertex section's.
struct Grower<'a> {
    fid: &'a [u32],
    rid: &'a [u32],
    kinds: &'a [Kind],
    runtime_positions: &'a [Vec<usize>],
}

impl Grower<'_> {
    /// Extends the last run of `out` forward, then pushes runs found after it, all
    /// before `high` (exclusive file and runtime bounds).
    fn forward(&self, high: (usize, usize), out: &mut Vec<Run>) {
        let Some(mut run) = out.pop() else { return };
        loop {
            while run.file + run.len < high.0
                && run.runtime + run.len < high.1
                && self.fid[run.file + run.len] == self.rid[run.runtime + run.len]
            {
                run.len += 1;
            }
            out.push(run);
            let (f, r) = (run.file + run.len, run.runtime + run.len);
            let (mut g, mut skipped) = (f, 0);
            let mut found = None;
            while g < high.0 && skipped <= CLUSTER_GAP {
                if self.kinds[g] == Kind::Code {
                    let pos = &self.runtime_positions[self.fid[g] as usize];
                    let k = pos.partition_point(|&p| p < r);
                    if let Some(&p) = pos.get(k).filter(|&&p| p < high.1) {
                        found = Some((g, p));
                        break;
                    }
                }
                skipped += usize::from(self.kinds[g] != Kind::Blank);
                g += 1;
            }
            let Some((g, p)) = found else { return };
            run = Run {
                file: g,
                runtime: p,
                len: 1,
            };
            while run.file > f
                && run.runtime > r
                && self.fid[run.file - 1] == self.rid[run.runtime - 1]
            {
                run.file -= 1;
                run.runtime -= 1;
                run.len += 1;
            }
        }
    }

    /// Extends `run` backward and pushes it and the runs found before it, nearest
    /// first, all at or after `low` (inclusive file and runtime bounds).
    fn backward(&self, mut run: Run, low: (usize, usize), out: &mut Vec<Run>) {
        loop {
            while run.file > low.0
                && run.runtime > low.1
                && self.fid[run.file - 1] == self.rid[run.runtime - 1]
            {
                run.file -= 1;
                run.runtime -= 1;
                run.len += 1;
            }
            out.push(run);
            let (f, r) = (run.file, run.runtime);
            let (mut g, mut skipped) = (f, 0);
            let mut found = None;
            while g > low.0 && skipped <= CLUSTER_GAP {
                g -= 1;
                if self.kinds[g] == Kind::Code {
                    let pos = &self.runtime_positions[self.fid[g] as usize];
                    let k = pos.partition_point(|&p| p < r);
                    if let Some(&p) = k.checked_sub(1).map(|k| &pos[k]).filter(|&&p| p >= low.1) {
                        found = Some((g, p));
                        break;
                    }
                }
                skipped += usize::from(self.kinds[g] != Kind::Blank);
            }
            let Some((g, p)) = found else { return };
            run = Run {
                file: g,
                runtime: p,
                len: 1,
            };
            while run.file + run.len < f
                && run.runtime + run.len < r
                && self.fid[run.file + run.len] == self.rid[run.runtime + run.len]
            {
                run.len += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    /// Renders the file -> runtime table, one line per file line, with its text.
    fn table(map: &SourceMap, file: &str) -> String {
        let mut out = String::new();
        for (i, text) in file.lines().enumerate() {
            let line = i as u32 + 1;
            let target = match map.file_to_runtime(line) {
                Some(r) => format!("runtime {r}"),
                None => "-".to_owned(),
            };
            let row = format!("file {line} -> {target}  | {text}");
            out.push_str(row.trim_end());
            out.push('\n');
        }
        out
    }

    /// Both directions agree.
    fn assert_inverse(map: &SourceMap, file: &str, runtime: &str) {
        for f in 1..=file.lines().count() as u32 {
            if let Some(r) = map.file_to_runtime(f) {
                assert_eq!(map.runtime_to_file(r), Some(f), "file {f} -> runtime {r}");
            }
        }
        for r in 1..=runtime.lines().count() as u32 {
            if let Some(f) = map.runtime_to_file(r) {
                assert_eq!(map.file_to_runtime(f), Some(r), "runtime {r} -> file {f}");
            }
        }
    }

    /// A fragment shader in the style of glmark2's light-phong.frag.
    const PHONG: &str = "\
varying vec3 vertex_normal;
varying vec4 vertex_position;

vec4
compute_color(vec4 light_position, vec4 diffuse_light_color)
{
    vec3 eye_direction = normalize(-vertex_position.xyz);
    vec3 light_direction = normalize(light_position.xyz - vertex_position.xyz);
    vec3 normalized_normal = normalize(vertex_normal);
    float diffuseTerm = max(0.0, dot(normalized_normal, light_direction));
    return diffuse_light_color * diffuseTerm;
}

void main(void)
{
    vec4 color = vec4(0.0);
$DO_LIGHTS$
    gl_FragColor = color;
}
";

    /// What glmark2 would compile from [`PHONG`]: a header, and `$DO_LIGHTS$`
    /// expanded for three lights.
    fn phong_runtime() -> String {
        let header = "#version 100\n\
            #ifdef GL_ES\n\
            precision mediump float;\n\
            #endif\n\
            const vec4 MaterialDiffuse = vec4(0.0, 0.0, 1.0, 1.0);\n";
        let lights = (0..3)
            .map(|i| {
                format!(
                    "    {{\n        vec4 c = compute_color(LightSourcePosition{i}, LightColor{i});\n        color += c;\n    }}\n"
                )
            })
            .collect::<String>();
        format!("{header}{}", PHONG.replace("$DO_LIGHTS$\n", &lights))
    }

    /// The header and the placeholder's text come back exactly: the file
    /// with them is the runtime source again.
    #[test]
    fn runtime_context_rebuilds_what_the_program_compiled() {
        let runtime = phong_runtime();
        let map = SourceMap::new(&runtime, PHONG);
        let cx = map.runtime_context(&runtime, PHONG);
        assert!(cx
            .header
            .ends_with("const vec4 MaterialDiffuse = vec4(0.0, 0.0, 1.0, 1.0);\n"));
        assert_eq!(cx.header.lines().count(), 5);
        let [(name, lights)] = &cx.placeholders[..] else {
            panic!("{:?}", cx.placeholders);
        };
        assert_eq!(name, "DO_LIGHTS");
        let rebuilt = format!("{}{}", cx.header, PHONG.replace("$DO_LIGHTS$", lights));
        assert_eq!(rebuilt, runtime);
        // The file itself, no header: nothing around it.
        let same = SourceMap::new(PHONG, PHONG).runtime_context(PHONG, PHONG);
        assert_eq!(same, RuntimeContext::default());
        // Lines a program inserts after the file's own `#version` are the
        // header (an editor puts it after that line).
        let file = format!("#version 330 core\n{PHONG}");
        let runtime = format!("#version 330 core\n#define LIGHTS 3\n{PHONG}");
        let cx = SourceMap::new(&runtime, &file).runtime_context(&runtime, &file);
        assert_eq!(cx.header, "#define LIGHTS 3\n");
    }

    #[test]
    fn identical_text_maps_every_line_to_itself() {
        let map = SourceMap::new(PHONG, PHONG);
        assert!(map.is_match());
        assert_eq!(map.coverage(), 1.0);
        for line in 1..=PHONG.lines().count() as u32 {
            assert_eq!(map.file_to_runtime(line), Some(line));
            assert_eq!(map.runtime_to_file(line), Some(line));
            let bound = map.bind_breakpoint(line).unwrap();
            assert_eq!(
                (bound.file_line, bound.runtime_line, bound.moved),
                (line, line, false)
            );
        }
        let lines = PHONG.lines().count() as u32;
        assert_eq!(map.file_to_runtime(0), None);
        assert_eq!(map.file_to_runtime(lines + 1), None);
        assert_eq!(map.runtime_to_file(lines + 1), None);
        assert_eq!(map.bind_breakpoint(lines + 1), None);
    }

    #[test]
    fn prepended_header_shifts_every_line() {
        let file = "\
uniform sampler2D tex;
varying vec2 uv;

void main()
{
    vec4 c = texture2D(tex, uv);
    if (c.a < 0.5)
    {
        discard;
    }
    gl_FragColor = c;
}
";
        // Four lines, one of them ending in `}` like lines of the file.
        let header = "#version 100\n\
            precision mediump float;\n\
            float saturate(float x) { return clamp(x, 0.0, 1.0); }\n\
            #define LIGHTS 2\n";
        let runtime = format!("{header}{file}");
        let map = SourceMap::new(&runtime, file);
        assert!(map.is_match());
        assert_eq!(map.coverage(), 1.0);
        for line in 1..=file.lines().count() as u32 {
            assert_eq!(
                map.file_to_runtime(line),
                Some(line + 4),
                "file line {line}"
            );
        }
        for line in 1..=4 {
            assert_eq!(map.runtime_to_file(line), None);
        }
        assert_inverse(&map, file, &runtime);
    }

    /// A Piglit-style test document with two shader sections.
    const SHADER_TEST: &str = "\
[require]
GLSL >= 1.10

[vertex shader]
#version 110
varying vec2 uv;

void main()
{
\tuv = gl_Vertex.xy * 0.5 + 0.5;
\tgl_Position = gl_Vertex;
}

[fragment shader]
#version 110
uniform vec4 tint;
varying vec2 uv;

void main()
{
\tgl_FragColor = tint * vec4(uv, 0.0, 1.0);
}

[test]
uniform vec4 tint 0.0 1.0 0.0 1.0
draw rect -1 -1 2 2
probe all rgba 0.0 1.0 0.0 1.0
";

    fn section(doc: &str, name: &str) -> String {
        let start = doc.find(name).unwrap() + name.len() + 1;
        let end = doc[start..]
            .find("\n[")
            .map_or(doc.len(), |e| start + e + 1);
        doc[start..end].to_owned()
    }

    #[test]
    fn runtime_is_one_section_of_a_larger_document() {
        let fragment = section(SHADER_TEST, "[fragment shader]");
        let map = SourceMap::new(&fragment, SHADER_TEST);
        assert!(map.is_match());
        assert!(map.coverage() < 0.5, "{}", map.coverage());
        expect![[r#"
            file 1 -> -  | [require]
            file 2 -> -  | GLSL >= 1.10
            file 3 -> -  |
            file 4 -> -  | [vertex shader]
            file 5 -> -  | #version 110
            file 6 -> -  | varying vec2 uv;
            file 7 -> -  |
            file 8 -> -  | void main()
            file 9 -> -  | {
            file 10 -> -  | 	uv = gl_Vertex.xy * 0.5 + 0.5;
            file 11 -> -  | 	gl_Position = gl_Vertex;
            file 12 -> -  | }
            file 13 -> -  |
            file 14 -> -  | [fragment shader]
            file 15 -> runtime 1  | #version 110
            file 16 -> runtime 2  | uniform vec4 tint;
            file 17 -> runtime 3  | varying vec2 uv;
            file 18 -> runtime 4  |
            file 19 -> runtime 5  | void main()
            file 20 -> runtime 6  | {
            file 21 -> runtime 7  | 	gl_FragColor = tint * vec4(uv, 0.0, 1.0);
            file 22 -> runtime 8  | }
            file 23 -> runtime 9  |
            file 24 -> -  | [test]
            file 25 -> -  | uniform vec4 tint 0.0 1.0 0.0 1.0
            file 26 -> -  | draw rect -1 -1 2 2
            file 27 -> -  | probe all rgba 0.0 1.0 0.0 1.0
        "#]]
        .assert_eq(&table(&map, SHADER_TEST));
        assert_inverse(&map, SHADER_TEST, &fragment);
        // Breakpoints in the other sections do not bind to this shader.
        assert_eq!(map.bind_breakpoint(10), None);
        assert_eq!(map.bind_breakpoint(14), None);
        assert_eq!(map.bind_breakpoint(26), None);

        // The vertex section, with a header prepended, maps into its own section.
        let vertex = format!(
            "#define PIGLIT 1\n{}",
            section(SHADER_TEST, "[vertex shader]")
        );
        let map = SourceMap::new(&vertex, SHADER_TEST);
        assert!(map.is_match());
        let mapped: Vec<_> = (1..=27)
            .filter_map(|l| map.file_to_runtime(l).map(|r| (l, r)))
            .collect();
        assert_eq!(mapped, (5..=13).map(|l| (l, l - 3)).collect::<Vec<_>>());
        assert_eq!(map.bind_breakpoint(21), None);
    }

    #[test]
    fn placeholder_replaced_by_several_lines() {
        let runtime = phong_runtime();
        let map = SourceMap::new(&runtime, PHONG);
        assert!(map.is_match());
        expect![[r#"
            file 1 -> runtime 6  | varying vec3 vertex_normal;
            file 2 -> runtime 7  | varying vec4 vertex_position;
            file 3 -> runtime 8  |
            file 4 -> runtime 9  | vec4
            file 5 -> runtime 10  | compute_color(vec4 light_position, vec4 diffuse_light_color)
            file 6 -> runtime 11  | {
            file 7 -> runtime 12  |     vec3 eye_direction = normalize(-vertex_position.xyz);
            file 8 -> runtime 13  |     vec3 light_direction = normalize(light_position.xyz - vertex_position.xyz);
            file 9 -> runtime 14  |     vec3 normalized_normal = normalize(vertex_normal);
            file 10 -> runtime 15  |     float diffuseTerm = max(0.0, dot(normalized_normal, light_direction));
            file 11 -> runtime 16  |     return diffuse_light_color * diffuseTerm;
            file 12 -> runtime 17  | }
            file 13 -> runtime 18  |
            file 14 -> runtime 19  | void main(void)
            file 15 -> runtime 20  | {
            file 16 -> runtime 21  |     vec4 color = vec4(0.0);
            file 17 -> -  | $DO_LIGHTS$
            file 18 -> runtime 34  |     gl_FragColor = color;
            file 19 -> runtime 35  | }
        "#]]
        .assert_eq(&table(&map, PHONG));
        assert_inverse(&map, PHONG, &runtime);
        // The generated lines come from no file line.
        for line in 22..=33 {
            assert_eq!(map.runtime_to_file(line), None, "runtime line {line}");
        }
    }

    #[test]
    fn breakpoint_on_a_replaced_placeholder_moves_to_the_next_surviving_line() {
        let map = SourceMap::new(&phong_runtime(), PHONG);
        assert_eq!(
            map.bind_breakpoint(17),
            Some(BoundLine {
                file_line: 18,
                runtime_line: 34,
                moved: true
            })
        );
        assert_eq!(
            map.bind_breakpoint(16),
            Some(BoundLine {
                file_line: 16,
                runtime_line: 21,
                moved: false
            })
        );
    }

    #[test]
    fn breakpoint_on_a_line_removed_at_the_end_of_the_file() {
        // The application drops the file's last line (its placeholder expands to
        // nothing) and, in the second case, a helper function at the end.
        let file = "\
uniform vec4 color;

void main()
{
    gl_FragColor = color;
}
$EPILOGUE$
";
        let runtime = file.replace("$EPILOGUE$\n", "");
        let map = SourceMap::new(&runtime, file);
        assert!(map.is_match());
        assert_eq!(
            map.bind_breakpoint(7),
            Some(BoundLine {
                file_line: 6,
                runtime_line: 6,
                moved: true
            })
        );

        let helper = "\nfloat debug_level(float x)\n{\n    return x * 0.5;\n}\n";
        let file = format!("{runtime}{helper}");
        let map = SourceMap::new(&runtime, &file);
        assert!(map.is_match());
        assert_eq!(map.file_to_runtime(9), None);
        assert_eq!(map.bind_breakpoint(9), None, "inside the removed helper");
        assert_eq!(map.bind_breakpoint(8), None);
    }

    #[test]
    fn unrelated_shader_does_not_match() {
        let file = "\
uniform sampler2D tex;
varying vec2 uv;

void main()
{
    vec4 c = texture2D(tex, uv);
    gl_FragColor = vec4(c.rgb * c.a, c.a);
}
";
        let runtime = "\
#version 100
precision mediump float;
varying vec2 uv;
uniform float time;

float wave(float x)
{
    return sin(x * 6.2831 + time);
}

void main()
{
    float w = wave(uv.x) * 0.5 + 0.5;
    gl_FragColor = vec4(w, w, w, 1.0);
}
";
        for (runtime, file) in [(runtime, file), (file, runtime)] {
            let map = SourceMap::new(runtime, file);
            assert!(!map.is_match(), "{file}");
            assert!(map.coverage() < 0.6, "{}", map.coverage());
        }
        // Only boilerplate in the file: still no match.
        let map = SourceMap::new(runtime, "void main()\n{\n}\n");
        assert!(!map.is_match());
        assert!(find_shaders_for_file(file, [(0, runtime)]).is_empty());
    }

    #[test]
    fn duplicate_braces_do_not_anchor_outside_the_aligned_region() {
        // A library of small functions prepended: full of `{` / `}` / `return`.
        let library: String = (0..20)
            .map(|i| format!("float lib{i}(float x)\n{{\n    return x;\n}}\n\n"))
            .collect();
        let file = "void main()\n{\n    return;\n}\n";
        let file = format!("uniform float level;\n{file}");
        let runtime = format!("{library}{file}");
        let map = SourceMap::new(&runtime, &file);
        assert!(map.is_match());
        let offset = library.lines().count() as u32;
        for line in 1..=5 {
            assert_eq!(map.file_to_runtime(line), Some(line + offset));
        }
        for line in 1..=offset {
            assert_eq!(map.runtime_to_file(line), None, "library line {line}");
        }

        // Braces alone anchor nothing.
        let map = SourceMap::new(&library, "{\n}\n}\n");
        assert!(!map.is_match());
        assert_eq!((1..=3).filter_map(|l| map.file_to_runtime(l)).count(), 0);
    }

    #[test]
    fn crlf_and_indentation_differences_still_match() {
        let runtime = "uniform vec4 color;  \nvoid main()\n{\n    float k = 2.0;\n    gl_FragColor = color * k;\n}\n";
        let file = "uniform vec4 color;\r\nvoid main()\r\n{\r\n\tfloat  k = 2.0;\r\n\tgl_FragColor = color * k; \r\n}\r\n";
        let map = SourceMap::new(runtime, file);
        assert!(map.is_match());
        assert_eq!(map.coverage(), 1.0);
        for line in 1..=6 {
            assert_eq!(map.file_to_runtime(line), Some(line));
        }
    }

    #[test]
    fn find_shaders_for_file_ranks_the_right_candidate_first() {
        let vertex = "\
attribute vec3 position;
attribute vec3 normal;
uniform mat4 ModelViewProjectionMatrix;
varying vec3 vertex_normal;
varying vec4 vertex_position;

void main(void)
{
    vertex_normal = normal;
    vertex_position = vec4(position, 1.0);
    gl_Position = ModelViewProjectionMatrix * vertex_position;
}
";
        // A close variant of PHONG (same declarations and helper, other main).
        let variant = PHONG
            .replace(
                "    vec4 color = vec4(0.0);\n",
                "    vec4 color = vec4(1.0);\n",
            )
            .replace("$DO_LIGHTS$\n", "    color *= 0.5;\n")
            .replace(
                "    gl_FragColor = color;\n",
                "    gl_FragColor = vec4(color.rgb, 1.0);\n",
            );
        let runtime = phong_runtime();
        let found = find_shaders_for_file(
            PHONG,
            [(10, vertex), (11, variant.as_str()), (12, runtime.as_str())],
        );
        let ids: Vec<usize> = found.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids.first(), Some(&12), "{ids:?}");
        assert!(!ids.contains(&10), "{ids:?}");
        assert_eq!(found[0].1.file_to_runtime(18), Some(34));
    }

    #[test]
    fn empty_inputs_never_panic() {
        for (runtime, file) in [
            ("", ""),
            ("", PHONG),
            (PHONG, ""),
            ("\n\n", "\n"),
            ("}", ""),
        ] {
            let map = SourceMap::new(runtime, file);
            assert!(!map.is_match());
            assert_eq!(map.coverage(), 0.0);
            for line in 0..3 {
                assert_eq!(map.file_to_runtime(line), None);
                assert_eq!(map.runtime_to_file(line), None);
                assert_eq!(map.bind_breakpoint(line), None);
            }
        }
        assert!(find_shaders_for_file("", [(0, PHONG)]).is_empty());
        assert!(find_shaders_for_file(PHONG, []).is_empty());
    }

    #[test]
    fn comments_and_trivial_lines_are_classified() {
        let mut in_comment = false;
        let kinds: Vec<Kind> = [
            "",
            "  // note",
            "/* start",
            "   still comment",
            "end */",
            "x = 1; /* c */",
            "  };",
            "#endif",
            "else",
            "  $MAIN$",
            "float /* a */ y;",
        ]
        .iter()
        .map(|l| classify(l, &mut in_comment))
        .collect();
        use Kind::*;
        assert_eq!(
            kinds,
            [
                Blank,
                Comment,
                Comment,
                Comment,
                Comment,
                Code,
                Trivial,
                Trivial,
                Trivial,
                Placeholder,
                Code
            ]
        );
    }

    #[test]
    fn ten_thousand_lines_map() {
        let mut file = String::new();
        for i in 0..2000 {
            file.push_str(&format!(
                "float f{i}(float x)\n{{\n    float y = x * {i}.0;\n    return y + 1.0;\n}}\n"
            ));
            if i % 100 == 50 {
                file.push_str("$GENERATED$\n");
            }
        }
        let runtime = format!(
            "#version 100\nprecision mediump float;\n{}",
            file.replace("$GENERATED$\n", "    // generated\n    float g = 1.0;\n")
        );
        assert!(file.lines().count() >= 10_000);
        let map = SourceMap::new(&runtime, &file);
        assert!(map.is_match());
        assert_eq!(map.file_to_runtime(1), Some(3));
        let last = file.lines().count() as u32;
        assert_eq!(
            map.file_to_runtime(last),
            Some(runtime.lines().count() as u32)
        );
    }

    #[test]
    fn large_unrelated_texts_do_not_match() {
        let file: String = (0..10_000)
            .map(|i| match i % 3 {
                0 => "}\n".to_owned(),
                _ => format!("a{i} = b;\n"),
            })
            .collect();
        let runtime: String = (0..10_000)
            .map(|i| match i % 4 {
                0 => "}\n".to_owned(),
                _ => format!("c{i} = d;\n"),
            })
            .collect();
        let map = SourceMap::new(&runtime, &file);
        assert!(!map.is_match());
        assert_eq!(map.file_to_runtime(1), None);
    }
}
