//! The type model of logged values: what a value looks like and how many
//! 32-bit words it takes in a debug buffer. Every source language maps its
//! types into this one (GLSL's are these exactly; WGSL's `vec3<f32>` is
//! `Vector(Float, 3)`); [`Type::display_in`] spells a type in a language.
//! Language rules (implicit conversions, type names in source) stay in the
//! language's engine.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A source language, for spelling types and values the way its users write them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    #[default]
    Glsl,
    Wgsl,
}

/// A scalar component kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scalar {
    Bool,
    Int,
    Uint,
    Float,
    Double,
}

impl Scalar {
    /// Words this scalar takes in a step log (doubles take two).
    pub fn words(self) -> u32 {
        match self {
            Scalar::Double => 2,
            _ => 1,
        }
    }

    pub fn is_numeric(self) -> bool {
        !matches!(self, Scalar::Bool)
    }

    pub fn is_integer(self) -> bool {
        matches!(self, Scalar::Int | Scalar::Uint)
    }

    pub fn is_floating(self) -> bool {
        matches!(self, Scalar::Float | Scalar::Double)
    }

    fn vector_prefix(self) -> &'static str {
        match self {
            Scalar::Bool => "b",
            Scalar::Int => "i",
            Scalar::Uint => "u",
            Scalar::Float => "",
            Scalar::Double => "d",
        }
    }

    /// The GLSL name (`float`, `uint`, ...).
    pub fn name(self) -> &'static str {
        self.name_in(Language::Glsl)
    }

    pub fn name_in(self, lang: Language) -> &'static str {
        match (lang, self) {
            (Language::Glsl, Scalar::Bool) => "bool",
            (Language::Glsl, Scalar::Int) => "int",
            (Language::Glsl, Scalar::Uint) => "uint",
            (Language::Glsl, Scalar::Float) => "float",
            (Language::Glsl, Scalar::Double) => "double",
            (Language::Wgsl, Scalar::Bool) => "bool",
            (Language::Wgsl, Scalar::Int) => "i32",
            (Language::Wgsl, Scalar::Uint) => "u32",
            (Language::Wgsl, Scalar::Float) => "f32",
            (Language::Wgsl, Scalar::Double) => "f64",
        }
    }
}

/// A user-declared struct type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StructType {
    pub name: String,
    pub fields: Vec<Field>,
}

impl StructType {
    /// A struct named `name` with these (field name, type) pairs, in order.
    pub fn new<'a>(name: &str, fields: impl IntoIterator<Item = (&'a str, Type)>) -> Self {
        StructType {
            name: name.to_string(),
            fields: fields
                .into_iter()
                .map(|(name, ty)| Field {
                    name: name.to_string(),
                    ty,
                })
                .collect(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    pub ty: Type,
}

/// A type of the debug core (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Type {
    Void,
    Scalar(Scalar),
    /// N components, N in 2..=4 (`vecN`, `vec<N, T>`).
    Vector(Scalar, u8),
    /// `cols` columns of `rows` components (`matCxR`); scalar is Float or Double.
    Matrix {
        scalar: Scalar,
        cols: u8,
        rows: u8,
    },
    /// An array; `None` for an unsized (runtime-sized or not yet sized) array.
    Array(Box<Type>, Option<u32>),
    Struct(Arc<StructType>),
    /// Samplers, images, atomic counters: opaque handles that cannot be logged
    /// (named as the source language names them).
    Opaque(String),
    /// The type of something that failed to analyse; absorbs further errors.
    Error,
}

/// The largest value (in words) instrumentation logs.
pub const MAX_LOGGED_WORDS: u32 = 1 << 16;

pub const FLOAT: Type = Type::Scalar(Scalar::Float);
pub const INT: Type = Type::Scalar(Scalar::Int);
pub const UINT: Type = Type::Scalar(Scalar::Uint);
pub const BOOL: Type = Type::Scalar(Scalar::Bool);

impl Type {
    pub fn vec(scalar: Scalar, n: u8) -> Type {
        if n == 1 {
            Type::Scalar(scalar)
        } else {
            Type::Vector(scalar, n)
        }
    }

    pub fn mat(cols: u8, rows: u8) -> Type {
        Type::Matrix {
            scalar: Scalar::Float,
            cols,
            rows,
        }
    }

    /// The component kind of a scalar, vector or matrix.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => Some(*s),
            _ => None,
        }
    }

    /// Number of components of a scalar or vector (1 for scalars).
    pub fn components(&self) -> Option<u8> {
        match self {
            Type::Scalar(_) => Some(1),
            Type::Vector(_, n) => Some(*n),
            _ => None,
        }
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }

    /// Whether values of this type can be logged to a step log: not opaque,
    /// sized, and at most [`MAX_LOGGED_WORDS`] (a value that large would make
    /// every write of it a copy of megabytes).
    pub fn is_loggable(&self) -> bool {
        let shape = match self {
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. } => true,
            Type::Array(elem, Some(_)) => elem.is_loggable(),
            Type::Struct(s) => s.fields.iter().all(|f| f.ty.is_loggable()),
            _ => false,
        };
        shape && self.words().is_some_and(|w| w <= MAX_LOGGED_WORDS)
    }

    /// Words a value of this type takes in a step log, if it can be logged
    /// (`None` also when the count does not fit in 32 bits).
    pub fn words(&self) -> Option<u32> {
        match self {
            Type::Scalar(s) => Some(s.words()),
            Type::Vector(s, n) => Some(s.words() * u32::from(*n)),
            Type::Matrix { scalar, cols, rows } => {
                Some(scalar.words() * u32::from(*cols) * u32::from(*rows))
            }
            Type::Array(elem, Some(n)) => elem.words()?.checked_mul(*n),
            Type::Struct(s) => s
                .fields
                .iter()
                .try_fold(0u32, |acc, f| acc.checked_add(f.ty.words()?)),
            _ => None,
        }
    }

    /// The same type with `scalar` as component kind (for conversions).
    pub fn with_scalar(&self, scalar: Scalar) -> Type {
        match self {
            Type::Scalar(_) => Type::Scalar(scalar),
            Type::Vector(_, n) => Type::Vector(scalar, *n),
            Type::Matrix { cols, rows, .. } => Type::Matrix {
                scalar,
                cols: *cols,
                rows: *rows,
            },
            other => other.clone(),
        }
    }
}

