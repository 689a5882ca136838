//! The GLSL requests: hover, definition, references, rename, symbols,
//! completion, signature help, semantic tokens, inline values.
//!
//! Each works on a [`View`]: a [`Tree`] (the analysis of some version of the
//! document, possibly an older one when the current text does not parse) seen
//! from the current text. When the tree is older, offsets are mapped through
//! the one edited region between the two texts (common prefix and suffix);
//! what lies inside the edited region is not answered from the old tree.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use shaderdbg_glsl::analysis::{DeclKind, Storage};
use shaderdbg_glsl::builtins::{self, ParamDir};
use shaderdbg_glsl::ide::nav::{self, Target};
use shaderdbg_glsl::ide::{self, MemberKind};
use shaderdbg_glsl::Span;
use tower_lsp_server::gen_lsp_types::*;

use super::{Place, Tree};
use crate::line_index::LineIndex;
use crate::text;

/// A tree seen from the current text of its document.
pub struct View<'a> {
    pub tree: &'a Tree,
    pub text: &'a str,
    pub lines: &'a LineIndex,
    pub uri: &'a Uri,
    prefix: usize,
    old_tail: usize,
    new_tail: usize,
}

impl<'a> View<'a> {
    pub fn new(tree: &'a Tree, text: &'a str, lines: &'a LineIndex, uri: &'a Uri) -> View<'a> {
        let old = tree.text.as_bytes();
        let new = text.as_bytes();
        let (prefix, old_tail, new_tail) = if old == new {
            (old.len(), old.len(), new.len())
        } else {
            let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
            let max_suffix = old.len().min(new.len()) - prefix;
            let suffix = old
                .iter()
                .rev()
                .zip(new.iter().rev())
                .take(max_suffix)
                .take_while(|(a, b)| a == b)
                .count();
            (prefix, old.len() - suffix, new.len() - suffix)
        };
        View {
            tree,
            text,
            lines,
            uri,
            prefix,
            old_tail,
            new_tail,
        }
    }

    /// Current document offset -> the tree's document offset (`None` inside
    /// the edited region).
    fn cur_to_old(&self, c: usize) -> Option<usize> {
        if c <= self.prefix {
            Some(c)
        } else if c >= self.new_tail {
            Some(c - self.new_tail + self.old_tail)
        } else {
            None
        }
    }

    /// Like `cur_to_old`, with offsets inside the edited region at its start.
    fn cur_to_old_near(&self, c: usize) -> usize {
        self.cur_to_old(c).unwrap_or(self.prefix)
    }

    fn old_to_cur(&self, o: usize) -> Option<usize> {
        if o <= self.prefix {
            Some(o)
        } else if o >= self.old_tail {
            Some(o - self.old_tail + self.new_tail)
        } else {
            None
        }
    }

    /// A current document offset in the engine's text.
    pub fn to_text(&self, c: usize) -> Option<usize> {
        self.tree.to_text(self.cur_to_old(c)?)
    }

    /// Like `to_text`, for scope queries (an offset in the edited region counts
    /// as its start).
    pub fn to_text_near(&self, c: usize) -> Option<usize> {
        self.tree.to_text(self.cur_to_old_near(c))
    }

    /// An engine span as a current document range.
    pub fn doc_range(&self, span: Span) -> Option<(usize, usize)> {
        let (s, e) = self.tree.span_to_doc(span)?;
        let s2 = self.old_to_cur(s)?;
        let e2 = self.old_to_cur(e)?;
        (e2 >= s2).then_some((s2, e2))
    }

    pub fn range(&self, s: usize, e: usize) -> Range {
        self.lines.range(self.text, s, e)
    }

    /// An engine span as a location (the document, an included file, the
    /// includer that gives this document its context).
    pub fn location(&self, span: Span) -> Option<Location> {
        match self.file_place(span)? {
            FilePlace::Doc(s, e) => Some(Location {
                uri: self.uri.clone(),
                range: self.range(s, e),
            }),
            FilePlace::File {
                path,
                text,
                lines,
                start,
                end,
            } => Some(Location {
                uri: crate::path_to_uri(&path),
                range: lines.range(&text, start, end),
            }),
            FilePlace::Header => None,
        }
    }

    /// A human description of where a span is ("line 12", "common.glsl:3").
    fn where_is(&self, span: Span) -> Option<String> {
        Some(match self.file_place(span)? {
            FilePlace::Doc(s, _) => format!("line {}", self.lines.line_of(s) + 1),
            FilePlace::File {
                path, lines, start, ..
            } => format!("{}:{}", file_name(&path), lines.line_of(start) + 1),
            FilePlace::Header => "the configured header".into(),
        })
    }
}

