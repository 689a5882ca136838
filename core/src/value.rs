//! Values read back from the GPU, decoded by type.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::types::{Scalar, Type};

/// A value read back from a debug buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    Bool(bool),
    Int(i32),
    Uint(u32),
    Float(f32),
    Double(f64),
    /// Vector components, or a matrix's columns (each a `Vector`), or array elements.
    List(Vec<Value>),
    Struct(Vec<(String, Value)>),
    /// Not written yet (only a part of the variable was).
    Undefined,
}

impl Value {
    /// Decodes a value of type `ty` from step-log words; returns it and the words used.
    pub fn decode(ty: &Type, words: &[u32]) -> Option<(Value, usize)> {
        match ty {
            Type::Scalar(s) => decode_scalar(*s, words).map(|v| (v, s.words() as usize)),
            Type::Vector(s, n) => list(words, *n as usize, &Type::Scalar(*s)),
            Type::Matrix { scalar, cols, rows } => {
                list(words, *cols as usize, &Type::Vector(*scalar, *rows))
            }
            Type::Array(elem, Some(n)) => list(words, *n as usize, elem),
            Type::Struct(s) => {
                let mut used = 0;
                let mut fields = Vec::with_capacity(s.fields.len());
                for f in &s.fields {
                    let (v, n) = Value::decode(&f.ty, words.get(used..)?)?;
                    used += n;
                    fields.push((f.name.clone(), v));
                }
                Some((Value::Struct(fields), used))
            }
            _ => None,
        }
    }

    /// A value of type `ty` whose scalars are all [`Value::Undefined`]; lists and
    /// structs keep their shape so a write to a part of them has a place to go.
    pub fn undefined_of(ty: &Type) -> Value {
        // A skeleton of a huge array would cost gigabytes; such a variable
        // just stays undefined (parts written to it are not shown).
        if ty
            .words()
            .is_none_or(|w| w > crate::types::MAX_LOGGED_WORDS)
        {
            return Value::Undefined;
        }
        match ty {
            Type::Vector(_, n) => Value::List(vec![Value::Undefined; *n as usize]),
            Type::Matrix { scalar, cols, rows } => {
                Value::List(vec![
                    Value::undefined_of(&Type::Vector(*scalar, *rows));
                    *cols as usize
                ])
            }
            Type::Array(elem, Some(n)) => Value::List(vec![Value::undefined_of(elem); *n as usize]),
            Type::Struct(s) => Value::Struct(
                s.fields
                    .iter()
                    .map(|f| (f.name.clone(), Value::undefined_of(&f.ty)))
                    .collect(),
            ),
            _ => Value::Undefined,
        }
    }

    /// Replaces the part of `self` at `path` (fields and indices) with `v`.
    pub fn set_path(&mut self, path: &[crate::probes::PathElem], v: Value) {
        use crate::probes::PathElem;
        let Some((first, rest)) = path.split_first() else {
            *self = v;
            return;
        };
        let slot = match (self, first) {
            (Value::List(items), PathElem::Index(i)) => items.get_mut(*i as usize),
            (Value::Struct(fields), PathElem::Field(f)) => {
                fields.iter_mut().find(|(n, _)| n == f).map(|(_, v)| v)
            }
            _ => None,
        };
        if let Some(slot) = slot {
            slot.set_path(rest, v);
        }
    }

    /// As a float, for scalars.
    pub fn as_f64(&self) -> Option<f64> {
        Some(match self {
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Int(i) => f64::from(*i),
            Value::Uint(u) => f64::from(*u),
            Value::Float(f) => f64::from(*f),
            Value::Double(d) => *d,
            _ => return None,
        })
    }

    /// The element at `i` of a list.
    pub fn index(&self, i: usize) -> Option<&Value> {
        match self {
            Value::List(items) => items.get(i),
            _ => None,
        }
    }

    pub fn field(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Struct(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }
}

fn decode_scalar(s: Scalar, words: &[u32]) -> Option<Value> {
    let w = *words.first()?;
    Some(match s {
        Scalar::Bool => Value::Bool(w != 0),
        Scalar::Int => Value::Int(w as i32),
        Scalar::Uint => Value::Uint(w),
        Scalar::Float => Value::Float(f32::from_bits(w)),
        Scalar::Double => {
            let hi = *words.get(1)?;
            Value::Double(f64::from_bits(u64::from(w) | (u64::from(hi) << 32)))
        }
    })
}

fn list(words: &[u32], n: usize, elem: &Type) -> Option<(Value, usize)> {
    let mut used = 0;
    let mut items = Vec::with_capacity(n.min(words.len()));
    for _ in 0..n {
        let (v, k) = Value::decode(elem, words.get(used..)?)?;
        used += k;
        items.push(v);
    }
    Some((Value::List(items), used))
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Uint(u) => write!(f, "{u}u"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Double(x) => write!(f, "{x:?}lf"),
            Value::List(items) => {
                f.write_str("(")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Value::Struct(fields) => {
                f.write_str("{")?;
                for (i, (n, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{n}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Undefined => f.write_str("?"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_nested_values() {
        let ty = Type::mat(2, 2);
        let words: Vec<u32> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .map(|f| f.to_bits())
            .collect();
        let (v, n) = Value::decode(&ty, &words).unwrap();
        assert_eq!(n, 4);
        assert_eq!(v.to_string(), "((1.0, 2.0), (3.0, 4.0))");
        assert_eq!(Value::decode(&ty, &words[..3]), None);
        let d = 1.5f64.to_bits();
        let (v, _) =
            Value::decode(&Type::Scalar(Scalar::Double), &[d as u32, (d >> 32) as u32]).unwrap();
        assert_eq!(v, Value::Double(1.5));
    }
}
