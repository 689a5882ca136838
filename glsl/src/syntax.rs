//! Small facts about GLSL syntax that the analysis and the session's
//! expression evaluator both need: operator symbols, swizzles, the spelling
//! of a built-in type specifier.

use lang_util::error::{LexicalError, ParseErrorKind};

use glsl_lang::ast;
use glsl_lang::parse::ParseError;

/// How a binary operator is written.
pub fn binary_op_symbol(op: &ast::BinaryOpData) -> &'static str {
    use ast::BinaryOpData as B;
    match op {
        B::Or => "||",
        B::Xor => "^^",
        B::And => "&&",
        B::BitOr => "|",
        B::BitXor => "^",
        B::BitAnd => "&",
        B::Equal => "==",
        B::NonEqual => "!=",
        B::Lt => "<",
        B::Gt => ">",
        B::Lte => "<=",
        B::Gte => ">=",
        B::LShift => "<<",
        B::RShift => ">>",
        B::Add => "+",
        B::Sub => "-",
        B::Mult => "*",
        B::Div => "/",
        B::Mod => "%",
    }
}

/// A numeric literal GLSL has that glsl-lang's lexer rejects: the
/// suffixes of GL_ARB_gpu_shader_int64 (`1L`, `2UL`), of the 16-bit types
/// (`3S`, `4US`, `0.5hf`), `Lf`/`lF` doubles, and unsuffixed integers that
/// do not fit an `int` but whose bits fit 32 (`2147483648`, `0xFFFFFFFF`:
/// an `int` of those bits). `parse` hands them to the parser as
/// identifiers and puts the literal's own text back as a `Variable`'s name
/// (the only names that start with a digit or a dot), which the
/// transpiler prints verbatim.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtendedLiteral {
    pub ty: crate::Type,
    /// The value of an integer literal, where an `i64` holds it.
    pub value: Option<i64>,
}

/// The [`ExtendedLiteral`] `text` is, or None (also for the literals
/// glsl-lang reads itself, and for malformed ones, which it rejects).
pub fn extended_literal(text: &str) -> Option<ExtendedLiteral> {
    use crate::types::{Scalar, Type};
    let opaque = |n: &str| Type::Opaque(n.to_string());
    let hex = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"));
    let floating = hex.is_none()
        && (text.contains('.') || text.contains(['e', 'E']) || text.ends_with(['f', 'F']));
    if floating {
        let lower = text.to_ascii_lowercase();
        let (mantissa, ty) = if lower.ends_with("hf") {
            (&text[..text.len() - 2], opaque("float16_t"))
        } else if lower.ends_with("lf") && !text.ends_with("lf") && !text.ends_with("LF") {
            (&text[..text.len() - 2], Type::Scalar(Scalar::Double))
        } else {
            return None;
        };
        mantissa.parse::<f64>().ok()?;
        return Some(ExtendedLiteral { ty, value: None });
    }
    let digits_end = text
        .char_indices()
        .skip(if hex.is_some() { 2 } else { 0 })
        .find(|(_, c)| !c.is_ascii_hexdigit() || (hex.is_none() && !c.is_ascii_digit()))
        .map_or(text.len(), |(i, _)| i);
    let (digits, suffix) = text.split_at(digits_end);
    let (radix, digits) = match hex {
        Some(_) => (16, &digits[2..]),
        None if digits.len() > 1 && digits.starts_with('0') => (8, &digits[1..]),
        None => (10, digits),
    };
    let v = u64::from_str_radix(digits, radix).ok()?;
    let (ty, fits) = match suffix.to_ascii_lowercase().as_str() {
        // glsl-lang reads those that fit an int itself.
        "" if v > i32::MAX as u64 && v <= u64::from(u32::MAX) => {
            return Some(ExtendedLiteral {
                ty: Type::Scalar(Scalar::Int),
                value: Some(i64::from(v as u32 as i32)),
            });
        }
        "l" => (opaque("int64_t"), true),
        "ul" | "lu" => (opaque("uint64_t"), true),
        "s" => (opaque("int16_t"), v <= u64::from(u16::MAX)),
        "us" | "su" => (opaque("uint16_t"), v <= u64::from(u16::MAX)),
        _ => return None,
    };
    fits.then(|| ExtendedLiteral {
        ty,
        value: i64::try_from(v).ok(),
    })
}

