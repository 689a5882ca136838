//! Loader of the built-in tables (`functions.txt`, `variables.txt`).
//!
//! The tables are compiled into the crate, so a malformed line is a programming
//! error: the loader panics with the file, the line number and the line's text.
//! The file formats are described at the top of each table.

use std::collections::{HashMap, HashSet};

use super::NameMap;
use std::ops::Range;
use std::sync::Arc;

use super::{BuiltinEnv, Param, ParamDir, Signature, Storage, Variable};
use crate::shader::{Api, Profile};
use crate::types::{parse_type_name, Field, Scalar, StructType, Type};
use crate::Stage;

/// Desktop `#version` numbers a table may name.
const DESKTOP_VERSIONS: [u16; 13] = [
    110, 120, 130, 140, 150, 330, 400, 410, 420, 430, 440, 450, 460,
];
/// GLSL ES `#version` numbers a table may name.
const ES_VERSIONS: [u16; 4] = [100, 300, 310, 320];

const ALL_STAGES: u8 = 0b11_1111;

fn stage_bit(stage: Stage) -> u8 {
    match stage {
        Stage::Vertex => 1,
        Stage::TessControl => 2,
        Stage::TessEvaluation => 4,
        Stage::Geometry => 8,
        Stage::Fragment => 16,
        Stage::Compute => 32,
    }
}

fn parse_stage(name: &str) -> Option<u8> {
    Some(match name {
        "all" => ALL_STAGES,
        "vert" => stage_bit(Stage::Vertex),
        "tesc" => stage_bit(Stage::TessControl),
        "tese" => stage_bit(Stage::TessEvaluation),
        "geom" => stage_bit(Stage::Geometry),
        "frag" => stage_bit(Stage::Fragment),
        "comp" => stage_bit(Stage::Compute),
        _ => return None,
    })
}

/// Where a table entry exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Avail {
    /// Desktop versions `min..=max` in the core profile; `min..` in compatibility.
    desktop: Option<(u16, u16)>,
    /// ES versions `min..=max`.
    es: Option<(u16, u16)>,
    /// Bit set of stages (see `stage_bit`).
    stages: u8,
    /// Only in this API (`opengl` / `vulkan` tokens); both when `None`.
    api: Option<Api>,
}

impl Avail {
    pub(super) fn allows(&self, env: &BuiltinEnv) -> bool {
        if self.stages & stage_bit(env.stage) == 0 || self.api.is_some_and(|a| a != env.api) {
            return false;
        }
        let v = env.version.number;
        match env.version.profile {
            Profile::Es => self.es.is_some_and(|(lo, hi)| (lo..=hi).contains(&v)),
            Profile::Core => self.desktop.is_some_and(|(lo, hi)| (lo..=hi).contains(&v)),
            Profile::Compatibility => self.desktop.is_some_and(|(lo, _)| v >= lo),
        }
    }

    /// Whether the entry exists in `env`'s stage and API as it does in the
    /// version `at` names (an extension's lift).
    pub(super) fn allows_at(&self, env: &BuiltinEnv, at: &LiftAt) -> bool {
        if self.stages & stage_bit(env.stage) == 0 || self.api.is_some_and(|a| a != env.api) {
            return false;
        }
        let within = |range: Option<(u16, u16)>, v: Option<u16>| {
            range
                .zip(v)
                .is_some_and(|((lo, hi), v)| (lo..=hi).contains(&v))
        };
        if at.ext {
            return self.desktop.is_none() && self.es.is_none();
        }
        match env.version.profile {
            Profile::Es => within(self.es, at.es),
            Profile::Core | Profile::Compatibility => within(self.desktop, at.desktop),
        }
    }

    fn intersect(&self, other: &Avail) -> Avail {
        fn range(a: Option<(u16, u16)>, b: Option<(u16, u16)>) -> Option<(u16, u16)> {
            let ((a0, a1), (b0, b1)) = (a?, b?);
            Some((a0.max(b0), a1.min(b1)))
        }
        Avail {
            desktop: range(self.desktop, other.desktop),
            es: range(self.es, other.es),
            stages: self.stages & other.stages,
            api: self.api.or(other.api),
        }
    }
}

/// One signature of a built-in function and where it exists.
pub(super) struct FnEntry {
    pub(super) sig: Signature,
    pub(super) avail: Avail,
}

/// One built-in variable and where it exists.
pub(super) struct VarEntry {
    pub(super) var: Variable,
    pub(super) avail: Avail,
}

/// The parsed tables. Entries are sorted by name (table order within a name), and
/// the indexes map a name to its run of entries.
pub(super) struct Tables {
    pub(super) functions: Vec<FnEntry>,
    pub(super) function_index: NameMap<Range<usize>>,
    pub(super) variables: Vec<VarEntry>,
    pub(super) variable_index: NameMap<Range<usize>>,
    pub(super) docs: HashMap<&'static str, &'static str>,
    pub(super) extensions: Extensions,
    pub(super) const_args: NameMap<Vec<ConstArg>>,
}

