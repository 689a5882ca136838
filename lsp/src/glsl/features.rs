//! The GLSL requests: hover, definition, references, rename, symbols,
//! completion, signature help, semantic tokens, inline values.
//!
//! Each works on a [`View`]: a [`Tree`] (the analysis of some version of the
//! document, possibly an older one when the current text does not parse) seen
//! from the current text. When the tree is older, offsets are mapped through
//! the one edited region between the two texts (common prefix and suffix);
//! what lies inside the edited region is not answered from the old tree.

use std::collections::{HashMap, HashSet};

use shaderdbg_glsl::analysis::{DeclKind, Storage};
use shaderdbg_glsl::builtins::{self, BuiltinEnv, ParamDir};
use shaderdbg_glsl::ide::{self, MemberKind};
use shaderdbg_glsl::{Span, Type};
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
        self.tree.map.to_text(self.cur_to_old(c)?)
    }

    /// Like `to_text`, for scope queries (an offset in the edited region counts
    /// as its start).
    pub fn to_text_near(&self, c: usize) -> Option<usize> {
        self.tree.map.to_text(self.cur_to_old_near(c))
    }

    /// An engine span as a current document range.
    pub fn doc_range(&self, span: Span) -> Option<(usize, usize)> {
        let (s, e) = self.tree.map.span_to_doc(span)?;
        let s2 = self.old_to_cur(s)?;
        let e2 = self.old_to_cur(e)?;
        (e2 >= s2).then_some((s2, e2))
    }

    pub fn range(&self, s: usize, e: usize) -> Range {
        self.lines.range(self.text, s, e)
    }

    /// An engine span as a location (the document or an included file).
    pub fn location(&self, span: Span) -> Option<Location> {
        match self.tree.map.span_place(span)? {
            (Place::Doc(_), _) => {
                let (s, e) = self.doc_range(span)?;
                Some(Location {
                    uri: self.uri.clone(),
                    range: self.range(s, e),
                })
            }
            (Place::Include(f, s), e) => {
                let file = &self.tree.map.files[f];
                Some(Location {
                    uri: crate::path_to_uri(&file.path),
                    range: file.lines.range(&file.text, s, e.max(s)),
                })
            }
            (Place::Header(_), _) => None,
        }
    }

    fn src(&self) -> &str {
        &self.tree.parsed.source.text
    }

    /// The engine text at a span.
    fn src_at(&self, span: Span) -> &str {
        self.src().get(span.start..span.end).unwrap_or("")
    }

    fn env(&self) -> BuiltinEnv {
        BuiltinEnv {
            version: self.tree.parsed.version,
            stage: self.tree.parsed.stage,
        }
    }

    /// A human description of where a span is ("line 12", "common.glsl:3").
    fn where_is(&self, span: Span) -> Option<String> {
        match self.tree.map.span_place(span)? {
            (Place::Doc(_), _) => {
                let (s, _) = self.doc_range(span)?;
                Some(format!("line {}", self.lines.line_of(s) + 1))
            }
            (Place::Include(f, s), _) => {
                let file = &self.tree.map.files[f];
                let name = file.path.file_name().map_or_else(
                    || file.path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                Some(format!("{name}:{}", file.lines.line_of(s) + 1))
            }
            (Place::Header(_), _) => Some("the configured header".into()),
        }
    }
}

// ---- what is at an offset -------------------------------------------------------

/// A symbol an identifier stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A variable (a declaration of the model; built-ins included).
    Var(usize),
    /// A user function (all overloads of the name).
    Function(String),
    /// A built-in function.
    Builtin(String),
    /// A user struct type.
    Struct(String),
    /// An interface block (index into the symbol index's blocks).
    Block(usize),
    /// A field of a struct or block (`owner` is its type name), or a swizzle.
    Field {
        owner: String,
        name: String,
        ty: Option<Type>,
        swizzle: bool,
    },
}

fn contains(s: Span, t: usize) -> bool {
    s.start <= t && t <= s.end && s.end > s.start
}

