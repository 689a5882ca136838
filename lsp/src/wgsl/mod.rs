//! WGSL documents through naga: diagnostics from its front end and
//! validator; symbols, hover and definition from a small declaration scanner
//! (which also works on text naga rejects) with types from the last module
//! naga accepted. The other requests are in [`features`].

pub mod builtins;
pub mod features;

use std::collections::HashMap;
use std::sync::Arc;

use naga::common::wgsl::TypeContext;
use naga::valid::{Capabilities, ValidationFlags, Validator};
use tower_lsp_server::gen_lsp_types::*;

use crate::line_index::LineIndex;
use crate::Diag;

/// What a declaration declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Function,
    Struct,
    Member,
    Var,
    Const,
    Override,
    Alias,
    Let,
    Param,
}

/// A declaration found in the text.
#[derive(Clone, Debug)]
pub struct Decl {
    pub name: String,
    pub kind: Kind,
    /// The name's byte range.
    pub name_span: (usize, usize),
    /// The whole declaration (for symbols): to its `;` or closing brace.
    pub span: (usize, usize),
    /// Where the name is visible (the whole text for module scope).
    pub scope: (usize, usize),
    /// The function (index into decls) it is local to.
    pub function: Option<usize>,
    /// The struct a member belongs to (index into decls).
    pub parent: Option<usize>,
}

/// Types of a module naga accepted.
pub struct Types {
    /// Global name -> type text (vars, consts, overrides).
    globals: HashMap<String, String>,
    /// Function name -> signature.
    functions: HashMap<String, String>,
    /// Function name -> local name -> type (vars, lets, params).
    locals: HashMap<String, HashMap<String, String>>,
    /// Struct name -> members with types.
    structs: HashMap<String, Vec<(String, String)>>,
    /// Entry point name -> stage.
    stages: HashMap<String, String>,
    /// The text naga accepted (with the host's block when it was added):
    /// [`Types::type_of_expression`] lowers expressions against it.
    source: String,
    /// How much of `source` is the document's text.
    text_len: usize,
    /// (struct, member) -> the spans of the member's name in every access
    /// of it naga lowered (`a.pos`, `f().pos`, `(*p).pos`), in `source`.
    member_uses: HashMap<(String, String), Vec<(usize, usize)>>,
}

impl Types {
    /// The spans of every member access naga found, if `text` is the text
    /// it analysed.
    pub fn all_member_uses<'a>(&'a self, text: &str) -> impl Iterator<Item = (usize, usize)> + 'a {
        let current = self.source.get(..self.text_len) == Some(text);
        self.member_uses
            .values()
            .flatten()
            .copied()
            .filter(move |s| current && s.1 <= self.text_len)
    }

    /// The spans of the uses of `member` of struct `owner` naga found, if
    /// `text` is the text it analysed (else the spans would be stale).
    pub fn member_uses(&self, text: &str, owner: &str, member: &str) -> Option<&[(usize, usize)]> {
        if self.source.get(..self.text_len) != Some(text) {
            return None;
        }
        Some(
            self.member_uses
                .get(&(owner.to_string(), member.to_string()))
                .map_or(&[][..], Vec::as_slice),
        )
    }

    /// The type (naga's WGSL spelling) of the expression `expr`, whose free
    /// names are module-scope ones and `locals` (name, type): naga lowers a
    /// function that takes `locals` as parameters and discards `expr`,
    /// appended to the text it accepted, and its typifier resolves the
    /// expression. `None` where naga rejects it.
    pub fn type_of_expression(&self, locals: &[(String, String)], expr: &str) -> Option<String> {
        const PROBE: &str = "shaderdbg_lsp_probe";
        let params: Vec<String> = locals.iter().map(|(n, t)| format!("{n}: {t}")).collect();
        let src = format!(
            "{}\nfn {PROBE}({}) {{\n    _ = {expr};\n}}\n",
            self.source,
            params.join(", ")
        );
        let module = naga::front::wgsl::parse_str(&src).ok()?;
        let (_, f) = module
            .functions
            .iter()
            .find(|(_, f)| f.name.as_deref() == Some(PROBE))?;
        // naga names the value of a phony assignment `phony` (after the
        // parameters, which are named expressions too).
        let (&h, _) = f
            .named_expressions
            .iter()
            .rev()
            .find(|(_, n)| n.as_str() == "phony")?;
        let mut typifier = naga::front::Typifier::new();
        let ctx =
            naga::proc::ResolveContext::with_locals(&module, &f.local_variables, &f.arguments);
        typifier.grow(h, &f.expressions, &ctx).ok()?;
        Some(module.types.type_resolution_to_string(&typifier[h]))
    }
}