/// The version an extension lifts built-ins from (a `lift` line's AT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct LiftAt {
    pub(super) desktop: Option<u16>,
    pub(super) es: Option<u16>,
    /// The built-ins that exist only through extensions (`ext`).
    pub(super) ext: bool,
}

/// One extension of `extensions.txt`.
#[derive(Clone, Debug, Default)]
pub(super) struct ExtEntry {
    /// Extensions enabling this one enables (itself included).
    pub(super) implies: Vec<usize>,
    /// Gives the compatibility profile's built-ins.
    pub(super) compatibility: bool,
    pub(super) types: Vec<String>,
}

/// The parsed `extensions.txt`.
#[derive(Default)]
pub(super) struct Extensions {
    pub(super) entries: Vec<ExtEntry>,
    pub(super) index: NameMap<usize>,
    /// Built-in name -> (extension, version it is lifted from).
    pub(super) lifts: NameMap<Vec<(usize, LiftAt)>>,
    /// Type name -> the extensions that add it.
    pub(super) types: NameMap<Vec<usize>>,
}

pub(super) const MAX_EXTENSIONS: usize = 256;

fn parse_extensions(file: &str, src: &'static str) -> Extensions {
    let mut docs = Docs::default();
    let mut ext = Extensions::default();
    let mut implies: Vec<(Loc, usize, &str)> = Vec::new();
    for (loc, line) in table_lines(file, src, &mut docs) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["extension", name, ref rest @ ..] => {
                if !is_identifier(name) {
                    loc.fail(format_args!("bad extension name `{name}`"));
                }
                let id = ext.entries.len();
                if ext.index.insert(name.to_string(), id).is_some() {
                    loc.fail(format_args!("second `extension {name}` line"));
                }
                let mut entry = ExtEntry {
                    implies: vec![id],
                    ..ExtEntry::default()
                };
                let mut rest = rest.iter();
                while let Some(w) = rest.next() {
                    match *w {
                        "compatibility" => entry.compatibility = true,
                        "implies" => match rest.next() {
                            Some(list) => implies.extend(list.split(',').map(|n| (loc, id, n))),
                            None => loc.fail("`implies` needs NAME,NAME..."),
                        },
                        other => loc.fail(format_args!("unknown token `{other}`")),
                    }
                }
                ext.entries.push(entry);
            }
            ["lift", name, at, ref names @ ..] => {
                let Some(&id) = ext.index.get(name) else {
                    loc.fail(format_args!("`{name}` has no `extension` line above"))
                };
                if names.is_empty() {
                    loc.fail("`lift` names no built-in");
                }
                let mut lift = LiftAt::default();
                for v in at.split(',') {
                    if v == "ext" {
                        lift.ext = true;
                    } else if let Some(es) = v.strip_prefix("es") {
                        lift.es = Some(parse_range(loc, es, &ES_VERSIONS).0);
                    } else {
                        lift.desktop = Some(parse_range(loc, v, &DESKTOP_VERSIONS).0);
                    }
                }
                for n in names {
                    if !is_identifier(n) {
                        loc.fail(format_args!("bad built-in name `{n}`"));
                    }
                    ext.lifts.entry(n.to_string()).or_default().push((id, lift));
                }
            }
            ["types", name, ref names @ ..] => {
                let Some(&id) = ext.index.get(name) else {
                    loc.fail(format_args!("`{name}` has no `extension` line above"))
                };
                for n in names {
                    if !is_identifier(n) {
                        loc.fail(format_args!("bad type name `{n}`"));
                    }
                    ext.entries[id].types.push(n.to_string());
                    ext.types.entry(n.to_string()).or_default().push(id);
                }
            }
            _ => loc.fail("expected `extension NAME`, `lift NAME AT NAMES` or `types NAME TYPES`"),
        }
    }
    for (loc, id, n) in implies {
        match ext.index.get(n) {
            Some(&other) => ext.entries[id].implies.push(other),
            None => loc.fail(format_args!("`implies {n}`: no such extension")),
        }
    }
    if ext.entries.len() > MAX_EXTENSIONS {
        panic!("builtins/{file}: more than {MAX_EXTENSIONS} extensions (widen ExtSet)");
    }
    ext
}

pub(super) fn load() -> Tables {
    let functions = parse_functions("functions.txt", include_str!("functions.txt"));
    let extensions = parse_extensions("extensions.txt", include_str!("extensions.txt"));
    let variables = parse_variables("variables.txt", include_str!("variables.txt"));
    let mut docs = functions.docs;
    for (name, text) in variables.docs {
        if docs.insert(name, text).is_some() {
            panic!("builtins: `{name}` is described in both functions.txt and variables.txt");
        }
    }
    Tables {
        function_index: index(&functions.entries, |e| e.sig.name.as_str()),
        functions: functions.entries,
        variable_index: index(&variables.entries, |e| e.var.name.as_str()),
        variables: variables.entries,
        docs,
        extensions,
        const_args: functions.const_args,
    }
}