// ---- what is at an offset -------------------------------------------------------

/// The target at a current document offset.
pub fn target_at_doc(v: &View, offset: usize) -> Option<(Target, Span)> {
    let t = v.to_text(offset)?;
    nav::target_at(v.tree, t)
}

// ---- hover --------------------------------------------------------------------------

pub fn hover(v: &View, offset: usize) -> Option<Hover> {
    if crate::test_panics() {
        if let Some((s, e)) = text::word_at(v.text, offset) {
            assert!(
                &v.text[s..e] != "shaderdbg_test_panic",
                "test panic in hover"
            );
        }
    }
    let (target, span) = target_at_doc(v, offset)?;
    let text = nav::describe(v.tree, &target, &|s| v.where_is(s))?;
    let range = v.doc_range(span).map(|(s, e)| v.range(s, e));
    Some(Hover {
        contents: Contents::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range,
    })
}

// ---- definition and references ---------------------------------------------------

pub fn definition(v: &View, offset: usize) -> Vec<Location> {
    // On an `#include` line: the file.
    let line = v.lines.line_of(offset);
    let start = v.lines.line_start(line);
    let line_text = &v.text[start..v.lines.line_end(v.text, line)];
    if line_text.trim_start().starts_with('#') && line_text.contains("include") {
        let old = v.cur_to_old(start);
        return old
            .and_then(|o| v.tree.included_by_line(o))
            .map(|f| Location {
                uri: crate::path_to_uri(&f.path),
                range: Range::default(),
            })
            .into_iter()
            .collect();
    }
    let Some((target, _)) = target_at_doc(v, offset) else {
        return Vec::new();
    };
    nav::declarations(v.tree, &target)
        .into_iter()
        .filter_map(|s| v.location(s))
        .collect()
}

pub fn references(v: &View, offset: usize, include_declaration: bool) -> Vec<Location> {
    let Some((target, _)) = target_at_doc(v, offset) else {
        return Vec::new();
    };
    nav::occurrences(v.tree, &target, include_declaration)
        .into_iter()
        .filter_map(|s| v.location(s))
        .collect()
}

/// Document highlights: the target's occurrences in this document.
pub fn highlights(v: &View, offset: usize) -> Vec<DocumentHighlight> {
    let Some((target, _)) = target_at_doc(v, offset) else {
        return Vec::new();
    };
    nav::occurrences(v.tree, &target, true)
        .into_iter()
        .filter_map(|s| v.doc_range(s))
        .map(|(s, e)| DocumentHighlight {
            range: v.range(s, e),
            kind: None,
        })
        .collect()
}

// ---- rename ----------------------------------------------------------------------------

/// The files the client has open: path -> current text.
pub type OpenFiles<'a> = &'a dyn Fn(&Path) -> Option<Arc<String>>;

/// Where an engine span is, as a file the editor can show.
pub enum FilePlace {
    /// This document (current offsets).
    Doc(usize, usize),
    /// Another file (an included one, or the includer that gives an
    /// include-only document its context), with the text the analysis used.
    File {
        path: PathBuf,
        text: Arc<String>,
        lines: Arc<LineIndex>,
        start: usize,
        end: usize,
    },
    /// The configured header (no file).
    Header,
}

impl View<'_> {
    /// Where a span is (`None`: in the part of the document being edited).
    pub fn file_place(&self, span: Span) -> Option<FilePlace> {
        Some(match self.tree.span_place(span)? {
            (Place::Doc(_), _) => {
                let (s, e) = self.doc_range(span)?;
                FilePlace::Doc(s, e)
            }
            (Place::Include(f, s), e) => {
                let file = &self.tree.files[f];
                FilePlace::File {
                    path: file.path.clone(),
                    text: file.text.clone(),
                    lines: file.lines.clone(),
                    start: s,
                    end: e.max(s),
                }
            }
            (Place::Header(h), e) => match self.tree.context.as_ref().and_then(|c| c.place(h)) {
                Some((file, s)) => FilePlace::File {
                    path: file.path.clone(),
                    text: file.text.clone(),
                    lines: file.lines.clone(),
                    start: s,
                    end: s + e.saturating_sub(h),
                },
                None => FilePlace::Header,
            },
        })
    }
}

