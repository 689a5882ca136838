//! What an editor can offer to complete at an offset ([`completions`]):
//! members of a value (struct fields, swizzles, `length()`), the names in
//! scope, built-ins, keywords and type names for a GLSL version.

use std::collections::{HashMap, HashSet};

use super::{nav, scope_at, text, Analysis};
use crate::analysis::{DeclKind, Storage};
use crate::builtins;
use crate::shader::Version;
use crate::types::Type;

/// What a completion is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Field,
    Swizzle,
    /// `length()` of an array.
    Method,
    Variable,
    Constant,
    Function,
    Struct,
    /// A built-in type name.
    Type,
    Keyword,
}

/// Something that can be written at the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    pub documentation: Option<String>,
    /// What to insert when it is not the label (`length()`).
    pub insert_text: Option<String>,
    /// Nearer names first: locals 0, globals 1, the shader's functions and
    /// structs 2, built-ins 3, types 4, keywords 5 (members: fields 0,
    /// swizzles 1).
    pub rank: u8,
}

fn item(label: &str, kind: CompletionKind, detail: Option<String>, rank: u8) -> Completion {
    Completion {
        label: label.to_string(),
        kind,
        detail,
        documentation: None,
        insert_text: None,
        rank,
    }
}

/// The completions at `offset` of `text`, the document as it is now (it may
/// be ahead of the analysis): the members of the value before a `.`, or every
/// name in scope there, the built-ins, type names and keywords; nothing in a
/// comment or a directive. `to_parsed` maps an offset of `text` to the
/// analysis's parsed text (where the scope is looked up).
pub fn completions(
    a: &Analysis,
    text: &str,
    offset: usize,
    to_parsed: &dyn Fn(usize) -> Option<usize>,
) -> Vec<Completion> {
    let offset = offset.min(text.len());
    if text::in_comment(text, offset) {
        return Vec::new();
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    if text[line_start..offset].trim_start().starts_with('#') {
        return Vec::new();
    }
    let start = text::prefix_start(text, offset);
    let before = text[..start].trim_end_matches(' ').len();
    let Some(t) = to_parsed(start) else {
        return Vec::new();
    };
    let mut scope = scope_at(&a.parsed, t);
    if text[..before].ends_with('.') {
        // Members of the value before the dot.
        let dot = before - 1;
        let Some(es) = text::expr_start_before(text, dot) else {
            return Vec::new();
        };
        let Some(ty) = scope.type_of(&text[es..dot]) else {
            return Vec::new();
        };
        return members(&ty)
            .into_iter()
            .map(|m| {
                let (kind, rank) = match m.kind {
                    MemberKind::Field => (CompletionKind::Field, 0),
                    MemberKind::Swizzle => (CompletionKind::Swizzle, 1),
                    MemberKind::Method => (CompletionKind::Method, 0),
                };
                let mut it = item(&m.name, kind, Some(m.ty.to_string()), rank);
                if m.kind == MemberKind::Method {
                    it.insert_text = Some(format!("{}()", m.name));
                }
                it
            })
            .collect();
    }
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let model = &scope.model;
    let decl_item = |d: usize, rank: u8| {
        let decl = &model.decls[d];
        let kind = if decl.kind == DeclKind::Global(Storage::Const) {
            CompletionKind::Constant
        } else {
            CompletionKind::Variable
        };
        let detail = format!("{} — {}", decl.ty, nav::kind_text(&decl.kind));
        item(&decl.name, kind, Some(detail), rank)
    };
    let locals = scope.locals().into_iter().rev().map(|d| (d, 0));
    for (d, rank) in locals.chain(scope.globals().into_iter().map(|d| (d, 1))) {
        if seen.insert(model.decls[d].name.clone()) {
            out.push(decl_item(d, rank));
        }
    }
    for f in &model.functions {
        if seen.insert(f.name.clone()) {
            out.push(item(
                &f.name,
                CompletionKind::Function,
                Some(f.signature()),
                2,
            ));
        }
    }
    let mut structs: Vec<&String> = model.structs.keys().collect();
    structs.sort();
    for s in structs {
        if !s.starts_with("_anon") && seen.insert(s.clone()) {
            out.push(item(s, CompletionKind::Struct, Some("struct".into()), 2));
        }
    }
    let env = a.env();
    let documented = |mut it: Completion| {
        it.documentation = builtins::describe(&it.label).map(str::to_string);
        it
    };
    for var in builtins::variables(&env) {
        if seen.insert(var.name.clone()) {
            let it = item(
                &var.name,
                CompletionKind::Variable,
                Some(var.ty.to_string()),
                3,
            );
            out.push(documented(it));
        }
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for sig in builtins::functions(&env) {
        *counts.entry(sig.name.as_str()).or_default() += 1;
    }
    for sig in builtins::functions(&env) {
        if seen.insert(sig.name.clone()) {
            let detail = match counts[sig.name.as_str()] {
                n if n > 1 => format!("{sig} (+{} overloads)", n - 1),
                _ => sig.to_string(),
            };
            out.push(documented(item(
                &sig.name,
                CompletionKind::Function,
                Some(detail),
                3,
            )));
        }
    }
    let words = type_names(env.version)
        .into_iter()
        .map(|t| (t, CompletionKind::Type, 4))
        .chain(
            keywords(env.version)
                .into_iter()
                .map(|k| (k, CompletionKind::Keyword, 5)),
        );
    for (w, kind, rank) in words {
        if seen.insert(w.to_string()) {
            out.push(item(w, kind, None, rank));
        }
    }
    out
}

/// What a member is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberKind {
    Field,
    Swizzle,
    /// `length()` of an array.
    Method,
}

/// Something that can follow `value.`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub ty: Type,
    pub kind: MemberKind,
}

