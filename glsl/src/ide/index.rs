//! A symbol index of one parsed shader: where functions, structs, interface
//! blocks and globals are declared (with the span of their name and of the
//! whole declaration), and where names are used that the semantic model does
//! not record as references (function calls, type names, fields, writes).
//!
//! All spans are byte offsets into [`crate::parse::SourceText::text`]. Nodes
//! produced by macro expansion carry the span of the macro use, so an editor
//! should check that the text at a span is the name before it shows it.

use glsl_lang::ast::{self, ExprData, StatementData};

use crate::diagnostics::Span;
use crate::parse::Parsed;

/// A parameter of a user function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSym {
    pub name: String,
    /// The name's span (empty for an unnamed parameter).
    pub name_span: Span,
    /// The whole parameter declaration.
    pub span: Span,
}

/// A user function definition or prototype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSym {
    pub name: String,
    pub name_span: Span,
    /// The whole definition (or prototype declaration).
    pub span: Span,
    /// The body, `{` to `}`; `None` for a prototype.
    pub body: Option<Span>,
    pub params: Vec<ParamSym>,
}

/// A field of a struct or interface block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSym {
    pub name: String,
    pub name_span: Span,
    /// The field's declaration (`vec3 pos;`).
    pub span: Span,
}

/// A struct type declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructSym {
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    pub fields: Vec<FieldSym>,
    /// Declared inside this function (an index into [`Index::functions`]).
    pub function: Option<usize>,
}

/// An interface block (`uniform Lights { ... } lights;`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSym {
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    /// `uniform`, `buffer`, `in`, `out` (the storage qualifier as written).
    pub storage: String,
    pub fields: Vec<FieldSym>,
    /// The instance name, if any.
    pub instance: Option<(String, Span)>,
}

/// A variable declared at global scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalSym {
    pub name: String,
    pub name_span: Span,
    /// The whole declaration statement.
    pub span: Span,
    /// The storage qualifier as written (`uniform`, `in`, `attribute`, `const`,
    /// ...), empty for none.
    pub storage: String,
}

/// A name used at a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameUse {
    pub name: String,
    pub span: Span,
}

/// A write of a variable: the root identifier of an assignment target (`x` in
/// `x.y[2] += 1.0`), of `++`/`--`, or a local declarator with an initializer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteSym {
    pub name: String,
    /// The identifier's span.
    pub span: Span,
    /// The whole statement or expression that writes (for line ranges).
    pub site: Span,
    /// The function it is in (an index into [`Index::functions`]).
    pub function: Option<usize>,
    /// A declaration with an initializer rather than an assignment.
    pub declaration: bool,
}

/// Everything [`Index::build`] collects.
#[derive(Clone, Debug, Default)]
pub struct Index {
    pub functions: Vec<FunctionSym>,
    pub structs: Vec<StructSym>,
    pub blocks: Vec<BlockSym>,
    pub globals: Vec<GlobalSym>,
    /// Calls by name (user functions, built-ins and constructors alike): the
    /// span of the called name.
    pub calls: Vec<NameUse>,
    /// Type names used in declarations and constructors (struct names and the
    /// names glsl-lang lexes as types).
    pub type_uses: Vec<NameUse>,
    /// Field selections `.name` (struct fields and swizzles): the name's span.
    pub fields: Vec<NameUse>,
    pub writes: Vec<WriteSym>,
}

impl Index {
    /// Walks the whole translation unit.
    pub fn build(parsed: &Parsed) -> Index {
        let mut w = Walker {
            index: Index::default(),
            function: None,
        };
        for ext in &parsed.tu.0 {
            w.external(ext);
        }
        w.index
    }

    /// The function whose definition contains `offset`.
    pub fn function_at(&self, offset: usize) -> Option<usize> {
        self.functions
            .iter()
            .position(|f| f.body.is_some() && f.span.start <= offset && offset <= f.span.end)
    }
}

