//! Inline values: which variables an editor can show the value of at a
//! debugger stop.

use std::collections::{HashMap, HashSet};

use super::{scope_at, Analysis};
use crate::analysis::DeclKind;
use crate::Span;

/// A place where a variable gets a value, named as the debug adapter names
/// the variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineVariable {
    pub span: Span,
    pub name: String,
}

/// For a stop at `stop` (an offset of the parsed text): the parameters of
/// the function around it and every write (declaration with a value,
/// assignment, `++`/`--`) in it of a variable in scope at the stop, sorted
/// by span, one per start. The editor keeps those on the lines it shows, up
/// to the stopped line.
pub fn variables_in(a: &Analysis, stop: usize) -> Vec<InlineVariable> {
    let Some(fi) = a.index.function_at(stop) else {
        return Vec::new();
    };
    let func = &a.index.functions[fi];
    let scope = scope_at(&a.parsed, stop);
    // What is visible there, by declaration span (the scope walk has its own ids).
    let visible: HashSet<Span> = scope
        .locals()
        .into_iter()
        .chain(scope.globals())
        .map(|d| scope.model.decls[d].span)
        .collect();
    let decl_of_span: HashMap<Span, usize> = a
        .decl_names
        .iter()
        .enumerate()
        .map(|(d, s)| (*s, d))
        .collect();
    let ref_at: HashMap<Span, usize> = a.refs_sorted.iter().copied().collect();
    let is_visible = |d: usize| {
        let decl = &a.model.decls[d];
        matches!(decl.kind, DeclKind::Builtin(_)) || visible.contains(&decl.span)
    };
    let params = func.params.iter().map(|p| {
        (
            p.name_span,
            &p.name,
            decl_of_span.get(&p.name_span).copied(),
        )
    });
    let writes = a
        .index
        .writes
        .iter()
        .filter(|w| w.function == Some(fi))
        .map(|w| {
            let by_span = if w.declaration {
                &decl_of_span
            } else {
                &ref_at
            };
            (w.span, &w.name, by_span.get(&w.span).copied())
        });
    let mut out: Vec<InlineVariable> = params
        .chain(writes)
        .filter(|(span, name, d)| d.is_some_and(is_visible) && a.src_at(*span) == name.as_str())
        .map(|(span, name, _)| InlineVariable {
            span,
            name: name.clone(),
        })
        .collect();
    out.sort_by_key(|v| v.span.start);
    out.dedup_by_key(|v| v.span.start);
    out
}