/// Maps each name to the range of (name-sorted) entries that carry it.
fn index<T>(entries: &[T], name: impl Fn(&T) -> &str) -> NameMap<Range<usize>> {
    let mut map = NameMap::default();
    let mut start = 0;
    for i in 1..=entries.len() {
        if i == entries.len() || name(&entries[i]) != name(&entries[start]) {
            map.insert(name(&entries[start]).to_string(), start..i);
            start = i;
        }
    }
    map
}

/// A position in a table, for error messages.
#[derive(Clone, Copy)]
struct Loc<'a> {
    file: &'a str,
    line_no: usize,
    line: &'a str,
}

impl Loc<'_> {
    fn fail(&self, msg: impl std::fmt::Display) -> ! {
        panic!(
            "builtins/{}:{}: {msg}\n    {}",
            self.file,
            self.line_no,
            self.line.trim()
        )
    }
}

/// Splits off a trailing `# comment`.
fn strip_comment(line: &str) -> &str {
    line.split_once('#').map_or(line, |(code, _)| code).trim()
}

/// A table's `doc` lines, by name, with the line each is on.
#[derive(Default)]
struct Docs {
    text: HashMap<&'static str, &'static str>,
    at: HashMap<&'static str, usize>,
}

/// The lines of a table that declare something (comments and blank lines
/// left out), each with its place; `doc` lines go into `docs`.
fn table_lines<'a>(
    file: &'a str,
    src: &'static str,
    docs: &mut Docs,
) -> Vec<(Loc<'a>, &'static str)> {
    let mut out = Vec::new();
    for (i, raw) in src.lines().enumerate() {
        let loc = Loc {
            file,
            line_no: i + 1,
            line: raw,
        };
        let line = strip_comment(raw);
        if line.is_empty() {
            continue;
        }
        match raw.trim().strip_prefix("doc ") {
            Some(rest) => parse_doc(loc, rest, &mut docs.text, &mut docs.at),
            None => out.push((loc, line)),
        }
    }
    out
}

