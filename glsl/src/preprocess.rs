//! A standard C preprocessor for GLSL (C99 §6.10, which GLSL §3.3 makes
//! normative), for the shaders glsl-lang-pp expands wrongly.
//!
//! glsl-lang-pp 0.8.1 substitutes the arguments of a function-like macro
//! as written, never macro-expanding them first, and rescans an expansion
//! without the tokens that follow it. The two agree but where an argument
//! reaches a `##` (or `#`) through another macro: the indirection idiom
//! `#define PASTE(a, b) PASTE2(a, b)` pastes `PREFIXSUFFIX` there where
//! drivers paste `image1D`. [`expand`] is the standard algorithm (Prosser's,
//! with hide sets): arguments fully expanded before substitution unless an
//! operand of `#`/`##`, placemarkers for empty operands, rescans that read
//! on into the text, conditionals, and the macros GLSL predefines.
//!
//! Its output is text for glsl-lang to parse again (it has no macros left):
//! every line stays on its line (a directive becomes an empty line, an
//! inactive group empty lines, a macro invocation its expansion on the
//! invocation's first line followed by the invocation's line breaks), and
//! [`Expanded`] maps offsets back: exactly in text it copied, to the whole
//! invocation in an expansion (as glsl-lang-pp spans expanded tokens).
//! `#version`, `#extension`, `#pragma` and `#line` stay as written.
//!
//! The work is bounded ([`MAX_MACRO_TOKENS`] tokens made or read,
//! [`MAX_MACRO_BYTES`] bytes written, [`MAX_MACRO_DEPTH`] nested argument
//! expansions), so no input makes it hang or blow up.

use std::collections::HashMap;
use std::rc::Rc;

use crate::limits::{MAX_MACRO_BYTES, MAX_MACRO_DEPTH, MAX_MACRO_TOKENS};

/// Why [`expand`] gave up: an invalid or unsupported construct, or a limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// Where, as a byte offset of the input.
    pub at: usize,
    pub message: String,
    /// A limit of [`crate::limits`] was reached (the input is not wrong,
    /// only too big to expand).
    pub limit: bool,
}

/// What the shader's `#version` makes the predefined macros.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `__VERSION__`.
    pub version: u16,
    /// GLSL ES: `GL_ES` is defined, not `GL_core_profile`.
    pub es: bool,
    /// `GL_compatibility_profile` is defined.
    pub compatibility: bool,
    /// Extension names defined as `1` (what glsl-lang-pp predefines: its
    /// registry's).
    pub extensions: Vec<String>,
}

/// Whether [`expand`] can give another result than glsl-lang-pp on
/// `text`: some `#define` pastes (`##`) or stringizes (`#`).
pub fn wanted(text: &str) -> bool {
    let mut in_define = false;
    for line in text.lines() {
        let body = line.trim_start();
        if !in_define {
            let Some(rest) = body.strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("define") else {
                continue;
            };
            if rest.contains('#') {
                return true;
            }
        } else if body.contains('#') {
            return true;
        }
        in_define = line.trim_end().ends_with('\\');
    }
    false
}

/// Whether expanding `text`'s macros may make more than
/// [`MAX_MACRO_TOKENS`] tokens: then [`expand`], which stops at that
/// limit, must expand it rather than glsl-lang-pp, which has none (a
/// chain of macros each naming the next twice makes 2^n tokens; at 2^26
/// it exhausts memory inside the debugged program).
///
/// The count is of the expansion's shape, not its tokens: each macro's
/// size once (object-like), or once per list of argument sizes
/// (function-like), so it costs about the text's own length. It follows
/// invocations in the text and in bodies, but not a function-like macro
/// whose `(` comes from after its invocation's expansion, nor
/// conditionals (every `#define` counts, the last one of a name wins).
pub fn may_exceed_limits(text: &str) -> bool {
    if !text.contains("define") {
        return false;
    }
    let mut est = Estimate::default();
    let mut code: Vec<&str> = Vec::new();
    let lexemes = lex(text);
    for line in lexemes.split(|l| l.kind == Kind::Newline) {
        let toks: Vec<&Lexeme> = line.iter().filter(|l| l.kind != Kind::Space).collect();
        let word = |i: usize| toks.get(i).map(|l| &text[l.start..l.end]);
        if word(0) != Some("#") {
            code.extend(toks.iter().map(|l| &text[l.start..l.end]));
            continue;
        }
        if word(1) != Some("define") {
            continue;
        }
        let Some(name) = word(2) else { continue };
        let function = toks
            .get(3)
            .is_some_and(|p| word(3) == Some("(") && p.start == toks[2].end);
        let (params, body_at) = if function {
            let close = (4..toks.len()).find(|&i| word(i) == Some(")"));
            let Some(close) = close else { continue };
            let params = (4..close).filter_map(word).filter(|w| *w != ",").collect();
            (Some(params), close + 1)
        } else {
            (None, 3)
        };
        let body = (body_at..toks.len()).filter_map(word).collect();
        est.defs.insert(name, Rc::new(Def { params, body }));
    }
    est.size(&code, &[]) > MAX_MACRO_TOKENS as u64
}

struct Def<'t> {
    params: Option<Vec<&'t str>>,
    body: Vec<&'t str>,
}

/// [`may_exceed_limits`]'s count: sizes of macros, memoized; the macros
/// being counted (not expanded again inside themselves, as hide sets
/// do); the tokens visited, against a cap of the text's length.
#[derive(Default)]
struct Estimate<'t> {
    defs: HashMap<&'t str, Rc<Def<'t>>>,
    objects: HashMap<&'t str, u64>,
    calls: HashMap<(&'t str, Vec<u64>), u64>,
    active: Vec<&'t str>,
    visited: usize,
}

