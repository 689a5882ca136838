//! Operators, member access, swizzles, indexing and the conversions they use.

use glsl_lang::ast::{BinaryOpData as B, UnaryOpData as U};
use shaderdbg_glsl::syntax::{swizzle, SwizzleError};
use shaderdbg_glsl::types::GlslScalar;
use shaderdbg_glsl::{Scalar, Type, Value};

use super::{element_type, invalid, EvalError, Typed, R};

// ---- shapes and components ----------------------------------------------

/// The scalars of a scalar, vector or matrix (matrices column-major); `None`
/// for other types.
pub(crate) fn flat(t: &Typed) -> Option<Vec<Value>> {
    match (&t.ty, &t.value) {
        (Type::Scalar(_), v) => Some(vec![v.clone()]),
        (Type::Vector(..), Value::List(items)) => Some(items.clone()),
        (Type::Matrix { .. }, Value::List(cols)) => {
            let mut out = Vec::new();
            for c in cols {
                match c {
                    Value::List(items) => out.extend(items.iter().cloned()),
                    _ => return None,
                }
            }
            Some(out)
        }
        (Type::Vector(_, n), Value::Undefined) => Some(vec![Value::Undefined; *n as usize]),
        (Type::Matrix { cols, rows, .. }, Value::Undefined) => {
            Some(vec![Value::Undefined; (*cols * *rows) as usize])
        }
        _ => None,
    }
}

/// Builds a scalar, vector or matrix of type `ty` from its scalars.
pub(crate) fn build(ty: Type, mut comps: Vec<Value>) -> Typed {
    let value = match &ty {
        Type::Scalar(_) => comps.pop().unwrap_or(Value::Undefined),
        Type::Matrix { rows, .. } => Value::List(
            comps
                .chunks(*rows as usize)
                .map(|c| Value::List(c.to_vec()))
                .collect(),
        ),
        _ => Value::List(comps),
    };
    Typed::new(ty, value)
}

/// A scalar, vector or matrix's scalars, or an error naming the operation.
pub(crate) fn numeric(t: &Typed, what: &str) -> R<(Scalar, Vec<Value>)> {
    match (t.ty.scalar(), flat(t)) {
        (Some(s), Some(c)) => Ok((s, c)),
        _ => invalid(format!(
            "{what} needs scalars, vectors or matrices, not {}",
            t.ty
        )),
    }
}

/// Converts one scalar to kind `to` the way constructors do (`int(2.7)` is 2,
/// `bool(x)` is `x != 0`, `float(true)` is 1.0); int <-> uint keep the bits.
pub(crate) fn convert(v: &Value, to: Scalar) -> R<Value> {
    let v = match v {
        Value::Undefined => return invalid("a part of the value is not written yet"),
        v => v,
    };
    Ok(match (v, to) {
        (Value::Bool(b), Scalar::Bool) => Value::Bool(*b),
        (Value::Bool(b), Scalar::Int) => Value::Int(i32::from(*b)),
        (Value::Bool(b), Scalar::Uint) => Value::Uint(u32::from(*b)),
        (Value::Bool(b), Scalar::Float) => Value::Float(f32::from(u8::from(*b))),
        (Value::Bool(b), Scalar::Double) => Value::Double(f64::from(u8::from(*b))),
        (Value::Int(i), Scalar::Bool) => Value::Bool(*i != 0),
        (Value::Int(i), Scalar::Int) => Value::Int(*i),
        (Value::Int(i), Scalar::Uint) => Value::Uint(*i as u32),
        (Value::Int(i), Scalar::Float) => Value::Float(*i as f32),
        (Value::Int(i), Scalar::Double) => Value::Double(f64::from(*i)),
        (Value::Uint(u), Scalar::Bool) => Value::Bool(*u != 0),
        (Value::Uint(u), Scalar::Int) => Value::Int(*u as i32),
        (Value::Uint(u), Scalar::Uint) => Value::Uint(*u),
        (Value::Uint(u), Scalar::Float) => Value::Float(*u as f32),
        (Value::Uint(u), Scalar::Double) => Value::Double(f64::from(*u)),
        (Value::Float(x), Scalar::Bool) => Value::Bool(*x != 0.0),
        (Value::Float(x), Scalar::Int) => Value::Int(*x as i32),
        (Value::Float(x), Scalar::Uint) => Value::Uint(float_to_uint(f64::from(*x))),
        (Value::Float(x), Scalar::Float) => Value::Float(*x),
        (Value::Float(x), Scalar::Double) => Value::Double(f64::from(*x)),
        (Value::Double(x), Scalar::Bool) => Value::Bool(*x != 0.0),
        (Value::Double(x), Scalar::Int) => Value::Int(*x as i32),
        (Value::Double(x), Scalar::Uint) => Value::Uint(float_to_uint(*x)),
        (Value::Double(x), Scalar::Float) => Value::Float(*x as f32),
        (Value::Double(x), Scalar::Double) => Value::Double(*x),
        _ => return invalid("a part of the value is not a scalar"),
    })
}

