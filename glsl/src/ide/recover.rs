//! Error-tolerant parsing for editors: half-typed code still gets a tree.
//!
//! The parser stops at the first syntax error. [`parse_recovering`] blanks
//! the statement around it (spaces, so no offset moves), closes braces left
//! open at the end, and parses again, a few times: every syntax error found
//! on the way is reported, and the last parse (a *recovered* tree) is
//! analysed. Semantic errors about names that only a blanked statement (or a
//! missing include) declared are left out; they are noise.
//!
//! The shader is assembled as an application would pass it: the text up to
//! its `#version` line, a header, the rest of the text (three source
//! strings), `#include`s expanded by the caller's resolver.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::PathBuf;

use crate::analysis::Model;
use crate::parse::{parse_text, IncludeResolver, Parsed, SourceText};
use crate::{Diagnostic, DiagnosticKind, Span, Stage};

use super::sources::{IncludedFile, Place, SourceMap};
use super::text::{is_ident_byte, is_identifier};
use super::{Index, Macros};

/// What to parse, and how.
pub struct Request<'a> {
    /// The shader's own text.
    pub text: &'a str,
    /// Put after the text's `#version` line (first without one).
    pub header: &'a str,
    pub stage: Stage,
    pub resolver: Option<&'a dyn IncludeResolver>,
    /// The header is other files' text (an includer's): its own problems are
    /// not reported.
    pub header_is_context: bool,
    /// The text is a piece meant to be included, read with nothing before
    /// it: struct types it uses without declaring are stood in for, and
    /// errors about names and types declared elsewhere are left out.
    pub piece: bool,
    /// Polled between parse attempts: a newer text makes this one moot.
    pub cancelled: &'a dyn Fn() -> bool,
}

/// Where a diagnostic is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Loc {
    /// In the shader's text (byte range).
    Text(usize, usize),
    /// In an included file (byte range in it), brought in by the text's
    /// `#include` line at `site`, if the text's own line did.
    Include {
        file: IncludedFile,
        start: usize,
        end: usize,
        site: Option<usize>,
    },
    /// In the header.
    Header,
    /// Nowhere in particular.
    Unplaced,
}

/// A diagnostic with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub diagnostic: Diagnostic,
    pub loc: Loc,
}

/// A parsed and analysed shader with what editors ask of it.
pub struct Analysis {
    pub parsed: Parsed,
    pub model: Model,
    pub index: Index,
    /// Offsets of `parsed.source.text` <-> the text, header and includes.
    pub sources: SourceMap,
    /// Some statements were blanked (or braces closed) to get it parsed.
    pub recovered: bool,
    /// `references` of the model sorted by span start.
    pub refs_sorted: Vec<(Span, usize)>,
    /// The span of each declaration's name (the model keeps the whole
    /// declaration for parameters).
    pub decl_names: Vec<Span>,
    /// `#define`s and macro uses in the parsed text.
    pub macros: Macros,
}

impl Analysis {
    pub fn new(parsed: Parsed, sources: SourceMap, recovered: bool) -> Analysis {
        let model = Model::analyze(&parsed);
        let index = Index::build(&parsed);
        let mut refs_sorted = model.references.clone();
        refs_sorted.sort_by_key(|(s, _)| (s.start, s.end));
        let src = &parsed.source.text;
        let decl_names = model
            .decls
            .iter()
            .map(|d| name_span(src, d.span, &d.name))
            .collect();
        let macros = Macros::scan(src);
        Analysis {
            parsed,
            model,
            index,
            sources,
            recovered,
            refs_sorted,
            decl_names,
            macros,
        }
    }

    /// The version and stage built-ins are looked up in.
    pub fn env(&self) -> crate::builtins::BuiltinEnv {
        crate::builtins::BuiltinEnv {
            version: self.parsed.version,
            stage: self.parsed.stage,
            api: self.parsed.api,
        }
    }

    /// The parsed text.
    pub fn src(&self) -> &str {
        &self.parsed.source.text
    }

    /// The parsed text at a span (empty when out of range).
    pub fn src_at(&self, span: Span) -> &str {
        self.src().get(span.start..span.end).unwrap_or("")
    }
}