/// What the identifier at engine offset `t` stands for, and its span.
pub fn target_at(v: &View, t: usize) -> Option<(Target, Span)> {
    let tree = v.tree;
    let src = v.src();
    let (ws, we) = text::word_at(src, t)?;
    let word = &src[ws..we];
    let here = |s: Span| contains(s, t) && v.src_at(s) == word;
    // Variable uses.
    let k = tree.refs_sorted.partition_point(|(s, _)| s.start <= t);
    for (s, d) in tree.refs_sorted[..k].iter().rev().take(4) {
        if here(*s) && tree.model.decls[*d].name == word {
            return Some((Target::Var(*d), *s));
        }
    }
    // Variable declarations.
    for (d, s) in tree.decl_names.iter().enumerate() {
        if here(*s)
            && tree.model.decls[d].name == word
            && !matches!(tree.model.decls[d].kind, DeclKind::Builtin(_))
        {
            return Some((Target::Var(d), *s));
        }
    }
    let ix = &tree.index;
    let is_user_fn = |n: &str| tree.model.functions.iter().any(|f| f.name == n);
    for f in &ix.functions {
        if here(f.name_span) {
            return Some((Target::Function(f.name.clone()), f.name_span));
        }
    }
    for c in &ix.calls {
        if here(c.span) {
            let t = if is_user_fn(&c.name) {
                Target::Function(c.name.clone())
            } else if tree.model.structs.contains_key(&c.name) {
                Target::Struct(c.name.clone())
            } else if builtins::is_builtin_function(&c.name) {
                Target::Builtin(c.name.clone())
            } else {
                return None;
            };
            return Some((t, c.span));
        }
    }
    for s in &ix.structs {
        if here(s.name_span) {
            return Some((Target::Struct(s.name.clone()), s.name_span));
        }
        for f in &s.fields {
            if here(f.name_span) {
                let ty = field_type(tree, &s.name, &f.name);
                return Some((
                    Target::Field {
                        owner: s.name.clone(),
                        name: f.name.clone(),
                        ty,
                        swizzle: false,
                    },
                    f.name_span,
                ));
            }
        }
    }
    for u in &ix.type_uses {
        if here(u.span) && tree.model.structs.contains_key(&u.name) {
            return Some((Target::Struct(u.name.clone()), u.span));
        }
    }
    for (i, b) in ix.blocks.iter().enumerate() {
        if here(b.name_span) {
            return Some((Target::Block(i), b.name_span));
        }
        for f in &b.fields {
            if here(f.name_span) {
                let ty = block_field_type(tree, i, &f.name);
                return Some((
                    Target::Field {
                        owner: b.name.clone(),
                        name: f.name.clone(),
                        ty,
                        swizzle: false,
                    },
                    f.name_span,
                ));
            }
        }
    }
    for f in &ix.fields {
        if here(f.span) {
            return member_target(v, f.span).map(|t| (t, f.span));
        }
    }
    // A built-in variable the model never resolved (e.g. in dead code).
    None
}

fn field_type(tree: &Tree, owner: &str, field: &str) -> Option<Type> {
    tree.model
        .structs
        .get(owner)?
        .fields
        .iter()
        .find(|f| f.name == field)
        .map(|f| f.ty.clone())
}

fn block_field_type(tree: &Tree, block: usize, field: &str) -> Option<Type> {
    let b = &tree.index.blocks[block];
    // Members of a block without instance name are globals of the model; the
    // instance of one with a name has the block as its (struct) type.
    if let Some((inst, _)) = &b.instance {
        let d = tree
            .model
            .decls
            .iter()
            .find(|d| &d.name == inst && d.interface_block)?;
        let mut ty = &d.ty;
        while let Type::Array(e, _) = ty {
            ty = e;
        }
        if let Type::Struct(s) = ty {
            return s
                .fields
                .iter()
                .find(|f| f.name == field)
                .map(|f| f.ty.clone());
        }
        return None;
    }
    tree.model
        .decls
        .iter()
        .find(|d| d.name == field && matches!(d.kind, DeclKind::Global(_)))
        .map(|d| d.ty.clone())
}

