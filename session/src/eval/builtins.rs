//! The built-in functions the CPU evaluates faithfully, in `f32` for float
//! (as the GPU) and `f64` for double, with GLSL's definitions (`fract(x)` is
//! `x - floor(x)`, `mod(x, y)` is `x - y * floor(x / y)`, `mix` is
//! `x * (1 - a) + y * a`, ...). Overloads follow the spec: genType arguments
//! of one size, the documented scalar forms (`min(vec3, float)`,
//! `step(float, vec3)`, `mix(vec3, vec3, float)`, `mix(x, y, bvec)`), int and
//! uint forms of `abs sign min max clamp`, implicit int -> float.

use std::ops::{Add, Div, Mul, Neg, Sub};

use shaderdbg_glsl::types::GlslScalar;
use shaderdbg_glsl::{Scalar, Type, Value};

use super::ops::{build, common, convert, convert_all, flat};
use super::{invalid, Typed, R};

/// A floating-point kind (`f32` for float, `f64` for double).
trait Fl:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    const SCALAR: Scalar;
    fn c(x: f64) -> Self;
    fn get(v: &Value) -> Option<Self>;
    fn val(self) -> Value;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn asinh(self) -> Self;
    fn acosh(self) -> Self;
    fn atanh(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn exp2(self) -> Self;
    fn log2(self) -> Self;
    fn sqrt(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn trunc(self) -> Self;
    fn round_ties_even(self) -> Self;
    fn abs(self) -> Self;
    fn powf(self, y: Self) -> Self;
    fn to_radians(self) -> Self;
    fn to_degrees(self) -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
}

macro_rules! fl_impl {
    ($t:ident, $s:expr, $variant:ident) => {
        impl Fl for $t {
            const SCALAR: Scalar = $s;
            fn c(x: f64) -> Self {
                x as $t
            }
            fn get(v: &Value) -> Option<Self> {
                match v {
                    Value::$variant(x) => Some(*x),
                    _ => None,
                }
            }
            fn val(self) -> Value {
                Value::$variant(self)
            }
            fl_impl!(@unary $t sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh
                exp ln exp2 log2 sqrt floor ceil trunc round_ties_even abs to_radians to_degrees);
            fn atan2(self, x: Self) -> Self {
                $t::atan2(self, x)
            }
            fn powf(self, y: Self) -> Self {
                $t::powf(self, y)
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                $t::mul_add(self, a, b)
            }
        }
    };
    (@unary $t:ident $($m:ident)+) => {
        $(fn $m(self) -> Self { $t::$m(self) })+
    };
}

fl_impl!(f32, Scalar::Float, Float);
fl_impl!(f64, Scalar::Double, Double);

/// Names evaluated here (for completion and for telling "unknown" from "GPU").
pub(crate) const NAMES: &[&str] = &[
    "radians",
    "degrees",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "pow",
    "exp",
    "log",
    "exp2",
    "log2",
    "sqrt",
    "inversesqrt",
    "abs",
    "sign",
    "floor",
    "ceil",
    "trunc",
    "round",
    "roundEven",
    "fract",
    "mod",
    "min",
    "max",
    "clamp",
    "mix",
    "step",
    "smoothstep",
    "fma",
    "isnan",
    "isinf",
    "floatBitsToInt",
    "floatBitsToUint",
    "intBitsToFloat",
    "uintBitsToFloat",
    "length",
    "distance",
    "dot",
    "cross",
    "normalize",
    "faceforward",
    "reflect",
    "refract",
    "matrixCompMult",
    "outerProduct",
    "transpose",
    "determinant",
    "inverse",
    "lessThan",
    "lessThanEqual",
    "greaterThan",
    "greaterThanEqual",
    "equal",
    "notEqual",
    "any",
    "all",
    "not",
];

fn no_overload<T>(name: &str, args: &[Typed]) -> R<T> {
    let tys: Vec<String> = args.iter().map(|a| a.ty.to_string()).collect();
    invalid(format!("no overload of {name} takes ({})", tys.join(", ")))
}

/// Calls built-in `name`; `None` if the CPU does not know it.
pub(crate) fn call(name: &str, args: &[Typed]) -> Option<R<Typed>> {
    if !NAMES.contains(&name) {
        return None;
    }
    Some(dispatch(name, args))
}

fn dispatch(name: &str, args: &[Typed]) -> R<Typed> {
    let arity = match name {
        "clamp" | "mix" | "smoothstep" | "fma" | "faceforward" | "refract" => 3,
        "pow" | "mod" | "min" | "max" | "step" | "distance" | "dot" | "cross" | "reflect"
        | "matrixCompMult" | "outerProduct" | "lessThan" | "lessThanEqual" | "greaterThan"
        | "greaterThanEqual" | "equal" | "notEqual" => 2,
        "atan" if args.len() == 2 => 2,
        _ => 1,
    };
    if args.len() != arity {
        return no_overload(name, args);
    }
    match name {
        "isnan" | "isinf" => classify(name, args),
        "floatBitsToInt" | "floatBitsToUint" | "intBitsToFloat" | "uintBitsToFloat" => {
            bits(name, args)
        }
        "lessThan" | "lessThanEqual" | "greaterThan" | "greaterThanEqual" | "equal"
        | "notEqual" => relational(name, args),
        "any" | "all" | "not" => boolean(name, args),
        "mix" if args[2].ty.scalar() == Some(Scalar::Bool) => select(args),
        "abs" | "sign" | "min" | "max" | "clamp" if all_integer(args) => integer(name, args),
        "matrixCompMult" | "outerProduct" | "transpose" | "determinant" | "inverse" => {
            float_dispatch(name, args, matrix_fn::<f32>, matrix_fn::<f64>)
        }
        "length" | "distance" | "dot" | "cross" | "normalize" | "faceforward" | "reflect"
        | "refract" => float_dispatch(name, args, geometric::<f32>, geometric::<f64>),
        _ => float_dispatch(name, args, componentwise::<f32>, componentwise::<f64>),
    }
}

fn all_integer(args: &[Typed]) -> bool {
    args.iter()
        .all(|a| a.ty.scalar().is_some_and(Scalar::is_integer))
}

/// An argument as a float kind: its type (with that kind) and its values.
struct Arg<T> {
    ty: Type,
    c: Vec<T>,
}

type FloatFn<T> = fn(&str, &[Arg<T>], &[Typed]) -> R<(Type, Vec<T>)>;

/// Converts the arguments to float (double if one is double) and runs the
/// f32 or the f64 form.
fn float_dispatch(name: &str, args: &[Typed], f: FloatFn<f32>, d: FloatFn<f64>) -> R<Typed> {
    let mut double = false;
    for a in args {
        match a.ty.scalar() {
            Some(Scalar::Bool) | None => return no_overload(name, args),
            Some(Scalar::Double) => double = true,
            _ => {}
        }
    }
    if double {
        let conv = to_float::<f64>(args)?;
        let (ty, out) = d(name, &conv, args)?;
        Ok(build(ty, out.into_iter().map(Fl::val).collect()))
    } else {
        let conv = to_float::<f32>(args)?;
        let (ty, out) = f(name, &conv, args)?;
        Ok(build(ty, out.into_iter().map(Fl::val).collect()))
    }
}

fn to_float<T: Fl>(args: &[Typed]) -> R<Vec<Arg<T>>> {
    args.iter()
        .map(|a| {
            let c = flat(a).unwrap_or_default();
            let c = convert_all(&c, T::SCALAR)?;
            Ok(Arg {
                ty: a.ty.with_scalar(T::SCALAR),
                c: c.iter().filter_map(T::get).collect(),
            })
        })
        .collect()
}

/// The size of a genType call, checking that each argument has it (or is a
/// scalar where `scalar_ok` allows).
fn gen_size<T>(name: &str, args: &[Arg<T>], orig: &[Typed], scalar_ok: &[usize]) -> R<usize> {
    let n = args.iter().map(|a| a.c.len()).max().unwrap_or(1);
    for (i, a) in args.iter().enumerate() {
        let ok = matches!(a.ty, Type::Scalar(_) | Type::Vector(..))
            && (a.c.len() == n || (a.c.len() == 1 && scalar_ok.contains(&i)));
        if !ok {
            return no_overload(name, orig);
        }
    }
    Ok(n)
}

fn componentwise<T: Fl>(name: &str, args: &[Arg<T>], orig: &[Typed]) -> R<(Type, Vec<T>)> {
    let scalar_ok: &[usize] = match name {
        "mod" | "min" | "max" => &[1],
        "step" => &[0],
        "clamp" => &[1, 2],
        "mix" => &[2],
        "smoothstep" => &[0, 1],
        _ => &[],
    };
    let n = gen_size(name, args, orig, scalar_ok)?;
    let at = |k: usize, i: usize| {
        let c = &args[k].c;
        c[if c.len() == 1 { 0 } else { i }]
    };
    let zero = T::c(0.0);
    let one = T::c(1.0);
    let min = |x: T, y: T| if y < x { y } else { x };
    let max = |x: T, y: T| if x < y { y } else { x };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let x = at(0, i);
        out.push(match name {
            "radians" => x.to_radians(),
            "degrees" => x.to_degrees(),
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "asin" => x.asin(),
            "acos" => x.acos(),
            "atan" if args.len() == 2 => x.atan2(at(1, i)),
            "atan" => x.atan(),
            "sinh" => x.sinh(),
            "cosh" => x.cosh(),
            "tanh" => x.tanh(),
            "asinh" => x.asinh(),
            "acosh" => x.acosh(),
            "atanh" => x.atanh(),
            "pow" => x.powf(at(1, i)),
            "exp" => x.exp(),
            "log" => x.ln(),
            "exp2" => x.exp2(),
            "log2" => x.log2(),
            "sqrt" => x.sqrt(),
            "inversesqrt" => one / x.sqrt(),
            "abs" => x.abs(),
            "sign" => {
                if x > zero {
                    one
                } else if x < zero {
                    -one
                } else {
                    x
                }
            }
            "floor" => x.floor(),
            "ceil" => x.ceil(),
            "trunc" => x.trunc(),
            "round" | "roundEven" => x.round_ties_even(),
            "fract" => x - x.floor(),
            "mod" => {
                let y = at(1, i);
                x - y * (x / y).floor()
            }
            "min" => min(x, at(1, i)),
            "max" => max(x, at(1, i)),
            "clamp" => min(max(x, at(1, i)), at(2, i)),
            "mix" => {
                let a = at(2, i);
                x * (one - a) + at(1, i) * a
            }
            "step" => {
                if at(1, i) < x {
                    zero
                } else {
                    one
                }
            }
            "smoothstep" => {
                let (e0, e1) = (x, at(1, i));
                let t = (at(2, i) - e0) / (e1 - e0);
                let t = min(max(t, zero), one);
                t * t * (T::c(3.0) - T::c(2.0) * t)
            }
            "fma" => x.mul_add(at(1, i), at(2, i)),
            _ => return no_overload(name, orig),
        });
    }
    Ok((Type::vec(T::SCALAR, n as u8), out))
}

