//! GLSL's view of the debug core's type model ([`shaderdbg_core::types`]):
//! the names GLSL gives types, its implicit conversions, and names usable in
//! generated identifiers.

pub use shaderdbg_core::types::*;

/// GLSL's rules on the core's scalars.
pub trait GlslScalar {
    /// Whether an implicit conversion from `self` to `to` exists (identity included).
    fn converts_to(self, to: Scalar) -> bool;
}

impl GlslScalar for Scalar {
    fn converts_to(self, to: Scalar) -> bool {
        // Implicit conversion rank (GLSL 4.x §4.1.10): int -> uint -> float -> double.
        let rank = |s: Scalar| match s {
            Scalar::Bool => 0,
            Scalar::Int => 1,
            Scalar::Uint => 2,
            Scalar::Float => 3,
            Scalar::Double => 4,
        };
        self == to
            || (self != Scalar::Bool
                && to != Scalar::Bool
                && rank(self) < rank(to)
                && !(self == Scalar::Uint && to == Scalar::Int))
    }
}

/// GLSL's rules on the core's types.
pub trait GlslType {
    /// Whether an implicit conversion from `self` to `to` exists (identity included).
    fn converts_to(&self, to: &Type) -> bool;
    /// A name usable inside generated GLSL identifiers (`vec3`, `float_4`, `S_Light`).
    fn mangle(&self) -> String;
}