impl Type {
    /// The type as `lang` spells it (`vec3`, `vec3<f32>`).
    pub fn display_in(&self, lang: Language) -> TypeName<'_> {
        TypeName { ty: self, lang }
    }
}

/// A type spelled in a language (see [`Type::display_in`]).
pub struct TypeName<'a> {
    ty: &'a Type,
    lang: Language,
}

impl fmt::Display for TypeName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.lang {
            Language::Glsl => glsl_name(self.ty, f),
            Language::Wgsl => wgsl_name(self.ty, f),
        }
    }
}

/// GLSL's spelling: the engines' diagnostics and the GLSL front ends use it.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        glsl_name(self, f)
    }
}

fn glsl_name(ty: &Type, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match ty {
        Type::Void => f.write_str("void"),
        Type::Scalar(s) => f.write_str(s.name()),
        Type::Vector(s, n) => write!(f, "{}vec{n}", s.vector_prefix()),
        Type::Matrix { scalar, cols, rows } => {
            let p = if *scalar == Scalar::Double { "d" } else { "" };
            if cols == rows {
                write!(f, "{p}mat{cols}")
            } else {
                write!(f, "{p}mat{cols}x{rows}")
            }
        }
        Type::Array(elem, Some(n)) => write!(f, "{elem}[{n}]"),
        Type::Array(elem, None) => write!(f, "{elem}[]"),
        Type::Struct(s) => f.write_str(&s.name),
        Type::Opaque(name) => f.write_str(name),
        Type::Error => f.write_str("<error>"),
    }
}

fn wgsl_name(ty: &Type, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let w = |t: &Type| t.display_in(Language::Wgsl).to_string();
    match ty {
        Type::Void => f.write_str("()"),
        Type::Scalar(s) => f.write_str(s.name_in(Language::Wgsl)),
        Type::Vector(s, n) => write!(f, "vec{n}<{}>", s.name_in(Language::Wgsl)),
        Type::Matrix { scalar, cols, rows } => {
            write!(f, "mat{cols}x{rows}<{}>", scalar.name_in(Language::Wgsl))
        }
        Type::Array(elem, Some(n)) => write!(f, "array<{}, {n}>", w(elem)),
        Type::Array(elem, None) => write!(f, "array<{}>", w(elem)),
        Type::Struct(s) => f.write_str(&s.name),
        Type::Opaque(name) => f.write_str(name),
        Type::Error => f.write_str("<error>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sizes() {
        assert_eq!(Type::mat(4, 3).words(), Some(12));
        assert_eq!(
            Type::Array(Box::new(Type::vec(Scalar::Double, 2)), Some(3)).words(),
            Some(12)
        );
        assert_eq!(Type::Opaque("sampler2D".into()).words(), None);
    }

    #[test]
    fn names_in_each_language() {
        let arr = Type::Array(Box::new(Type::vec(Scalar::Uint, 4)), Some(2));
        let cases = [
            (Type::vec(Scalar::Float, 3), "vec3", "vec3<f32>"),
            (Type::mat(4, 3), "mat4x3", "mat4x3<f32>"),
            (arr, "uvec4[2]", "array<vec4<u32>, 2>"),
            (INT, "int", "i32"),
        ];
        for (ty, glsl, wgsl) in cases {
            assert_eq!(ty.to_string(), glsl);
            assert_eq!(ty.display_in(Language::Wgsl).to_string(), wgsl);
        }
    }
}