fn dot<T: Fl>(a: &[T], b: &[T]) -> T {
    let mut acc: Option<T> = None;
    for (x, y) in a.iter().zip(b) {
        let p = *x * *y;
        acc = Some(acc.map_or(p, |s| s + p));
    }
    acc.unwrap_or(T::c(0.0))
}

fn geometric<T: Fl>(name: &str, args: &[Arg<T>], orig: &[Typed]) -> R<(Type, Vec<T>)> {
    let scalar_ok: &[usize] = if name == "refract" { &[2] } else { &[] };
    if name == "refract" && args[2].c.len() != 1 {
        return no_overload(name, orig);
    }
    let n = gen_size(name, args, orig, scalar_ok)?;
    let vt = Type::vec(T::SCALAR, n as u8);
    let st = Type::Scalar(T::SCALAR);
    let x = &args[0].c;
    Ok(match name {
        "length" => (st, vec![dot(x, x).sqrt()]),
        "distance" => {
            let d: Vec<T> = x.iter().zip(&args[1].c).map(|(a, b)| *a - *b).collect();
            (st, vec![dot(&d, &d).sqrt()])
        }
        "dot" => (st, vec![dot(x, &args[1].c)]),
        "cross" => {
            let y = &args[1].c;
            if n != 3 {
                return no_overload(name, orig);
            }
            (
                vt,
                vec![
                    x[1] * y[2] - y[1] * x[2],
                    x[2] * y[0] - y[2] * x[0],
                    x[0] * y[1] - y[0] * x[1],
                ],
            )
        }
        "normalize" => {
            let l = dot(x, x).sqrt();
            (vt, x.iter().map(|c| *c / l).collect())
        }
        "faceforward" => {
            let (i, nref) = (&args[1].c, &args[2].c);
            let keep = dot(nref, i) < T::c(0.0);
            (vt, x.iter().map(|c| if keep { *c } else { -*c }).collect())
        }
        "reflect" => {
            let nn = &args[1].c;
            let d = dot(nn, x);
            (
                vt,
                x.iter()
                    .zip(nn)
                    .map(|(i, n)| *i - T::c(2.0) * d * *n)
                    .collect(),
            )
        }
        "refract" => {
            let nn = &args[1].c;
            let eta = args[2].c[0];
            let d = dot(nn, x);
            let k = T::c(1.0) - eta * eta * (T::c(1.0) - d * d);
            if k < T::c(0.0) {
                (vt, vec![T::c(0.0); n])
            } else {
                let s = eta * d + k.sqrt();
                (
                    vt,
                    x.iter().zip(nn).map(|(i, n)| eta * *i - s * *n).collect(),
                )
            }
        }
        _ => return no_overload(name, orig),
    })
}