/// Parses a `doc NAME: text` line into the doc map.
fn parse_doc(
    loc: Loc,
    rest: &'static str,
    docs: &mut HashMap<&'static str, &'static str>,
    docs_at: &mut HashMap<&'static str, usize>,
) {
    let Some((name, text)) = rest.split_once(':') else {
        loc.fail("expected `doc NAME: description`")
    };
    let (name, text) = (name.trim(), text.trim());
    if !is_identifier(name) || text.is_empty() {
        loc.fail("expected `doc NAME: description`");
    }
    if docs.insert(name, text).is_some() {
        loc.fail(format_args!("second description of `{name}`"));
    }
    docs_at.insert(name, loc.line_no);
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Which prefixes (`""`, `i`, `u`) a `g...` placeholder takes on a line.
const PREFIXES: [&str; 3] = ["", "i", "u"];

/// Parses the tokens after a prototype or declaration: versions, stages, and (for
/// functions) `g=iu`. Returns the availability and the allowed g-prefixes.
fn parse_tokens(loc: Loc, tokens: &str, allow_g: bool) -> (Avail, Vec<&'static str>) {
    let mut avail = Avail {
        desktop: None,
        es: None,
        stages: 0,
        api: None,
    };
    let mut prefixes = PREFIXES.to_vec();
    let mut ext_only = false;
    for token in tokens.split_whitespace() {
        if token == "ext" {
            ext_only = true;
        } else if let Some(g) = token.strip_prefix("g=") {
            if !allow_g {
                loc.fail("`g=` is only meaningful in functions.txt");
            }
            prefixes = PREFIXES
                .iter()
                .copied()
                .filter(|p| !p.is_empty() && g.contains(p))
                .collect();
            if prefixes.is_empty() || g.chars().any(|c| !matches!(c, 'i' | 'u')) {
                loc.fail(format_args!(
                    "bad prefix set `{token}` (use g=iu, g=i or g=u)"
                ));
            }
        } else if token.starts_with(|c: char| c.is_ascii_digit()) {
            if avail.desktop.is_some() {
                loc.fail(format_args!("second desktop version token `{token}`"));
            }
            avail.desktop = Some(parse_range(loc, token, &DESKTOP_VERSIONS));
        } else if token == "opengl" || token == "vulkan" {
            if avail.api.is_some() {
                loc.fail(format_args!("second API token `{token}`"));
            }
            avail.api = Some(if token == "vulkan" {
                Api::Vulkan
            } else {
                Api::OpenGl
            });
        } else if let Some(es) = token.strip_prefix("es") {
            if avail.es.is_some() {
                loc.fail(format_args!("second ES version token `{token}`"));
            }
            avail.es = Some(parse_range(loc, es, &ES_VERSIONS));
        } else {
            for stage in token.split(',') {
                match parse_stage(stage) {
                    Some(bits) => avail.stages |= bits,
                    None => loc.fail(format_args!(
                        "unknown token `{stage}` (expected a version such as 110, 110-130, \
                         es300, es100-100, an API: opengl vulkan, or a stage: all vert tesc tese geom frag comp)"
                    )),
                }
            }
        }
    }
    if ext_only && (avail.desktop.is_some() || avail.es.is_some()) {
        loc.fail("`ext` (only through an extension) with a version token");
    }
    if avail.desktop.is_none() && avail.es.is_none() && !ext_only {
        loc.fail("no version token (e.g. `110 es100`, or `ext`)");
    }
    if avail.stages == 0 {
        avail.stages = ALL_STAGES;
    }
    (avail, prefixes)
}

/// `N` or `N-M` with both in `valid`.
fn parse_range(loc: Loc, token: &str, valid: &[u16]) -> (u16, u16) {
    let number = |s: &str| -> u16 {
        match s.parse::<u16>() {
            Ok(n) if valid.contains(&n) => n,
            _ => loc.fail(format_args!(
                "`{s}` is not a GLSL version here (one of {valid:?})"
            )),
        }
    };
    match token.split_once('-') {
        Some((lo, hi)) => {
            let (lo, hi) = (number(lo), number(hi));
            if lo > hi {
                loc.fail(format_args!("empty version range `{token}`"));
            }
            (lo, hi)
        }
        None => (number(token), u16::MAX),
    }
}

/// Names of the opaque types the tables may use (catches typos that
/// `parse_type_name` would accept as some opaque type).
fn opaque_names() -> HashSet<String> {
    let dims = [
        "1D",
        "2D",
        "3D",
        "Cube",
        "2DRect",
        "1DArray",
        "2DArray",
        "CubeArray",
        "Buffer",
        "2DMS",
        "2DMSArray",
    ];
    let mut names: HashSet<String> = PREFIXES
        .iter()
        .flat_map(|p| {
            dims.iter()
                .flat_map(move |d| [format!("{p}sampler{d}"), format!("{p}image{d}")])
        })
        .collect();
    for shadow in [
        "1D",
        "2D",
        "Cube",
        "2DRect",
        "1DArray",
        "2DArray",
        "CubeArray",
    ] {
        names.insert(format!("sampler{shadow}Shadow"));
    }
    names.insert("samplerExternalOES".into());
    names.insert("atomic_uint".into());
    for p in PREFIXES {
        names.insert(format!("{p}subpassInput"));
        names.insert(format!("{p}subpassInputMS"));
    }
    names
}

/// Parses a type name: a built-in type, or (in variables.txt) a struct of `structs`.
fn parse_type(
    loc: Loc,
    name: &str,
    opaque: &HashSet<String>,
    structs: &HashMap<String, Arc<StructType>>,
) -> Type {
    if let Some(s) = structs.get(name) {
        return Type::Struct(s.clone());
    }
    if opaque.contains(name) {
        return Type::Opaque(name.to_string());
    }
    match parse_type_name(name) {
        Some(Type::Opaque(o)) if !opaque.contains(&o) => {
            loc.fail(format_args!("unknown opaque type `{name}`"))
        }
        Some(ty) => ty,
        None => loc.fail(format_args!("unknown type `{name}`")),
    }
}

/// Splits `NAME`, `NAME[4]` or `NAME[]` into the name and the array size.
fn split_array(loc: Loc, declarator: &str) -> (String, Option<Option<u32>>) {
    let Some((name, rest)) = declarator.split_once('[') else {
        if !is_identifier(declarator) {
            loc.fail(format_args!("bad name `{declarator}`"));
        }
        return (declarator.to_string(), None);
    };
    let Some(size) = rest.strip_suffix(']') else {
        loc.fail(format_args!("bad array declarator `{declarator}`"))
    };
    if !is_identifier(name) {
        loc.fail(format_args!("bad name `{name}`"));
    }
    let size = if size.trim().is_empty() {
        None
    } else {
        match size.trim().parse::<u32>() {
            Ok(n) if n > 0 => Some(n),
            _ => loc.fail(format_args!("bad array size in `{declarator}`")),
        }
    };
    (name.to_string(), Some(size))
}

fn array_of(ty: Type, size: Option<Option<u32>>) -> Type {
    match size {
        Some(n) => Type::Array(Box::new(ty), n),
        None => ty,
    }
}

// ---------------------------------------------------------------------------
// functions.txt

struct ParsedFunctions {
    entries: Vec<FnEntry>,
    docs: HashMap<&'static str, &'static str>,
    const_args: NameMap<Vec<ConstArg>>,
}

/// An argument of a built-in function that must be a constant expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ConstArg {
    /// By position (0-based), for functions the tables do not model.
    Index(usize),
    /// By the parameter's name in the table.
    Param(String),
}

/// One alternative of a `define`d parameter macro.
struct MacroAlt {
    text: String,
    avail: Avail,
}