/// The field or swizzle selected at `field` (the name after a `.`).
fn member_target(v: &View, field: Span) -> Option<Target> {
    let src = v.src();
    let mut dot = field.start;
    while dot > 0 && src.as_bytes()[dot - 1] == b' ' {
        dot -= 1;
    }
    if dot == 0 || src.as_bytes()[dot - 1] != b'.' {
        return None;
    }
    let dot = dot - 1;
    let start = text::expr_start_before(src, dot)?;
    let mut scope = ide::scope_at(&v.tree.parsed, start);
    let base = scope.type_of(&src[start..dot])?;
    let name = v.src_at(field).to_string();
    let member = ide::members(&base)
        .into_iter()
        .find(|m| m.name == name)
        .or_else(|| {
            // Any valid swizzle, not only the listed ones.
            let n = match base {
                Type::Vector(_, n) => n,
                Type::Scalar(_) => 1,
                _ => return None,
            };
            let idx = shaderdbg_glsl::analysis::swizzle_indices(&name, n)?;
            Some(ide::Member {
                ty: Type::vec(base.scalar()?, idx.len() as u8),
                name: name.clone(),
                kind: MemberKind::Swizzle,
            })
        })?;
    Some(Target::Field {
        owner: base.to_string(),
        name,
        swizzle: member.kind == MemberKind::Swizzle,
        ty: Some(member.ty),
    })
}

/// The target at a current document offset.
pub fn target_at_doc(v: &View, offset: usize) -> Option<(Target, Span)> {
    let t = v.to_text(offset)?;
    target_at(v, t)
}

// ---- hover --------------------------------------------------------------------------

fn kind_text(kind: &DeclKind) -> String {
    match kind {
        DeclKind::Local => "local variable".into(),
        DeclKind::Param(ParamDir::In) => "parameter".into(),
        DeclKind::Param(ParamDir::Out) => "`out` parameter".into(),
        DeclKind::Param(ParamDir::InOut) => "`inout` parameter".into(),
        DeclKind::Global(s) => match s {
            Storage::Private => "global variable",
            Storage::Const => "constant",
            Storage::In => "shader input",
            Storage::Out => "shader output",
            Storage::Uniform => "uniform",
            Storage::Buffer => "buffer variable",
            Storage::Shared => "shared variable",
        }
        .into(),
        DeclKind::Builtin(s) => match s {
            builtins::Storage::In => "built-in input",
            builtins::Storage::Out => "built-in output",
            builtins::Storage::InOut => "built-in variable",
            builtins::Storage::Uniform => "built-in uniform",
            builtins::Storage::Const => "built-in constant",
        }
        .into(),
    }
}

fn code(s: &str) -> String {
    format!("```glsl\n{s}\n```")
}

/// Declaration text of a variable: `vec3 acc`, `float w[4]`.
fn decl_text(ty: &Type, name: &str) -> String {
    let mut elem = ty;
    let mut dims = String::new();
    while let Type::Array(inner, n) = elem {
        match n {
            Some(n) => dims.push_str(&format!("[{n}]")),
            None => dims.push_str("[]"),
        }
        elem = inner;
    }
    format!("{elem} {name}{dims}")
}

fn struct_text(tree: &Tree, name: &str) -> Option<String> {
    let s = tree.model.structs.get(name)?;
    let mut out = format!("struct {name} {{\n");
    for f in &s.fields {
        out.push_str(&format!("    {};\n", decl_text(&f.ty, &f.name)));
    }
    out.push('}');
    Some(out)
}

fn env_text(env: &BuiltinEnv) -> String {
    format!("GLSL {}, {} shader", env.version, env.stage)
}