fn dims(t: &Type) -> Option<(usize, usize)> {
    match t {
        Type::Matrix { cols, rows, .. } => Some((*cols as usize, *rows as usize)),
        _ => None,
    }
}

fn det<T: Fl>(m: &[T], n: usize) -> T {
    let at = |c: usize, r: usize| m[c * n + r];
    match n {
        1 => m[0],
        2 => at(0, 0) * at(1, 1) - at(1, 0) * at(0, 1),
        _ => {
            // Expansion along the first column.
            let mut acc = T::c(0.0);
            for r in 0..n {
                let minor = minor(m, n, 0, r);
                let term = at(0, r) * det(&minor, n - 1);
                acc = if r % 2 == 0 { acc + term } else { acc - term };
            }
            acc
        }
    }
}

/// `m` without column `c` and row `r`.
fn minor<T: Fl>(m: &[T], n: usize, c: usize, r: usize) -> Vec<T> {
    let mut out = Vec::with_capacity((n - 1) * (n - 1));
    for j in (0..n).filter(|j| *j != c) {
        for i in (0..n).filter(|i| *i != r) {
            out.push(m[j * n + i]);
        }
    }
    out
}

fn matrix_fn<T: Fl>(name: &str, args: &[Arg<T>], orig: &[Typed]) -> R<(Type, Vec<T>)> {
    let mat = |cols: usize, rows: usize| Type::Matrix {
        scalar: T::SCALAR,
        cols: cols as u8,
        rows: rows as u8,
    };
    if name == "outerProduct" {
        let (c, r) = (&args[0].c, &args[1].c);
        let ok = |t: &Type| matches!(t, Type::Vector(..));
        if !ok(&args[0].ty) || !ok(&args[1].ty) {
            return no_overload(name, orig);
        }
        let mut out = Vec::with_capacity(c.len() * r.len());
        for rj in r {
            for ci in c {
                out.push(*ci * *rj);
            }
        }
        return Ok((mat(r.len(), c.len()), out));
    }
    let Some((cols, rows)) = dims(&args[0].ty) else {
        return no_overload(name, orig);
    };
    let m = &args[0].c;
    Ok(match name {
        "matrixCompMult" => {
            if args[1].ty != args[0].ty {
                return no_overload(name, orig);
            }
            (
                args[0].ty.clone(),
                m.iter().zip(&args[1].c).map(|(a, b)| *a * *b).collect(),
            )
        }
        "transpose" => {
            let mut out = Vec::with_capacity(m.len());
            for i in 0..rows {
                for j in 0..cols {
                    out.push(m[j * rows + i]);
                }
            }
            (mat(rows, cols), out)
        }
        "determinant" if cols == rows => (Type::Scalar(T::SCALAR), vec![det(m, cols)]),
        "inverse" if cols == rows => {
            let n = cols;
            let d = det(m, n);
            // inverse = adjugate / det; adj[c][r] = cofactor(row c, col r).
            let mut out = Vec::with_capacity(n * n);
            for c in 0..n {
                for r in 0..n {
                    let cof = det(&minor(m, n, r, c), n - 1);
                    let cof = if (r + c) % 2 == 0 {
                        cof
                    } else {
                        T::c(0.0) - cof
                    };
                    out.push(cof / d);
                }
            }
            (args[0].ty.clone(), out)
        }
        _ => return no_overload(name, orig),
    })
}

