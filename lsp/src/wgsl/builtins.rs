//! The built-in functions of WGSL as data: `builtins.txt` holds every
//! overload the WGSL specification lists (section 17), with what its type
//! parameters range over and its description; this module reads it once and
//! answers signature help for calls of built-ins, choosing the overload the
//! arguments typed so far fit.

use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("builtins.txt");

/// One overload: `fn mix(e1: T, e2: T, e3: T) -> T`.
#[derive(Debug)]
pub struct Overload {
    /// The signature as shown: `fn NAME(PARAMETERS) -> RESULT`.
    pub label: String,
    /// Each parameter's byte range in `label` (`e1: T`).
    pub params: Vec<(usize, usize)>,
    /// Each parameter's name and type (`e1`, `T`).
    pub param_decls: Vec<(String, String)>,
    /// What the type parameters range over (`T is f32 or vecN<f32>`); may be empty.
    pub parameterization: String,
    /// The overload's description, else the function's; may be empty.
    pub doc: String,
    /// The types a type parameter ranges over, where the parameterization
    /// lists them (`T is texture_3d<f32>, or texture_cube<f32>`).
    constraints: HashMap<String, Vec<Ty>>,
}

/// A built-in function: its overloads in the specification's order and the
/// descriptions of its parameters by name.
#[derive(Debug, Default)]
pub struct Function {
    pub overloads: Vec<Overload>,
    pub param_docs: HashMap<String, String>,
}

/// The table, read once.
fn table() -> &'static HashMap<String, Function> {
    static TABLE_MAP: OnceLock<HashMap<String, Function>> = OnceLock::new();
    TABLE_MAP.get_or_init(|| parse(TABLE))
}

/// The built-in function `name`, if WGSL has one.
pub fn function(name: &str) -> Option<&'static Function> {
    table().get(name)
}

/// The names of every built-in function in the table.
pub fn names() -> impl Iterator<Item = &'static str> {
    table().keys().map(String::as_str)
}