fn span<T: ast::NodeContent>(n: &ast::Node<T>) -> Span {
    crate::diagnostics::span_from_node(n.span)
}

struct Walker {
    index: Index,
    function: Option<usize>,
}

impl Walker {
    fn external(&mut self, ext: &ast::ExternalDeclaration) {
        match &ext.content {
            ast::ExternalDeclarationData::Preprocessor(_) => {}
            ast::ExternalDeclarationData::Declaration(d) => self.declaration(d, true),
            ast::ExternalDeclarationData::FunctionDefinition(def) => {
                let id = self.prototype(&def.prototype, span(def), Some(span(&def.statement)));
                self.function = Some(id);
                for s in &def.statement.statement_list {
                    self.statement(s);
                }
                self.function = None;
            }
        }
    }

    fn prototype(&mut self, p: &ast::FunctionPrototype, whole: Span, body: Option<Span>) -> usize {
        self.type_specifier(&p.ty.ty);
        let mut params = Vec::new();
        for param in &p.parameters {
            match &param.content {
                ast::FunctionParameterDeclarationData::Named(_, d) => {
                    self.type_specifier(&d.ty);
                    params.push(ParamSym {
                        name: d.ident.ident.as_str().to_string(),
                        name_span: span(&d.ident.ident),
                        span: span(param),
                    });
                }
                ast::FunctionParameterDeclarationData::Unnamed(_, t) => {
                    self.type_specifier(t);
                    params.push(ParamSym {
                        name: String::new(),
                        name_span: Span::default(),
                        span: span(param),
                    });
                }
            }
        }
        self.index.functions.push(FunctionSym {
            name: p.name.as_str().to_string(),
            name_span: span(&p.name),
            span: whole,
            body,
            params,
        });
        self.index.functions.len() - 1
    }

    fn declaration(&mut self, d: &ast::Declaration, global: bool) {
        match &d.content {
            ast::DeclarationData::FunctionPrototype(p) => {
                self.prototype(p, span(d), None);
            }
            // New qualifiers on existing names declare nothing.
            ast::DeclarationData::InitDeclaratorList(list)
                if crate::parse::is_qualifier_redeclaration(&list.head.ty.ty) => {}
            ast::DeclarationData::InitDeclaratorList(list) => {
                let head = &list.head;
                self.type_specifier(&head.ty.ty);
                let storage = storage_text(head.ty.qualifier.as_ref());
                let mut declared = Vec::new();
                if let Some(name) = &head.name {
                    declared.push((name, head.initializer.as_ref()));
                }
                if let Some(a) = &head.array_specifier {
                    self.array(a);
                }
                for tail in &list.tail {
                    if let Some(a) = &tail.ident.array_spec {
                        self.array(a);
                    }
                    declared.push((&tail.ident.ident, tail.initializer.as_ref()));
                }
                for (name, init) in declared {
                    if let Some(init) = init {
                        self.initializer(init);
                        if !global {
                            self.index.writes.push(WriteSym {
                                name: name.as_str().to_string(),
                                span: span(name),
                                site: span(d),
                                function: self.function,
                                declaration: true,
                            });
                        }
                    }
                    if global {
                        self.index.globals.push(GlobalSym {
                            name: name.as_str().to_string(),
                            name_span: span(name),
                            span: span(d),
                            storage: storage.clone(),
                        });
                    }
                }
            }
            ast::DeclarationData::Block(b) => {
                let fields = self.fields(&b.fields);
                self.index.blocks.push(BlockSym {
                    name: b.name.as_str().to_string(),
                    name_span: span(&b.name),
                    span: span(d),
                    storage: storage_text(Some(&b.qualifier)),
                    fields,
                    instance: b
                        .identifier
                        .as_ref()
                        .map(|i| (i.ident.as_str().to_string(), span(&i.ident))),
                });
            }
            ast::DeclarationData::Precision(_, t) => self.type_specifier(t),
            ast::DeclarationData::Invariant(_) | ast::DeclarationData::TypeOnly(_) => {}
        }
    }

