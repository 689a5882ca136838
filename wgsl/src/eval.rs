//! WGSL expressions over recorded values, on the CPU (watch, hover, the
//! debug console at a stop): naga's own constant evaluator does the work.
//! The values in scope that the expression names become module-scope
//! constants of their types, the expression the initialiser of a private
//! variable (a constant expression, its type concretized),
//!
//! ```wgsl
//! struct Ring { radius: f32, width: f32, }
//! const r: Ring = Ring(0.6f, 0.1f);
//! const i: i32 = 2i;
//! var<private> _sdbg_v = r.radius * f32(i);
//! ```
//!
//! and naga's front end evaluates it with WGSL's rules (abstract numerics
//! and their concretization, constructors, swizzles, indexing with bounds
//! errors, the built-in functions it can evaluate). The value is read back
//! from the module. Chosen over an evaluator of our own for the same reason
//! the GPU side compiles conditions with naga (`expr.rs`): the syntax and
//! the semantics are WGSL's by construction. Constant expressions differ
//! from run-time ones where WGSL says so: division by zero and its
//! overflow (`i32` min / -1), shifts by 32 or more, floats out of range
//! and built-ins outside their domain (`log(0.0)`) are errors of a
//! constant where the GPU gives a value (the dividend, a shift modulo 32,
//! an infinity, a NaN; naga wraps concrete integer `+ - *` as the GPU
//! does); such an expression, one naga does
//! not evaluate as a constant (a built-in it lacks), and one that names a
//! NaN or an infinity (WGSL has no literal for them) are
//! [`EvalError::RunTime`]: the caller evaluates them on the GPU, as it
//! does calls of the shader's functions and of the built-ins only the GPU
//! has ([`gpu_only_builtin`]), which are errors here.

use std::collections::BTreeMap;
use std::sync::Arc;

use naga::{Expression, Handle, Literal, Module, ScalarKind, TypeInner};
use shaderdbg_core::types::{Field, Language, Scalar, StructType, Type};
use shaderdbg_core::Value;

const RESULT: &str = "_sdbg_v";

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// It does not parse or type-check; `column` is 1-based, in characters.
    #[error("{}{message}", column.map(|c| format!("column {c}: ")).unwrap_or_default())]
    Invalid {
        column: Option<u32>,
        message: String,
    },
    /// It names a variable whose value is not known (not written yet, a
    /// resource).
    #[error("`{0}` has no value here")]
    NoValue(String),
    /// Valid WGSL that a constant cannot be and a run-time value can (the
    /// reason): the GPU evaluates it faithfully.
    #[error("{0}")]
    RunTime(String),
}

/// The messages of naga's constant evaluator where a run-time evaluation
/// gives a value (`ConstantEvaluatorError`, `LiteralError`).
const RUN_TIME_ONLY: &[&str] = &[
    "operation overflowed",
    "Division by zero",
    "Remainder by zero",
    "RHS of shift operation is greater than or equal to 32",
    "Float literal is NaN",
    "Float literal is infinite",
    "Not implemented as constant expression",
    "argument is out of valid range",
];

/// WGSL's built-in functions that only the GPU evaluates: texture access
/// and derivatives (they need resources, or the neighbouring invocations).
pub fn gpu_only_builtin(name: &str) -> bool {
    let derivative = ["dpdx", "dpdy", "fwidth"].iter().any(|d| {
        name.strip_prefix(d)
            .is_some_and(|r| matches!(r, "" | "Coarse" | "Fine"))
    });
    // textureStore writes: a watch refuses it.
    let texture = name.strip_prefix("texture").is_some_and(|r| {
        r.starts_with("Sample")
            || r.starts_with("Gather")
            || r.starts_with("Num")
            || matches!(r, "Dimensions" | "Load")
    });
    derivative || texture
}

/// The names `text` mentions (members and type names included).
pub fn identifiers(text: &str) -> Vec<&str> {
    crate::expr::identifiers(text)
}

/// A variable in scope at a stop.
pub struct Var<'a> {
    pub name: &'a str,
    pub ty: &'a Type,
    pub value: Option<&'a Value>,
}