/// The analysis of one version of a WGSL document.
pub struct Analysis {
    pub diags: Vec<Diag>,
    /// Types from this version, if naga parsed it.
    pub types: Option<Arc<Types>>,
}

/// A view of a document for queries: its declarations and the best types.
pub struct View<'a> {
    pub text: &'a str,
    pub lines: &'a LineIndex,
    pub uri: &'a Uri,
    pub decls: Vec<Decl>,
    pub types: Option<&'a Types>,
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(src) = cur {
        let m = src.to_string();
        if !s.contains(&m) {
            s.push_str(": ");
            s.push_str(&m);
        }
        cur = src.source();
    }
    s
}

fn range_of(span: naga::Span, len: usize) -> (usize, usize) {
    match span.to_range() {
        Some(r) => (r.start.min(len), r.end.min(len).max(r.start.min(len))),
        None => (0, 0),
    }
}

/// The uniform block the built-in host gives a WGSL shader that does not
/// declare `host` or `Host` (host/README.md, "WGSL").
pub use shaderdbg_wgsl::HOST_PRELUDE;

/// Whether `text` uses `host` without declaring `host` or `Host` at module
/// scope: a shader for the built-in host, analysed with [`HOST_PRELUDE`]
/// appended (after the text, so every span is the file's own).
pub fn uses_host_prelude(text: &str) -> bool {
    tokens(text).iter().any(|(t, _)| *t == Tok::Ident("host"))
        && !scan(text).iter().any(|d| {
            d.function.is_none() && d.kind != Kind::Member && (d.name == "host" || d.name == "Host")
        })
}

/// Parses and validates a document.
pub fn analyze(text: &str, max_size: usize) -> Analysis {
    if text.len() > max_size {
        return Analysis {
            diags: vec![Diag::new(
                0,
                0,
                DiagnosticSeverity::Warning,
                format!(
                    "not analysed: the file has {} bytes, more than maxFileSize ({max_size})",
                    text.len()
                ),
            )],
            types: None,
        };
    }
    let with_prelude;
    let source = if uses_host_prelude(text) {
        with_prelude = if text.ends_with('\n') || text.is_empty() {
            format!("{text}{HOST_PRELUDE}")
        } else {
            format!("{text}\n{HOST_PRELUDE}")
        };
        with_prelude.as_str()
    } else {
        text
    };
    let module = match naga::front::wgsl::parse_str(source) {
        Ok(m) => m,
        Err(e) => {
            let mut labels = e.labels();
            let (start, end, label) = match labels.next() {
                Some((span, label)) => {
                    let (s, e) = range_of(span, text.len());
                    (s, e, label.to_string())
                }
                None => (0, 0, String::new()),
            };
            let mut msg = e.message().to_string();
            if !label.is_empty() && label != msg {
                msg.push_str(&format!(" ({label})"));
            }
            for note in e.notes() {
                msg.push_str(&format!("\nnote: {note}"));
            }
            return Analysis {
                diags: vec![Diag::new(start, end, DiagnosticSeverity::Error, msg)],
                types: None,
            };
        }
    };
    let mut diags = Vec::new();
    let info = match Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module) {
        Ok(info) => Some(info),
        Err(e) if return_type_error(&module, e.as_inner()).is_some() => {
            let (span, msg) = return_type_error(&module, e.as_inner()).expect("checked");
            let (start, end) = range_of(span, text.len());
            diags.push(Diag::new(start, end, DiagnosticSeverity::Error, msg));
            None
        }
        Err(e) => {
            let msg = error_chain(e.as_inner());
            let mut spans = e.spans();
            let (start, end) = match spans.next() {
                Some((s, _)) => range_of(*s, text.len()),
                // Naga has no span for some errors: the name of what is invalid.
                None => {
                    use naga::valid::ValidationError as V;
                    let name = match e.as_inner() {
                        V::Type { name, .. }
                        | V::Constant { name, .. }
                        | V::Override { name, .. }
                        | V::GlobalVariable { name, .. }
                        | V::Function { name, .. }
                        | V::EntryPoint { name, .. } => Some(name.as_str()),
                        _ => None,
                    };
                    name.and_then(|n| {
                        scan(text)
                            .into_iter()
                            .find(|d| d.name == n && d.function.is_none())
                            .map(|d| d.name_span)
                    })
                    .unwrap_or((0, 0))
                }
            };
            let mut d = Diag::new(start, end, DiagnosticSeverity::Error, msg);
            let labels: Vec<String> = e
                .spans()
                .filter(|(_, l)| !l.is_empty())
                .map(|(_, l)| l.clone())
                .collect();
            if !labels.is_empty() {
                d.message.push_str(&format!(" ({})", labels.join("; ")));
            }
            diags.push(d);
            None
        }
    };
    Analysis {
        diags,
        types: Some(Arc::new(types_of(
            &module,
            info.as_ref(),
            source,
            text.len(),
        ))),
    }
}