/// `uint(-1.0)` is undefined in GLSL; drivers convert through int, so do we.
fn float_to_uint(x: f64) -> u32 {
    if x < 0.0 {
        (x as i32) as u32
    } else {
        x as u32
    }
}

/// Converts every scalar of `t` to kind `to` (an implicit conversion when
/// `from.converts_to(to)`).
pub(crate) fn convert_all(comps: &[Value], to: Scalar) -> R<Vec<Value>> {
    comps.iter().map(|v| convert(v, to)).collect()
}

/// The kind both operands convert to implicitly, if any.
pub(crate) fn common(a: Scalar, b: Scalar) -> Option<Scalar> {
    if a.converts_to(b) {
        Some(b)
    } else if b.converts_to(a) {
        Some(a)
    } else {
        None
    }
}

// ---- unary ---------------------------------------------------------------

pub(crate) fn unary(op: &U, x: Typed) -> R<Typed> {
    match op {
        U::Inc | U::Dec => Err(EvalError::Unsupported(
            "expressions that change variables are not evaluated".into(),
        )),
        U::Not => match (&x.ty, &x.value) {
            (Type::Scalar(Scalar::Bool), Value::Bool(b)) => Ok(Typed::bool(!b)),
            (Type::Scalar(Scalar::Bool), _) => invalid("the operand of `!` is not written yet"),
            (ty, _) => invalid(format!("`!` needs a bool, not {ty}")),
        },
        U::Add | U::Minus | U::Complement => {
            let sym = match op {
                U::Add => "+",
                U::Minus => "-",
                _ => "~",
            };
            let (s, comps) = numeric(&x, &format!("`{sym}`"))?;
            if s == Scalar::Bool || (sym == "~" && !s.is_integer()) {
                let need = if sym == "~" { "an integer" } else { "a number" };
                return invalid(format!("`{sym}` needs {need}, not {}", x.ty));
            }
            if sym == "+" {
                return Ok(x);
            }
            let out = comps
                .iter()
                .map(|c| {
                    Ok(match (c, sym) {
                        (Value::Int(i), "-") => Value::Int(i.wrapping_neg()),
                        (Value::Uint(u), "-") => Value::Uint(u.wrapping_neg()),
                        (Value::Int(i), _) => Value::Int(!i),
                        (Value::Uint(u), _) => Value::Uint(!u),
                        (Value::Float(f), _) => Value::Float(-f),
                        (Value::Double(d), _) => Value::Double(-d),
                        _ => return invalid("a part of the value is not written yet"),
                    })
                })
                .collect::<R<Vec<_>>>()?;
            Ok(build(x.ty, out))
        }
    }
}

// ---- binary --------------------------------------------------------------

