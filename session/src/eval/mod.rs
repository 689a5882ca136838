//! Expressions over the values at a stop's cursor, with GLSL semantics: what
//! watch, hover and the debug console show.
//!
//! An expression is parsed by glsl-lang's expression parser (as the analysis
//! and the instrumenter parse breakpoint conditions) and evaluated on the CPU
//! over the recorded values: variables in scope, literals, operators
//! (arithmetic with implicit int -> uint -> float -> double conversions,
//! component-wise on vectors and matrices, linear algebra for `*` on matrices,
//! bitwise, shifts, comparisons, logic with short-circuit, `?:`, `,`),
//! swizzles, members, indexing with bounds errors, `.length()`, constructors
//! (scalar, vector, matrix, struct, array) and the common built-in functions
//! ([`builtins`]). Floats are `f32` as on the GPU; integers wrap.
//!
//! What the CPU cannot evaluate faithfully (texture sampling, `texelFetch`,
//! derivatives, image loads) is [`EvalError::NeedsGpu`]. Calls of the
//! shader's own GLSL functions are refused (they may write globals or
//! `out` parameters); WGSL watches run pure ones on the GPU
//! (`stop_scope::evaluate_wgsl`). With a [`GpuWatch`] (the session's `Watch`
//! request: the draw replayed with an expression evaluated at a line for every
//! invocation) such a call is evaluated on the GPU and its value taken at this
//! invocation's slot; the rest of the expression stays on the CPU. See
//! [`evaluate_at`].

mod builtins;
mod construct;
mod gpu;
mod ops;
mod stop_scope;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

use glsl_lang::ast;
use shaderdbg_glsl::types::StructType;
use shaderdbg_glsl::{Scalar, Type, Value};

pub use gpu::{literal, read_slot, GpuSite, GpuWatch, Slot, WatchImage};
pub use stop_scope::{evaluate_at, StopScope};

/// A value with its GLSL type.
#[derive(Clone, Debug, PartialEq)]
pub struct Typed {
    pub ty: Type,
    pub value: Value,
}

impl Typed {
    pub fn new(ty: Type, value: Value) -> Typed {
        Typed { ty, value }
    }

    pub fn bool(b: bool) -> Typed {
        Typed::new(Type::Scalar(Scalar::Bool), Value::Bool(b))
    }

    pub fn int(i: i32) -> Typed {
        Typed::new(Type::Scalar(Scalar::Int), Value::Int(i))
    }
}

/// Shows the value the GLSL way: `vec3(1.0, 0.5, 0.0)`, `mat2(vec2(..), ..)`,
/// `S(1.0, 2)`, `float[2](..)`, `2u`, `1.0lf`, `NaN`, `?` for parts not written.
impl fmt::Display for Typed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show(f, &self.ty, &self.value)
    }
}

fn show(f: &mut fmt::Formatter<'_>, ty: &Type, v: &Value) -> fmt::Result {
    let float = |f: &mut fmt::Formatter<'_>, x: f64, dbg: String| {
        if x.is_nan() {
            f.write_str("NaN")
        } else if x.is_infinite() {
            f.write_str(if x > 0.0 { "inf" } else { "-inf" })
        } else {
            f.write_str(&dbg)
        }
    };
    match (ty, v) {
        (_, Value::Undefined) => f.write_str("?"),
        (_, Value::Bool(b)) => write!(f, "{b}"),
        (_, Value::Int(i)) => write!(f, "{i}"),
        (_, Value::Uint(u)) => write!(f, "{u}u"),
        (_, Value::Float(x)) => float(f, f64::from(*x), format!("{x:?}")),
        (_, Value::Double(x)) => {
            float(f, *x, format!("{x:?}"))?;
            f.write_str("lf")
        }
        (_, Value::List(items)) => {
            write!(f, "{ty}(")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                show(f, &element_type(ty).unwrap_or(Type::Error), item)?;
            }
            f.write_str(")")
        }
        (_, Value::Struct(fields)) => {
            write!(f, "{ty}(")?;
            for (i, (name, item)) in fields.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                let fty = match ty {
                    Type::Struct(s) => s.fields.iter().find(|x| &x.name == name).map(|x| &x.ty),
                    _ => None,
                };
                show(f, fty.unwrap_or(&Type::Error), item)?;
            }
            f.write_str(")")
        }
    }
}

