//! GLSL documents: from the editor's text to the engine's parse and model,
//! and the engine's spans back to the document.
//!
//! What the engine parses is assembled like an application assembles a shader:
//! the document's `$NAME$` placeholders filled in (settings `placeholders`), the
//! configured header put after its `#version` line (or first), `#include`s
//! expanded from open buffers first, then from disk (relative to the including
//! file, then the configured include paths). [`DocMap`] maps offsets of the
//! assembled text back to the document, or to the `#include` line that brought
//! them in.
//!
//! The engine stops at the first syntax error. To say more and to keep the
//! editor's features working on half-typed code, [`analyze`] blanks the
//! statement around a syntax error (spaces, so no offset moves), closes braces
//! left open at the end, and parses again, a few times: every syntax error
//! found on the way is reported, and the last parse (a *recovered* tree) serves
//! the semantic analysis and the queries. Semantic errors about names that only
//! a blanked statement mentioned are left out.

pub mod features;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use shaderdbg_glsl::analysis::Model;
use shaderdbg_glsl::ide::{Index, Macros};
use shaderdbg_glsl::parse::{parse_text, IncludeResolver, Origin, Parsed, SourceText};
use shaderdbg_glsl::{Severity, Span, Stage};
use tower_lsp_server::gen_lsp_types::DiagnosticSeverity;

use crate::config::Resolved;
use crate::line_index::LineIndex;
use crate::Diag;

/// A stage from a setting or pragma (`frag`, `fragment`, ...).
pub fn parse_stage(s: &str) -> Option<Stage> {
    let s = s.trim().to_ascii_lowercase();
    Stage::from_extension(&s).or(match s.as_str() {
        "vertex" => Some(Stage::Vertex),
        "fragment" | "pixel" => Some(Stage::Fragment),
        "geometry" => Some(Stage::Geometry),
        "tesscontrol" | "tess_control" | "tessellation control" => Some(Stage::TessControl),
        "tesseval" | "tess_eval" | "tessevaluation" | "tessellation evaluation" => {
            Some(Stage::TessEvaluation)
        }
        "compute" => Some(Stage::Compute),
        _ => None,
    })
}

/// `#pragma shaderdbg stage(frag)` (also `stage frag`, `stage=frag`).
fn pragma_stage(text: &str) -> Option<Stage> {
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("pragma") else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("shaderdbg") else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("stage") else {
            continue;
        };
        let arg: String = rest
            .chars()
            .filter(|c| !matches!(c, '(' | ')' | '=' | ' ' | '\t' | '\r'))
            .collect();
        if let Some(s) = parse_stage(&arg) {
            return Some(s);
        }
    }
    None
}

/// The stage of a document: pragma, then file extension (`x.frag`,
/// `x.frag.glsl`), then the `defaultStage` setting, then a guess from the text
/// (`gl_FragColor`, ... as glmark2 guesses; fragment when nothing tells).
pub fn detect_stage(path: Option<&Path>, text: &str, settings: &Resolved) -> Stage {
    if let Some(s) = pragma_stage(text) {
        return s;
    }
    if let Some(name) = path.and_then(|p| p.file_name()).and_then(|n| n.to_str()) {
        let mut parts = name.rsplit('.');
        let last = parts.next();
        let before = parts.next();
        for ext in [last, before].into_iter().flatten() {
            if let Some(s) = Stage::from_extension(&ext.to_ascii_lowercase()) {
                return s;
            }
        }
    }
    if let Some(s) = settings
        .config
        .default_stage
        .as_deref()
        .and_then(parse_stage)
    {
        return s;
    }
    let has = |w: &str| text.contains(w);
    if has("gl_FragColor") || has("gl_FragData") || has("gl_FragCoord") || has("discard") {
        Stage::Fragment
    } else if has("gl_Position") || has("attribute ") {
        Stage::Vertex
    } else if has("local_size_x") || has("gl_GlobalInvocationID") {
        Stage::Compute
    } else if has("EmitVertex") {
        Stage::Geometry
    } else {
        Stage::Fragment
    }
}

// ---- placeholders -----------------------------------------------------------

/// Placeholder replacements: offsets of the document <-> of the filled-in text.
#[derive(Clone, Debug, Default)]
pub struct Subst {
    /// (document range, filled-in range), in order.
    edits: Vec<((usize, usize), (usize, usize))>,
}

impl Subst {
    /// Fills in `$NAME$` placeholders.
    pub fn apply(text: &str, settings: &Resolved) -> (String, Subst) {
        let cfg = &settings.config;
        if (cfg.placeholders.is_empty() && cfg.placeholder_default.is_none()) || !text.contains('$')
        {
            return (text.to_string(), Subst::default());
        }
        let b = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut edits = Vec::new();
        let mut last = 0;
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'$' {
                let mut j = i + 1;
                while j < b.len() && crate::text::is_ident_byte(b[j]) {
                    j += 1;
                }
                if j > i + 1 && j < b.len() && b[j] == b'$' {
                    let name = &text[i + 1..j];
                    let with = cfg
                        .placeholders
                        .get(name)
                        .or(cfg.placeholder_default.as_ref());
                    if let Some(with) = with {
                        out.push_str(&text[last..i]);
                        let eff_start = out.len();
                        out.push_str(with);
                        edits.push(((i, j + 1), (eff_start, out.len())));
                        last = j + 1;
                        i = j + 1;
                        continue;
                    }
                }
            }
            i += 1;
        }
        out.push_str(&text[last..]);
        (out, Subst { edits })
    }

    pub fn eff_to_doc(&self, e: usize) -> usize {
        let k = self.edits.partition_point(|(_, eff)| eff.0 <= e);
        match k.checked_sub(1).map(|k| self.edits[k]) {
            None => e,
            Some((doc, eff)) if e < eff.1 => doc.0,
            Some((doc, eff)) => e - eff.1 + doc.1,
        }
    }

    pub fn doc_to_eff(&self, d: usize) -> usize {
        let k = self.edits.partition_point(|(doc, _)| doc.0 <= d);
        match k.checked_sub(1).map(|k| self.edits[k]) {
            None => d,
            Some((doc, eff)) if d < doc.1 => eff.0,
            Some((doc, eff)) => d - doc.1 + eff.1,
        }
    }
}