pub(crate) fn binary(op: &B, a: Typed, b: Typed) -> R<Typed> {
    let sym = shaderdbg_glsl::syntax::binary_op_symbol(op);
    match op {
        B::Or | B::Xor | B::And => match (&a.ty, &a.value, &b.ty, &b.value) {
            (
                Type::Scalar(Scalar::Bool),
                Value::Bool(x),
                Type::Scalar(Scalar::Bool),
                Value::Bool(y),
            ) => Ok(Typed::bool(match op {
                B::And => *x && *y,
                B::Or => *x || *y,
                _ => x != y,
            })),
            (Type::Scalar(Scalar::Bool), _, Type::Scalar(Scalar::Bool), _) => {
                invalid(format!("an operand of `{sym}` is not written yet"))
            }
            _ => invalid(format!(
                "`{sym}` needs two bools, not {} and {}",
                a.ty, b.ty
            )),
        },
        B::Equal | B::NonEqual => {
            let eq = equal(&a, &b, sym)?;
            Ok(Typed::bool(if matches!(op, B::Equal) { eq } else { !eq }))
        }
        B::Lt | B::Gt | B::Lte | B::Gte => {
            let (sa, ca) = numeric(&a, &format!("`{sym}`"))?;
            let (sb, cb) = numeric(&b, &format!("`{sym}`"))?;
            let s = common(sa, sb).filter(|s| *s != Scalar::Bool);
            let (Some(s), [x], [y]) = (s, &ca[..], &cb[..]) else {
                return invalid(format!(
                    "`{sym}` compares two scalar numbers, not {} and {} (lessThan() compares vectors)",
                    a.ty, b.ty
                ));
            };
            let o = compare(&convert(x, s)?, &convert(y, s)?);
            Ok(Typed::bool(match (op, o) {
                (_, None) => false,
                (B::Lt, Some(o)) => o.is_lt(),
                (B::Gt, Some(o)) => o.is_gt(),
                (B::Lte, Some(o)) => o.is_le(),
                (_, Some(o)) => o.is_ge(),
            }))
        }
        B::LShift | B::RShift => shift(sym, a, b),
        B::Mult if is_matrix(&a.ty) || is_matrix(&b.ty) => {
            if matches!(a.ty, Type::Scalar(_)) || matches!(b.ty, Type::Scalar(_)) {
                componentwise(sym, a, b)
            } else {
                linear(a, b)
            }
        }
        _ => componentwise(sym, a, b),
    }
}

fn is_matrix(t: &Type) -> bool {
    matches!(t, Type::Matrix { .. })
}

/// Component-wise `+ - * / % & | ^` with a scalar operand broadcast.
fn componentwise(sym: &str, a: Typed, b: Typed) -> R<Typed> {
    let (sa, ca) = numeric(&a, &format!("`{sym}`"))?;
    let (sb, cb) = numeric(&b, &format!("`{sym}`"))?;
    let Some(s) = common(sa, sb) else {
        return invalid(format!("`{sym}` cannot mix {} and {}", a.ty, b.ty));
    };
    let integer_op = matches!(sym, "%" | "&" | "|" | "^");
    if s == Scalar::Bool || (integer_op && !s.is_integer()) {
        let need = if integer_op { "integers" } else { "numbers" };
        return invalid(format!("`{sym}` needs {need}, not {} and {}", a.ty, b.ty));
    }
    let ty = match (&a.ty, &b.ty) {
        (x, y) if x.with_scalar(s) == y.with_scalar(s) => x.with_scalar(s),
        (Type::Scalar(_), y) => y.with_scalar(s),
        (x, Type::Scalar(_)) => x.with_scalar(s),
        _ => return invalid(format!("`{sym}` cannot take {} and {}", a.ty, b.ty)),
    };
    if integer_op && is_matrix(&ty) {
        return invalid(format!("`{sym}` needs integers, not {ty}"));
    }
    let ca = convert_all(&ca, s)?;
    let cb = convert_all(&cb, s)?;
    let n = ca.len().max(cb.len());
    let at = |c: &[Value], i: usize| c[if c.len() == 1 { 0 } else { i }].clone();
    let out = (0..n)
        .map(|i| arith(sym, &at(&ca, i), &at(&cb, i)))
        .collect::<R<Vec<_>>>()?;
    Ok(build(ty, out))
}