/// The type of an element: a vector's component, a matrix's column, an array's element.
pub(crate) fn element_type(ty: &Type) -> Option<Type> {
    Some(match ty {
        Type::Vector(s, _) => Type::Scalar(*s),
        Type::Matrix { scalar, rows, .. } => Type::Vector(*scalar, *rows),
        Type::Array(e, _) => (**e).clone(),
        _ => return None,
    })
}

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// It does not parse as a GLSL expression.
    #[error("{0}")]
    Parse(String),
    /// It names something unknown, mixes types wrongly, indexes out of
    /// range, reads a value not written yet, divides an integer by zero.
    #[error("{0}")]
    Invalid(String),
    /// Valid GLSL that a debugger does not evaluate (assignments, `++`).
    #[error("{0}")]
    Unsupported(String),
    /// The CPU cannot evaluate it faithfully (texture sampling, derivatives,
    /// shader functions): the GPU can, by an instrumented replay of the draw.
    #[error("{what} needs the GPU")]
    NeedsGpu { what: String },
    /// The GPU evaluation failed (the replay's or the agent's message).
    #[error("on the GPU: {0}")]
    Gpu(String),
}

pub(crate) type R<T> = Result<T, EvalError>;

pub(crate) fn invalid<T>(m: impl Into<String>) -> R<T> {
    Err(EvalError::Invalid(m.into()))
}

/// What names mean where the expression is evaluated.
pub trait Scope {
    /// A variable: its type and value (`None`: in scope, not written yet, or
    /// opaque like a sampler); `None` when no such variable is in scope.
    fn lookup(&self, name: &str) -> Option<(Type, Option<Value>)>;

    /// A struct type by name (for constructors).
    fn struct_type(&self, _name: &str) -> Option<Arc<StructType>> {
        None
    }

    /// Whether `name` is a function the shader defines.
    fn is_function(&self, _name: &str) -> bool {
        false
    }
}

impl<F: Fn(&str) -> Option<(Type, Option<Value>)>> Scope for F {
    fn lookup(&self, name: &str) -> Option<(Type, Option<Value>)> {
        self(name)
    }
}

/// Longest expression accepted (the parser's recursion is bounded by
/// `glsl::limits` too).
pub const MAX_EXPR_LEN: usize = 4096;

/// Parses `text` as one GLSL expression.
pub fn parse(text: &str) -> R<ast::Expr> {
    use glsl_lang::parse::DefaultParse;
    let text = text.trim();
    if text.is_empty() {
        return Err(EvalError::Parse("an expression is missing".into()));
    }
    if text.len() > MAX_EXPR_LEN {
        return Err(EvalError::Parse(format!(
            "the expression is longer than {MAX_EXPR_LEN} bytes"
        )));
    }
    if text.contains('#') {
        return Err(EvalError::Parse(
            "preprocessor directives are not allowed in an expression".into(),
        ));
    }
    shaderdbg_glsl::limits::check(text).map_err(|d| EvalError::Parse(d.message))?;
    ast::Expr::parse(text).map_err(|e| EvalError::Parse(format!("does not parse: {e}")))
}

/// Evaluates `expr` on the CPU in `scope`. A part that needs the GPU is
/// [`EvalError::NeedsGpu`].
pub fn evaluate(expr: &str, scope: &dyn Scope) -> R<Typed> {
    let e = parse(expr)?;
    shown(Evaluator::new(scope, None).eval(&e)?)
}

/// A sampler, image, ... or an array of them: names the GPU resolves.
fn is_opaque(ty: &Type) -> bool {
    match ty {
        Type::Opaque(_) => true,
        Type::Array(e, _) => is_opaque(e),
        _ => false,
    }
}

/// A result to show: not an opaque handle.
pub(crate) fn shown(t: Typed) -> R<Typed> {
    if is_opaque(&t.ty) {
        return invalid(format!(
            "a {} has no value to show; built-in functions such as texture() use it",
            t.ty
        ));
    }
    Ok(t)
}

/// Evaluates `expr` in `scope`, sending what needs the GPU to `gpu` at `site`.
pub fn evaluate_with_gpu(
    expr: &str,
    scope: &dyn Scope,
    gpu: &mut dyn GpuWatch,
    site: GpuSite,
) -> R<Typed> {
    let e = parse(expr)?;
    shown(Evaluator::new(scope, Some((gpu, site))).eval(&e)?)
}

/// The evaluator: a scope and, optionally, a GPU to ask.
pub(crate) struct Evaluator<'a, 'g> {
    pub scope: &'a dyn Scope,
    pub gpu: Option<(&'g mut dyn GpuWatch, GpuSite)>,
}

impl<'a, 'g> Evaluator<'a, 'g> {
    pub fn new(scope: &'a dyn Scope, gpu: Option<(&'g mut dyn GpuWatch, GpuSite)>) -> Self {
        Evaluator { scope, gpu }
    }

