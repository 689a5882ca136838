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
//!
//! Also whether no invocation can run more than 127 barriers
//! ([`barriers_bounded`]): the race check's epoch then never wraps.

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

/// Whether no invocation runs more than 127 `barrier()` calls, so that
/// the race check's 7-bit epoch never wraps (its barriers then carry no
/// code for the wrap, which SIMD drivers would run, masked, at each): all
/// of `tu`'s calls are in `main`, each outside loops or in `for` loops
/// whose trip count [`trips`] finds, 127 at most all told.
pub fn barriers_bounded(tu: &ast::TranslationUnit) -> bool {
    let mut total = 0;
    for ext in &tu.0 {
        if let ast::ExternalDeclarationData::FunctionDefinition(f) = &ext.content {
            if f.prototype.name.as_str() != "main" {
                if barrier_calls(&f.statement) > 0 {
                    return false;
                }
                continue;
            }
            let runs = f
                .statement
                .statement_list
                .iter()
                .map(barrier_runs)
                .try_fold(0u64, |a, r| Some(a.saturating_add(r?)));
            match runs {
                Some(n) => total += n,
                None => return false,
            }
        }
    }
    total <= 127
}

/// The `barrier` calls in `node`.
fn barrier_calls(node: &impl Host) -> u64 {
    struct Calls(u64);
    impl Visitor for Calls {
        fn visit_expr(&mut self, e: &ast::Expr) -> Visit {
            if matches!(&e.content, ExprData::FunCall(f, _) if is_named(f, "barrier")) {
                self.0 += 1;
            }
            Visit::Children
        }
    }
    let mut c = Calls(0);
    node.visit(&mut c);
    c.0
}

/// At most how many `barrier` calls running `s` makes (`None`: not
/// known, a loop's).
fn barrier_runs(s: &ast::Statement) -> Option<u64> {
    let calls = barrier_calls(s);
    if calls == 0 {
        return Some(0);
    }
    match &s.content {
        StatementData::Compound(c) => c
            .statement_list
            .iter()
            .map(barrier_runs)
            .try_fold(0u64, |a, r| Some(a.saturating_add(r?))),
        StatementData::Iteration(it) => match &it.content {
            // Calls only in the body, which runs a known number of times.
            ast::IterationStatementData::For(_, _, body) if barrier_calls(&**body) == calls => {
                Some(trips(it)?.saturating_mul(barrier_runs(body)?))
            }
            _ => None,
        },
        // Both sides of an `if`, every case: at most all of them.
        StatementData::Selection(sel) => {
            let sides = match &sel.rest.content {
                ast::SelectionRestStatementData::Statement(a) => barrier_runs(a)?,
                ast::SelectionRestStatementData::Else(a, b) => {
                    barrier_runs(a)?.saturating_add(barrier_runs(b)?)
                }
            };
            Some(barrier_calls(&*sel.cond).saturating_add(sides))
        }
        StatementData::Switch(sw) => sw
            .body
            .iter()
            .map(barrier_runs)
            .try_fold(barrier_calls(&*sw.head), |a, r| Some(a.saturating_add(r?))),
        // No statement inside.
        _ => Some(calls),
    }
}