pub(crate) fn arith(sym: &str, a: &Value, b: &Value) -> R<Value> {
    let zero = || EvalError::Invalid("integer division by zero".into());
    let need_int = || EvalError::Invalid(format!("`{sym}` needs integers"));
    Ok(match (a, b) {
        (Value::Float(x), Value::Float(y)) => Value::Float(match sym {
            "+" => x + y,
            "-" => x - y,
            "*" => x * y,
            "/" => x / y,
            _ => return Err(need_int()),
        }),
        (Value::Double(x), Value::Double(y)) => Value::Double(match sym {
            "+" => x + y,
            "-" => x - y,
            "*" => x * y,
            "/" => x / y,
            _ => return Err(need_int()),
        }),
        (Value::Int(x), Value::Int(y)) => Value::Int(match sym {
            "+" => x.wrapping_add(*y),
            "-" => x.wrapping_sub(*y),
            "*" => x.wrapping_mul(*y),
            "/" if *y == 0 => return Err(zero()),
            "/" => x.wrapping_div(*y),
            "%" if *y == 0 => return Err(zero()),
            "%" => x.wrapping_rem(*y),
            "&" => x & y,
            "|" => x | y,
            _ => x ^ y,
        }),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(match sym {
            "+" => x.wrapping_add(*y),
            "-" => x.wrapping_sub(*y),
            "*" => x.wrapping_mul(*y),
            "/" => x.checked_div(*y).ok_or_else(zero)?,
            "%" => x.checked_rem(*y).ok_or_else(zero)?,
            "&" => x & y,
            "|" => x | y,
            _ => x ^ y,
        }),
        _ => return invalid("a part of the value is not written yet"),
    })
}

fn shift(sym: &str, a: Typed, b: Typed) -> R<Typed> {
    let (sa, ca) = numeric(&a, &format!("`{sym}`"))?;
    let (sb, cb) = numeric(&b, &format!("`{sym}`"))?;
    if !sa.is_integer() || !sb.is_integer() || is_matrix(&a.ty) || is_matrix(&b.ty) {
        return invalid(format!("`{sym}` needs integers, not {} and {}", a.ty, b.ty));
    }
    if cb.len() != 1 && cb.len() != ca.len() {
        return invalid(format!("`{sym}` cannot take {} and {}", a.ty, b.ty));
    }
    let out = ca
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let y = &cb[if cb.len() == 1 { 0 } else { i }];
            let n = match convert(y, Scalar::Uint)? {
                Value::Uint(n) if n < 32 => n,
                _ => {
                    return invalid(format!(
                        "shift by {} is out of range (0 to 31)",
                        y.as_f64().unwrap_or(f64::NAN)
                    ))
                }
            };
            Ok(match (x, sym) {
                (Value::Int(x), "<<") => Value::Int(x.wrapping_shl(n)),
                (Value::Int(x), _) => Value::Int(x >> n),
                (Value::Uint(x), "<<") => Value::Uint(x.wrapping_shl(n)),
                (Value::Uint(x), _) => Value::Uint(x >> n),
                _ => return invalid("a part of the value is not written yet"),
            })
        })
        .collect::<R<Vec<_>>>()?;
    Ok(build(a.ty, out))
}

