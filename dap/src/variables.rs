//! Values for people: GLSL-style formatting (`vec3(1.0, 0.5, 0.25)`) and the
//! expandable parts of vectors, matrices, arrays and structs, with the
//! `variablesReference` handles that name them while the program is stopped.

use shaderdbg_glsl::{Type, Value};
use shaderdbg_session::stop::Scope as VarScope;

use crate::protocol::Variable;

/// What a `variablesReference` stands for.
#[derive(Clone, Debug)]
pub enum Handle {
    /// The variables of one scope, as they are before `step` executes.
    Scope {
        /// Thread index (thread id - 1).
        thread: usize,
        step: usize,
        scope: ScopeKind,
    },
    /// The parts of a value.
    Value {
        ty: Type,
        value: Value,
        evaluate_name: String,
    },
}

/// The scopes shown for a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    Locals,
    Inputs,
    Builtins,
    Globals,
}

impl ScopeKind {
    pub const ALL: [ScopeKind; 4] = [
        ScopeKind::Locals,
        ScopeKind::Inputs,
        ScopeKind::Builtins,
        ScopeKind::Globals,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ScopeKind::Locals => "Locals",
            ScopeKind::Inputs => "Inputs & Uniforms",
            ScopeKind::Builtins => "Built-ins",
            ScopeKind::Globals => "Outputs & Globals",
        }
    }

    pub fn holds(self, s: VarScope) -> bool {
        matches!(
            (self, s),
            (ScopeKind::Locals, VarScope::Local)
                | (ScopeKind::Inputs, VarScope::Input)
                | (ScopeKind::Builtins, VarScope::Builtin)
                | (ScopeKind::Globals, VarScope::Global)
        )
    }
}

/// Handles, valid until the cursor moves or the program resumes.
#[derive(Default)]
pub struct Handles {
    items: Vec<Handle>,
}

impl Handles {
    pub fn clear(&mut self) {
        self.items.clear();
    }

    pub fn add(&mut self, h: Handle) -> i64 {
        self.items.push(h);
        self.items.len() as i64
    }

    pub fn get(&self, reference: i64) -> Option<&Handle> {
        usize::try_from(reference)
            .ok()
            .and_then(|r| r.checked_sub(1))
            .and_then(|r| self.items.get(r))
    }

    /// A DAP variable for a value; parts get a handle.
    pub fn variable(
        &mut self,
        name: &str,
        ty: &Type,
        value: Option<&Value>,
        eval: &str,
    ) -> Variable {
        let (text, reference) = match value {
            None => ("not written yet".to_string(), 0),
            Some(v) => {
                let r = if has_parts(ty, v) {
                    self.add(Handle::Value {
                        ty: ty.clone(),
                        value: v.clone(),
                        evaluate_name: eval.to_string(),
                    })
                } else {
                    0
                };
                (format(ty, v), r)
            }
        };
        Variable {
            name: name.to_string(),
            value: text,
            ty: ty.to_string(),
            evaluate_name: Some(eval.to_string()),
            variables_reference: reference,
        }
    }
}

fn has_parts(ty: &Type, v: &Value) -> bool {
    matches!(
        (ty, v),
        (
            Type::Vector(..) | Type::Matrix { .. } | Type::Array(..),
            Value::List(_)
        ) | (Type::Struct(_), Value::Struct(_))
    )
}

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
                .map(|(_, t, pv, _)| format(t, pv))
                .collect();
            format!("{ty}({})", items.join(", "))
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
    use shaderdbg_glsl::types::{Field, StructType};
    use shaderdbg_glsl::Scalar;
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
        let s = Type::Struct(Arc::new(StructType {
            name: "Light".into(),
            fields: vec![
                Field {
                    name: "on".into(),
                    ty: Type::Scalar(Scalar::Bool),
                },
                Field {
                    name: "k".into(),
                    ty: Type::Scalar(Scalar::Float),
                },
            ],
        }));
        let sv = Value::Struct(vec![
            ("on".into(), Value::Bool(true)),
            ("k".into(), f(f32::NAN)),
        ]);
        assert_eq!(format(&s, &sv), "Light(true, NaN)");
        let p = parts(&s, &sv, "l");
        assert_eq!(p[1].0, "k");
        assert_eq!(p[1].3, "l.k");
        let p = parts(&m, &mv, "m");
        assert_eq!((p[1].0.as_str(), p[1].3.as_str()), ("[1]", "m[1]"));
    }
}