/// Why a rename is refused.
#[derive(Debug, thiserror::Error)]
pub enum RenameError {
    #[error(transparent)]
    Engine(#[from] nav::RenameError),
    #[error("`{name}` is declared in {file}, which is not open in the editor; open it to rename `{name}`")]
    DeclaredNotOpen { name: String, file: String },
    #[error("`{0}` is declared in the configured header (setting `header`), which cannot be renamed from here")]
    DeclaredInHeader(String),
    #[error("`{name}` is also used in {file}, which is not open in the editor; open it to rename `{name}`")]
    UsedNotOpen { name: String, file: String },
    #[error("`{0}` is also used in the configured header (setting `header`); it cannot be renamed from here")]
    UsedInHeader(String),
    #[error("{0} changed since the analysis; try again")]
    Changed(String),
    #[error("`{0}` is used in the part being edited; try again when the document parses")]
    BeingEdited(String),
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Every declaration of the target must be in a file the client has open.
fn declared_open(v: &View, target: &Target, open: OpenFiles) -> Result<(), RenameError> {
    let name = target.name(v.tree);
    for d in nav::declarations(v.tree, target) {
        match v.file_place(d) {
            Some(FilePlace::Doc(..)) | None => {}
            Some(FilePlace::File { path, .. }) => {
                if open(&path).is_none() {
                    return Err(RenameError::DeclaredNotOpen {
                        name,
                        file: file_name(&path),
                    });
                }
            }
            Some(FilePlace::Header) => return Err(RenameError::DeclaredInHeader(name)),
        }
    }
    Ok(())
}

/// The target to rename at a current document offset, if it can be renamed.
pub fn rename_target(
    v: &View,
    offset: usize,
    open: OpenFiles,
) -> Result<Option<(Target, Span)>, RenameError> {
    let Some((target, span)) = target_at_doc(v, offset) else {
        return Ok(None);
    };
    nav::renameable(v.tree, &target)?;
    declared_open(v, &target, open)?;
    Ok(Some((target, span)))
}

pub fn prepare_rename(
    v: &View,
    offset: usize,
    open: OpenFiles,
) -> Result<Option<Range>, RenameError> {
    let Some((_, span)) = rename_target(v, offset, open)? else {
        return Ok(None);
    };
    Ok(v.doc_range(span).map(|(s, e)| v.range(s, e)))
}

/// The edits that rename `target` in this view (this document and the open
/// files it includes). A name a macro produces is renamed in the macro's
/// definition. Errors when an occurrence is in a file that is not open (or
/// changed since the analysis) or in the configured header.
pub fn rename_edits(
    v: &View,
    target: &Target,
    new_name: &str,
    open: OpenFiles,
) -> Result<Vec<(Uri, TextEdit)>, RenameError> {
    let name = target.name(v.tree);
    let spans = nav::rename_spans(v.tree, target)?;
    let mut out: Vec<(Uri, TextEdit)> = Vec::new();
    for s in spans {
        let edit = |uri: Uri, range: Range| {
            (
                uri,
                TextEdit {
                    range,
                    new_text: new_name.to_string(),
                },
            )
        };
        let e = match v.file_place(s) {
            Some(FilePlace::Doc(a, b)) => edit(v.uri.clone(), v.range(a, b)),
            Some(FilePlace::File {
                path,
                text,
                lines,
                start,
                end,
            }) => match open(&path) {
                Some(now) if *now == *text => {
                    edit(crate::path_to_uri(&path), lines.range(&text, start, end))
                }
                Some(_) => return Err(RenameError::Changed(file_name(&path))),
                None => {
                    return Err(RenameError::UsedNotOpen {
                        name,
                        file: file_name(&path),
                    })
                }
            },
            Some(FilePlace::Header) => return Err(RenameError::UsedInHeader(name)),
            None => return Err(RenameError::BeingEdited(name)),
        };
        if !out.contains(&e) {
            out.push(e);
        }
    }
    Ok(out)
}

/// Where a target is declared, as a file and an offset in it (`None` for the
/// path: this document), for finding the same symbol in other documents.
pub fn declaration_site(v: &View, target: &Target) -> Option<(Option<PathBuf>, usize)> {
    let d = *nav::declarations(v.tree, target).first()?;
    match v.file_place(d)? {
        FilePlace::Doc(s, _) => Some((None, s)),
        FilePlace::File { path, start, .. } => Some((Some(path), start)),
        FilePlace::Header => None,
    }
}

/// The symbol declared at a site (see [`declaration_site`]) as this view
/// knows it: `own` is this document's path.
pub fn target_at_site(
    v: &View,
    own: Option<&Path>,
    site: &(Option<PathBuf>, usize),
) -> Option<Target> {
    let t = match &site.0 {
        Some(p) if Some(p.as_path()) != own => v.tree.file_to_text(p, site.1)?,
        _ => v.to_text(site.1)?,
    };
    nav::target_at(v.tree, t).map(|(t, _)| t)
}

/// References as locations (this document, included files, the includer).
pub fn locations(v: &View, target: &Target, include_declaration: bool) -> Vec<Location> {
    nav::occurrences(v.tree, target, include_declaration)
        .into_iter()
        .filter_map(|s| v.location(s))
        .collect()
}

// ---- symbols ------------------------------------------------------------------------

#[allow(deprecated)]
fn symbol(
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    range: Range,
    selection_range: Range,
    children: Option<Vec<DocumentSymbol>>,
) -> DocumentSymbol {
    DocumentSymbol {
        name,
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children,
    }
}

/// Functions, structs (with fields), interface blocks, and global variables
/// (uniforms, inputs, outputs, constants) declared in this document.
pub fn document_symbols(v: &View) -> Vec<DocumentSymbol> {
    let tree = v.tree;
    let ix = &tree.index;
    let mut out: Vec<(usize, DocumentSymbol)> = Vec::new();
    let ranges = |whole: Span, name: Span| -> Option<(usize, Range, Range)> {
        let (ns, ne) = v.doc_range(name)?;
        if v.tree.src_at(name).is_empty() || v.text.get(ns..ne) != Some(v.tree.src_at(name)) {
            return None;
        }
        let (ws, we) = v.doc_range(whole).unwrap_or((ns, ne));
        let (ws, we) = (ws.min(ns), we.max(ne));
        Some((ws, v.range(ws, we), v.range(ns, ne)))
    };
    for f in &ix.functions {
        let Some((at, r, sr)) = ranges(f.span, f.name_span) else {
            continue;
        };
        let detail = tree
            .model
            .functions
            .iter()
            .find(|m| {
                m.name == f.name
                    && m.span.start <= f.name_span.start
                    && f.name_span.end <= m.span.end
            })
            .map(|m| m.signature());
        let detail = if f.body.is_none() {
            detail.map(|d| format!("{d} (prototype)"))
        } else {
            detail
        };
        out.push((
            at,
            symbol(f.name.clone(), detail, SymbolKind::Function, r, sr, None),
        ));
    }
    for s in &ix.structs {
        if s.function.is_some() {
            continue;
        }
        let Some((at, r, sr)) = ranges(s.span, s.name_span) else {
            continue;
        };
        let children = s
            .fields
            .iter()
            .filter_map(|f| {
                let (_, fr, fsr) = ranges(f.span, f.name_span)?;
                let ty = nav::field_type(tree, &s.name, &f.name).map(|t| t.to_string());
                Some(symbol(f.name.clone(), ty, SymbolKind::Field, fr, fsr, None))
            })
            .collect();
        out.push((
            at,
            symbol(
                s.name.clone(),
                Some("struct".into()),
                SymbolKind::Struct,
                r,
                sr,
                Some(children),
            ),
        ));
    }
    for (i, b) in ix.blocks.iter().enumerate() {
        let Some((at, r, sr)) = ranges(b.span, b.name_span) else {
            continue;
        };
        let children = b
            .fields
            .iter()
            .filter_map(|f| {
                let (_, fr, fsr) = ranges(f.span, f.name_span)?;
                let ty = nav::block_field_type(tree, i, &f.name).map(|t| t.to_string());
                Some(symbol(f.name.clone(), ty, SymbolKind::Field, fr, fsr, None))
            })
            .collect();
        let detail = match &b.instance {
            Some((inst, _)) => format!("{} block {inst}", b.storage),
            None => format!("{} block", b.storage),
        };
        out.push((
            at,
            symbol(
                b.name.clone(),
                Some(detail),
                SymbolKind::Interface,
                r,
                sr,
                Some(children),
            ),
        ));
    }
    for g in &ix.globals {
        let Some((at, r, sr)) = ranges(g.span, g.name_span) else {
            continue;
        };
        let ty = tree
            .model
            .decls
            .iter()
            .zip(&tree.decl_names)
            .find(|(d, s)| d.name == g.name && **s == g.name_span)
            .map(|(d, _)| d.ty.to_string());
        let detail = match (g.storage.is_empty(), ty) {
            (true, Some(t)) => Some(t),
            (false, Some(t)) => Some(format!("{} {t}", g.storage)),
            (_, None) => (!g.storage.is_empty()).then(|| g.storage.clone()),
        };
        let kind = if g.storage.split(' ').any(|w| w == "const") {
            SymbolKind::Constant
        } else {
            SymbolKind::Variable
        };
        out.push((at, symbol(g.name.clone(), detail, kind, r, sr, None)));
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, s)| s).collect()
}

// ---- completion ------------------------------------------------------------------------

fn item(
    label: &str,
    kind: CompletionItemKind,
    detail: Option<String>,
    sort: &str,
) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        sort_text: Some(format!("{sort}{label}")),
        ..Default::default()
    }
}