/// What [`parse_recovering`] found.
#[derive(Default)]
pub struct Recovery {
    /// The last parse, analysed; `None` if nothing parsed (or cancelled).
    pub analysis: Option<Analysis>,
    /// Syntax, include and semantic diagnostics, in the order found.
    pub diagnostics: Vec<Located>,
    /// Ranges of the text that were blanked.
    pub blanked: Vec<(usize, usize)>,
    /// The files it included (names the resolver gave).
    pub includes: Vec<PathBuf>,
    pub cancelled: bool,
}

/// Parses and analyses a shader, repairing syntax errors on the way.
pub fn parse_recovering(req: &Request) -> Recovery {
    let mut out = Recovery::default();
    // Struct names a piece uses without declaring.
    let mut stand_ins: Vec<String> = Vec::new();
    let make_header = |stand_ins: &[String]| -> String {
        let mut h = req.header.to_string();
        for n in stand_ins {
            h.push_str(&format!("struct {n} {{ int _sdbg_stand_in; }};\n"));
        }
        h
    };
    let mut header = make_header(&stand_ins);
    let split = if header.is_empty() {
        0
    } else {
        version_split(req.text)
    };
    let resolver = req.resolver.map(|inner| Recording {
        inner,
        calls: RefCell::new(Vec::new()),
    });
    let calls = || {
        resolver
            .as_ref()
            .map(|r| r.calls.borrow().clone())
            .unwrap_or_default()
    };
    let mut work = req.text.to_string();
    let mut include_failed = false;
    let mut closed_braces = 0usize;
    // A large text gets fewer attempts (each is a whole parse); a piece
    // more (each stand-in is one).
    let attempts = if req.text.len() > 256 << 10 { 4 } else { 12 } + if req.piece { 16 } else { 0 };
    let mut parsed_tree = None;
    for _ in 0..attempts {
        if (req.cancelled)() {
            out.cancelled = true;
            return out;
        }
        if let Some(r) = &resolver {
            r.calls.borrow_mut().clear();
        }
        let strings = [&work[..split], header.as_str(), &work[split..]];
        let source = match SourceText::new(
            &strings,
            resolver.as_ref().map(|r| r as &dyn IncludeResolver),
        ) {
            Ok(s) => s,
            Err(d) => {
                // Which of the text's own `#include` lines led there: the
                // last one the resolver was asked about from the text.
                include_failed = true;
                let calls = calls();
                let top: Vec<&String> = calls
                    .iter()
                    .filter(|(_, top, _)| *top)
                    .map(|(p, _, _)| p)
                    .collect();
                let lines = include_lines(&work);
                let site = top.last().and_then(|last| {
                    let nth = top.iter().filter(|p| p == &last).count() - 1;
                    lines.iter().filter(|(_, _, p)| p == *last).nth(nth)
                });
                let diagnostic = d;
                match site {
                    Some(&(s, e, _)) => {
                        out.diagnostics.push(Located {
                            diagnostic,
                            loc: Loc::Text(s, e),
                        });
                        blank(&mut work, (s, e));
                        out.blanked.push((s, e));
                        continue;
                    }
                    None => {
                        out.diagnostics.push(Located {
                            diagnostic,
                            loc: Loc::Unplaced,
                        });
                        break;
                    }
                }
            }
        };
        let calls = calls();
        for (_, _, p) in &calls {
            if let Some(p) = p {
                if !out.includes.contains(p) {
                    out.includes.push(p.clone());
                }
            }
        }
        let sites = include_sites(&calls, &work, split, &header);
        let map = SourceMap::new(&source, split, &sites);
        match parse_text(source, req.stage) {
            Ok(parsed) => {
                parsed_tree = Some((parsed, map));
                break;
            }
            Err(d) => {
                let place = map.place(d.span.start);
                if let (true, Some(Place::Text(at))) = (req.piece, place) {
                    match unknown_type_name(&work, at) {
                        Some(n) if stand_ins.len() < 16 && !stand_ins.contains(&n) => {
                            stand_ins.push(n);
                            header = make_header(&stand_ins);
                            continue;
                        }
                        _ => {}
                    }
                }
                // Before glsl-lang's own errors, the input-shape limits:
                // both say the text is not (yet) GLSL.
                let d = d.with_kind(DiagnosticKind::Syntax);
                let located = locate(&map, d);
                if !out.diagnostics.contains(&located) {
                    out.diagnostics.push(located);
                }
                let Some(Place::Text(at)) = place else { break };
                let at_end = work[at.min(work.len())..].trim().is_empty();
                let open = open_braces(&work);
                if at_end && open > 0 && closed_braces < 64 {
                    work.push_str(&"\n}".repeat(open as usize));
                    closed_braces += open as usize;
                    continue;
                }
                match blank_range(&work, at) {
                    Some(r) => {
                        blank(&mut work, r);
                        out.blanked.push(r);
                    }
                    None => break,
                }
            }
        }
    }
    let Some((parsed, map)) = parsed_tree else {
        return out;
    };
    if (req.cancelled)() {
        out.cancelled = true;
        return out;
    }
    let recovered = !out.blanked.is_empty() || closed_braces > 0;
    let analysis = Analysis::new(parsed, map, recovered);
    // Names that only blanked text mentioned: errors about them are noise.
    let mut blanked_words: HashSet<&str> = HashSet::new();
    for &(s, e) in &out.blanked {
        for w in req.text[s..e].split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
            if !w.is_empty() {
                blanked_words.insert(w);
            }
        }
    }
    for d in &analysis.model.diagnostics {
        let place = analysis.sources.place(d.span.start);
        let in_text = matches!(place, Some(Place::Text(_)));
        let in_header = matches!(place, Some(Place::Header(_)));
        if (req.header_is_context || req.piece) && in_header {
            // Someone else's text (an includer's, or what a piece is read after).
            continue;
        }
        let undeclared = match &d.kind {
            DiagnosticKind::Undeclared(name) => Some(name.as_str()),
            _ => None,
        };
        let about_stand_in = match &d.kind {
            DiagnosticKind::Types(types) => types.iter().any(|t| stand_ins.contains(t)),
            _ => false,
        };
        if req.piece && (undeclared.is_some() || about_stand_in) {
            continue;
        }
        // A name a missing include would have declared, or that only a
        // blanked statement declared.
        if let Some(name) = undeclared {
            if (include_failed && in_text) || blanked_words.contains(name) {
                continue;
            }
        }
        let located = locate(&analysis.sources, d.clone());
        if !out.diagnostics.contains(&located) {
            out.diagnostics.push(located);
        }
    }
    out.analysis = Some(analysis);
    out
}