/// The markdown hover text for a target.
pub fn describe(v: &View, target: &Target) -> Option<String> {
    let tree = v.tree;
    Some(match target {
        Target::Var(d) => {
            let decl = &tree.model.decls[*d];
            let mut s = code(&decl_text(&decl.ty, &decl.name));
            s.push_str("\n\n");
            s.push_str(&kind_text(&decl.kind));
            if let DeclKind::Builtin(_) = decl.kind {
                if let Some(doc) = builtins::describe(&decl.name) {
                    s.push_str(&format!(": {doc}"));
                }
                s.push_str(&format!(" ({})", env_text(&v.env())));
            } else {
                if let Some(f) = decl.function.and_then(|f| tree.model.functions.get(f)) {
                    s.push_str(&format!(" of `{}`", f.name));
                }
                if let Some(w) = v.where_is(tree.decl_names[*d]) {
                    s.push_str(&format!(", declared at {w}"));
                }
            }
            s
        }
        Target::Function(name) => {
            let overloads: Vec<String> = tree
                .model
                .functions
                .iter()
                .filter(|f| &f.name == name)
                .map(|f| f.signature())
                .collect();
            let mut s = code(&overloads.join("\n"));
            let defs: Vec<String> = tree
                .index
                .functions
                .iter()
                .filter(|f| &f.name == name && f.body.is_some())
                .filter_map(|f| v.where_is(f.name_span))
                .collect();
            s.push_str("\n\nuser function");
            if !defs.is_empty() {
                s.push_str(&format!(", defined at {}", defs.join(", ")));
            }
            s
        }
        Target::Builtin(name) => {
            let env = v.env();
            let sigs = builtins::function_overloads(name, &env);
            let shown: Vec<String> = sigs.iter().take(12).map(|s| s.to_string()).collect();
            let mut s = code(&shown.join("\n"));
            if sigs.len() > shown.len() {
                s.push_str(&format!(
                    "\n\n(and {} more overloads)",
                    sigs.len() - shown.len()
                ));
            }
            if sigs.is_empty() {
                s = format!("`{name}` is not available in {}", env_text(&env));
            }
            s.push_str("\n\nbuilt-in function");
            if let Some(doc) = builtins::describe(name) {
                s.push_str(&format!(": {doc}"));
            }
            s.push_str(&format!(" ({})", env_text(&env)));
            s
        }
        Target::Struct(name) => {
            let mut s = code(&struct_text(tree, name)?);
            if let Some(st) = tree.index.structs.iter().find(|s| &s.name == name) {
                if let Some(w) = v.where_is(st.name_span) {
                    s.push_str(&format!("\n\nstruct, declared at {w}"));
                }
            }
            s
        }
        Target::Block(i) => {
            let b = &tree.index.blocks[*i];
            let mut s = format!("{} {} {{\n", b.storage, b.name);
            for f in &b.fields {
                let ty = block_field_type(tree, *i, &f.name)
                    .map_or_else(|| "?".to_string(), |t| decl_text(&t, &f.name));
                s.push_str(&format!("    {ty};\n"));
            }
            s.push('}');
            if let Some((inst, _)) = &b.instance {
                s.push_str(&format!(" {inst}"));
            }
            code(&s)
        }
        Target::Field {
            owner,
            name,
            ty,
            swizzle,
        } => {
            let ty = ty
                .as_ref()
                .map_or_else(|| "?".to_string(), |t| t.to_string());
            if *swizzle {
                format!("{}\n\nswizzle of a {owner}", code(&format!("{ty} .{name}")))
            } else {
                format!(
                    "{}\n\nfield of `{owner}`",
                    code(&format!("{ty} {owner}.{name}"))
                )
            }
        }
    })
}

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
    let text = describe(v, &target)?;
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

