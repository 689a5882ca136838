//! Semantic highlighting: what each name in the parsed text is (a local, a
//! parameter, a function, a struct, a field, an interface block) and how
//! (declared here, read-only, built-in, global).

use std::collections::HashSet;

use super::Analysis;
use crate::analysis::{DeclKind, Storage};
use crate::builtins;
use crate::Span;

/// What a name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenClass {
    Variable,
    Parameter,
    Function,
    Struct,
    /// A struct or block field.
    Property,
    /// An interface block.
    Interface,
}

/// How a name is, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Modifiers(pub u32);

impl Modifiers {
    pub const DECLARATION: Modifiers = Modifiers(1);
    pub const READONLY: Modifiers = Modifiers(2);
    pub const LIBRARY: Modifiers = Modifiers(4);
    pub const GLOBAL: Modifiers = Modifiers(8);

    pub fn contains(self, m: Modifiers) -> bool {
        self.0 & m.0 == m.0
    }
}

impl std::ops::BitOr for Modifiers {
    type Output = Modifiers;
    fn bitor(self, o: Modifiers) -> Modifiers {
        Modifiers(self.0 | o.0)
    }
}

/// One classified name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub span: Span,
    pub class: TokenClass,
    pub modifiers: Modifiers,
}

fn var_token(kind: &DeclKind) -> (TokenClass, Modifiers) {
    let ro = |yes: bool| {
        if yes {
            Modifiers::READONLY
        } else {
            Modifiers::default()
        }
    };
    match kind {
        DeclKind::Local => (TokenClass::Variable, Modifiers::default()),
        DeclKind::Param(_) => (TokenClass::Parameter, Modifiers::default()),
        DeclKind::Global(s) => {
            let r = ro(matches!(s, Storage::Const | Storage::Uniform | Storage::In));
            (TokenClass::Variable, Modifiers::GLOBAL | r)
        }
        DeclKind::Builtin(s) => {
            use builtins::Storage as B;
            let r = ro(matches!(s, B::In | B::Uniform | B::Const));
            (
                TokenClass::Variable,
                Modifiers::LIBRARY | Modifiers::GLOBAL | r,
            )
        }
    }
}

/// Every name of the parsed text spelled out where it stands (not one a
/// macro produces), sorted, one per start (the one with the most modifiers)
/// and none overlapping the one before.
pub fn classify(a: &Analysis) -> Vec<Token> {
    let ix = &a.index;
    let mut toks: Vec<(Span, &str, TokenClass, Modifiers)> = Vec::new();
    let decl = Modifiers::DECLARATION;
    let none = Modifiers::default();
    for (s, d) in &a.refs_sorted {
        let var = &a.model.decls[*d];
        let (t, m) = var_token(&var.kind);
        toks.push((*s, &var.name, t, m));
    }
    for (d, s) in a.decl_names.iter().enumerate() {
        let var = &a.model.decls[d];
        if !matches!(var.kind, DeclKind::Builtin(_)) {
            let (t, m) = var_token(&var.kind);
            toks.push((*s, &var.name, t, m | decl));
        }
    }
    let user_fns: HashSet<&str> = a.model.functions.iter().map(|f| f.name.as_str()).collect();
    for f in &ix.functions {
        toks.push((f.name_span, &f.name, TokenClass::Function, decl));
    }
    for c in &ix.calls {
        if user_fns.contains(c.name.as_str()) {
            toks.push((c.span, &c.name, TokenClass::Function, none));
        } else if a.model.structs.contains_key(&c.name) {
            toks.push((c.span, &c.name, TokenClass::Struct, none));
        } else if builtins::is_builtin_function(&c.name) {
            toks.push((c.span, &c.name, TokenClass::Function, Modifiers::LIBRARY));
        }
    }
    for s in &ix.structs {
        toks.push((s.name_span, &s.name, TokenClass::Struct, decl));
        for f in &s.fields {
            toks.push((f.name_span, &f.name, TokenClass::Property, decl));
        }
    }
    for u in &ix.type_uses {
        if a.model.structs.contains_key(&u.name) {
            toks.push((u.span, &u.name, TokenClass::Struct, none));
        }
    }
    for b in &ix.blocks {
        toks.push((b.name_span, &b.name, TokenClass::Interface, decl));
        for f in &b.fields {
            toks.push((f.name_span, &f.name, TokenClass::Property, decl));
        }
    }
    for f in &ix.fields {
        toks.push((f.span, &f.name, TokenClass::Property, none));
    }
    let mut placed: Vec<Token> = toks
        .into_iter()
        .filter(|(span, name, ..)| a.src_at(*span) == *name)
        .map(|(span, _, class, modifiers)| Token {
            span,
            class,
            modifiers,
        })
        .collect();
    placed.sort_by_key(|t| (t.span.start, t.span.end, std::cmp::Reverse(t.modifiers)));
    placed.dedup_by_key(|t| t.span.start);
    let mut prev_end = 0;
    placed.retain(|t| {
        let keep = t.span.start >= prev_end;
        if keep {
            prev_end = t.span.end;
        }
        keep
    });
    placed
}
