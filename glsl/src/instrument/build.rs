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