impl<'t> Estimate<'t> {
    /// The tokens `toks` make, parameters standing for `env`'s sizes;
    /// past the limit, anything past it (saturated).
    fn size(&mut self, toks: &[&'t str], env: &[(&'t str, u64)]) -> u64 {
        const PAST: u64 = MAX_MACRO_TOKENS as u64 + 1;
        let mut total = 0u64;
        let mut i = 0;
        while i < toks.len() && total < PAST {
            self.visited += 1;
            if self.visited > MAX_MACRO_TOKENS {
                return PAST;
            }
            let t = toks[i];
            i += 1;
            if let Some(&(_, n)) = env.iter().find(|(p, _)| *p == t) {
                total = total.saturating_add(n);
                continue;
            }
            if self.active.contains(&t) {
                total += 1;
                continue;
            }
            let Some(def) = self.defs.get(t).cloned() else {
                total += 1;
                continue;
            };
            let Some(params) = &def.params else {
                let n = match self.objects.get(t) {
                    Some(&n) => n,
                    None => {
                        self.active.push(t);
                        let n = self.size(&def.body, &[]);
                        self.active.pop();
                        self.objects.insert(t, n);
                        n
                    }
                };
                total = total.saturating_add(n);
                continue;
            };
            if toks.get(i) != Some(&"(") {
                total += 1;
                continue;
            }
            // The arguments, split at the commas outside parentheses.
            let mut args: Vec<&[&'t str]> = Vec::new();
            let (mut depth, mut from, mut j) = (0usize, i + 1, i + 1);
            while j < toks.len() {
                match toks[j] {
                    "(" => depth += 1,
                    ")" if depth == 0 => break,
                    ")" => depth -= 1,
                    "," if depth == 0 => {
                        args.push(&toks[from..j]);
                        from = j + 1;
                    }
                    _ => {}
                }
                j += 1;
            }
            args.push(&toks[from..j.min(toks.len())]);
            i = j + 1;
            let sizes: Vec<u64> = args.iter().map(|a| self.size(a, env)).collect();
            let key = (t, sizes);
            let n = match self.calls.get(&key) {
                Some(&n) => n,
                None => {
                    let bound: Vec<(&'t str, u64)> =
                        params.iter().copied().zip(key.1.iter().copied()).collect();
                    self.active.push(t);
                    let n = self.size(&def.body, &bound);
                    self.active.pop();
                    self.calls.insert(key, n);
                    n
                }
            };
            total = total.saturating_add(n);
        }
        total.min(PAST)
    }
}

/// The expanded text and the means to map its offsets to the input's.
#[derive(Clone, Debug)]
pub struct Expanded {
    pub text: String,
    segs: Vec<Seg>,
}

/// A run of the output: copied from the input (`identity`), or made in
/// place of `orig..orig_end` (an expansion, a blanked directive).
#[derive(Clone, Copy, Debug)]
struct Seg {
    exp: usize,
    orig: usize,
    orig_end: usize,
    identity: bool,
}

impl Expanded {
    /// The input offset of output offset `e` taken as where something
    /// starts: itself in copied text, the start of what an expansion
    /// replaced.
    pub fn start(&self, e: usize) -> usize {
        self.map(e, e, false)
    }

    /// The input offset of output offset `e` taken as where something
    /// ends: itself in copied text, the end of what an expansion replaced.
    pub fn end(&self, e: usize) -> usize {
        e.checked_sub(1).map_or(0, |last| self.map(e, last, true))
    }

    /// `e` mapped through the segment holding `within`.
    fn map(&self, e: usize, within: usize, end: bool) -> usize {
        let i = self.segs.partition_point(|s| s.exp <= within);
        match i.checked_sub(1).and_then(|i| self.segs.get(i)) {
            None => 0,
            Some(s) if s.identity => (s.orig + (e - s.exp)).min(s.orig_end),
            Some(s) if end => s.orig_end,
            Some(s) => s.orig,
        }
    }
}

/// Expands every macro of `text` (see the module documentation).
pub fn expand(text: &str, opts: &Options) -> Result<Expanded, Error> {
    let mut pp = Pp::new(text, opts);
    pp.run()?;
    pp.out.identity_to(text, text.len());
    Ok(Expanded {
        text: pp.out.text,
        segs: pp.out.segs,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    Punct,
    Str,
    Other,
    /// Spaces, tabs, comments and line splices.
    Space,
    Newline,
}

#[derive(Clone, Copy, Debug)]
struct Lexeme {
    kind: Kind,
    start: usize,
    end: usize,
}

/// Punctuators of more than one character, longest first.
const PUNCTS: [&str; 23] = [
    "<<=", ">>=", "##", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "^^", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::",
];

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The preprocessing tokens of `text`, with what lies between them.
fn lex(text: &str) -> Vec<Lexeme> {
    let bytes = text.as_bytes();
    let mut out: Vec<Lexeme> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let b = bytes[i];
        let kind = if b == b'\n' {
            i += 1;
            Kind::Newline
        } else if matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c') {
            i += 1;
            Kind::Space
        } else if b == b'\\' && bytes.get(i + 1) == Some(&b'\n') {
            i += 2;
            Kind::Space
        } else if b == b'\\' && bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n')
        {
            i += 3;
            Kind::Space
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            Kind::Space
        } else if text[i..].starts_with("/*") {
            i = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |n| i + 2 + n + 2);
            Kind::Space
        } else if b.is_ascii_alphabetic() || b == b'_' {
            while i < bytes.len() && is_ident_byte(bytes[i]) {
                i += 1;
            }
            Kind::Ident
        } else if b.is_ascii_digit()
            || (b == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < bytes.len() {
                let c = bytes[i];
                let sign =
                    matches!(c, b'+' | b'-') && matches!(bytes[i - 1], b'e' | b'E' | b'p' | b'P');
                if !(is_ident_byte(c) || c == b'.' || sign) {
                    break;
                }
                i += 1;
            }
            Kind::Number
        } else if b == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' && i + 1 < bytes.len() && bytes[i + 1] != b'\n' {
                    2
                } else {
                    1
                };
            }
            if bytes.get(i) == Some(&b'"') {
                i += 1;
            }
            Kind::Str
        } else if let Some(p) = PUNCTS.iter().find(|p| text[i..].starts_with(**p)) {
            i += p.len();
            Kind::Punct
        } else if b.is_ascii_punctuation() {
            i += 1;
            Kind::Punct
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            Kind::Other
        };
        out.push(Lexeme {
            kind,
            start,
            end: i,
        });
    }
    out
}

/// Names of the macros a token was expanded from (sorted ids), which it
/// must not expand again.
type HideSet = Rc<[u32]>;

fn hide_union(a: &HideSet, b: &HideSet) -> HideSet {
    if b.is_empty() {
        return a.clone();
    }
    if a.is_empty() {
        return b.clone();
    }
    let mut v: Vec<u32> = a.iter().chain(b.iter()).copied().collect();
    v.sort_unstable();
    v.dedup();
    v.into()
}

fn hide_intersection(a: &HideSet, b: &HideSet) -> HideSet {
    a.iter().filter(|x| b.contains(x)).copied().collect()
}

/// A token being expanded.
#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: Rc<str>,
    /// White space before it (for `#` and the output).
    space: bool,
    hide: HideSet,
}

impl Tok {
    fn is(&self, punct: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == punct
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    Line,
    File,
    Version,
}

#[derive(Debug)]
struct Macro {
    id: u32,
    /// The parameters of a function-like macro.
    params: Option<Vec<Rc<str>>>,
    body: Vec<Tok>,
    builtin: Option<Builtin>,
    /// Predefined: no `#define` or `#undef` of it.
    protected: bool,
}

impl Macro {
    fn param(&self, t: &Tok) -> Option<usize> {
        if t.kind != Kind::Ident {
            return None;
        }
        self.params.as_ref()?.iter().position(|p| **p == *t.text)
    }

    /// Same definition (a redefinition must be, C99 §6.10.3p2).
    fn same(&self, other: &Macro) -> bool {
        self.params == other.params
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| a.text == b.text && (i == 0 || a.space == b.space))
    }
}

/// Where the tokens of an expansion step come from: pending tokens (the
/// top of `stack` first), then, at the top level, the text.
struct Input {
    stack: Vec<Tok>,
    text: bool,
}

#[derive(Clone, Copy, Debug)]
struct Cond {
    parent_active: bool,
    taken: bool,
    active: bool,
    seen_else: bool,
}

struct Out {
    text: String,
    segs: Vec<Seg>,
    /// Input offset up to which the output accounts for the input.
    copied: usize,
}

impl Out {
    fn identity_to(&mut self, src: &str, upto: usize) {
        if upto <= self.copied {
            return;
        }
        self.segs.push(Seg {
            exp: self.text.len(),
            orig: self.copied,
            orig_end: upto,
            identity: true,
        });
        self.text.push_str(&src[self.copied..upto]);
        self.copied = upto;
    }

