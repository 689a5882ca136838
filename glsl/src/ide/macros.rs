//! Macros as an editor sees them: every `#define` (name, parameters, body)
//! and every place a defined macro's name is used (in code, in `#ifdef`/
//! `#ifndef`/`#undef`/`#if defined(...)`, in other macros' bodies).
//!
//! The preprocessor expands macros before the parser sees anything, so the
//! syntax tree only knows the spans of macro *uses* (every node a use
//! produces carries the use's span); this scan supplies the rest, from the
//! text, without running the preprocessor. It follows comments and line
//! continuations, not conditional compilation: a macro defined in an inactive
//! `#if` branch is listed like any other.

use crate::diagnostics::Span;

/// A `#define`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroDef {
    pub name: String,
    pub name_span: Span,
    /// Parameters of a function-like macro (`None` for an object-like one).
    pub params: Option<Vec<String>>,
    /// The replacement text as written (continuations included, trimmed).
    pub body: String,
    pub body_span: Span,
    /// The whole directive.
    pub span: Span,
}

/// A use of a macro name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroUse {
    pub name: String,
    pub span: Span,
    /// The definition it refers to (an index into [`Macros::defs`]): the last
    /// one before it, else the first after it (`#ifndef GUARD` before
    /// `#define GUARD`). `None` for a name never defined in the text.
    pub def: Option<usize>,
    /// In a preprocessor directive (`#ifdef`, `#undef`, a macro body...).
    pub in_directive: bool,
}

/// Every definition and use of macros in a text.
#[derive(Clone, Debug, Default)]
pub struct Macros {
    pub defs: Vec<MacroDef>,
    pub uses: Vec<MacroUse>,
}

/// Macros the GLSL preprocessor defines itself.
pub fn is_builtin_macro(name: &str) -> bool {
    matches!(
        name,
        "__LINE__" | "__FILE__" | "__VERSION__" | "GL_ES" | "GL_core_profile"
    ) || name == "GL_compatibility_profile"
        || name.starts_with("GL_") && name[3..].contains('_')
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// One logical line: its byte range (continuations joined) and whether it is
/// a directive (`#` first).
struct Line {
    start: usize,
    end: usize,
    directive: bool,
}

/// Splits into logical lines (a `\` before the newline continues the line)
/// and blanks comments out of a copy (so spans stay put).
fn lines_and_code(text: &str) -> (Vec<Line>, Vec<u8>) {
    let b = text.as_bytes();
    let mut code = b.to_vec();
    // Comments -> spaces (newlines kept).
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                // A continued line comment goes on after `\`-newline.
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    code[i] = b' ';
                    i += 2;
                    continue;
                }
                code[i] = b' ';
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] != b'\n' {
                    code[i] = b' ';
                }
                i += 1;
            }
            for _ in 0..2 {
                if i < b.len() {
                    code[i] = b' ';
                    i += 1;
                }
            }
        } else {
            i += 1;
        }
    }
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i <= code.len() {
        let at_end = i == code.len();
        if at_end || code[i] == b'\n' {
            let continued = !at_end && i > 0 && code[i - 1] == b'\\'
                || !at_end && i > 1 && code[i - 1] == b'\r' && code[i - 2] == b'\\';
            if !continued {
                let first = code[start..i].iter().position(|c| !c.is_ascii_whitespace());
                lines.push(Line {
                    start,
                    end: i,
                    directive: first.is_some_and(|f| code[start + f] == b'#'),
                });
                start = i + 1;
            }
        }
        i += 1;
    }
    (lines, code)
}