fn integer(name: &str, args: &[Typed]) -> R<Typed> {
    let mut kind = args[0].ty.scalar().unwrap_or(Scalar::Int);
    for a in &args[1..] {
        kind = match a.ty.scalar().and_then(|s| common(kind, s)) {
            Some(k) => k,
            None => return no_overload(name, args),
        };
    }
    if name != "min" && name != "max" && name != "clamp" && kind == Scalar::Uint {
        return no_overload(name, args);
    }
    let conv = args
        .iter()
        .map(|a| {
            let c = flat(a).unwrap_or_default();
            Ok(Arg {
                ty: a.ty.with_scalar(kind),
                c: convert_all(&c, kind)?,
            })
        })
        .collect::<R<Vec<_>>>()?;
    let scalar_ok: &[usize] = match name {
        "min" | "max" => &[1],
        "clamp" => &[1, 2],
        _ => &[],
    };
    let n = gen_size(name, &conv, args, scalar_ok)?;
    let at = |k: usize, i: usize| {
        let c = &conv[k].c;
        c[if c.len() == 1 { 0 } else { i }].clone()
    };
    let ord = |x: &Value, y: &Value| super::ops::compare(x, y);
    let pick_min = |x: Value, y: Value| {
        if ord(&y, &x).is_some_and(|o| o.is_lt()) {
            y
        } else {
            x
        }
    };
    let pick_max = |x: Value, y: Value| {
        if ord(&x, &y).is_some_and(|o| o.is_lt()) {
            y
        } else {
            x
        }
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let x = at(0, i);
        out.push(match (name, &x) {
            ("abs", Value::Int(v)) => Value::Int(v.wrapping_abs()),
            ("sign", Value::Int(v)) => Value::Int(v.signum()),
            ("min", _) => pick_min(x, at(1, i)),
            ("max", _) => pick_max(x, at(1, i)),
            ("clamp", _) => pick_min(pick_max(x, at(1, i)), at(2, i)),
            _ => return no_overload(name, args),
        });
    }
    Ok(build(Type::vec(kind, n as u8), out))
}

