//! What a name stands for and where it is: the symbol at an offset
//! ([`target_at`]), its declarations and every use ([`declarations`],
//! [`occurrences`]), a description for hovers ([`describe`]), and whether
//! and how it can be renamed. All in offsets of the parsed text.

use std::collections::HashSet;

use crate::analysis::{DeclKind, Storage};
use crate::builtins::{self, BuiltinEnv, ParamDir};
use crate::{Span, Type};

use super::text;
use super::{Analysis, MemberKind};

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
    /// A macro (index into the analysis's macro definitions).
    Macro(usize),
    /// A macro the preprocessor defines (`__VERSION__`, `GL_ES`, ...).
    BuiltinMacro(String),
}

impl Target {
    /// A field of a struct or block (not a swizzle).
    fn field(owner: &str, name: &str, ty: Option<Type>) -> Target {
        Target::Field {
            owner: owner.to_string(),
            name: name.to_string(),
            ty,
            swizzle: false,
        }
    }

    /// The name as written at its declaration and uses.
    pub fn name(&self, a: &Analysis) -> String {
        match self {
            Target::Var(d) => a.model.decls[*d].name.clone(),
            Target::Function(n) | Target::Builtin(n) | Target::Struct(n) => n.clone(),
            Target::Block(i) => a.index.blocks[*i].name.clone(),
            Target::Field { name, .. } => name.clone(),
            Target::Macro(d) => a.macros.defs[*d].name.clone(),
            Target::BuiltinMacro(n) => n.clone(),
        }
    }
}

fn contains(s: Span, t: usize) -> bool {
    s.start <= t && t <= s.end && s.end > s.start
}

/// What the identifier at engine offset `t` stands for, and its span.
pub fn target_at(a: &Analysis, t: usize) -> Option<(Target, Span)> {
    let src = a.src();
    let (ws, we) = text::word_at(src, t)?;
    let word = &src[ws..we];
    let here = |s: Span| contains(s, t) && a.src_at(s) == word;
    // Macro names first: what a macro use expands to carries the use's span.
    if let Some((d, s)) = a.macros.at(t) {
        if a.macros.defs[d].name == word {
            return Some((Target::Macro(d), s));
        }
    }
    // Variable uses.
    let k = a.refs_sorted.partition_point(|(s, _)| s.start <= t);
    for (s, d) in a.refs_sorted[..k].iter().rev().take(4) {
        if here(*s) && a.model.decls[*d].name == word {
            return Some((Target::Var(*d), *s));
        }
    }
    // Variable declarations.
    for (d, s) in a.decl_names.iter().enumerate() {
        if here(*s)
            && a.model.decls[d].name == word
            && !matches!(a.model.decls[d].kind, DeclKind::Builtin(_))
        {
            return Some((Target::Var(d), *s));
        }
    }
    let ix = &a.index;
    let is_user_fn = |n: &str| a.model.functions.iter().any(|f| f.name == n);
    for f in &ix.functions {
        if here(f.name_span) {
            return Some((Target::Function(f.name.clone()), f.name_span));
        }
    }
    for c in &ix.calls {
        if here(c.span) {
            let t = if is_user_fn(&c.name) {
                Target::Function(c.name.clone())
            } else if a.model.structs.contains_key(&c.name) {
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
                let ty = field_type(a, &s.name, &f.name);
                return Some((Target::field(&s.name, &f.name, ty), f.name_span));
            }
        }
    }
    for u in &ix.type_uses {
        if here(u.span) && a.model.structs.contains_key(&u.name) {
            return Some((Target::Struct(u.name.clone()), u.span));
        }
    }
    for (i, b) in ix.blocks.iter().enumerate() {
        if here(b.name_span) {
            return Some((Target::Block(i), b.name_span));
        }
        for f in &b.fields {
            if here(f.name_span) {
                let ty = block_field_type(a, i, &f.name);
                return Some((Target::field(&b.name, &f.name, ty), f.name_span));
            }
        }
    }
    for f in &ix.fields {
        if here(f.span) {
            // A field of a struct value the model resolved (through arrays,
            // calls, nested fields), else by the type of the text before it.
            if let Some(r) = a
                .model
                .field_references
                .iter()
                .find(|r| r.span == f.span && r.field == word)
            {
                let ty = field_type(a, &r.owner, &r.field).or_else(|| {
                    let b = ix.blocks.iter().position(|b| b.name == r.owner)?;
                    block_field_type(a, b, &r.field)
                });
                return Some((Target::field(&r.owner, &r.field, ty), f.span));
            }
            return member_target(a, f.span).map(|t| (t, f.span));
        }
    }
    // A name written in the arguments of a function-like macro's use: the
    // nodes it became carry the span of the whole invocation.
    let wspan = Span::new(ws, we - ws);
    for u in a
        .macros
        .uses
        .iter()
        .filter(|u| u.span.end <= ws && ws - u.span.end < 4096)
    {
        let (us, inv) = (u.span.start, |s: Span| {
            s.start == u.span.start && s.end >= we
        });
        if !a.refs_sorted.iter().any(|(s, _)| s.start == us)
            && !ix.calls.iter().any(|c| c.span.start == us)
            && !a.model.field_references.iter().any(|r| r.span.start == us)
        {
            continue;
        }
        if let Some((_, d)) = a
            .refs_sorted
            .iter()
            .find(|(s, d)| inv(*s) && a.model.decls[*d].name == word)
        {
            return Some((Target::Var(*d), wspan));
        }
        if let Some(r) = a
            .model
            .field_references
            .iter()
            .find(|r| inv(r.span) && r.field == word)
        {
            let ty = field_type(a, &r.owner, &r.field);
            return Some((Target::field(&r.owner, &r.field, ty), wspan));
        }
        if let Some(c) = ix.calls.iter().find(|c| inv(c.span) && c.name == word) {
            if is_user_fn(&c.name) {
                return Some((Target::Function(c.name.clone()), wspan));
            }
        }
    }
    if super::is_builtin_macro(word) {
        return Some((
            Target::BuiltinMacro(word.to_string()),
            Span::new(ws, we - ws),
        ));
    }
    // A built-in variable the model never resolved (e.g. in dead code).
    None
}