/// `*` with a matrix on either side and no scalar: linear algebra
/// (column-major; `v * m` treats `v` as a row vector).
fn linear(a: Typed, b: Typed) -> R<Typed> {
    let (sa, ca) = numeric(&a, "`*`")?;
    let (sb, cb) = numeric(&b, "`*`")?;
    let s = match common(sa, sb) {
        Some(s) if s.is_floating() => s,
        _ => return invalid(format!("`*` cannot mix {} and {}", a.ty, b.ty)),
    };
    let ca = convert_all(&ca, s)?;
    let cb = convert_all(&cb, s)?;
    // Shapes as (cols, rows): a vector on the left is a row (n cols, 1 row),
    // on the right a column (1 col, n rows).
    let shape = |t: &Type, left: bool| match t {
        Type::Matrix { cols, rows, .. } => (*cols as usize, *rows as usize),
        Type::Vector(_, n) if left => (*n as usize, 1),
        Type::Vector(_, n) => (1, *n as usize),
        _ => (1, 1),
    };
    let (c1, r1) = shape(&a.ty, true);
    let (c2, r2) = shape(&b.ty, false);
    if c1 != r2 {
        return invalid(format!(
            "`*` cannot multiply {} by {}: {} columns against {} rows",
            a.ty, b.ty, c1, r2
        ));
    }
    let mut out = Vec::with_capacity(c2 * r1);
    for j in 0..c2 {
        for i in 0..r1 {
            let mut acc: Option<Value> = None;
            for k in 0..c1 {
                let p = arith("*", &ca[k * r1 + i], &cb[j * r2 + k])?;
                acc = Some(match acc {
                    None => p,
                    Some(x) => arith("+", &x, &p)?,
                });
            }
            out.push(acc.unwrap_or(Value::Undefined));
        }
    }
    let ty = match (&a.ty, &b.ty) {
        (Type::Vector(..), _) => Type::vec(s, c2 as u8),
        (_, Type::Vector(..)) => Type::vec(s, r1 as u8),
        _ => Type::Matrix {
            scalar: s,
            cols: c2 as u8,
            rows: r1 as u8,
        },
    };
    Ok(build(ty, out))
}

