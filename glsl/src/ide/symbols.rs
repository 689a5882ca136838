//! The outline of a shader: its functions, structs (with fields), interface
//! blocks (with fields) and global variables, in text order.

use super::{nav, Analysis, FieldSym};
use crate::types::Type;
use crate::Span;

/// What a symbol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Function,
    Struct,
    Field,
    /// An interface block.
    Interface,
    Constant,
    Variable,
}

/// A declared name of the outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// The type or signature ("float", "uniform vec3", "uniform block ub").
    pub detail: Option<String>,
    pub kind: SymbolKind,
    /// The whole declaration (at least the name).
    pub span: Span,
    pub name_span: Span,
    pub children: Vec<Symbol>,
}

/// The symbols declared at the top level of the parsed text, sorted by
/// where they start. A name a macro makes is there with its use's span.
pub fn outline(a: &Analysis) -> Vec<Symbol> {
    let ix = &a.index;
    // `at`: the whole declaration and its name.
    let sym = |name: &str, detail, kind, at: (Span, Span), children| {
        let (whole, name_span) = at;
        if a.src_at(name_span).is_empty() {
            return None;
        }
        let span = Span {
            start: whole.start.min(name_span.start),
            end: whole.end.max(name_span.end),
        };
        Some(Symbol {
            name: name.to_string(),
            detail,
            kind,
            span,
            name_span,
            children,
        })
    };
    let fields = |list: &[FieldSym], ty: &dyn Fn(&str) -> Option<Type>| -> Vec<Symbol> {
        let field = |f: &FieldSym| {
            let detail = ty(&f.name).map(|t| t.to_string());
            let at = (f.span, f.name_span);
            sym(&f.name, detail, SymbolKind::Field, at, Vec::new())
        };
        list.iter().filter_map(field).collect()
    };
    let mut out = Vec::new();
    for f in &ix.functions {
        let signature = a
            .model
            .functions
            .iter()
            .find(|m| {
                let around = m.span.start <= f.name_span.start && f.name_span.end <= m.span.end;
                m.name == f.name && around
            })
            .map(|m| m.signature());
        let detail = match f.body {
            None => signature.map(|d| format!("{d} (prototype)")),
            Some(_) => signature,
        };
        let at = (f.span, f.name_span);
        out.extend(sym(&f.name, detail, SymbolKind::Function, at, Vec::new()));
    }
    for s in ix.structs.iter().filter(|s| s.function.is_none()) {
        let fields = fields(&s.fields, &|f| nav::field_type(a, &s.name, f));
        let detail = Some("struct".into());
        let at = (s.span, s.name_span);
        out.extend(sym(&s.name, detail, SymbolKind::Struct, at, fields));
    }
    for (i, b) in ix.blocks.iter().enumerate() {
        let fields = fields(&b.fields, &|f| nav::block_field_type(a, i, f));
        let detail = Some(match &b.instance {
            Some((inst, _)) => format!("{} block {inst}", b.storage),
            None => format!("{} block", b.storage),
        });
        let at = (b.span, b.name_span);
        out.extend(sym(&b.name, detail, SymbolKind::Interface, at, fields));
    }
    for g in &ix.globals {
        let ty = a
            .model
            .decls
            .iter()
            .zip(&a.decl_names)
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
        out.extend(sym(
            &g.name,
            detail,
            kind,
            (g.span, g.name_span),
            Vec::new(),
        ));
    }
    out.sort_by_key(|s| s.span.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::tests::analyse;

    fn show(syms: &[Symbol], depth: usize, out: &mut String) {
        for s in syms {
            let detail = s.detail.as_deref().unwrap_or("-");
            let indent = "  ".repeat(depth);
            out.push_str(&format!("{indent}{:?} {} : {detail}\n", s.kind, s.name));
            show(&s.children, depth + 1, out);
        }
    }

    #[test]
    fn outline_in_text_order_with_fields() {
        let (a, _) = analyse(
            "#version 430 core\nstruct Light { vec3 pos; float r; };\nconst float K = 2.0;\nuniform UB { vec4 tint; } ub;\nfloat f(float x);\n#define M(n) float n\nM(hidden);\nvoid main() {}\n",
        );
        let mut out = String::new();
        show(&outline(&a), 0, &mut out);
        expect_test::expect![[r#"
            Struct Light : struct
              Field pos : vec3
              Field r : float
            Constant K : const float
            Interface UB : uniform block ub
              Field tint : vec4
            Function f : float f(float x) (prototype)
            Variable hidden : -
            Function main : void main()
        "#]]
        .assert_eq(&out);
    }
}