/// `mix(x, y, bvec a)`: `a ? y : x` per component.
fn select(args: &[Typed]) -> R<Typed> {
    let (x, y, a) = (&args[0], &args[1], &args[2]);
    let (Some(cx), Some(cy), Some(ca)) = (flat(x), flat(y), flat(a)) else {
        return no_overload("mix", args);
    };
    if x.ty != y.ty || cx.len() != ca.len() || matches!(x.ty, Type::Matrix { .. }) {
        return no_overload("mix", args);
    }
    let out = cx
        .into_iter()
        .zip(cy)
        .zip(ca)
        .map(|((x, y), a)| match a {
            Value::Bool(true) => Ok(y),
            Value::Bool(false) => Ok(x),
            _ => invalid("a part of the value is not written yet"),
        })
        .collect::<R<Vec<_>>>()?;
    Ok(build(x.ty.clone(), out))
}

fn classify(name: &str, args: &[Typed]) -> R<Typed> {
    let a = &args[0];
    let ok = matches!(a.ty, Type::Scalar(_) | Type::Vector(..))
        && a.ty.scalar().is_some_and(Scalar::is_floating);
    let (true, Some(c)) = (ok, flat(a)) else {
        return no_overload(name, args);
    };
    let out = c
        .iter()
        .map(|v| {
            let x = match v {
                Value::Float(x) => f64::from(*x),
                Value::Double(x) => *x,
                _ => return invalid("a part of the value is not written yet"),
            };
            Ok(Value::Bool(if name == "isnan" {
                x.is_nan()
            } else {
                x.is_infinite()
            }))
        })
        .collect::<R<Vec<_>>>()?;
    Ok(build(a.ty.with_scalar(Scalar::Bool), out))
}