/// Evaluates the WGSL expression `text` over `vars` (the innermost
/// declaration of a name first: the first of a name wins).
pub fn evaluate(text: &str, vars: &[Var]) -> Result<(Type, Value), EvalError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(invalid(None, "an expression is missing"));
    }
    if let Some(i) = text.find([';', '{', '}']) {
        return Err(invalid(
            Some(text[..i].chars().count() as u32 + 1),
            &format!("`{}` cannot be part of an expression", &text[i..i + 1]),
        ));
    }
    let named = crate::expr::identifiers(text);
    let mut source = String::new();
    let mut structs: BTreeMap<String, Arc<StructType>> = BTreeMap::new();
    let mut decls = String::new();
    let mut seen: Vec<&str> = Vec::new();
    for v in vars {
        if !named.contains(&v.name) || seen.contains(&v.name) {
            continue;
        }
        seen.push(v.name);
        let value = v
            .value
            .ok_or_else(|| EvalError::NoValue(v.name.to_string()))?;
        if !finite(value) {
            return Err(EvalError::RunTime(format!(
                "`{}` holds a NaN or an infinity, which a WGSL constant cannot",
                v.name
            )));
        }
        let lit = literal(v.ty, value).ok_or_else(|| EvalError::NoValue(v.name.to_string()))?;
        collect_structs(v.ty, &mut structs);
        decls.push_str(&format!(
            "const {}: {} = {lit};\n",
            v.name,
            v.ty.display_in(Language::Wgsl)
        ));
    }
    for (name, st) in &structs {
        source.push_str(&format!("struct {name} {{\n"));
        for f in &st.fields {
            source.push_str(&format!(
                "    {}: {},\n",
                f.name,
                f.ty.display_in(Language::Wgsl)
            ));
        }
        source.push_str("}\n");
    }
    source.push_str(&decls);
    // A private variable's initialiser is a constant expression whose type
    // is concretized (a `const` of an abstract type never reaches the module).
    source.push_str(&format!("var<private> {RESULT} =\n"));
    let start = source.len();
    source.push_str(text);
    source.push_str("\n;\n");
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| {
        if RUN_TIME_ONLY.iter().any(|m| e.message().contains(m)) {
            return EvalError::RunTime(format!("as a constant: {}", e.message()));
        }
        let column = e
            .location(&source)
            .filter(|l| l.offset as usize >= start)
            .map(|l| crate::expr::column(text, start, l.offset as usize));
        invalid(column, e.message())
    })?;
    let (_, g) = module
        .global_variables
        .iter()
        .find(|(_, g)| g.name.as_deref() == Some(RESULT))
        .ok_or_else(|| invalid(None, "no value"))?;
    let ty = type_of(&module, g.ty)
        .ok_or_else(|| invalid(None, "values of this type cannot be shown"))?;
    let value = g
        .init
        .and_then(|init| value_of(&module, init, &ty, 0))
        .ok_or_else(|| invalid(None, "this cannot be evaluated on the CPU"))?;
    Ok((ty, value))
}

fn invalid(column: Option<u32>, message: &str) -> EvalError {
    EvalError::Invalid {
        column,
        message: message.to_string(),
    }
}

/// Every struct `ty` uses, by name.
fn collect_structs(ty: &Type, out: &mut BTreeMap<String, Arc<StructType>>) {
    match ty {
        Type::Struct(s) => {
            for f in &s.fields {
                collect_structs(&f.ty, out);
            }
            out.entry(s.name.clone()).or_insert_with(|| s.clone());
        }
        Type::Array(e, _) => collect_structs(e, out),
        _ => {}
    }
}

/// Whether no float of `value` is a NaN or an infinity.
fn finite(value: &Value) -> bool {
    match value {
        Value::Float(f) => f.is_finite(),
        Value::Double(f) => f.is_finite(),
        Value::List(items) => items.iter().all(finite),
        Value::Struct(fields) => fields.iter().all(|(_, v)| finite(v)),
        _ => true,
    }
}