/// Where a diagnostic of a parse is.
fn locate(map: &SourceMap, diagnostic: Diagnostic) -> Located {
    let span = diagnostic.span;
    let loc = match map.span_place(span) {
        Some((Place::Text(s), e)) => Loc::Text(s, e.max(s)),
        Some((Place::Include(f, s), e)) => match map.files.get(f) {
            Some(file) => Loc::Include {
                file: file.clone(),
                start: s,
                end: e.max(s),
                site: map.include_site(span.start),
            },
            None => Loc::Unplaced,
        },
        Some((Place::Header(_), _)) | None => Loc::Header,
    };
    Located { diagnostic, loc }
}

/// An include resolver that remembers what it was asked.
struct Recording<'a> {
    inner: &'a dyn IncludeResolver,
    /// Every call: (path as written, asked from a source string, the name
    /// it resolved to).
    calls: RefCell<Vec<(String, bool, Option<PathBuf>)>>,
}

impl IncludeResolver for Recording<'_> {
    fn resolve(
        &self,
        path: &str,
        includer: Option<&str>,
    ) -> Result<(String, String), crate::parse::IncludeError> {
        let result = self.inner.resolve(path, includer);
        self.record(path, includer, &result);
        result
    }

    fn resolve_system(
        &self,
        path: &str,
        includer: Option<&str>,
    ) -> Result<(String, String), crate::parse::IncludeError> {
        let result = self.inner.resolve_system(path, includer);
        self.record(path, includer, &result);
        result
    }
}

impl Recording<'_> {
    fn record(
        &self,
        path: &str,
        includer: Option<&str>,
        result: &Result<(String, String), crate::parse::IncludeError>,
    ) {
        self.calls.borrow_mut().push((
            path.to_string(),
            includer.is_none(),
            result.as_ref().ok().map(|(n, _)| PathBuf::from(n)),
        ));
    }
}

/// Which of the text's `#include` lines brought each file in: the resolver
/// is asked in the order the files are expanded (depth first), and asked
/// from a source string for the text's (and the header's) own directives.
fn include_sites(
    calls: &[(String, bool, Option<PathBuf>)],
    work: &str,
    split: usize,
    header: &str,
) -> Vec<Option<usize>> {
    let pre = include_lines(&work[..split]).len();
    let in_header = include_lines(header).len();
    let own = include_lines(work);
    let mut ordinal: Option<usize> = None;
    let mut sites = Vec::new();
    for (_, top, _) in calls {
        if *top {
            ordinal = Some(ordinal.map_or(0, |o| o + 1));
        }
        let site = ordinal.and_then(|o| {
            if o < pre {
                own.get(o).map(|l| l.0)
            } else if o < pre + in_header {
                None
            } else {
                own.get(o - in_header).map(|l| l.0)
            }
        });
        sites.push(site);
    }
    sites
}

