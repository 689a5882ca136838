//! Preprocess and parse a shader (one or several source strings, `#include`s
//! resolved by the caller) into a glsl-lang AST whose spans are byte offsets into
//! [`SourceText::text`]; [`SourceText::locate`] turns them into file/line/column.

use glsl_lang::ast;
use glsl_lang_pp::processor::event::DirectiveKind;
use glsl_lang_pp::processor::nodes::{ExtensionBehavior, VersionProfile};

use crate::diagnostics::{Diagnostic, DiagnosticKind, Span};
use crate::shader::{Api, Profile, Stage, Version};

/// Why an `#include` could not be read: the resolver's own error (its
/// text becomes the diagnostic's message).
pub type IncludeError = Box<dyn std::error::Error + Send + Sync>;

/// Reads the text of `#include`d files (GL_GOOGLE_include_directive).
pub trait IncludeResolver {
    /// Returns a stable name for the included file and its text. `includer` is the
    /// name of the file that contains the directive (`None` for a source string).
    fn resolve(&self, path: &str, includer: Option<&str>)
        -> Result<(String, String), IncludeError>;

    /// The same for `#include <path>`, a system header: GL_GOOGLE_include_directive
    /// looks those up only on the include path, never next to the includer.
    /// By default, as `#include "path"`.
    fn resolve_system(
        &self,
        path: &str,
        includer: Option<&str>,
    ) -> Result<(String, String), IncludeError> {
        self.resolve(path, includer)
    }
}

/// Files held in memory, by the name an `#include` gives (tests, tools).
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles(pub Vec<(&'static str, &'static str)>);

impl IncludeResolver for MemoryFiles {
    fn resolve(&self, path: &str, _: Option<&str>) -> Result<(String, String), IncludeError> {
        self.0
            .iter()
            .find(|(n, _)| *n == path)
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .ok_or_else(|| format!("{path} not found").into())
    }
}

/// Where a piece of [`SourceText::text`] came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The n-th string passed to `glShaderSource` (0-based).
    String(usize),
    /// An included file, by the name its resolver gave it.
    Include(String),
}

#[derive(Clone, Debug)]
struct Piece {
    text_start: usize,
    len: usize,
    origin: usize,
    origin_start: usize,
}

/// A run of [`SourceText::text`] copied from one origin (see [`SourceText::pieces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourcePiece<'a> {
    /// Where the run starts in `text`.
    pub text_start: usize,
    pub len: usize,
    pub origin: &'a Origin,
    /// Where the run starts in the origin's own text.
    pub origin_start: usize,
}

/// A position for people: 1-based line and column in one origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub origin: Origin,
    pub line: u32,
    pub column: u32,
}

/// The text the parser saw, with the means to map offsets back to their origins.
#[derive(Clone, Debug)]
pub struct SourceText {
    pub text: String,
    pieces: Vec<Piece>,
    origins: Vec<(Origin, String)>,
    /// Offsets of line starts in `text`.
    line_starts: Vec<usize>,
}

const MAX_INCLUDE_DEPTH: usize = 32;

impl SourceText {
    /// Concatenates the source strings (as the driver does) and expands `#include`.
    pub fn new(
        strings: &[&str],
        resolver: Option<&dyn IncludeResolver>,
    ) -> Result<SourceText, Diagnostic> {
        let mut st = SourceText {
            text: String::new(),
            pieces: Vec::new(),
            origins: Vec::new(),
            line_starts: Vec::new(),
        };
        for (i, s) in strings.iter().enumerate() {
            st.append(Origin::String(i), s, resolver, 0)?;
        }
        st.line_starts = line_starts(&st.text);
        Ok(st)
    }

    fn append(
        &mut self,
        origin: Origin,
        src: &str,
        resolver: Option<&dyn IncludeResolver>,
        depth: usize,
    ) -> Result<(), Diagnostic> {
        let origin_idx = self.origins.len();
        self.origins.push((origin.clone(), src.to_string()));
        // A UTF-8 byte order mark is no part of the text (drivers skip it).
        let bom = if src.starts_with('\u{feff}') { 3 } else { 0 };
        let mut piece_start = bom;
        let mut offset = bom;
        for line in src[bom..].split_inclusive('\n') {
            if let Some((path, system)) = include_target(line) {
                let at = Span::new(
                    self.text.len() + (offset - piece_start),
                    line.trim_end().len(),
                );
                self.push_piece(origin_idx, piece_start, &src[piece_start..offset]);
                let Some(resolver) = resolver else {
                    return Err(Diagnostic::error(
                        at,
                        format!("#include \"{path}\": no include resolver (GL_GOOGLE_include_directive needs one)"),
                    ).with_kind(DiagnosticKind::Include));
                };
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(Diagnostic::error(
                        at,
                        format!("#include \"{path}\": includes nested deeper than {MAX_INCLUDE_DEPTH} (cyclic?)"),
                    ).with_kind(DiagnosticKind::Include));
                }
                let includer = match &origin {
                    Origin::Include(name) => Some(name.as_str()),
                    Origin::String(_) => None,
                };
                let resolved = if system {
                    resolver.resolve_system(path, includer)
                } else {
                    resolver.resolve(path, includer)
                };
                let (name, text) = resolved.map_err(|e| {
                    Diagnostic::error(at, format!("#include \"{path}\": {e}"))
                        .with_kind(DiagnosticKind::Include)
                })?;
                self.append(Origin::Include(name), &text, Some(resolver), depth + 1)?;
                if !self.text.ends_with('\n') {
                    self.text.push('\n');
                }
                piece_start = offset + line.len();
            } else if is_include_extension(line) {
                // The driver must not see the extension we implemented ourselves;
                // keep the line count so line numbers stay put.
                self.push_piece(origin_idx, piece_start, &src[piece_start..offset]);
                self.text.push('\n');
                piece_start = offset + line.len();
            }
            offset += line.len();
        }
        self.push_piece(origin_idx, piece_start, &src[piece_start..]);
        Ok(())
    }

    fn push_piece(&mut self, origin: usize, origin_start: usize, s: &str) {
        if s.is_empty() {
            return;
        }
        self.pieces.push(Piece {
            text_start: self.text.len(),
            len: s.len(),
            origin,
            origin_start,
        });
        self.text.push_str(s);
    }

    /// Maps a byte offset of `text` to the origin it came from.
    pub fn locate(&self, offset: usize) -> Location {
        let idx = self
            .pieces
            .partition_point(|p| p.text_start + p.len <= offset)
            .min(self.pieces.len().saturating_sub(1));
        let Some(piece) = self.pieces.get(idx) else {
            return Location {
                origin: Origin::String(0),
                line: 1,
                column: 1,
            };
        };
        let (origin, src) = &self.origins[piece.origin];
        let in_origin =
            (piece.origin_start + offset.saturating_sub(piece.text_start)).min(src.len());
        let before = &src[..floor_char_boundary(src, in_origin)];
        let line = before.matches('\n').count() as u32 + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
        Location {
            origin: origin.clone(),
            line,
            column,
        }
    }

    /// 1-based line of an offset in `text` (the concatenated runtime source).
    pub fn line_of(&self, offset: usize) -> u32 {
        self.line_starts.partition_point(|&s| s <= offset) as u32
    }

    /// The text of one 1-based line of `text`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let i = line.saturating_sub(1) as usize;
        let Some(&start) = self.line_starts.get(i) else {
            return "";
        };
        let end = self
            .line_starts
            .get(i + 1)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    pub fn line_count(&self) -> u32 {
        self.line_starts.len() as u32
    }

    /// The pieces `text` is made of, in order: each a run of `text` copied from
    /// one origin. Bytes between pieces (a newline added after an included file,
    /// the blanked `#extension GL_GOOGLE_include_directive` line, the newline
    /// `parse_text` may add at the end) belong to no piece. For mapping many
    /// offsets at once (an editor converting every span of a shader).
    pub fn pieces(&self) -> impl Iterator<Item = SourcePiece<'_>> + '_ {
        self.pieces.iter().map(|p| SourcePiece {
            text_start: p.text_start,
            len: p.len,
            origin: &self.origins[p.origin].0,
            origin_start: p.origin_start,
        })
    }

    /// The origins (source strings and included files) with their full text.
    pub fn origins(&self) -> impl Iterator<Item = (&Origin, &str)> + '_ {
        self.origins.iter().map(|(o, t)| (o, t.as_str()))
    }
}

/// Where `w` stands in `src` as a word of its own (not inside a longer
/// identifier), comments and all.
fn word_places<'a>(src: &'a str, w: &'a str) -> impl Iterator<Item = usize> + 'a {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = src.as_bytes();
    src.match_indices(w).map(|(at, _)| at).filter(move |&at| {
        let before = at.checked_sub(1).map(|p| bytes[p]);
        !before.is_some_and(ident) && !bytes.get(at + w.len()).copied().is_some_and(ident)
    })
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

fn directive<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix(name)?;
    rest.starts_with([' ', '\t', '"', '<']).then(|| rest.trim())
}

/// The path of an `#include` line, and whether it is a system header (`<path>`).
fn include_target(line: &str) -> Option<(&str, bool)> {
    let arg = directive(line, "include")?;
    let arg = arg.split("//").next().unwrap_or(arg).trim();
    arg.strip_prefix('"')
        .and_then(|a| a.strip_suffix('"'))
        .map(|p| (p, false))
        .or_else(|| {
            arg.strip_prefix('<')
                .and_then(|a| a.strip_suffix('>'))
                .map(|p| (p, true))
        })
}

fn is_include_extension(line: &str) -> bool {
    directive(line, "extension").is_some_and(|a| {
        a.starts_with("GL_GOOGLE_include_directive")
            || a.starts_with("GL_ARB_shading_language_include")
    })
}

/// An `#extension` directive of the shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extension {
    /// The extension's name, or `all`.
    pub name: String,
    /// `require`, `enable`, `warn` or `disable`.
    pub behavior: String,
    /// The directive's place in [`SourceText::text`].
    pub span: Span,
}

/// A statement or function attribute list (`[[unroll]]`, GL_EXT_control_flow_attributes),
/// which glsl-lang's grammar does not have: hidden from it and kept here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// The list as written, `[[` to `]]` (a macro's: as it expanded).
    pub text: String,
    /// Its place in [`SourceText::text`]: in a macro's body, or where the
    /// macro is used when the shader's macros are expanded by
    /// [`crate::preprocess`].
    pub span: Span,
}

