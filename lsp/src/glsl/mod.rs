//! GLSL documents: from the editor's text to the engine, and the engine's
//! results back to the document.
//!
//! What the engine parses is assembled like an application assembles a shader:
//! the document's `$NAME$` placeholders filled in (settings `placeholders`), the
//! configured header put after its `#version` line (or first), `#include`s
//! expanded from open buffers first, then from disk (relative to the including
//! file, then the configured include paths). The engine's
//! [`ide::parse_recovering`] parses it (repairing half-typed code) and places
//! each diagnostic in the text, the header or an included file; [`Tree`]
//! maps offsets back through the placeholders to the document.
//!
//! What is decided here is about files and settings: the stage, the header,
//! where includes come from, and for an include-only document what it is read
//! after ([`Context`]).

pub mod features;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use shaderdbg_glsl::ide;
use shaderdbg_glsl::parse::IncludeResolver;
use shaderdbg_glsl::{DiagnosticKind, Severity, Span, Stage};
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
    edits: Vec<Edit>,
}

type Edit = ((usize, usize), (usize, usize));

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
        self.through(e, |&(doc, eff)| (eff, doc))
    }

    pub fn doc_to_eff(&self, d: usize) -> usize {
        self.through(d, |&edit| edit)
    }

    /// An offset of one side through the edits; `sides` gives an edit's
    /// (from, to) ranges. Inside an edit: the start of the other side's.
    fn through(&self, o: usize, sides: impl Fn(&Edit) -> Edit) -> usize {
        let k = self.edits.partition_point(|e| sides(e).0 .0 <= o);
        match k.checked_sub(1).map(|k| sides(&self.edits[k])) {
            None => o,
            Some((from, to)) if o < from.1 => to.0,
            Some((from, to)) => o - from.1 + to.1,
        }
    }
}

// ---- offset map ---------------------------------------------------------------

/// A file an analysis included (or read for an include-only document's context).
#[derive(Clone, Debug)]
pub struct IncludedFile {
    pub path: PathBuf,
    pub text: Arc<String>,
    pub lines: Arc<LineIndex>,
}

impl IncludedFile {
    fn new(path: PathBuf, text: Arc<String>) -> IncludedFile {
        IncludedFile {
            lines: Arc::new(LineIndex::new(&text)),
            text,
            path,
        }
    }
}

/// Where an offset of the engine's text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Doc(usize),
    /// In an included file (index into [`Tree::files`]) at this offset.
    Include(usize, usize),
    Header(usize),
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

/// Why an `#include` could not be read.
#[derive(Debug, thiserror::Error)]
enum IncludeError {
    #[error("not found (looked in {0})")]
    NotFound(String),
    #[error("not found (an unsaved document has no directory; set includePaths)")]
    NoDirectory,
    #[error("{}: too large ({size} bytes)", path.display())]
    TooLarge { path: PathBuf, size: u64 },
    #[error("{}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// Finds included files: open buffers first, then the disk (relative to the
/// including file, the includers giving the document its context, the
/// configured include paths).
struct Resolver<'a> {
    doc_dir: Option<PathBuf>,
    dirs: &'a [PathBuf],
    /// Directories of the includers that give the document its context.
    context_dirs: &'a [PathBuf],
    open: &'a HashMap<PathBuf, Arc<String>>,
    max_size: usize,
}

impl Resolver<'_> {
    fn find(&self, path: &str, includer: Option<&str>) -> Result<(PathBuf, String), IncludeError> {
        let mut candidates = Vec::new();
        match includer {
            Some(file) => candidates.extend(Path::new(file).parent().map(|d| d.join(path))),
            None => {
                candidates.extend(self.doc_dir.as_ref().map(|d| d.join(path)));
                candidates.extend(self.context_dirs.iter().map(|d| d.join(path)));
            }
        }
        candidates.extend(self.dirs.iter().map(|d| d.join(path)));
        if Path::new(path).is_absolute() {
            candidates = vec![PathBuf::from(path)];
        }
        if candidates.is_empty() {
            return Err(IncludeError::NoDirectory);
        }
        let looked_in = candidates
            .iter()
            .filter_map(|c| c.parent())
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        for c in candidates {
            let c = normalize(&c);
            if let Some(text) = self.open.get(&c) {
                return Ok((c, text.to_string()));
            }
            match std::fs::metadata(&c) {
                Ok(m) if m.is_file() => {
                    if m.len() as usize > self.max_size {
                        return Err(IncludeError::TooLarge {
                            path: c,
                            size: m.len(),
                        });
                    }
                    return match std::fs::read(&c) {
                        Ok(bytes) => Ok((c, String::from_utf8_lossy(&bytes).into_owned())),
                        Err(error) => Err(IncludeError::Read { path: c, error }),
                    };
                }
                _ => {}
            }
        }
        Err(IncludeError::NotFound(looked_in))
    }
}