pub fn completion(v: &View, offset: usize) -> Vec<CompletionItem> {
    let text = v.text;
    if text::in_comment(text, offset) {
        return Vec::new();
    }
    let line_start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    if text[line_start..offset].trim_start().starts_with('#') {
        return Vec::new();
    }
    let start = text::prefix_start(text, offset);
    let mut before = start;
    while before > 0 && text.as_bytes()[before - 1] == b' ' {
        before -= 1;
    }
    let Some(t) = v.to_text_near(start) else {
        return Vec::new();
    };
    let mut scope = ide::scope_at(&v.tree.parsed, t);
    if before > 0 && text.as_bytes()[before - 1] == b'.' {
        // Members of the value before the dot.
        let dot = before - 1;
        let Some(es) = text::expr_start_before(text, dot) else {
            return Vec::new();
        };
        let Some(ty) = scope.type_of(&text[es..dot]) else {
            return Vec::new();
        };
        return ide::members(&ty)
            .into_iter()
            .map(|m| {
                let kind = match m.kind {
                    MemberKind::Field => CompletionItemKind::Field,
                    MemberKind::Swizzle => CompletionItemKind::Property,
                    MemberKind::Method => CompletionItemKind::Method,
                };
                let sort = match m.kind {
                    MemberKind::Field | MemberKind::Method => "0",
                    MemberKind::Swizzle => "1",
                };
                let mut it = item(&m.name, kind, Some(m.ty.to_string()), sort);
                if m.kind == MemberKind::Method {
                    it.insert_text = Some(format!("{}()", m.name));
                }
                it
            })
            .collect();
    }
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let model = &scope.model;
    let locals = scope.locals();
    for &d in locals.iter().rev() {
        let decl = &model.decls[d];
        if seen.insert(decl.name.clone()) {
            out.push(item(
                &decl.name,
                CompletionItemKind::Variable,
                Some(format!("{} — {}", decl.ty, nav::kind_text(&decl.kind))),
                "0",
            ));
        }
    }
    for d in scope.globals() {
        let decl = &model.decls[d];
        if seen.insert(decl.name.clone()) {
            let kind = if decl.kind == DeclKind::Global(Storage::Const) {
                CompletionItemKind::Constant
            } else {
                CompletionItemKind::Variable
            };
            out.push(item(
                &decl.name,
                kind,
                Some(format!("{} — {}", decl.ty, nav::kind_text(&decl.kind))),
                "1",
            ));
        }
    }
    for f in &model.functions {
        if seen.insert(f.name.clone()) {
            out.push(item(
                &f.name,
                CompletionItemKind::Function,
                Some(f.signature()),
                "2",
            ));
        }
    }
    let mut structs: Vec<&String> = model.structs.keys().collect();
    structs.sort();
    for s in structs {
        if !s.starts_with("_anon") && seen.insert(s.clone()) {
            out.push(item(
                s,
                CompletionItemKind::Struct,
                Some("struct".into()),
                "2",
            ));
        }
    }
    let env = v.tree.env();
    for var in builtins::variables(&env) {
        if seen.insert(var.name.clone()) {
            let mut it = item(
                &var.name,
                CompletionItemKind::Variable,
                Some(var.ty.to_string()),
                "3",
            );
            it.documentation =
                builtins::describe(&var.name).map(|d| Documentation::String(d.to_string()));
            out.push(it);
        }
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for sig in builtins::functions(&env) {
        *counts.entry(sig.name.as_str()).or_default() += 1;
    }
    for sig in builtins::functions(&env) {
        if seen.insert(sig.name.clone()) {
            let n = counts[sig.name.as_str()];
            let detail = if n > 1 {
                format!("{sig} (+{} overloads)", n - 1)
            } else {
                sig.to_string()
            };
            let mut it = item(&sig.name, CompletionItemKind::Function, Some(detail), "3");
            it.documentation =
                builtins::describe(&sig.name).map(|d| Documentation::String(d.to_string()));
            out.push(it);
        }
    }
    for t in ide::type_names(env.version) {
        if seen.insert(t.to_string()) {
            out.push(item(t, CompletionItemKind::TypeParameter, None, "4"));
        }
    }
    for k in ide::keywords(env.version) {
        if seen.insert(k.to_string()) {
            out.push(item(k, CompletionItemKind::Keyword, None, "5"));
        }
    }
    out
}

// ---- signature help -------------------------------------------------------------------

fn signature_info(label_head: &str, params: &[String], doc: Option<&str>) -> SignatureInformation {
    let mut label = format!("{label_head}(");
    let mut infos = Vec::new();
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        let s = label.encode_utf16().count() as u32;
        label.push_str(p);
        let e = label.encode_utf16().count() as u32;
        infos.push(ParameterInformation {
            label: ParameterInformationLabel::Tuple((s, e)),
            documentation: None,
        });
    }
    label.push(')');
    SignatureInformation {
        label,
        documentation: doc.map(|d| Documentation::String(d.to_string())),
        parameters: Some(infos),
        active_parameter: None,
    }
}