    fn replace(&mut self, src: &str, start: usize, end: usize, with: &str) {
        self.identity_to(src, start);
        self.segs.push(Seg {
            exp: self.text.len(),
            orig: start,
            orig_end: end,
            identity: false,
        });
        self.text.push_str(with);
        self.copied = end;
    }

    /// Replaces `start..end` by its line breaks alone.
    fn blank(&mut self, src: &str, start: usize, end: usize) {
        let newlines = "\n".repeat(src[start..end].matches('\n').count());
        self.replace(src, start, end, &newlines);
    }
}

struct Pp<'t> {
    text: &'t str,
    lx: Vec<Lexeme>,
    line_starts: Vec<usize>,
    macros: HashMap<Rc<str>, Rc<Macro>>,
    ids: HashMap<Rc<str>, u32>,
    conds: Vec<Cond>,
    out: Out,
    /// Next lexeme of the text the expansion reads.
    pos: usize,
    /// End of the last token read from the text.
    consumed_end: usize,
    /// Tokens made and read so far, against [`MAX_MACRO_TOKENS`].
    work: usize,
    /// Bytes of expansions and made tokens, against [`MAX_MACRO_BYTES`].
    bytes: usize,
    /// Argument expansions open, against [`MAX_MACRO_DEPTH`].
    depth: usize,
    /// `__LINE__` of what is being expanded, and where it is.
    line: i64,
    at: usize,
    /// `#line`: the number of physical line `n` is `n + line_delta`.
    line_delta: i64,
    file: i64,
    version: u16,
    /// A token or directive was seen (`#version` must come before them).
    seen: bool,
}

/// The empty hide set.
fn no_hide() -> HideSet {
    Rc::from(Vec::new())
}

impl<'t> Pp<'t> {
    fn new(text: &'t str, opts: &Options) -> Pp<'t> {
        let mut pp = Pp {
            text,
            lx: lex(text),
            line_starts: std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
            macros: HashMap::new(),
            ids: HashMap::new(),
            conds: Vec::new(),
            out: Out {
                text: String::with_capacity(text.len()),
                segs: Vec::new(),
                copied: 0,
            },
            pos: 0,
            consumed_end: 0,
            work: 0,
            bytes: 0,
            depth: 0,
            line: 1,
            at: 0,
            line_delta: 0,
            file: 0,
            version: opts.version,
            seen: false,
        };
        let one = |pp: &mut Pp, name: &str| {
            let body = vec![Tok {
                kind: Kind::Number,
                text: "1".into(),
                space: false,
                hide: no_hide(),
            }];
            pp.predefine(name, body, None);
        };
        if opts.es {
            one(&mut pp, "GL_ES");
        } else {
            one(&mut pp, "GL_core_profile");
            if opts.compatibility {
                one(&mut pp, "GL_compatibility_profile");
            }
        }
        for e in &opts.extensions {
            one(&mut pp, e);
        }
        pp.predefine("__LINE__", Vec::new(), Some(Builtin::Line));
        pp.predefine("__FILE__", Vec::new(), Some(Builtin::File));
        pp.predefine("__VERSION__", Vec::new(), Some(Builtin::Version));
        pp
    }

    fn predefine(&mut self, name: &str, body: Vec<Tok>, builtin: Option<Builtin>) {
        let name: Rc<str> = name.into();
        let id = self.id(&name);
        self.macros.insert(
            name,
            Rc::new(Macro {
                id,
                params: None,
                body,
                builtin,
                protected: true,
            }),
        );
    }

    fn id(&mut self, name: &Rc<str>) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(name.clone()).or_insert(next)
    }

    fn error<T>(&self, at: usize, message: impl Into<String>) -> Result<T, Error> {
        Err(Error {
            at,
            message: message.into(),
            limit: false,
        })
    }

    /// Counts work against the limits: `tokens` made or read, `bytes`
    /// written.
    fn charge(&mut self, tokens: usize, bytes: usize) -> Result<(), Error> {
        self.work += tokens;
        self.bytes += bytes;
        let message = if self.work > MAX_MACRO_TOKENS {
            format!("macro expansion makes more than {MAX_MACRO_TOKENS} tokens")
        } else if self.bytes > MAX_MACRO_BYTES {
            format!("macro expansion writes more than {MAX_MACRO_BYTES} bytes")
        } else {
            return Ok(());
        };
        Err(Error {
            at: self.at,
            message,
            limit: true,
        })
    }

