//! Limits on input shape, checked on the text before parsing. The parser,
//! the analysis and the instrumenter recurse over the syntax tree (and
//! glsl-lang drops its trees recursively), so absurdly deep input would
//! overflow the stack; it gets a diagnostic instead. The limits are far above
//! what real shaders use and keep recursion within a few hundred frames
//! (an 8 MiB stack, as a main thread has, is plenty; so is 2 MiB in release).
//!
//! Also rejected here: token pastes (`##`) that glsl-lang-pp 0.8.1 would loop
//! on forever (one at the end of a `#define`, or before something that is not
//! a token).

use crate::diagnostics::{Diagnostic, Span};

/// Brackets (`(`, `[`, `{`) open at once.
pub const MAX_NESTING: usize = 128;
/// Operators chained at one bracket level of one statement (`a + b + c ...`).
pub const MAX_CHAIN: usize = 512;
/// `if`/`for`/`while`/`do`/`else`/`?` in one statement without braces between.
pub const MAX_CONTROL_CHAIN: usize = 128;
/// Tokens [`crate::preprocess`] may make and read expanding one shader's
/// macros (macros that expand to many copies of others grow exponentially).
pub const MAX_MACRO_TOKENS: usize = 1 << 20;
/// Bytes of text [`crate::preprocess`] may write expanding one shader's
/// macros (pastes and `#` included: a paste through `k` macros can double
/// a token's length `k` times).
pub const MAX_MACRO_BYTES: usize = 16 << 20;
/// Macro arguments [`crate::preprocess`] expands within one another.
pub const MAX_MACRO_DEPTH: usize = 64;

/// Checks `text` against the limits.
pub fn check(text: &str) -> Result<(), Diagnostic> {
    let bytes = text.as_bytes();
    let mut i = 0;
    // Operators at each open bracket level of the current statement.
    let mut chains: Vec<usize> = vec![0];
    let mut control = 0usize;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        // Comments.
        if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        if line_start && c == b'#' {
            let end = bytes[i..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(bytes.len(), |n| i + n);
            check_directive(&text[i..end], i)?;
            i = end;
            continue;
        }
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        match c {
            b'(' | b'[' | b'{' => {
                if chains.len() > MAX_NESTING {
                    return Err(Diagnostic::error(
                        Span::new(i, 1),
                        format!("brackets nested deeper than {MAX_NESTING} levels"),
                    ));
                }
                chains.push(0);
                if c == b'{' {
                    control = 0;
                }
            }
            b')' | b']' | b'}' => {
                if chains.len() > 1 {
                    chains.pop();
                }
                if c == b'}' {
                    control = 0;
                }
            }
            b';' | b',' => {
                if let Some(n) = chains.last_mut() {
                    *n = 0;
                }
                if c == b';' {
                    control = 0;
                }
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'&' | b'|' | b'^' | b'=' | b'?' => {
                if c == b'?' {
                    control += 1;
                }
                let n = chains.last_mut().expect("never empty");
                *n += 1;
                if *n > MAX_CHAIN {
                    return Err(Diagnostic::error(
                        Span::new(i, 1),
                        format!("more than {MAX_CHAIN} operators chained in one expression"),
                    ));
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                if matches!(&text[start..i], "if" | "for" | "while" | "do" | "else") {
                    control += 1;
                    if control > MAX_CONTROL_CHAIN {
                        return Err(Diagnostic::error(
                            Span::new(start, i - start),
                            format!(
                                "more than {MAX_CONTROL_CHAIN} nested statements without braces"
                            ),
                        ));
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn check_directive(line: &str, at: usize) -> Result<(), Diagnostic> {
    let body = line.trim_start_matches('#').trim_start();
    if !body.starts_with("define") {
        return Ok(());
    }
    for (k, _) in line.match_indices("##") {
        let next = line[k + 2..].trim_start().chars().next();
        if !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(Diagnostic::error(
                Span::new(at + k, 2),
                "`##` must be followed by a token to paste",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_code_passes_and_absurd_code_does_not() {
        assert!(check("void main() { float a[3] = float[](-1.0, -2.0, -3.0); if (a[0] > 0.0) { a[1] = a[0] * 2.0 + 1.0; } }").is_ok());
        assert!(check(&"(".repeat(200)).is_err());
        assert!(check(&format!("x = x{};", " + x".repeat(600))).is_err());
        assert!(check(&format!("x = x{};", " + x".repeat(400))).is_ok());
        assert!(check(&format!("{} x = 1;", "if (c)".repeat(200))).is_err());
        assert!(check("// ((((((((((( in a comment\n/* {{{{{{ */ x = 1;").is_ok());
        assert!(check("#define A a ## b\n").is_ok());
        assert!(check("#define A##").is_err());
        assert!(check("#define A ## \"\n").is_err());
    }
}