/// `value` as a WGSL constant expression of type `ty`; `None` where WGSL
/// has no literal for it (NaN, infinities, parts not written).
fn literal(ty: &Type, value: &Value) -> Option<String> {
    let w = |t: &Type| t.display_in(Language::Wgsl).to_string();
    Some(match (ty, value) {
        (_, Value::Bool(b)) => b.to_string(),
        (_, Value::Int(i)) if *i == i32::MIN => "(-2147483647i - 1i)".to_string(),
        (_, Value::Int(i)) => format!("{i}i"),
        (_, Value::Uint(u)) => format!("{u}u"),
        (_, Value::Float(f)) if f.is_finite() => format!("{f:?}f"),
        (Type::Vector(s, _), Value::List(items)) => {
            let parts: Option<Vec<String>> = items
                .iter()
                .map(|v| literal(&Type::Scalar(*s), v))
                .collect();
            format!("{}({})", w(ty), parts?.join(", "))
        }
        (Type::Matrix { scalar, rows, .. }, Value::List(cols)) => {
            let col = Type::Vector(*scalar, *rows);
            let parts: Option<Vec<String>> = cols.iter().map(|v| literal(&col, v)).collect();
            format!("{}({})", w(ty), parts?.join(", "))
        }
        (Type::Array(e, Some(_)), Value::List(items)) => {
            let parts: Option<Vec<String>> = items.iter().map(|v| literal(e, v)).collect();
            format!("{}({})", w(ty), parts?.join(", "))
        }
        (Type::Struct(st), Value::Struct(fields)) => {
            let parts: Option<Vec<String>> = st
                .fields
                .iter()
                .map(|f| {
                    let v = fields.iter().find(|(n, _)| *n == f.name).map(|(_, v)| v)?;
                    literal(&f.ty, v)
                })
                .collect();
            format!("{}({})", st.name, parts?.join(", "))
        }
        _ => return None,
    })
}

fn scalar(kind: ScalarKind, width: u8) -> Option<Scalar> {
    Some(match (kind, width) {
        (ScalarKind::Bool, _) => Scalar::Bool,
        (ScalarKind::Sint, 4) | (ScalarKind::AbstractInt, _) => Scalar::Int,
        (ScalarKind::Uint, 4) => Scalar::Uint,
        (ScalarKind::Float, 4) | (ScalarKind::AbstractFloat, _) => Scalar::Float,
        (ScalarKind::Float, 8) => Scalar::Double,
        _ => return None,
    })
}

/// The core type of a constant's type; abstract numbers become `i32` and
/// `f32`, as WGSL concretizes them.
fn type_of(module: &Module, ty: Handle<naga::Type>) -> Option<Type> {
    let t = &module.types[ty];
    Some(match &t.inner {
        TypeInner::Scalar(s) => Type::Scalar(scalar(s.kind, s.width)?),
        TypeInner::Vector { size, scalar: s } => {
            Type::Vector(scalar(s.kind, s.width)?, *size as u8)
        }
        TypeInner::Matrix {
            columns,
            rows,
            scalar: s,
        } => Type::Matrix {
            scalar: scalar(s.kind, s.width)?,
            cols: *columns as u8,
            rows: *rows as u8,
        },
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            ..
        } => Type::Array(Box::new(type_of(module, *base)?), Some(n.get())),
        TypeInner::Struct { members, .. } => Type::Struct(Arc::new(StructType {
            name: t.name.clone().unwrap_or_else(|| "struct".to_string()),
            fields: members
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    Some(Field {
                        name: m.name.clone().unwrap_or_else(|| format!("member{i}")),
                        ty: type_of(module, m.ty)?,
                    })
                })
                .collect::<Option<Vec<Field>>>()?,
        })),
        _ => return None,
    })
}