/// Why a swizzle is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SwizzleError {
    #[error("has no component {0}")]
    NoComponent(char),
    #[error("`{0}` mixes swizzle sets (xyzw, rgba, stpq)")]
    MixedSets(String),
    #[error("`{0}`: a swizzle has 1 to 4 components")]
    Length(String),
}

/// The component indices of a swizzle (`xyz`, `rgba`, `stpq`) of a vector
/// of `components` components.
pub fn swizzle(s: &str, components: u8) -> Result<Vec<u8>, SwizzleError> {
    const SETS: [&str; 3] = ["xyzw", "rgba", "stpq"];
    let mut set = None;
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        let (k, i) = SETS
            .iter()
            .enumerate()
            .find_map(|(k, chars)| chars.find(c).map(|i| (k, i as u8)))
            .filter(|(_, i)| *i < components)
            .ok_or(SwizzleError::NoComponent(c))?;
        if set.is_some_and(|x| x != k) {
            return Err(SwizzleError::MixedSets(s.to_string()));
        }
        set = Some(k);
        out.push(i);
    }
    if out.is_empty() || out.len() > 4 {
        return Err(SwizzleError::Length(s.to_string()));
    }
    Ok(out)
}

/// A built-in type specifier as GLSL spells it (`vec3`, `sampler2D`).
pub fn type_specifier_name(ty: &ast::TypeSpecifierNonArrayData) -> String {
    let mut s = String::new();
    let node = ast::TypeSpecifierNonArray::new(ty.clone(), None);
    // Writing to a String cannot fail.
    let _ = glsl_lang::transpiler::glsl::show_type_specifier_non_array(
        &mut s,
        &node,
        &mut glsl_lang::transpiler::glsl::FormattingState::default(),
    );
    // glsl-lang 0.8.1's transpiler misspells two multisample samplers.
    match s.trim() {
        "isampler2MS" => "isampler2DMS".to_string(),
        "usamplerDMSArray" => "usampler2DMSArray".to_string(),
        t => t.to_string(),
    }
}

/// The type of a scalar, vector or matrix type specifier (what
/// `parse_type_name` gives for its [`type_specifier_name`], without spelling
/// it); None for the others (samplers, images, ...).
pub fn basic_type(ty: &ast::TypeSpecifierNonArrayData) -> Option<crate::Type> {
    use crate::types::{Scalar as S, Type as T};
    use ast::TypeSpecifierNonArrayData as D;
    let mat = |scalar, cols, rows| T::Matrix { scalar, cols, rows };
    Some(match ty {
        D::Void => T::Void,
        D::Bool => T::Scalar(S::Bool),
        D::Int => T::Scalar(S::Int),
        D::UInt => T::Scalar(S::Uint),
        D::Float => T::Scalar(S::Float),
        D::Double => T::Scalar(S::Double),
        D::Vec2 => T::Vector(S::Float, 2),
        D::Vec3 => T::Vector(S::Float, 3),
        D::Vec4 => T::Vector(S::Float, 4),
        D::DVec2 => T::Vector(S::Double, 2),
        D::DVec3 => T::Vector(S::Double, 3),
        D::DVec4 => T::Vector(S::Double, 4),
        D::BVec2 => T::Vector(S::Bool, 2),
        D::BVec3 => T::Vector(S::Bool, 3),
        D::BVec4 => T::Vector(S::Bool, 4),
        D::IVec2 => T::Vector(S::Int, 2),
        D::IVec3 => T::Vector(S::Int, 3),
        D::IVec4 => T::Vector(S::Int, 4),
        D::UVec2 => T::Vector(S::Uint, 2),
        D::UVec3 => T::Vector(S::Uint, 3),
        D::UVec4 => T::Vector(S::Uint, 4),
        D::Mat2 | D::Mat22 => mat(S::Float, 2, 2),
        D::Mat3 | D::Mat33 => mat(S::Float, 3, 3),
        D::Mat4 | D::Mat44 => mat(S::Float, 4, 4),
        D::Mat23 => mat(S::Float, 2, 3),
        D::Mat24 => mat(S::Float, 2, 4),
        D::Mat32 => mat(S::Float, 3, 2),
        D::Mat34 => mat(S::Float, 3, 4),
        D::Mat42 => mat(S::Float, 4, 2),
        D::Mat43 => mat(S::Float, 4, 3),
        D::DMat2 | D::DMat22 => mat(S::Double, 2, 2),
        D::DMat3 | D::DMat33 => mat(S::Double, 3, 3),
        D::DMat4 | D::DMat44 => mat(S::Double, 4, 4),
        D::DMat23 => mat(S::Double, 2, 3),
        D::DMat24 => mat(S::Double, 2, 4),
        D::DMat32 => mat(S::Double, 3, 2),
        D::DMat34 => mat(S::Double, 3, 4),
        D::DMat42 => mat(S::Double, 4, 2),
        D::DMat43 => mat(S::Double, 4, 3),
        _ => return None,
    })
}