fn bits(name: &str, args: &[Typed]) -> R<Typed> {
    let a = &args[0];
    let (from, to) = match name {
        "floatBitsToInt" => (Scalar::Float, Scalar::Int),
        "floatBitsToUint" => (Scalar::Float, Scalar::Uint),
        "intBitsToFloat" => (Scalar::Int, Scalar::Float),
        _ => (Scalar::Uint, Scalar::Float),
    };
    let ok = matches!(a.ty, Type::Scalar(_) | Type::Vector(..))
        && a.ty
            .scalar()
            .is_some_and(|s| s.converts_to(from) && s != Scalar::Bool)
        && (from != Scalar::Int || a.ty.scalar() == Some(Scalar::Int));
    let (true, Some(c)) = (ok, flat(a)) else {
        return no_overload(name, args);
    };
    let out = c
        .iter()
        .map(|v| {
            Ok(match (convert(v, from)?, to) {
                (Value::Float(x), Scalar::Int) => Value::Int(x.to_bits() as i32),
                (Value::Float(x), _) => Value::Uint(x.to_bits()),
                (Value::Int(i), _) => Value::Float(f32::from_bits(i as u32)),
                (Value::Uint(u), _) => Value::Float(f32::from_bits(u)),
                _ => return invalid("a part of the value is not written yet"),
            })
        })
        .collect::<R<Vec<_>>>()?;
    Ok(build(a.ty.with_scalar(to), out))
}

fn relational(name: &str, args: &[Typed]) -> R<Typed> {
    let (a, b) = (&args[0], &args[1]);
    let (Type::Vector(sa, n), Type::Vector(sb, m)) = (&a.ty, &b.ty) else {
        return no_overload(name, args);
    };
    let s = common(*sa, *sb).filter(|_| n == m);
    let Some(s) = s.filter(|s| *s != Scalar::Bool || matches!(name, "equal" | "notEqual")) else {
        return no_overload(name, args);
    };
    let ca = convert_all(&flat(a).unwrap_or_default(), s)?;
    let cb = convert_all(&flat(b).unwrap_or_default(), s)?;
    let out = ca
        .iter()
        .zip(&cb)
        .map(|(x, y)| {
            let o = super::ops::compare(x, y);
            Value::Bool(match (name, o) {
                ("notEqual", None) => true,
                (_, None) => false,
                ("lessThan", Some(o)) => o.is_lt(),
                ("lessThanEqual", Some(o)) => o.is_le(),
                ("greaterThan", Some(o)) => o.is_gt(),
                ("greaterThanEqual", Some(o)) => o.is_ge(),
                ("equal", Some(o)) => o.is_eq(),
                (_, Some(o)) => o.is_ne(),
            })
        })
        .collect();
    Ok(build(Type::Vector(Scalar::Bool, *n), out))
}

fn boolean(name: &str, args: &[Typed]) -> R<Typed> {
    let a = &args[0];
    let (Type::Vector(Scalar::Bool, _), Some(c)) = (&a.ty, flat(a)) else {
        return no_overload(name, args);
    };
    let bs = c
        .iter()
        .map(|v| match v {
            Value::Bool(b) => Ok(*b),
            _ => invalid("a part of the value is not written yet"),
        })
        .collect::<R<Vec<bool>>>()?;
    Ok(match name {
        "any" => Typed::bool(bs.iter().any(|b| *b)),
        "all" => Typed::bool(bs.iter().all(|b| *b)),
        _ => build(a.ty.clone(), bs.iter().map(|b| Value::Bool(!b)).collect()),
    })
}