// ---- offset map ---------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
enum SegKind {
    /// Part of the document; `base` is where its source string starts in the
    /// filled-in document text.
    Doc {
        base: usize,
    },
    Header,
    /// An included file (index into `DocMap::files`), brought in by the
    /// document's `#include` line at this filled-in offset (`None`: by the header).
    Include(usize, Option<usize>),
}

#[derive(Clone, Debug)]
struct Seg {
    text_start: usize,
    len: usize,
    kind: SegKind,
    origin_start: usize,
}

/// A file an analysis included.
#[derive(Clone, Debug)]
pub struct IncludedFile {
    pub path: PathBuf,
    pub text: Arc<String>,
    pub lines: Arc<LineIndex>,
}

/// Where an offset of the assembled text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Doc(usize),
    /// In an included file (index into [`DocMap::files`]) at this offset.
    Include(usize, usize),
    Header(usize),
}

/// Offsets of the engine's text <-> the document (and included files).
#[derive(Clone, Debug, Default)]
pub struct DocMap {
    segs: Vec<Seg>,
    subst: Subst,
    pub files: Vec<IncludedFile>,
    text_len: usize,
}

impl DocMap {
    /// `sites`: for each included file in the order the resolver was asked
    /// for them, the document's own `#include` line that led to it.
    fn new(
        source: &SourceText,
        version_split: usize,
        subst: Subst,
        sites: &[Option<usize>],
    ) -> DocMap {
        let mut files: Vec<IncludedFile> = Vec::new();
        let mut segs = Vec::new();
        // Include origins in order (the same file included twice is two origins).
        let include_origins: Vec<*const Origin> = source
            .origins()
            .filter(|(o, _)| matches!(o, Origin::Include(_)))
            .map(|(o, _)| o as *const Origin)
            .collect();
        for p in source.pieces() {
            let kind = match p.origin {
                Origin::String(0) => SegKind::Doc { base: 0 },
                Origin::String(2) => SegKind::Doc {
                    base: version_split,
                },
                Origin::String(_) => SegKind::Header,
                Origin::Include(name) => {
                    let path = PathBuf::from(name);
                    let idx = match files.iter().position(|f| f.path == path) {
                        Some(i) => i,
                        None => {
                            let text = source
                                .origins()
                                .find(|(o, _)| *o == p.origin)
                                .map_or_else(String::new, |(_, t)| t.to_string());
                            files.push(IncludedFile {
                                lines: Arc::new(LineIndex::new(&text)),
                                text: Arc::new(text),
                                path,
                            });
                            files.len() - 1
                        }
                    };
                    let k = include_origins
                        .iter()
                        .position(|&o| std::ptr::eq(o, p.origin));
                    SegKind::Include(idx, k.and_then(|k| sites.get(k).copied().flatten()))
                }
            };
            segs.push(Seg {
                text_start: p.text_start,
                len: p.len,
                kind,
                origin_start: p.origin_start,
            });
        }
        DocMap {
            segs,
            subst,
            files,
            text_len: source.text.len(),
        }
    }

    fn seg_index(&self, t: usize) -> Option<usize> {
        let k = self.segs.partition_point(|s| s.text_start <= t);
        let k = k.checked_sub(1)?;
        // An offset just past a segment's end still belongs to it (span ends).
        (t <= self.segs[k].text_start + self.segs[k].len).then_some(k)
    }

    /// Where an offset of the assembled text comes from.
    pub fn place(&self, t: usize) -> Option<Place> {
        let seg = &self.segs[self.seg_index(t)?];
        let in_origin = seg.origin_start + (t - seg.text_start);
        Some(match seg.kind {
            SegKind::Doc { base } => Place::Doc(self.subst.eff_to_doc(base + in_origin)),
            SegKind::Header => Place::Header(in_origin),
            SegKind::Include(f, _) => Place::Include(f, in_origin),
        })
    }

    /// A span of the assembled text as a range of one origin.
    pub fn span_place(&self, span: Span) -> Option<(Place, usize)> {
        let k = self.seg_index(span.start)?;
        let seg = &self.segs[k];
        let end = span.end.clamp(span.start, seg.text_start + seg.len);
        let start = self.place(span.start)?;
        let in_origin_end = seg.origin_start + (end - seg.text_start);
        let end = match seg.kind {
            SegKind::Doc { base } => self.subst.eff_to_doc(base + in_origin_end),
            _ => in_origin_end,
        };
        Some((start, end))
    }

    /// A span as a document range, if it is in the document.
    pub fn span_to_doc(&self, span: Span) -> Option<(usize, usize)> {
        match self.span_place(span)? {
            (Place::Doc(s), e) => Some((s, e.max(s))),
            _ => None,
        }
    }