/// At most this many expected tokens are listed in a syntax error.
const MAX_EXPECTED: usize = 6;

/// A parse error in a person's words: glsl-lang lists every token it would
/// have accepted (dozens of texture types after a `=`); say what was found,
/// and the list only when it is short.
pub fn syntax_message<E: LexicalError>(kind: &ParseErrorKind<E>) -> String {
    let (found, expected) = match kind {
        ParseErrorKind::UnrecognizedToken { token, expected } => (token.to_string(), expected),
        ParseErrorKind::UnrecognizedEof { expected } => ("end of input".to_string(), expected),
        other => return other.to_string(),
    };
    if expected.len() <= MAX_EXPECTED {
        return kind.to_string();
    }
    let operand = |e: &String| e.contains("literal") || e.contains("identifier");
    let what = if expected.iter().any(operand) {
        "an expression"
    } else {
        "something else"
    };
    format!("unexpected {found}, expected {what}")
}

/// A parse error of a one-line expression (a breakpoint condition, a watch)
/// as a person reads it: `column 7: unexpected `)`, expected an expression`,
/// or `incomplete: ...` when the text ends too early.
pub fn expression_error<E: LexicalError>(text: &str, e: &ParseError<E>) -> String {
    let message = syntax_message(e.inner());
    if matches!(e.inner(), ParseErrorKind::UnrecognizedEof { .. }) {
        return format!("incomplete: {message}");
    }
    let before = text.get(..usize::from(e.pos().start())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    match line {
        1 => format!("column {column}: {message}"),
        _ => format!("line {line}, column {column}: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_literals_and_their_types() {
        use crate::types::{Scalar, Type};
        let ty = |t: &str| extended_literal(t).map(|l| l.ty.to_string());
        assert_eq!(ty("4607182418800017408L").as_deref(), Some("int64_t"));
        assert_eq!(ty("13830554455654793216UL").as_deref(), Some("uint64_t"));
        assert_eq!(ty("0x7fffL").as_deref(), Some("int64_t"));
        assert_eq!(ty("32768S").as_deref(), Some("int16_t"));
        assert_eq!(ty("7us").as_deref(), Some("uint16_t"));
        assert_eq!(ty("0.5hf").as_deref(), Some("float16_t"));
        assert_eq!(ty("1e3HF").as_deref(), Some("float16_t"));
        assert_eq!(ty("3.14Lf").as_deref(), Some("double"));
        // An int of the literal's 32 bits.
        assert_eq!(
            extended_literal("0xFFFFFFFF"),
            Some(ExtendedLiteral {
                ty: Type::Scalar(Scalar::Int),
                value: Some(-1)
            })
        );
        assert_eq!(
            extended_literal("2147483648").and_then(|l| l.value),
            Some(-2147483648)
        );
        // What glsl-lang reads itself, and what is no literal.
        for t in [
            "1",
            "2147483647",
            "1u",
            "0.5",
            "1.0lf",
            "2.0LF",
            "1.5f",
            "99999999999",
            "70000S",
            "1x",
            "0.5q",
        ] {
            assert_eq!(extended_literal(t), None, "{t}");
        }
    }

    #[test]
    fn expression_errors_name_the_column_not_every_token() {
        use glsl_lang::parse::DefaultParse;
        let msg = |text: &str| match ast::Expr::parse(text) {
            Ok(_) => panic!("{text} parses"),
            Err(e) => expression_error(text, &e),
        };
        assert_eq!(
            msg("p.x > "),
            "incomplete: unexpected end of input, expected an expression"
        );
        assert_eq!(
            msg("p.x > )"),
            "column 7: unexpected `)`, expected an expression"
        );
        assert_eq!(
            msg("(p.x"),
            "incomplete: unexpected end of input, expected a `)` or `,`"
        );
    }

    /// Shader syntax errors list what was expected only when the list is short.
    #[test]
    fn long_expected_lists_are_cut() {
        let message = |text: &str| match crate::parse::parse(&[text], crate::Stage::Fragment, None)
        {
            Ok(_) => panic!("{text} parses"),
            Err(d) => d.message,
        };
        assert_eq!(
            message("void main() { float x = ; }\n"),
            "unexpected `;`, expected an expression"
        );
        assert_eq!(
            message("void main() { float x = f(1; }\n"),
            "unexpected `;`, expected a `)` or `,`"
        );
    }

    /// The direct mapping agrees with spelling the type and parsing the name.
    #[test]
    fn basic_types_match_their_names() {
        use ast::TypeSpecifierNonArrayData as D;
        let all = [
            D::Void,
            D::Bool,
            D::Int,
            D::UInt,
            D::Float,
            D::Double,
            D::Vec2,
            D::Vec3,
            D::Vec4,
            D::DVec2,
            D::DVec3,
            D::DVec4,
            D::BVec2,
            D::BVec3,
            D::BVec4,
            D::IVec2,
            D::IVec3,
            D::IVec4,
            D::UVec2,
            D::UVec3,
            D::UVec4,
            D::Mat2,
            D::Mat3,
            D::Mat4,
            D::Mat22,
            D::Mat23,
            D::Mat24,
            D::Mat32,
            D::Mat33,
            D::Mat34,
            D::Mat42,
            D::Mat43,
            D::Mat44,
            D::DMat2,
            D::DMat3,
            D::DMat4,
            D::DMat22,
            D::DMat23,
            D::DMat24,
            D::DMat32,
            D::DMat33,
            D::DMat34,
            D::DMat42,
            D::DMat43,
            D::DMat44,
        ];
        for t in all {
            let name = type_specifier_name(&t);
            assert_eq!(
                basic_type(&t),
                crate::types::parse_type_name(&name),
                "{name}"
            );
        }
        assert_eq!(basic_type(&D::Sampler2D), None);
    }

    #[test]
    fn swizzles() {
        assert_eq!(swizzle("zyx", 3), Ok(vec![2, 1, 0]));
        assert_eq!(swizzle("rg", 2), Ok(vec![0, 1]));
        assert_eq!(swizzle("rgba", 3), Err(SwizzleError::NoComponent('a')));
        assert_eq!(swizzle("xg", 4), Err(SwizzleError::MixedSets("xg".into())));
        assert_eq!(
            swizzle("xxxxx", 4),
            Err(SwizzleError::Length("xxxxx".into()))
        );
        assert_eq!(swizzle("", 4), Err(SwizzleError::Length(String::new())));
    }
}
