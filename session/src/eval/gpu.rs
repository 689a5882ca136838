//! The GPU path: a call the CPU cannot evaluate faithfully (texture
//! sampling, `texelFetch`, derivatives, built-ins not implemented on the CPU)
//! is evaluated by a watch: the draw replayed with the call evaluated at the
//! cursor's line for every invocation; its value is the one in this
//! invocation's slot.
//!
//! What is sent: when the cursor is the first time the invocation reaches its
//! line, the call as written (a watch evaluates at the first reach, with the
//! same values in scope as the cursor, and its neighbours' for derivatives).
//! Otherwise the call with every argument replaced by its value at the cursor
//! as a GLSL literal (samplers stay names); derivatives then have no
//! meaning and are refused, and implicit-LOD sampling sees constant
//! coordinates (no derivatives: the base level).

use glsl_lang::ast;
use shaderdbg_glsl::{Type, Value};

use super::ops::flat;
use super::{EvalError, Evaluator, Scope, Typed, R};
use crate::SessionError;

/// A watch image: the value of an expression at a line for every
/// invocation of the stopped draw (what the session's watch request gives):
/// fragments by pixel (slot `y * width + x`), vertices by `gl_VertexID`.
pub use crate::images::WatchImage;

/// Which slot of a watch image is this invocation's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A fragment at `gl_FragCoord` (x, y): slot `y * width + x`.
    Pixel { x: u32, y: u32 },
    /// A vertex: slot `gl_VertexID`.
    Index(u32),
}

/// Where GPU evaluation happens for one invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuSite {
    /// The runtime line (1-based, in the shader's runtime source) of the
    /// cursor's step: the watch evaluates before that statement.
    pub line: u32,
    pub slot: Slot,
    /// The cursor is the first time the invocation reaches `line`: the call
    /// is sent as written.
    pub first_reach: bool,
}

/// Evaluates `expr` on the GPU at a runtime `line` for every invocation of
/// the stopped draw ([`crate::Session::watch`]). Closures
/// `FnMut(u32, &str) -> Result<WatchImage, SessionError>` are `GpuWatch`es.
pub trait GpuWatch {
    fn watch(&mut self, line: u32, expr: &str) -> Result<WatchImage, SessionError>;
}

impl<F: FnMut(u32, &str) -> Result<WatchImage, SessionError>> GpuWatch for F {
    fn watch(&mut self, line: u32, expr: &str) -> Result<WatchImage, SessionError> {
        self(line, expr)
    }
}

const DERIVATIVES: &[&str] = &[
    "dFdx",
    "dFdy",
    "fwidth",
    "dFdxFine",
    "dFdyFine",
    "fwidthFine",
    "dFdxCoarse",
    "dFdyCoarse",
    "fwidthCoarse",
];

/// Why a call needs the GPU (`"texture()"`), or `None` when the CPU does it.
pub(crate) fn needs_gpu(name: &str, scope: &dyn Scope) -> Option<String> {
    if super::builtins::NAMES.contains(&name) || scope.is_function(name) {
        return None;
    }
    let gpu = DERIVATIVES.contains(&name)
        || ["texture", "texel", "shadow", "image", "interpolateAt"]
            .iter()
            .any(|p| name.starts_with(p))
        || shaderdbg_glsl::builtins::is_builtin_function(name);
    gpu.then(|| format!("{name}()"))
}

/// Evaluates the call `f(args)` on the GPU.
pub(crate) fn evaluate_call(
    scope: &dyn Scope,
    watch: &mut dyn GpuWatch,
    site: &GpuSite,
    name: &str,
    f: &ast::FunIdentifier,
    args: &[ast::Expr],
    vals: &[Typed],
) -> R<Typed> {
    // The call with literals for its arguments: what is sent when the
    // cursor is not the first reach.
    let mut lits = Vec::with_capacity(args.len());
    for (a, v) in args.iter().zip(vals) {
        lits.push(match &v.ty {
            Type::Opaque(_) => opaque_path(scope, a)?,
            _ => literal(v)?,
        });
    }
    let residual = format!("{name}({})", lits.join(", "));
    let text = if site.first_reach {
        let call = ast::Expr::new(ast::ExprData::FunCall(f.clone(), args.to_vec()), None);
        let mut s = String::new();
        glsl_lang::transpiler::glsl::show_expr(
            &mut s,
            &call,
            &mut glsl_lang::transpiler::glsl::FormattingState::default(),
        )
        .map_err(|e| EvalError::Gpu(e.to_string()))?;
        s
    } else if DERIVATIVES.contains(&name) {
        return Err(EvalError::Gpu(format!(
            "{name}() is evaluated only where the invocation first reaches line {}; \
             the cursor is at a later pass",
            site.line
        )));
    } else {
        residual
    };
    let image = watch
        .watch(site.line, &text)
        .map_err(|e| EvalError::Gpu(e.to_string()))?;
    let value = read_slot(&image, site)?;
    Ok(Typed::new(image.ty, value))
}