    /// The offset in the assembled text of a document offset.
    pub fn to_text(&self, doc: usize) -> Option<usize> {
        let eff = self.subst.doc_to_eff(doc);
        let mut best = None;
        for s in &self.segs {
            if let SegKind::Doc { base } = s.kind {
                let start = base + s.origin_start;
                if eff >= start && eff <= start + s.len {
                    best = Some(s.text_start + (eff - start));
                    if eff < start + s.len {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The offset in the assembled text of an offset of the header string.
    pub fn header_to_text(&self, h: usize) -> Option<usize> {
        self.segs.iter().find_map(|s| match s.kind {
            SegKind::Header if h >= s.origin_start && h <= s.origin_start + s.len => {
                Some(s.text_start + h - s.origin_start)
            }
            _ => None,
        })
    }

    /// For an offset in the header or an included file: the document offset of
    /// the line that brought it in (the `#include` line; 0 for the header).
    pub fn include_site(&self, t: usize) -> usize {
        match self.seg_index(t).map(|k| &self.segs[k].kind) {
            Some(SegKind::Include(_, Some(site))) => self.subst.eff_to_doc(*site),
            _ => 0,
        }
    }

    /// The file the document's `#include` line starting at `line_start` (a
    /// document offset) brought in.
    pub fn included_by_line(&self, line_start: usize) -> Option<&IncludedFile> {
        let eff = self.subst.doc_to_eff(line_start);
        self.segs.iter().find_map(|s| match s.kind {
            SegKind::Include(f, Some(site)) if site == eff => self.files.get(f),
            _ => None,
        })
    }

    /// The offset in the assembled text of offset `off` of the included file
    /// with this path (its first inclusion).
    pub fn file_to_text(&self, path: &Path, off: usize) -> Option<usize> {
        let f = self.files.iter().position(|f| f.path == path)?;
        self.segs.iter().find_map(|s| match s.kind {
            SegKind::Include(g, _)
                if g == f && off >= s.origin_start && off <= s.origin_start + s.len =>
            {
                Some(s.text_start + off - s.origin_start)
            }
            _ => None,
        })
    }

    pub fn text_len(&self) -> usize {
        self.text_len
    }
}

// ---- includes -----------------------------------------------------------------

/// Lexically normalised path (`a/./b/../c` -> `a/c`).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

struct Resolver<'a> {
    doc_dir: Option<PathBuf>,
    dirs: &'a [PathBuf],
    /// Directories of the includers that give the document its context.
    context_dirs: Vec<PathBuf>,
    open: &'a HashMap<PathBuf, Arc<String>>,
    max_size: usize,
    /// Every call: (path as written, from the document itself, resolved path).
    calls: RefCell<Vec<(String, bool, Option<PathBuf>)>>,
}

impl IncludeResolver for Resolver<'_> {
    fn resolve(&self, path: &str, includer: Option<&str>) -> Result<(String, String), String> {
        let mut candidates = Vec::new();
        match includer {
            Some(file) => {
                if let Some(dir) = Path::new(file).parent() {
                    candidates.push(dir.join(path));
                }
            }
            None => {
                if let Some(dir) = &self.doc_dir {
                    candidates.push(dir.join(path));
                }
            }
        }
        if includer.is_none() {
            candidates.extend(self.context_dirs.iter().map(|d| d.join(path)));
        }
        candidates.extend(self.dirs.iter().map(|d| d.join(path)));
        if Path::new(path).is_absolute() {
            candidates = vec![PathBuf::from(path)];
        }
        let mut result = Err(format!(
            "not found (looked in {})",
            candidates
                .iter()
                .filter_map(|c| c.parent())
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if candidates.is_empty() {
            result =
                Err("not found (an unsaved document has no directory; set includePaths)".into());
        }
        for c in candidates {
            let c = normalize(&c);
            if let Some(text) = self.open.get(&c) {
                result = Ok((c.display().to_string(), text.to_string()));
                break;
            }
            match std::fs::metadata(&c) {
                Ok(m) if m.is_file() => {
                    if m.len() as usize > self.max_size {
                        result = Err(format!("{}: too large ({} bytes)", c.display(), m.len()));
                        break;
                    }
                    result = match std::fs::read(&c) {
                        Ok(bytes) => Ok((
                            c.display().to_string(),
                            String::from_utf8_lossy(&bytes).into_owned(),
                        )),
                        Err(e) => Err(format!("{}: {e}", c.display())),
                    };
                    break;
                }
                _ => {}
            }
        }
        self.calls.borrow_mut().push((
            path.to_string(),
            includer.is_none(),
            result.as_ref().ok().map(|(n, _)| PathBuf::from(n)),
        ));
        result
    }
}

/// The document offsets of its own `#include` lines: (line start, line end, path).
fn include_lines(text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('#') {
            if let Some(arg) = rest.trim_start().strip_prefix("include") {
                let arg = arg.split("//").next().unwrap_or(arg).trim();
                let inner = arg
                    .strip_prefix('"')
                    .and_then(|a| a.strip_suffix('"'))
                    .or_else(|| arg.strip_prefix('<').and_then(|a| a.strip_suffix('>')));
                if let Some(p) = inner {
                    out.push((off, off + line.trim_end().len(), p.to_string()));
                }
            }
        }
        off += line.len();
    }
    out
}

// ---- include-only documents ------------------------------------------------------

/// The files that include a file directly, with their texts.
pub type IncludersOf<'a> = dyn Fn(&Path) -> Vec<(PathBuf, Arc<String>)> + 'a;

/// A piece of an includer's text in a [`Context`] header.
#[derive(Clone, Debug)]
pub struct ContextPiece {
    /// Where it starts in the context header.
    pub at: usize,
    pub len: usize,
    pub file: IncludedFile,
    /// Where it starts in the file.
    pub file_start: usize,
}

/// What an include-only document is analysed after: the text of the files
/// that include it up to their `#include` of it (outermost first), with the
/// configured header after the outermost one's `#version`. It is given to
/// the engine as the header string.
#[derive(Clone, Debug)]
pub struct Context {
    /// The file that includes the document (the innermost includer).
    pub includer: PathBuf,
    /// Every file of the chain (to re-analyse when one changes).
    pub files: Vec<PathBuf>,
    pub text: String,
    pub pieces: Vec<ContextPiece>,
    pub stage: Stage,
    /// Directories `#include`s in the context are resolved in.
    pub dirs: Vec<PathBuf>,
}

impl Context {
    /// A context header offset as (file, offset in it).
    pub fn place(&self, h: usize) -> Option<(&IncludedFile, usize)> {
        self.pieces
            .iter()
            .find(|p| h >= p.at && h <= p.at + p.len)
            .map(|p| (&p.file, p.file_start + h - p.at))
    }

    /// A file offset as an offset of the engine's text.
    pub fn to_text(&self, path: &Path, off: usize, map: &DocMap) -> Option<usize> {
        let p = self
            .pieces
            .iter()
            .find(|p| p.file.path == path && off >= p.file_start && off <= p.file_start + p.len)?;
        map.header_to_text(p.at + off - p.file_start)
    }

    /// The context of the document at `path`, from the files that include it
    /// directly (`includers_of` answers with their paths and texts), following
    /// includers that are include-only themselves up to a file with
    /// `#version` (at most 8 levels). The first includer in path order wins.
    pub fn build(path: &Path, includers_of: &IncludersOf, settings: &Resolved) -> Option<Context> {
        // (file, text, end of the prefix), innermost first.
        let mut chain: Vec<(PathBuf, Arc<String>, usize)> = Vec::new();
        let mut cur = path.to_path_buf();
        for _ in 0..8 {
            let mut cands = includers_of(&cur);
            cands.sort_by(|a, b| a.0.cmp(&b.0));
            let found = cands.into_iter().find_map(|(p, text)| {
                if p == path || chain.iter().any(|c| c.0 == p) {
                    return None;
                }
                let line = include_line_of(&p, &text, &cur, settings)?;
                Some((p, text, line))
            });
            let Some((p, text, line)) = found else { break };
            let done = has_version(&text);
            cur = p.clone();
            chain.push((p, text, line));
            if done {
                break;
            }
        }
        if chain.is_empty() {
            return None;
        }
        let includer = chain[0].0.clone();
        chain.reverse();
        let stage = detect_stage(Some(&chain[0].0), &chain[0].1, settings);
        let mut ctx = Context {
            includer,
            files: chain.iter().map(|c| c.0.clone()).collect(),
            text: String::new(),
            pieces: Vec::new(),
            stage,
            dirs: chain
                .iter()
                .filter_map(|c| c.0.parent().map(Path::to_path_buf))
                .collect(),
        };
        for (i, (p, text, end)) in chain.iter().enumerate() {
            let file = IncludedFile {
                path: p.clone(),
                lines: Arc::new(LineIndex::new(text)),
                text: text.clone(),
            };
            let split = if i == 0 {
                version_split(text).min(*end)
            } else {
                0
            };
            let push = |ctx: &mut Context, s: usize, e: usize| {
                if e > s {
                    ctx.pieces.push(ContextPiece {
                        at: ctx.text.len(),
                        len: e - s,
                        file: file.clone(),
                        file_start: s,
                    });
                    ctx.text.push_str(&text[s..e]);
                }
            };
            push(&mut ctx, 0, split);
            if i == 0 {
                ctx.text.push_str(&settings.header);
                if !ctx.text.is_empty() && !ctx.text.ends_with('\n') {
                    ctx.text.push('\n');
                }
            }
            push(&mut ctx, split, *end);
        }
        Some(ctx)
    }
}

/// Whether a text has a `#version` directive.
pub fn has_version(text: &str) -> bool {
    text.lines().any(|l| {
        l.trim_start()
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with("version"))
    })
}

/// Whether a text defines `main` (a whole shader rather than a piece).
fn defines_main(text: &str) -> bool {
    text.match_indices("main").any(|(i, _)| {
        let b = text.as_bytes();
        let before = i == 0 || !crate::text::is_ident_byte(b[i - 1]);
        let after = text[i + 4..].trim_start().starts_with('(');
        before && after
    })
}

/// Where the `#include` line of `target` in `text` (the file `path`) starts.
fn include_line_of(path: &Path, text: &str, target: &Path, settings: &Resolved) -> Option<usize> {
    let dir = path.parent();
    include_lines(text).into_iter().find_map(|(s, _, inc)| {
        let hit = dir
            .map(|d| d.join(&inc))
            .into_iter()
            .chain(settings.include_dirs.iter().map(|d| d.join(&inc)))
            .any(|c| normalize(&c) == target);
        hit.then_some(s)
    })
}

/// The files a text includes directly (resolved like the analysis does, by
/// path only): for the workspace's include graph.
pub fn direct_includes(path: &Path, text: &str, settings: &Resolved) -> Vec<PathBuf> {
    let dir = path.parent();
    let mut out = Vec::new();
    for (_, _, inc) in include_lines(text) {
        let cands = dir
            .map(|d| d.join(&inc))
            .into_iter()
            .chain(settings.include_dirs.iter().map(|d| d.join(&inc)));
        for c in cands {
            let c = normalize(&c);
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

// ---- the analysis -------------------------------------------------------------

/// A parsed and analysed version of a document.
pub struct Tree {
    /// The document text it was made from.
    pub text: Arc<String>,
    pub parsed: Parsed,
    pub model: Model,
    pub index: Index,
    pub map: DocMap,
    /// Some statements were blanked to get it parsed.
    pub recovered: bool,
    /// `references` of the model sorted by span start.
    pub refs_sorted: Vec<(Span, usize)>,
    /// The span of each declaration's name (the model keeps the whole
    /// declaration for parameters).
    pub decl_names: Vec<Span>,
    /// `#define`s and macro uses in the engine's text.
    pub macros: Macros,
    /// The includers' text it was analysed after (an include-only document).
    pub context: Option<Arc<Context>>,
}

impl Tree {
    fn new(text: Arc<String>, parsed: Parsed, map: DocMap, recovered: bool) -> Tree {
        let model = Model::analyze(&parsed);
        let index = Index::build(&parsed);
        let mut refs_sorted = model.references.clone();
        refs_sorted.sort_by_key(|(s, _)| (s.start, s.end));
        let src = &parsed.source.text;
        let decl_names = model
            .decls
            .iter()
            .map(|d| name_span(src, d.span, &d.name))
            .collect();
        let macros = Macros::scan(src);
        Tree {
            text,
            parsed,
            model,
            index,
            map,
            recovered,
            refs_sorted,
            decl_names,
            macros,
            context: None,
        }
    }
}

/// The span of `name` within `span` (the last occurrence as a whole word).
fn name_span(src: &str, span: Span, name: &str) -> Span {
    let Some(s) = src.get(span.start..span.end.min(src.len())) else {
        return span;
    };
    if s == name {
        return span;
    }
    let b = s.as_bytes();
    for (i, _) in s.rmatch_indices(name) {
        let before_ok = i == 0 || !crate::text::is_ident_byte(b[i - 1]);
        let after = i + name.len();
        let after_ok = after >= b.len() || !crate::text::is_ident_byte(b[after]);
        if before_ok && after_ok {
            return Span::new(span.start + i, name.len());
        }
    }
    span
}

/// What one analysis produced.
pub struct Output {
    pub diags: Vec<Diag>,
    /// A parse of this version (possibly recovered); `None` if nothing parsed.
    pub tree: Option<Arc<Tree>>,
    /// The files it included (to re-analyse when they change).
    pub includes: Vec<PathBuf>,
    pub stage: Stage,
}

pub struct Input<'a> {
    pub path: Option<&'a Path>,
    pub text: Arc<String>,
    pub settings: &'a Resolved,
    pub open: &'a HashMap<PathBuf, Arc<String>>,
    /// For an include-only document: the includers' text to analyse it after.
    pub context: Option<&'a Context>,
    /// Polled between parse attempts: a newer version makes this one moot.
    pub cancelled: &'a (dyn Fn() -> bool + Sync),
}

/// Where `#version` ends (the start of the line after it), if the text has one
/// before anything else.
fn version_split(text: &str) -> usize {
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") {
            off += line.len();
            continue;
        }
        let is_version = t
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with("version"));
        return if is_version { off + line.len() } else { 0 };
    }
    0
}

/// Where to blank around a syntax error at `e` of `work`: the statement (from
/// after the previous `;`, `{` or `}` to the next `;`, or before the next
/// brace), not crossing preprocessor lines.
fn blank_range(work: &str, e: usize) -> Option<(usize, usize)> {
    let b = work.as_bytes();
    let e = e.min(b.len());
    let line_is_directive = |at: usize| {
        let ls = work[..at].rfind('\n').map_or(0, |i| i + 1);
        work[ls..].trim_start().starts_with('#')
    };
    let mut start = e;
    while start > 0 {
        let c = b[start - 1];
        if c == b';' || c == b'{' || c == b'}' {
            break;
        }
        if c == b'\n' && line_is_directive(start - 1) {
            break;
        }
        start -= 1;
    }
    let mut end = e;
    while end < b.len() {
        let c = b[end];
        if c == b';' {
            end += 1;
            break;
        }
        if c == b'{' || c == b'}' {
            break;
        }
        if c == b'\n' && end + 1 < b.len() && work[end + 1..].trim_start().starts_with('#') {
            break;
        }
        end += 1;
    }
    if work[start..end].trim().is_empty() {
        // Nothing but a stray brace (or nothing at all) there: blank the
        // character at the error itself.
        if e < b.len() && matches!(b[e], b'{' | b'}' | b')' | b']' | b'(' | b'[' | b',') {
            return Some((e, e + 1));
        }
        return None;
    }
    Some((start, end))
}

fn blank(work: &mut String, (s, e): (usize, usize)) {
    let replaced: String = work[s..e]
        .chars()
        .map(|c| {
            if c == '\n' {
                "\n".to_string()
            } else {
                " ".repeat(c.len_utf8())
            }
        })
        .collect();
    work.replace_range(s..e, &replaced);
}

/// `{` minus `}` outside comments.
fn open_braces(text: &str) -> i64 {
    let b = text.as_bytes();
    let mut depth = 0i64;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        match b[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    depth
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::Error,
        Severity::Warning => DiagnosticSeverity::Warning,
    }
}

/// Turns an engine diagnostic into a document diagnostic (at the `#include`
/// line for one in an included file, at the start for one in the header).
fn place_diag(map: &DocMap, doc: &str, span: Span, sev: DiagnosticSeverity, message: &str) -> Diag {
    let widen = |s: usize, e: usize, text: &str| -> (usize, usize) {
        if e > s {
            return (s, e);
        }
        match text[s.min(text.len())..].chars().next() {
            Some(c) if c != '\n' && c != '\r' => (s, s + c.len_utf8()),
            _ => (s, e),
        }
    };
    match map.span_place(span) {
        Some((Place::Doc(s), e)) => {
            let (s, e) = widen(s, e.max(s), doc);
            Diag::new(s, e, sev, message.to_string())
        }
        Some((Place::Include(f, s), e)) => {
            let file = &map.files[f];
            let site = map.include_site(span.start).min(doc.len());
            let line_end = doc[site..].find('\n').map_or(doc.len(), |n| site + n);
            let (s, e) = widen(s, e.max(s), &file.text);
            let pos = file.lines.position(&file.text, s);
            let mut d = Diag::new(
                site,
                line_end,
                sev,
                format!("in {}:{}: {message}", file.path.display(), pos.line + 1),
            );
            d.related.push((
                file.path.clone(),
                file.lines.range(&file.text, s, e),
                message.to_string(),
            ));
            d
        }
        Some((Place::Header(_), _)) | None => {
            Diag::new(0, 0, sev, format!("in the configured header: {message}"))
        }
    }
}

/// How a document is analysed.
#[derive(Clone, Copy)]
enum Mode<'a> {
    /// A shader of its own.
    Whole,
    /// An include-only document after its includers' text.
    InContext(&'a Context),
    /// An include-only document with no includer known: on its own, as GLSL
    /// 4.60 compatibility, with struct types it uses but does not declare
    /// stood in for, and errors about names declared elsewhere left out.
    Alone,
}

/// Whether a document is only meant to be included: no `#version`, and
/// either a known includer or no `main` and not a stage's file extension.
pub fn include_only(path: Option<&Path>, text: &str, has_includer: bool) -> bool {
    if has_version(text) {
        return false;
    }
    if has_includer {
        return true;
    }
    let stage_ext = path
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .is_some_and(|e| Stage::from_extension(&e.to_ascii_lowercase()).is_some());
    !stage_ext && !defines_main(text)
}

/// Parses and analyses a document.
pub fn analyze(input: &Input) -> Output {
    let doc = input.text.as_str();
    if crate::test_panics() {
        assert!(
            !doc.contains("shaderdbg_test_panic_analysis"),
            "test panic in the analysis"
        );
    }
    if !include_only(input.path, doc, input.context.is_some()) {
        return analyze_as(input, Mode::Whole);
    }
    if let Some(ctx) = input.context {
        let out = analyze_as(input, Mode::InContext(ctx));
        if out.tree.is_some() || (input.cancelled)() {
            return out;
        }
        // The includers' text does not parse: check the document alone.
    }
    analyze_as(input, Mode::Alone)
}

/// The type a syntax error suggests is a struct declared elsewhere:
/// `unexpected identifier `X`` at a type's place (`X name`), or after one.
fn unknown_type_name(text: &str, at: usize, message: &str) -> Option<String> {
    let rest = message.strip_prefix("unexpected identifier `")?;
    let name = &rest[..rest.find('`')?];
    let at = at.min(text.len());
    let after = text[at..].strip_prefix(name)?;
    let next_is_ident = after
        .trim_start()
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    if next_is_ident && after.starts_with(char::is_whitespace) {
        return Some(name.to_string());
    }
    // `Light l;`: the error is at `l`, the type before it.
    let before = text[..at].trim_end();
    let start = before
        .rfind(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .map_or(0, |i| i + 1);
    let prev = &before[start..];
    (crate::text::is_identifier(prev) && before.len() < at).then(|| prev.to_string())
}

fn analyze_as(input: &Input, mode: Mode) -> Output {
    let doc = input.text.as_str();
    let settings = input.settings;
    let stage = match mode {
        Mode::InContext(c) if pragma_stage(doc).is_none() => c.stage,
        _ => detect_stage(input.path, doc, settings),
    };
    // Struct names an include-only document uses without declaring.
    let mut stand_ins: Vec<String> = Vec::new();
    let make_header = |stand_ins: &[String]| -> String {
        match mode {
            // A Shadertoy-style body gets the uniforms the built-in host
            // declares for it (unless the settings give a header).
            Mode::Whole
                if settings.header.is_empty()
                    && shaderdbg_glsl::shadertoy::is_main_image_body(doc) =>
            {
                let mut h = String::new();
                if !has_version(doc) {
                    h.push_str(shaderdbg_glsl::shadertoy::DEFAULT_VERSION);
                    h.push('\n');
                }
                h.push_str(shaderdbg_glsl::shadertoy::UNIFORMS);
                h
            }
            Mode::Whole => settings.header.clone(),
            Mode::InContext(c) => c.text.clone(),
            Mode::Alone => {
                let mut h = String::new();
                if !has_version(&settings.header) {
                    h.push_str("#version 460 compatibility\n");
                }
                h.push_str(&settings.header);
                if !h.ends_with('\n') {
                    h.push('\n');
                }
                for n in stand_ins {
                    h.push_str(&format!("struct {n} {{ int _sdbg_stand_in; }};\n"));
                }
                h
            }
        }
    };
    let mut header = make_header(&stand_ins);
    let mut out = Output {
        diags: Vec::new(),
        tree: None,
        includes: Vec::new(),
        stage,
    };
    let max = settings.config.max_file_size();
    if doc.len() > max {
        out.diags.push(Diag::new(
            0,
            0,
            DiagnosticSeverity::Warning,
            format!(
                "not analysed: the file has {} bytes, more than maxFileSize ({max})",
                doc.len()
            ),
        ));
        return out;
    }
    let (filled, subst) = Subst::apply(doc, settings);
    let split = if header.is_empty() {
        0
    } else {
        version_split(&filled)
    };
    let resolver = Resolver {
        doc_dir: input.path.and_then(|p| p.parent()).map(Path::to_path_buf),
        dirs: &settings.include_dirs,
        context_dirs: match mode {
            Mode::InContext(c) => c.dirs.clone(),
            _ => Vec::new(),
        },
        open: input.open,
        max_size: max,
        calls: RefCell::new(Vec::new()),
    };
    let mut work = filled.clone();
    let mut blanked: Vec<(usize, usize)> = Vec::new();
    let mut include_failed = false;
    let mut closed_braces = 0usize;
    let attempts = if doc.len() > 256 << 10 { 4 } else { 12 }
        + if matches!(mode, Mode::Alone) { 16 } else { 0 };
    let mut parsed_tree = None;
    for _ in 0..attempts {
        if (input.cancelled)() {
            return out;
        }
        resolver.calls.borrow_mut().clear();
        let strings = [&work[..split], header.as_str(), &work[split..]];
        let source = match SourceText::new(&strings, Some(&resolver)) {
            Ok(s) => s,
            Err(d) => {
                // Which of the document's own `#include` lines led there: the
                // last one the resolver was asked about from the document.
                include_failed = true;
                let calls = resolver.calls.borrow();
                let top: Vec<&String> = calls
                    .iter()
                    .filter(|(_, top, _)| *top)
                    .map(|(p, _, _)| p)
                    .collect();
                let lines = include_lines(&work);
                let site = top.last().and_then(|last| {
                    let nth = top.iter().filter(|p| p == &last).count() - 1;
                    lines.iter().filter(|(_, _, p)| p == *last).nth(nth)
                });
                match site {
                    Some(&(s, e, _)) => {
                        let (ds, de) = (subst.eff_to_doc(s), subst.eff_to_doc(e));
                        out.diags.push(Diag::new(
                            ds,
                            de,
                            DiagnosticSeverity::Error,
                            d.message.clone(),
                        ));
                        blank(&mut work, (s, e));
                        blanked.push((s, e));
                        continue;
                    }
                    None => {
                        out.diags.push(Diag::new(
                            0,
                            0,
                            DiagnosticSeverity::Error,
                            d.message.clone(),
                        ));
                        break;
                    }
                }
            }
        };
        for (_, _, p) in resolver.calls.borrow().iter() {
            if let Some(p) = p {
                if !out.includes.contains(p) {
                    out.includes.push(p.clone());
                }
            }
        }
        // Which of the document's `#include` lines brought each file in: the
        // resolver is asked in the order the files are expanded (depth first),
        // and asked from a source string for the document's (and the header's)
        // own directives.
        let sites: Vec<Option<usize>> = {
            let pre = include_lines(&work[..split]).len();
            let in_header = include_lines(&header).len();
            let own = include_lines(&work);
            let mut ordinal: Option<usize> = None;
            let mut sites = Vec::new();
            for (_, top, _) in resolver.calls.borrow().iter() {
                if *top {
                    ordinal = Some(ordinal.map_or(0, |o| o + 1));
                }
                let site = ordinal.and_then(|o| {
                    if o < pre {
                        own.get(o).map(|l| l.0)
                    } else if o < pre + in_header {
                        None
                    } else {
                        own.get(o - in_header).map(|l| l.0)
                    }
                });
                sites.push(site);
            }
            sites
        };
        let map = DocMap::new(&source, split, subst.clone(), &sites);
        match parse_text(source, stage) {
            Ok(parsed) => {
                parsed_tree = Some((parsed, map));
                break;
            }
            Err(d) => {
                if let (Mode::Alone, Some(Place::Doc(at))) = (&mode, map.place(d.span.start)) {
                    let at = subst.doc_to_eff(at);
                    match unknown_type_name(&work, at, &d.message) {
                        Some(n) if stand_ins.len() < 16 && !stand_ins.contains(&n) => {
                            stand_ins.push(n);
                            header = make_header(&stand_ins);
                            continue;
                        }
                        _ => {}
                    }
                }
                let message = tidy_syntax_message(&d.message);
                let diag = place_diag(&map, doc, d.span, DiagnosticSeverity::Error, &message);
                let place = map.place(d.span.start);
                if !out.diags.contains(&diag) {
                    out.diags.push(diag);
                }
                let Some(Place::Doc(_)) = place else { break };
                // The error's offset in the filled-in text (`work`).
                let seg_eff = {
                    let Some(Place::Doc(doc_off)) = place else {
                        break;
                    };
                    subst.doc_to_eff(doc_off)
                };
                let at_end = work[seg_eff.min(work.len())..].trim().is_empty();
                let open = open_braces(&work);
                if at_end && open > 0 && closed_braces < 64 {
                    work.push_str(&"\n}".repeat(open as usize));
                    closed_braces += open as usize;
                    continue;
                }
                match blank_range(&work, seg_eff) {
                    Some(r) => {
                        blank(&mut work, r);
                        blanked.push(r);
                    }
                    None => break,
                }
            }
        }
    }
    let Some((parsed, map)) = parsed_tree else {
        return out;
    };
    if (input.cancelled)() {
        return out;
    }
    let recovered = !blanked.is_empty() || closed_braces > 0;
    let mut tree = Tree::new(input.text.clone(), parsed, map, recovered);
    if let Mode::InContext(c) = mode {
        tree.context = Some(Arc::new(c.clone()));
        for f in &c.files {
            if !out.includes.contains(f) {
                out.includes.push(f.clone());
            }
        }
    }
    // Names that only blanked text mentioned: errors about them are noise.
    let mut blanked_words: HashSet<&str> = HashSet::new();
    for &(s, e) in &blanked {
        for w in filled[s..e].split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
            if !w.is_empty() {
                blanked_words.insert(w);
            }
        }
    }
    for d in &tree.model.diagnostics {
        let in_doc = matches!(tree.map.place(d.span.start), Some(Place::Doc(_)));
        match mode {
            // The includers' own problems are theirs.
            Mode::InContext(_)
                if matches!(tree.map.place(d.span.start), Some(Place::Header(_))) =>
            {
                continue
            }
            Mode::Alone
                if !in_doc && matches!(tree.map.place(d.span.start), Some(Place::Header(_))) =>
            {
                continue
            }
            Mode::Alone
                if undeclared_name(&d.message).is_some()
                    || d.message.contains("_sdbg_stand_in")
                    || stand_ins.iter().any(|n| mentions(&d.message, n)) =>
            {
                continue
            }
            _ => {}
        }
        if let Some(name) = undeclared_name(&d.message) {
            // A name a missing include would have declared, or that only a
            // blanked statement declared.
            let in_doc = matches!(tree.map.place(d.span.start), Some(Place::Doc(_)));
            if (include_failed && in_doc) || blanked_words.contains(name) {
                continue;
            }
        }
        let diag = place_diag(&tree.map, doc, d.span, severity(d.severity), &d.message);
        if !out.diags.contains(&diag) {
            out.diags.push(diag);
        }
    }
    match mode {
        Mode::Whole => {}
        Mode::InContext(c) => out.diags.push(Diag::new(
            0,
            0,
            DiagnosticSeverity::Hint,
            format!(
                "checked as included by {} (an include-only file)",
                c.includer
                    .file_name()
                    .map_or_else(|| c.includer.display().to_string(), |n| n.to_string_lossy().into_owned())
            ),
        )),
        Mode::Alone => out.diags.push(Diag::new(
            0,
            0,
            DiagnosticSeverity::Information,
            "include-only file with no includer open or in the workspace: checked on its own as GLSL 4.60, without errors about names and types it uses but does not declare".into(),
        )),
    }
    out.diags.sort_by_key(|d| (d.start, d.end));
    out.tree = Some(Arc::new(tree));
    out
}

/// glsl-lang lists every token it would have accepted (dozens of texture
/// types after a `=`); say what was found and keep the list only when short.
fn tidy_syntax_message(msg: &str) -> String {
    const MAX: usize = 6;
    let count = |list: &str| list.split(", ").count() + list.matches(" or ").count();
    if let Some(rest) = msg.strip_prefix("expected one of ") {
        if let Some((list, got)) = rest.rsplit_once(", got ") {
            return if count(list) <= MAX {
                format!("unexpected {got}, expected one of {list}")
            } else {
                format!("unexpected {got}")
            };
        }
    }
    if let Some((head, list)) = msg.split_once(", expected ") {
        if count(list) > MAX {
            let what = if list.contains("literal") || list.contains("identifier") {
                "an expression"
            } else {
                "something else"
            };
            return format!("{head}, expected {what}");
        }
    }
    msg.to_string()
}

/// Whether a message names `name` (in backticks, or as the type of something).
fn mentions(message: &str, name: &str) -> bool {
    message.contains(&format!("`{name}`"))
        || message
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| w == name)
}

/// The name in "undeclared identifier `x`" / "undeclared function `x`".
fn undeclared_name(msg: &str) -> Option<&str> {
    let rest = msg.strip_prefix("undeclared ")?;
    let a = rest.find('`')?;
    let b = rest[a + 1..].find('`')?;
    Some(&rest[a + 1..a + 1 + b])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, settings: &Resolved) -> Output {
        let open = HashMap::new();
        analyze(&Input {
            path: Some(Path::new("/nonexistent/x.frag")),
            text: Arc::new(text.to_string()),
            settings,
            open: &open,
            context: None,
            cancelled: &|| false,
        })
    }