    fn slice(&self, l: Lexeme) -> &'t str {
        &self.text[l.start..l.end]
    }

    /// 1-based physical line of an offset.
    fn physical_line(&self, offset: usize) -> i64 {
        self.line_starts.partition_point(|&s| s <= offset) as i64
    }

    fn active(&self) -> bool {
        self.conds.last().is_none_or(|c| c.active)
    }

    /// Whether the line starting at lexeme `i` is a directive.
    fn directive_at(&self, mut i: usize) -> bool {
        while let Some(l) = self.lx.get(i) {
            match l.kind {
                Kind::Space => i += 1,
                Kind::Punct => return self.slice(*l) == "#",
                _ => return false,
            }
        }
        false
    }

    fn run(&mut self) -> Result<(), Error> {
        let mut i = 0;
        while i < self.lx.len() {
            // `i` starts a line.
            if self.directive_at(i) {
                i = self.directive(i)?;
            } else if !self.active() {
                let end = self.line_end(i);
                let (start, stop) = (self.lx[i].start, self.offset_of(end));
                self.out.blank(self.text, start, stop);
                i = end + 1;
            } else {
                self.pos = i;
                i = self.text_run()?;
            }
        }
        if !self.conds.is_empty() {
            return self.error(self.text.len(), "#if without #endif");
        }
        Ok(())
    }

    /// The index of the newline that ends the line from lexeme `i` (or the
    /// number of lexemes).
    fn line_end(&self, mut i: usize) -> usize {
        while self.lx.get(i).is_some_and(|l| l.kind != Kind::Newline) {
            i += 1;
        }
        i
    }

    fn offset_of(&self, i: usize) -> usize {
        self.lx.get(i).map_or(self.text.len(), |l| l.start)
    }

    /// The next token of the text from lexeme `i`, and whether white space
    /// precedes it; `Err` with the line start where a directive line stops
    /// the text (or the end).
    fn text_skip(&self, mut i: usize) -> Result<(usize, bool), usize> {
        let mut space = false;
        loop {
            let Some(l) = self.lx.get(i) else {
                return Err(i);
            };
            match l.kind {
                Kind::Space => {
                    space = true;
                    i += 1;
                }
                Kind::Newline => {
                    space = true;
                    i += 1;
                    if self.directive_at(i) {
                        return Err(i);
                    }
                }
                _ => return Ok((i, space)),
            }
        }
    }

    fn text_next(&mut self) -> Option<Tok> {
        let (i, space) = self.text_skip(self.pos).ok()?;
        let l = self.lx[i];
        self.pos = i + 1;
        self.consumed_end = l.end;
        Some(Tok {
            kind: l.kind,
            text: self.slice(l).into(),
            space,
            hide: no_hide(),
        })
    }

    fn text_peek(&self) -> Option<&'t str> {
        let (i, _) = self.text_skip(self.pos).ok()?;
        Some(self.slice(self.lx[i]))
    }

    /// Expands the text from `self.pos` to the next directive line; returns
    /// where that line starts.
    fn text_run(&mut self) -> Result<usize, Error> {
        loop {
            let (i, space) = match self.text_skip(self.pos) {
                Ok(next) => next,
                Err(stop) => return Ok(stop),
            };
            let l = self.lx[i];
            self.pos = i + 1;
            self.consumed_end = l.end;
            self.seen = true;
            if l.kind != Kind::Ident {
                continue;
            }
            let name = self.slice(l);
            let Some(m) = self.macros.get(name) else {
                continue;
            };
            if m.params.is_some() && self.text_peek() != Some("(") {
                continue;
            }
            self.at = l.start;
            self.line = self.physical_line(l.start) + self.line_delta;
            let mut input = Input {
                stack: vec![Tok {
                    kind: Kind::Ident,
                    text: name.into(),
                    space,
                    hide: no_hide(),
                }],
                text: true,
            };
            let mut expansion = Vec::new();
            while !input.stack.is_empty() {
                self.step(&mut input, &mut expansion)?;
            }
            let end = self.consumed_end;
            let mut with = String::from(" ");
            for t in &expansion {
                self.charge(0, t.text.len() + 1)?;
                with.push_str(&t.text);
                with.push(' ');
            }
            with.push_str(&"\n".repeat(self.text[l.start..end].matches('\n').count()));
            self.out.replace(self.text, l.start, end, &with);
        }
    }

    fn pop(&mut self, input: &mut Input) -> Option<Tok> {
        match input.stack.pop() {
            Some(t) => Some(t),
            None if input.text => self.text_next(),
            None => None,
        }
    }

    fn next_is_lparen(&self, input: &Input) -> bool {
        match input.stack.last() {
            Some(t) => t.is("("),
            None => input.text && self.text_peek() == Some("("),
        }
    }

    /// Takes one token from `input`: a macro name is replaced, in `input`,
    /// by its expansion; anything else goes to `out`.
    fn step(&mut self, input: &mut Input, out: &mut Vec<Tok>) -> Result<(), Error> {
        self.charge(1, 0)?;
        let Some(t) = self.pop(input) else {
            return Ok(());
        };
        let m = match t.kind {
            Kind::Ident => self.macros.get(&*t.text).cloned(),
            _ => None,
        };
        let Some(m) = m.filter(|m| !t.hide.contains(&m.id)) else {
            out.push(t);
            return Ok(());
        };
        if let Some(b) = m.builtin {
            let value = match b {
                Builtin::Line => self.line,
                Builtin::File => self.file,
                Builtin::Version => i64::from(self.version),
            };
            out.push(Tok {
                kind: Kind::Number,
                text: value.to_string().into(),
                space: t.space,
                hide: t.hide,
            });
            return Ok(());
        }
        let (args, hide) = match &m.params {
            None => (Vec::new(), hide_union(&t.hide, &Rc::from([m.id]))),
            Some(params) => {
                if !self.next_is_lparen(input) {
                    out.push(t);
                    return Ok(());
                }
                self.pop(input);
                let (mut args, rparen) = self.arguments(input, &t.text)?;
                if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                    args.clear();
                }
                if args.len() != params.len() {
                    return self.error(
                        self.at,
                        format!(
                            "macro {} takes {} arguments, given {}",
                            t.text,
                            params.len(),
                            args.len()
                        ),
                    );
                }
                let hide = hide_union(&hide_intersection(&t.hide, &rparen), &Rc::from([m.id]));
                (args, hide)
            }
        };
        let mut expansion = self.substitute(&m, &args, &hide)?;
        if let Some(first) = expansion.first_mut() {
            first.space = t.space;
        }
        input.stack.extend(expansion.into_iter().rev());
        Ok(())
    }

    /// The arguments of an invocation after its `(`, and the hide set of
    /// its `)`.
    fn arguments(
        &mut self,
        input: &mut Input,
        name: &str,
    ) -> Result<(Vec<Vec<Tok>>, HideSet), Error> {
        let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
        let mut depth = 0usize;
        loop {
            self.charge(1, 0)?;
            let Some(t) = self.pop(input) else {
                return self.error(self.at, format!("unterminated invocation of macro {name}"));
            };
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                if depth == 0 {
                    return Ok((args, t.hide));
                }
                depth -= 1;
            } else if t.is(",") && depth == 0 {
                args.push(Vec::new());
                continue;
            }
            if let Some(arg) = args.last_mut() {
                arg.push(t);
            }
        }
    }

    /// The replacement list of `m` with `args` substituted, `#` and `##`
    /// applied, `hide` added to every token (Prosser's `subst`).
    fn substitute(
        &mut self,
        m: &Macro,
        args: &[Vec<Tok>],
        hide: &HideSet,
    ) -> Result<Vec<Tok>, Error> {
        let body = &m.body;
        let mut os: Vec<Tok> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            let t = &body[i];
            let next = body.get(i + 1);
            // `#` and `##` are checked where the macro is defined: each has
            // an operand after it (a parameter after `#`).
            if m.params.is_some() && t.is("#") {
                if let Some(k) = next.and_then(|n| m.param(n)) {
                    let string = stringize(&args[k], t.space);
                    self.charge(0, string.text.len())?;
                    os.push(string);
                }
                i += 2;
                continue;
            }
            if t.is("##") {
                if let Some(rhs) = next {
                    match m.param(rhs) {
                        Some(k) => {
                            if let Some((first, rest)) = args[k].split_first() {
                                self.glue(&mut os, first)?;
                                os.extend(rest.iter().cloned());
                            }
                        }
                        None => self.glue(&mut os, rhs)?,
                    }
                }
                i += 2;
                continue;
            }
            let Some(k) = m.param(t) else {
                os.push(t.clone());
                i += 1;
                continue;
            };
            if next.is_some_and(|n| n.is("##")) {
                if args[k].is_empty() {
                    // A placemarker: `## x` after it is `x` as written.
                    match body.get(i + 2).and_then(|n| m.param(n)) {
                        Some(k2) => {
                            os.extend(args[k2].iter().cloned());
                            i += 3;
                        }
                        None => i += 2,
                    }
                    continue;
                }
                os.extend(args[k].iter().cloned());
            } else {
                let expanded = self.expand_alone(&args[k])?;
                os.extend(expanded);
            }
            i += 1;
        }
        self.charge(os.len(), 0)?;
        for t in &mut os {
            t.hide = hide_union(&t.hide, hide);
        }
        Ok(os)
    }

    /// `##`: the last token of `os` and `rhs` made one token.
    fn glue(&mut self, os: &mut Vec<Tok>, rhs: &Tok) -> Result<(), Error> {
        let Some(lhs) = os.pop() else {
            os.push(rhs.clone());
            return Ok(());
        };
        let text = format!("{}{}", lhs.text, rhs.text);
        self.charge(0, text.len())?;
        let lexed = lex(&text);
        let kind = match lexed.as_slice() {
            [one] if one.end == text.len() && !matches!(one.kind, Kind::Space | Kind::Newline) => {
                one.kind
            }
            _ => {
                return self.error(
                    self.at,
                    format!(
                        "pasting \"{}\" and \"{}\" does not give a valid token",
                        lhs.text, rhs.text
                    ),
                )
            }
        };
        os.push(Tok {
            kind,
            text: text.into(),
            space: lhs.space,
            hide: hide_intersection(&lhs.hide, &rhs.hide),
        });
        Ok(())
    }

    /// `tokens` fully macro-expanded on their own (an argument, a `#if`).
    fn expand_alone(&mut self, tokens: &[Tok]) -> Result<Vec<Tok>, Error> {
        self.depth += 1;
        if self.depth > MAX_MACRO_DEPTH {
            return Err(Error {
                at: self.at,
                message: format!("macro arguments nested deeper than {MAX_MACRO_DEPTH} expansions"),
                limit: true,
            });
        }
        let mut input = Input {
            stack: tokens.iter().rev().cloned().collect(),
            text: false,
        };
        let mut out = Vec::new();
        while !input.stack.is_empty() {
            self.step(&mut input, &mut out)?;
        }
        self.depth -= 1;
        Ok(out)
    }

    /// Handles the directive on the line from lexeme `i`; returns the
    /// lexeme after its newline.
    fn directive(&mut self, i: usize) -> Result<usize, Error> {
        let end = self.line_end(i);
        let (start, stop) = (self.lx[i].start, self.offset_of(end));
        let words: Vec<Lexeme> = self.lx[i..end]
            .iter()
            .filter(|l| l.kind != Kind::Space)
            .copied()
            .skip(1)
            .collect();
        self.at = start;
        self.line = self.physical_line(start) + self.line_delta;
        let name = words
            .first()
            .filter(|l| l.kind == Kind::Ident)
            .map(|l| self.slice(*l));
        let rest = words.get(1..).unwrap_or_default();
        let conditional = matches!(
            name,
            Some("if" | "ifdef" | "ifndef" | "elif" | "else" | "endif")
        );
        let mut keep = false;
        if conditional {
            self.conditional(name.unwrap_or_default(), rest)?;
        } else if self.active() {
            match name {
                None if words.is_empty() => {}
                Some("define") => self.define(rest)?,
                Some("undef") => self.undef(rest)?,
                Some("version") => {
                    if self.seen {
                        return self.error(start, "#version must come before anything else");
                    }
                    keep = true;
                }
                Some("extension" | "pragma" | "include") => keep = true,
                Some("line") => {
                    self.line_directive(rest)?;
                    keep = true;
                }
                Some("error") => return self.error(start, self.text[start..stop].trim()),
                _ => return self.error(start, "invalid preprocessor directive"),
            }
            self.seen = true;
        }
        if !keep {
            self.out.blank(self.text, start, stop);
        }
        Ok(end + 1)
    }

    fn tokens_of(&self, lexemes: &[Lexeme]) -> Vec<Tok> {
        let mut space = false;
        let mut out = Vec::new();
        for l in lexemes {
            if l.kind == Kind::Space {
                space = true;
                continue;
            }
            out.push(Tok {
                kind: l.kind,
                text: self.slice(*l).into(),
                space,
                hide: no_hide(),
            });
            space = false;
        }
        out
    }

    fn define(&mut self, rest: &[Lexeme]) -> Result<(), Error> {
        let Some(&name_lx) = rest.first().filter(|l| l.kind == Kind::Ident) else {
            return self.error(self.at, "#define needs a macro name");
        };
        let name: Rc<str> = self.slice(name_lx).into();
        self.check_definable(&name)?;
        // The lexemes after the name, spaces included, to the line's end.
        let from = self.lx.partition_point(|l| l.start < name_lx.end);
        let to = self.line_end(from);
        let after = &self.lx[from..to];
        let function_like = after
            .first()
            .is_some_and(|l| l.kind == Kind::Punct && self.slice(*l) == "(");
        let (params, body_lx) = if function_like {
            let mut params: Vec<Rc<str>> = Vec::new();
            let mut k = 1;
            let mut expect_name = true;
            loop {
                let Some(l) = after.get(k) else {
                    return self.error(
                        self.at,
                        format!("unterminated parameter list of macro {name}"),
                    );
                };
                k += 1;
                let s = self.slice(*l);
                match l.kind {
                    Kind::Space => {}
                    Kind::Ident if expect_name => {
                        if params.iter().any(|p| **p == *s) {
                            return self.error(
                                self.at,
                                format!("macro {name} has two parameters named {s}"),
                            );
                        }
                        params.push(s.into());
                        expect_name = false;
                    }
                    Kind::Punct if s == "," && !expect_name => expect_name = true,
                    Kind::Punct if s == ")" && (!expect_name || params.is_empty()) => break,
                    _ => {
                        return self
                            .error(self.at, format!("invalid parameter list of macro {name}"))
                    }
                }
            }
            (Some(params), &after[k..])
        } else {
            (None, after)
        };
        let mut body = self.tokens_of(body_lx);
        if let Some(first) = body.first_mut() {
            first.space = false;
        }
        if body.first().is_some_and(|t| t.is("##")) || body.last().is_some_and(|t| t.is("##")) {
            return self.error(
                self.at,
                format!("`##` at an end of the replacement list of macro {name}"),
            );
        }
        let id = self.id(&name);
        let m = Macro {
            id,
            params,
            body,
            builtin: None,
            protected: false,
        };
        if m.params.is_some() {
            for (k, t) in m.body.iter().enumerate() {
                if t.is("#") && m.body.get(k + 1).is_none_or(|n| m.param(n).is_none()) {
                    return self.error(
                        self.at,
                        format!("`#` in macro {name} is not followed by a parameter"),
                    );
                }
            }
        }
        if let Some(old) = self.macros.get(&name) {
            if !old.same(&m) {
                return self.error(self.at, format!("macro {name} redefined differently"));
            }
        }
        self.macros.insert(name, Rc::new(m));
        Ok(())
    }

    fn check_definable(&self, name: &str) -> Result<(), Error> {
        if name.starts_with("GL_") {
            return self.error(
                self.at,
                format!("names beginning with GL_ are reserved: {name}"),
            );
        }
        if name == "defined" || self.macros.get(name).is_some_and(|m| m.protected) {
            return self.error(self.at, format!("{name} is predefined"));
        }
        Ok(())
    }

    fn undef(&mut self, rest: &[Lexeme]) -> Result<(), Error> {
        let Some(&l) = rest.first().filter(|l| l.kind == Kind::Ident) else {
            return self.error(self.at, "#undef needs a macro name");
        };
        let name = self.slice(l);
        self.check_definable(name)?;
        self.macros.remove(name);
        Ok(())
    }

    /// `#line N [S]`: renumbers the lines after it (for `__LINE__`; the
    /// directive stays for glsl-lang). `S` may be a file name
    /// (GL_GOOGLE_cpp_style_line_directive).
    fn line_directive(&mut self, rest: &[Lexeme]) -> Result<(), Error> {
        let tokens = self.tokens_of(rest);
        let expanded = self.expand_alone(&tokens)?;
        let number = |t: &Tok| (t.kind == Kind::Number).then(|| integer(&t.text)).flatten();
        let (line, file) = match expanded.as_slice() {
            [l] => (number(l), None),
            [l, f] if f.kind == Kind::Str => (number(l), None),
            [l, f] => (number(l), number(f).map(Some)),
            _ => (None, None),
        };
        let Some(line) = line else {
            return self.error(
                self.at,
                "#line needs a line number (and a source string number)",
            );
        };
        // The next line is `line`.
        self.line_delta = i64::from(line) - (self.physical_line(self.at) + 1);
        match file {
            Some(Some(f)) => self.file = i64::from(f),
            Some(None) => {
                return self.error(self.at, "#line needs a source string number");
            }
            None => {}
        }
        Ok(())
    }

    fn conditional(&mut self, name: &str, rest: &[Lexeme]) -> Result<(), Error> {
        let active = self.active();
        match name {
            "ifdef" | "ifndef" => {
                let value = if active {
                    let Some(&l) = rest.first().filter(|l| l.kind == Kind::Ident) else {
                        return self.error(self.at, format!("#{name} needs a macro name"));
                    };
                    self.macros.contains_key(self.slice(l)) == (name == "ifdef")
                } else {
                    false
                };
                self.conds.push(Cond {
                    parent_active: active,
                    taken: value,
                    active: active && value,
                    seen_else: false,
                });
            }
            "if" => {
                let value = active && self.condition(rest)?;
                self.conds.push(Cond {
                    parent_active: active,
                    taken: value,
                    active: value,
                    seen_else: false,
                });
            }
            "elif" => {
                let Some(c) = self.conds.last().copied() else {
                    return self.error(self.at, "#elif without #if");
                };
                if c.seen_else {
                    return self.error(self.at, "#elif after #else");
                }
                let value = c.parent_active && !c.taken && self.condition(rest)?;
                if let Some(c) = self.conds.last_mut() {
                    c.active = value;
                    c.taken |= value;
                }
            }
            "else" => {
                let Some(c) = self.conds.last_mut() else {
                    return self.error(self.at, "#else without #if");
                };
                if c.seen_else {
                    return self.error(self.at, "#else after #else");
                }
                c.seen_else = true;
                c.active = c.parent_active && !c.taken;
                c.taken = true;
            }
            _ => {
                if self.conds.pop().is_none() {
                    return self.error(self.at, "#endif without #if");
                }
            }
        }
        Ok(())
    }

    /// The value of a `#if`/`#elif` expression.
    fn condition(&mut self, rest: &[Lexeme]) -> Result<bool, Error> {
        let tokens = self.tokens_of(rest);
        // `defined X` and `defined(X)` before any expansion.
        let mut resolved = Vec::with_capacity(tokens.len());
        let mut k = 0;
        while k < tokens.len() {
            let t = &tokens[k];
            if t.kind == Kind::Ident && &*t.text == "defined" {
                let name = match (tokens.get(k + 1), tokens.get(k + 2), tokens.get(k + 3)) {
                    (Some(n), _, _) if n.kind == Kind::Ident => {
                        k += 2;
                        n
                    }
                    (Some(o), Some(n), Some(c))
                        if o.is("(") && n.kind == Kind::Ident && c.is(")") =>
                    {
                        k += 4;
                        n
                    }
                    _ => return self.error(self.at, "`defined` needs a macro name"),
                };
                let value = if self.macros.contains_key(&*name.text) {
                    "1"
                } else {
                    "0"
                };
                resolved.push(Tok {
                    kind: Kind::Number,
                    text: value.into(),
                    space: t.space,
                    hide: no_hide(),
                });
                continue;
            }
            resolved.push(t.clone());
            k += 1;
        }
        let expanded = self.expand_alone(&resolved)?;
        if expanded.is_empty() {
            return self.error(self.at, "#if needs an expression");
        }
        let mut eval = Eval {
            tokens: &expanded,
            pos: 0,
            depth: 0,
        };
        let value = eval.expr(1);
        match value {
            Ok(_) if eval.pos < expanded.len() => self.error(
                self.at,
                IfError::Unexpected(expanded[eval.pos].text.to_string()).to_string(),
            ),
            Ok(Ok(v)) => Ok(v != 0),
            Ok(Err(e)) | Err(e) => self.error(self.at, e.to_string()),
        }
    }
}