/// The text glsl-lang parses: `source` with the `#extension` lines that
/// glsl-lang's registry does not know (it rejects them) blanked, so every
/// offset stays put. Returns the text and those directives (the analysis
/// judges them from `builtins/extensions.txt`). Known gap: glsl-lang defines
/// a macro only for the extensions of its registry (and forbids `#define
/// GL_...`), so `#ifdef GL_EXT_...` of the others is false.
fn hide_extensions_glsl_lang_rejects(source: &str) -> (std::borrow::Cow<'_, str>, Vec<Extension>) {
    use glsl_lang_pp::exts::{names::ExtNameAtom, DEFAULT_REGISTRY};
    let mut text: Option<String> = None;
    let mut hidden = Vec::new();
    let mut offset = 0;
    let es = source
        .lines()
        .find_map(|l| directive(l, "version"))
        .is_some_and(|v| {
            let v = v.split("//").next().unwrap_or("");
            v.split_whitespace().any(|w| w == "es" || w == "100")
        });
    for line in source.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        if let Some(new_line) = conditional_on_hidden_extension(line, es) {
            let t = text.get_or_insert_with(|| source.to_string());
            t.replace_range(at..at + line.len(), &new_line);
            continue;
        }
        let Some(rest) = directive(line, "extension") else {
            continue;
        };
        let Some((name, behavior)) = rest.split_once(':') else {
            continue;
        };
        let name = name.trim();
        let behavior = behavior.split("//").next().unwrap_or("").trim();
        if name == "all" || DEFAULT_REGISTRY.get(&ExtNameAtom::from(name)).is_some() {
            continue;
        }
        let body = line.trim_end_matches(['\n', '\r']);
        let t = text.get_or_insert_with(|| source.to_string());
        t.replace_range(at..at + body.len(), &" ".repeat(body.len()));
        hidden.push(Extension {
            name: name.to_string(),
            behavior: behavior.to_string(),
            span: Span::new(at, body.len()),
        });
    }
    let text = match text {
        Some(t) => std::borrow::Cow::Owned(t),
        None => std::borrow::Cow::Borrowed(source),
    };
    (text, hidden)
}

