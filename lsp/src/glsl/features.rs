//! The GLSL requests: hover, definition, references, rename, symbols,
//! completion, signature help, semantic tokens, inline values.
//!
//! Each works on a [`View`]: a [`Tree`] (the analysis of some version of the
//! document, possibly an older one when the current text does not parse) seen
//! from the current text. When the tree is older, offsets are mapped through
//! the one edited region between the two texts (common prefix and suffix);
//! what lies inside the edited region is not answered from the old tree.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use shaderdbg_glsl::ide::complete::{self, CompletionKind};
use shaderdbg_glsl::ide::highlight::{self, TokenClass};
use shaderdbg_glsl::ide::nav::{self, Target};
use shaderdbg_glsl::ide::symbols::{self, Symbol};
use shaderdbg_glsl::ide::{inline, signature};
use shaderdbg_glsl::Span;
use tower_lsp_server::gen_lsp_types::*;

use super::{Place, Tree};
use crate::line_index::LineIndex;
use crate::text;

/// An offset of one text in the other, when they differ in one region
/// (same before `prefix`, same after `from_tail` in this one and `to_tail`
/// in the other); `None` inside the region.
fn across_edit(o: usize, prefix: usize, from_tail: usize, to_tail: usize) -> Option<usize> {
    if o <= prefix {
        Some(o)
    } else if o >= from_tail {
        Some(o - from_tail + to_tail)
    } else {
        None
    }
}

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
        across_edit(c, self.prefix, self.new_tail, self.old_tail)
    }

    /// Like `cur_to_old`, with offsets inside the edited region at its start.
    fn cur_to_old_near(&self, c: usize) -> usize {
        self.cur_to_old(c).unwrap_or(self.prefix)
    }

    fn old_to_cur(&self, o: usize) -> Option<usize> {
        across_edit(o, self.prefix, self.old_tail, self.new_tail)
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

/// The outline ([`ide::symbols::outline`]) in this document.
#[allow(deprecated)]
pub fn document_symbols(v: &View) -> Vec<DocumentSymbol> {
    fn convert(v: &View, sym: Symbol) -> Option<DocumentSymbol> {
        let (ns, ne) = v.doc_range(sym.name_span)?;
        if v.text.get(ns..ne) != Some(v.tree.src_at(sym.name_span)) {
            return None;
        }
        let (ws, we) = v.doc_range(sym.span).unwrap_or((ns, ne));
        let kind = match sym.kind {
            symbols::SymbolKind::Function => SymbolKind::Function,
            symbols::SymbolKind::Struct => SymbolKind::Struct,
            symbols::SymbolKind::Field => SymbolKind::Field,
            symbols::SymbolKind::Interface => SymbolKind::Interface,
            symbols::SymbolKind::Constant => SymbolKind::Constant,
            symbols::SymbolKind::Variable => SymbolKind::Variable,
        };
        let has_members = matches!(
            sym.kind,
            symbols::SymbolKind::Struct | symbols::SymbolKind::Interface
        );
        let children = has_members.then(|| {
            sym.children
                .into_iter()
                .filter_map(|c| convert(v, c))
                .collect()
        });
        Some(DocumentSymbol {
            name: sym.name,
            detail: sym.detail,
            kind,
            tags: None,
            deprecated: None,
            range: v.range(ws.min(ns), we.max(ne)),
            selection_range: v.range(ns, ne),
            children,
        })
    }
    symbols::outline(v.tree)
        .into_iter()
        .filter_map(|s| convert(v, s))
        .collect()
}

// ---- completion ------------------------------------------------------------------------

pub fn completion(v: &View, offset: usize) -> Vec<CompletionItem> {
    let to_parsed = |c: usize| v.to_text_near(c);
    complete::completions(v.tree, v.text, offset, &to_parsed)
        .into_iter()
        .map(|c| CompletionItem {
            kind: Some(match c.kind {
                CompletionKind::Field => CompletionItemKind::Field,
                CompletionKind::Swizzle => CompletionItemKind::Property,
                CompletionKind::Method => CompletionItemKind::Method,
                CompletionKind::Variable => CompletionItemKind::Variable,
                CompletionKind::Constant => CompletionItemKind::Constant,
                CompletionKind::Function => CompletionItemKind::Function,
                CompletionKind::Struct => CompletionItemKind::Struct,
                CompletionKind::Type => CompletionItemKind::TypeParameter,
                CompletionKind::Keyword => CompletionItemKind::Keyword,
            }),
            detail: c.detail,
            documentation: c.documentation.map(Documentation::String),
            insert_text: c.insert_text,
            sort_text: Some(format!("{}{}", c.rank, c.label)),
            label: c.label,
            ..Default::default()
        })
        .collect()
}

// ---- signature help -------------------------------------------------------------------

pub fn signature_help(v: &View, offset: usize) -> Option<SignatureHelp> {
    let help = signature::signature_help(v.tree, v.text, offset)?;
    let utf16 = |label: &str, b: usize| label[..b].encode_utf16().count() as u32;
    let signatures = help
        .signatures
        .into_iter()
        .map(|s| SignatureInformation {
            parameters: Some(
                s.params
                    .iter()
                    .map(|&(a, b)| ParameterInformation {
                        label: ParameterInformationLabel::Tuple((
                            utf16(&s.label, a),
                            utf16(&s.label, b),
                        )),
                        documentation: None,
                    })
                    .collect(),
            ),
            documentation: s.documentation.map(Documentation::String),
            label: s.label,
            active_parameter: None,
        })
        .collect();
    Some(SignatureHelp {
        signatures,
        active_signature: Some(help.active_signature as u32),
        active_parameter: Some(ActiveParameter::Int(help.active_parameter as u32)),
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

/// The semantic tokens ([`highlight::classify`]) of this document, as LSP
/// deltas.
pub fn semantic_tokens(v: &View) -> Vec<SemanticToken> {
    let tokens = highlight::classify(v.tree).into_iter().filter_map(|t| {
        let (s, e) = v.doc_range(t.span)?;
        if v.text.get(s..e) != Some(v.tree.src_at(t.span)) {
            return None;
        }
        // TOKEN_TYPES and TOKEN_MODIFIERS list them in the engine's order.
        let token_type = match t.class {
            TokenClass::Variable => 0,
            TokenClass::Parameter => 1,
            TokenClass::Function => 2,
            TokenClass::Struct => 3,
            TokenClass::Property => 4,
            TokenClass::Interface => 5,
        };
        Some((s, e, token_type, t.modifiers.0))
    });
    v.lines.semantic_tokens(v.text, tokens)
}

// ---- inline values ---------------------------------------------------------------------

/// For the editor's stopped location: the variables
/// [`inline::variables_in`] names for the stop, on the lines of `range` up
/// to the end of the stopped line.
pub fn inline_values(v: &View, range: (usize, usize), stopped: usize) -> Vec<InlineValue> {
    let stop_line_end = v.lines.line_end(v.text, v.lines.line_of(stopped));
    let Some(t) = v.to_text_near(stopped) else {
        return Vec::new();
    };
    inline::variables_in(v.tree, t)
        .into_iter()
        .filter_map(|var| {
            let (s, e) = v.doc_range(var.span)?;
            let shown = s <= stop_line_end && e >= range.0 && s <= range.1;
            (shown && v.text.get(s..e) == Some(var.name.as_str())).then(|| {
                InlineValue::VariableLookup(InlineValueVariableLookup {
                    range: v.range(s, e),
                    variable_name: Some(var.name),
                    case_sensitive_lookup: true,
                })
            })
        })
        .collect()
}
