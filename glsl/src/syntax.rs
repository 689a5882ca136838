//! Small facts about GLSL syntax that the analysis and the session's
//! expression evaluator both need: operator symbols, swizzles, the spelling
//! of a built-in type specifier.

use glsl_lang::ast;

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
    s.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