/// A `#if`/`#ifdef`/`#ifndef`/`#elif` line that tests the macro of an
/// extension we support but glsl-lang's registry does not know (so it
/// defines no macro for it, and forbids `#define GL_...`), rewritten at the
/// same length: `defined` and `#ifdef` of it test `__LINE__` (always
/// defined), its value is `1`. Not for `GL_OES_*` in desktop shaders nor
/// `GL_ARB_*` in ES ones (`es`), which drivers of the other API lack.
fn conditional_on_hidden_extension(line: &str, es: bool) -> Option<String> {
    use glsl_lang_pp::exts::{names::ExtNameAtom, DEFAULT_REGISTRY};
    let kind = ["ifdef", "ifndef", "if", "elif"]
        .into_iter()
        .find(|k| directive(line, k).is_some())?;
    if !line.contains("GL_") {
        return None;
    }
    let mut out = String::with_capacity(line.len());
    let mut changed = false;
    let mut rest = line;
    let mut after_defined = kind != "if" && kind != "elif";
    while !rest.is_empty() {
        let word_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if word_len == 0 {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            if !c.is_whitespace() && c != '(' {
                after_defined = kind == "ifdef" || kind == "ifndef";
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let word = &rest[..word_len];
        rest = &rest[word_len..];
        // ES-only and desktop-only families stay undefined in the other API.
        let other_api = if es {
            word.starts_with("GL_ARB_")
        } else {
            word.starts_with("GL_OES_")
        };
        let hidden = word.starts_with("GL_")
            && !other_api
            && word.len() >= "__LINE__".len()
            && crate::builtins::is_extension(word)
            && DEFAULT_REGISTRY.get(&ExtNameAtom::from(word)).is_none();
        if hidden {
            let with = if after_defined { "__LINE__" } else { "1" };
            out.push_str(&format!("{with:<width$}", width = word.len()));
            changed = true;
        } else {
            out.push_str(word);
        }
        after_defined =
            word == "defined" || ((kind == "ifdef" || kind == "ifndef") && word == kind);
    }
    changed.then_some(out)
}

/// The words of the first `#version` line (`["300", "es"]`).
fn version_words(source: &str) -> Option<Vec<&str>> {
    let v = source.lines().find_map(|l| directive(l, "version"))?;
    Some(
        v.split("//")
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect(),
    )
}

/// A parse context in which the type names that the shader's enabled
/// extensions add (`types` lines of `extensions.txt`) are type names.
/// glsl-lang's lexer knows only the types of its own registry, and those
/// only when its registry knows the extension (`int8_t` of
/// GL_NV_gpu_shader5, hidden from it, was an identifier) and only from the
/// version that made them core (`sampler1DArray` of GL_EXT_texture_array in
/// 1.10). Every `#extension` line counts, wherever it stands: the analysis
/// still rejects a type its extension does not enable where it is used.
fn extension_type_names(source: &str) -> glsl_lang::parse::ParseContext {
    let ctx = glsl_lang::parse::ParseContext::new();
    // Core types of GLSL ES that glsl-lang gates by the desktop version
    // that made them core (4.00, 4.20), above any ES version number.
    if let Some(words) = version_words(source).filter(|w| w.contains(&"es")) {
        let n: u32 = words.first().and_then(|n| n.parse().ok()).unwrap_or(0);
        let mut core: Vec<&str> = Vec::new();
        if n >= 310 {
            core.push("atomic_uint");
        }
        if n >= 320 {
            core.extend([
                "samplerCubeArray",
                "samplerCubeArrayShadow",
                "isamplerCubeArray",
                "usamplerCubeArray",
            ]);
        }
        for name in core {
            ctx.add_type_name(ast::IdentifierData::from(name).into());
        }
    }
    let mut exts = crate::builtins::ExtSet::default();
    for line in source.lines() {
        let Some((name, behavior)) = directive(line, "extension").and_then(|r| r.split_once(':'))
        else {
            continue;
        };
        if behavior.split("//").next().unwrap_or("").trim() != "disable" {
            exts.enable(name.trim());
        }
    }
    for name in crate::builtins::enabled_extension_types(&exts) {
        ctx.add_type_name(ast::IdentifierData::from(name).into());
    }
    // GL_KHR_vulkan_glsl's subpass inputs, in every version (glsl-lang
    // knows them only in 4.60 and later).
    // And its separate textures and samplers (`uniform texture2D t;
    // uniform sampler s;` ... `texture(sampler2D(t, s), uv)`: how HLSL
    // compiled by DXC, decompiled, and many engines' own GLSL sample),
    // which glsl-lang does not have.
    if Api::of_text(source) == Api::Vulkan {
        for prefix in ["", "i", "u"] {
            for name in ["subpassInput", "subpassInputMS"]
                .into_iter()
                .chain(crate::shader::SEPARATE_TEXTURES)
            {
                let name = format!("{prefix}{name}");
                ctx.add_type_name(ast::IdentifierData::from(name.as_str()).into());
            }
        }
        for name in crate::shader::SEPARATE_SAMPLERS {
            ctx.add_type_name(ast::IdentifierData::from(name).into());
        }
    }
    ctx
}

/// Qualifier keywords: after `invariant`, one of them makes glsl-lang's
/// grammar happy.
const QUALIFIER_WORDS: [&str; 20] = [
    "in",
    "out",
    "inout",
    "uniform",
    "buffer",
    "varying",
    "attribute",
    "centroid",
    "sample",
    "patch",
    "flat",
    "smooth",
    "noperspective",
    "highp",
    "mediump",
    "lowp",
    "layout",
    "precise",
    "const",
    "shared",
];

/// glsl-lang's grammar wants another qualifier after `invariant`, so a
/// block member `invariant vec4 v;` (GLSL 1.50 and later) does not parse.
/// Blanks each `invariant` directly followed by a type and a name; returns
/// the text and where those types start, for [`restore_lone_invariants`].
fn hide_lone_invariants(
    text: std::borrow::Cow<'_, str>,
) -> (std::borrow::Cow<'_, str>, Vec<usize>) {
    let word_at = |s: &str, i: usize| -> usize {
        s[i..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(s.len(), |n| i + n)
    };
    let skip_space = |s: &str, i: usize| -> usize {
        s[i..]
            .find(|c: char| !c.is_whitespace())
            .map_or(s.len(), |n| i + n)
    };
    let mut found = Vec::new();
    let mut types = Vec::new();
    let src = text.as_ref();
    let mut at = 0;
    while let Some(n) = src[at..].find("invariant") {
        let i = at + n;
        at = i + "invariant".len();
        let before = src[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        // Not in a comment (a line comment, or an unclosed block comment).
        let line_start = src[..i].rfind('\n').map_or(0, |p| p + 1);
        if src[line_start..i].contains("//") || src[..i].rfind("/*") > src[..i].rfind("*/") {
            continue;
        }
        let w1 = skip_space(src, at);
        let w1_end = word_at(src, w1);
        if w1_end == w1 || w1 == at || QUALIFIER_WORDS.contains(&&src[w1..w1_end]) {
            continue;
        }
        let w2 = skip_space(src, w1_end);
        if word_at(src, w2) == w2 || w2 == w1_end {
            continue;
        }
        found.push(i);
        types.push(w1);
    }
    if found.is_empty() {
        return (text, types);
    }
    let mut owned = text.into_owned();
    for i in found {
        owned.replace_range(i..i + "invariant".len(), "         ");
    }
    (std::borrow::Cow::Owned(owned), types)
}

/// Puts back the `invariant` qualifier [`hide_lone_invariants`] took from
/// block members (and struct fields), on the members whose type starts at
/// one of `types`.
fn restore_lone_invariants(tu: &mut ast::TranslationUnit, types: &[usize]) {
    if types.is_empty() {
        return;
    }
    let starts_at = |f: &ast::StructFieldSpecifier| {
        f.ty.span
            .is_some_and(|s| types.contains(&usize::from(s.start().offset)))
    };
    let invariant = || -> ast::TypeQualifier {
        ast::TypeQualifierData {
            qualifiers: vec![ast::TypeQualifierSpecData::Invariant.into()],
        }
        .into()
    };
    for ext in &mut tu.0 {
        if let ast::ExternalDeclarationData::Declaration(d) = &mut ext.content {
            if let ast::DeclarationData::Block(b) = &mut d.content {
                for f in &mut b.fields {
                    if f.qualifier.is_none() && starts_at(f) {
                        f.qualifier = Some(invariant());
                    }
                }
            }
        }
    }
}

/// The statement attributes of GL_EXT_control_flow_attributes
/// (`[[unroll]]`, `[[dependency_length(4)]]`), which glsl-lang's grammar
/// does not have, blanked in the code and in `#define` bodies (SPIRV-Cross
/// writes them as macros, `#define SPIRV_CROSS_UNROLL [[unroll]]`).
/// They are hints to the compiler that cannot change what a shader
/// computes, so nothing puts them back: an instrumented shader goes
/// without them. A `[[` without its `]]` stays (a syntax error).
fn hide_control_flow_attributes(
    text: std::borrow::Cow<'_, str>,
) -> (std::borrow::Cow<'_, str>, Vec<std::ops::Range<usize>>) {
    let src = text.as_ref();
    let bytes = src.as_bytes();
    // Past the white space and comments from `i` (the two brackets of
    // `[[` and `]]` are tokens of their own: `[ /* c */ [` is one too).
    let skip_trivia = |mut i: usize| loop {
        if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(src.len(), |n| i + n);
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(src.len(), |n| i + 2 + n + 2);
        } else if bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        } else {
            break i;
        }
    };
    let mut found: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if src[i..].starts_with("//") || src[i..].starts_with("/*") {
            i = skip_trivia(i);
        } else if bytes[i] == b'[' && bytes.get(skip_trivia(i + 1)) == Some(&b'[') {
            // No GLSL expression starts with `[`: this is an attribute list.
            // Its `]]`: brackets inside (an index in an argument) counted.
            let mut depth = 0usize;
            let mut j = skip_trivia(i + 1) + 1;
            let end = loop {
                j = skip_trivia(j);
                match bytes.get(j) {
                    None | Some(b';' | b'{' | b'}') => break None,
                    Some(b'[') => depth += 1,
                    Some(b']') if depth == 0 => {
                        let k = skip_trivia(j + 1);
                        if bytes.get(k) == Some(&b']') {
                            break Some(k + 1);
                        }
                        break None;
                    }
                    Some(b']') => depth -= 1,
                    _ => {}
                }
                j += 1;
            };
            match end {
                Some(end) => {
                    found.push(i..end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += src[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    if found.is_empty() {
        return (text, found);
    }
    let mut owned = text.into_owned();
    for range in found.iter().cloned() {
        // Spaces, newlines kept: every offset and line stays where it was.
        let blank: String = owned[range.clone()]
            .chars()
            .map(|c| match c {
                '\n' => "\n".to_string(),
                c => " ".repeat(c.len_utf8()),
            })
            .collect();
        owned.replace_range(range, &blank);
    }
    (std::borrow::Cow::Owned(owned), found)
}

/// Words later desktop GLSL versions made keywords, with the first
/// version each is one in (glslang's; GLSL ES reserves them all):
/// glsl-lang's lexer takes them as keywords in every version.
/// (`layout` is left out: `layout(` reads as a call as well as a
/// qualifier.)
const LATER_KEYWORDS: [(&str, u32); 14] = [
    ("centroid", 120),
    ("flat", 130),
    ("smooth", 130),
    ("noperspective", 130),
    ("shared", 140),
    ("patch", 400),
    ("sample", 400),
    ("subroutine", 400),
    ("precise", 400),
    ("coherent", 420),
    ("restrict", 420),
    ("readonly", 420),
    ("writeonly", 420),
    ("buffer", 430),
];

/// A desktop shader older than the version that made one of
/// [`LATER_KEYWORDS`] a keyword may name things with it (`vec4 sample =
/// texture2D(...)` in GLSL 1.10, as drivers and glslang accept): each such
/// word becomes a same-length identifier (`_ample`) that
/// [`restore_later_keywords`] names back, where it is not followed by a
/// word (`flat in`, `sample out`: a qualifier, as the shader meant, and
/// an error in that version). Not in a shader with an `#extension`
/// (extensions make some of them keywords early), nor where the shader
/// already uses the stand-in. Returns (stand-in, word) pairs.
fn hide_later_keywords<'a>(
    text: std::borrow::Cow<'a, str>,
    original: &str,
) -> (std::borrow::Cow<'a, str>, Vec<(String, &'static str)>) {
    let words = version_words(original).unwrap_or_default();
    let version: u32 = words.first().and_then(|n| n.parse().ok()).unwrap_or(110);
    let es = version == 100 || words.contains(&"es");
    let src = text.as_ref();
    if es || src.lines().any(|l| directive(l, "extension").is_some()) {
        return (text, Vec::new());
    }
    // Where `w` names something: no word follows it.
    let names = |w: &'static str| -> Vec<usize> {
        word_places(src, w)
            .filter(|&at| {
                let next = src[at + w.len()..].trim_start().bytes().next();
                !next.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            })
            .collect()
    };
    let mut found: Vec<(String, &'static str)> = Vec::new();
    let mut places: Vec<(usize, usize)> = Vec::new();
    for (word, from) in LATER_KEYWORDS {
        if version >= from {
            continue;
        }
        let at = names(word);
        let stand_in = format!("_{}", &word[1..]);
        if at.is_empty() || word_places(src, &stand_in).next().is_some() {
            continue;
        }
        places.extend(at.into_iter().map(|a| (a, found.len())));
        found.push((stand_in, word));
    }
    if found.is_empty() {
        return (text, found);
    }
    let mut owned = text.into_owned();
    for (at, i) in places {
        owned.replace_range(at..at + 1, "_");
        debug_assert_eq!(&owned[at..at + found[i].0.len()], found[i].0);
    }
    (std::borrow::Cow::Owned(owned), found)
}

/// Names back what [`hide_later_keywords`] renamed: every identifier and
/// type name that is one of its stand-ins.
fn restore_later_keywords(tu: &mut ast::TranslationUnit, found: &[(String, &'static str)]) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    if found.is_empty() {
        return;
    }
    struct Restore<'a>(&'a [(String, &'static str)]);
    impl Restore<'_> {
        fn word(&self, name: &str) -> Option<&'static str> {
            self.0.iter().find(|(s, _)| s == name).map(|(_, w)| *w)
        }
    }
    impl VisitorMut for Restore<'_> {
        fn visit_identifier(&mut self, id: &mut ast::Identifier) -> Visit {
            if let Some(w) = self.word(id.as_str()) {
                id.content = ast::IdentifierData::from(w);
            }
            Visit::Children
        }
        fn visit_type_name(&mut self, t: &mut ast::TypeName) -> Visit {
            if let Some(w) = self.word(t.as_str()) {
                t.content = ast::TypeNameData::from(w);
            }
            Visit::Children
        }
    }
    tu.visit_mut(&mut Restore(found));
}

/// glsl-lang's grammar rejects `invariant` after a layout qualifier
/// (`layout(location = 0) invariant out float v;`, as SPIRV-Cross writes
/// invariant outputs), which GLSL 4.20 and later allow: the qualifier is
/// moved before the layout (`invariant layout(location = 0) out`), the
/// order every version accepts. The text keeps its length and lines.
fn invariant_before_layout(text: std::borrow::Cow<'_, str>) -> std::borrow::Cow<'_, str> {
    let src = text.as_ref();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut moves: Vec<(usize, usize, String)> = Vec::new();
    for at in word_places(src, "layout") {
        // The layout's `)`, on its line.
        let line_end = src[at..].find('\n').map_or(src.len(), |n| at + n);
        let Some(close) = src[at..line_end].find(')').map(|n| at + n) else {
            continue;
        };
        let after = &src[close + 1..line_end];
        let gap = after.len() - after.trim_start().len();
        let word = &after[gap..];
        if gap == 0
            || !word.starts_with("invariant")
            || word["invariant".len()..].starts_with(ident)
        {
            continue;
        }
        // Not in a comment (looked at last: it looks back at the text).
        let line_start = src[..at].rfind('\n').map_or(0, |p| p + 1);
        if src[line_start..at].contains("//") || src[..at].rfind("/*") > src[..at].rfind("*/") {
            continue;
        }
        let end = close + 1 + gap + "invariant".len();
        let moved = format!("invariant {}{}", &src[at..=close], " ".repeat(gap - 1));
        moves.push((at, end, moved));
    }
    if moves.is_empty() {
        return text;
    }
    let mut owned = text.into_owned();
    for (start, end, moved) in moves {
        owned.replace_range(start..end, &moved);
    }
    std::borrow::Cow::Owned(owned)
}

/// Numeric literals glsl-lang's lexer rejects ([`crate::syntax::extended_literal`]:
/// `1L`, `2US`, `0.5hf`, `0xFFFFFFFF`), and strings (`debugPrintfEXT("x=%f",
/// x)`), which it has no token for, made identifiers of the same length
/// (`_L`, `_US`, `_5hf`, `_xFFFFFFFF`, `_x__f_`) in the code and in `#define` bodies
/// (not in `#if` expressions, comments or strings). Returns the text and,
/// for [`restore_extended_literals`], where each starts with its text. A
/// literal whose stand-in the shader itself uses as a word stays (and is
/// the syntax error it was).
fn hide_extended_literals(
    text: std::borrow::Cow<'_, str>,
) -> (std::borrow::Cow<'_, str>, Vec<(usize, String)>) {
    let src = text.as_ref();
    let bytes = src.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found: Vec<(usize, String)> = Vec::new();
    // Macros a `#if`/`#elif` evaluates keep their literals: the stand-in
    // there would be an undefined name, 0, not an error.
    let tested: std::collections::HashSet<&str> = src
        .lines()
        .filter_map(|l| directive(l, "if").or_else(|| directive(l, "elif")))
        .flat_map(|e| e.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .collect();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // (Every branch below leaves `i` on a character boundary.)
        let at_line_start = std::mem::replace(&mut line_start, false);
        if at_line_start && b == b'#' {
            let end = src[i..].find('\n').map_or(src.len(), |n| i + n);
            let tested_macro = directive(&src[i..end], "define").map(|d| {
                let name_end = d
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(d.len());
                tested.contains(&d[..name_end])
            });
            if tested_macro != Some(false) {
                i = end;
                continue;
            }
            i += 1;
            continue;
        }
        if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(src.len(), |n| i + n);
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(src.len(), |n| i + 2 + n + 2);
        } else if b == b'"' {
            // A string (GL_EXT_debug_printf's format): to its closing quote
            // on the line, past escaped ones.
            let start = i;
            i += 1;
            let mut closed = false;
            while i < bytes.len() && bytes[i] != b'\n' {
                match bytes[i] {
                    b'\\' if bytes.get(i + 1) != Some(&b'\n') => i += 2,
                    b'"' => {
                        i += 1;
                        closed = true;
                        break;
                    }
                    _ => i += 1,
                }
            }
            i = floor_char_boundary(src, i.min(src.len()));
            if closed {
                found.push((start, src[start..i].to_string()));
            }
        } else if ident(b) && !b.is_ascii_digit() {
            while i < bytes.len() && ident(bytes[i]) {
                i += 1;
            }
        } else if b.is_ascii_digit()
            || (b == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            let hex = src[i..].starts_with("0x") || src[i..].starts_with("0X");
            while i < bytes.len() {
                let c = bytes[i];
                let exponent_sign =
                    matches!(c, b'+' | b'-') && !hex && matches!(bytes[i - 1], b'e' | b'E');
                if !(ident(c) || c == b'.' || exponent_sign) {
                    break;
                }
                i += 1;
            }
            let literal = &src[start..i];
            if crate::syntax::extended_literal(literal).is_some() {
                found.push((start, literal.to_string()));
            }
        } else {
            i += src[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    found.retain(|(_, lit)| word_places(src, &literal_stand_in(lit)).next().is_none());
    if found.is_empty() {
        return (text, found);
    }
    let mut owned = text.into_owned();
    for (at, lit) in &found {
        owned.replace_range(*at..*at + lit.len(), &literal_stand_in(lit));
    }
    (std::borrow::Cow::Owned(owned), found)
}

/// The identifier standing in for a literal, as long: `_`, then its text
/// after the first character with every byte of what an identifier cannot
/// hold (`.`, `+`, `-`, a string's quotes and spaces) as `_`.
fn literal_stand_in(lit: &str) -> String {
    std::iter::once("_".to_string())
        .chain(lit.chars().skip(1).map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c.to_string()
            } else {
                "_".repeat(c.len_utf8())
            }
        }))
        .collect()
}

/// Puts back the literals [`hide_extended_literals`] hid: each stand-in
/// identifier read as a variable becomes a `Variable` named by the
/// literal's text, found by where it starts (or, expanded from a macro
/// elsewhere, by its name where that names one literal only).
fn restore_extended_literals(tu: &mut ast::TranslationUnit, found: &[(usize, String)]) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    if found.is_empty() {
        return;
    }
    struct Restore<'a> {
        by_offset: std::collections::HashMap<usize, &'a str>,
        by_name: std::collections::HashMap<String, Option<&'a str>>,
    }
    impl VisitorMut for Restore<'_> {
        fn visit_expr(&mut self, e: &mut ast::Expr) -> Visit {
            if let ast::ExprData::Variable(id) = &mut e.content {
                let at = id.span.map(|s| usize::from(s.start().offset));
                let lit = at
                    .and_then(|at| self.by_offset.get(&at).copied())
                    .or_else(|| self.by_name.get(id.as_str()).copied().flatten());
                if let Some(lit) = lit {
                    id.content = ast::IdentifierData::from(lit);
                }
            }
            Visit::Children
        }
    }
    let mut r = Restore {
        by_offset: found.iter().map(|(at, l)| (*at, l.as_str())).collect(),
        by_name: std::collections::HashMap::new(),
    };
    for (_, lit) in found {
        r.by_name
            .entry(literal_stand_in(lit))
            .and_modify(|e| {
                if *e != Some(lit.as_str()) {
                    *e = None;
                }
            })
            .or_insert(Some(lit.as_str()));
    }
    tu.visit_mut(&mut r);
}

/// A global `type_qualifier identifier_list ;` (GLSL §4.10, e.g. `layout(constant_id
/// = 2) gl_EnableOpacityMicromapEXT;`), which glsl-lang's grammar lacks
/// (it has only `invariant name;`): the names and their offsets, and where
/// the `;` is.
#[derive(Clone, Debug)]
struct QualifierRedeclaration {
    semicolon: usize,
    names: Vec<(usize, String)>,
    /// `invariant` alone (of several names): glsl-lang reads the first.
    invariant: bool,
}

/// Qualifier words a redeclaration of qualifiers may use.
const REDECLARED_QUALIFIERS: [&str; 27] = [
    "layout",
    "shared",
    "const",
    "attribute",
    "varying",
    "subroutine",
    "precision",
    "precise",
    "invariant",
    "coherent",
    "volatile",
    "restrict",
    "readonly",
    "writeonly",
    "flat",
    "smooth",
    "noperspective",
    "centroid",
    "sample",
    "patch",
    "highp",
    "mediump",
    "lowp",
    "in",
    "out",
    "uniform",
    "buffer",
];

/// Blanks the names (and commas) of each global [`QualifierRedeclaration`]
/// on one line, so glsl-lang reads a qualifier-only declaration;
/// [`restore_qualifier_redeclarations`] gives it the names back. Not for
/// `invariant name;` alone, which glsl-lang reads itself.
fn hide_qualifier_redeclarations(
    text: std::borrow::Cow<'_, str>,
) -> (std::borrow::Cow<'_, str>, Vec<QualifierRedeclaration>) {
    let src = text.as_ref();
    let bytes = src.as_bytes();
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let directive = b == b'#' && at_line_start(src, i);
        if directive || src[i..].starts_with("//") {
            // To the end of the line; a statement starts after a directive.
            i = src[i..].find('\n').map_or(src.len(), |n| i + n);
            if directive {
                start = i;
            }
            continue;
        }
        if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(src.len(), |n| i + 2 + n + 2);
            continue;
        }
        match b {
            b'{' => {
                depth += 1;
                start = i + 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                start = i + 1;
            }
            b';' if depth == 0 => {
                if let Some((names, invariant)) = qualifier_redeclaration(&src[start..i], start) {
                    found.push(QualifierRedeclaration {
                        semicolon: i,
                        names,
                        invariant,
                    });
                }
                start = i + 1;
            }
            b';' => start = i + 1,
            _ => {}
        }
        i += src[i..].chars().next().map_or(1, char::len_utf8);
    }
    if found.is_empty() {
        return (text, found);
    }
    let mut owned = text.into_owned();
    for r in &found {
        // `invariant a, b;`: glsl-lang reads `invariant a;` itself.
        let keep = usize::from(r.invariant);
        let first = match (r.invariant, r.names.get(keep)) {
            (true, Some((at, _))) => owned[..*at].rfind(',').unwrap_or(*at),
            (_, Some((at, _))) => *at,
            (_, None) => r.semicolon,
        };
        let blank: String = owned[first..r.semicolon]
            .chars()
            .map(|c| if c == '\n' { c } else { ' ' })
            .collect();
        owned.replace_range(first..r.semicolon, &blank);
    }
    (std::borrow::Cow::Owned(owned), found)
}

