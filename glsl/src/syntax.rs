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

/// glsl-lang lists every token it would have accepted (dozens of texture
/// types after a `=`); say what was found and keep the list only when short.
/// glsl-lang 0.8 exposes its typed error kinds only through `lang-util`,
/// which it does not re-export, so this reads its wording: the one place
/// that does.
pub fn tidy_syntax_message(msg: &str) -> String {
    const MAX: usize = 6;
    let count = |list: &str| list.split(", ").count() + list.matches(" or ").count();
    if let Some(rest) = msg.strip_prefix("expected one of ") {
        if let Some((list, got)) = rest.rsplit_once(", got ") {
            return if count(list) <= MAX {
                format!("unexpected {got}, expected one of {list}")
            } else {
                format!("unexpected {got}")
            };
        }
    }
    if let Some((head, list)) = msg.split_once(", expected ") {
        if count(list) > MAX {
            let what = if list.contains("literal") || list.contains("identifier") {
                "an expression"
            } else {
                "something else"
            };
            return format!("{head}, expected {what}");
        }
    }
    msg.to_string()
}

/// A parse error of a one-line expression (a breakpoint condition, a watch)
/// as a person reads it: `column 7: unexpected `)`, expected an expression`
/// instead of glsl-lang's `0:1:7: ...` with every token it would have taken.
pub fn expression_error_message(raw: &str) -> String {
    let mut parts = raw.splitn(4, ':');
    let place = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(_), Some(line), Some(col), Some(rest)) => line
            .trim()
            .parse::<u32>()
            .ok()
            .zip(col.trim().parse::<u32>().ok())
            .map(|(l, c)| (l, c, rest.trim())),
        _ => None,
    };
    // glsl-lang's columns count from 1; the end of the input it reports at
    // the last character, so that one is said in words.
    match place {
        Some((_, _, rest)) if rest.starts_with("unexpected end of input") => {
            format!("incomplete: {}", tidy_syntax_message(rest))
        }
        Some((1, c, rest)) => format!("column {c}: {}", tidy_syntax_message(rest)),
        Some((l, c, rest)) => format!("line {l}, column {c}: {}", tidy_syntax_message(rest)),
        None => tidy_syntax_message(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expression_errors_name_the_column_not_every_token() {
        use glsl_lang::parse::DefaultParse;
        let msg = |text: &str| match ast::Expr::parse(text) {
            Ok(_) => panic!("{text} parses"),
            Err(e) => expression_error_message(&e.to_string()),
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
