//! GLSL types as the engine sees them: what a value looks like, how it converts,
//! how many 32-bit words it takes in a step log.

use std::fmt;
use std::sync::Arc;

/// A scalar component kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

    /// Implicit conversion rank (GLSL 4.x §4.1.10): int -> uint -> float -> double.
    fn rank(self) -> u8 {
        match self {
            Scalar::Bool => 0,
            Scalar::Int => 1,
            Scalar::Uint => 2,
            Scalar::Float => 3,
            Scalar::Double => 4,
        }
    }

    /// Whether an implicit conversion from `self` to `to` exists (identity included).
    pub fn converts_to(self, to: Scalar) -> bool {
        self == to
            || (self != Scalar::Bool
                && to != Scalar::Bool
                && self.rank() < to.rank()
                && !(self == Scalar::Uint && to == Scalar::Int))
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

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Int => "int",
            Scalar::Uint => "uint",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }
}

/// A user-declared struct type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructType {
    pub name: String,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub ty: Type,
}

/// A GLSL type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Scalar(Scalar),
    /// `vecN`, `ivecN`, ... with N in 2..=4.
    Vector(Scalar, u8),
    /// `matCxR`: `cols` columns of `rows` components; scalar is Float or Double.
    Matrix {
        scalar: Scalar,
        cols: u8,
        rows: u8,
    },
    /// An array; `None` for an unsized (runtime-sized or not yet sized) array.
    Array(Box<Type>, Option<u32>),
    Struct(Arc<StructType>),
    /// Samplers, images, atomic counters: opaque handles that cannot be logged.
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

    /// Whether an implicit conversion from `self` to `to` exists (identity included).
    pub fn converts_to(&self, to: &Type) -> bool {
        if self == to || self.is_error() || to.is_error() {
            return true;
        }
        match (self, to) {
            (Type::Scalar(a), Type::Scalar(b)) => a.converts_to(*b),
            (Type::Vector(a, n), Type::Vector(b, m)) => n == m && a.converts_to(*b),
            (
                Type::Matrix {
                    scalar: a,
                    cols: c1,
                    rows: r1,
                },
                Type::Matrix {
                    scalar: b,
                    cols: c2,
                    rows: r2,
                },
            ) => c1 == c2 && r1 == r2 && a.converts_to(*b),
            (Type::Array(a, n), Type::Array(b, m)) => a == b && (n == m || m.is_none()),
            _ => false,
        }
    }

    /// A name usable inside generated GLSL identifiers (`vec3`, `float_4`, `S_Light`).
    pub fn mangle(&self) -> String {
        match self {
            Type::Array(elem, Some(n)) => format!("{}_{n}", elem.mangle()),
            Type::Array(elem, None) => format!("{}_x", elem.mangle()),
            Type::Struct(s) => format!("S_{}", s.name),
            other => other.to_string().replace(' ', "_"),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
}

/// Parses a basic type name (`float`, `ivec3`, `mat2x4`, `sampler2D`, ...).
/// Returns `None` for names that are not built-in types.
pub fn parse_type_name(name: &str) -> Option<Type> {
    let scalar = |s: &str| -> Option<Scalar> {
        Some(match s {
            "bool" => Scalar::Bool,
            "int" => Scalar::Int,
            "uint" => Scalar::Uint,
            "float" => Scalar::Float,
            "double" => Scalar::Double,
            _ => return None,
        })
    };
    if name == "void" {
        return Some(Type::Void);
    }
    if let Some(s) = scalar(name) {
        return Some(Type::Scalar(s));
    }
    let (prefix, rest) = match name.find("vec").or_else(|| name.find("mat")) {
        Some(i) => name.split_at(i),
        None => ("", name),
    };
    let s = match prefix {
        "" => Some(Scalar::Float),
        "b" => Some(Scalar::Bool),
        "i" => Some(Scalar::Int),
        "u" => Some(Scalar::Uint),
        "d" => Some(Scalar::Double),
        _ => None,
    };
    if let (Some(s), Some(n)) = (s, rest.strip_prefix("vec")) {
        if let Ok(n @ 2..=4) = n.parse::<u8>() {
            return Some(Type::Vector(s, n));
        }
    }
    if let (Some(s @ (Scalar::Float | Scalar::Double)), Some(dims)) = (s, rest.strip_prefix("mat"))
    {
        let (c, r) = match dims.split_once('x') {
            Some((c, r)) => (c.parse::<u8>().ok()?, r.parse::<u8>().ok()?),
            None => {
                let n = dims.parse::<u8>().ok()?;
                (n, n)
            }
        };
        if (2..=4).contains(&c) && (2..=4).contains(&r) {
            return Some(Type::Matrix {
                scalar: s,
                cols: c,
                rows: r,
            });
        }
        return None;
    }
    let opaque = ["sampler", "image", "texture", "subpassInput", "atomic_uint"];
    let is_opaque = |n: &str| opaque.iter().any(|p| n.starts_with(p) && n.len() > p.len());
    let base = name
        .strip_prefix(['i', 'u'])
        .filter(|b| is_opaque(b))
        .unwrap_or(name);
    if is_opaque(base) || name == "atomic_uint" {
        return Some(Type::Opaque(name.to_string()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in [
            "float",
            "int",
            "uint",
            "bool",
            "double",
            "vec2",
            "ivec3",
            "uvec4",
            "bvec2",
            "dvec3",
            "mat2",
            "mat3",
            "mat4x2",
            "mat2x3",
            "dmat4",
            "sampler2D",
            "usampler2DArray",
            "image2D",
            "atomic_uint",
        ] {
            let ty = parse_type_name(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(ty.to_string(), name);
        }
        assert_eq!(parse_type_name("mat2x2"), Some(Type::mat(2, 2)));
        assert_eq!(parse_type_name("vec5"), None);
        assert_eq!(parse_type_name("Light"), None);
    }

    #[test]
    fn implicit_conversions_follow_the_spec() {
        assert!(INT.converts_to(&FLOAT));
        assert!(INT.converts_to(&UINT));
        assert!(!UINT.converts_to(&INT));
        assert!(!FLOAT.converts_to(&INT));
        assert!(!BOOL.converts_to(&FLOAT));
        assert!(Type::Vector(Scalar::Int, 3).converts_to(&Type::Vector(Scalar::Float, 3)));
        assert!(!Type::Vector(Scalar::Int, 3).converts_to(&Type::Vector(Scalar::Float, 2)));
    }

    #[test]
    fn log_sizes() {
        assert_eq!(Type::mat(4, 3).words(), Some(12));
        assert_eq!(
            Type::Array(Box::new(Type::vec(Scalar::Double, 2)), Some(3)).words(),
            Some(12)
        );
        assert_eq!(Type::Opaque("sampler2D".into()).words(), None);
    }
}