/// Whether only white space stands before `i` on its line (a `#` there
/// starts a directive).
fn at_line_start(src: &str, i: usize) -> bool {
    src[..i]
        .rsplit('\n')
        .next()
        .is_some_and(|l| l.trim().is_empty())
}

/// The names (with their offsets, `base` being where `stmt` starts) of a
/// statement that is qualifiers then a comma-separated list of names, and
/// whether the qualifiers are `invariant` alone.
fn qualifier_redeclaration(stmt: &str, base: usize) -> Option<(Vec<(usize, String)>, bool)> {
    let bytes = stmt.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    let mut qualifiers = Vec::new();
    let mut names: Vec<(usize, String)> = Vec::new();
    // Spaces and comments.
    let skip_space = |i: &mut usize| loop {
        while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
            *i += 1;
        }
        if stmt[*i..].starts_with("//") {
            *i = stmt[*i..].find('\n').map_or(stmt.len(), |n| *i + n);
        } else if stmt[*i..].starts_with("/*") {
            *i = stmt[*i + 2..]
                .find("*/")
                .map_or(stmt.len(), |n| *i + 2 + n + 2);
        } else {
            break;
        }
    };
    loop {
        skip_space(&mut i);
        if i >= bytes.len() {
            break;
        }
        let w_start = i;
        while i < bytes.len() && ident(bytes[i]) {
            i += 1;
        }
        if i == w_start || bytes[w_start].is_ascii_digit() {
            return None;
        }
        let word = &stmt[w_start..i];
        if names.is_empty() && REDECLARED_QUALIFIERS.contains(&word) {
            qualifiers.push(word);
            if word == "layout" {
                skip_space(&mut i);
                if bytes.get(i) != Some(&b'(') {
                    return None;
                }
                let close = stmt[i..].find(')')?;
                i += close + 1;
            }
            continue;
        }
        if qualifiers.is_empty()
            || crate::types::parse_type_name(word).is_some()
            || REDECLARED_QUALIFIERS.contains(&word)
        {
            return None;
        }
        names.push((base + w_start, word.to_string()));
        skip_space(&mut i);
        match bytes.get(i) {
            None => break,
            Some(b',') => i += 1,
            Some(_) => return None,
        }
    }
    let invariant = qualifiers.iter().all(|q| *q == "invariant");
    let invariant_one = invariant && names.len() == 1;
    (!names.is_empty() && !invariant_one && !qualifiers.contains(&"precision"))
        .then_some((names, invariant))
}

/// Turns each qualifier-only declaration [`hide_qualifier_redeclarations`]
/// made back into the names' declaration: an init-declarator list whose
/// type is the empty type name (the transpiler prints `layout(...)  name;`,
/// the analysis reads it as a redeclaration of qualifiers).
fn restore_qualifier_redeclarations(
    tu: &mut ast::TranslationUnit,
    found: &[QualifierRedeclaration],
) {
    if found.is_empty() {
        return;
    }
    let ends_at = |d: &ast::Declaration| {
        let end = d.span.map(|s| usize::from(s.end().offset))?;
        found
            .iter()
            .find(|r| r.semicolon + 1 == end || r.semicolon == end)
    };
    // `invariant a, b;` read as `invariant a;`: one declaration per name.
    let mut i = 0;
    while i < tu.0.len() {
        let extra: Vec<ast::ExternalDeclaration> = match &tu.0[i].content {
            ast::ExternalDeclarationData::Declaration(d)
                if matches!(d.content, ast::DeclarationData::Invariant(_)) =>
            {
                let span = d.span;
                ends_at(d).filter(|r| r.invariant).map_or(Vec::new(), |r| {
                    r.names
                        .iter()
                        .skip(1)
                        .map(|n| {
                            let decl = ast::Declaration::new(
                                ast::DeclarationData::Invariant(name_at(n, span)),
                                span,
                            );
                            ast::ExternalDeclaration::new(
                                ast::ExternalDeclarationData::Declaration(decl),
                                span,
                            )
                        })
                        .collect()
                })
            }
            _ => Vec::new(),
        };
        let n = extra.len();
        tu.0.splice(i + 1..i + 1, extra);
        i += n + 1;
    }
    for ext in &mut tu.0 {
        let ast::ExternalDeclarationData::Declaration(d) = &mut ext.content else {
            continue;
        };
        let ast::DeclarationData::TypeOnly(q) = &d.content else {
            continue;
        };
        let Some(span) = d.span else { continue };
        let Some(r) = ends_at(d).filter(|r| !r.invariant) else {
            continue;
        };
        let id = |n: &(usize, String)| name_at(n, Some(span));
        let Some((first, rest)) = r.names.split_first() else {
            continue;
        };
        let ty = ast::FullySpecifiedTypeData {
            qualifier: Some(q.clone()),
            ty: ast::TypeSpecifierData {
                ty: ast::TypeSpecifierNonArrayData::TypeName(ast::TypeNameData::from("").into())
                    .into(),
                array_specifier: None,
            }
            .into(),
        };
        let head = ast::SingleDeclarationData {
            ty: ast::FullySpecifiedType::new(ty, q.span),
            name: Some(id(first)),
            array_specifier: None,
            initializer: None,
        };
        let tail = rest
            .iter()
            .map(|n| {
                ast::SingleDeclarationNoTypeData {
                    ident: ast::ArrayedIdentifierData {
                        ident: id(n),
                        array_spec: None,
                    }
                    .into(),
                    initializer: None,
                }
                .into()
            })
            .collect();
        d.content = ast::DeclarationData::InitDeclaratorList(
            ast::InitDeclaratorListData {
                head: ast::SingleDeclaration::new(head, d.span),
                tail,
            }
            .into(),
        );
    }
}

/// The blocks of GL_EXT_buffer_reference (`layout(buffer_reference)
/// buffer Node { ... };` and its forward declaration `layout(
/// buffer_reference) buffer Node;`) in the code: each name, where it
/// stands, and whether a `{` (a definition) follows it.
fn buffer_reference_blocks(src: &str) -> Vec<(usize, String, bool)> {
    if !src.contains("buffer_reference") {
        return Vec::new();
    }
    let bytes = src.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // Past white space, comments and directives from `i`.
    let skip_trivia = |mut i: usize| loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let directive = bytes.get(i) == Some(&b'#') && at_line_start(src, i);
        if directive || src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(src.len(), |n| i + n);
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(src.len(), |n| i + 2 + n + 2);
        } else {
            return i;
        }
    };
    let word_end = |i: usize| {
        src[i..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(src.len(), |n| i + n)
    };
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut i = skip_trivia(0);
    while i < bytes.len() {
        let b = bytes[i];
        if !ident(b) || b.is_ascii_digit() {
            match b {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            i = skip_trivia(i + src[i..].chars().next().map_or(1, char::len_utf8));
            continue;
        }
        let end = word_end(i);
        if depth > 0 || &src[i..end] != "layout" {
            i = skip_trivia(end);
            continue;
        }
        // A global declaration's layout: is `buffer_reference` one of its ids?
        let open = skip_trivia(end);
        let Some(close) = (bytes.get(open) == Some(&b'('))
            .then(|| src[open..].find(')').map(|n| open + n))
            .flatten()
        else {
            i = open;
            continue;
        };
        let ids = &src[open + 1..close];
        let reference = ids
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == "buffer_reference");
        i = skip_trivia(close + 1);
        if !reference {
            continue;
        }
        // Qualifiers up to `buffer`, then the name, then `{` or `;`.
        let mut buffer = false;
        while i < bytes.len() && ident(bytes[i]) && !buffer {
            let end = word_end(i);
            buffer = &src[i..end] == "buffer";
            i = skip_trivia(end);
            if bytes.get(i) == Some(&b'(') {
                // Another layout's ids.
                i = src[i..]
                    .find(')')
                    .map_or(src.len(), |n| skip_trivia(i + n + 1));
            }
        }
        if !buffer || i >= bytes.len() || !ident(bytes[i]) || bytes[i].is_ascii_digit() {
            continue;
        }
        let name_end = word_end(i);
        let after = skip_trivia(name_end);
        match bytes.get(after) {
            Some(b'{') | Some(b';') => {
                found.push((i, src[i..name_end].to_string(), bytes[after] == b'{'));
            }
            _ => {}
        }
        i = after;
    }
    found
}

