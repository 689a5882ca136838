//! Barriers every invocation of a work group reaches, found from the
//! syntax alone: the race check counts the invocations arriving at the
//! other barriers (a barrier in divergent control flow is reported), and
//! skips that count here (SIMD drivers run its atomic lane by lane).
//!
//! A `barrier()` call is taken as uniform when it is an expression
//! statement of `main`'s body, or of the body of a `for` loop that is
//! itself such a statement (loops nest), with no `return` in `main`
//! before it. A loop qualifies when it declares one variable with a
//! uniform initializer, its condition and increment read only uniform
//! values and that variable, and its body neither writes the variable nor
//! has a `break`, `continue`, `return` or `discard`. Uniform values:
//! literals, the loop variables, `gl_WorkGroupID`, `gl_NumWorkGroups`,
//! `gl_WorkGroupSize`, and the `const` and `uniform` globals no function
//! declares a name of again; operators and constructors of them. Anything
//! else is not taken as uniform: that only keeps a count.

use std::collections::HashSet;

use glsl_lang::ast::{self, ExprData, StatementData};
use glsl_lang::visitor::{Host, Visit, Visitor};

use super::span_of;

/// The spans (start, end) of the `barrier` identifiers of the uniform
/// `barrier()` calls of `tu`.
pub fn uniform_barriers(tu: &ast::TranslationUnit) -> HashSet<(usize, usize)> {
    let mut found = HashSet::new();
    let Some(main) = tu.0.iter().find_map(|ext| match &ext.content {
        ast::ExternalDeclarationData::FunctionDefinition(f)
            if f.prototype.name.as_str() == "main" =>
        {
            Some(f)
        }
        _ => None,
    }) else {
        return found;
    };
    let mut names = uniform_globals(tu);
    for n in ["gl_WorkGroupID", "gl_NumWorkGroups", "gl_WorkGroupSize"] {
        names.insert(n.to_string());
    }
    let mut returned = false;
    body(
        &main.statement.statement_list,
        &mut names,
        &mut returned,
        &mut found,
    );
    found
}