/// The value of this invocation's slot.
pub fn read_slot(image: &WatchImage, site: &GpuSite) -> R<Value> {
    let slot = match site.slot {
        Slot::Pixel { x, y } if x < image.width && y < image.height => {
            y as usize * image.width as usize + x as usize
        }
        Slot::Pixel { x, y } => {
            return Err(EvalError::Gpu(format!(
                "pixel ({x}, {y}) is outside the {}x{} watch image",
                image.width, image.height
            )))
        }
        Slot::Index(i) => i as usize,
    };
    match image.values.get(slot) {
        Some(Some(v)) => Ok(v.clone()),
        Some(None) => Err(EvalError::Gpu(format!(
            "the replay did not reach line {} for this invocation",
            site.line
        ))),
        None => Err(EvalError::Gpu(format!(
            "the watch image has no slot {slot}"
        ))),
    }
}

/// A sampler argument as GLSL: its name, with literal indices.
fn opaque_path(scope: &dyn Scope, e: &ast::Expr) -> R<String> {
    match &e.content {
        ast::ExprData::Variable(id) => Ok(id.as_str().to_string()),
        ast::ExprData::Bracket(base, index) => {
            let b = opaque_path(scope, base)?;
            let i = Evaluator::new(scope, None).eval(index)?;
            Ok(format!("{b}[{}]", literal(&i)?))
        }
        ast::ExprData::Dot(base, field) => {
            Ok(format!("{}.{}", opaque_path(scope, base)?, field.as_str()))
        }
        _ => Err(EvalError::Unsupported(
            "a sampler argument must be a variable, an array element or a member".into(),
        )),
    }
}

/// A value as a GLSL literal that reads back exactly (`1.5`, `1e-10`,
/// `uintBitsToFloat(0x7f800000u)`, `vec2(0.5, 1.0)`, `S(1, 2.0)`).
pub fn literal(t: &Typed) -> R<String> {
    let undefined = || EvalError::Invalid("a part of an argument is not written yet".into());
    let scalar = |v: &Value| -> R<String> {
        Ok(match v {
            Value::Bool(b) => b.to_string(),
            Value::Int(i32::MIN) => "(-2147483647 - 1)".into(),
            Value::Int(i) => i.to_string(),
            Value::Uint(u) => format!("{u}u"),
            Value::Float(x) if x.is_finite() => {
                let s = format!("{x:?}");
                if s.contains(['.', 'e']) {
                    s
                } else {
                    format!("{s}.0")
                }
            }
            Value::Float(x) => format!("uintBitsToFloat({:#x}u)", x.to_bits()),
            Value::Double(x) if x.is_finite() => {
                let s = format!("{x:?}");
                if s.contains(['.', 'e']) {
                    format!("{s}lf")
                } else {
                    format!("{s}.0lf")
                }
            }
            Value::Double(x) => format!(
                "packDouble2x32(uvec2({:#x}u, {:#x}u))",
                x.to_bits() as u32,
                (x.to_bits() >> 32) as u32
            ),
            _ => return Err(undefined()),
        })
    };
    match (&t.ty, &t.value) {
        (Type::Scalar(_), v) => scalar(v),
        (Type::Vector(..) | Type::Matrix { .. }, _) => {
            let c = flat(t).ok_or_else(undefined)?;
            let parts = c.iter().map(scalar).collect::<R<Vec<_>>>()?;
            Ok(format!("{}({})", t.ty, parts.join(", ")))
        }
        (Type::Array(elem, _), Value::List(items)) => {
            let parts = items
                .iter()
                .map(|v| literal(&Typed::new((**elem).clone(), v.clone())))
                .collect::<R<Vec<_>>>()?;
            Ok(format!("{}[{}]({})", elem, items.len(), parts.join(", ")))
        }
        (Type::Struct(st), Value::Struct(fields)) => {
            let parts = st
                .fields
                .iter()
                .map(|f| {
                    let v = fields
                        .iter()
                        .find(|(n, _)| *n == f.name)
                        .map(|(_, v)| v.clone())
                        .ok_or_else(undefined)?;
                    literal(&Typed::new(f.ty.clone(), v))
                })
                .collect::<R<Vec<_>>>()?;
            Ok(format!("{}({})", st.name, parts.join(", ")))
        }
        (ty, _) => Err(EvalError::Invalid(format!(
            "a {ty} cannot be written as GLSL"
        ))),
    }
}