/// Reads the table (format in its header). Lines it cannot read are skipped:
/// the table is ours, `tests` checks every line is read.
fn parse(text: &str) -> HashMap<String, Function> {
    let mut out: HashMap<String, Function> = HashMap::new();
    let mut intros: HashMap<String, String> = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("= ") {
            if let Some((name, doc)) = rest.split_once(": ") {
                intros.insert(name.to_string(), doc.to_string());
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("- ") {
            if let Some((name, rest)) = rest.split_once(' ') {
                if let Some((param, doc)) = rest.split_once(": ") {
                    out.entry(name.to_string())
                        .or_default()
                        .param_docs
                        .insert(param.to_string(), doc.to_string());
                }
            }
            continue;
        }
        if let Some((name, overload)) = parse_overload(line) {
            out.entry(name).or_default().overloads.push(overload);
        }
    }
    for (name, f) in out.iter_mut() {
        if let Some(intro) = intros.get(name) {
            for o in f.overloads.iter_mut().filter(|o| o.doc.is_empty()) {
                o.doc = intro.clone();
            }
        }
    }
    out.retain(|_, f| !f.overloads.is_empty());
    out
}

/// `NAME(PARAMETERS) -> RESULT | PARAMETERIZATION | DESCRIPTION`.
fn parse_overload(line: &str) -> Option<(String, Overload)> {
    let mut parts = line.splitn(3, '|');
    let signature = parts.next()?.trim();
    let parameterization = parts.next().unwrap_or("").trim().to_string();
    let doc = parts.next().unwrap_or("").trim().to_string();
    let name_end = signature.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let name = &signature[..name_end];
    // The `(` of the parameters: after a template list (`bitcast<vecN<T>>(`).
    let open = matching_open_paren(signature, name_end)?;
    let close = open + 1 + closing(&signature[open + 1..])?;
    let label = format!("fn {signature}");
    let shift = "fn ".len();
    let mut params = Vec::new();
    let mut param_decls = Vec::new();
    let inner = &signature[open + 1..close];
    let mut at = open + 1;
    for p in super::features::split_top_level(inner) {
        if p.is_empty() {
            continue;
        }
        let start = at + signature[at..].find(p)?;
        params.push((start + shift, start + shift + p.len()));
        let (pname, pty) = p.split_once(':')?;
        param_decls.push((pname.trim().to_string(), pty.trim().to_string()));
        at = start + p.len();
    }
    let constraints = constraints(&parameterization);
    Some((
        name.to_string(),
        Overload {
            label,
            params,
            param_decls,
            parameterization,
            doc,
            constraints,
        },
    ))
}

/// The clauses of a parameterization that list types: `S is AbstractFloat,
/// f32, or f16; T is S or vecN<S>` -> S: [AbstractFloat, f32, f16], T: [S,
/// vecN<S>]. Clauses in words (`T is concrete numeric scalar`) are left out:
/// such a parameter fits anything.
fn constraints(parameterization: &str) -> HashMap<String, Vec<Ty>> {
    let mut out = HashMap::new();
    for clause in parameterization.split("; ") {
        let Some((name, list)) = clause.trim().split_once(" is ") else {
            continue;
        };
        if !is_type_parameter(name) {
            continue;
        }
        let list = list.trim_end_matches('.');
        let items: Vec<&str> = list
            .split(", ")
            .flat_map(|i| i.split(" or "))
            .map(|i| i.trim().trim_start_matches("or ").trim())
            .filter(|i| !i.is_empty())
            .collect();
        let types: Option<Vec<Ty>> = items
            .iter()
            .map(|i| {
                let ty = parse_type(i);
                known_type(&ty).then_some(ty)
            })
            .collect();
        if let Some(types) = types {
            out.insert(name.to_string(), types);
        }
    }
    out
}

/// Whether `ty` is spelled with WGSL's type names or type parameters only.
fn known_type(ty: &Ty) -> bool {
    let h = ty.head.as_str();
    let named = matches!(
        h,
        "bool"
            | "i32"
            | "u32"
            | "f32"
            | "f16"
            | "AbstractInt"
            | "AbstractFloat"
            | "vecN"
            | "sampler"
            | "sampler_comparison"
            | "array"
            | "atomic"
            | "ptr"
    ) || is_vec(h)
        || (h.starts_with("mat") && h.len() == 6)
        || h.starts_with("texture_")
        || is_type_parameter(h);
    named && !h.contains(' ') && ty.args.iter().all(known_type)
}

/// The byte index of the `(` that opens the parameter list of a signature
/// whose name ends at `from`, skipping a template list.
fn matching_open_paren(s: &str, from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s[from..].char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => return Some(from + i),
            _ => {}
        }
    }
    None
}