/// The `#include` lines of a text: (line start, line end, path as written).
pub fn include_lines(text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('#') {
            if let Some(arg) = rest.trim_start().strip_prefix("include") {
                let arg = arg.split("//").next().unwrap_or(arg).trim();
                let inner = arg
                    .strip_prefix('"')
                    .and_then(|a| a.strip_suffix('"'))
                    .or_else(|| arg.strip_prefix('<').and_then(|a| a.strip_suffix('>')));
                if let Some(p) = inner {
                    out.push((off, off + line.trim_end().len(), p.to_string()));
                }
            }
        }
        off += line.len();
    }
    out
}

/// Whether a text has a `#version` directive.
pub fn has_version(text: &str) -> bool {
    text.lines().any(|l| {
        l.trim_start()
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with("version"))
    })
}

/// Whether a text defines `main` (a whole shader rather than a piece).
pub fn defines_main(text: &str) -> bool {
    text.match_indices("main").any(|(i, _)| {
        let b = text.as_bytes();
        let before = i == 0 || !is_ident_byte(b[i - 1]);
        let after = text[i + 4..].trim_start().starts_with('(');
        before && after
    })
}

/// Where `#version` ends (the start of the line after it), if the text has
/// one before anything else; 0 otherwise.
pub fn version_split(text: &str) -> usize {
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") {
            off += line.len();
            continue;
        }
        let is_version = t
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with("version"));
        return if is_version { off + line.len() } else { 0 };
    }
    0
}

/// The span of `name` within `span` (the last occurrence as a whole word).
fn name_span(src: &str, span: Span, name: &str) -> Span {
    let Some(s) = src.get(span.start..span.end.min(src.len())) else {
        return span;
    };
    if s == name {
        return span;
    }
    let b = s.as_bytes();
    for (i, _) in s.rmatch_indices(name) {
        let before_ok = i == 0 || !is_ident_byte(b[i - 1]);
        let after = i + name.len();
        let after_ok = after >= b.len() || !is_ident_byte(b[after]);
        if before_ok && after_ok {
            return Span::new(span.start + i, name.len());
        }
    }
    span
}

/// Where to blank around a syntax error at `e` of `work`: the statement (from
/// after the previous `;`, `{` or `}` to the next `;`, or before the next
/// brace), not crossing preprocessor lines.
fn blank_range(work: &str, e: usize) -> Option<(usize, usize)> {
    let b = work.as_bytes();
    let e = e.min(b.len());
    let line_is_directive = |at: usize| {
        let ls = work[..at].rfind('\n').map_or(0, |i| i + 1);
        work[ls..].trim_start().starts_with('#')
    };
    let mut start = e;
    while start > 0 {
        let c = b[start - 1];
        if c == b';' || c == b'{' || c == b'}' {
            break;
        }
        if c == b'\n' && line_is_directive(start - 1) {
            break;
        }
        start -= 1;
    }
    let mut end = e;
    while end < b.len() {
        let c = b[end];
        if c == b';' {
            end += 1;
            break;
        }
        if c == b'{' || c == b'}' {
            break;
        }
        if c == b'\n' && end + 1 < b.len() && work[end + 1..].trim_start().starts_with('#') {
            break;
        }
        end += 1;
    }
    if work[start..end].trim().is_empty() {
        // Nothing but a stray brace (or nothing at all) there: blank the
        // character at the error itself.
        if e < b.len() && matches!(b[e], b'{' | b'}' | b')' | b']' | b'(' | b'[' | b',') {
            return Some((e, e + 1));
        }
        return None;
    }
    Some((start, end))
}

/// Replaces a range with spaces (newlines kept, so no offset or line moves).
fn blank(work: &mut String, (s, e): (usize, usize)) {
    let replaced: String = work[s..e]
        .chars()
        .map(|c| {
            if c == '\n' {
                "\n".to_string()
            } else {
                " ".repeat(c.len_utf8())
            }
        })
        .collect();
    work.replace_range(s..e, &replaced);
}

