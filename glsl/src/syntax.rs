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