/// A `#` operand: the argument's spelling as a string literal.
fn stringize(arg: &[Tok], space: bool) -> Tok {
    let mut s = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && t.space {
            s.push(' ');
        }
        if t.kind == Kind::Str {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    Tok {
        kind: Kind::Str,
        text: s.into(),
        space,
        hide: no_hide(),
    }
}

/// An integer literal of a `#if` (decimal, octal, hexadecimal, `u`
/// suffix), as GLSL's 32-bit `int`: unsigned and hexadecimal ones keep
/// their bits.
fn integer(text: &str) -> Option<i32> {
    let (digits, unsigned) = match text.strip_suffix(['u', 'U']) {
        Some(d) => (d, true),
        None => (text, false),
    };
    let (digits, radix) = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (h, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (&digits[1..], 8)
    } else {
        (digits, 10)
    };
    let value = u64::from_str_radix(digits, radix).ok()?;
    if radix == 10 && !unsigned {
        i32::try_from(value).ok()
    } else {
        u32::try_from(value).ok().map(|v| v as i32)
    }
}

/// A `#if` expression's value, or why it has none; errors in operands
/// `&&`/`||` do not evaluate are no errors.
type Value = Result<i32, IfError>;

/// Why a `#if` expression has no value (or does not parse).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum IfError {
    #[error("#if expression nested too deeply")]
    TooDeep,
    #[error("#if expression ends early")]
    EndsEarly,
    #[error("missing `)` in #if expression")]
    MissingParen,
    #[error("`{0}` is not an integer")]
    NotInteger(String),
    #[error("unexpected `{0}` in #if expression")]
    Unexpected(String),
    #[error("integer overflow in #if expression")]
    Overflow,
    #[error("division by zero in #if expression")]
    DivisionByZero,
}

