//! What is in scope at an offset: a [`Model`] walked up to that point.
//!
//! The walk follows [`Model`]'s own scoping (a function body shares the
//! parameters' scope, `for`/`while` open a scope, each branch of an `if` is a
//! scope of its own) but stops where the offset is: statements that end before
//! it are analysed in full (declaring their variables), the statement that
//! contains it is entered, and nothing after it is looked at. Function bodies
//! before the offset are skipped (only their prototypes are registered), so the
//! cost is the global declarations plus one function body.

use glsl_lang::ast::{self, StatementData};

use crate::analysis::{DeclId, DeclKind, FunctionId, Model};
use crate::diagnostics::Span;
use crate::parse::Parsed;
use crate::types::Type;

/// The model at an offset.
pub struct ScopeAt {
    /// The model with exactly the declarations visible at the offset in scope
    /// (ask it [`Model::lookup`], [`Model::expr_type`], ...).
    pub model: Model,
    /// The function whose body or parameter list holds the offset.
    pub function: Option<FunctionId>,
}

impl ScopeAt {
    /// Function-local variables (parameters included) visible at the offset,
    /// in declaration order; shadowed ones are left out.
    pub fn locals(&self) -> Vec<DeclId> {
        self.model.visible_locals()
    }

    /// Global variables declared before the offset (not built-ins), in
    /// declaration order; a later declaration of a name hides an earlier one.
    pub fn globals(&self) -> Vec<DeclId> {
        let mut last = std::collections::HashMap::new();
        for (id, d) in self.model.decls.iter().enumerate() {
            if matches!(d.kind, DeclKind::Global(_)) {
                last.insert(d.name.as_str(), id);
            }
        }
        let mut ids: Vec<DeclId> = last.into_values().collect();
        ids.sort_unstable();
        ids
    }

    /// The type of a GLSL expression written at the offset (e.g. the text before
    /// a `.` being completed); `None` if it does not parse or does not type.
    pub fn type_of(&mut self, expr: &str) -> Option<Type> {
        use glsl_lang::parse::DefaultParse;
        if expr.contains('#') || expr.len() > 4096 {
            return None;
        }
        crate::limits::check(expr).ok()?;
        let e = ast::Expr::parse(expr).ok()?;
        let before = (self.model.diagnostics.len(), self.model.references.len());
        let ty = self.model.expr_type(&e);
        self.model.diagnostics.truncate(before.0);
        self.model.references.truncate(before.1);
        (!ty.is_error()).then_some(ty)
    }
}

fn span<T: ast::NodeContent>(n: &ast::Node<T>) -> Span {
    crate::diagnostics::span_from_node(n.span)
}

fn contains(s: Span, offset: usize) -> bool {
    s.start <= offset && offset <= s.end
}

/// Walks `parsed` up to `offset` (a byte offset into its source text).
pub fn scope_at(parsed: &Parsed, offset: usize) -> ScopeAt {
    let mut m = Model::for_parsed(parsed);
    let mut function = None;
    for ext in &parsed.tu.0 {
        let s = span(ext);
        if s.start > offset {
            break;
        }
        match &ext.content {
            ast::ExternalDeclarationData::FunctionDefinition(def) => {
                if contains(s, offset) {
                    let (id, _) = m.enter_function(def);
                    function = Some(id);
                    statements(&mut m, &def.statement.statement_list, offset);
                    break;
                }
                m.function_prototype(&def.prototype, true);
            }
            // Inside a global declaration: only what was declared before it.
            ast::ExternalDeclarationData::Declaration(_) if contains(s, offset) => break,
            _ => m.external(ext),
        }
    }
    ScopeAt { model: m, function }
}

/// Analyses `list` up to the statement that holds `offset`, entering it.
fn statements(m: &mut Model, list: &[ast::Statement], offset: usize) {
    for s in list {
        let sp = span(s);
        if sp.end <= offset {
            m.statement(s);
        } else if sp.start <= offset {
            enter(m, s, offset);
            return;
        } else {
            return;
        }
    }
}

fn scoped(m: &mut Model, s: &ast::Statement, offset: usize) {
    m.push_scope();
    if span(s).end <= offset {
        m.statement(s);
        m.pop_scope();
    } else {
        enter(m, s, offset);
    }
}

/// Enters a statement that contains `offset`; scopes opened on the way stay
/// open (the caller throws the model's scope stack away after the query).
fn enter(m: &mut Model, s: &ast::Statement, offset: usize) {
    match &s.content {
        StatementData::Declaration(_)
        | StatementData::Expression(_)
        | StatementData::CaseLabel(_)
        | StatementData::Jump(_) => {}
        StatementData::Selection(sel) => {
            if span(&sel.cond).end >= offset {
                return;
            }
            m.expr_type(&sel.cond);
            match &sel.rest.content {
                ast::SelectionRestStatementData::Statement(a) => scoped(m, a, offset),
                ast::SelectionRestStatementData::Else(a, b) => {
                    scoped(m, a, offset);
                    if span(b).start <= offset {
                        scoped(m, b, offset);
                    }
                }
            }
        }
        StatementData::Switch(sw) => {
            if span(&sw.head).end >= offset {
                return;
            }
            m.expr_type(&sw.head);
            m.push_scope();
            statements(m, &sw.body, offset);
        }
        StatementData::Iteration(it) => {
            m.push_scope();
            match &it.content {
                ast::IterationStatementData::While(c, body) => {
                    if span(c).end >= offset {
                        return;
                    }
                    condition(m, c);
                    scoped(m, body, offset);
                }
                ast::IterationStatementData::DoWhile(body, _) => scoped(m, body, offset),
                ast::IterationStatementData::For(init, rest, body) => {
                    if span(init).start <= offset && offset < span(init).end {
                        return;
                    }
                    m.for_init(init);
                    if let Some(c) = &rest.condition {
                        if span(c).start <= offset && span(c).end >= offset {
                            return;
                        }
                        condition(m, c);
                    }
                    if span(body).start <= offset {
                        scoped(m, body, offset);
                    }
                }
            }
        }
        StatementData::Compound(c) => {
            m.push_scope();
            statements(m, &c.statement_list, offset);
        }
    }
}

fn condition(m: &mut Model, c: &ast::Condition) {
    match &c.content {
        ast::ConditionData::Expr(e) => {
            m.expr_type(e);
        }
        ast::ConditionData::Assignment(ty, name, init) => {
            let t = m.type_of_specifier(&ty.ty);
            if let ast::InitializerData::Simple(e) = &init.content {
                m.expr_type(e);
            }
            m.declare(name.as_str(), t, DeclKind::Local, span(name));
        }
    }
}
