//! Constructors: `float(i)`, `vec3(1)`, `vec4(v.xy, 0, 1)`, `mat3(m4)`,
//! `mat2(1, 2, 3, 4)`, `Light(p, 1.0)`, `float[3](1, 2, 3)`, `float[](..)`.

use glsl_lang::ast;
use shaderdbg_glsl::types::{parse_type_name, GlslType};
use shaderdbg_glsl::{Type, Value};

use super::ops::{build, convert, convert_all, flat};
use super::{invalid, EvalError, Evaluator, Typed, R};

pub(crate) enum Callee {
    Constructor(Type),
    Function(String),
}

/// The type a constructor name denotes (structs from the scope), if it is one.
fn type_named(ev: &Evaluator<'_, '_>, name: &str) -> Option<Type> {
    if let Some(s) = ev.scope.struct_type(name) {
        return Some(Type::Struct(s));
    }
    parse_type_name(name).filter(|t| !matches!(t, Type::Opaque(_) | Type::Void))
}

/// What a call calls: a constructor (with its type) or a function (by name).
pub(crate) fn callee(ev: &mut Evaluator<'_, '_>, f: &ast::FunIdentifier) -> R<Callee> {
    match &f.content {
        ast::FunIdentifierData::TypeSpecifier(ts) => {
            let name = match &ts.ty.content {
                ast::TypeSpecifierNonArrayData::TypeName(n) => n.as_str().to_string(),
                other => shaderdbg_glsl::syntax::type_specifier_name(other),
            };
            let Some(mut ty) = type_named(ev, &name) else {
                if ts.array_specifier.is_some() {
                    return invalid(format!("no type named {name}"));
                }
                // `texture2D` and friends are type names to glsl-lang (Vulkan GLSL).
                return Ok(Callee::Function(name));
            };
            if let Some(spec) = &ts.array_specifier {
                for dim in spec.dimensions.iter().rev() {
                    let n = match &dim.content {
                        ast::ArraySpecifierDimensionData::Unsized => None,
                        ast::ArraySpecifierDimensionData::ExplicitlySized(e) => {
                            let n = ev.eval(e)?;
                            match n.value {
                                Value::Int(i) if i > 0 => Some(i as u32),
                                Value::Uint(u) if u > 0 => Some(u),
                                _ => return invalid("an array size must be a positive integer"),
                            }
                        }
                    };
                    ty = Type::Array(Box::new(ty), n);
                }
            }
            Ok(Callee::Constructor(ty))
        }
        ast::FunIdentifierData::Expr(e) => match &e.content {
            ast::ExprData::Variable(id) => match type_named(ev, id.as_str()) {
                Some(ty) => Ok(Callee::Constructor(ty)),
                None => Ok(Callee::Function(id.as_str().to_string())),
            },
            _ => invalid("this expression cannot be called"),
        },
    }
}

/// Implicit conversion of `t` to `to` (int -> uint -> float -> double, per
/// component); identical types otherwise.
pub(crate) fn implicit(t: Typed, to: &Type) -> R<Typed> {
    if &t.ty == to {
        return Ok(t);
    }
    if t.ty.converts_to(to) {
        if let (Some(s), Some(c)) = (to.scalar(), flat(&t)) {
            return Ok(build(to.clone(), convert_all(&c, s)?));
        }
    }
    invalid(format!("{} does not convert to {to}", t.ty))
}

