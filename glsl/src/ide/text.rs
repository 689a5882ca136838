//! Text-level helpers that work on half-typed code: words, the expression
//! before a `.`, the call around the cursor, folding, comments.

pub fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

pub fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && !b[0].is_ascii_digit() && b.iter().all(|&c| is_ident_byte(c))
}

/// The identifier at (or just before) `offset`: its byte range.
pub fn word_at(text: &str, offset: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let offset = offset.min(b.len());
    let mut start = offset;
    while start > 0 && is_ident_byte(b[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < b.len() && is_ident_byte(b[end]) {
        end += 1;
    }
    if start == end || b[start].is_ascii_digit() {
        return None;
    }
    Some((start, end))
}

/// The start of the identifier prefix that ends at `offset` (for completion).
pub fn prefix_start(text: &str, offset: usize) -> usize {
    let b = text.as_bytes();
    let mut start = offset.min(b.len());
    while start > 0 && is_ident_byte(b[start - 1]) {
        start -= 1;
    }
    start
}

/// The start of the postfix expression that ends right before `end` (the text
/// before a `.`): identifiers, member selections, indexing and calls, e.g.
/// `lights[i].pos` or `foo(1, 2).xy`.
pub fn expr_start_before(text: &str, end: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = end.min(b.len());
    // Skip spaces before the dot.
    while i > 0 && b[i - 1] == b' ' {
        i -= 1;
    }
    loop {
        if i == 0 {
            return None;
        }
        match b[i - 1] {
            b']' | b')' => {
                let (open, close) = if b[i - 1] == b']' {
                    (b'[', b']')
                } else {
                    (b'(', b')')
                };
                let mut depth = 0usize;
                let mut j = i;
                loop {
                    if j == 0 {
                        return None;
                    }
                    j -= 1;
                    if b[j] == close {
                        depth += 1;
                    } else if b[j] == open {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    } else if b[j] == b';' || b[j] == b'{' || b[j] == b'}' {
                        return None;
                    }
                }
                i = j;
                // A call or an index needs something before it; a parenthesised
                // expression may stand alone.
                if open == b'(' && (i == 0 || !is_ident_byte(b[i - 1])) {
                    return Some(i);
                }
            }
            c if is_ident_byte(c) => {
                while i > 0 && is_ident_byte(b[i - 1]) {
                    i -= 1;
                }
                if b[i].is_ascii_digit() {
                    return None;
                }
                if i > 0 && b[i - 1] == b'.' {
                    i -= 1;
                    continue;
                }
                return Some(i);
            }
            _ => return None,
        }
    }
}

/// The call whose argument list holds `offset`: the called name's range and
/// the index of the argument the cursor is in.
pub fn call_at(text: &str, offset: usize) -> Option<((usize, usize), usize)> {
    let b = text.as_bytes();
    let mut i = offset.min(b.len());
    let mut depth = 0i32;
    let mut commas = 0usize;
    let limit = i.saturating_sub(4096);
    while i > limit {
        i -= 1;
        match b[i] {
            b')' | b']' => depth += 1,
            b'(' | b'[' => {
                if depth == 0 {
                    if b[i] == b'[' {
                        return None;
                    }
                    let mut end = i;
                    while end > 0 && b[end - 1] == b' ' {
                        end -= 1;
                    }
                    let (s, e) = word_at(text, end)?;
                    if e != end {
                        return None;
                    }
                    return Some(((s, e), commas));
                }
                depth -= 1;
            }
            b',' if depth == 0 => commas += 1,
            b';' | b'{' | b'}' => return None,
            _ => {}
        }
    }
    None
}

/// Whether `offset` is inside a comment (`//` to the end of the line, or `/* */`).
pub fn in_comment(text: &str, offset: usize) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() && i < offset {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            let e = text[i..].find('\n').map_or(b.len(), |n| i + n);
            if offset > i && offset <= e {
                return true;
            }
            i = e;
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let e = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            if offset > i && (offset < e || (e == b.len() && !text.ends_with("*/"))) {
                return true;
            }
            i = e;
        } else {
            i += 1;
        }
    }
    false
}