/// The members of a value of type `ty`: the fields of a struct (or interface
/// block), the single components and the common swizzles of a vector, the
/// `length()` of an array.
pub fn members(ty: &Type) -> Vec<Member> {
    match ty {
        Type::Struct(s) => s
            .fields
            .iter()
            .map(|f| Member {
                name: f.name.clone(),
                ty: f.ty.clone(),
                kind: MemberKind::Field,
            })
            .collect(),
        Type::Vector(scalar, n) => {
            let n = *n as usize;
            let mut names: Vec<String> = Vec::new();
            for set in ["xyzw", "rgba", "stpq"] {
                names.extend(set[..n].chars().map(String::from));
            }
            for len in 2..=n {
                for set in ["xyzw", "rgba"] {
                    names.push(set[..len].to_string());
                }
            }
            if n >= 2 {
                names.push("yx".into());
            }
            names
                .into_iter()
                .map(|name| Member {
                    ty: Type::vec(*scalar, name.len() as u8),
                    name,
                    kind: MemberKind::Swizzle,
                })
                .collect()
        }
        Type::Array(..) => vec![Member {
            name: "length".into(),
            ty: crate::types::INT,
            kind: MemberKind::Method,
        }],
        _ => Vec::new(),
    }
}

/// Whether `version` is at least GLSL ES `es` or desktop `desktop`.
fn since(version: Version, es: u16, desktop: u16) -> bool {
    version.number >= if version.is_es() { es } else { desktop }
}

/// Statement and declaration keywords and qualifiers of GLSL `version`.
pub fn keywords(version: Version) -> Vec<&'static str> {
    let mut k = vec![
        "attribute",
        "break",
        "const",
        "continue",
        "discard",
        "do",
        "else",
        "false",
        "for",
        "highp",
        "if",
        "in",
        "inout",
        "invariant",
        "lowp",
        "mediump",
        "out",
        "precision",
        "return",
        "struct",
        "true",
        "uniform",
        "varying",
        "while",
    ];
    if since(version, 300, 130) {
        k.extend([
            "case", "centroid", "default", "flat", "layout", "smooth", "switch",
        ]);
        k.retain(|w| !matches!(*w, "attribute" | "varying") || version.has_legacy_builtins());
    }
    if since(version, 310, 430) {
        k.extend([
            "buffer",
            "coherent",
            "readonly",
            "restrict",
            "shared",
            "volatile",
            "writeonly",
        ]);
    }
    if !version.is_es() && version.number >= 130 {
        k.push("noperspective");
    }
    if !version.is_es() && version.number >= 400 {
        k.extend(["patch", "sample", "subroutine"]);
    }
    k.sort_unstable();
    k
}