fn dir_text(d: ParamDir) -> &'static str {
    match d {
        ParamDir::In => "",
        ParamDir::Out => "out ",
        ParamDir::InOut => "inout ",
    }
}

pub fn signature_help(v: &View, offset: usize) -> Option<SignatureHelp> {
    let ((s, e), active) = text::call_at(v.text, offset)?;
    let name = &v.text[s..e];
    let tree = v.tree;
    let mut sigs: Vec<(SignatureInformation, usize)> = Vec::new();
    for f in tree.model.functions.iter().filter(|f| f.name == name) {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| {
                format!(
                    "{}{}",
                    dir_text(p.dir),
                    nav::decl_text(&p.ty, &p.name).trim_end()
                )
            })
            .collect();
        let n = params.len();
        sigs.push((
            signature_info(&format!("{} {}", f.ret, f.name), &params, None),
            n,
        ));
    }
    if let Some(st) = tree.model.structs.get(name) {
        let params: Vec<String> = st
            .fields
            .iter()
            .map(|f| nav::decl_text(&f.ty, &f.name))
            .collect();
        let n = params.len();
        sigs.push((
            signature_info(&format!("{name} {name}"), &params, Some("constructor")),
            n,
        ));
    }
    if sigs.is_empty() {
        let env = v.tree.env();
        let doc = builtins::describe(name);
        for sig in builtins::function_overloads(name, &env) {
            let params: Vec<String> = sig
                .params
                .iter()
                .map(|p| format!("{}{}", dir_text(p.dir), nav::decl_text(&p.ty, &p.name)))
                .collect();
            let n = params.len();
            sigs.push((
                signature_info(&format!("{} {}", sig.ret, sig.name), &params, doc),
                n,
            ));
        }
    }
    if sigs.is_empty() {
        return None;
    }
    let active_sig = sigs.iter().position(|(_, n)| *n > active).unwrap_or(0);
    Some(SignatureHelp {
        signatures: sigs.into_iter().map(|(s, _)| s).collect(),
        active_signature: Some(active_sig as u32),
        active_parameter: Some(ActiveParameter::Int(active as u32)),
    })
}