/// The index in `s` of the `)` closing a `(` just before `s`.
fn closing(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Which overload of `f` to show for a call with `active` commas before the
/// cursor and the given types of its arguments (`None`: not known). The
/// first overload with enough parameters that every known argument fits
/// (type parameters bound consistently); else the first with enough
/// parameters; else the first.
pub fn choose(f: &Function, active: usize, args: &[Option<String>]) -> usize {
    let enough = |o: &Overload| o.params.len() > active || (o.params.is_empty() && active == 0);
    f.overloads
        .iter()
        .position(|o| enough(o) && fits(o, args))
        .or_else(|| f.overloads.iter().position(enough))
        .unwrap_or(0)
}

/// Whether the known argument types fit the overload's parameter types.
fn fits(o: &Overload, args: &[Option<String>]) -> bool {
    let mut m = Matcher {
        constraints: &o.constraints,
        bound: HashMap::new(),
        depth: 0,
    };
    o.param_decls
        .iter()
        .zip(args)
        .all(|((_, pattern), arg)| match arg {
            Some(actual) => m.fits(&parse_type(pattern), &parse_type(actual)),
            None => true,
        })
}

/// A type as a tree: `texture_2d<f32>` -> (`texture_2d`, [(`f32`, [])]).
#[derive(Clone, Debug, PartialEq)]
struct Ty {
    head: String,
    args: Vec<Ty>,
}

fn parse_type(text: &str) -> Ty {
    let text = text.trim();
    let Some(open) = text.find('<') else {
        return expand_alias(text);
    };
    let inner = text[open + 1..]
        .strip_suffix('>')
        .unwrap_or(&text[open + 1..]);
    Ty {
        head: text[..open].trim().to_string(),
        args: super::features::split_top_level(inner)
            .into_iter()
            .filter(|a| !a.is_empty())
            .map(parse_type)
            .collect(),
    }
}

/// The predeclared aliases: `vec3f` -> `vec3<f32>`, `mat4x4f` -> `mat4x4<f32>`.
fn expand_alias(name: &str) -> Ty {
    let leaf = |h: &str| Ty {
        head: h.to_string(),
        args: Vec::new(),
    };
    let scalar = match name.chars().last() {
        Some('f') => "f32",
        Some('h') => "f16",
        Some('i') => "i32",
        Some('u') => "u32",
        _ => return leaf(name),
    };
    let base = &name[..name.len() - 1];
    let is_vec = base.len() == 4 && base.starts_with("vec");
    let is_mat = base.len() == 6 && base.starts_with("mat") && base.as_bytes()[4] == b'x';
    if is_vec || is_mat {
        Ty {
            head: base.to_string(),
            args: vec![leaf(scalar)],
        }
    } else {
        leaf(name)
    }
}

/// A type parameter of the specification's signatures: `T`, `S`, `T2`,
/// `ST`, `AM`, ... (capitals and digits).
fn is_type_parameter(head: &str) -> bool {
    !head.is_empty()
        && head.len() <= 3
        && head.starts_with(|c: char| c.is_ascii_uppercase())
        && head
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// Matches argument types against an overload's parameter types, binding
/// its type parameters.
struct Matcher<'a> {
    constraints: &'a HashMap<String, Vec<Ty>>,
    bound: HashMap<String, Ty>,
    depth: u32,
}

impl Matcher<'_> {
    /// Whether `actual` fits `pattern`, binding type parameters: a
    /// parameter bound already fits what it is bound to, a new one what its
    /// constraint lists (anything without one). The abstract types fit the
    /// concrete ones they convert to.
    fn fits(&mut self, pattern: &Ty, actual: &Ty) -> bool {
        if is_type_parameter(&pattern.head) && pattern.args.is_empty() {
            if let Some(b) = self.bound.get(&pattern.head) {
                return compatible(b, actual);
            }
            let constraints = self.constraints;
            if let Some(alternatives) = constraints.get(&pattern.head) {
                if self.depth > 8 {
                    return true;
                }
                let saved = self.bound.clone();
                self.depth += 1;
                let any = alternatives.iter().any(|alt| {
                    let ok = self.fits(alt, actual);
                    if !ok {
                        self.bound = saved.clone();
                    }
                    ok
                });
                self.depth -= 1;
                if !any {
                    return false;
                }
            }
            self.bound.insert(pattern.head.clone(), actual.clone());
            return true;
        }
        let head_fits = pattern.head == actual.head
            || (pattern.head == "vecN" && is_vec(&actual.head))
            || (pattern.head.starts_with("mat")
                && pattern.head.len() == 6
                && actual.head.starts_with("mat"))
            || converts(&actual.head, &pattern.head);
        head_fits
            && pattern.args.len() == actual.args.len()
            && pattern
                .args
                .iter()
                .zip(&actual.args)
                .all(|(p, a)| self.fits(p, a))
    }
}

fn is_vec(head: &str) -> bool {
    matches!(head, "vec2" | "vec3" | "vec4")
}

/// Whether a value of abstract type `from` converts to `to`.
fn converts(from: &str, to: &str) -> bool {
    match from {
        "AbstractInt" => matches!(
            to,
            "i32" | "u32" | "f32" | "f16" | "AbstractFloat" | "AbstractInt"
        ),
        "AbstractFloat" => matches!(to, "f32" | "f16"),
        _ => false,
    }
}