/// How many times at most the body of a `for` loop runs, where that is
/// plain: one `int` or `uint` variable declared with a literal, compared
/// with a literal, stepped by `++`, `--` or an arithmetic assignment of a
/// literal, and written nowhere else (a `break`, `continue` or `return`
/// only runs it fewer times). Up to 128 (`None` beyond).
fn trips(it: &ast::IterationStatement) -> Option<u64> {
    let ast::IterationStatementData::For(init, rest, body) = &it.content else {
        return None;
    };
    let ast::ForInitStatementData::Declaration(d) = &init.content else {
        return None;
    };
    let ast::DeclarationData::InitDeclaratorList(l) = &d.content else {
        return None;
    };
    let signed = match &l.head.ty.ty.ty.content {
        ast::TypeSpecifierNonArrayData::Int => true,
        ast::TypeSpecifierNonArrayData::UInt => false,
        _ => return None,
    };
    if !l.tail.is_empty()
        || l.head.array_specifier.is_some()
        || l.head.ty.ty.array_specifier.is_some()
    {
        return None;
    }
    let v = l.head.name.as_ref()?.as_str();
    let ast::InitializerData::Simple(first) = &l.head.initializer.as_ref()?.content else {
        return None;
    };
    // Values as the type has them (wrapping at 32 bits).
    let norm = |x: i64| {
        if signed {
            i64::from(x as i32)
        } else {
            i64::from(x as u32)
        }
    };
    let literal = |e: &ast::Expr| match &e.content {
        ExprData::IntConst(x) => Some(i64::from(*x)),
        ExprData::UIntConst(x) => Some(i64::from(*x)),
        _ => None,
    };
    let mut x = norm(literal(first)?);
    let ast::ConditionData::Expr(cond) = &rest.condition.as_ref()?.content else {
        return None;
    };
    let ExprData::Binary(op, a, b) = &cond.content else {
        return None;
    };
    if !is_var(a, v) {
        return None;
    }
    let (op, bound) = (op.content.clone(), norm(literal(b)?));
    let step = rest.post_expr.as_ref()?;
    let next = |x: i64| -> Option<i64> {
        use ast::AssignmentOpData as A;
        let y = match &step.content {
            ExprData::PostInc(a) | ExprData::PostDec(a) if is_var(a, v) => {
                if matches!(step.content, ExprData::PostInc(_)) {
                    x + 1
                } else {
                    x - 1
                }
            }
            ExprData::Unary(op, a) if is_var(a, v) => match op.content {
                ast::UnaryOpData::Inc => x + 1,
                ast::UnaryOpData::Dec => x - 1,
                _ => return None,
            },
            ExprData::Assignment(lhs, op, rhs) if is_var(lhs, v) => {
                let c = norm(literal(rhs)?);
                match op.content {
                    A::Add => x + c,
                    A::Sub => x - c,
                    A::Mult => x.wrapping_mul(c),
                    // GLSL leaves how a negative quotient rounds open.
                    A::Div if x >= 0 && c > 0 => x / c,
                    A::LShift if (0..32).contains(&c) => x << c,
                    A::RShift if (0..32).contains(&c) => x >> c,
                    _ => return None,
                }
            }
            _ => return None,
        };
        Some(norm(y))
    };
    if writes(body, v) {
        return None;
    }
    use ast::BinaryOpData as B;
    for n in 0..=128u64 {
        let go = match op {
            B::Lt => x < bound,
            B::Lte => x <= bound,
            B::Gt => x > bound,
            B::Gte => x >= bound,
            B::NonEqual => x != bound,
            B::Equal => x == bound,
            _ => return None,
        };
        if !go {
            return Some(n);
        }
        x = next(x)?;
    }
    None
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

    /// The race check's epoch cannot wrap only where no invocation can run
    /// more than 127 barriers: in `main`, in loops whose trip count is
    /// plain.
    #[test]
    fn barriers_are_bounded_in_main_in_counted_loops_up_to_127() {
        let bounded = |body: &str, other: &str| {
            let src = format!(
                "#version 430\nlayout(local_size_x = 8) in;\n{other}\nvoid main() {{\n{body}\n}}\n"
            );
            let parsed = crate::parse::parse(&[&src], crate::Stage::Compute, None).expect("parses");
            barriers_bounded(&parsed.tu)
        };
        assert!(bounded(
            "barrier(); if (gl_LocalInvocationIndex < 4u) { barrier(); }",
            ""
        ));
        assert!(bounded(&"barrier();\n".repeat(127), ""));
        assert!(!bounded(&"barrier();\n".repeat(128), ""));
        // 8 trips, 16 calls each (both sides of the `if` counted), 128.
        let halving =
            "for (uint s = 128u; s > 0u; s >>= 1u) { if (s > 2u) { BODY } else { BODY } }";
        let calls = |n: usize| "barrier(); ".repeat(n);
        assert!(bounded(&halving.replace("BODY", &calls(7)), ""));
        assert!(!bounded(&halving.replace("BODY", &calls(8)), ""));
        for (counted, ok) in [
            ("for (int k = 0; k < 127; k++) barrier();", true),
            ("for (int k = 0; k < 128; k++) barrier();", false),
            ("for (int k = 0; k <= 126; ++k) { barrier(); }", true),
            ("for (int k = 10; k != 0; k -= 2) { barrier(); }", true),
            ("for (int k = 9; k != 0; k -= 2) { barrier(); }", false),
            ("for (uint k = 1u; k < 100u; k *= 3u) barrier();", true),
            ("for (uint k = 0u; k < 100u; k *= 3u) barrier();", false),
            ("for (int k = 100; k > 0; k /= 2) barrier();", true),
            ("for (int k = -7; k < -1; k /= 2) barrier();", false),
            // uint wraps: 2, 1, 0, then 4294967295.
            ("for (uint k = 2u; k >= 0u; k--) barrier();", false),
            (
                "for (int k = 0; k < 8; k++) for (int j = 0; j < 16; j++) barrier();",
                false,
            ),
            (
                "for (int k = 0; k < 7; k++) for (int j = 0; j < 18; j++) barrier();",
                true,
            ),
            ("for (int k = 0; k < 4; k++) { k += 0; barrier(); }", false),
            (
                "for (int k = 0; k < 4; k++) { if (k == 1) break; barrier(); }",
                true,
            ),
            (
                "uint n = 4u; for (uint k = 0u; k < n; k++) barrier();",
                false,
            ),
            ("int k = 0; while (k < 2) { k++; barrier(); }", false),
            ("int k = 0; do { k++; barrier(); } while (k < 2);", false),
            ("for (int k = 0; k < 4; k++) { } barrier();", true),
        ] {
            assert_eq!(bounded(counted, ""), ok, "{counted}");
        }
        assert!(!bounded("f();", "void f() { barrier(); }"));
        assert!(bounded("barrier(); f();", "void f() { }"));
    }
}