// ---- semantic tokens --------------------------------------------------------------------

pub const TOKEN_TYPES: &[&str] = &[
    "variable",
    "parameter",
    "function",
    "struct",
    "property",
    "interface",
];
pub const TOKEN_MODIFIERS: &[&str] = &["declaration", "readonly", "defaultLibrary", "global"];

const T_VARIABLE: u32 = 0;
const T_PARAMETER: u32 = 1;
const T_FUNCTION: u32 = 2;
const T_STRUCT: u32 = 3;
const T_PROPERTY: u32 = 4;
const T_INTERFACE: u32 = 5;
const M_DECLARATION: u32 = 1;
const M_READONLY: u32 = 2;
const M_LIBRARY: u32 = 4;
const M_GLOBAL: u32 = 8;

fn var_token(kind: &DeclKind) -> (u32, u32) {
    match kind {
        DeclKind::Local => (T_VARIABLE, 0),
        DeclKind::Param(_) => (T_PARAMETER, 0),
        DeclKind::Global(s) => {
            let ro = matches!(s, Storage::Const | Storage::Uniform | Storage::In);
            (T_VARIABLE, M_GLOBAL | if ro { M_READONLY } else { 0 })
        }
        DeclKind::Builtin(s) => {
            let ro = matches!(
                s,
                builtins::Storage::In | builtins::Storage::Uniform | builtins::Storage::Const
            );
            (
                T_VARIABLE,
                M_LIBRARY | M_GLOBAL | if ro { M_READONLY } else { 0 },
            )
        }
    }
}