/// Where a target is declared (engine spans of names).
fn declarations(tree: &Tree, target: &Target) -> Vec<Span> {
    let ix = &tree.index;
    match target {
        Target::Var(d) => match tree.model.decls[*d].kind {
            DeclKind::Builtin(_) => Vec::new(),
            _ => vec![tree.decl_names[*d]],
        },
        Target::Function(name) => {
            let defs: Vec<Span> = ix
                .functions
                .iter()
                .filter(|f| &f.name == name && f.body.is_some())
                .map(|f| f.name_span)
                .collect();
            if defs.is_empty() {
                ix.functions
                    .iter()
                    .filter(|f| &f.name == name)
                    .map(|f| f.name_span)
                    .collect()
            } else {
                defs
            }
        }
        Target::Builtin(_) => Vec::new(),
        Target::Struct(name) => ix
            .structs
            .iter()
            .filter(|s| &s.name == name)
            .map(|s| s.name_span)
            .collect(),
        Target::Block(i) => vec![ix.blocks[*i].name_span],
        Target::Field {
            owner,
            name,
            swizzle: false,
            ..
        } => {
            let mut out: Vec<Span> = ix
                .structs
                .iter()
                .filter(|s| &s.name == owner)
                .flat_map(|s| s.fields.iter())
                .filter(|f| &f.name == name)
                .map(|f| f.name_span)
                .collect();
            out.extend(
                ix.blocks
                    .iter()
                    .filter(|b| &b.name == owner)
                    .flat_map(|b| b.fields.iter())
                    .filter(|f| &f.name == name)
                    .map(|f| f.name_span),
            );
            out
        }
        Target::Field { .. } => Vec::new(),
    }
}