    fn show(text: &str, o: &Output) -> String {
        o.diags
            .iter()
            .map(|d| {
                format!(
                    "{}..{} `{}`: {}",
                    d.start,
                    d.end,
                    &text[d.start..d.end],
                    d.message
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn several_syntax_errors_and_a_tree() {
        let text = "#version 330 core\nout vec4 o;\nvoid main() {\n  float a = ;\n  vec3 b = vec3(1.0);\n  float c = b.x +;\n  o = vec4(b, a);\n  o = vec4(undefinedThing);\n}\n";
        let o = run(text, &Resolved::default());
        let shown = show(text, &o);
        assert!(o.tree.as_ref().unwrap().recovered);
        assert_eq!(o.diags.len(), 3, "{shown}");
        assert!(shown.contains("`;`"), "{shown}");
        assert!(shown.contains("undefinedThing"), "{shown}");
    }

    #[test]
    fn unclosed_braces_are_closed() {
        let text = "void main() {\n  float a = 1.0;\n  if (a > 0.0) {\n    a = 2.0;\n";
        let o = run(text, &Resolved::default());
        assert_eq!(o.diags.len(), 1, "{}", show(text, &o));
        assert!(o.tree.is_some());
    }

    #[test]
    fn header_and_placeholders() {
        let cfg = crate::config::Config {
            header: Some("#define SCALE 2.0\nconst float K = 1.0;\n".into()),
            placeholders: [("MAIN".to_string(), "x *= SCALE;".to_string())].into(),
            ..Default::default()
        };
        let settings = Resolved::new(cfg, None);
        let text = "#version 330 core\nout vec4 o;\nvoid main() {\n  float x = K;\n$MAIN$\n  o = vec4(x, oops, 0, 1);\n}\n";
        let o = run(text, &settings);
        let shown = show(text, &o);
        assert_eq!(
            shown,
            format!(
                "{0}..{1} `oops`: undeclared identifier `oops`",
                text.find("oops").unwrap(),
                text.find("oops").unwrap() + 4
            )
        );
        let tree = o.tree.unwrap();
        let at = tree.map.to_text(text.find("oops").unwrap()).unwrap();
        assert_eq!(&tree.parsed.source.text[at..at + 4], "oops");
        let after = tree.map.to_text(text.find("  o =").unwrap()).unwrap();
        assert_eq!(
            tree.map.place(after),
            Some(Place::Doc(text.find("  o =").unwrap()))
        );
    }

    #[test]
    fn stages() {
        let s = Resolved::default();
        assert_eq!(
            detect_stage(Some(Path::new("a.vert")), "", &s),
            Stage::Vertex
        );
        assert_eq!(
            detect_stage(Some(Path::new("a.comp.glsl")), "", &s),
            Stage::Compute
        );
        assert_eq!(
            detect_stage(
                Some(Path::new("a.glsl")),
                "#pragma shaderdbg stage(geom)\n",
                &s
            ),
            Stage::Geometry
        );
        assert_eq!(
            detect_stage(Some(Path::new("a.glsl")), "gl_Position = p;", &s),
            Stage::Vertex
        );
    }
}