/// naga's "The `return` expression Some([12]) does not match the declared
/// return type Some([4])" told with the types' names, on the `return`
/// statement (naga gives a loaded local no span, so the error has none).
fn return_type_error(
    module: &naga::Module,
    e: &naga::valid::ValidationError,
) -> Option<(naga::Span, String)> {
    use naga::valid::{EntryPointError as EP, FunctionError as F, ValidationError as V};
    let (f, source) = match e {
        V::Function { handle, source, .. } => (module.functions.try_get(*handle).ok()?, source),
        V::EntryPoint {
            name,
            source: EP::Function(source),
            ..
        } => (
            &module
                .entry_points
                .iter()
                .find(|ep| &ep.name == name)?
                .function,
            source,
        ),
        _ => return None,
    };
    let F::InvalidReturnType {
        expression: Some(value),
        expected_ty,
    } = source
    else {
        return None;
    };
    let mut typifier = naga::front::Typifier::new();
    let ctx = naga::proc::ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
    typifier.grow(*value, &f.expressions, &ctx).ok()?;
    let got = module.types.type_resolution_to_string(&typifier[*value]);
    let name = f.name.as_deref().unwrap_or("the function");
    let msg = match expected_ty {
        Some(t) => format!(
            "`{name}` returns `{}`, but this `return` gives a `{got}`",
            module.types.type_to_string(*t)
        ),
        None => format!("`{name}` returns nothing, but this `return` gives a `{got}`"),
    };
    Some((return_span(&f.body, *value)?, msg))
}

/// The span of the `return` statement in `block` that returns `value`.
fn return_span(block: &naga::Block, value: naga::Handle<naga::Expression>) -> Option<naga::Span> {
    use naga::Statement as S;
    block.span_iter().find_map(|(stmt, span)| match stmt {
        S::Return { value: Some(v) } if *v == value => Some(*span),
        S::Block(b) => return_span(b, value),
        S::If { accept, reject, .. } => {
            return_span(accept, value).or_else(|| return_span(reject, value))
        }
        S::Switch { cases, .. } => cases.iter().find_map(|c| return_span(&c.body, value)),
        S::Loop {
            body, continuing, ..
        } => return_span(body, value).or_else(|| return_span(continuing, value)),
        _ => None,
    })
}

/// Every access of a struct member in function `f`, by (struct, member):
/// the span of the member's name (the end of the access expression's span).
/// The types of the bases are the validator's (`finfo`) or, when the module
/// did not validate, naga's typifier's.
fn member_accesses(
    module: &naga::Module,
    f: &naga::Function,
    finfo: Option<&naga::valid::FunctionInfo>,
    source: &str,
    out: &mut HashMap<(String, String), Vec<(usize, usize)>>,
) {
    let mut typifier = naga::front::Typifier::new();
    if finfo.is_none() {
        let ctx = naga::proc::ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
        if let Some((last, _)) = f.expressions.iter().last() {
            if typifier.grow(last, &f.expressions, &ctx).is_err() {
                return;
            }
        }
    }
    for (h, e) in f.expressions.iter() {
        let naga::Expression::AccessIndex { base, index } = *e else {
            continue;
        };
        let resolution = match finfo {
            Some(fi) if base.index() < fi.expression_count() => &fi[base].ty,
            Some(_) => continue,
            None => &typifier[base],
        };
        let ty = match resolution {
            naga::proc::TypeResolution::Handle(t) => *t,
            naga::proc::TypeResolution::Value(naga::TypeInner::Pointer { base, .. }) => *base,
            naga::proc::TypeResolution::Value(_) => continue,
        };
        let ty = match module.types[ty].inner {
            naga::TypeInner::Pointer { base, .. } => base,
            _ => ty,
        };
        let (Some(owner), naga::TypeInner::Struct { members, .. }) =
            (&module.types[ty].name, &module.types[ty].inner)
        else {
            continue;
        };
        let Some(name) = members.get(index as usize).and_then(|m| m.name.as_ref()) else {
            continue;
        };
        let Some(span) = f.expressions.get_span(h).to_range() else {
            continue;
        };
        let start = span.end.saturating_sub(name.len());
        if source.get(start..span.end) == Some(name.as_str()) {
            out.entry((owner.clone(), name.clone()))
                .or_default()
                .push((start, span.end));
        }
    }
}