fn parse_functions(file: &str, src: &'static str) -> ParsedFunctions {
    let opaque = opaque_names();
    let no_structs = HashMap::new();
    let mut entries = Vec::new();
    let mut docs = Docs::default();
    let mut macros: HashMap<String, Vec<MacroAlt>> = HashMap::new();
    let mut names_at: HashMap<String, usize> = HashMap::new();

    let mut const_args: NameMap<Vec<ConstArg>> = NameMap::default();
    for (loc, line) in table_lines(file, src, &mut docs) {
        if let Some(rest) = line.strip_prefix("const ") {
            let mut words = rest.split_whitespace();
            let Some(name) = words.next().filter(|n| is_identifier(n)) else {
                loc.fail("expected `const NAME ARG...`")
            };
            for w in words {
                let arg = match w.parse::<usize>() {
                    Ok(i) => ConstArg::Index(i),
                    Err(_) if is_identifier(w) => ConstArg::Param(w.to_string()),
                    Err(_) => loc.fail(format_args!(
                        "bad argument `{w}` (an index or a parameter name)"
                    )),
                };
                const_args.entry(name.to_string()).or_default().push(arg);
            }
            continue;
        }
        // `RET NAME(PARAMS) TOKENS` or `define MACRO(TEXT) TOKENS`.
        let (Some(open), Some(close)) = (line.find('('), line.find(')')) else {
            loc.fail("expected `RET NAME(PARAMS) VERSIONS [STAGES]`")
        };
        if close < open {
            loc.fail("unbalanced parentheses");
        }
        let head: Vec<&str> = line[..open].split_whitespace().collect();
        let params = &line[open + 1..close];
        let tail = &line[close + 1..];
        match head[..] {
            ["define", name] => {
                if !is_identifier(name) {
                    loc.fail(format_args!("bad macro name `{name}`"));
                }
                let (avail, _) = parse_tokens(loc, tail, false);
                macros.entry(name.to_string()).or_default().push(MacroAlt {
                    text: params.trim().to_string(),
                    avail,
                });
            }
            [ret, name] => {
                if !is_identifier(name) {
                    loc.fail(format_args!("bad function name `{name}`"));
                }
                names_at.entry(name.to_string()).or_insert(loc.line_no);
                let (avail, prefixes) = parse_tokens(loc, tail, true);
                // Expand a parameter macro, if the line uses one.
                let used: Vec<&String> = macros
                    .keys()
                    .filter(|m| identifiers(params).any(|id| id == m.as_str()))
                    .collect();
                let alternatives: Vec<(String, Avail)> = match used[..] {
                    [] => vec![(params.to_string(), avail)],
                    [m] => macros[m]
                        .iter()
                        .map(|alt| {
                            let text = replace_identifiers(params, |id| {
                                (id == m.as_str()).then(|| alt.text.clone())
                            });
                            (text, avail.intersect(&alt.avail))
                        })
                        .collect(),
                    _ => loc.fail("more than one macro on a line"),
                };
                for (params, avail) in alternatives {
                    for (ret, params) in expand_generics(loc, ret, &params, &prefixes) {
                        push_signatures(
                            loc,
                            name,
                            &ret,
                            &params,
                            avail,
                            &opaque,
                            &no_structs,
                            &mut entries,
                        );
                    }
                }
            }
            _ => loc.fail("expected `RET NAME(PARAMS) VERSIONS [STAGES]`"),
        }
    }

    check_docs(file, &names_at, &docs.at);
    entries.sort_by(|a: &FnEntry, b: &FnEntry| a.sig.name.cmp(&b.sig.name));
    ParsedFunctions {
        entries,
        docs: docs.text,
        const_args,
    }
}

/// Every named thing has a description and every description names a thing.
fn check_docs(file: &str, names_at: &HashMap<String, usize>, docs_at: &HashMap<&str, usize>) {
    let mut missing: Vec<(&usize, &String)> = names_at
        .iter()
        .filter(|(name, _)| !docs_at.contains_key(name.as_str()))
        .map(|(name, at)| (at, name))
        .collect();
    missing.sort();
    if let Some((at, name)) = missing.first() {
        panic!("builtins/{file}:{at}: `{name}` has no `doc {name}: ...` line");
    }
    let mut orphans: Vec<(&usize, &&str)> = docs_at
        .iter()
        .filter(|(name, _)| !names_at.contains_key(**name))
        .map(|(name, at)| (at, name))
        .collect();
    orphans.sort();
    if let Some((at, name)) = orphans.first() {
        panic!("builtins/{file}:{at}: `doc {name}` describes nothing declared in this table");
    }
}

/// The identifiers of a piece of text.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|s| !s.is_empty())
}

/// Rebuilds `text` with each identifier for which `f` returns a replacement replaced.
fn replace_identifiers(text: &str, mut f: impl FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let word_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if word_len == 0 {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        } else {
            let word = &rest[..word_len];
            match f(word) {
                Some(replacement) => out.push_str(&replacement),
                None => out.push_str(word),
            }
            rest = &rest[word_len..];
        }
    }
    out
}

/// The groups of generic placeholders (see the header of functions.txt).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Group {
    /// `genFType` ...: sizes 1 to 4.
    Size1,
    /// `vec`, `sqmat` ...: sizes 2 to 4.
    Size2,
    /// `nsqmat` ...: the six non-square shapes.
    NonSquare,
    /// `gvec4`, `gsampler2D`, `gsubpassInput` ...: the "", i, u prefixes.
    Prefix,
}

/// Non-square matrix shapes as (columns, rows).
const NON_SQUARE: [(u8, u8); 6] = [(2, 3), (2, 4), (3, 2), (3, 4), (4, 2), (4, 3)];

