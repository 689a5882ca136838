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
    /// A macro (index into the tree's macro definitions).
    Macro(usize),
    /// A macro the preprocessor defines (`__VERSION__`, `GL_ES`, ...).
    BuiltinMacro(String),
}

impl Target {
    /// The name as written at its declaration and uses.
    pub fn name(&self, tree: &Tree) -> String {
        match self {
            Target::Var(d) => tree.model.decls[*d].name.clone(),
            Target::Function(n) | Target::Builtin(n) | Target::Struct(n) => n.clone(),
            Target::Block(i) => tree.index.blocks[*i].name.clone(),
            Target::Field { name, .. } => name.clone(),
            Target::Macro(d) => tree.macros.defs[*d].name.clone(),
            Target::BuiltinMacro(n) => n.clone(),
        }
    }
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
    // Macro names first: what a macro use expands to carries the use's span.
    if let Some((d, s)) = tree.macros.at(t) {
        if tree.macros.defs[d].name == word {
            return Some((Target::Macro(d), s));
        }
    }
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
            // A field of a struct value the model resolved (through arrays,
            // calls, nested fields), else by the type of the text before it.
            if let Some(r) = tree
                .model
                .field_references
                .iter()
                .find(|r| r.span == f.span && r.field == word)
            {
                let ty = field_type(tree, &r.owner, &r.field).or_else(|| {
                    let b = ix.blocks.iter().position(|b| b.name == r.owner)?;
                    block_field_type(tree, b, &r.field)
                });
                return Some((
                    Target::Field {
                        owner: r.owner.clone(),
                        name: r.field.clone(),
                        ty,
                        swizzle: false,
                    },
                    f.span,
                ));
            }
            return member_target(v, f.span).map(|t| (t, f.span));
        }
    }
    // A name written in the arguments of a function-like macro's use: the
    // nodes it became carry the span of the whole invocation.
    let wspan = Span::new(ws, we - ws);
    for u in tree
        .macros
        .uses
        .iter()
        .filter(|u| u.span.end <= ws && ws - u.span.end < 4096)
    {
        let (us, inv) = (u.span.start, |s: Span| {
            s.start == u.span.start && s.end >= we
        });
        if !tree.refs_sorted.iter().any(|(s, _)| s.start == us)
            && !ix.calls.iter().any(|c| c.span.start == us)
            && !tree
                .model
                .field_references
                .iter()
                .any(|r| r.span.start == us)
        {
            continue;
        }
        if let Some((_, d)) = tree
            .refs_sorted
            .iter()
            .find(|(s, d)| inv(*s) && tree.model.decls[*d].name == word)
        {
            return Some((Target::Var(*d), wspan));
        }
        if let Some(r) = tree
            .model
            .field_references
            .iter()
            .find(|r| inv(r.span) && r.field == word)
        {
            let ty = field_type(tree, &r.owner, &r.field);
            return Some((
                Target::Field {
                    owner: r.owner.clone(),
                    name: r.field.clone(),
                    ty,
                    swizzle: false,
                },
                wspan,
            ));
        }
        if let Some(c) = ix.calls.iter().find(|c| inv(c.span) && c.name == word) {
            if is_user_fn(&c.name) {
                return Some((Target::Function(c.name.clone()), wspan));
            }
        }
    }
    if ide::is_builtin_macro(word) {
        return Some((
            Target::BuiltinMacro(word.to_string()),
            Span::new(ws, we - ws),
        ));
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

/// Spans of `word` as a whole identifier within `span` of `src`.
fn words_in(src: &str, span: Span, word: &str) -> Vec<Span> {
    let Some(t) = src.get(span.start..span.end) else {
        return Vec::new();
    };
    let b = t.as_bytes();
    t.match_indices(word)
        .filter(|(i, _)| {
            let before = *i == 0 || !text::is_ident_byte(b[i - 1]);
            let after = i + word.len() >= b.len() || !text::is_ident_byte(b[i + word.len()]);
            before && after
        })
        .map(|(i, _)| Span::new(span.start + i, word.len()))
        .collect()
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
            Storage::InOut => "shader variable",
        }
        .into(),
        DeclKind::Builtin(s) => match s {
            builtins::Storage::In => "built-in input",
            builtins::Storage::Out => "built-in output",
            builtins::Storage::InOut
            | builtins::Storage::Private
            | builtins::Storage::Buffer
            | builtins::Storage::Shared => "built-in variable",
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
        Target::Macro(d) => {
            let m = &tree.macros.defs[*d];
            let params = m
                .params
                .as_ref()
                .map(|p| format!("({})", p.join(", ")))
                .unwrap_or_default();
            let body = if m.body.is_empty() {
                String::new()
            } else {
                format!(" {}", m.body)
            };
            let mut s = code(&format!("#define {}{params}{body}", m.name));
            s.push_str("\n\nmacro");
            if let Some(w) = v.where_is(m.name_span) {
                s.push_str(&format!(", defined at {w}"));
            }
            s
        }
        Target::BuiltinMacro(name) => {
            let value = match name.as_str() {
                "__VERSION__" => format!(" {}", tree.parsed.version.number),
                "GL_ES" if tree.parsed.version.is_es() => " 1".into(),
                _ => String::new(),
            };
            format!(
                "{}\n\nbuilt-in macro ({})",
                code(&format!("#define {name}{value}")),
                env_text(&v.env())
            )
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
        Target::Field { .. } | Target::BuiltinMacro(_) => Vec::new(),
        Target::Macro(d) => {
            let name = &tree.macros.defs[*d].name;
            tree.macros
                .defs
                .iter()
                .filter(|m| &m.name == name)
                .map(|m| m.name_span)
                .collect()
        }
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
        Target::Field {
            owner,
            name,
            swizzle: false,
            ..
        } => out.extend(
            tree.model
                .field_references
                .iter()
                .filter(|r| &r.owner == owner && &r.field == name)
                .map(|r| r.span),
        ),
        Target::Macro(d) => {
            let decls = declarations(tree, target);
            out.extend(
                tree.macros
                    .occurrences(*d)
                    .into_iter()
                    .filter(|s| !decls.contains(s)),
            );
        }
        Target::Block(_) | Target::Field { .. } | Target::BuiltinMacro(_) => {}
    }
    // Where the text says the name; a name a macro use produced (its node
    // has the span of the use) counts at the macro's name there.
    let name = target.name(tree);
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    for s in out {
        let spans = if v.src_at(s) == name {
            vec![s]
        } else {
            match tree.macros.use_at(s) {
                // Written in the arguments of the invocation, or else the
                // macro's definition made it: at the use.
                Some(u) => {
                    let args = words_in(
                        v.src(),
                        Span::new(u.span.end, s.end.saturating_sub(u.span.end)),
                        &name,
                    );
                    if args.is_empty() {
                        vec![u.span]
                    } else {
                        args
                    }
                }
                None => continue,
            }
        };
        for s in spans {
            if seen.insert(s) {
                kept.push(s);
            }
        }
    }
    kept.sort_by_key(|s| s.start);
    kept
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
        Some(match self.tree.map.span_place(span)? {
            (Place::Doc(_), _) => {
                let (s, e) = self.doc_range(span)?;
                FilePlace::Doc(s, e)
            }
            (Place::Include(f, s), e) => {
                let file = &self.tree.map.files[f];
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

/// Whether a target can be renamed at all.
fn renameable(v: &View, target: &Target) -> Result<(), String> {
    let name = target.name(v.tree);
    match target {
        Target::Var(d) => match v.tree.model.decls[*d].kind {
            DeclKind::Builtin(_) => Err(format!(
                "`{name}` is a built-in variable and cannot be renamed"
            )),
            _ => Ok(()),
        },
        Target::Function(name) if name == "main" => Err("`main` cannot be renamed".into()),
        Target::Builtin(_) => Err(format!(
            "`{name}` is a built-in function and cannot be renamed"
        )),
        Target::BuiltinMacro(_) => Err(format!(
            "`{name}` is a built-in macro and cannot be renamed"
        )),
        Target::Field { swizzle: true, .. } => {
            Err(format!("`{name}` is a swizzle and cannot be renamed"))
        }
        Target::Function(_)
        | Target::Struct(_)
        | Target::Block(_)
        | Target::Field { .. }
        | Target::Macro(_) => Ok(()),
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Every declaration of the target must be in a file the client has open.
fn declared_open(v: &View, target: &Target, open: OpenFiles) -> Result<(), String> {
    let name = target.name(v.tree);
    for d in declarations(v.tree, target) {
        match v.file_place(d) {
            Some(FilePlace::Doc(..)) | None => {}
            Some(FilePlace::File { path, .. }) => {
                if open(&path).is_none() {
                    return Err(format!(
                        "`{name}` is declared in {}, which is not open in the editor; open it to rename `{name}`",
                        file_name(&path)
                    ));
                }
            }
            Some(FilePlace::Header) => {
                return Err(format!(
                    "`{name}` is declared in the configured header (setting `header`), which cannot be renamed from here"
                ))
            }
        }
    }
    Ok(())
}

/// The target to rename at a current document offset, if it can be renamed.
pub fn rename_target(
    v: &View,
    offset: usize,
    open: OpenFiles,
) -> Result<Option<(Target, Span)>, String> {
    let Some((target, span)) = target_at_doc(v, offset) else {
        return Ok(None);
    };
    renameable(v, &target)?;
    declared_open(v, &target, open)?;
    Ok(Some((target, span)))
}

pub fn prepare_rename(v: &View, offset: usize, open: OpenFiles) -> Result<Option<Range>, String> {
    let Some((_, span)) = rename_target(v, offset, open)? else {
        return Ok(None);
    };
    Ok(v.doc_range(span).map(|(s, e)| v.range(s, e)))
}

/// Whether `new_name` can replace a user name.
pub fn check_new_name(new_name: &str) -> Result<(), String> {
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
    Ok(())
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
) -> Result<Vec<(Uri, TextEdit)>, String> {
    let tree = v.tree;
    let name = target.name(tree);
    let mut spans = Vec::new();
    for s in occurrences(v, target, true) {
        if v.src_at(s) == name {
            spans.push(s);
            continue;
        }
        // The use of a macro whose expansion names the target.
        let Some(u) = tree.macros.use_at(s) else {
            continue;
        };
        let body = u
            .def
            .map(|d| tree.macros.in_body(v.src(), d, &name))
            .unwrap_or_default();
        if body.is_empty() {
            return Err(format!(
                "`{name}` is produced by the macro `{}` without being written in its definition; rename it by hand",
                u.name
            ));
        }
        spans.extend(body);
    }
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
                Some(_) => {
                    return Err(format!(
                        "{} changed since the analysis; try again",
                        file_name(&path)
                    ))
                }
                None => {
                    return Err(format!(
                        "`{name}` is also used in {}, which is not open in the editor; open it to rename `{name}`",
                        file_name(&path)
                    ))
                }
            },
            Some(FilePlace::Header) => {
                return Err(format!(
                    "`{name}` is also used in the configured header (setting `header`); it cannot be renamed from here"
                ))
            }
            None => {
                return Err(format!(
                    "`{name}` is used in the part being edited; try again when the document parses"
                ))
            }
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
    let d = *declarations(v.tree, target).first()?;
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
        Some(p) if Some(p.as_path()) != own => match v.tree.map.file_to_text(p, site.1) {
            Some(t) => t,
            None => v.tree.context.as_ref()?.to_text(p, site.1, &v.tree.map)?,
        },
        _ => v.to_text(site.1)?,
    };
    target_at(v, t).map(|(t, _)| t)
}

/// References as locations (this document, included files, the includer).
pub fn locations(v: &View, target: &Target, include_declaration: bool) -> Vec<Location> {
    occurrences(v, target, include_declaration)
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