fn types_of(
    module: &naga::Module,
    info: Option<&naga::valid::ModuleInfo>,
    source: &str,
    text_len: usize,
) -> Types {
    let tys = &module.types;
    let ty = |h| tys.type_to_string(h);
    let mut globals = HashMap::new();
    for (_, g) in module.global_variables.iter() {
        if let Some(n) = &g.name {
            globals.insert(n.clone(), ty(g.ty));
        }
    }
    for (_, c) in module.constants.iter() {
        if let Some(n) = &c.name {
            globals.insert(n.clone(), ty(c.ty));
        }
    }
    for (_, o) in module.overrides.iter() {
        if let Some(n) = &o.name {
            globals.insert(n.clone(), ty(o.ty));
        }
    }
    let mut structs = HashMap::new();
    for (_, t) in tys.iter() {
        if let (Some(name), naga::TypeInner::Struct { members, .. }) = (&t.name, &t.inner) {
            structs.insert(
                name.clone(),
                members
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), ty(m.ty)))
                    .collect(),
            );
        }
    }
    let mut functions = HashMap::new();
    let mut locals = HashMap::new();
    let mut stages = HashMap::new();
    let mut member_uses = HashMap::new();
    let mut add = |name: &str, f: &naga::Function, finfo: Option<&naga::valid::FunctionInfo>| {
        member_accesses(module, f, finfo, source, &mut member_uses);
        let args: Vec<String> = f
            .arguments
            .iter()
            .map(|a| format!("{}: {}", a.name.as_deref().unwrap_or("_"), ty(a.ty)))
            .collect();
        let ret = f
            .result
            .as_ref()
            .map_or_else(String::new, |r| format!(" -> {}", ty(r.ty)));
        functions.insert(
            name.to_string(),
            format!("fn {name}({}){ret}", args.join(", ")),
        );
        let mut l = HashMap::new();
        for a in &f.arguments {
            if let Some(n) = &a.name {
                l.insert(n.clone(), ty(a.ty));
            }
        }
        for (_, v) in f.local_variables.iter() {
            if let Some(n) = &v.name {
                l.entry(n.clone()).or_insert_with(|| ty(v.ty));
            }
        }
        if let Some(finfo) = finfo {
            for (h, n) in f.named_expressions.iter() {
                if h.index() < finfo.expression_count() {
                    l.entry(n.clone())
                        .or_insert_with(|| tys.type_resolution_to_string(&finfo[*h].ty));
                }
            }
        }
        locals.insert(name.to_string(), l);
    };
    for (h, f) in module.functions.iter() {
        if let Some(n) = &f.name {
            add(n, f, info.map(|i| &i[h]));
        }
    }
    for (i, ep) in module.entry_points.iter().enumerate() {
        add(
            &ep.name,
            &ep.function,
            info.map(|inf| inf.get_entry_point(i)),
        );
        stages.insert(ep.name.clone(), format!("{:?}", ep.stage).to_lowercase());
    }
    Types {
        globals,
        functions,
        locals,
        structs,
        stages,
        source: source.to_string(),
        text_len,
        member_uses,
    }
}

// ---- the declaration scanner -------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Punct(u8),
}

fn tokens(text: &str) -> Vec<(Tok<'_>, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            // WGSL block comments nest.
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            out.push((Tok::Ident(&text[s..i]), s));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else {
            out.push((Tok::Punct(c), i));
            i += 1;
        }
    }
    out
}