/// Built-in type names of GLSL `version` (scalars, vectors, matrices and the
/// common samplers).
pub fn type_names(version: Version) -> Vec<&'static str> {
    let mut t = vec![
        "void",
        "bool",
        "int",
        "float",
        "vec2",
        "vec3",
        "vec4",
        "bvec2",
        "bvec3",
        "bvec4",
        "ivec2",
        "ivec3",
        "ivec4",
        "mat2",
        "mat3",
        "mat4",
        "sampler2D",
        "samplerCube",
    ];
    let es3 = version.is_es() && version.number >= 300;
    let desktop = !version.is_es();
    if desktop || es3 {
        t.extend([
            "mat2x3",
            "mat2x4",
            "mat3x2",
            "mat3x4",
            "mat4x2",
            "mat4x3",
            "sampler3D",
            "sampler2DShadow",
        ]);
    }
    if (desktop && version.number >= 130) || es3 {
        t.extend([
            "uint",
            "uvec2",
            "uvec3",
            "uvec4",
            "sampler2DArray",
            "isampler2D",
            "usampler2D",
            "samplerCubeShadow",
            "sampler2DArrayShadow",
        ]);
    }
    if desktop {
        t.extend(["sampler1D", "sampler1DShadow"]);
    }
    if desktop && version.number >= 400 {
        t.extend([
            "double", "dvec2", "dvec3", "dvec4", "dmat2", "dmat3", "dmat4",
        ]);
    }
    if (desktop && version.number >= 420) || (version.is_es() && version.number >= 310) {
        t.extend(["image2D", "image3D", "atomic_uint"]);
    }
    t.sort_unstable();
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::tests::analyse;
    use crate::shader::Profile;
    use crate::types::Scalar;

    fn complete(fixture: &str) -> String {
        let (a, at) = analyse(fixture);
        let text = fixture.replace("$0", "");
        completions(&a, &text, at.expect("a $0 cursor"), &Some)
            .iter()
            .filter(|c| c.rank < 3 || c.label.starts_with("fa"))
            .map(|c| {
                let detail = c.detail.as_deref().unwrap_or("-");
                format!("{} {:?} {} : {detail}\n", c.rank, c.kind, c.label)
            })
            .collect()
    }

    #[test]
    fn completions_by_scope_and_members() {
        let src = "#version 330 core\nstruct S { vec2 p; };\nuniform S u;\nconst float K = 1.0;\nfloat fa(float x) { return x; }\nvoid main() {\n    float far = 0.0;\n    $0\n}\n";
        expect_test::expect![[r#"
            0 Variable far : float — local variable
            1 Variable u : S — uniform
            1 Constant K : float — constant
            2 Function fa : float fa(float x)
            2 Function main : void main()
            2 Struct S : struct
            3 Function faceforward : float faceforward(float N, float I, float Nref) (+3 overloads)
            5 Keyword false : -
        "#]]
        .assert_eq(&complete(src));
        let members = src.replace("    $0", "    u.$0");
        expect_test::expect![[r#"
            0 Field p : vec2
        "#]]
        .assert_eq(&complete(&members));
        let in_comment = src.replace("    $0", "    // $0");
        assert_eq!(complete(&in_comment), "");
    }

    #[test]
    fn vector_members_fit_the_size() {
        let m = members(&Type::Vector(Scalar::Float, 2));
        assert!(m.iter().any(|m| m.name == "y"));
        assert!(!m.iter().any(|m| m.name == "z" || m.name == "xyz"));
        let xyz = members(&Type::Vector(Scalar::Float, 4))
            .into_iter()
            .find(|m| m.name == "xyz")
            .unwrap();
        assert_eq!(xyz.ty, Type::Vector(Scalar::Float, 3));
    }

    #[test]
    fn keywords_follow_the_version() {
        let old = Version {
            number: 100,
            profile: Profile::Es,
        };
        let new = Version {
            number: 310,
            profile: Profile::Es,
        };
        assert!(keywords(old).contains(&"varying"));
        assert!(!keywords(old).contains(&"layout"));
        assert!(!keywords(new).contains(&"varying"));
        assert!(keywords(new).contains(&"buffer"));
        assert!(!type_names(old).contains(&"uint"));
        assert!(type_names(new).contains(&"uvec3"));
    }
}