    fn fields(&mut self, fields: &[ast::StructFieldSpecifier]) -> Vec<FieldSym> {
        let mut out = Vec::new();
        for f in fields {
            self.type_specifier(&f.ty);
            for id in &f.identifiers {
                out.push(FieldSym {
                    name: id.ident.as_str().to_string(),
                    name_span: span(&id.ident),
                    span: span(f),
                });
            }
        }
        out
    }

    fn type_specifier(&mut self, ts: &ast::TypeSpecifier) {
        match &ts.ty.content {
            ast::TypeSpecifierNonArrayData::Struct(s) => {
                let fields = self.fields(&s.fields);
                if let Some(name) = &s.name {
                    self.index.structs.push(StructSym {
                        name: name.as_str().to_string(),
                        name_span: span(name),
                        span: span(s),
                        fields,
                        function: self.function,
                    });
                }
            }
            ast::TypeSpecifierNonArrayData::TypeName(n) => self.index.type_uses.push(NameUse {
                name: n.as_str().to_string(),
                span: span(&ts.ty),
            }),
            _ => {}
        }
        if let Some(a) = &ts.array_specifier {
            self.array(a);
        }
    }

    fn array(&mut self, a: &ast::ArraySpecifier) {
        for dim in &a.dimensions {
            if let ast::ArraySpecifierDimensionData::ExplicitlySized(e) = &dim.content {
                self.expr(e);
            }
        }
    }

    fn initializer(&mut self, init: &ast::Initializer) {
        match &init.content {
            ast::InitializerData::Simple(e) => self.expr(e),
            ast::InitializerData::List(items) => {
                for i in items {
                    self.initializer(i);
                }
            }
        }
    }

    fn statement(&mut self, s: &ast::Statement) {
        match &s.content {
            StatementData::Declaration(d) => self.declaration(d, false),
            StatementData::Expression(e) => {
                if let Some(e) = &e.0 {
                    self.expr(e);
                }
            }
            StatementData::Selection(sel) => {
                self.expr(&sel.cond);
                match &sel.rest.content {
                    ast::SelectionRestStatementData::Statement(s) => self.statement(s),
                    ast::SelectionRestStatementData::Else(a, b) => {
                        self.statement(a);
                        self.statement(b);
                    }
                }
            }
            StatementData::Switch(sw) => {
                self.expr(&sw.head);
                for s in &sw.body {
                    self.statement(s);
                }
            }
            StatementData::CaseLabel(c) => {
                if let ast::CaseLabelData::Case(e) = &c.content {
                    self.expr(e);
                }
            }
            StatementData::Iteration(it) => match &it.content {
                ast::IterationStatementData::While(c, body) => {
                    self.condition(c, span(s));
                    self.statement(body);
                }
                ast::IterationStatementData::DoWhile(body, c) => {
                    self.statement(body);
                    self.expr(c);
                }
                ast::IterationStatementData::For(init, rest, body) => {
                    match &init.content {
                        ast::ForInitStatementData::Expression(e) => {
                            if let Some(e) = e {
                                self.expr(e);
                            }
                        }
                        ast::ForInitStatementData::Declaration(d) => self.declaration(d, false),
                    }
                    if let Some(c) = &rest.condition {
                        self.condition(c, span(s));
                    }
                    if let Some(e) = &rest.post_expr {
                        self.expr(e);
                    }
                    self.statement(body);
                }
            },
            StatementData::Jump(j) => {
                if let ast::JumpStatementData::Return(Some(e)) = &j.content {
                    self.expr(e);
                }
            }
            StatementData::Compound(c) => {
                for s in &c.statement_list {
                    self.statement(s);
                }
            }
        }
    }