fn group_of(word: &str) -> Option<Group> {
    Some(match word {
        "genFType" | "genDType" | "genIType" | "genUType" | "genBType" => Group::Size1,
        "vec" | "dvec" | "ivec" | "uvec" | "bvec" | "sqmat" | "dsqmat" => Group::Size2,
        "nsqmat" | "nsqmatT" | "dnsqmat" | "dnsqmatT" => Group::NonSquare,
        "gvec4" | "gscalar" => Group::Prefix,
        w if w.starts_with("gsampler") || w.starts_with("gimage") || w.starts_with("gsubpass") => {
            Group::Prefix
        }
        _ => return None,
    })
}

/// The concrete text of placeholder `word` at step `step` of its group.
fn instantiate(word: &str, step: usize, prefixes: &[&str]) -> String {
    let vector = |scalar: Scalar, n: usize| Type::vec(scalar, n as u8).to_string();
    match word {
        "genFType" => vector(Scalar::Float, step),
        "genDType" => vector(Scalar::Double, step),
        "genIType" => vector(Scalar::Int, step),
        "genUType" => vector(Scalar::Uint, step),
        "genBType" => vector(Scalar::Bool, step),
        "vec" => vector(Scalar::Float, step),
        "dvec" => vector(Scalar::Double, step),
        "ivec" => vector(Scalar::Int, step),
        "uvec" => vector(Scalar::Uint, step),
        "bvec" => vector(Scalar::Bool, step),
        "sqmat" => format!("mat{step}"),
        "dsqmat" => format!("dmat{step}"),
        "nsqmat" | "nsqmatT" | "dnsqmat" | "dnsqmatT" => {
            let (c, r) = NON_SQUARE[step];
            let (c, r) = if word.ends_with('T') { (r, c) } else { (c, r) };
            let d = if word.starts_with('d') { "d" } else { "" };
            format!("{d}mat{c}x{r}")
        }
        "gscalar" => ["float", "int", "uint"][PREFIXES
            .iter()
            .position(|p| *p == prefixes[step])
            .unwrap_or(0)]
        .to_string(),
        // gvec4, gsamplerXXX, gimageXXX, gsubpassInputXXX
        _ => format!("{}{}", prefixes[step], &word[1..]),
    }
}

/// Expands the generic placeholders of one prototype into concrete (return type,
/// parameter text) pairs.
fn expand_generics(loc: Loc, ret: &str, params: &str, prefixes: &[&str]) -> Vec<(String, String)> {
    let mut groups: Vec<Group> = Vec::new();
    for word in std::iter::once(ret).chain(identifiers(params)) {
        if let Some(g) = group_of(word) {
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    if groups.contains(&Group::Size1) && groups.contains(&Group::Size2) {
        loc.fail("a line mixes size 1-4 (genFType ...) and size 2-4 (vec, sqmat ...) placeholders");
    }
    let steps = |g: Group| -> Range<usize> {
        match g {
            Group::Size1 => 1..5,
            Group::Size2 => 2..5,
            Group::NonSquare => 0..NON_SQUARE.len(),
            Group::Prefix => 0..prefixes.len(),
        }
    };
    // Cartesian product over the groups present, each group in lockstep.
    let mut combos: Vec<Vec<(Group, usize)>> = vec![Vec::new()];
    for &g in &groups {
        combos = combos
            .into_iter()
            .flat_map(|combo| {
                steps(g).map(move |s| {
                    let mut c = combo.clone();
                    c.push((g, s));
                    c
                })
            })
            .collect();
    }
    combos
        .into_iter()
        .map(|combo| {
            let mut subst = |word: &str| -> Option<String> {
                let g = group_of(word)?;
                let step = combo.iter().find(|(cg, _)| *cg == g)?.1;
                Some(instantiate(word, step, prefixes))
            };
            (
                replace_identifiers(ret, &mut subst),
                replace_identifiers(params, &mut subst),
            )
        })
        .collect()
}

/// Parses a concrete parameter list and pushes its signatures (one per number of
/// optional parameters present).
#[allow(clippy::too_many_arguments)]
fn push_signatures(
    loc: Loc,
    name: &str,
    ret: &str,
    params: &str,
    avail: Avail,
    opaque: &HashSet<String>,
    structs: &HashMap<String, Arc<StructType>>,
    out: &mut Vec<FnEntry>,
) {
    let ret = parse_type(loc, ret, opaque, structs);
    let mut required = Vec::new();
    let mut optional: Vec<(Param, u8)> = Vec::new();
    for text in params.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if let Some(inner) = text.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                loc.fail(format_args!("optional parameter `{text}` lacks its `]`"))
            };
            let (decl, stages) = match inner.split_once('@') {
                Some((decl, stages)) => {
                    let bits = stages.split(',').map(|s| {
                        parse_stage(s.trim()).unwrap_or_else(|| {
                            loc.fail(format_args!("unknown stage `{s}` in `{text}`"))
                        })
                    });
                    (decl, bits.fold(0, |a, b| a | b))
                }
                None => (inner, ALL_STAGES),
            };
            optional.push((parse_param(loc, decl, opaque, structs), stages));
        } else {
            if !optional.is_empty() {
                loc.fail("a required parameter follows an optional one");
            }
            required.push(parse_param(loc, text, opaque, structs));
        }
    }
    let mut params = required;
    let mut avail = avail;
    for k in 0..=optional.len() {
        if k > 0 {
            let (param, stages) = &optional[k - 1];
            params.push(param.clone());
            avail.stages &= stages;
        }
        out.push(FnEntry {
            sig: Signature {
                name: name.to_string(),
                ret: ret.clone(),
                params: params.clone(),
            },
            avail,
        });
    }
}