/// glsl-lang reads a GL_EXT_buffer_reference block's name as an
/// identifier, but the block is a type (`Node n = Node(addr);`, `Node
/// next;` among its own members). Registers each such name as a type name
/// in `ctx`, and, so its definition still parses, gives the name in the
/// definition a stand-in of the same length that the shader does not use
/// as a word; returns the text and, for [`restore_buffer_reference_names`],
/// the names so hidden and where. (The forward declaration reads as a
/// qualifier redeclaration: [`hide_qualifier_redeclarations`].)
fn hide_buffer_reference_names<'a>(
    text: std::borrow::Cow<'a, str>,
    ctx: &glsl_lang::parse::ParseContext,
) -> (std::borrow::Cow<'a, str>, Vec<(usize, String)>) {
    let blocks = buffer_reference_blocks(&text);
    for (_, name, _) in &blocks {
        ctx.add_type_name(ast::IdentifierData::from(name.as_str()).into());
    }
    let src = text.as_ref();
    let used_as_word = |w: &str| word_places(src, w).next().is_some();
    let hidden: Vec<(usize, String)> = blocks
        .into_iter()
        .filter(|(_, _, definition)| *definition)
        .map(|(at, name, _)| (at, name))
        .collect();
    if hidden.is_empty() {
        return (text, hidden);
    }
    let mut owned = text.to_string();
    for (at, name) in &hidden {
        let stand_in = "xyzqjkw"
            .chars()
            .map(|c| c.to_string().repeat(name.len()))
            .find(|s| !used_as_word(s) && !ctx.is_type_name(s));
        if let Some(s) = stand_in {
            owned.replace_range(*at..*at + name.len(), &s);
        }
    }
    (std::borrow::Cow::Owned(owned), hidden)
}

/// Gives the blocks [`hide_buffer_reference_names`] renamed their names back.
fn restore_buffer_reference_names(tu: &mut ast::TranslationUnit, hidden: &[(usize, String)]) {
    for ext in &mut tu.0 {
        let ast::ExternalDeclarationData::Declaration(d) = &mut ext.content else {
            continue;
        };
        let ast::DeclarationData::Block(b) = &mut d.content else {
            continue;
        };
        let at = b.name.span.map(|s| usize::from(s.start().offset));
        if let Some((_, name)) = hidden.iter().find(|(h, _)| Some(*h) == at) {
            b.name.content = ast::IdentifierData::from(name.as_str());
        }
    }
}

/// An identifier at `at` in the text (its span in the file of `like`).
fn name_at((at, name): &(usize, String), like: Option<ast::NodeSpan>) -> ast::Identifier {
    let span = like.and_then(|s| {
        let start = u32::try_from(*at).ok()?;
        let end = u32::try_from(at + name.len()).ok()?;
        let range = lang_util::TextRange::new(start.into(), end.into());
        Some(ast::NodeSpan::new(s.source_id(), range))
    });
    ast::Identifier::new(ast::IdentifierData::from(name.as_str()), span)
}

/// Whether a type specifier is the empty type name a qualifier
/// redeclaration (`layout(constant_id = 2) gl_EnableOpacityMicromapEXT;`)
/// has.
pub fn is_qualifier_redeclaration(ty: &ast::TypeSpecifier) -> bool {
    matches!(&ty.ty.content, ast::TypeSpecifierNonArrayData::TypeName(n) if n.as_str().is_empty())
}

/// A parsed shader.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub stage: Stage,
    pub source: SourceText,
    pub tu: ast::TranslationUnit,
    pub version: Version,
    /// The API it is written for ([`Api::of_text`]).
    pub api: Api,
    /// Whether the shader had a `#version` line.
    pub version_explicit: bool,
    /// Where its (first) `#version` directive starts.
    pub version_at: Option<usize>,
    pub extensions: Vec<Extension>,
    /// The attribute lists glsl-lang did not see, in order.
    pub attributes: Vec<Attribute>,
}

/// Preprocesses and parses a shader.
pub fn parse(
    strings: &[&str],
    stage: Stage,
    resolver: Option<&dyn IncludeResolver>,
) -> Result<Parsed, Diagnostic> {
    let source = SourceText::new(strings, resolver)?;
    parse_text(source, stage)
}

/// Parses already assembled source text.
pub fn parse_text(mut source: SourceText, stage: Stage) -> Result<Parsed, Diagnostic> {
    crate::limits::check(&source.text)?;
    // glsl-lang-pp wants every directive to end with a newline.
    if !source.text.ends_with('\n') {
        source.text.push('\n');
    }
    let (text, hidden) = hide_extensions_glsl_lang_rejects(&source.text);
    // Where glsl-lang-pp's expansion can be wrong, the standard one's parse
    // wins. If that does not parse, a tree glsl-lang-pp makes stands (as
    // before), else the standard expansion's error (the driver's).
    let tree = match standard_expansion(&source.text, &text)? {
        Some(expanded) => parse_tree(&source.text, &expanded.text, Some(&expanded))
            .or_else(|e| parse_tree(&source.text, &text, None).map_err(|_| e)),
        None => parse_tree(&source.text, &text, None),
    }?;
    drop(text);
    let mut extensions = tree.extensions;
    extensions.extend(hidden);
    extensions.sort_by_key(|e| e.span.start);
    let version = tree.version.unwrap_or(Version::DEFAULT);
    check_version(version).map_err(|m| {
        let at = source.text.find("#version").unwrap_or(0);
        Diagnostic::error(Span::new(at, "#version".len()), m.to_string())
    })?;
    Ok(Parsed {
        stage,
        api: Api::of_text(&source.text),
        source,
        tu: tree.tu,
        version,
        version_explicit: tree.version.is_some(),
        version_at: tree.version_at,
        extensions,
        attributes: tree.attributes,
    })
}

/// The text expanded by [`crate::preprocess`] where glsl-lang-pp's
/// expansion can differ from the standard's (a macro pastes or
/// stringizes; an ES shader asks about `GL_ES`, which glsl-lang-pp never
/// defines) or may grow past the limits (glsl-lang-pp has none); `None`
/// where it cannot or the expander declines (an invalid or unsupported
/// construct: glsl-lang-pp judges it as before). A limit reached is an
/// error.
fn standard_expansion(
    original: &str,
    text: &str,
) -> Result<Option<crate::preprocess::Expanded>, Diagnostic> {
    use crate::preprocess::{expand, may_exceed_limits, wanted, Options};
    use glsl_lang_pp::exts::DEFAULT_REGISTRY;
    let words = version_words(original).unwrap_or_default();
    let version = words.first().and_then(|n| n.parse().ok()).unwrap_or(110);
    let es = version == 100 || words.contains(&"es");
    if !(wanted(text) || es && text.contains("GL_ES") || may_exceed_limits(text)) {
        return Ok(None);
    }
    let opts = Options {
        version,
        es,
        compatibility: words.contains(&"compatibility"),
        extensions: DEFAULT_REGISTRY
            .all()
            .map(|e| e.name().as_ref().to_string())
            .collect(),
    };
    match expand(text, &opts) {
        Ok(expanded) => {
            crate::limits::check(&expanded.text).map_err(|mut d| {
                let start = expanded.start(d.span.start);
                d.span = Span {
                    start,
                    end: expanded.end(d.span.end).max(start),
                };
                d
            })?;
            Ok(Some(expanded))
        }
        Err(e) if e.limit => {
            let word = text[e.at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '#'))
                .unwrap_or(0);
            Err(Diagnostic::error(Span::new(e.at, word.max(1)), e.message))
        }
        Err(_) => Ok(None),
    }
}

/// What glsl-lang made of a text, spans in [`SourceText::text`].
struct Tree {
    tu: ast::TranslationUnit,
    /// The first `#version`, and where it starts.
    version: Option<Version>,
    version_at: Option<usize>,
    extensions: Vec<Extension>,
    attributes: Vec<Attribute>,
}