/// Recursive descent over an expanded `#if` expression.
struct Eval<'a> {
    tokens: &'a [Tok],
    pos: usize,
    depth: usize,
}

/// Binary operators by precedence (higher binds tighter).
fn binary_precedence(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl Eval<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos)
    }

    /// Operators of precedence `min` and above. `Err`: a syntax error.
    fn expr(&mut self, min: u8) -> Result<Value, IfError> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek().filter(|t| t.kind == Kind::Punct) {
            let Some(prec) = binary_precedence(&op.text) else {
                break;
            };
            if prec < min {
                break;
            }
            let op = op.text.clone();
            self.pos += 1;
            let rhs = self.expr(prec + 1)?;
            lhs = binary(&op, lhs, rhs);
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Value, IfError> {
        self.depth += 1;
        if self.depth > crate::limits::MAX_NESTING {
            return Err(IfError::TooDeep);
        }
        let t = self.peek().cloned().ok_or(IfError::EndsEarly)?;
        self.pos += 1;
        let value = match (t.kind, &*t.text) {
            (Kind::Punct, "+") => self.unary()?,
            (Kind::Punct, "-") => self
                .unary()?
                .and_then(|v| v.checked_neg().ok_or(IfError::Overflow)),
            (Kind::Punct, "~") => self.unary()?.map(|v| !v),
            (Kind::Punct, "!") => self.unary()?.map(|v| i32::from(v == 0)),
            (Kind::Punct, "(") => {
                let v = self.expr(1)?;
                if !self.peek().is_some_and(|t| t.is(")")) {
                    return Err(IfError::MissingParen);
                }
                self.pos += 1;
                v
            }
            (Kind::Number, text) => {
                Ok(integer(text).ok_or_else(|| IfError::NotInteger(text.into()))?)
            }
            // A name no macro stands for.
            (Kind::Ident, _) => Ok(0),
            (_, text) => return Err(IfError::Unexpected(text.into())),
        };
        self.depth -= 1;
        Ok(value)
    }
}