impl GlslType for Type {
    fn converts_to(&self, to: &Type) -> bool {
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

    fn mangle(&self) -> String {
        match self {
            Type::Array(elem, Some(n)) => format!("{}_{n}", elem.mangle()),
            Type::Array(elem, None) => format!("{}_x", elem.mangle()),
            Type::Struct(s) => format!("S_{}", s.name),
            other => other.to_string().replace(' ', "_"),
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
    // Where `vec` or `mat` starts; only a prefix of at most one letter
    // (`b`, `i`, `u`, `d`) can make a type name, so look no further.
    let at = |word: &str| (0..=1).find(|&i| name.get(i..).is_some_and(|r| r.starts_with(word)));
    let (prefix, rest) = match at("vec").or_else(|| at("mat")) {
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
    // `sampler` and `subpassInput` are types themselves (Vulkan GLSL).
    let is_opaque = |n: &str| {
        opaque.iter().any(|p| {
            n.starts_with(p) && (n.len() > p.len() || matches!(n, "sampler" | "subpassInput"))
        })
    };
    let base = name
        .strip_prefix(['i', 'u'])
        .filter(|b| is_opaque(b))
        .unwrap_or(name);
    if is_opaque(base) || name == "atomic_uint" {
        return Some(Type::Opaque(name.to_string()));
    }
    None
}

/// Whether `name` is one of the explicitly sized arithmetic types
/// extensions add (`int8_t`, `uint64_t`, `float16_t`, `i16vec3`,
/// `u64vec2`, `f16mat2x3`, ...): the core's type model has no 8-, 16- or
/// 64-bit integers nor halves, so these stay opaque to the analysis.
pub fn is_sized_arithmetic(name: &str) -> bool {
    let sized = |s: &str| matches!(s, "8" | "16" | "32" | "64");
    if let Some(base) = name.strip_suffix("_t") {
        let digits = base.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let kind = &base[..base.len() - digits.len()];
        return matches!(kind, "int" | "uint" | "float") && sized(digits);
    }
    let (Some(kind), Some(rest)) = (name.chars().next(), name.get(1..)) else {
        return false;
    };
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (bits, shape) = rest.split_at(digits_end);
    let shape_ok = match shape.strip_prefix("vec") {
        Some(n) => matches!(n, "2" | "3" | "4"),
        None => {
            kind == 'f'
                && shape.strip_prefix("mat").is_some_and(|d| {
                    let dims: Vec<&str> = d.split('x').collect();
                    dims.len() <= 2 && dims.iter().all(|n| matches!(*n, "2" | "3" | "4"))
                })
        }
    };
    matches!(kind, 'i' | 'u' | 'f') && sized(bits) && shape_ok
}

/// Kind (`i`, `u`, `f`), bit width and component count of a scalar or
/// vector type, core (`ivec3`: `i`, 32, 3) or sized (`f16vec2`: `f`, 16, 2).
pub fn arithmetic_parts(t: &Type) -> Option<(char, u8, u8)> {
    let of_scalar = |s: Scalar| match s {
        Scalar::Int => Some(('i', 32)),
        Scalar::Uint => Some(('u', 32)),
        Scalar::Float => Some(('f', 32)),
        Scalar::Double => Some(('f', 64)),
        Scalar::Bool => None,
    };
    match t {
        Type::Scalar(s) => of_scalar(*s).map(|(k, b)| (k, b, 1)),
        Type::Vector(s, n) => of_scalar(*s).map(|(k, b)| (k, b, *n)),
        Type::Opaque(name) if is_sized_arithmetic(name) => {
            let (kind, rest, n) = match name.strip_suffix("_t") {
                Some(base) => {
                    let digits = base.trim_start_matches(|c: char| c.is_ascii_alphabetic());
                    (base.chars().next()?, digits, 1)
                }
                None => {
                    let (bits, shape) = name.get(1..)?.split_once("vec")?;
                    (name.chars().next()?, bits, shape.parse().ok()?)
                }
            };
            Some((kind, rest.parse().ok()?, n))
        }
        _ => None,
    }
}

/// A swizzle of a sized vector or scalar (`u16vec3.yz`): its component
/// count (for the swizzle) and the sized type of `n` components.
pub fn sized_swizzle(name: &str, n: u8) -> Option<(u8, Type)> {
    let (kind, bits, count) = arithmetic_parts(&Type::Opaque(name.to_string()))?;
    Some((count, sized_type(kind, bits, n)))
}

/// The sized scalar or vector of `kind` (`i`, `u`, `f`), `bits` and `n`
/// components (`('f', 16, 1)`: `float16_t`; `('u', 8, 3)`: `u8vec3`).
pub fn sized_type(kind: char, bits: u8, n: u8) -> Type {
    Type::Opaque(match (kind, n) {
        ('i', 1) => format!("int{bits}_t"),
        ('u', 1) => format!("uint{bits}_t"),
        ('f', 1) => format!("float{bits}_t"),
        (k, n) => format!("{k}{bits}vec{n}"),
    })
}

/// Whether a value of `from` converts implicitly to `to` where one of them
/// is an explicitly sized type of an extension (`int16_t`, `u64vec2`;
/// GL_EXT_shader_explicit_arithmetic_types, GL_ARB_gpu_shader_int64, as
/// glslang has them): to a wider integer, to an unsigned one of the same
/// width from a signed one, to a float at least as wide (int64_t only to
/// a double), to a wider float. `None` where neither is sized (the core's
/// rules apply); sized matrices are not modelled: `Some(true)`.
pub fn sized_converts(from: &Type, to: &Type) -> Option<bool> {
    let sized = |t: &Type| matches!(t, Type::Opaque(n) if is_sized_arithmetic(n));
    if !sized(from) && !sized(to) {
        return None;
    }
    let (Some((fk, fb, fn_)), Some((tk, tb, tn))) = (arithmetic_parts(from), arithmetic_parts(to))
    else {
        let matrix = |t: &Type| {
            matches!(t, Type::Matrix { .. }) || matches!(t, Type::Opaque(n) if n.contains("mat"))
        };
        return Some(matrix(from) || matrix(to));
    };
    if fn_ != tn {
        return Some(false);
    }
    Some(match (fk, tk) {
        _ if fk == tk && fb == tb => true,
        ('i' | 'u', 'i') => tb > fb,
        ('i' | 'u', 'u') => tb > fb || (tb == fb && fk == 'i'),
        ('i' | 'u', 'f') => tb >= fb,
        ('f', 'f') => tb > fb,
        _ => false,
    })
}

/// Declaration text of a variable, arrays the C way: `vec3 acc`,
/// `ivec2 offsets[4]`, `float w[]`.
pub fn decl_text(ty: &Type, name: &str) -> String {
    let mut elem = ty;
    let mut dims = String::new();
    while let Type::Array(inner, n) = elem {
        match n {
            Some(n) => dims.push_str(&format!("[{n}]")),
            None => dims.push_str("[]"),
        }
        elem = inner;
    }
    format!("{elem} {name}{dims}")
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
    fn sized_arithmetic_type_names() {
        for name in [
            "int8_t",
            "uint64_t",
            "float16_t",
            "int32_t",
            "i8vec2",
            "u64vec4",
            "f16vec3",
            "f64mat2x3",
            "f32mat4",
        ] {
            assert!(is_sized_arithmetic(name), "{name}");
        }
        for name in [
            "int",
            "int_t",
            "int12_t",
            "vec3",
            "i16vec5",
            "u8mat2",
            "f16mat2x5",
            "rayQueryEXT",
            "float16",
        ] {
            assert!(!is_sized_arithmetic(name), "{name}");
        }
    }

    #[test]
    fn sized_conversions() {
        let t = |n: &str| parse_type_name(n).unwrap_or(Type::Opaque(n.to_string()));
        let yes = [
            ("int8_t", "int16_t"),
            ("int16_t", "int"),
            ("int", "int64_t"),
            ("int16_t", "uint16_t"),
            ("uint", "int64_t"),
            ("int16_t", "float16_t"),
            ("int64_t", "double"),
            ("float16_t", "float"),
            ("i16vec3", "ivec3"),
            ("float", "float32_t"),
        ];
        let no = [
            ("int16_t", "int8_t"),
            ("int64_t", "int"),
            ("uint16_t", "int16_t"),
            ("int", "float16_t"),
            ("int64_t", "float"),
            ("double", "float16_t"),
            ("i16vec3", "ivec2"),
            ("float16_t", "int16_t"),
        ];
        for (a, b) in yes {
            assert_eq!(sized_converts(&t(a), &t(b)), Some(true), "{a} -> {b}");
        }
        for (a, b) in no {
            assert_eq!(sized_converts(&t(a), &t(b)), Some(false), "{a} -> {b}");
        }
        assert_eq!(sized_converts(&INT, &FLOAT), None);
        assert_eq!(sized_swizzle("u16vec3", 1), Some((3, t("uint16_t"))));
        assert_eq!(sized_swizzle("f64vec4", 2), Some((4, t("f64vec2"))));
        assert_eq!(sized_swizzle("int8_t", 3), Some((1, t("i8vec3"))));
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
}