/// A region to fold, in byte offsets (start and end lines differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    pub start: usize,
    pub end: usize,
    pub comment: bool,
    pub region: bool,
}

/// Braces, block comments, runs of `//` lines and `#if`..`#endif` regions.
pub fn folds(text: &str) -> Vec<Fold> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut braces: Vec<usize> = Vec::new();
    let mut ifs: Vec<usize> = Vec::new();
    let mut line_comment_run: Option<(usize, usize)> = None;
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let start = i;
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            if line_start {
                line_comment_run = match line_comment_run {
                    Some((s, _)) => Some((s, i)),
                    None => Some((start, i)),
                };
            }
            continue;
        }
        if c == b'\n' {
            // A line without a leading `//` ends a run.
            let next_is_comment = text[i + 1..]
                .trim_start_matches([' ', '\t'])
                .starts_with("//");
            if !next_is_comment {
                if let Some((s, e)) = line_comment_run.take() {
                    out.push(Fold {
                        start: s,
                        end: e,
                        comment: true,
                        region: false,
                    });
                }
            }
            line_start = true;
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let start = i;
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i = (i + 2).min(b.len());
            out.push(Fold {
                start,
                end: i,
                comment: true,
                region: false,
            });
            line_start = false;
            continue;
        }
        if line_start && c == b'#' {
            let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
            let directive = text[i + 1..end].trim_start();
            // `#else`/`#elif` end one region and start the next.
            let closes = directive.starts_with("el") || directive.starts_with("endif");
            if closes {
                if let Some(s) = ifs.pop() {
                    out.push(Fold {
                        start: s,
                        end: i.saturating_sub(1),
                        comment: false,
                        region: true,
                    });
                }
            }
            if directive.starts_with("if") || directive.starts_with("el") {
                ifs.push(i);
            }
            i = end;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        match c {
            b'{' => braces.push(i),
            b'}' => {
                if let Some(s) = braces.pop() {
                    out.push(Fold {
                        start: s,
                        end: i,
                        comment: false,
                        region: false,
                    });
                }
            }
            _ => {}
        }
        i += 1;
    }
    if let Some((s, e)) = line_comment_run {
        out.push(Fold {
            start: s,
            end: e,
            comment: true,
            region: false,
        });
    }
    out.sort_by_key(|f| (f.start, f.end));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_before_a_dot() {
        let t = "x = lights[i + 1].pos.";
        assert_eq!(expr_start_before(t, t.len() - 1), Some(4));
        let t = "c = foo(a, b).";
        assert_eq!(expr_start_before(t, t.len() - 1), Some(4));
        let t = "c = (a + b).";
        assert_eq!(expr_start_before(t, t.len() - 1), Some(4));
        let t = "c = 1.";
        assert_eq!(expr_start_before(t, t.len() - 1), None);
        let t = "c = ;.";
        assert_eq!(expr_start_before(t, t.len() - 1), None);
    }

    #[test]
    fn calls_around_the_cursor() {
        let t = "x = mix(a, foo(b), ";
        let ((s, e), n) = call_at(t, t.len()).unwrap();
        assert_eq!((&t[s..e], n), ("mix", 2));
        let t = "x = mix(a, foo(b";
        let ((s, e), n) = call_at(t, t.len()).unwrap();
        assert_eq!((&t[s..e], n), ("foo", 0));
        assert_eq!(call_at("x = a; y = b", 12), None);
    }

    #[test]
    fn comments() {
        let t = "a // b\nc /* d */ e";
        assert!(!in_comment(t, 1));
        assert!(in_comment(t, 5));
        assert!(in_comment(t, 6));
        assert!(!in_comment(t, 7));
        assert!(in_comment(t, 12));
        assert!(!in_comment(t, t.len()));
    }

    #[test]
    fn folding() {
        let t = "// a\n// b\nvoid f() {\n  x;\n}\n#if A\nx\n#endif\n";
        let f = folds(t);
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(f[0].comment);
        assert_eq!(&t[f[1].start..=f[1].end], "{\n  x;\n}");
        assert!(f[2].region);
    }
}