pub(crate) fn construct(ty: &Type, args: Vec<Typed>) -> R<Typed> {
    if args.is_empty() {
        return invalid(format!("{ty}() needs arguments"));
    }
    match ty {
        Type::Scalar(s) => {
            if args.len() > 1 {
                return invalid(format!("{ty}() takes one argument"));
            }
            let c = components_of(&args[0], ty)?;
            let first = c.first().cloned().unwrap_or(Value::Undefined);
            Ok(Typed::new(ty.clone(), convert(&first, *s)?))
        }
        Type::Vector(s, n) => {
            let n = *n as usize;
            if let [a] = &args[..] {
                if let Type::Scalar(_) = a.ty {
                    let v = convert(&a.value, *s)?;
                    return Ok(build(ty.clone(), vec![v; n]));
                }
            }
            let c = gather(ty, &args, n)?;
            Ok(build(ty.clone(), convert_all(&c, *s)?))
        }
        Type::Matrix { scalar, cols, rows } => {
            let (cols, rows) = (*cols as usize, *rows as usize);
            if let [a] = &args[..] {
                match &a.ty {
                    Type::Scalar(_) => {
                        let d = convert(&a.value, *scalar)?;
                        let zero = convert(&Value::Int(0), *scalar)?;
                        let c = (0..cols * rows)
                            .map(|k| {
                                if k / rows == k % rows {
                                    d.clone()
                                } else {
                                    zero.clone()
                                }
                            })
                            .collect();
                        return Ok(build(ty.clone(), c));
                    }
                    Type::Matrix {
                        cols: c2, rows: r2, ..
                    } => {
                        let (c2, r2) = (*c2 as usize, *r2 as usize);
                        let src = flat(a).unwrap_or_default();
                        let mut out = Vec::with_capacity(cols * rows);
                        for j in 0..cols {
                            for i in 0..rows {
                                out.push(if j < c2 && i < r2 {
                                    convert(&src[j * r2 + i], *scalar)?
                                } else {
                                    convert(&Value::Int(i32::from(i == j)), *scalar)?
                                });
                            }
                        }
                        return Ok(build(ty.clone(), out));
                    }
                    _ => {}
                }
            }
            if args.iter().any(|a| matches!(a.ty, Type::Matrix { .. })) {
                return invalid(format!("{ty}() takes a matrix only as its one argument"));
            }
            let c = gather(ty, &args, cols * rows)?;
            Ok(build(ty.clone(), convert_all(&c, *scalar)?))
        }
        Type::Struct(st) => {
            if args.len() != st.fields.len() {
                return invalid(format!(
                    "{ty}() takes {} arguments, not {}",
                    st.fields.len(),
                    args.len()
                ));
            }
            let mut fields = Vec::with_capacity(args.len());
            for (f, a) in st.fields.iter().zip(args) {
                let v = implicit(a, &f.ty)
                    .map_err(|e| EvalError::Invalid(format!("{ty}() field {}: {e}", f.name)))?;
                fields.push((f.name.clone(), v.value));
            }
            Ok(Typed::new(ty.clone(), Value::Struct(fields)))
        }
        Type::Array(elem, n) => {
            if n.is_some_and(|n| n as usize != args.len()) {
                return invalid(format!(
                    "{ty}() takes {} elements, not {}",
                    n.unwrap_or(0),
                    args.len()
                ));
            }
            let items = args
                .into_iter()
                .map(|a| implicit(a, elem).map(|t| t.value))
                .collect::<R<Vec<_>>>()?;
            let ty = Type::Array(elem.clone(), Some(items.len() as u32));
            Ok(Typed::new(ty, Value::List(items)))
        }
        other => invalid(format!("{other} has no constructor")),
    }
}

fn components_of(a: &Typed, ty: &Type) -> R<Vec<Value>> {
    match flat(a) {
        Some(c) if a.ty.scalar().is_some() => Ok(c),
        _ => invalid(format!("{ty}() cannot take {}", a.ty)),
    }
}

/// The first `n` scalars of `args` in order; every argument must be used.
fn gather(ty: &Type, args: &[Typed], n: usize) -> R<Vec<Value>> {
    let mut out = Vec::with_capacity(n);
    for a in args {
        if out.len() >= n {
            return invalid(format!("{ty}() has too many arguments"));
        }
        let c = components_of(a, ty)?;
        let take = (n - out.len()).min(c.len());
        out.extend(c.into_iter().take(take));
    }
    if out.len() < n {
        return invalid(format!(
            "{ty}() needs {n} components, the arguments have {}",
            out.len()
        ));
    }
    Ok(out)
}