/// Walks the statements of a uniformly reached body in order.
fn body(
    list: &[ast::Statement],
    names: &mut HashSet<String>,
    returned: &mut bool,
    found: &mut HashSet<(usize, usize)>,
) {
    for s in list {
        if !*returned {
            match &s.content {
                StatementData::Expression(e) => {
                    if let Some(ast::Expr {
                        content: ExprData::FunCall(f, args),
                        ..
                    }) = &e.0
                    {
                        if args.is_empty() && is_named(f, "barrier") {
                            let sp = span_of(f);
                            if sp.end > sp.start {
                                found.insert((sp.start, sp.end));
                            }
                        }
                    }
                }
                StatementData::Iteration(it) => {
                    if let ast::IterationStatementData::For(init, rest, inner) = &it.content {
                        if let Some(v) = uniform_loop(init, rest, inner, names) {
                            let added = names.insert(v.clone());
                            let list: Vec<ast::Statement> = match &inner.content {
                                StatementData::Compound(c) => c.statement_list.clone(),
                                _ => vec![(**inner).clone()],
                            };
                            body(&list, names, returned, found);
                            if added {
                                names.remove(&v);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if has_jump(s, true) {
            *returned = true;
        }
    }
}

/// The loop variable of a `for` loop whose iterations are the same for
/// every invocation.
fn uniform_loop(
    init: &ast::ForInitStatement,
    rest: &ast::ForRestStatement,
    inner: &ast::Statement,
    names: &HashSet<String>,
) -> Option<String> {
    let ast::ForInitStatementData::Declaration(d) = &init.content else {
        return None;
    };
    let ast::DeclarationData::InitDeclaratorList(l) = &d.content else {
        return None;
    };
    if !l.tail.is_empty() {
        return None;
    }
    let v = l.head.name.as_ref()?.as_str().to_string();
    let ast::InitializerData::Simple(first) = &l.head.initializer.as_ref()?.content else {
        return None;
    };
    if !uniform(first, names, None) {
        return None;
    }
    let cond_ok = match &rest.condition {
        Some(c) => match &c.content {
            ast::ConditionData::Expr(e) => uniform(e, names, Some(&v)),
            _ => false,
        },
        None => false,
    };
    let post_ok = match &rest.post_expr {
        Some(p) => match &p.content {
            ExprData::Assignment(lhs, _, rhs) => is_var(lhs, &v) && uniform(rhs, names, Some(&v)),
            ExprData::PostInc(a) | ExprData::PostDec(a) => is_var(a, &v),
            ExprData::Unary(op, a) => {
                matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) && is_var(a, &v)
            }
            _ => false,
        },
        None => false,
    };
    (cond_ok && post_ok && !has_jump(inner, false) && !writes(inner, &v)).then_some(v)
}

fn is_named(f: &ast::FunIdentifier, name: &str) -> bool {
    matches!(&f.content, ast::FunIdentifierData::Expr(e) if is_var(e, name))
}

fn is_var(e: &ast::Expr, name: &str) -> bool {
    matches!(&e.content, ExprData::Variable(id) if id.as_str() == name)
}

/// Whether `e` reads only uniform values (`names`, the loop variable `v`).
fn uniform(e: &ast::Expr, names: &HashSet<String>, v: Option<&str>) -> bool {
    match &e.content {
        ExprData::Variable(id) => names.contains(id.as_str()) || v == Some(id.as_str()),
        ExprData::IntConst(_)
        | ExprData::UIntConst(_)
        | ExprData::BoolConst(_)
        | ExprData::FloatConst(_)
        | ExprData::DoubleConst(_) => true,
        ExprData::Unary(op, a) => {
            !matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec)
                && uniform(a, names, v)
        }
        ExprData::Binary(_, a, b) => uniform(a, names, v) && uniform(b, names, v),
        ExprData::Ternary(c, a, b) => {
            uniform(c, names, v) && uniform(a, names, v) && uniform(b, names, v)
        }
        ExprData::Dot(a, _) => uniform(a, names, v),
        ExprData::Bracket(a, i) => uniform(a, names, v) && uniform(i, names, v),
        ExprData::FunCall(f, args) => {
            matches!(f.content, ast::FunIdentifierData::TypeSpecifier(_))
                && args.iter().all(|a| uniform(a, names, v))
        }
        _ => false,
    }
}

/// The `const` and `uniform` globals (not blocks) whose names no function
/// declares again (a parameter or local of the same name would hide one).
fn uniform_globals(tu: &ast::TranslationUnit) -> HashSet<String> {
    let mut names = HashSet::new();
    for ext in &tu.0 {
        let ast::ExternalDeclarationData::Declaration(d) = &ext.content else {
            continue;
        };
        let ast::DeclarationData::InitDeclaratorList(l) = &d.content else {
            continue;
        };
        let uniform_or_const = l.head.ty.qualifier.as_ref().is_some_and(|q| {
            q.qualifiers.iter().any(|t| {
                matches!(
                    &t.content,
                    ast::TypeQualifierSpecData::Storage(s)
                        if matches!(s.content, ast::StorageQualifierData::Const | ast::StorageQualifierData::Uniform)
                )
            })
        });
        if !uniform_or_const {
            continue;
        }
        let heads = std::iter::once(l.head.name.as_ref())
            .chain(l.tail.iter().map(|t| Some(&t.ident.ident)));
        names.extend(heads.flatten().map(|n| n.as_str().to_string()));
    }
    struct Declared(HashSet<String>);
    impl Visitor for Declared {
        fn visit_single_declaration(&mut self, d: &ast::SingleDeclaration) -> Visit {
            if let Some(n) = &d.name {
                self.0.insert(n.as_str().to_string());
            }
            Visit::Children
        }
        fn visit_single_declaration_no_type(&mut self, d: &ast::SingleDeclarationNoType) -> Visit {
            self.0.insert(d.ident.ident.as_str().to_string());
            Visit::Children
        }
        fn visit_function_parameter_declarator(
            &mut self,
            p: &ast::FunctionParameterDeclarator,
        ) -> Visit {
            self.0.insert(p.ident.ident.as_str().to_string());
            Visit::Children
        }
    }
    let mut local = Declared(HashSet::new());
    for ext in &tu.0 {
        if let ast::ExternalDeclarationData::FunctionDefinition(f) = &ext.content {
            f.visit(&mut local);
        }
    }
    names.retain(|n| !local.0.contains(n));
    names
}

/// Whether `s` has a `return` (with `returns_only`), or any jump
/// (`break`, `continue`, `return`, `discard`).
fn has_jump(s: &ast::Statement, returns_only: bool) -> bool {
    struct Jumps(bool, bool);
    impl Visitor for Jumps {
        fn visit_jump_statement(&mut self, j: &ast::JumpStatement) -> Visit {
            if !self.1 || matches!(j.content, ast::JumpStatementData::Return(_)) {
                self.0 = true;
            }
            Visit::Children
        }
    }
    let mut v = Jumps(false, returns_only);
    s.visit(&mut v);
    v.0
}

/// Whether `s` may write the variable `v`: an assignment or `++`/`--`
/// with `v` at its root, or `v` at the root of a call's argument (an
/// `out` parameter).
fn writes(s: &ast::Statement, v: &str) -> bool {
    fn root_is(e: &ast::Expr, v: &str) -> bool {
        match &e.content {
            ExprData::Variable(id) => id.as_str() == v,
            ExprData::Dot(b, _) | ExprData::Bracket(b, _) => root_is(b, v),
            _ => false,
        }
    }
    struct Writes<'a>(&'a str, bool);
    impl Visitor for Writes<'_> {
        fn visit_expr(&mut self, e: &ast::Expr) -> Visit {
            let hit = match &e.content {
                ExprData::Assignment(lhs, _, _) => root_is(lhs, self.0),
                ExprData::PostInc(a) | ExprData::PostDec(a) => root_is(a, self.0),
                ExprData::Unary(op, a) => {
                    matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec)
                        && root_is(a, self.0)
                }
                ExprData::FunCall(_, args) => args.iter().any(|a| root_is(a, self.0)),
                _ => false,
            };
            self.1 |= hit;
            Visit::Children
        }
    }
    let mut w = Writes(v, false);
    s.visit(&mut w);
    w.1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of the uniform `barrier()` calls of `src` (a compute
    /// shader).
    fn lines(src: &str) -> Vec<usize> {
        let parsed = crate::parse::parse(&[src], crate::Stage::Compute, None).expect("parses");
        let mut found: Vec<usize> = uniform_barriers(&parsed.tu)
            .into_iter()
            .map(|(start, _)| src[..start].lines().count())
            .collect();
        found.sort();
        found
    }

    #[test]
    fn top_level_and_uniform_loop_barriers_are_uniform_the_rest_not() {
        let src = "#version 430
layout(local_size_x = 8) in;
const uint N = 4u;
uniform uint rounds;
shared float t[8];
void main() {
    uint i = gl_LocalInvocationIndex;
    barrier();
    for (uint s = N; s > 0u; s >>= 1u) {
        barrier();
        for (int k = 0; k < int(rounds); k++) { barrier(); }
    }
    for (uint s = 0u; s < i; s++) { barrier(); }
    for (uint s = 0u; s < 4u; s++) { if (i == s) break; barrier(); }
    for (uint s = 0u; s < 4u; s++) { s += i; barrier(); }
    if (i < 4u) { barrier(); }
    if (i == 7u) return;
    barrier();
}
";
        assert_eq!(lines(src), [8, 10, 11]);
    }

    #[test]
    fn a_global_hidden_by_a_local_is_not_uniform() {
        let src = "#version 430
layout(local_size_x = 8) in;
const uint N = 4u;
void main() {
    for (uint s = 0u; s < N; s++) { barrier(); }
}
void other(uint N) {}
";
        assert_eq!(lines(src), Vec::<usize>::new());
    }
}
