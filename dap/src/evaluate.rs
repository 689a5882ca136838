//! Expressions over the values at the cursor (hover, watch, repl): the
//! session engine's evaluator ([`shaderdbg_session::eval`], GLSL semantics:
//! operators, swizzles, indexing, constructors, built-in functions; texture
//! sampling and derivatives on the GPU when a watch is at hand), with the
//! split the adapter answers with: what cannot be evaluated (yet) and what
//! is wrong with the expression.

use shaderdbg_session::eval::{self, GpuWatch};
use shaderdbg_session::stop::Stop;

pub use shaderdbg_session::eval::{Scope, Typed};

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The expression is outside what can be evaluated here: it needs the
    /// GPU and none was at hand, the GPU failed, or it changes variables.
    #[error("{0}")]
    Unsupported(String),
    /// It does not parse, names something unknown, or mixes types wrongly.
    #[error("{0}")]
    Invalid(String),
}

impl From<eval::EvalError> for EvalError {
    fn from(e: eval::EvalError) -> EvalError {
        let m = e.to_string();
        match e {
            eval::EvalError::Parse(_) | eval::EvalError::Invalid(_) => EvalError::Invalid(m),
            eval::EvalError::Unsupported(_)
            | eval::EvalError::NeedsGpu { .. }
            | eval::EvalError::Gpu(_) => EvalError::Unsupported(m),
        }
    }
}

/// Evaluates `expr` on the CPU over the names of `scope`.
pub fn evaluate(expr: &str, scope: &dyn Scope) -> Result<Typed, EvalError> {
    Ok(eval::evaluate(expr, scope)?)
}

/// Evaluates `expr` over the values of `stop` before `step` executes
/// (structs and samplers of the shader known); with `gpu`, texture sampling
/// and derivatives are evaluated by a watch on the GPU.
pub fn evaluate_at(
    stop: &Stop,
    step: usize,
    expr: &str,
    gpu: Option<&mut dyn GpuWatch>,
) -> Result<Typed, EvalError> {
    Ok(eval::evaluate_at(stop, step, expr, gpu)?)
}

#[cfg(test)]
mod tests {
    use shaderdbg_glsl::{Scalar, Type, Value};

    use super::*;

    fn scope(name: &str) -> Option<(Type, Option<Value>)> {
        let f = |x: f32| Value::Float(x);
        match name {
            "p" => Some((
                Type::Vector(Scalar::Float, 2),
                Some(Value::List(vec![f(1.5), f(0.25)])),
            )),
            "m" => Some((
                Type::mat(2, 2),
                Some(Value::List(vec![
                    Value::List(vec![f(1.0), f(2.0)]),
                    Value::List(vec![f(3.0), f(4.0)]),
                ])),
            )),
            "i" => Some((Type::Scalar(Scalar::Int), Some(Value::Int(3)))),
            "tex" => Some((Type::Opaque("sampler2D".into()), None)),
            "later" => Some((Type::Scalar(Scalar::Float), None)),
            _ => None,
        }
    }

    /// As the adapter shows a result: type, value in the variables view's
    /// notation; errors as the `evaluate` response's message.
    fn ev(e: &str) -> String {
        match evaluate(e, &scope) {
            Ok(t) => format!("{} {}", t.ty, crate::variables::format(&t.ty, &t.value)),
            Err(EvalError::Unsupported(m)) => format!("cannot: {m}"),
            Err(EvalError::Invalid(m)) => format!("error: {m}"),
        }
    }

    #[test]
    fn results_in_the_adapters_notation() {
        assert_eq!(ev("p"), "vec2 vec2(1.5, 0.25)");
        assert_eq!(ev("p.yx"), "vec2 vec2(0.25, 1.5)");
        assert_eq!(ev("m[1][0]"), "float 3.0");
        assert_eq!(ev("m * p"), "vec2 vec2(2.25, 4.0)");
        assert_eq!(ev("length(vec2(3, 4))"), "float 5.0");
        assert_eq!(ev("1.0 / 0.0"), "float inf");
        assert_eq!(ev("i / 2 + i % 2"), "int 2");
        assert_eq!(ev("7u / 2u"), "uint 3u");
        assert_eq!(ev("p.x > 1.5"), "bool false");
    }

    #[test]
    fn errors_split_into_cannot_and_invalid() {
        assert_eq!(ev("texture(tex, p)"), "cannot: texture() needs the GPU");
        assert_eq!(
            ev("i = 2"),
            "cannot: expressions that change variables are not evaluated"
        );
        assert_eq!(ev("q"), "error: no variable named q in scope");
        assert_eq!(ev("later"), "error: `later` has no value yet at this step");
        assert_eq!(ev("p.xz"), "error: vec2 has no component z");
        assert_eq!(ev("i / 0"), "error: integer division by zero");
        assert!(
            ev("p +").starts_with("error: does not parse"),
            "{}",
            ev("p +")
        );
    }
}