    pub fn eval(&mut self, e: &ast::Expr) -> R<Typed> {
        use ast::ExprData as E;
        match &e.content {
            E::Variable(id) => self.variable(id.as_str()),
            E::IntConst(i) => Ok(Typed::int(*i)),
            E::UIntConst(u) => Ok(Typed::new(Type::Scalar(Scalar::Uint), Value::Uint(*u))),
            E::BoolConst(b) => Ok(Typed::bool(*b)),
            E::FloatConst(x) => Ok(Typed::new(Type::Scalar(Scalar::Float), Value::Float(*x))),
            E::DoubleConst(x) => Ok(Typed::new(Type::Scalar(Scalar::Double), Value::Double(*x))),
            E::Unary(op, x) => {
                let x = self.eval(x)?;
                ops::unary(&op.content, x)
            }
            E::Binary(op, a, b) => {
                use ast::BinaryOpData as B;
                let a = self.eval(a)?;
                // `&&` and `||` short-circuit: `i < 3 && a[i] > 0` is safe.
                match (&op.content, &a.value) {
                    (B::And, Value::Bool(false)) if a.ty == shaderdbg_glsl::types::BOOL => {
                        return Ok(a)
                    }
                    (B::Or, Value::Bool(true)) if a.ty == shaderdbg_glsl::types::BOOL => {
                        return Ok(a)
                    }
                    _ => {}
                }
                let b = self.eval(b)?;
                ops::binary(&op.content, a, b)
            }
            E::Ternary(c, t, f) => {
                let c = self.eval(c)?;
                match (&c.ty, &c.value) {
                    (Type::Scalar(Scalar::Bool), Value::Bool(true)) => self.eval(t),
                    (Type::Scalar(Scalar::Bool), Value::Bool(false)) => self.eval(f),
                    (Type::Scalar(Scalar::Bool), _) => {
                        invalid("the condition of `?:` is not written yet")
                    }
                    (ty, _) => invalid(format!("the condition of `?:` must be a bool, not {ty}")),
                }
            }
            E::Assignment(..) | E::PostInc(_) | E::PostDec(_) => Err(EvalError::Unsupported(
                "expressions that change variables are not evaluated".into(),
            )),
            E::Bracket(base, index) => {
                let b = self.eval(base)?;
                let i = self.eval(index)?;
                ops::index(b, &i)
            }
            E::FunCall(f, args) => self.call(f, args),
            E::Dot(base, field) => {
                let b = self.eval(base)?;
                ops::member(b, field.as_str())
            }
            E::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
        }
    }

    fn variable(&mut self, name: &str) -> R<Typed> {
        match self.scope.lookup(name) {
            Some((ty, _)) if is_opaque(&ty) => Ok(Typed::new(ty, Value::Undefined)),
            Some((ty, Some(value))) => Ok(Typed::new(ty, value)),
            Some((_, None)) => invalid(format!("`{name}` has no value yet at this step")),
            None => invalid(format!("no variable named {name} in scope")),
        }
    }

    fn call(&mut self, f: &ast::FunIdentifier, args: &[ast::Expr]) -> R<Typed> {
        // `a.length()` parses as a call of the expression `a.length`.
        if let ast::FunIdentifierData::Expr(fe) = &f.content {
            if let ast::ExprData::Dot(base, m) = &fe.content {
                if m.as_str() == "length" {
                    if !args.is_empty() {
                        return invalid("`.length()` takes no arguments");
                    }
                    let b = self.eval(base)?;
                    return ops::length_method(&b);
                }
            }
        }
        let callee = construct::callee(self, f)?;
        let vals = args.iter().map(|a| self.eval(a)).collect::<R<Vec<_>>>()?;
        match callee {
            construct::Callee::Constructor(ty) => construct::construct(&ty, vals),
            construct::Callee::Function(name) => {
                if let Some(what) = gpu::needs_gpu(&name, self.scope) {
                    return self.on_gpu(&name, what, f, args, &vals);
                }
                match builtins::call(&name, &vals) {
                    Some(r) => r,
                    None if self.scope.is_function(&name) => Err(EvalError::Unsupported(format!(
                        "{name}() is a function of the shader: calls of the shader's functions \
                         are not evaluated (they could change what the shader computes)"
                    ))),
                    None if matches!(
                        shaderdbg_glsl::types::parse_type_name(&name),
                        Some(Type::Opaque(_))
                    ) =>
                    {
                        invalid(format!("a {name} cannot be constructed"))
                    }
                    None => invalid(format!("no function named {name}")),
                }
            }
        }
    }

    fn on_gpu(
        &mut self,
        name: &str,
        what: String,
        f: &ast::FunIdentifier,
        args: &[ast::Expr],
        vals: &[Typed],
    ) -> R<Typed> {
        let scope = self.scope;
        match self.gpu.as_mut() {
            None => Err(EvalError::NeedsGpu { what }),
            Some((watch, site)) => {
                gpu::evaluate_call(scope, &mut **watch, &*site, name, f, args, vals)
            }
        }
    }
}