pub(crate) fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// `==` on any two values of one type (after implicit conversion).
fn equal(a: &Typed, b: &Typed, sym: &str) -> R<bool> {
    if let (Some(sa), Some(sb)) = (a.ty.scalar(), b.ty.scalar()) {
        let s = common(sa, sb);
        let (Some(s), true) = (s, a.ty.with_scalar(sa) == b.ty.with_scalar(sa)) else {
            return invalid(format!("`{sym}` compares {} with {}", a.ty, b.ty));
        };
        let (Some(ca), Some(cb)) = (flat(a), flat(b)) else {
            return invalid(format!("`{sym}` compares {} with {}", a.ty, b.ty));
        };
        for (x, y) in ca.iter().zip(&cb) {
            if compare(&convert(x, s)?, &convert(y, s)?) != Some(std::cmp::Ordering::Equal) {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    if a.ty != b.ty {
        return invalid(format!("`{sym}` compares {} with {}", a.ty, b.ty));
    }
    deep_equal(&a.ty, &a.value, &b.value)
}

fn deep_equal(ty: &Type, a: &Value, b: &Value) -> R<bool> {
    match (ty, a, b) {
        (Type::Opaque(n), _, _) => invalid(format!("{n} values cannot be compared")),
        (Type::Struct(st), Value::Struct(fa), Value::Struct(fb)) => {
            for f in &st.fields {
                let x = fa.iter().find(|(n, _)| *n == f.name).map(|(_, v)| v);
                let y = fb.iter().find(|(n, _)| *n == f.name).map(|(_, v)| v);
                match (x, y) {
                    (Some(x), Some(y)) if deep_equal(&f.ty, x, y)? => {}
                    (Some(_), Some(_)) => return Ok(false),
                    _ => return invalid("a part of the value is not written yet"),
                }
            }
            Ok(true)
        }
        (Type::Array(elem, _), Value::List(xa), Value::List(xb)) => {
            for (x, y) in xa.iter().zip(xb) {
                if !deep_equal(elem, x, y)? {
                    return Ok(false);
                }
            }
            Ok(xa.len() == xb.len())
        }
        (t, x, y) if t.scalar().is_some() => {
            let s = t.scalar().unwrap_or(Scalar::Float);
            let (Some(ca), Some(cb)) = (
                flat(&Typed::new(t.clone(), x.clone())),
                flat(&Typed::new(t.clone(), y.clone())),
            ) else {
                return invalid("a part of the value is not written yet");
            };
            for (x, y) in ca.iter().zip(&cb) {
                if compare(&convert(x, s)?, &convert(y, s)?) != Some(std::cmp::Ordering::Equal) {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => invalid("a part of the value is not written yet"),
    }
}

// ---- members, swizzles, indices --------------------------------------------

pub(crate) fn member(b: Typed, name: &str) -> R<Typed> {
    match (&b.ty, &b.value) {
        (Type::Struct(st), _) => {
            let f = st
                .fields
                .iter()
                .find(|f| f.name == name)
                .ok_or_else(|| EvalError::Invalid(format!("{} has no field {name}", b.ty)))?;
            let v = b.value.field(name).cloned().unwrap_or(Value::Undefined);
            Ok(Typed::new(f.ty.clone(), v))
        }
        (Type::Scalar(s) | Type::Vector(s, _), _) => {
            let s = *s;
            let comps = flat(&b).unwrap_or_default();
            let indices = swizzle(name, comps.len() as u8).map_err(|e| match e {
                SwizzleError::NoComponent(_) => EvalError::Invalid(format!("{} {e}", b.ty)),
                other => EvalError::Invalid(other.to_string()),
            })?;
            let out: Vec<Value> = indices.iter().map(|&i| comps[i as usize].clone()).collect();
            Ok(build(Type::vec(s, out.len() as u8), out))
        }
        _ => invalid(format!("{} has no fields or components", b.ty)),
    }
}

pub(crate) fn index(b: Typed, i: &Typed) -> R<Typed> {
    let idx: i64 = match (&i.ty, &i.value) {
        (Type::Scalar(Scalar::Int), Value::Int(x)) => i64::from(*x),
        (Type::Scalar(Scalar::Uint), Value::Uint(x)) => i64::from(*x),
        (Type::Scalar(Scalar::Int | Scalar::Uint), _) => {
            return invalid("the index is not written yet")
        }
        (ty, _) => return invalid(format!("an index must be an int or uint, not {ty}")),
    };
    let Some(elem) = element_type(&b.ty) else {
        return invalid(format!("{} cannot be indexed", b.ty));
    };
    let len = match &b.ty {
        Type::Vector(_, n) => Some(u32::from(*n)),
        Type::Matrix { cols, .. } => Some(u32::from(*cols)),
        Type::Array(_, n) => *n,
        _ => None,
    };
    if idx < 0 || len.is_some_and(|n| idx >= i64::from(n)) {
        return invalid(format!("index {idx} out of range for {}", b.ty));
    }
    if let Type::Opaque(_) = elem {
        return Ok(Typed::new(elem, Value::Undefined));
    }
    let v = match &b.value {
        Value::List(items) => items.get(idx as usize).cloned(),
        Value::Undefined => Some(Value::Undefined),
        _ => None,
    };
    match v {
        Some(v) => Ok(Typed::new(elem, v)),
        None => invalid(format!("index {idx} out of range for {}", b.ty)),
    }
}

/// `x.length()`: elements of an array, components of a vector, columns of a matrix.
pub(crate) fn length_method(b: &Typed) -> R<Typed> {
    match &b.ty {
        Type::Array(_, Some(n)) => Ok(Typed::int(*n as i32)),
        Type::Array(_, None) => match &b.value {
            Value::List(items) => Ok(Typed::int(items.len() as i32)),
            _ => invalid(format!("the length of {} is not known here", b.ty)),
        },
        Type::Vector(_, n) => Ok(Typed::int(i32::from(*n))),
        Type::Matrix { cols, .. } => Ok(Typed::int(i32::from(*cols))),
        ty => invalid(format!("{ty} has no length()")),
    }
}