pub fn semantic_tokens(v: &View) -> Vec<SemanticToken> {
    let tree = v.tree;
    let ix = &tree.index;
    let mut toks: Vec<(Span, &str, u32, u32)> = Vec::new();
    for (s, d) in &tree.refs_sorted {
        let decl = &tree.model.decls[*d];
        let (t, m) = var_token(&decl.kind);
        toks.push((*s, &decl.name, t, m));
    }
    for (d, s) in tree.decl_names.iter().enumerate() {
        let decl = &tree.model.decls[d];
        if !matches!(decl.kind, DeclKind::Builtin(_)) {
            let (t, m) = var_token(&decl.kind);
            toks.push((*s, &decl.name, t, m | M_DECLARATION));
        }
    }
    let user_fns: HashSet<&str> = tree
        .model
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    for f in &ix.functions {
        toks.push((f.name_span, &f.name, T_FUNCTION, M_DECLARATION));
    }
    for c in &ix.calls {
        if user_fns.contains(c.name.as_str()) {
            toks.push((c.span, &c.name, T_FUNCTION, 0));
        } else if tree.model.structs.contains_key(&c.name) {
            toks.push((c.span, &c.name, T_STRUCT, 0));
        } else if builtins::is_builtin_function(&c.name) {
            toks.push((c.span, &c.name, T_FUNCTION, M_LIBRARY));
        }
    }
    for s in &ix.structs {
        toks.push((s.name_span, &s.name, T_STRUCT, M_DECLARATION));
        for f in &s.fields {
            toks.push((f.name_span, &f.name, T_PROPERTY, M_DECLARATION));
        }
    }
    for u in &ix.type_uses {
        if tree.model.structs.contains_key(&u.name) {
            toks.push((u.span, &u.name, T_STRUCT, 0));
        }
    }
    for b in &ix.blocks {
        toks.push((b.name_span, &b.name, T_INTERFACE, M_DECLARATION));
        for f in &b.fields {
            toks.push((f.name_span, &f.name, T_PROPERTY, M_DECLARATION));
        }
    }
    for f in &ix.fields {
        toks.push((f.span, &f.name, T_PROPERTY, 0));
    }
    // To document ranges, where the text is the name (not a macro use).
    let mut placed: Vec<(usize, usize, u32, u32)> = toks
        .into_iter()
        .filter_map(|(span, name, t, m)| {
            let (s, e) = v.doc_range(span)?;
            (v.text.get(s..e) == Some(name)).then_some((s, e, t, m))
        })
        .collect();
    placed.sort_by_key(|&(s, e, _, m)| (s, e, std::cmp::Reverse(m)));
    placed.dedup_by_key(|p| p.0);
    let mut out = Vec::with_capacity(placed.len());
    let (mut last_line, mut last_col) = (0u32, 0u32);
    let mut prev_end = 0usize;
    for (s, e, t, m) in placed {
        if s < prev_end {
            continue;
        }
        prev_end = e;
        let p = v.lines.position(v.text, s);
        let pe = v.lines.position(v.text, e);
        if pe.line != p.line {
            continue;
        }
        let delta_line = p.line - last_line;
        let delta_start = if delta_line == 0 {
            p.character - last_col
        } else {
            p.character
        };
        out.push(SemanticToken {
            delta_line,
            delta_start,
            length: pe.character - p.character,
            token_type: t,
            token_modifiers_bitset: m,
        });
        last_line = p.line;
        last_col = p.character;
    }
    out
}