/// Parses `text` (the source with the extensions glsl-lang rejects
/// hidden, or that expanded by [`crate::preprocess`]: `expanded`, whose
/// offsets are mapped back) with glsl-lang.
fn parse_tree(
    original: &str,
    text: &str,
    expanded: Option<&crate::preprocess::Expanded>,
) -> Result<Tree, Diagnostic> {
    let opts = glsl_lang::parse::ParseOptions {
        default_version: 110,
        ..Default::default()
    };
    let (parse_text, later_keywords) =
        hide_later_keywords(std::borrow::Cow::Borrowed(text), original);
    let (parse_text, attributes) = hide_control_flow_attributes(parse_text);
    let parse_text = invariant_before_layout(parse_text);
    let (parse_text, lone_invariants) = hide_lone_invariants(parse_text);
    let (parse_text, literals) = hide_extended_literals(parse_text);
    let ctx = extension_type_names(original);
    // (Before the forward declarations' names are blanked.)
    let (parse_text, reference_names) = hide_buffer_reference_names(parse_text, &ctx);
    let (parse_text, redeclarations) = hide_qualifier_redeclarations(parse_text);
    let (mut tu, _ctx, lexer) = glsl_lang::parse::ParseBuilder::<
        glsl_lang::parse::DefaultLexer<'_>,
        ast::TranslationUnit,
    >::new(parse_text.as_ref())
    .opts(&opts)
    .context(&ctx)
    .parse()
    .map_err(|e| {
        let range = e.pos();
        let start = usize::from(range.start()).min(text.len());
        let end = usize::from(range.end()).clamp(start, text.len());
        let span = match expanded {
            Some(x) => Span {
                start: x.start(start),
                end: x.end(end).max(x.start(start)),
            },
            None => Span { start, end },
        };
        let mut message = crate::syntax::syntax_message(e.inner());
        for (stand_in, word) in &later_keywords {
            message = message.replace(&format!("`{stand_in}`"), &format!("`{word}`"));
        }
        // At a literal's stand-in: the literal, as the shader has it.
        if let Some((_, lit)) = literals.iter().find(|(at, _)| *at == start) {
            let stand_in = literal_stand_in(lit);
            message = message
                .replace(&format!("identifier `{stand_in}`"), &format!("`{lit}`"))
                .replace(&format!("`{stand_in}`"), &format!("`{lit}`"));
        }
        Diagnostic::error(span, message).with_kind(DiagnosticKind::Syntax)
    })?;
    restore_later_keywords(&mut tu, &later_keywords);
    restore_lone_invariants(&mut tu, &lone_invariants);
    restore_extended_literals(&mut tu, &literals);
    restore_qualifier_redeclarations(&mut tu, &redeclarations);
    restore_buffer_reference_names(&mut tu, &reference_names);
    let start = |at: usize| expanded.map_or(at, |e| e.start(at));
    let end = |at: usize| expanded.map_or(at, |e| e.end(at));
    if let Some(e) = expanded {
        remap_spans(&mut tu, e);
    }
    let attributes = attributes
        .into_iter()
        .map(|r| Attribute {
            text: text[r.clone()].to_string(),
            span: Span {
                start: start(r.start),
                end: end(r.end).max(start(r.start)),
            },
        })
        .collect();
    let directives = lexer.into_directives();
    let mut version_at = None;
    let mut version = None;
    let mut extensions = Vec::new();
    for d in directives.directives() {
        match d.kind() {
            DirectiveKind::Version(v) => {
                let profile = match v.parsed_profile {
                    Some(VersionProfile::Es) => Profile::Es,
                    Some(VersionProfile::Compatibility) => Profile::Compatibility,
                    _ if v.number == 100 => Profile::Es,
                    _ => Profile::Core,
                };
                version_at.get_or_insert(start(
                    crate::diagnostics::span_from_node(Some(d.text_range())).start,
                ));
                version.get_or_insert(Version {
                    number: v.number,
                    profile,
                });
            }
            DirectiveKind::Extension(e) => extensions.push(Extension {
                span: {
                    // The directive without its newline.
                    let mut span = crate::diagnostics::span_from_node(Some(d.text_range()));
                    let bytes = text.as_bytes();
                    while span.end > span.start
                        && matches!(bytes.get(span.end - 1), Some(b'\n' | b'\r'))
                    {
                        span.end -= 1;
                    }
                    Span {
                        start: start(span.start),
                        end: end(span.end),
                    }
                },
                name: e.name.to_string(),
                behavior: match e.behavior {
                    ExtensionBehavior::Require => "require",
                    ExtensionBehavior::Enable => "enable",
                    ExtensionBehavior::Warn => "warn",
                    ExtensionBehavior::Disable => "disable",
                }
                .to_string(),
            }),
            _ => {}
        }
    }
    Ok(Tree {
        tu,
        version,
        version_at,
        extensions,
        attributes,
    })
}

/// Maps every span of a tree parsed from [`crate::preprocess`]'s output
/// back to the input (a node made by a macro spans the invocation).
fn remap_spans(tu: &mut ast::TranslationUnit, expanded: &crate::preprocess::Expanded) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    struct Remap<'a>(&'a crate::preprocess::Expanded);
    impl Remap<'_> {
        fn remap(&self, span: &mut Option<ast::NodeSpan>) {
            let Some(s) = span else { return };
            let start = self.0.start(usize::from(s.start().offset));
            let end = self.0.end(usize::from(s.end().offset)).max(start);
            let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(end)) else {
                return;
            };
            let range = lang_util::TextRange::new(start.into(), end.into());
            *s = ast::NodeSpan::new(s.source_id(), range);
        }
    }
    macro_rules! remap {
        ($($visit:ident: $node:ident),* $(,)?) => {
            impl VisitorMut for Remap<'_> {
                $(fn $visit(&mut self, n: &mut ast::$node) -> Visit {
                    self.remap(&mut n.span);
                    Visit::Children
                })*
            }
        };
    }
    remap!(
        visit_external_declaration: ExternalDeclaration,
        visit_identifier: Identifier,
        visit_arrayed_identifier: ArrayedIdentifier,
        visit_type_name: TypeName,
        visit_block: Block,
        visit_for_init_statement: ForInitStatement,
        visit_for_rest_statement: ForRestStatement,
        visit_function_definition: FunctionDefinition,
        visit_function_parameter_declarator: FunctionParameterDeclarator,
        visit_function_prototype: FunctionPrototype,
        visit_init_declarator_list: InitDeclaratorList,
        visit_layout_qualifier: LayoutQualifier,
        visit_preprocessor: Preprocessor,
        visit_preprocessor_define: PreprocessorDefine,
        visit_preprocessor_elseif: PreprocessorElseIf,
        visit_preprocessor_error: PreprocessorError,
        visit_preprocessor_extension: PreprocessorExtension,
        visit_preprocessor_extension_behavior: PreprocessorExtensionBehavior,
        visit_preprocessor_extension_name: PreprocessorExtensionName,
        visit_preprocessor_if: PreprocessorIf,
        visit_preprocessor_ifdef: PreprocessorIfDef,
        visit_preprocessor_ifndef: PreprocessorIfNDef,
        visit_preprocessor_include: PreprocessorInclude,
        visit_preprocessor_line: PreprocessorLine,
        visit_preprocessor_pragma: PreprocessorPragma,
        visit_preprocessor_undef: PreprocessorUndef,
        visit_preprocessor_version: PreprocessorVersion,
        visit_preprocessor_version_profile: PreprocessorVersionProfile,
        visit_selection_statement: SelectionStatement,
        visit_selection_rest_statement: SelectionRestStatement,
        visit_single_declaration: SingleDeclaration,
        visit_single_declaration_no_type: SingleDeclarationNoType,
        visit_struct_field_specifier: StructFieldSpecifier,
        visit_struct_specifier: StructSpecifier,
        visit_switch_statement: SwitchStatement,
        visit_type_qualifier: TypeQualifier,
        visit_type_specifier: TypeSpecifier,
        visit_full_specified_type: FullySpecifiedType,
        visit_array_specifier: ArraySpecifier,
        visit_array_specifier_dimension: ArraySpecifierDimension,
        visit_assignment_op: AssignmentOp,
        visit_binary_op: BinaryOp,
        visit_case_label: CaseLabel,
        visit_condition: Condition,
        visit_declaration: Declaration,
        visit_expr: Expr,
        visit_fun_identifier: FunIdentifier,
        visit_function_parameter_declaration: FunctionParameterDeclaration,
        visit_initializer: Initializer,
        visit_interpolation_qualifier: InterpolationQualifier,
        visit_iteration_statement: IterationStatement,
        visit_jump_statement: JumpStatement,
        visit_layout_qualifier_spec: LayoutQualifierSpec,
        visit_precision_qualifier: PrecisionQualifier,
        visit_statement: Statement,
        visit_compound_statement: CompoundStatement,
        visit_storage_qualifier: StorageQualifier,
        visit_type_qualifier_spec: TypeQualifierSpec,
        visit_type_specifier_non_array: TypeSpecifierNonArray,
        visit_unary_op: UnaryOp,
        visit_expr_statement: ExprStatement,
    );
    tu.visit_mut(&mut Remap(expanded));
}

/// A `#version` that names no GLSL version.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum VersionError {
    #[error("there is no GLSL ES version {0} (100, 300 es, 310 es, 320 es)")]
    Es(u16),
    #[error("there is no GLSL version {0}")]
    Desktop(u16),
}