/// The value of the constant expression `h`, of type `ty`.
fn value_of(module: &Module, h: Handle<Expression>, ty: &Type, depth: u32) -> Option<Value> {
    if depth > 64 {
        return None;
    }
    let e = &module.global_expressions[h];
    let parts = |tys: Vec<Type>, hs: &[Handle<Expression>]| -> Option<Vec<Value>> {
        if tys.len() != hs.len() {
            return None;
        }
        tys.iter()
            .zip(hs)
            .map(|(t, h)| value_of(module, *h, t, depth + 1))
            .collect()
    };
    Some(match e {
        Expression::Literal(l) => literal_value(*l)?,
        Expression::Constant(c) => value_of(module, module.constants[*c].init, ty, depth + 1)?,
        Expression::ZeroValue(_) => zero(ty)?,
        Expression::Splat { value, .. } => {
            let Type::Vector(s, n) = ty else { return None };
            let v = value_of(module, *value, &Type::Scalar(*s), depth + 1)?;
            Value::List(vec![v; *n as usize])
        }
        Expression::Compose { components, .. } => match ty {
            Type::Vector(s, _) => {
                // A vector may be composed of smaller vectors.
                let mut out = Vec::new();
                for c in components {
                    let t = expr_type(module, *c, depth + 1).unwrap_or(Type::Scalar(*s));
                    match value_of(module, *c, &t, depth + 1)? {
                        Value::List(items) => out.extend(items),
                        v => out.push(v),
                    }
                }
                Value::List(out)
            }
            Type::Matrix { scalar, rows, cols } => Value::List(parts(
                vec![Type::Vector(*scalar, *rows); *cols as usize],
                components,
            )?),
            Type::Array(e, Some(n)) => {
                Value::List(parts(vec![(**e).clone(); *n as usize], components)?)
            }
            Type::Struct(st) => {
                let tys = st.fields.iter().map(|f| f.ty.clone()).collect();
                let vs = parts(tys, components)?;
                Value::Struct(st.fields.iter().map(|f| f.name.clone()).zip(vs).collect())
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// The type of a constant expression, where it says.
fn expr_type(module: &Module, h: Handle<Expression>, depth: u32) -> Option<Type> {
    if depth > 64 {
        return None;
    }
    match &module.global_expressions[h] {
        Expression::Literal(l) => {
            let s = l.scalar();
            Some(Type::Scalar(scalar(s.kind, s.width)?))
        }
        Expression::Constant(c) => type_of(module, module.constants[*c].ty),
        Expression::Compose { ty, .. } | Expression::ZeroValue(ty) => type_of(module, *ty),
        Expression::Splat { size, value } => match expr_type(module, *value, depth + 1)? {
            Type::Scalar(s) => Some(Type::Vector(s, *size as u8)),
            _ => None,
        },
        _ => None,
    }
}

fn literal_value(l: Literal) -> Option<Value> {
    Some(match l {
        Literal::Bool(b) => Value::Bool(b),
        Literal::I32(i) => Value::Int(i),
        Literal::U32(u) => Value::Uint(u),
        Literal::F32(f) => Value::Float(f),
        Literal::F64(f) => Value::Double(f),
        Literal::AbstractInt(i) => Value::Int(i32::try_from(i).ok()?),
        Literal::AbstractFloat(f) => Value::Float(f as f32),
        _ => return None,
    })
}

fn zero(ty: &Type) -> Option<Value> {
    Some(match ty {
        Type::Scalar(Scalar::Bool) => Value::Bool(false),
        Type::Scalar(Scalar::Int) => Value::Int(0),
        Type::Scalar(Scalar::Uint) => Value::Uint(0),
        Type::Scalar(Scalar::Float) => Value::Float(0.0),
        Type::Scalar(Scalar::Double) => Value::Double(0.0),
        Type::Vector(s, n) => Value::List(vec![zero(&Type::Scalar(*s))?; *n as usize]),
        Type::Matrix { scalar, rows, cols } => {
            Value::List(vec![zero(&Type::Vector(*scalar, *rows))?; *cols as usize])
        }
        Type::Array(e, Some(n)) => Value::List(vec![zero(e)?; *n as usize]),
        Type::Struct(st) => Value::Struct(
            st.fields
                .iter()
                .map(|f| Some((f.name.clone(), zero(&f.ty)?)))
                .collect::<Option<Vec<_>>>()?,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Result<String, String> {
        evaluate_in_scope(text)
            .map(|(t, v)| format!("{}: {v}", t.display_in(Language::Wgsl)))
            .map_err(|e| e.to_string())
    }

    /// `text` over a scope of a few variables of each kind.
    fn evaluate_in_scope(text: &str) -> Result<(Type, Value), EvalError> {
        let ring = Type::Struct(Arc::new(StructType::new(
            "Ring",
            [
                ("radius", Type::Scalar(Scalar::Float)),
                ("width", Type::Scalar(Scalar::Float)),
            ],
        )));
        let v2 = Type::Vector(Scalar::Float, 2);
        let arr = Type::Array(Box::new(Type::Scalar(Scalar::Float)), Some(3));
        let i32t = Type::Scalar(Scalar::Int);
        let u32t = Type::Scalar(Scalar::Uint);
        let f32t = Type::Scalar(Scalar::Float);
        let vals = [
            Value::Struct(vec![
                ("radius".into(), Value::Float(0.6)),
                ("width".into(), Value::Float(0.1)),
            ]),
            Value::List(vec![Value::Float(0.25), Value::Float(0.5)]),
            Value::List(vec![
                Value::Float(1.0),
                Value::Float(0.5),
                Value::Float(0.25),
            ]),
            Value::Int(2),
            Value::Uint(7),
            Value::Float(f32::NAN),
            Value::Int(5),
        ];
        // The innermost declaration first: the second `i` is shadowed.
        let scope: [(&str, &Type, Option<&Value>); 8] = [
            ("r", &ring, Some(&vals[0])),
            ("uv", &v2, Some(&vals[1])),
            ("w", &arr, Some(&vals[2])),
            ("i", &i32t, Some(&vals[3])),
            ("n", &u32t, Some(&vals[4])),
            ("bad", &f32t, Some(&vals[5])),
            ("later", &f32t, None),
            ("i", &i32t, Some(&vals[6])),
        ];
        let vars = scope.map(|(name, ty, value)| Var { name, ty, value });
        evaluate(text, &vars)
    }

    #[test]
    fn wgsl_expressions_over_recorded_values() {
        assert_eq!(run("r.radius * 2.0").as_deref(), Ok("f32: 1.2"));
        assert_eq!(run("uv.yx").as_deref(), Ok("vec2<f32>: (0.5, 0.25)"));
        assert_eq!(
            run("vec3<f32>(uv, 1.0)").as_deref(),
            Ok("vec3<f32>: (0.25, 0.5, 1.0)")
        );
        assert_eq!(run("w[i]").as_deref(), Ok("f32: 0.25"));
        assert_eq!(run("i + 1").as_deref(), Ok("i32: 3"));
        assert_eq!(run("n * 2u").as_deref(), Ok("u32: 14u"));
        assert_eq!(run("select(1, 2, i == 2)").as_deref(), Ok("i32: 2"));
        assert_eq!(run("length(vec2(3.0, 4.0))").as_deref(), Ok("f32: 5.0"));
        assert_eq!(run("r").as_deref(), Ok("Ring: {radius: 0.6, width: 0.1}"));
        assert_eq!(run("f32(i) < r.width").as_deref(), Ok("bool: false"));
        assert_eq!(run("1.5").as_deref(), Ok("f32: 1.5"));
    }

    #[test]
    fn what_cannot_be_evaluated_says_why() {
        assert!(run("w[5]").is_err());
        let e = run("bad + 1.0").unwrap_err();
        assert!(e.contains("`bad` holds a NaN"), "{e}");
        let e = run("later").unwrap_err();
        assert!(e.contains("`later`"), "{e}");
        let e = run("uv +").unwrap_err();
        assert!(e.starts_with("column "), "{e}");
        let e = run("nothing_here * 2.0").unwrap_err();
        assert!(e.contains("nothing_here"), "{e}");
        assert!(run("i; x").is_err());
    }

    /// What a constant cannot be and the GPU evaluates at run time.
    #[test]
    fn run_time_only_values_say_so() {
        let run_time = |text: &str| {
            let e = evaluate_in_scope(text);
            assert!(matches!(e, Err(EvalError::RunTime(_))), "{text}: {e:?}");
        };
        run_time("i / (i - 2)");
        run_time("i % (i - 2)");
        run_time("(i - 2147483647 - 3) / -1");
        run_time("n << (n + 25u)");
        run_time("r.radius * 1e38 * 10.0");
        run_time("log(r.radius - r.radius)");
        run_time("pack4x8snorm(vec4<f32>(r.radius))");
        run_time("bad + 1.0");
        // naga wraps concrete integers as the GPU does.
        assert_eq!(run("i * 2147483647").as_deref(), Ok("i32: -2"));
        assert_eq!(run("n + 4294967295u").as_deref(), Ok("u32: 6u"));
        // What the GPU would refuse as well stays an error of the expression.
        assert!(matches!(
            evaluate_in_scope("i + 3000000000"),
            Err(EvalError::Invalid { .. })
        ));
        assert!(gpu_only_builtin("textureSample") && gpu_only_builtin("dpdxFine"));
        assert!(!gpu_only_builtin("textureColor") && !gpu_only_builtin("length"));
    }
}