fn parse_param(
    loc: Loc,
    text: &str,
    opaque: &HashSet<String>,
    structs: &HashMap<String, Arc<StructType>>,
) -> Param {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (dir, rest) = match words[..] {
        ["in", ..] => (ParamDir::In, &words[1..]),
        ["out", ..] => (ParamDir::Out, &words[1..]),
        ["inout", ..] => (ParamDir::InOut, &words[1..]),
        _ => (ParamDir::In, &words[..]),
    };
    let [ty, declarator] = rest else {
        loc.fail(format_args!(
            "parameter `{text}` is not `[in|out|inout] TYPE NAME`"
        ))
    };
    let (name, array) = split_array(loc, declarator);
    Param {
        name,
        ty: array_of(parse_type(loc, ty, opaque, structs), array),
        dir,
    }
}

// ---------------------------------------------------------------------------
// variables.txt

struct ParsedVariables {
    entries: Vec<VarEntry>,
    docs: HashMap<&'static str, &'static str>,
}

fn parse_variables(file: &str, src: &'static str) -> ParsedVariables {
    let opaque = opaque_names();
    let mut structs: HashMap<String, Arc<StructType>> = HashMap::new();
    let mut entries = Vec::new();
    let mut docs = Docs::default();
    let mut names_at: HashMap<String, usize> = HashMap::new();

    for (loc, line) in table_lines(file, src, &mut docs) {
        if let Some(rest) = line.strip_prefix("struct ") {
            let st = parse_struct(loc, rest, &opaque, &structs);
            if structs.insert(st.name.clone(), Arc::new(st)).is_some() {
                loc.fail("struct defined twice");
            }
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let [storage, ty, declarator, ..] = words[..] else {
            loc.fail("expected `STORAGE TYPE NAME VERSIONS [STAGES]`")
        };
        let storage = match storage {
            "in" => Storage::In,
            "out" => Storage::Out,
            "inout" => Storage::InOut,
            "uniform" => Storage::Uniform,
            "const" => Storage::Const,
            other => loc.fail(format_args!(
                "unknown storage `{other}` (in, out, inout, uniform, const)"
            )),
        };
        let (name, array) = split_array(loc, declarator);
        let ty = array_of(parse_type(loc, ty, &opaque, &structs), array);
        let (avail, _) = parse_tokens(loc, &words[3..].join(" "), false);
        names_at.entry(name.clone()).or_insert(loc.line_no);
        entries.push(VarEntry {
            var: Variable { name, ty, storage },
            avail,
        });
    }

    check_docs(file, &names_at, &docs.at);
    entries.sort_by(|a: &VarEntry, b: &VarEntry| a.var.name.cmp(&b.var.name));
    ParsedVariables {
        entries,
        docs: docs.text,
    }
}

/// Parses `NAME { TYPE FIELD; ... }`.
fn parse_struct(
    loc: Loc,
    text: &str,
    opaque: &HashSet<String>,
    structs: &HashMap<String, Arc<StructType>>,
) -> StructType {
    let (Some((name, body)), true) = (text.split_once('{'), text.trim_end().ends_with('}')) else {
        loc.fail("expected `struct NAME { TYPE FIELD; ... }` on one line")
    };
    let name = name.trim();
    if !is_identifier(name) {
        loc.fail(format_args!("bad struct name `{name}`"));
    }
    let body = body.trim_end().trim_end_matches('}');
    let mut fields: Vec<Field> = Vec::new();
    for member in body.split(';').map(str::trim).filter(|m| !m.is_empty()) {
        let words: Vec<&str> = member.split_whitespace().collect();
        let [ty, declarator] = words[..] else {
            loc.fail(format_args!("struct member `{member}` is not `TYPE NAME`"))
        };
        let (field, array) = split_array(loc, declarator);
        if fields.iter().any(|f| f.name == field) {
            loc.fail(format_args!("member `{field}` declared twice"));
        }
        fields.push(Field {
            name: field,
            ty: array_of(parse_type(loc, ty, opaque, structs), array),
        });
    }
    if fields.is_empty() {
        loc.fail("struct without members");
    }
    StructType {
        name: name.to_string(),
        fields,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Version;

    fn sigs(src: &'static str) -> Vec<String> {
        parse_functions("test.txt", src)
            .entries
            .iter()
            .map(|e| e.sig.display())
            .collect()
    }

    #[test]
    fn generics_expand_in_lockstep() {
        let src = "doc f: F.\ngenFType f(genFType x, out genIType e, [float b @frag]) 400\n";
        let parsed = parse_functions("test.txt", src);
        assert_eq!(parsed.entries.len(), 8);
        assert_eq!(
            parsed.entries[1].sig.display(),
            "float f(float x, out int e, float b)"
        );
        assert_eq!(
            parsed.entries[7].sig.display(),
            "vec4 f(vec4 x, out ivec4 e, float b)"
        );
        let frag = stage_bit(Stage::Fragment);
        assert_eq!(parsed.entries[0].avail.stages, ALL_STAGES);
        assert_eq!(parsed.entries[1].avail.stages, frag);
        assert_eq!(
            sigs("doc t: T.\nnsqmatT t(nsqmat m) 120\n")[0],
            "mat3x2 t(mat2x3 m)"
        );
        assert_eq!(
            sigs("doc g: G.\ngscalar g(gsampler2D s, gvec4 v) 130 g=u\n"),
            ["uint g(usampler2D s, uvec4 v)"]
        );
    }

    #[test]
    fn macros_intersect_versions() {
        let src = "define M(gimage1D i, int P) 420\ndefine M(gimage2D i, ivec2 P) 420 es310\n\
                   doc f: F.\nvoid f(M, float d) 430 es320 g=i\n";
        let parsed = parse_functions("test.txt", src);
        let shown: Vec<String> = parsed.entries.iter().map(|e| e.sig.display()).collect();
        assert_eq!(
            shown,
            [
                "void f(iimage1D i, int P, float d)",
                "void f(iimage2D i, ivec2 P, float d)"
            ]
        );
        let at = |number, profile| BuiltinEnv {
            version: Version { number, profile },
            stage: Stage::Compute,
            api: Api::OpenGl,
        };
        assert!(!parsed.entries[0].avail.allows(&at(320, Profile::Es)));
        assert!(parsed.entries[1].avail.allows(&at(320, Profile::Es)));
        assert!(!parsed.entries[1].avail.allows(&at(310, Profile::Es)));
        assert!(!parsed.entries[1].avail.allows(&at(420, Profile::Core)));
    }

    #[test]
    fn removed_from_core_kept_in_compatibility() {
        let parsed = parse_functions("test.txt", "doc f: F.\nvoid f() 110-130 es100-100 frag\n");
        let avail = parsed.entries[0].avail;
        let at = |number, profile, stage| BuiltinEnv {
            version: Version { number, profile },
            stage,
            api: Api::OpenGl,
        };
        assert!(avail.allows(&at(130, Profile::Core, Stage::Fragment)));
        assert!(!avail.allows(&at(140, Profile::Core, Stage::Fragment)));
        assert!(avail.allows(&at(460, Profile::Compatibility, Stage::Fragment)));
        assert!(avail.allows(&at(100, Profile::Es, Stage::Fragment)));
        assert!(!avail.allows(&at(300, Profile::Es, Stage::Fragment)));
        assert!(!avail.allows(&at(130, Profile::Core, Stage::Vertex)));
    }

    #[test]
    fn variables_and_structs() {
        let src = "struct S { float a; vec2 b[]; }\ndoc gl_X: X.\nuniform S gl_X[3] 110 frag\n";
        let parsed = parse_variables("test.txt", src);
        let var = &parsed.entries[0].var;
        assert_eq!(var.ty.to_string(), "S[3]");
        let Type::Array(elem, _) = &var.ty else {
            panic!()
        };
        let Type::Struct(s) = &**elem else { panic!() };
        assert_eq!(s.fields[1].ty.to_string(), "vec2[]");
        assert_eq!(parsed.docs["gl_X"], "X.");
    }

    #[test]
    #[should_panic(expected = "builtins/test.txt:2: `111` is not a GLSL version")]
    fn bad_version_is_reported_with_its_line() {
        parse_functions("test.txt", "doc f: F.\nvoid f() 111\n");
    }

    #[test]
    #[should_panic(expected = "builtins/test.txt:2: unknown type `vec5`")]
    fn bad_type_is_reported_with_its_line() {
        parse_functions("test.txt", "doc f: F.\nvec5 f() 110\n");
    }

    #[test]
    #[should_panic(expected = "builtins/test.txt:1: unknown opaque type `sampler2DShadowArray`")]
    fn misspelt_sampler_is_reported() {
        parse_functions("test.txt", "vec4 f(sampler2DShadowArray s) 110\n");
    }

    #[test]
    #[should_panic(expected = "builtins/test.txt:1: `f` has no `doc f: ...` line")]
    fn missing_doc_is_reported() {
        parse_functions("test.txt", "void f() 110\n");
    }

    #[test]
    #[should_panic(expected = "builtins/test.txt:1: no version token")]
    fn missing_version_is_reported() {
        parse_functions("test.txt", "void f() frag\n");
    }

    #[test]
    #[should_panic(expected = "mixes size 1-4")]
    fn mixed_size_groups_are_rejected() {
        parse_functions("test.txt", "doc f: F.\nvec f(genFType x) 110\n");
    }

    #[test]
    #[should_panic(expected = "builtins/test.txt:1: unknown storage `varying`")]
    fn bad_storage_is_reported() {
        parse_variables("test.txt", "varying vec4 gl_X 110\n");
    }
}
