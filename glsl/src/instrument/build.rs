//! Small constructors for the AST nodes instrumentation inserts.

use glsl_lang::ast::{self, ExprData, StatementData};

pub fn ident(name: &str) -> ast::Identifier {
    ast::IdentifierData::from(name).into()
}

pub fn var(name: &str) -> ast::Expr {
    ExprData::Variable(ident(name)).into()
}

pub fn uint(n: u32) -> ast::Expr {
    ExprData::UIntConst(n).into()
}

pub fn call(name: &str, args: Vec<ast::Expr>) -> ast::Expr {
    let f: ast::FunIdentifier = ast::FunIdentifierData::Expr(Box::new(var(name))).into();
    ExprData::FunCall(f, args).into()
}

pub fn stmt(e: ast::Expr) -> ast::Statement {
    StatementData::Expression(ast::ExprStatementData(Some(e)).into()).into()
}

pub fn compound(list: Vec<ast::Statement>) -> ast::Statement {
    StatementData::Compound(
        ast::CompoundStatementData {
            statement_list: list,
        }
        .into(),
    )
    .into()
}

pub fn field(base: ast::Expr, name: &str) -> ast::Expr {
    ExprData::Dot(Box::new(base), ident(name)).into()
}

pub fn index(base: ast::Expr, i: u32) -> ast::Expr {
    ExprData::Bracket(
        Box::new(base),
        Box::new(ExprData::IntConst(i as i32).into()),
    )
    .into()
}

/// Makes a statement a compound one so statements can be inserted around its parts.
pub fn into_compound(s: ast::Statement) -> ast::CompoundStatement {
    match s.content {
        StatementData::Compound(c) => c,
        _ => ast::CompoundStatementData {
            statement_list: vec![s],
        }
        .into(),
    }
}

pub fn int(n: i32) -> ast::Expr {
    ExprData::IntConst(n).into()
}

pub fn boolean(b: bool) -> ast::Expr {
    ExprData::BoolConst(b).into()
}

/// `base.length()`.
pub fn length(base: ast::Expr) -> ast::Expr {
    let f: ast::FunIdentifier = ast::FunIdentifierData::Expr(Box::new(
        ExprData::Dot(Box::new(base), ident("length")).into(),
    ))
    .into();
    ExprData::FunCall(f, Vec::new()).into()
}

pub fn bracket(base: ast::Expr, i: ast::Expr) -> ast::Expr {
    ExprData::Bracket(Box::new(base), Box::new(i)).into()
}

pub fn ternary(c: ast::Expr, a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ExprData::Ternary(Box::new(c), Box::new(a), Box::new(b)).into()
}

/// `if (cond) then [else els]`.
pub fn if_else(
    cond: ast::Expr,
    then: ast::Statement,
    els: Option<ast::Statement>,
) -> ast::Statement {
    let rest = match els {
        Some(e) => ast::SelectionRestStatementData::Else(Box::new(then), Box::new(e)),
        None => ast::SelectionRestStatementData::Statement(Box::new(then)),
    };
    StatementData::Selection(
        ast::SelectionStatementData {
            cond: Box::new(cond),
            rest: rest.into(),
        }
        .into(),
    )
    .into()
}