pub fn definition(v: &View, offset: usize) -> Vec<Location> {
    // On an `#include` line: the file.
    let line = v.lines.line_of(offset);
    let start = v.lines.line_start(line);
    let line_text = &v.text[start..v.lines.line_end(v.text, line)];
    if line_text.trim_start().starts_with('#') && line_text.contains("include") {
        let old = v.cur_to_old(start);
        return old
            .and_then(|o| v.tree.map.included_by_line(o))
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
    declarations(v.tree, &target)
        .into_iter()
        .filter_map(|s| v.location(s))
        .collect()
}

/// Every engine span where a target is named (declarations first when asked).
fn occurrences(v: &View, target: &Target, include_declaration: bool) -> Vec<Span> {
    let tree = v.tree;
    let mut out = if include_declaration {
        declarations(tree, target)
    } else {
        Vec::new()
    };
    match target {
        Target::Var(d) => {
            out.extend(
                tree.refs_sorted
                    .iter()
                    .filter(|(_, r)| r == d)
                    .map(|(s, _)| *s),
            );
        }
        Target::Function(name) => {
            if include_declaration {
                // Prototypes too.
                for f in &tree.index.functions {
                    if &f.name == name && !out.contains(&f.name_span) {
                        out.push(f.name_span);
                    }
                }
            }
            out.extend(
                tree.index
                    .calls
                    .iter()
                    .filter(|c| &c.name == name)
                    .map(|c| c.span),
            );
        }
        Target::Builtin(name) => out.extend(
            tree.index
                .calls
                .iter()
                .filter(|c| &c.name == name)
                .map(|c| c.span),
        ),
        Target::Struct(name) => {
            out.extend(
                tree.index
                    .type_uses
                    .iter()
                    .chain(&tree.index.calls)
                    .filter(|c| &c.name == name)
                    .map(|c| c.span),
            );
        }
        Target::Block(_) | Target::Field { .. } => {}
    }
    // Only where the text says the name (macro expansions share spans).
    let name = match target {
        Target::Var(d) => tree.model.decls[*d].name.clone(),
        Target::Function(n) | Target::Builtin(n) | Target::Struct(n) => n.clone(),
        Target::Block(i) => tree.index.blocks[*i].name.clone(),
        Target::Field { name, .. } => name.clone(),
    };
    let mut seen = HashSet::new();
    out.retain(|s| v.src_at(*s) == name && seen.insert(*s));
    out.sort_by_key(|s| s.start);
    out
}

pub fn references(v: &View, offset: usize, include_declaration: bool) -> Vec<Location> {
    let Some((target, _)) = target_at_doc(v, offset) else {
        return Vec::new();
    };
    occurrences(v, &target, include_declaration)
        .into_iter()
        .filter_map(|s| v.location(s))
        .collect()
}

/// Document highlights: the target's occurrences in this document.
pub fn highlights(v: &View, offset: usize) -> Vec<DocumentHighlight> {
    let Some((target, _)) = target_at_doc(v, offset) else {
        return Vec::new();
    };
    occurrences(v, &target, true)
        .into_iter()
        .filter_map(|s| v.doc_range(s))
        .map(|(s, e)| DocumentHighlight {
            range: v.range(s, e),
            kind: None,
        })
        .collect()
}

// ---- rename ----------------------------------------------------------------------------

const RESERVED: &[&str] = &[
    "attribute",
    "const",
    "uniform",
    "varying",
    "buffer",
    "shared",
    "coherent",
    "volatile",
    "restrict",
    "readonly",
    "writeonly",
    "layout",
    "centroid",
    "flat",
    "smooth",
    "noperspective",
    "patch",
    "sample",
    "break",
    "continue",
    "do",
    "for",
    "while",
    "switch",
    "case",
    "default",
    "if",
    "else",
    "subroutine",
    "in",
    "out",
    "inout",
    "true",
    "false",
    "invariant",
    "precise",
    "discard",
    "return",
    "struct",
    "void",
    "lowp",
    "mediump",
    "highp",
    "precision",
    "main",
];

/// Whether a target can be renamed here: locals, parameters and user functions
/// whose every occurrence is in this document.
fn renameable(v: &View, target: &Target) -> Result<(), String> {
    match target {
        Target::Var(d) => match v.tree.model.decls[*d].kind {
            DeclKind::Local | DeclKind::Param(_) => Ok(()),
            DeclKind::Builtin(_) => Err("built-in variables cannot be renamed".into()),
            DeclKind::Global(_) => Err(
                "only local variables, parameters and user functions can be renamed (a global is part of the shader's interface)".into(),
            ),
        },
        Target::Function(name) if name == "main" => Err("`main` cannot be renamed".into()),
        Target::Function(_) => Ok(()),
        _ => Err("only local variables, parameters and user functions can be renamed".into()),
    }
}

pub fn prepare_rename(v: &View, offset: usize) -> Result<Option<Range>, String> {
    let Some((target, span)) = target_at_doc(v, offset) else {
        return Ok(None);
    };
    renameable(v, &target)?;
    Ok(v.doc_range(span).map(|(s, e)| v.range(s, e)))
}

pub fn rename(v: &View, offset: usize, new_name: &str) -> Result<Option<Vec<TextEdit>>, String> {
    let Some((target, _)) = target_at_doc(v, offset) else {
        return Ok(None);
    };
    renameable(v, &target)?;
    if !text::is_identifier(new_name)
        || new_name.starts_with("gl_")
        || new_name.contains("__")
        || RESERVED.contains(&new_name)
        || shaderdbg_glsl::types::parse_type_name(new_name).is_some()
        || builtins::is_builtin_function(new_name)
    {
        return Err(format!(
            "`{new_name}` is not a name a user variable or function can have"
        ));
    }
    let mut edits = Vec::new();
    for s in occurrences(v, &target, true) {
        let Some((a, b)) = v.doc_range(s) else {
            return Err("the name is also used outside this document (an included file or the header) or in a part being edited; rename it there first".into());
        };
        edits.push(TextEdit {
            range: v.range(a, b),
            new_text: new_name.to_string(),
        });
    }
    Ok(Some(edits))
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
        if v.src_at(name).is_empty() || v.text.get(ns..ne) != Some(v.src_at(name)) {
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
                let ty = field_type(tree, &s.name, &f.name).map(|t| t.to_string());
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
                let ty = block_field_type(tree, i, &f.name).map(|t| t.to_string());
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
                Some(format!("{} — {}", decl.ty, kind_text(&decl.kind))),
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
                Some(format!("{} — {}", decl.ty, kind_text(&decl.kind))),
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
    let env = v.env();
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
                    decl_text(&p.ty, &p.name).trim_end()
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
            .map(|f| decl_text(&f.ty, &f.name))
            .collect();
        let n = params.len();
        sigs.push((
            signature_info(&format!("{name} {name}"), &params, Some("constructor")),
            n,
        ));
    }
    if sigs.is_empty() {
        let env = v.env();
        let doc = builtins::describe(name);
        for sig in builtins::function_overloads(name, &env) {
            let params: Vec<String> = sig
                .params
                .iter()
                .map(|p| format!("{}{}", dir_text(p.dir), decl_text(&p.ty, &p.name)))
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