impl IncludeResolver for Resolver<'_> {
    fn resolve(
        &self,
        path: &str,
        includer: Option<&str>,
    ) -> Result<(String, String), shaderdbg_glsl::parse::IncludeError> {
        let (p, text) = self.find(path, includer)?;
        Ok((p.display().to_string(), text))
    }
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

    /// A file offset as an offset of the context header.
    pub fn header_offset(&self, path: &Path, off: usize) -> Option<usize> {
        let p = self
            .pieces
            .iter()
            .find(|p| p.file.path == path && off >= p.file_start && off <= p.file_start + p.len)?;
        Some(p.at + off - p.file_start)
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
            let done = ide::has_version(&text);
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
            let file = IncludedFile::new(p.clone(), text.clone());
            let split = if i == 0 {
                ide::version_split(text).min(*end)
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

/// Where the `#include` line of `target` in `text` (the file `path`) starts.
fn include_line_of(path: &Path, text: &str, target: &Path, settings: &Resolved) -> Option<usize> {
    let dir = path.parent();
    ide::include_lines(text)
        .into_iter()
        .find_map(|(s, _, inc)| {
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
    for (_, _, inc) in ide::include_lines(text) {
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

/// A parsed and analysed version of a document: the engine's analysis
/// ([`ide::Analysis`], which it derefs to) with the way back to the
/// document's offsets and the files it read.
pub struct Tree {
    /// The document text it was made from.
    pub text: Arc<String>,
    pub analysis: ide::Analysis,
    /// Placeholders filled in before the engine saw the text.
    subst: Subst,
    /// The files it included (as [`ide::SourceMap::files`], with line indexes).
    pub files: Vec<IncludedFile>,
    /// The includers' text it was analysed after (an include-only document).
    pub context: Option<Arc<Context>>,
}

impl std::ops::Deref for Tree {
    type Target = ide::Analysis;
    fn deref(&self) -> &ide::Analysis {
        &self.analysis
    }
}

impl Tree {
    fn new(text: Arc<String>, analysis: ide::Analysis, subst: Subst) -> Tree {
        let files = analysis
            .sources
            .files
            .iter()
            .map(|f| IncludedFile::new(f.path.clone(), f.text.clone()))
            .collect();
        Tree {
            text,
            analysis,
            subst,
            files,
            context: None,
        }
    }

    fn doc_place(&self, p: ide::Place) -> Place {
        match p {
            ide::Place::Text(o) => Place::Doc(self.subst.eff_to_doc(o)),
            ide::Place::Include(f, o) => Place::Include(f, o),
            ide::Place::Header(h) => Place::Header(h),
        }
    }

    /// Where an offset of the engine's text comes from.
    pub fn place(&self, t: usize) -> Option<Place> {
        self.sources.place(t).map(|p| self.doc_place(p))
    }

    /// A span of the engine's text as a range of one origin.
    pub fn span_place(&self, span: Span) -> Option<(Place, usize)> {
        let (start, end) = self.sources.span_place(span)?;
        let end = match start {
            ide::Place::Text(_) => self.subst.eff_to_doc(end),
            _ => end,
        };
        Some((self.doc_place(start), end))
    }

    /// A span as a document range, if it is in the document.
    pub fn span_to_doc(&self, span: Span) -> Option<(usize, usize)> {
        match self.span_place(span)? {
            (Place::Doc(s), e) => Some((s, e.max(s))),
            _ => None,
        }
    }

    /// The offset in the engine's text of a document offset.
    pub fn to_text(&self, doc: usize) -> Option<usize> {
        self.sources.from_text(self.subst.doc_to_eff(doc))
    }

    /// The file the document's `#include` line starting at `line_start` (a
    /// document offset) brought in.
    pub fn included_by_line(&self, line_start: usize) -> Option<&IncludedFile> {
        let f = self
            .sources
            .included_by_line(self.subst.doc_to_eff(line_start))?;
        self.files.iter().find(|g| g.path == f.path)
    }

    /// The offset in the engine's text of offset `off` of another file: an
    /// included one, or one of the includers of the context.
    pub fn file_to_text(&self, path: &Path, off: usize) -> Option<usize> {
        self.sources.from_file(path, off).or_else(|| {
            let h = self.context.as_ref()?.header_offset(path, off)?;
            self.sources.from_header(h)
        })
    }
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

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::Error,
        Severity::Warning => DiagnosticSeverity::Warning,
    }
}

/// An engine diagnostic as a document diagnostic (at the `#include` line for
/// one in an included file, at the start for one in the header).
fn place_diag(doc: &str, subst: &Subst, located: &ide::Located) -> Diag {
    let d = &located.diagnostic;
    let sev = severity(d.severity);
    let message = &d.message;
    let widen = |s: usize, e: usize, text: &str| -> (usize, usize) {
        if e > s {
            return (s, e);
        }
        match text[s.min(text.len())..].chars().next() {
            Some(c) if c != '\n' && c != '\r' => (s, s + c.len_utf8()),
            _ => (s, e),
        }
    };
    match &located.loc {
        ide::Loc::Text(s, e) => {
            let (s, e) = (subst.eff_to_doc(*s), subst.eff_to_doc(*e));
            // A missing include is reported on its whole line as it is.
            let (s, e) = if d.kind == DiagnosticKind::Include {
                (s, e)
            } else {
                widen(s, e.max(s), doc)
            };
            Diag::new(s, e, sev, message.clone())
        }
        ide::Loc::Include {
            file,
            start,
            end,
            site,
        } => {
            let lines = LineIndex::new(&file.text);
            let site = site.map_or(0, |s| subst.eff_to_doc(s)).min(doc.len());
            let line_end = doc[site..].find('\n').map_or(doc.len(), |n| site + n);
            let (s, e) = widen(*start, (*end).max(*start), &file.text);
            let pos = lines.position(&file.text, s);
            let mut diag = Diag::new(
                site,
                line_end,
                sev,
                format!("in {}:{}: {message}", file.path.display(), pos.line + 1),
            );
            diag.related.push((
                file.path.clone(),
                lines.range(&file.text, s, e),
                message.clone(),
            ));
            diag
        }
        ide::Loc::Header => Diag::new(0, 0, sev, format!("in the configured header: {message}")),
        ide::Loc::Unplaced => Diag::new(0, 0, sev, message.clone()),
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
    if ide::has_version(text) {
        return false;
    }
    if has_includer {
        return true;
    }
    let stage_ext = path
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .is_some_and(|e| Stage::from_extension(&e.to_ascii_lowercase()).is_some());
    !stage_ext && !ide::defines_main(text)
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

/// The header string the engine gets for a document.
fn header_for(doc: &str, settings: &Resolved, mode: Mode) -> String {
    match mode {
        // A Shadertoy-style body gets the uniforms the built-in host
        // declares for it (unless the settings give a header).
        Mode::Whole
            if settings.header.is_empty() && shaderdbg_glsl::shadertoy::is_main_image_body(doc) =>
        {
            shaderdbg_glsl::shadertoy::header(doc)
        }
        Mode::Whole => settings.header.clone(),
        Mode::InContext(c) => c.text.clone(),
        Mode::Alone => {
            let mut h = String::new();
            if !ide::has_version(&settings.header) {
                h.push_str("#version 460 compatibility\n");
            }
            h.push_str(&settings.header);
            if !h.ends_with('\n') {
                h.push('\n');
            }
            h
        }
    }
}

fn analyze_as(input: &Input, mode: Mode) -> Output {
    let doc = input.text.as_str();
    let settings = input.settings;
    let stage = match mode {
        Mode::InContext(c) if pragma_stage(doc).is_none() => c.stage,
        _ => detect_stage(input.path, doc, settings),
    };
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
    let header = header_for(doc, settings, mode);
    let context_dirs = match mode {
        Mode::InContext(c) => c.dirs.as_slice(),
        _ => &[],
    };
    let resolver = Resolver {
        doc_dir: input.path.and_then(|p| p.parent()).map(Path::to_path_buf),
        dirs: &settings.include_dirs,
        context_dirs,
        open: input.open,
        max_size: max,
    };
    let cancelled = || (input.cancelled)();
    let rec = ide::parse_recovering(&ide::Request {
        text: &filled,
        header: &header,
        stage,
        resolver: Some(&resolver),
        header_is_context: matches!(mode, Mode::InContext(_)),
        piece: matches!(mode, Mode::Alone),
        cancelled: &cancelled,
    });
    out.includes = rec.includes;
    for located in &rec.diagnostics {
        let diag = place_diag(doc, &subst, located);
        if !out.diags.contains(&diag) {
            out.diags.push(diag);
        }
    }
    let Some(analysis) = rec.analysis else {
        return out;
    };
    let mut tree = Tree::new(input.text.clone(), analysis, subst);
    match mode {
        Mode::Whole => {}
        Mode::InContext(c) => {
            tree.context = Some(Arc::new(c.clone()));
            for f in &c.files {
                if !out.includes.contains(f) {
                    out.includes.push(f.clone());
                }
            }
            out.diags.push(Diag::new(
                0,
                0,
                DiagnosticSeverity::Hint,
                format!(
                    "checked as included by {} (an include-only file)",
                    c.includer.file_name().map_or_else(
                        || c.includer.display().to_string(),
                        |n| n.to_string_lossy().into_owned()
                    )
                ),
            ))
        }
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
        let at = tree.to_text(text.find("oops").unwrap()).unwrap();
        assert_eq!(&tree.parsed.source.text[at..at + 4], "oops");
        let after = tree.to_text(text.find("  o =").unwrap()).unwrap();
        assert_eq!(
            tree.place(after),
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
