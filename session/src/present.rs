//! Values for people: GLSL-style text (`vec3(1.0, 0.5, 0.25)`; WGSL's
//! `vec3<f32>(1.0, 0.5, 0.25)` with [`format_in`]) and the parts
//! of vectors, matrices, arrays and structs a front end can expand. The DAP
//! server's variables, the command line's `print` and logpoint messages all
//! read values this way.

use shaderdbg_core::{Language, Type, Value};

/// The parts of a value: (name, type, value, evaluate name).
pub fn parts(ty: &Type, v: &Value, eval: &str) -> Vec<(String, Type, Value, String)> {
    const XYZW: [&str; 4] = ["x", "y", "z", "w"];
    match (ty, v) {
        (Type::Vector(s, _), Value::List(items)) => items
            .iter()
            .zip(XYZW)
            .map(|(c, n)| {
                (
                    n.to_string(),
                    Type::Scalar(*s),
                    c.clone(),
                    format!("{eval}.{n}"),
                )
            })
            .collect(),
        (Type::Matrix { scalar, rows, .. }, Value::List(cols)) => cols
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    format!("[{i}]"),
                    Type::Vector(*scalar, *rows),
                    c.clone(),
                    format!("{eval}[{i}]"),
                )
            })
            .collect(),
        (Type::Array(elem, _), Value::List(items)) => items
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    format!("[{i}]"),
                    (**elem).clone(),
                    e.clone(),
                    format!("{eval}[{i}]"),
                )
            })
            .collect(),
        (Type::Struct(st), Value::Struct(fields)) => fields
            .iter()
            .map(|(n, fv)| {
                let fty = st
                    .fields
                    .iter()
                    .find(|f| &f.name == n)
                    .map_or(Type::Error, |f| f.ty.clone());
                (n.clone(), fty, fv.clone(), format!("{eval}.{n}"))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A value as GLSL would write it: `1.5`, `3u`, `true`, `vec2(1.0, 0.5)`,
/// `mat2(vec2(1.0, 0.0), vec2(0.0, 1.0))`, `float[2](1.0, 2.0)`, `S(1.0, 2)`.
/// A part never written shows as `?`.
pub fn format(ty: &Type, v: &Value) -> String {
    format_in(ty, v, Language::Glsl)
}

/// [`format()`] with type names spelled in `lang`: WGSL writes
/// `vec2<f32>(1.0, 0.5)`, `array<f32, 2>(1.0, 2.0)`, `S(1.0, 2)`.
pub fn format_in(ty: &Type, v: &Value, lang: Language) -> String {
    match (ty, v) {
        (_, Value::Undefined) => "?".into(),
        (_, Value::Bool(b)) => b.to_string(),
        (_, Value::Int(i)) => i.to_string(),
        (_, Value::Uint(u)) => format!("{u}u"),
        (_, Value::Float(f)) => float(f64::from(*f), format!("{f:?}")),
        (_, Value::Double(d)) => format!("{}lf", float(*d, format!("{d:?}"))),
        (Type::Vector(..) | Type::Matrix { .. } | Type::Array(..), Value::List(_))
        | (Type::Struct(_), Value::Struct(_)) => {
            let items: Vec<String> = parts(ty, v, "")
                .iter()
                .map(|(_, t, pv, _)| format_in(t, pv, lang))
                .collect();
            format!("{}({})", ty.display_in(lang), items.join(", "))
        }
        // A value whose type is unknown: the engine's own notation.
        (_, other) => other.to_string(),
    }
}

fn float(f: f64, debug: String) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        debug
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shaderdbg_core::types::StructType;
    use shaderdbg_core::Scalar;
    use std::sync::Arc;

    fn f(x: f32) -> Value {
        Value::Float(x)
    }

    #[test]
    fn formats_like_glsl() {
        let v3 = Type::Vector(Scalar::Float, 3);
        assert_eq!(
            format(&v3, &Value::List(vec![f(1.0), f(0.5), f(0.25)])),
            "vec3(1.0, 0.5, 0.25)"
        );
        let m = Type::mat(2, 2);
        let mv = Value::List(vec![
            Value::List(vec![f(1.0), f(0.0)]),
            Value::List(vec![f(0.0), Value::Undefined]),
        ]);
        assert_eq!(format(&m, &mv), "mat2(vec2(1.0, 0.0), vec2(0.0, ?))");
        let a = Type::Array(Box::new(Type::Scalar(Scalar::Uint)), Some(2));
        assert_eq!(
            format(&a, &Value::List(vec![Value::Uint(1), Value::Uint(2)])),
            "uint[2](1u, 2u)"
        );
        let s = Type::Struct(Arc::new(StructType::new(
            "Light",
            [
                ("on", Type::Scalar(Scalar::Bool)),
                ("k", Type::Scalar(Scalar::Float)),
            ],
        )));
        let sv = Value::Struct(vec![
            ("on".into(), Value::Bool(true)),
            ("k".into(), f(f32::NAN)),
        ]);
        assert_eq!(format(&s, &sv), "Light(true, NaN)");
        let w = Language::Wgsl;
        assert_eq!(
            format_in(&m, &mv, w),
            "mat2x2<f32>(vec2<f32>(1.0, 0.0), vec2<f32>(0.0, ?))"
        );
        assert_eq!(
            format_in(&a, &Value::List(vec![Value::Uint(1), Value::Uint(2)]), w),
            "array<u32, 2>(1u, 2u)"
        );
        assert_eq!(format_in(&s, &sv, w), "Light(true, NaN)");
        let p = parts(&s, &sv, "l");
        assert_eq!(p[1].0, "k");
        assert_eq!(p[1].3, "l.k");
        let p = parts(&m, &mv, "m");
        assert_eq!((p[1].0.as_str(), p[1].3.as_str()), ("[1]", "m[1]"));
    }
}