/// Identifiers in `code[s..e]`: (start, end).
fn idents(code: &[u8], s: usize, e: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = s;
    while i < e {
        if is_ident_start(code[i]) && (i == 0 || !is_ident(code[i - 1])) {
            let st = i;
            while i < e && is_ident(code[i]) {
                i += 1;
            }
            out.push((st, i));
        } else if code[i].is_ascii_digit() {
            // A number (with suffixes like `1.0f`, `0x1Fu`): not a name.
            while i < e && (is_ident(code[i]) || code[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

impl Macros {
    /// Scans a text (the engine's assembled text, or one file).
    pub fn scan(text: &str) -> Macros {
        let (lines, code) = lines_and_code(text);
        let word = |(s, e): (usize, usize)| &text[s..e];
        let mut out = Macros::default();
        // Definitions first (uses may come before: include guards).
        for l in lines.iter().filter(|l| l.directive) {
            let ids = idents(&code, l.start, l.end);
            if ids.first().map(|&i| word(i)) != Some("define") {
                continue;
            }
            let Some(&(ns, ne)) = ids.get(1) else {
                continue;
            };
            let mut body_start = ne;
            let params = if code.get(ne) == Some(&b'(') {
                let close = code[ne..l.end]
                    .iter()
                    .position(|&c| c == b')')
                    .map_or(l.end, |p| ne + p);
                body_start = (close + 1).min(l.end);
                Some(
                    idents(&code, ne, close)
                        .into_iter()
                        .map(|i| word(i).to_string())
                        .collect(),
                )
            } else {
                None
            };
            // The body without comments (blanked in `code`).
            let raw = std::str::from_utf8(&code[body_start..l.end]).unwrap_or("");
            let lead = raw.len() - raw.trim_start().len();
            let body = raw.trim();
            out.defs.push(MacroDef {
                name: word((ns, ne)).to_string(),
                name_span: Span::new(ns, ne - ns),
                params,
                body: body.to_string(),
                body_span: Span::new(body_start + lead, body.len()),
                span: Span::new(l.start, l.end - l.start),
            });
        }
        if out.defs.is_empty() {
            return out;
        }
        let mut names: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        for (i, d) in out.defs.iter().enumerate() {
            names.entry(d.name.as_str()).or_default().push(i);
        }
        let resolve = |name: &str, at: usize| -> Option<usize> {
            let defs = names.get(name)?;
            defs.iter()
                .rev()
                .find(|&&d| out.defs[d].name_span.start <= at)
                .or(defs.first())
                .copied()
        };
        let mut uses = Vec::new();
        for l in &lines {
            let ids = idents(&code, l.start, l.end);
            let mut skip = 0;
            if l.directive {
                let directive = ids.first().map(|&i| word(i)).unwrap_or("");
                match directive {
                    "ifdef" | "ifndef" | "undef" | "if" | "elif" => skip = 1,
                    "define" => {
                        // The body, less the macro's own parameters.
                        skip = 2;
                    }
                    _ => continue,
                }
            }
            let params: Option<&Vec<String>> = if l.directive && skip == 2 {
                out.defs
                    .iter()
                    .find(|d| d.span.start == l.start)
                    .and_then(|d| d.params.as_ref())
            } else {
                None
            };
            for &(s, e) in ids.iter().skip(skip) {
                let name = word((s, e));
                if params.is_some_and(|p| p.iter().any(|p| p == name)) {
                    continue;
                }
                let Some(def) = resolve(name, s) else {
                    continue;
                };
                // A function-like macro is only used when called.
                if !l.directive && out.defs[def].params.is_some() {
                    let next = code[e..].iter().find(|c| !c.is_ascii_whitespace());
                    if next != Some(&b'(') {
                        continue;
                    }
                }
                uses.push(MacroUse {
                    name: name.to_string(),
                    span: Span::new(s, e - s),
                    def: Some(def),
                    in_directive: l.directive,
                });
            }
        }
        out.uses = uses;
        out
    }

    /// The definition whose name, or the use, is at `offset`.
    pub fn at(&self, offset: usize) -> Option<(usize, Span)> {
        let inside = |s: Span| s.start <= offset && offset <= s.end;
        if let Some(d) = self.defs.iter().position(|d| inside(d.name_span)) {
            return Some((d, self.defs[d].name_span));
        }
        self.uses
            .iter()
            .find(|u| inside(u.span))
            .and_then(|u| Some((u.def?, u.span)))
    }

    /// The macro use starting where `span` does (nodes a use produces carry the
    /// span of the use: the name, or the whole invocation `F(x)`).
    pub fn use_at(&self, span: Span) -> Option<&MacroUse> {
        let k = self.uses.partition_point(|u| u.span.start < span.start);
        self.uses.get(k).filter(|u| u.span.start == span.start)
    }

    /// Every span naming definition `def`'s macro (its `#define` name and its
    /// uses), in text order.
    pub fn occurrences(&self, def: usize) -> Vec<Span> {
        let name = &self.defs[def].name;
        let mut out: Vec<Span> = self
            .defs
            .iter()
            .filter(|d| &d.name == name)
            .map(|d| d.name_span)
            .chain(self.uses.iter().filter(|u| &u.name == name).map(|u| u.span))
            .collect();
        out.sort_by_key(|s| s.start);
        out
    }

    /// Spans of `word` as a whole identifier in the body of `def` (not a
    /// parameter): where a name a macro produces is written.
    pub fn in_body(&self, text: &str, def: usize, word: &str) -> Vec<Span> {
        let d = &self.defs[def];
        if d.params
            .as_ref()
            .is_some_and(|p| p.iter().any(|p| p == word))
        {
            return Vec::new();
        }
        let (s, e) = (d.body_span.start, d.body_span.end.min(text.len()));
        idents(text.as_bytes(), s, e)
            .into_iter()
            .filter(|&(a, b)| &text[a..b] == word)
            .map(|(a, b)| Span::new(a, b - a))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_and_uses() {
        let text = "#ifndef GUARD\n#define GUARD\n#define SCALE 2.0 // c\n#define MUL(a, b) ((a) * (b) * SCALE)\n/* SCALE */\nfloat f(float x) { return MUL(x, SCALE) + MUL; }\n#undef SCALE\n#endif\n";
        let m = Macros::scan(text);
        let names: Vec<(&str, &str, Option<usize>)> = m
            .defs
            .iter()
            .map(|d| {
                (
                    d.name.as_str(),
                    d.body.as_str(),
                    d.params.as_ref().map(Vec::len),
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("GUARD", "", None),
                ("SCALE", "2.0", None),
                ("MUL", "((a) * (b) * SCALE)", Some(2))
            ]
        );
        let uses: Vec<(&str, usize)> = m
            .uses
            .iter()
            .map(|u| (u.name.as_str(), u.span.start))
            .collect();
        let at = |needle: &str, nth: usize| text.match_indices(needle).nth(nth).unwrap().0;
        assert_eq!(
            uses,
            [
                ("GUARD", at("GUARD", 0)),
                ("SCALE", at("SCALE", 1)),
                ("MUL", at("MUL(x", 0)),
                ("SCALE", at("SCALE", 3)),
                ("SCALE", at("SCALE", 4)),
            ]
        );
        assert_eq!(m.occurrences(1).len(), 4);
        assert_eq!(m.in_body(text, 2, "SCALE").len(), 1);
        assert_eq!(m.in_body(text, 2, "a").len(), 0);
        assert_eq!(m.at(at("SCALE", 3) + 1).map(|(d, _)| d), Some(1));
        let cont = Macros::scan("#define LONG a + \\\n   b\nLONG;\n");
        assert_eq!(cont.defs[0].body, "a + \\\n   b");
        assert_eq!(cont.uses.len(), 1);
    }
}