/// Whether a `#version` names a GLSL version that exists.
fn check_version(v: Version) -> Result<(), VersionError> {
    let known: &[u16] = if v.is_es() {
        &[100, 300, 310, 320]
    } else {
        &[
            110, 120, 130, 140, 150, 330, 400, 410, 420, 430, 440, 450, 460,
        ]
    };
    if known.contains(&v.number) {
        Ok(())
    } else if v.is_es() {
        Err(VersionError::Es(v.number))
    } else {
        Err(VersionError::Desktop(v.number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(src: &str, stage: Stage) -> Parsed {
        parse(&[src], stage, None).unwrap_or_else(|d| panic!("{}\n{src}", d.message))
    }

    #[test]
    fn versions_and_profiles() {
        let cases = [
            ("void main(){}", "110", false),
            ("#version 100\nprecision mediump float;\nvoid main(){ gl_FragColor = vec4(1.0); }", "100", true),
            ("#version 120\nvarying vec2 uv;\nvoid main(){ gl_FragColor = texture2D(s, uv); }\nuniform sampler2D s;", "120", true),
            ("#version 330 core\nout vec4 o;\nvoid main(){ o = vec4(1); }", "330 core", true),
            ("#version 450 compatibility\nvoid main(){ gl_FragColor = vec4(1); }", "450 compatibility", true),
            ("#version 300 es\nprecision highp float;\nout vec4 o;\nvoid main(){ o = vec4(1); }", "300 es", true),
            ("#version 320 es\nprecision highp float;\nout vec4 o;\nvoid main(){ o = vec4(1); }", "320 es", true),
        ];
        for (src, want, explicit) in cases {
            let p = parse_ok(src, Stage::Fragment);
            assert_eq!(p.version.to_string(), want, "{src}");
            assert_eq!(p.version_explicit, explicit);
        }
    }

    #[test]
    fn legacy_identifiers_parse_in_old_versions() {
        // `texture` is a built-in function only from 1.30 on. (Later
        // keywords as names: `later_keywords_are_names_in_earlier_versions`.)
        parse_ok(
            "varying vec2 uv; uniform sampler2D texture; void main(){ gl_FragColor = texture2D(texture, uv); }",
            Stage::Fragment,
        );
    }

    /// Two strings (as `glShaderSource` takes them) parsed, and the offset
    /// of `o = vec4` in the text.
    fn two_strings(header: &str, body: &str) -> (Parsed, usize) {
        let p = parse(&[header, body], Stage::Fragment, None).unwrap();
        let off = p.source.text.find("o = vec4").unwrap();
        (p, off)
    }

    #[test]
    fn several_strings_and_locations() {
        let (p, off) = two_strings(
            "#version 330 core\n#define SCALE 2.0\n",
            "out vec4 o;\nvoid main() {\n  o = vec4(SCALE);\n}\n",
        );
        assert_eq!(
            p.source.locate(off),
            Location {
                origin: Origin::String(1),
                line: 3,
                column: 3
            }
        );
        assert_eq!(p.source.line_of(off), 5);
        assert_eq!(p.source.line_text(5), "  o = vec4(SCALE);");
    }

    #[test]
    fn includes_are_expanded_and_located() {
        let files = MemoryFiles(vec![(
            "common.glsl",
            "float twice(float x) { return 2.0 * x; }\n",
        )]);
        let src = "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"common.glsl\"\nout vec4 o;\nvoid main() { o = vec4(twice(1.0)); }\n";
        let p = parse(&[src], Stage::Fragment, Some(&files)).unwrap();
        let off = p.source.text.find("return").unwrap();
        let loc = p.source.locate(off);
        assert_eq!(loc.origin, Origin::Include("common.glsl".into()));
        assert_eq!(loc.line, 1);
        let off = p.source.text.find("void main").unwrap();
        assert_eq!(p.source.locate(off).line, 5);
        assert!(p.extensions.is_empty());
    }

    #[test]
    fn include_errors_are_diagnostics() {
        let src = "#include \"missing.glsl\"\nvoid main(){}\n";
        let err = parse(&[src], Stage::Fragment, Some(&MemoryFiles::default())).unwrap_err();
        assert!(err.message.contains("missing.glsl"), "{}", err.message);
        let err = parse(&[src], Stage::Fragment, None).unwrap_err();
        assert!(err.message.contains("resolver"), "{}", err.message);
        struct Cycle;
        impl IncludeResolver for Cycle {
            fn resolve(&self, p: &str, _: Option<&str>) -> Result<(String, String), IncludeError> {
                Ok((p.to_string(), format!("#include \"{p}\"\n")))
            }
        }
        let err = parse(&["#include \"a\"\n"], Stage::Fragment, Some(&Cycle)).unwrap_err();
        assert!(err.message.contains("cyclic"), "{}", err.message);
    }

    /// Literals glsl-lang rejects are hidden in code and `#define` bodies,
    /// not in comments nor in macros a `#if` evaluates; offsets stay put.
    #[test]
    fn extended_literals_are_hidden_where_the_parser_reads_them() {
        let src = "#version 450\n#define BIG 1L\n#define MASK 0xFFFFFFFF\n#if MASK\n#endif\n// 2L in a comment\nint64_t a = BIG + 3UL; /* 4S */\nfloat h = .5hf;\n";
        let (text, found) = hide_extended_literals(std::borrow::Cow::Borrowed(src));
        assert_eq!(text.len(), src.len());
        let lits: Vec<&str> = found.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(lits, ["1L", "3UL", ".5hf"]);
        for part in [
            "#define BIG _L\n",
            "#define MASK 0xFFFFFFFF\n",
            "// 2L",
            "BIG + _UL; /* 4S */",
            "h = _5hf;",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
    }

    /// Only global `qualifiers name, name;` statements are qualifier
    /// redeclarations: not declarations with a type, defaults, precision
    /// statements, nor statements in functions.
    #[test]
    fn qualifier_redeclarations_are_found_and_nothing_else() {
        let src = "#version 450\nprecision highp float;\nlayout(std140) uniform;\nuniform S s;\nout vec4 a, b;\ninvariant gl_Position;\nprecise /* c */ a, b; // d\nlayout(constant_id = 2)\n  gl_EnableOpacityMicromapEXT;\nvoid main() { precise a; }\n";
        let (text, found) = hide_qualifier_redeclarations(std::borrow::Cow::Borrowed(src));
        assert_eq!(text.len(), src.len());
        let names: Vec<Vec<&str>> = found
            .iter()
            .map(|r| r.names.iter().map(|(_, n)| n.as_str()).collect())
            .collect();
        assert_eq!(names, [vec!["a", "b"], vec!["gl_EnableOpacityMicromapEXT"]]);
        for (at, name) in found.iter().flat_map(|r| &r.names) {
            assert_eq!(&src[*at..at + name.len()], name);
        }
        assert!(text.contains("precise /* c */     ; // d"), "{text}");
    }

    /// `#include <x>` asks the resolver for a system header, `#include "x"`
    /// for a file next to the includer (glslang's `include.system.vert`
    /// declared the same variable twice when both found the same file).
    #[test]
    fn system_includes_are_asked_as_such() {
        struct Split;
        impl IncludeResolver for Split {
            fn resolve(&self, p: &str, _: Option<&str>) -> Result<(String, String), IncludeError> {
                Ok((format!("./{p}"), "float local_one;\n".into()))
            }
            fn resolve_system(
                &self,
                p: &str,
                _: Option<&str>,
            ) -> Result<(String, String), IncludeError> {
                Ok((format!("sys/{p}"), "float system_one;\n".into()))
            }
        }
        let src = "#version 450\n#extension GL_GOOGLE_include_directive : enable\n#include \"bar.h\"\n#include <bar.h>\nvoid main() {}\n";
        let p = parse(&[src], Stage::Vertex, Some(&Split)).unwrap();
        assert!(
            p.source
                .text
                .contains("float local_one;\nfloat system_one;"),
            "{}",
            p.source.text
        );
        // Without a system lookup of its own, a resolver serves both.
        let files = MemoryFiles(vec![("a.h", "float a;\n")]);
        let p = parse(
            &["#include <a.h>\nvoid main() {}\n"],
            Stage::Vertex,
            Some(&files),
        )
        .unwrap();
        assert!(p.source.text.starts_with("float a;"), "{}", p.source.text);
    }

    #[test]
    fn syntax_errors_have_spans() {
        let src = "void main() {\n  float x = ;\n}\n";
        let err = parse(&[src], Stage::Fragment, None).unwrap_err();
        assert_eq!(&src[err.span.start..err.span.start + 1], ";");
    }

    #[test]
    fn line_directives_do_not_move_our_locations() {
        // `#line` renumbers the driver's messages; our spans stay byte offsets.
        let (p, off) = two_strings(
            "#version 330 core\n#define N 3\n",
            "#line 1\nout vec4 o;\nvoid main() {\n  o = vec4(N);\n}\n",
        );
        assert_eq!(p.source.locate(off).line, 4);
        assert_eq!(p.source.line_of(off), 6);
    }

    /// Extensions glsl-lang does not know are hidden from it, and their
    /// macros tested as defined (we support them), offsets unchanged.
    #[test]
    fn extensions_glsl_lang_does_not_know() {
        let src = "#version 450\n#extension GL_ARB_bindless_texture : require\n#ifndef GL_ARB_bindless_texture\n#error no\n#endif\n#if defined(GL_ARB_bindless_texture) && GL_ARB_bindless_texture == 1\nout vec4 o;\n#endif\n#ifdef GL_NOT_AN_EXTENSION\n#error no\n#endif\nvoid main() { o = vec4(1); }\n";
        let p = parse_ok(src, Stage::Fragment);
        assert_eq!(p.source.text, src);
        assert_eq!(
            p.extensions,
            vec![Extension {
                name: "GL_ARB_bindless_texture".into(),
                behavior: "require".into(),
                span: Span::new(13, 44),
            }]
        );
        assert_eq!(
            conditional_on_hidden_extension(
                "#if defined(GL_ARB_bindless_texture) && GL_ARB_bindless_texture\n",
                false
            )
            .as_deref(),
            Some("#if defined(__LINE__               ) && 1                      \n")
        );
    }

    /// A parsed shader printed back as GLSL.
    fn printed(p: &Parsed) -> String {
        let mut s = String::new();
        glsl_lang::transpiler::glsl::show_translation_unit(
            &mut s,
            &p.tu,
            glsl_lang::transpiler::glsl::FormattingState::default(),
        )
        .expect("prints");
        s
    }

    /// `GL_ES` is defined in GLSL ES shaders, as drivers define it
    /// (glsl-lang-pp does not: the ES shader below hit its `#error`, and
    /// `#ifdef GL_ES` blocks were dropped), and not in desktop ones.
    #[test]
    fn gl_es_is_defined_in_es_shaders_only() {
        let es = "#version 300 es\n#ifndef GL_ES\n#error not ES\n#endif\nprecision mediump float;\nout vec4 o;\nvoid main() {\n#ifdef GL_ES\n    o = vec4(1.0);\n#endif\n}\n";
        let p = parse_ok(es, Stage::Fragment);
        let printed = printed(&p);
        assert!(printed.contains("o = vec4(1."), "{printed}");
        let desktop = "#version 330 core\n#ifdef GL_ES\n#error ES\n#endif\nvoid main() {}\n";
        parse_ok(desktop, Stage::Fragment);
    }

    /// The indirection idiom: `PASTE`'s arguments are expanded before
    /// `PASTE2` pastes them (glsl-lang-pp pasted `PREFIXSUFFIX`: failed
    /// before), also where glsl-lang-pp's paste parses (a uniform's name).
    /// The nodes a macro made span its invocation; the lines after keep
    /// their offsets.
    #[test]
    fn arguments_of_macros_are_expanded_before_they_are_pasted() {
        let src = "#version 450 core\n#define PASTE2(a, b) a##b\n#define PASTE(a, b) PASTE2(a, b)\n#define PREFIX image\n#define SUFFIX 1D\n#define NAME(n) PASTE(my, n)\nlayout(binding = 0, r32f) uniform writeonly PASTE(PREFIX, SUFFIX) dest;\nfloat NAME(Value)() { return 1.0; }\nvoid main() {\n    imageStore(dest, 0, vec4(NAME(Value)()));\n}\n";
        let p = parse_ok(src, Stage::Fragment);
        let errors: Vec<String> = crate::analysis::Model::analyze(&p)
            .errors()
            .map(|d| d.message.clone())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        let printed = printed(&p);
        assert!(printed.contains("image1D dest"), "{printed}");
        assert!(printed.contains("float myValue()"), "{printed}");
        let ast::ExternalDeclarationData::Declaration(d) = &p.tu.0[0].content else {
            panic!("{:?}", p.tu.0[0]);
        };
        let ast::DeclarationData::InitDeclaratorList(l) = &d.content else {
            panic!("{d:?}");
        };
        let ty = crate::diagnostics::span_from_node(l.head.ty.ty.span);
        let invocation = src.find("PASTE(PREFIX, SUFFIX)").unwrap();
        assert_eq!(
            (ty.start, ty.end),
            (invocation, invocation + "PASTE(PREFIX, SUFFIX)".len())
        );
        let name = l.head.name.as_ref().expect("a name");
        assert_eq!(
            crate::diagnostics::span_from_node(name.span).start,
            src.find("dest;").unwrap()
        );
        let main = p.tu.0.last().expect("main");
        assert_eq!(
            crate::diagnostics::span_from_node(main.span).start,
            src.find("void main").unwrap()
        );
        // glsl-lang-pp's paste parses here (`Uscale`: a uniform the program
        // would not find, `u_scale` undeclared).
        let src = "#version 450\n#define PASTE2(a, b) a##b\n#define PASTE(a, b) PASTE2(a, b)\n#define U u_\nuniform float PASTE(U, scale);\nout vec4 o;\nvoid main() { o = vec4(u_scale); }\n";
        let p = parse_ok(src, Stage::Fragment);
        let model = crate::analysis::Model::analyze(&p);
        let errors: Vec<&str> = model.errors().map(|d| d.message.as_str()).collect();
        assert!(errors.is_empty(), "{errors:?}");
    }

    /// glslang's `cppMerge.frag`: pastes through object- and function-like
    /// macros declare `image1D`s; its `dest3` (`imag ## e1 D`) is
    /// `image1 D dest3` in C and Mesa (glslang alone glues the `D` on), an
    /// error there, not on `dest2`'s line where glsl-lang-pp's paste failed.
    #[test]
    fn pastes_as_drivers_paste_them() {
        let head = "#version 450 core\n#define PASTER2(type, suffix) type##suffix\n#define PASTER3(type, suffix) type## suffix\n#define MAKE_TYPE1 image1D dest ## 1;\n#define MAKE_TYPE2(type, suffix) PASTER2(type, suffix)\n#define MAKE_TYPE3(type, suffix) PASTER3(type, suffix)\n#define PREFIX image\n#define PREFIX3 imag\n#define SUFFIX2 1D\n#define SUFFIX3 e1 D\n#define RESOURCE_TYPE1 MAKE_TYPE1\n#define RESOURCE_TYPE2 MAKE_TYPE2(PREFIX, SUFFIX2)\n#define RESOURCE_TYPE3 MAKE_TYPE3(PREFIX3, SUFFIX3)\nlayout (binding = 0, r32f) uniform writeonly RESOURCE_TYPE1\nlayout (binding = 1, r32f) uniform writeonly RESOURCE_TYPE2 dest2;\n";
        let tail = "void main()\n{\n    imageStore(dest1, 0, vec4(1));\n    imageStore(dest2, 0, vec4(2));\n}\n";
        let p = parse_ok(&format!("{head}{tail}"), Stage::Fragment);
        let model = crate::analysis::Model::analyze(&p);
        let errors: Vec<&str> = model.errors().map(|d| d.message.as_str()).collect();
        assert!(errors.is_empty(), "{errors:?}");
        let with_dest3 = format!(
            "{head}layout (binding = 2, r32f) uniform writeonly RESOURCE_TYPE3 dest3;\n{tail}"
        );
        let err = parse(&[&with_dest3], Stage::Fragment, None).unwrap_err();
        let line = with_dest3[..err.span.start].matches('\n').count() + 1;
        assert_eq!(line, 16, "{}", err.message);
    }

    /// Where glsl-lang-pp expands right, the standard expansion gives the
    /// same tree with the same spans, `#extension`s and `#version`.
    #[test]
    fn the_standard_expansion_agrees_where_glsl_lang_pp_is_right() {
        let src = "#version 450 core\n#extension GL_ARB_gpu_shader5 : enable\n#define CAT(a, b) a ## b\n#define LONG_NAME_OF_ONE 1.0\n#define SUM(a, b) ((a) + \\\n  (b))\n#define MAX_LIGHTS 4\nstruct Light { vec3 dir; float k[MAX_LIGHTS]; };\nuniform Light lights[MAX_LIGHTS];\nlayout(location = 0) out vec4 CAT(frag, Color);\nfloat CAT(sh, ade)(vec3 n, int i) {\n    float s = SUM(LONG_NAME_OF_ONE,\n        dot(n, lights[i].dir));\n    for (int j = 0; j < MAX_LIGHTS; ++j) { s += lights[i].k[j] * float(j); }\n    if (s > LONG_NAME_OF_ONE) { return -s; } else { switch (i) { case 0: break; default: s = 0.0; } }\n    return s;\n}\nvoid main() {\n    fragColor = vec4(shade(vec3(0, 0, LONG_NAME_OF_ONE), 1));\n}\n";
        let (text, _) = hide_extensions_glsl_lang_rejects(src);
        let expanded = standard_expansion(src, &text)
            .expect("no limit")
            .expect("expanded");
        assert_ne!(expanded.text.len(), src.len());
        let ours = parse_tree(src, &expanded.text, Some(&expanded)).expect("parses");
        let theirs = parse_tree(src, &text, None).expect("parses");
        assert_eq!(format!("{:?}", ours.tu), format!("{:?}", theirs.tu));
        assert_eq!(ours.extensions, theirs.extensions);
        assert_eq!(
            (ours.version, ours.version_at),
            (theirs.version, theirs.version_at)
        );
    }

    /// A shader the expander declines (here a redefinition, an error)
    /// gets glsl-lang-pp's verdict, as before; one it cannot finish is an
    /// error of its own.
    #[test]
    fn the_expander_declines_or_stops() {
        let src = "#define P(a, b) a ## b\n#define A 1\n#define A 2\nvoid main() {}\n";
        let (text, _) = hide_extensions_glsl_lang_rejects(src);
        assert!(standard_expansion(src, &text).expect("no limit").is_none());
        let mut src = String::from("#define P(a, b) a ## b\n#define M0 x x\n");
        for k in 1..40 {
            src.push_str(&format!("#define M{k} M{} M{}\n", k - 1, k - 1));
        }
        src.push_str("void main() { M39; }\n");
        let err = parse(&[&src], Stage::Fragment, None).unwrap_err();
        assert!(err.message.contains("more than"), "{}", err.message);
        assert_eq!(&src[err.span.start..err.span.end], "M39");
    }

    #[test]
    fn extensions_are_collected() {
        let src =
            "#version 330\n#extension GL_ARB_separate_shader_objects : enable\nvoid main(){}\n";
        let p = parse_ok(src, Stage::Vertex);
        assert_eq!(
            p.extensions,
            vec![Extension {
                name: "GL_ARB_separate_shader_objects".into(),
                behavior: "enable".into(),
                span: Span::new(13, 50),
            }]
        );
    }

    /// A GL_EXT_buffer_reference block's name is a type to glsl-lang
    /// (declarations, parameters, members of its own block, constructors),
    /// its definition and forward declaration still parse and print back;
    /// `layout(buffer_reference_align = 8)` alone, a comment, a name after
    /// a second layout, and a block inside braces are not such blocks.
    #[test]
    fn buffer_reference_blocks_are_types() {
        let src = "#version 460\n#extension GL_EXT_buffer_reference : require\nlayout(buffer_reference) buffer N;\nlayout(buffer_reference, std430) buffer N { vec4 v; N next; };\n// layout(buffer_reference) buffer C { int c; };\nlayout(buffer_reference) coherent layout(std430) buffer B2 { int b; } b2;\nlayout(std430, buffer_reference_align = 8) buffer Plain { int p; } plain;\nN first(N n) { return n.next; }\nvoid main() { N n = N(uvec2(1, 0)); n.v = first(n).v; }\n";
        let names: Vec<(String, bool)> = buffer_reference_blocks(src)
            .into_iter()
            .map(|(at, n, def)| {
                assert_eq!(&src[at..at + n.len()], n);
                (n, def)
            })
            .collect();
        let want = [("N", false), ("N", true), ("B2", true)];
        assert_eq!(names, want.map(|(n, d)| (n.to_string(), d)));
        let p = parse_ok(src, Stage::Fragment);
        let out = printed(&p);
        for line in [
            "layout(buffer_reference) buffer  N;",
            "layout(buffer_reference, std430) buffer N {",
            "    N next;",
            "}b2;",
            "N first(N n) {",
            "N n = N(uvec2(1, 0));",
        ] {
            assert!(out.contains(line), "{line}:\n{out}");
        }
    }

    #[test]
    fn a_syntax_error_at_a_literal_names_the_literal() {
        for (src, want) in [
            (
                "void main() { \"é\" \"ü\\\"\"; }\n",
                "unexpected `\"ü\\\"\"`",
            ),
            ("void main() { 1 2US; }\n", "unexpected `2US`"),
        ] {
            let e = parse(&[src], Stage::Fragment, None).expect_err("a syntax error");
            assert!(e.message.starts_with(want), "{src}: {}", e.message);
        }
    }

    /// Words made keywords later are names before (as glslang has it), in
    /// declarations, calls, members and struct types; not from the version
    /// that made them keywords, nor in GLSL ES or with an extension.
    #[test]
    fn later_keywords_are_names_in_earlier_versions() {
        let src = |v: &str, w: &str| {
            format!("{v}struct {w}T {{ float {w}; }};\nfloat {w}(float x) {{ return x; }}\nvoid main() {{ {w}T t; t.{w} = {w}(1.0); float {w} = t.{w}; gl_FragColor = vec4({w}); }}\n")
        };
        for (version, word) in [
            ("", "centroid"),
            ("#version 120\n", "flat"),
            ("#version 130\n", "shared"),
            ("#version 330\n", "sample"),
            ("#version 400\n", "readonly"),
            ("#version 420\n", "buffer"),
        ] {
            let text = src(version, word);
            let p = parse_ok(&text, Stage::Fragment);
            let printed = printed(&p);
            assert!(
                printed.contains(&format!("float {word} = t.{word};")),
                "{printed}"
            );
            assert!(!printed.contains(&format!("_{}", &word[1..])), "{printed}");
        }
        for (version, word) in [
            ("#version 130\n", "flat"),
            ("#version 430\n", "buffer"),
            ("#version 100\n", "sample"),
            (
                "#version 330\n#extension GL_ARB_sample_shading : enable\n",
                "sample",
            ),
        ] {
            let text = src(version, word);
            assert!(parse(&[&text], Stage::Fragment, None).is_err(), "{text}");
        }
    }

    #[test]
    fn invariant_after_a_layout_moves_before_it() {
        let moved = |s: &str| invariant_before_layout(std::borrow::Cow::Borrowed(s)).into_owned();
        assert_eq!(
            moved("layout(location = 0) invariant out float v;\n"),
            "invariant layout(location = 0) out float v;\n"
        );
        for kept in [
            "invariant layout(location = 0) out float v;",
            "// layout(location = 0) invariant out float v;",
            "layout(location = 0) invariants x;",
            "mylayout(x) invariant out float v;",
        ] {
            assert_eq!(moved(kept), kept);
        }
        let src = "#version 460\nlayout(location = 0) invariant out float v;\nvoid main() { v = 1.0; gl_Position = vec4(v); }\n";
        let p = parse_ok(src, Stage::Vertex);
        assert!(
            printed(&p).contains("invariant layout(location = 0) out float v;"),
            "{}",
            printed(&p)
        );
    }

    #[test]
    fn control_flow_attributes_are_blanked_in_code_and_macros() {
        let hide = |s: &str| {
            hide_control_flow_attributes(std::borrow::Cow::Borrowed(s))
                .0
                .into_owned()
        };
        let src = "[[unroll]] for (;;) {}\n[[dependency_length(a[1]), flatten]]\nif (b[c[0]]) {}";
        let hidden = hide(src);
        assert_eq!(hidden.len(), src.len());
        assert_eq!(
            hidden,
            "           for (;;) {}\n                                    \nif (b[c[0]]) {}"
        );
        let spaced = "[ /* a */ [ flatten ]\n] if (c) {}";
        assert_eq!(hide(spaced), format!("{}\n  if (c) {{}}", " ".repeat(21)));
        // In a comment, or without its `]]`: left as it is.
        for kept in [
            "// [[unroll]]\n",
            "/* [[unroll]] */",
            "[[unroll for (;;) {}",
        ] {
            assert_eq!(hide(kept), kept);
        }
        // SPIRV-Cross's macros, and the attribute written out: the loops
        // are there, and so is what follows them, on its line.
        let src = "#version 450\n#extension GL_EXT_control_flow_attributes : require\n#define SPIRV_CROSS_UNROLL [[unroll]]\nlayout(location = 0) out vec4 o;\nvoid main() {\n    float s = 0.0;\n    SPIRV_CROSS_UNROLL\n    for (int i = 0; i < 4; i++) { s += 1.0; }\n    [[dont_unroll]] while (s < 8.0) { s *= 2.0; }\n    o = vec4(s);\n}\n";
        let p = parse_ok(src, Stage::Fragment);
        let attributes: Vec<(&str, &str)> = p
            .attributes
            .iter()
            .map(|a| (a.text.as_str(), &src[a.span.start..a.span.end]))
            .collect();
        assert_eq!(
            attributes,
            // The first in the macro's body.
            [
                ("[[unroll]]", "[[unroll]]"),
                ("[[dont_unroll]]", "[[dont_unroll]]")
            ]
        );
        let text = printed(&p);
        assert!(!text.contains("[["), "{text}");
        assert!(text.contains("for (int i = 0; i < 4; i++)"), "{text}");
        assert!(text.contains("while (s < 8.)"), "{text}");
        let Some(ast::ExternalDeclarationData::FunctionDefinition(main)) =
            p.tu.0.last().map(|d| &d.content)
        else {
            panic!("main is the last declaration");
        };
        let last = main.statement.statement_list.last().expect("a statement");
        let at = crate::diagnostics::span_from_node(last.span).start;
        assert_eq!(p.source.locate(at).line, 10);
    }
}