    fn condition(&mut self, c: &ast::Condition, site: Span) {
        match &c.content {
            ast::ConditionData::Expr(e) => self.expr(e),
            ast::ConditionData::Assignment(ty, name, init) => {
                self.type_specifier(&ty.ty);
                self.initializer(init);
                self.index.writes.push(WriteSym {
                    name: name.as_str().to_string(),
                    span: span(name),
                    site,
                    function: self.function,
                    declaration: true,
                });
            }
        }
    }

    fn write_target(&mut self, target: &ast::Expr, site: Span) {
        let mut e = target;
        loop {
            match &e.content {
                ExprData::Dot(base, _) | ExprData::Bracket(base, _) => e = base,
                ExprData::Variable(id) => {
                    self.index.writes.push(WriteSym {
                        name: id.as_str().to_string(),
                        span: span(id),
                        site,
                        function: self.function,
                        declaration: false,
                    });
                    return;
                }
                _ => return,
            }
        }
    }

    fn expr(&mut self, e: &ast::Expr) {
        match &e.content {
            ExprData::Variable(_)
            | ExprData::IntConst(_)
            | ExprData::UIntConst(_)
            | ExprData::BoolConst(_)
            | ExprData::FloatConst(_)
            | ExprData::DoubleConst(_) => {}
            ExprData::Unary(op, a) => {
                if matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) {
                    self.write_target(a, span(e));
                }
                self.expr(a);
            }
            ExprData::PostInc(a) | ExprData::PostDec(a) => {
                self.write_target(a, span(e));
                self.expr(a);
            }
            ExprData::Binary(_, a, b) | ExprData::Comma(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprData::Ternary(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            ExprData::Assignment(lhs, _, rhs) => {
                self.write_target(lhs, span(e));
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprData::Bracket(a, i) => {
                self.expr(a);
                self.expr(i);
            }
            ExprData::FunCall(f, args) => {
                match &f.content {
                    ast::FunIdentifierData::TypeSpecifier(ts) => {
                        if let ast::TypeSpecifierNonArrayData::TypeName(n) = &ts.ty.content {
                            self.index.calls.push(NameUse {
                                name: n.as_str().to_string(),
                                span: span(&ts.ty),
                            });
                        }
                        if let Some(a) = &ts.array_specifier {
                            self.array(a);
                        }
                    }
                    ast::FunIdentifierData::Expr(fe) => match &fe.content {
                        ExprData::Variable(id) => self.index.calls.push(NameUse {
                            name: id.as_str().to_string(),
                            span: span(id),
                        }),
                        // `a.length()`: the base is an expression like any other.
                        ExprData::Dot(base, _) => self.expr(base),
                        _ => self.expr(fe),
                    },
                }
                for a in args {
                    self.expr(a);
                }
            }
            ExprData::Dot(base, field) => {
                self.expr(base);
                self.index.fields.push(NameUse {
                    name: field.as_str().to_string(),
                    span: span(field),
                });
            }
        }
    }
}

/// The storage qualifier of a declaration as written (`uniform`, `in`, ...).
fn storage_text(q: Option<&ast::TypeQualifier>) -> String {
    let mut out = Vec::new();
    for spec in q.map(|q| q.qualifiers.as_slice()).unwrap_or_default() {
        if let ast::TypeQualifierSpecData::Storage(s) = &spec.content {
            use ast::StorageQualifierData as S;
            let word = match &s.content {
                S::Const => "const",
                S::InOut => "inout",
                S::In => "in",
                S::Out => "out",
                S::Centroid => "centroid",
                S::Patch => "patch",
                S::Sample => "sample",
                S::Uniform => "uniform",
                S::Buffer => "buffer",
                S::Shared => "shared",
                S::Coherent => "coherent",
                S::Volatile => "volatile",
                S::Restrict => "restrict",
                S::ReadOnly => "readonly",
                S::WriteOnly => "writeonly",
                S::Attribute => "attribute",
                S::Varying => "varying",
                S::Subroutine(_) => "subroutine",
            };
            out.push(word);
        }
    }
    out.join(" ")
}