/// The index of the first token after the attribute that starts at token
/// `at` (`@name` or `@name(args)`).
fn after_attribute(toks: &[(Tok<'_>, usize)], at: usize) -> usize {
    let mut i = at + 2;
    if let Some((Tok::Punct(b'('), _)) = toks.get(i) {
        let mut depth = 0;
        while i < toks.len() {
            match toks[i].0 {
                Tok::Punct(b'(') => depth += 1,
                Tok::Punct(b')') => depth -= 1,
                _ => {}
            }
            i += 1;
            if depth == 0 {
                break;
            }
        }
    }
    i
}

/// The declarations of a WGSL text, in order.
pub fn scan(text: &str) -> Vec<Decl> {
    let toks = tokens(text);
    let mut decls: Vec<Decl> = Vec::new();
    // Open braces: (offset, function decl index if it is a function body, struct index).
    let mut blocks: Vec<(usize, Option<usize>, Option<usize>)> = Vec::new();
    let mut pending_fn: Option<usize> = None;
    let mut pending_struct: Option<usize> = None;
    let mut current_fn: Option<usize> = None;
    let mut paren_depth = 0usize;
    let mut in_params_of: Option<usize> = None;
    let mut open_decls: Vec<usize> = Vec::new(); // decls whose span ends at `;`
    let end_of_block = |from: usize| -> usize {
        let mut depth = 0i32;
        for (t, off) in &toks {
            if *off < from {
                continue;
            }
            match t {
                Tok::Punct(b'{') => depth += 1,
                Tok::Punct(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        return off + 1;
                    }
                }
                _ => {}
            }
        }
        text.len()
    };
    let scope_end = |blocks: &Vec<(usize, Option<usize>, Option<usize>)>| -> usize {
        blocks
            .last()
            .map_or(text.len(), |(o, _, _)| end_of_block(*o))
    };
    let mut i = 0;
    while i < toks.len() {
        let (tok, off) = toks[i];
        match tok {
            Tok::Punct(b'@') => {
                i = after_attribute(&toks, i);
                continue;
            }
            Tok::Punct(b'(') => {
                paren_depth += 1;
                if paren_depth == 1 && pending_fn.is_some() && in_params_of.is_none() {
                    in_params_of = pending_fn;
                }
            }
            Tok::Punct(b')') => {
                paren_depth = paren_depth.saturating_sub(1);
                if paren_depth == 0 {
                    in_params_of = None;
                }
            }
            Tok::Punct(b'{') => {
                let f = pending_fn.take();
                let s = pending_struct.take();
                if let Some(f) = f {
                    current_fn = Some(f);
                    let end = end_of_block(off);
                    decls[f].span.1 = end;
                    for d in decls.iter_mut() {
                        if d.kind == Kind::Param && d.function == Some(f) {
                            d.scope = (off, end);
                        }
                    }
                }
                if let Some(s) = s {
                    decls[s].span.1 = end_of_block(off);
                }
                blocks.push((off, f, s));
            }
            Tok::Punct(b'}') => {
                if let Some((_, f, _)) = blocks.pop() {
                    if f.is_some() {
                        current_fn = None;
                    }
                }
            }
            Tok::Punct(b';') => {
                for d in open_decls.drain(..) {
                    decls[d].span.1 = off + 1;
                }
            }
            Tok::Punct(b':') if paren_depth == 1 && in_params_of.is_some() => {
                if let Some((Tok::Ident(name), noff)) = i.checked_sub(1).map(|k| toks[k]) {
                    let f = in_params_of.expect("checked");
                    decls.push(Decl {
                        name: name.to_string(),
                        kind: Kind::Param,
                        name_span: (noff, noff + name.len()),
                        span: (noff, off),
                        scope: (noff, text.len()),
                        function: Some(f),
                        parent: None,
                    });
                }
            }
            Tok::Punct(b':') if paren_depth == 0 => {
                // A struct member `name: type` directly inside a struct.
                if let Some(&(_, None, Some(s))) = blocks.last() {
                    if let Some((Tok::Ident(name), noff)) = i.checked_sub(1).map(|k| toks[k]) {
                        let end = toks[i..]
                            .iter()
                            .find(|(t, _)| matches!(t, Tok::Punct(b',') | Tok::Punct(b'}')))
                            .map_or(text.len(), |(_, o)| *o);
                        decls.push(Decl {
                            name: name.to_string(),
                            kind: Kind::Member,
                            name_span: (noff, noff + name.len()),
                            span: (noff, end),
                            scope: decls[s].span,
                            function: None,
                            parent: Some(s),
                        });
                    }
                }
            }
            Tok::Ident(kw) if paren_depth == 0 => {
                let kind = match kw {
                    "fn" => Some(Kind::Function),
                    "struct" => Some(Kind::Struct),
                    "var" => Some(Kind::Var),
                    "const" => Some(Kind::Const),
                    "override" => Some(Kind::Override),
                    "alias" => Some(Kind::Alias),
                    "let" => Some(Kind::Let),
                    _ => None,
                };
                if let Some(kind) = kind {
                    let mut j = i + 1;
                    // `var<storage, read>`.
                    if kind == Kind::Var {
                        if let Some((Tok::Punct(b'<'), _)) = toks.get(j) {
                            while j < toks.len() && toks[j].0 != Tok::Punct(b'>') {
                                j += 1;
                            }
                            j += 1;
                        }
                    }
                    if let Some(&(Tok::Ident(name), noff)) = toks.get(j) {
                        let local = current_fn.is_some();
                        let scope = if local {
                            (noff, scope_end(&blocks))
                        } else {
                            (0, text.len())
                        };
                        decls.push(Decl {
                            name: name.to_string(),
                            kind,
                            name_span: (noff, noff + name.len()),
                            span: (off, noff + name.len()),
                            scope,
                            function: current_fn,
                            parent: None,
                        });
                        let idx = decls.len() - 1;
                        match kind {
                            Kind::Function => pending_fn = Some(idx),
                            Kind::Struct => pending_struct = Some(idx),
                            _ => open_decls.push(idx),
                        }
                        i = j + 1;
                        continue;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    decls
}

impl<'a> View<'a> {
    pub fn new(
        text: &'a str,
        lines: &'a LineIndex,
        uri: &'a Uri,
        types: Option<&'a Types>,
    ) -> View<'a> {
        View {
            text,
            lines,
            uri,
            decls: scan(text),
            types,
        }
    }

    fn range(&self, (s, e): (usize, usize)) -> Range {
        self.lines.range(self.text, s, e)
    }

    /// The declaration the identifier at `offset` refers to.
    fn resolve(&self, offset: usize) -> Option<(usize, (usize, usize))> {
        let (ws, we) = crate::text::word_at(self.text, offset)?;
        let word = &self.text[ws..we];
        // The declaration itself.
        if let Some(i) = self.decls.iter().position(|d| d.name_span == (ws, we)) {
            return Some((i, (ws, we)));
        }
        let after_dot = self.text[..ws].trim_end().ends_with('.');
        if after_dot {
            // A member of the struct the receiver's type names.
            let dot = self.text[..ws].trim_end().len() - 1;
            if let Some(ty) = self.type_before(dot) {
                let ty = features::pointee(&ty);
                let member = self.decls.iter().position(|d| {
                    d.kind == Kind::Member
                        && d.name == word
                        && d.parent.is_some_and(|p| self.decls[p].name == ty)
                });
                if let Some(i) = member {
                    return Some((i, (ws, we)));
                }
                // A vector's components, an unknown struct: no declaration.
                if !self
                    .decls
                    .iter()
                    .any(|d| d.kind == Kind::Struct && d.name == ty)
                {
                    return None;
                }
            }
            // Else the only struct member of that name, if unique.
            let mut members = self
                .decls
                .iter()
                .enumerate()
                .filter(|(_, d)| d.kind == Kind::Member && d.name == word);
            let first = members.next()?;
            return members.next().is_none().then_some((first.0, (ws, we)));
        }
        // The innermost local in scope, else a module-scope declaration.
        let local = self
            .decls
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                d.name == word
                    && d.function.is_some()
                    && d.scope.0 <= ws
                    && ws < d.scope.1
                    && d.name_span.0 <= ws
            })
            .max_by_key(|(_, d)| d.scope.0);
        if let Some((i, _)) = local {
            return Some((i, (ws, we)));
        }
        self.decls
            .iter()
            .position(|d| d.name == word && d.function.is_none() && d.kind != Kind::Member)
            .map(|i| (i, (ws, we)))
    }

    fn type_of(&self, d: &Decl) -> Option<String> {
        let t = self.types?;
        match d.kind {
            Kind::Function => t.functions.get(&d.name).cloned(),
            Kind::Struct => t.structs.get(&d.name).map(|ms| {
                let body: Vec<String> =
                    ms.iter().map(|(n, ty)| format!("    {n}: {ty},")).collect();
                format!("struct {} {{\n{}\n}}", d.name, body.join("\n"))
            }),
            Kind::Member => {
                let parent = &self.decls[d.parent?].name;
                t.structs
                    .get(parent)?
                    .iter()
                    .find(|(n, _)| *n == d.name)
                    .map(|(_, ty)| ty.clone())
            }
            Kind::Var | Kind::Const | Kind::Override | Kind::Let | Kind::Param => {
                match d.function {
                    None => t.globals.get(&d.name).cloned(),
                    Some(f) => t.locals.get(&self.decls[f].name)?.get(&d.name).cloned(),
                }
            }
            Kind::Alias => None,
        }
    }

    fn describe(&self, i: usize) -> String {
        let d = &self.decls[i];
        let ty = self.type_of(d);
        let text = match (d.kind, ty) {
            (Kind::Function | Kind::Struct, Some(t)) => t,
            (Kind::Member, Some(t)) => {
                let parent = d.parent.map_or("", |p| self.decls[p].name.as_str());
                format!("{parent}.{}: {t}", d.name)
            }
            (_, Some(t)) => {
                let kw = match d.kind {
                    Kind::Var => "var",
                    Kind::Const => "const",
                    Kind::Override => "override",
                    Kind::Let => "let",
                    _ => "",
                };
                if kw.is_empty() {
                    format!("{}: {t}", d.name)
                } else {
                    format!("{kw} {}: {t}", d.name)
                }
            }
            (_, None) => self.text[d.span.0..d.span.1.max(d.name_span.1).min(self.text.len())]
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string(),
        };
        let mut s = format!("```wgsl\n{text}\n```");
        if d.kind == Kind::Function {
            if let Some(stage) = self.types.and_then(|t| t.stages.get(&d.name)) {
                s.push_str(&format!("\n\n{stage} entry point"));
            }
        }
        s
    }

    /// [`Self::resolve`], and for a member whose receiver the text does not
    /// type (a call's result, a parenthesised expression) naga's type of the
    /// receiver (a naga parse: for single requests, not for every name).
    pub(super) fn resolve_with_naga(&self, offset: usize) -> Option<(usize, (usize, usize))> {
        if let Some(found) = self.resolve(offset) {
            return Some(found);
        }
        let (ws, we) = crate::text::word_at(self.text, offset)?;
        let dot = self.text[..ws].trim_end().strip_suffix('.')?.len();
        if self.type_before(dot).is_some() {
            // Typed from the text already: a swizzle, or a stale struct.
            return None;
        }
        let ty = self.naga_type_before(dot)?;
        let ty = features::pointee(&ty);
        let word = &self.text[ws..we];
        self.decls
            .iter()
            .position(|d| {
                d.kind == Kind::Member
                    && d.name == word
                    && d.parent.is_some_and(|p| self.decls[p].name == ty)
            })
            .map(|i| (i, (ws, we)))
    }

    pub fn hover(&self, offset: usize) -> Option<Hover> {
        let (value, span) = match self.resolve_with_naga(offset) {
            Some((i, span)) => (self.describe(i), span),
            None => self.describe_builtin(offset)?,
        };
        Some(Hover {
            contents: Contents::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: Some(self.range(span)),
        })
    }

    /// A built-in function named at `offset` (not a member, not shadowed:
    /// the caller resolved the name first): its overloads as the
    /// specification lists them (at most 12, as for GLSL) and description.
    fn describe_builtin(&self, offset: usize) -> Option<(String, (usize, usize))> {
        let (ws, we) = crate::text::word_at(self.text, offset)?;
        if self.text[..ws].trim_end().ends_with('.') {
            return None;
        }
        let f = builtins::function(&self.text[ws..we])?;
        let shown: Vec<&str> = f
            .overloads
            .iter()
            .take(12)
            .map(|o| o.label.as_str())
            .collect();
        let mut s = format!("```wgsl\n{}\n```", shown.join("\n"));
        if f.overloads.len() > shown.len() {
            s.push_str(&format!(
                "\n\n(and {} more overloads)",
                f.overloads.len() - shown.len()
            ));
        }
        if let Some(doc) = f
            .overloads
            .first()
            .map(|o| &o.doc)
            .filter(|d| !d.is_empty())
        {
            s.push_str(&format!("\n\n{}", features::paragraphs(doc)));
        }
        Some((s, (ws, we)))
    }

    pub fn definition(&self, offset: usize) -> Vec<Location> {
        self.resolve_with_naga(offset)
            .map(|(i, _)| Location {
                uri: self.uri.clone(),
                range: self.range(self.decls[i].name_span),
            })
            .into_iter()
            .collect()
    }

    #[allow(deprecated)]
    pub fn document_symbols(&self) -> Vec<DocumentSymbol> {
        let mut out = Vec::new();
        for (i, d) in self.decls.iter().enumerate() {
            if d.function.is_some() || d.kind == Kind::Member {
                continue;
            }
            let kind = match d.kind {
                Kind::Function => SymbolKind::Function,
                Kind::Struct => SymbolKind::Struct,
                Kind::Const | Kind::Override => SymbolKind::Constant,
                Kind::Alias => SymbolKind::TypeParameter,
                _ => SymbolKind::Variable,
            };
            let children: Vec<DocumentSymbol> = self
                .decls
                .iter()
                .filter(|m| m.parent == Some(i))
                .map(|m| DocumentSymbol {
                    name: m.name.clone(),
                    detail: self.type_of(m),
                    kind: SymbolKind::Field,
                    tags: None,
                    deprecated: None,
                    range: self.range(m.span),
                    selection_range: self.range(m.name_span),
                    children: None,
                })
                .collect();
            let detail = match d.kind {
                Kind::Struct => Some("struct".to_string()),
                _ => self.type_of(d),
            };
            out.push(DocumentSymbol {
                name: d.name.clone(),
                detail,
                kind,
                tags: None,
                deprecated: None,
                range: self.range((d.span.0, d.span.1.max(d.name_span.1))),
                selection_range: self.range(d.name_span),
                children: (!children.is_empty()).then_some(children),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "struct Light {\n    pos: vec3<f32>,\n    radius: f32,\n}\n@group(0) @binding(0) var<uniform> light: Light;\nconst K: f32 = 2.0;\nfn falloff(d: f32) -> f32 {\n    let k = d * K;\n    return 1.0 - k;\n}\n@fragment\nfn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {\n    var acc = vec3<f32>(0.0);\n    acc += light.pos * falloff(uv.x);\n    return vec4<f32>(acc, 1.0);\n}\n";

    #[test]
    fn scan_finds_declarations() {
        let d = scan(SRC);
        let names: Vec<(&str, Kind, bool)> = d
            .iter()
            .map(|d| (d.name.as_str(), d.kind, d.function.is_some()))
            .collect();
        assert_eq!(
            names,
            [
                ("Light", Kind::Struct, false),
                ("pos", Kind::Member, false),
                ("radius", Kind::Member, false),
                ("light", Kind::Var, false),
                ("K", Kind::Const, false),
                ("falloff", Kind::Function, false),
                ("d", Kind::Param, true),
                ("k", Kind::Let, true),
                ("main", Kind::Function, false),
                ("uv", Kind::Param, true),
                ("acc", Kind::Var, true),
            ]
        );
    }

    #[test]
    fn types_and_hover() {
        let a = analyze(SRC, 1 << 20);
        assert!(a.diags.is_empty(), "{:?}", a.diags);
        let lines = LineIndex::new(SRC);
        let uri = Uri("file:///x.wgsl".into());
        let v = View::new(SRC, &lines, &uri, a.types.as_deref());
        let hover = |needle: &str, k: usize| {
            let at = SRC.match_indices(needle).nth(k).unwrap().0;
            match v.hover(at).map(|h| h.contents) {
                Some(Contents::MarkupContent(m)) => m.value,
                other => format!("{other:?}"),
            }
        };
        assert!(
            hover("acc", 1).contains("var acc: vec3<f32>"),
            "{}",
            hover("acc", 1)
        );
        assert!(hover("k", 1).contains("let k: f32"), "{}", hover("k ", 0));
        assert!(hover("falloff", 1).contains("fn falloff(d: f32) -> f32"));
        assert!(
            hover("pos", 1).contains("Light.pos: vec3<f32>"),
            "{}",
            hover("pos", 1)
        );
        assert!(hover("main", 0).contains("fragment entry point"));
        let def = v.definition(SRC.rfind("light").unwrap());
        assert_eq!(def[0].range.start.line, 4);
    }

    #[test]
    fn errors_have_ranges() {
        let src = "fn main() {\n    let x: f32 = ;\n}\n";
        let a = analyze(src, 1 << 20);
        assert_eq!(a.diags.len(), 1);
        assert_eq!(&src[a.diags[0].start..a.diags[0].end], ";");
        let src = "fn main() {\n    let x: f32 = 1u;\n}\n";
        let a = analyze(src, 1 << 20);
        assert_eq!(a.diags.len(), 1, "{:?}", a.diags);
    }
}