/// Whether two types a type parameter was bound to can be the same.
fn compatible(a: &Ty, b: &Ty) -> bool {
    let heads = a.head == b.head || converts(&a.head, &b.head) || converts(&b.head, &a.head);
    heads
        && a.args.len() == b.args.len()
        && a.args.iter().zip(&b.args).all(|(x, y)| compatible(x, y))
}

/// The type of a literal argument (`1.0` is AbstractFloat, `2u` is u32) or
/// of a constructor call (`vec2<f32>(...)`, `vec3f(...)`, `f32(...)`).
pub fn type_of_literal_or_constructor(arg: &str) -> Option<String> {
    let arg = arg.trim();
    match arg {
        "true" | "false" => return Some("bool".into()),
        _ => {}
    }
    let first = arg.chars().next()?;
    if first.is_ascii_digit() || (first == '.' && arg.len() > 1) {
        let hex = arg.starts_with("0x") || arg.starts_with("0X");
        let ty = match arg.chars().last()? {
            'u' => "u32",
            'i' => "i32",
            'h' => "f16",
            'f' if !hex => "f32",
            _ if !hex && arg.contains(['.', 'e', 'E']) => "AbstractFloat",
            _ if arg.contains(['.', 'p', 'P']) => "AbstractFloat",
            _ => "AbstractInt",
        };
        return Some(ty.into());
    }
    // A constructor: a type name, maybe with a template list, then `(`.
    let open = arg.find('(')?;
    if !arg.ends_with(')') {
        return None;
    }
    let head = arg[..open].trim();
    let ty = parse_type(head);
    let scalar = ["f32", "f16", "i32", "u32", "bool"].contains(&ty.head.as_str());
    let composite = (is_vec(&ty.head) || ty.head.starts_with("mat")) && !ty.args.is_empty();
    ((scalar && ty.args.is_empty()) || composite).then(|| head.replace(' ', ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_table_is_read() {
        let overloads = TABLE
            .lines()
            .filter(|l| {
                let l = l.trim();
                !(l.is_empty() || l.starts_with('#') || l.starts_with("= ") || l.starts_with("- "))
            })
            .count();
        let read: usize = table().values().map(|f| f.overloads.len()).sum();
        assert_eq!(read, overloads);
        for (name, f) in table() {
            for o in &f.overloads {
                assert!(o.label.starts_with(&format!("fn {name}")), "{}", o.label);
                assert_eq!(o.params.len(), o.param_decls.len(), "{}", o.label);
                for ((s, e), (n, t)) in o.params.iter().zip(&o.param_decls) {
                    assert_eq!(&o.label[*s..*e], format!("{n}: {t}"), "{}", o.label);
                }
            }
            for p in f.param_docs.keys() {
                assert!(
                    f.overloads
                        .iter()
                        .any(|o| o.param_decls.iter().any(|(n, _)| n == p)),
                    "{name}: documented parameter {p} is in no overload"
                );
            }
        }
    }

    #[test]
    fn every_name_completion_offers_has_overloads() {
        for name in super::super::features::BUILTIN_FUNCTIONS {
            assert!(function(name).is_some(), "{name} is not in builtins.txt");
        }
    }

    fn args(list: &[&str]) -> Vec<Option<String>> {
        list.iter()
            .map(|a| (!a.is_empty()).then(|| a.to_string()))
            .collect()
    }

    #[test]
    fn overloads_are_chosen_by_count_and_argument_types() {
        let sample = function("textureSample").unwrap();
        let label = |f: &Function, i: usize| f.overloads[i].label.clone();
        // The first argument's texture type picks the family.
        let i = choose(sample, 1, &args(&["texture_depth_2d"]));
        assert_eq!(
            label(sample, i),
            "fn textureSample(t: texture_depth_2d, s: sampler, coords: vec2<f32>) -> f32"
        );
        let i = choose(
            sample,
            3,
            &args(&["texture_2d<f32>", "sampler", "vec2<f32>"]),
        );
        assert_eq!(
            label(sample, i),
            "fn textureSample(t: texture_2d<f32>, s: sampler, coords: vec2<f32>, offset: vec2<i32>) -> vec4<f32>"
        );
        let i = choose(sample, 1, &args(&["texture_cube<f32>"]));
        assert!(label(sample, i).contains("(t: T, s: sampler, coords: vec3<f32>)"));
        assert_eq!(
            sample.overloads[i].constraints["T"],
            [
                parse_type("texture_3d<f32>"),
                parse_type("texture_cube<f32>")
            ]
        );
        let mix = function("mix").unwrap();
        assert_eq!(
            format!("{:?}", mix.overloads[1].constraints.get("T2")),
            format!("{:?}", Some(vec![parse_type("vecN<T>")]))
        );
        // Type parameters bind consistently: a scalar third argument to mix
        // with vector ones is the second overload.
        let mix = function("mix").unwrap();
        assert_eq!(choose(mix, 2, &args(&["vec3<f32>", "vec3<f32>"])), 0);
        assert_eq!(choose(mix, 2, &args(&["vec3<f32>", "vec3<f32>", "f32"])), 1);
        let none = HashMap::new();
        let mut m = Matcher {
            constraints: &none,
            bound: HashMap::from([("T".to_string(), parse_type("vec3<f32>"))]),
            depth: 0,
        };
        assert!(m.fits(&parse_type("T"), &parse_type("vec3f")));
        // Constraints: `T is S or vecN<S>` with S a float type.
        let mix_same = &function("mix").unwrap().overloads[0];
        assert!(fits(mix_same, &args(&["vec2<f32>"])));
        assert!(fits(mix_same, &args(&["AbstractFloat"])));
        assert!(!fits(mix_same, &args(&["vec2<bool>"])));
        assert!(!fits(mix_same, &args(&["i32"])));
        assert!(!fits(
            &mix.overloads[0],
            &args(&["vec3<f32>", "vec3<f32>", "f32"])
        ));
        assert!(fits(
            &mix.overloads[1],
            &args(&["vec3<f32>", "vec3<f32>", "f32"])
        ));
        assert!(fits(
            &mix.overloads[1],
            &args(&["vec3<f32>", "", "AbstractFloat"])
        ));
        // Unknown arguments fit anything; too few parameters never fit.
        let clamp = function("clamp").unwrap();
        assert_eq!(choose(clamp, 2, &args(&["", ""])), 0);
        let select = function("select").unwrap();
        assert_eq!(choose(select, 2, &args(&["vec2<f32>", "vec2<f32>"])), 0);
        assert_eq!(
            choose(select, 2, &args(&["vec2<f32>", "vec2<f32>", "vec2<bool>"])),
            1
        );
    }

    #[test]
    fn literal_and_constructor_types() {
        let t = |s: &str| type_of_literal_or_constructor(s);
        assert_eq!(t("1.0").as_deref(), Some("AbstractFloat"));
        assert_eq!(t("2").as_deref(), Some("AbstractInt"));
        assert_eq!(t("2u").as_deref(), Some("u32"));
        assert_eq!(t("0.5f").as_deref(), Some("f32"));
        assert_eq!(t("0xffu").as_deref(), Some("u32"));
        assert_eq!(t("0xf").as_deref(), Some("AbstractInt"));
        assert_eq!(t("1e3").as_deref(), Some("AbstractFloat"));
        assert_eq!(t("true").as_deref(), Some("bool"));
        assert_eq!(t("vec2<f32>(1.0, 2.0)").as_deref(), Some("vec2<f32>"));
        assert_eq!(t("vec3f(0.0)").as_deref(), Some("vec3f"));
        assert_eq!(t("f32(i)").as_deref(), Some("f32"));
        assert_eq!(t("vec2(1.0)"), None);
        assert_eq!(t("foo(1)"), None);
        assert_eq!(t("x"), None);
        assert_eq!(parse_type("vec3f"), parse_type("vec3<f32>"));
        assert_eq!(parse_type("mat4x4f"), parse_type("mat4x4<f32>"));
    }
}