// ---- inline values ---------------------------------------------------------------------

/// For the editor's stopped location: every write (declaration with a value,
/// parameter, assignment, `++`/`--`) of a variable that is in scope there,
/// from the start of the function up to the end of the stopped line, within
/// `range`; one lookup per written identifier, named as the debug adapter
/// names the variable.
pub fn inline_values(v: &View, range: (usize, usize), stopped: usize) -> Vec<InlineValue> {
    let tree = v.tree;
    let stop_line = v.lines.line_of(stopped);
    let stop_line_end = v.lines.line_end(v.text, stop_line);
    let Some(t) = v.to_text_near(stopped) else {
        return Vec::new();
    };
    let Some(fi) = tree.index.function_at(t) else {
        return Vec::new();
    };
    let func = &tree.index.functions[fi];
    let scope = ide::scope_at(&tree.parsed, t);
    // What is visible there, by declaration span (the scope walk has its own ids).
    let visible: HashSet<Span> = scope
        .locals()
        .into_iter()
        .chain(scope.globals())
        .map(|d| scope.model.decls[d].span)
        .collect();
    let decl_of_span: HashMap<Span, usize> = tree
        .decl_names
        .iter()
        .enumerate()
        .map(|(d, s)| (*s, d))
        .collect();
    let ref_at: HashMap<Span, usize> = tree.refs_sorted.iter().copied().collect();
    let is_visible = |d: usize| {
        let decl = &tree.model.decls[d];
        match decl.kind {
            DeclKind::Builtin(_) => true,
            _ => visible.contains(&decl.span),
        }
    };
    let mut spans: Vec<(Span, String)> = Vec::new();
    for p in &func.params {
        if let Some(&d) = decl_of_span.get(&p.name_span) {
            if is_visible(d) {
                spans.push((p.name_span, p.name.clone()));
            }
        }
    }
    for w in tree.index.writes.iter().filter(|w| w.function == Some(fi)) {
        let d = if w.declaration {
            decl_of_span.get(&w.span).copied()
        } else {
            ref_at.get(&w.span).copied()
        };
        if let Some(d) = d {
            if is_visible(d) {
                spans.push((w.span, w.name.clone()));
            }
        }
    }
    let mut out: Vec<(usize, InlineValue)> = Vec::new();
    let mut seen = HashSet::new();
    for (span, name) in spans {
        let Some((s, e)) = v.doc_range(span) else {
            continue;
        };
        if s > stop_line_end
            || e < range.0
            || s > range.1
            || v.text.get(s..e) != Some(name.as_str())
        {
            continue;
        }
        if !seen.insert(s) {
            continue;
        }
        out.push((
            s,
            InlineValue::VariableLookup(InlineValueVariableLookup {
                range: v.range(s, e),
                variable_name: Some(name),
                case_sensitive_lookup: true,
            }),
        ));
    }
    out.sort_by_key(|(s, _)| *s);
    out.into_iter().map(|(_, i)| i).collect()
}