pub fn field_type(a: &Analysis, owner: &str, field: &str) -> Option<Type> {
    a.model
        .structs
        .get(owner)?
        .fields
        .iter()
        .find(|f| f.name == field)
        .map(|f| f.ty.clone())
}

pub fn block_field_type(a: &Analysis, block: usize, field: &str) -> Option<Type> {
    let b = &a.index.blocks[block];
    // Members of a block without instance name are globals of the model; the
    // instance of one with a name has the block as its (struct) type.
    if let Some((inst, _)) = &b.instance {
        let d = a
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
    a.model
        .decls
        .iter()
        .find(|d| d.name == field && matches!(d.kind, DeclKind::Global(_)))
        .map(|d| d.ty.clone())
}

/// The field or swizzle selected at `field` (the name after a `.`).
fn member_target(a: &Analysis, field: Span) -> Option<Target> {
    let src = a.src();
    let mut dot = field.start;
    while dot > 0 && src.as_bytes()[dot - 1] == b' ' {
        dot -= 1;
    }
    if dot == 0 || src.as_bytes()[dot - 1] != b'.' {
        return None;
    }
    let dot = dot - 1;
    let start = text::expr_start_before(src, dot)?;
    let mut scope = super::scope_at(&a.parsed, start);
    let base = scope.type_of(&src[start..dot])?;
    let name = a.src_at(field).to_string();
    let member = super::members(&base)
        .into_iter()
        .find(|m| m.name == name)
        .or_else(|| {
            // Any valid swizzle, not only the listed ones.
            let n = match base {
                Type::Vector(_, n) => n,
                Type::Scalar(_) => 1,
                _ => return None,
            };
            let idx = crate::analysis::swizzle_indices(&name, n)?;
            Some(super::Member {
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

// ---- hover --------------------------------------------------------------------------

pub fn kind_text(kind: &DeclKind) -> String {
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

pub use crate::types::decl_text;

fn struct_text(a: &Analysis, name: &str) -> Option<String> {
    let s = a.model.structs.get(name)?;
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

/// The markdown hover text for a target; `where_is` says where a span is
/// for people ("line 12", "common.glsl:3").
pub fn describe(
    a: &Analysis,
    target: &Target,
    where_is: &dyn Fn(Span) -> Option<String>,
) -> Option<String> {
    Some(match target {
        Target::Var(d) => {
            let decl = &a.model.decls[*d];
            let mut s = code(&decl_text(&decl.ty, &decl.name));
            s.push_str("\n\n");
            s.push_str(&kind_text(&decl.kind));
            if let DeclKind::Builtin(_) = decl.kind {
                if let Some(doc) = builtins::describe(&decl.name) {
                    s.push_str(&format!(": {doc}"));
                }
                s.push_str(&format!(" ({})", env_text(&a.env())));
            } else {
                if let Some(f) = decl.function.and_then(|f| a.model.functions.get(f)) {
                    s.push_str(&format!(" of `{}`", f.name));
                }
                if let Some(w) = where_is(a.decl_names[*d]) {
                    s.push_str(&format!(", declared at {w}"));
                }
            }
            s
        }
        Target::Function(name) => {
            let overloads: Vec<String> = a
                .model
                .functions
                .iter()
                .filter(|f| &f.name == name)
                .map(|f| f.signature())
                .collect();
            let mut s = code(&overloads.join("\n"));
            let defs: Vec<String> = a
                .index
                .functions
                .iter()
                .filter(|f| &f.name == name && f.body.is_some())
                .filter_map(|f| where_is(f.name_span))
                .collect();
            s.push_str("\n\nuser function");
            if !defs.is_empty() {
                s.push_str(&format!(", defined at {}", defs.join(", ")));
            }
            s
        }
        Target::Builtin(name) => {
            let env = a.env();
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
            let mut s = code(&struct_text(a, name)?);
            if let Some(st) = a.index.structs.iter().find(|s| &s.name == name) {
                if let Some(w) = where_is(st.name_span) {
                    s.push_str(&format!("\n\nstruct, declared at {w}"));
                }
            }
            s
        }
        Target::Block(i) => {
            let b = &a.index.blocks[*i];
            let mut s = format!("{} {} {{\n", b.storage, b.name);
            for f in &b.fields {
                let ty = block_field_type(a, *i, &f.name)
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
            let m = &a.macros.defs[*d];
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
            if let Some(w) = where_is(m.name_span) {
                s.push_str(&format!(", defined at {w}"));
            }
            s
        }
        Target::BuiltinMacro(name) => {
            let value = match name.as_str() {
                "__VERSION__" => format!(" {}", a.parsed.version.number),
                "GL_ES" if a.parsed.version.is_es() => " 1".into(),
                _ => String::new(),
            };
            format!(
                "{}\n\nbuilt-in macro ({})",
                code(&format!("#define {name}{value}")),
                env_text(&a.env())
            )
        }
    })
}

// ---- definition and references ---------------------------------------------------

/// Where a target is declared (engine spans of names).
pub fn declarations(a: &Analysis, target: &Target) -> Vec<Span> {
    let ix = &a.index;
    match target {
        Target::Var(d) => match a.model.decls[*d].kind {
            DeclKind::Builtin(_) => Vec::new(),
            _ => vec![a.decl_names[*d]],
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
            let name = &a.macros.defs[*d].name;
            a.macros
                .defs
                .iter()
                .filter(|m| &m.name == name)
                .map(|m| m.name_span)
                .collect()
        }
    }
}

/// Every engine span where a target is named (declarations first when asked).
pub fn occurrences(a: &Analysis, target: &Target, include_declaration: bool) -> Vec<Span> {
    let mut out = if include_declaration {
        declarations(a, target)
    } else {
        Vec::new()
    };
    match target {
        Target::Var(d) => {
            out.extend(
                a.refs_sorted
                    .iter()
                    .filter(|(_, r)| r == d)
                    .map(|(s, _)| *s),
            );
        }
        Target::Function(name) => {
            if include_declaration {
                // Prototypes too.
                for f in &a.index.functions {
                    if &f.name == name && !out.contains(&f.name_span) {
                        out.push(f.name_span);
                    }
                }
            }
            out.extend(
                a.index
                    .calls
                    .iter()
                    .filter(|c| &c.name == name)
                    .map(|c| c.span),
            );
        }
        Target::Builtin(name) => out.extend(
            a.index
                .calls
                .iter()
                .filter(|c| &c.name == name)
                .map(|c| c.span),
        ),
        Target::Struct(name) => {
            out.extend(
                a.index
                    .type_uses
                    .iter()
                    .chain(&a.index.calls)
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
            a.model
                .field_references
                .iter()
                .filter(|r| &r.owner == owner && &r.field == name)
                .map(|r| r.span),
        ),
        Target::Macro(d) => {
            let decls = declarations(a, target);
            out.extend(
                a.macros
                    .occurrences(*d)
                    .into_iter()
                    .filter(|s| !decls.contains(s)),
            );
        }
        Target::Block(_) | Target::Field { .. } | Target::BuiltinMacro(_) => {}
    }
    // Where the text says the name; a name a macro use produced (its node
    // has the span of the use) counts at the macro's name there.
    let name = target.name(a);
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    for s in out {
        let spans = if a.src_at(s) == name {
            vec![s]
        } else {
            match a.macros.use_at(s) {
                // Written in the arguments of the invocation, or else the
                // macro's definition made it: at the use.
                Some(u) => {
                    let args = words_in(
                        a.src(),
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

// ---- rename ----------------------------------------------------------------------

/// Why a name cannot be renamed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenameError {
    #[error("`{0}` is a built-in variable and cannot be renamed")]
    BuiltinVariable(String),
    #[error("`main` cannot be renamed")]
    Main,
    #[error("`{0}` is a built-in function and cannot be renamed")]
    BuiltinFunction(String),
    #[error("`{0}` is a built-in macro and cannot be renamed")]
    BuiltinMacro(String),
    #[error("`{0}` is a swizzle and cannot be renamed")]
    Swizzle(String),
    #[error("`{0}` is not a name a user variable or function can have")]
    BadName(String),
    #[error("`{name}` is produced by the macro `{macro_name}` without being written in its definition; rename it by hand")]
    MadeByMacro { name: String, macro_name: String },
}

/// Whether a target can be renamed at all.
pub fn renameable(a: &Analysis, target: &Target) -> Result<(), RenameError> {
    let name = target.name(a);
    match target {
        Target::Var(d) => match a.model.decls[*d].kind {
            DeclKind::Builtin(_) => Err(RenameError::BuiltinVariable(name)),
            _ => Ok(()),
        },
        Target::Function(name) if name == "main" => Err(RenameError::Main),
        Target::Builtin(_) => Err(RenameError::BuiltinFunction(name)),
        Target::BuiltinMacro(_) => Err(RenameError::BuiltinMacro(name)),
        Target::Field { swizzle: true, .. } => Err(RenameError::Swizzle(name)),
        Target::Function(_)
        | Target::Struct(_)
        | Target::Block(_)
        | Target::Field { .. }
        | Target::Macro(_) => Ok(()),
    }
}

/// Whether `new_name` can replace a user name.
pub fn check_new_name(new_name: &str) -> Result<(), RenameError> {
    if !text::is_identifier(new_name)
        || new_name.starts_with("gl_")
        || new_name.contains("__")
        || new_name == "main"
        || super::is_reserved_word(new_name)
        || builtins::is_builtin_function(new_name)
    {
        return Err(RenameError::BadName(new_name.to_string()));
    }
    Ok(())
}

/// The spans to replace to rename `target`: its occurrences where the text
/// says the name; for a name a macro produces, the name in the macro's
/// definition.
pub fn rename_spans(a: &Analysis, target: &Target) -> Result<Vec<Span>, RenameError> {
    let name = target.name(a);
    let mut spans = Vec::new();
    for s in occurrences(a, target, true) {
        if a.src_at(s) == name {
            spans.push(s);
            continue;
        }
        // The use of a macro whose expansion names the target.
        let Some(u) = a.macros.use_at(s) else {
            continue;
        };
        let body = u
            .def
            .map(|d| a.macros.in_body(a.src(), d, &name))
            .unwrap_or_default();
        if body.is_empty() {
            return Err(RenameError::MadeByMacro {
                name,
                macro_name: u.name.clone(),
            });
        }
        spans.extend(body);
    }
    Ok(spans)
}