/// `{` minus `}` outside comments.
fn open_braces(text: &str) -> i64 {
    let b = text.as_bytes();
    let mut depth = 0i64;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        match b[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    depth
}

/// Words that cannot name a struct: keywords of any version and built-in
/// type names.
pub fn is_reserved_word(w: &str) -> bool {
    let latest = crate::Version {
        number: 460,
        profile: crate::Profile::Compatibility,
    };
    RESERVED.contains(&w)
        || super::keywords(latest).contains(&w)
        || crate::types::parse_type_name(w).is_some()
}

/// Keywords and qualifiers of every GLSL version.
const RESERVED: &[&str] = &[
    "attribute",
    "const",
    "uniform",
    "varying",
    "buffer",
    "shared",
    "coherent",
    "volatile",
    "restrict",
    "readonly",
    "writeonly",
    "layout",
    "centroid",
    "flat",
    "smooth",
    "noperspective",
    "patch",
    "sample",
    "break",
    "continue",
    "do",
    "for",
    "while",
    "switch",
    "case",
    "default",
    "if",
    "else",
    "subroutine",
    "in",
    "out",
    "inout",
    "true",
    "false",
    "invariant",
    "precise",
    "discard",
    "return",
    "struct",
    "void",
    "lowp",
    "mediump",
    "highp",
    "precision",
];

/// The type a syntax error at `at` (an offset of `text`) suggests is a
/// struct declared elsewhere: the identifier there at a type's place
/// (`X name`), or the one before it (`Light l;` fails at `l`).
fn unknown_type_name(text: &str, at: usize) -> Option<String> {
    let at = at.min(text.len());
    let word_end = text[at..]
        .bytes()
        .position(|b| !is_ident_byte(b))
        .map_or(text.len(), |n| at + n);
    let name = &text[at..word_end];
    if !is_identifier(name) || is_reserved_word(name) {
        return None;
    }
    let after = &text[word_end..];
    let next_is_ident = after
        .trim_start()
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    if next_is_ident && after.starts_with(char::is_whitespace) {
        return Some(name.to_string());
    }
    let before = text[..at].trim_end();
    let start = before
        .rfind(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .map_or(0, |i| i + 1);
    let prev = &before[start..];
    (is_identifier(prev) && !is_reserved_word(prev) && before.len() < at).then(|| prev.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, piece: bool) -> Recovery {
        parse_recovering(&Request {
            text,
            header: if piece {
                "#version 460 compatibility\n"
            } else {
                ""
            },
            stage: Stage::Fragment,
            resolver: None,
            header_is_context: false,
            piece,
            cancelled: &|| false,
        })
    }

    fn show(text: &str, r: &Recovery) -> String {
        r.diagnostics
            .iter()
            .map(|d| match d.loc {
                Loc::Text(s, e) => format!("{s}..{e} `{}`: {}", &text[s..e], d.diagnostic.message),
                ref other => format!("{other:?}: {}", d.diagnostic.message),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn several_syntax_errors_and_a_tree() {
        let text = "#version 330 core\nout vec4 o;\nvoid main() {\n  float a = ;\n  vec3 b = vec3(1.0);\n  float c = b.x +;\n  o = vec4(b, a);\n  o = vec4(undefinedThing);\n}\n";
        let r = run(text, false);
        let a = r.analysis.as_ref().expect("a tree");
        assert!(a.recovered);
        expect_test::expect![[r#"
            56..57 `;`: unexpected `;`, expected an expression
            97..98 `;`: unexpected `;`, expected an expression
            128..142 `undefinedThing`: undeclared identifier `undefinedThing`"#]]
        .assert_eq(&show(text, &r));
        // `a` and `c` were declared by blanked statements: no errors about them.
        assert_eq!(r.blanked.len(), 2);
    }

    #[test]
    fn unclosed_braces_are_closed() {
        let text = "void main() {\n  float a = 1.0;\n  if (a > 0.0) {\n    a = 2.0;\n";
        let r = run(text, false);
        assert_eq!(r.diagnostics.len(), 1, "{}", show(text, &r));
        assert!(r.analysis.is_some());
    }

    #[test]
    fn a_piece_gets_stand_ins_for_struct_types() {
        let text = "float shade(Light l, vec3 p) {\n    return gain * l.radius;\n}\n";
        let r = run(text, true);
        assert_eq!(show(text, &r), "");
        assert!(r.analysis.is_some());
    }
}