fn binary(op: &str, lhs: Value, rhs: Value) -> Value {
    match op {
        "&&" => match lhs? {
            0 => Ok(0),
            _ => rhs.map(|r| i32::from(r != 0)),
        },
        "||" => match lhs? {
            0 => rhs.map(|r| i32::from(r != 0)),
            _ => Ok(1),
        },
        _ => {
            let (a, b) = (lhs?, rhs?);
            let overflow = || IfError::Overflow;
            match op {
                "|" => Ok(a | b),
                "^" => Ok(a ^ b),
                "&" => Ok(a & b),
                "==" => Ok(i32::from(a == b)),
                "!=" => Ok(i32::from(a != b)),
                "<" => Ok(i32::from(a < b)),
                ">" => Ok(i32::from(a > b)),
                "<=" => Ok(i32::from(a <= b)),
                ">=" => Ok(i32::from(a >= b)),
                "<<" => u32::try_from(b)
                    .ok()
                    .and_then(|b| a.checked_shl(b))
                    .ok_or_else(overflow),
                ">>" => u32::try_from(b)
                    .ok()
                    .and_then(|b| a.checked_shr(b))
                    .ok_or_else(overflow),
                "+" => a.checked_add(b).ok_or_else(overflow),
                "-" => a.checked_sub(b).ok_or_else(overflow),
                "*" => a.checked_mul(b).ok_or_else(overflow),
                "/" | "%" if b == 0 => Err(IfError::DivisionByZero),
                "/" => a.checked_div(b).ok_or_else(overflow),
                _ => a.checked_rem(b).ok_or_else(overflow),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    /// The expanded text (each line trimmed), or the error with its line.
    fn show(src: &str) -> String {
        let opts = Options {
            version: 450,
            extensions: vec!["GL_ARB_gpu_shader5".into()],
            ..Options::default()
        };
        match expand(src, &opts) {
            Ok(e) => {
                assert_eq!(
                    e.text.matches('\n').count(),
                    src.matches('\n').count(),
                    "lines moved:\n{}",
                    e.text
                );
                e.text.lines().map(|l| format!("{}\n", l.trim())).collect()
            }
            Err(e) => {
                let line = src[..e.at].matches('\n').count() + 1;
                format!(
                    "error on line {line}{}: {}\n",
                    if e.limit { " (limit)" } else { "" },
                    e.message
                )
            }
        }
    }

    fn check(src: &str, want: Expect) {
        want.assert_eq(&show(src));
    }

    #[test]
    fn arguments_are_expanded_before_substitution() {
        check(
            "#define PASTE2(a, b) a##b\n#define PASTE(a, b) PASTE2(a, b)\n#define PREFIX image\n#define SUFFIX 1D\nlayout(binding = 0) uniform writeonly PASTE(PREFIX, SUFFIX) dest;\nPASTE2(PREFIX, SUFFIX) raw;\n",
            expect![[r#"




                layout(binding = 0) uniform writeonly  image1D  dest;
                PREFIXSUFFIX  raw;
            "#]],
        );
    }

    /// glslang's `cppMerge.frag`: `dest3` pastes `imag` to the first token
    /// of `e1 D` (glslang glues the `D` on too; Mesa, like C, does not).
    #[test]
    fn pastes_through_object_and_function_like_macros() {
        check(
            "#version 450 core\n#define PASTER2(type, suffix) type##suffix\n#define PASTER3(type, suffix) type## suffix\n#define MAKE_TYPE1 image1D dest ## 1;\n#define MAKE_TYPE2(type, suffix) PASTER2(type, suffix)\n#define MAKE_TYPE3(type, suffix) PASTER3(type, suffix)\n#define PREFIX image\n#define PREFIX3 imag\n#define SUFFIX2 1D\n#define SUFFIX3 e1 D\n#define RESOURCE_TYPE1 MAKE_TYPE1\n#define RESOURCE_TYPE2 MAKE_TYPE2(PREFIX, SUFFIX2)\n#define RESOURCE_TYPE3 MAKE_TYPE3(PREFIX3, SUFFIX3)\nuniform writeonly RESOURCE_TYPE1\nuniform writeonly RESOURCE_TYPE2 dest2;\nuniform writeonly RESOURCE_TYPE3 dest3;\n",
            expect![[r#"
                #version 450 core












                uniform writeonly  image1D dest1 ;
                uniform writeonly  image1D  dest2;
                uniform writeonly  image1 D  dest3;
            "#]],
        );
    }

    /// C99 §6.10.3.3: an empty operand of `##` is a placemarker.
    #[test]
    fn empty_operands_of_pastes_are_placemarkers() {
        check(
            "#define C(a, b) [a ## b]\n#define C3(a, b, c) a ## b ## c\nC(, x) C(x, ) C(, ) C3(, , z) C3(x, , ) C3(, y, )\n",
            expect![[r#"


                 [ x ]   [ x ]   [ ]   z   x   y
            "#]],
        );
    }

    /// C99 §6.10.3.4 and its examples: hide sets stop recursion, the rescan
    /// reads on into the text.
    #[test]
    fn rescans_follow_the_standard() {
        check(
            "#define f(a) a*g\n#define g(a) f(a)\nf(2)(9);\n#define x 3\n#define h(a) h(x * (a))\n#undef x\n#define x 2\nh(h(2));\n#define G F\n#define F(v) v + 1\nG(2); G;\n#define AGAIN AGAIN + 1\nAGAIN;\n",
            expect![[r#"


                 2 * 9 * g ;




                 h ( 2 * ( h ( 2 * ( 2 ) ) ) ) ;


                 2 + 1 ;  F ;

                 AGAIN + 1 ;
            "#]],
        );
    }

    /// An invocation over several lines is expanded on its first line; the
    /// lines after it stay where they were.
    #[test]
    fn lines_stay_put() {
        check(
            "#define ADD(a,\\\n  b) ((a) + (b))\nfloat x = ADD(1.0,\n  /* two */\n  2.0); float y;\nfloat z; // ADD(3, 4)\n#define F(x) x\nF\n(\n1);\n",
            expect![[r#"


                float x =  ( ( 1.0 ) + ( 2.0 ) )

                ; float y;
                float z; // ADD(3, 4)

                1

                ;
            "#]],
        );
    }

    #[test]
    fn conditionals() {
        check(
            "#define A 2\n#if defined(A) && A == 2 && !defined B\nyes1\n#elif 1/0\nno\n#else\nno\n#endif\n#ifdef B\nno\n#  bogus directive\n#elif A\nyes2\n#endif\n#ifndef A\nno\n#else\nyes3\n#endif\n#if 0 && (1 / 0)\nno\n#elif (A << 3) - 16 && 1 / 0\nno\n#elif 0x10 == 16 && 010 == 8 && 4294967295u == -1 && (-7 % 3) == -1\nyes4\n#endif\n#if UNDEFINED_NAME\nno\n#endif\n",
            expect![[r#"


                yes1









                yes2




                yes3






                yes4




            "#]],
        );
    }

    #[test]
    fn predefined_macros() {
        check(
            "#version 450 core\n#extension GL_ARB_gpu_shader5 : enable\n#pragma optimize(off)\nint l = __LINE__; int v = __VERSION__;\n#line 20\nint l2 = __LINE__;\n#define LINE __LINE__\nint l3 = LINE;\n#line 40 2\nint f = __FILE__; int l4 = __LINE__;\n#line 50 \"a.glsl\"\n#if defined(GL_core_profile) && !defined(GL_ES) && GL_ARB_gpu_shader5 == 1\nyes\n#endif\n",
            expect![[r##"
                #version 450 core
                #extension GL_ARB_gpu_shader5 : enable
                #pragma optimize(off)
                int l =  4 ; int v =  450 ;
                #line 20
                int l2 =  20 ;

                int l3 =  22 ;
                #line 40 2
                int f =  2 ; int l4 =  40 ;
                #line 50 "a.glsl"

                yes

            "##]],
        );
        let es = Options {
            version: 300,
            es: true,
            ..Options::default()
        };
        let src =
            "#if defined(GL_ES) && !defined(GL_core_profile) && __VERSION__ == 300\nyes\n#endif\n";
        let e = expand(src, &es).expect("expands");
        assert_eq!(e.text, "\nyes\n\n");
    }

    #[test]
    fn stringizing() {
        check(
            "#define S(x) #x\n#define T(x) S(x)\nS(a  \"b\\n\"   c) T(__LINE__) S()\n",
            expect![[r#"


                 "a \"b\\n\" c"   "3"   ""
            "#]],
        );
    }

    #[test]
    fn invalid_preprocessing_is_an_error() {
        let cases = [
            "#define F(a, b) a\nF(1);\n",
            "#define F(a) a\nF(1\n#define X\n);\n",
            "#define F(a) a\nF(1\n",
            "#define P(a, b) a ## b\nP(+, /);\n",
            "#define E a ##\n",
            "#define E ## a\n",
            "#define F(a) # b\n",
            "#define A 1\n#define A 2\n",
            "#define GL_MINE 1\n",
            "#undef __LINE__\n",
            "#if 1\n#else\n#elif 1\n#endif\n",
            "#endif\n",
            "#if 1\n",
            "#if 2147483647 + 1\n#endif\n",
            "#if (-2147483647 - 1) / -1\n#endif\n",
            "#if 1 / 0\n#endif\n",
            "#if 1 +\n#endif\n",
            "#if\n#endif\n",
            "#error stop here\n",
            "#define A 1\n#version 450\n",
            "#unknown\n",
        ];
        let shown: String = cases.iter().map(|c| show(c)).collect();
        expect![[r#"
            error on line 2: macro F takes 2 arguments, given 1
            error on line 2: unterminated invocation of macro F
            error on line 2: unterminated invocation of macro F
            error on line 2: pasting "+" and "/" does not give a valid token
            error on line 1: `##` at an end of the replacement list of macro E
            error on line 1: `##` at an end of the replacement list of macro E
            error on line 1: `#` in macro F is not followed by a parameter
            error on line 2: macro A redefined differently
            error on line 1: names beginning with GL_ are reserved: GL_MINE
            error on line 1: __LINE__ is predefined
            error on line 3: #elif after #else
            error on line 1: #endif without #if
            error on line 2: #if without #endif
            error on line 1: integer overflow in #if expression
            error on line 1: integer overflow in #if expression
            error on line 1: division by zero in #if expression
            error on line 1: #if expression ends early
            error on line 1: #if needs an expression
            error on line 1: #error stop here
            error on line 2: #version must come before anything else
            error on line 1: invalid preprocessor directive
        "#]]
        .assert_eq(&shown);
        // The same definition twice is no redefinition.
        check(
            "#define A(x)  x  + 1\n#define A(x) x + 1\nA(1)\n",
            expect![[r#"


                 1 + 1
            "#]],
        );
    }

    /// Macros that double at each level, and arguments nested without end,
    /// stop at the limits.
    #[test]
    fn expansion_is_bounded() {
        let doubling = |last: usize, first: &str| {
            let mut text = format!("#define M0 {first}\n");
            for k in 1..=last {
                text.push_str(&format!("#define M{k} M{} M{}\n", k - 1, k - 1));
            }
            text + &format!("M{last}\n")
        };
        let cases = [
            doubling(39, "x x"),
            format!("#define F(x) x\n{}1{}\n", "F(".repeat(100), ")".repeat(100)),
            // One token whose length doubles at each level.
            format!(
                "#define P(x) x ## x\n#define Q(x) P(x)\n{}a{}\n",
                "Q(".repeat(40),
                ")".repeat(40)
            ),
            // Copies of a long token.
            doubling(12, &"x".repeat(4096)),
        ];
        let shown: String = cases.iter().map(|c| show(c)).collect();
        expect![[r#"
            error on line 41 (limit): macro expansion makes more than 1048576 tokens
            error on line 2 (limit): macro arguments nested deeper than 64 expansions
            error on line 3 (limit): macro expansion writes more than 16777216 bytes
            error on line 14 (limit): macro expansion writes more than 16777216 bytes
        "#]]
        .assert_eq(&shown);
    }

    #[test]
    fn offsets_map_back() {
        let src = "#define ONE 1\nint a = ONE;\nint b;\n";
        let e = expand(src, &Options::default()).expect("expands");
        let at = |s: &str| e.text.find(s).expect(s);
        let b = at("int b");
        assert_eq!(e.start(b), src.find("int b").unwrap());
        assert_eq!(e.end(b + 5), src.find("int b").unwrap() + 5);
        let one = at(" 1 ") + 1;
        let use_at = src.find("ONE;").unwrap();
        assert_eq!((e.start(one), e.end(one + 1)), (use_at, use_at + 3));
        // The `#define` line is empty; `int a` is where it was.
        assert_eq!(e.start(at("int a")), src.find("int a").unwrap());
    }

    #[test]
    fn expansions_past_the_limit_are_told_without_expanding_them() {
        let chain = |n: usize, body: &str| {
            let mut s = String::from("#define M0 1.0\n");
            for i in 1..=n {
                s.push_str(&format!(
                    "#define M{i} {}\n",
                    body.replace('P', &format!("M{}", i - 1))
                ));
            }
            s + &format!("float x = M{n};\n")
        };
        assert!(!may_exceed_limits(&chain(16, "(P + P)")));
        assert!(may_exceed_limits(&chain(20, "(P + P)")));
        assert!(may_exceed_limits(&chain(60, "P P")));
        // Doubling through a parameter, defined and in the text.
        let twice = "#define D(x) x x\n";
        let q = format!("{twice}#define Q(x) D(D(D(D(x))))\nint a = Q(Q(Q(Q(Q(1)))));\n");
        assert!(may_exceed_limits(&q));
        let nested = format!("{twice}int a = {}1{};\n", "D(".repeat(21), ")".repeat(21));
        assert!(may_exceed_limits(&nested));
        assert!(!may_exceed_limits(&format!("{twice}int a = D(D(D(1)));\n")));
        // A macro naming itself is not expanded inside itself.
        assert!(!may_exceed_limits(
            "#define A A A\n#define B(x) B(x) B(x)\nA B(1)\n"
        ));
        // Every `#define` counts, whatever the conditionals.
        assert!(!may_exceed_limits("#if 0\n#define X 1\n#endif\nX X\n"));
    }

    #[test]
    fn wanted_only_where_a_define_pastes_or_stringizes() {
        assert!(wanted("#define P(a, b) a ## b\n"));
        assert!(wanted("#  define S(x) \\\n  #x\n"));
        assert!(!wanted("#define A 1\n// a ## b\nint x;\n"));
        assert!(!wanted("#version 450\nvoid main() {}\n"));
    }
}
