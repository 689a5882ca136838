//! Signature help: the overloads of the function (or struct constructor)
//! whose argument list the cursor is in, and which parameter it is at.

use super::{nav, text, Analysis};
use crate::builtins::{self, ParamDir};

/// One overload as the editor shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// `float f(float x, out int n)`.
    pub label: String,
    /// Each parameter's byte range in `label`.
    pub params: Vec<(usize, usize)>,
    pub documentation: Option<String>,
}

/// The signatures of a call and where the cursor is in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    pub signatures: Vec<Signature>,
    /// The first overload with enough parameters for the cursor's argument.
    pub active_signature: usize,
    pub active_parameter: usize,
}

fn signature(head: &str, params: &[String], doc: Option<&str>) -> Signature {
    let mut label = format!("{head}(");
    let mut ranges = Vec::new();
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        let s = label.len();
        label.push_str(p);
        ranges.push((s, label.len()));
    }
    label.push(')');
    Signature {
        label,
        params: ranges,
        documentation: doc.map(str::to_string),
    }
}

fn dir_text(d: ParamDir) -> &'static str {
    match d {
        ParamDir::In => "",
        ParamDir::Out => "out ",
        ParamDir::InOut => "inout ",
    }
}

/// Signature help at `offset` of `text` (the document as it is now): the
/// shader's functions of the called name and a struct's constructor, or
/// else the built-in overloads.
pub fn signature_help(a: &Analysis, text: &str, offset: usize) -> Option<SignatureHelp> {
    let ((s, e), active) = text::call_at(text, offset)?;
    let name = &text[s..e];
    let mut sigs: Vec<Signature> = Vec::new();
    for f in a.model.functions.iter().filter(|f| f.name == name) {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| {
                format!(
                    "{}{}",
                    dir_text(p.dir),
                    nav::decl_text(&p.ty, &p.name).trim_end()
                )
            })
            .collect();
        sigs.push(signature(&format!("{} {}", f.ret, f.name), &params, None));
    }
    if let Some(st) = a.model.structs.get(name) {
        let params: Vec<String> = st
            .fields
            .iter()
            .map(|f| nav::decl_text(&f.ty, &f.name))
            .collect();
        sigs.push(signature(
            &format!("{name} {name}"),
            &params,
            Some("constructor"),
        ));
    }
    if sigs.is_empty() {
        let doc = builtins::describe(name);
        for sig in builtins::function_overloads(name, &a.env()) {
            let params: Vec<String> = sig
                .params
                .iter()
                .map(|p| format!("{}{}", dir_text(p.dir), nav::decl_text(&p.ty, &p.name)))
                .collect();
            sigs.push(signature(
                &format!("{} {}", sig.ret, sig.name),
                &params,
                doc,
            ));
        }
    }
    if sigs.is_empty() {
        return None;
    }
    let active_signature = sigs
        .iter()
        .position(|s| s.params.len() > active)
        .unwrap_or(0);
    Some(SignatureHelp {
        signatures: sigs,
        active_signature,
        active_parameter: active,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::tests::analyse;

    fn help(fixture: &str) -> String {
        let (a, at) = analyse(fixture);
        let text = fixture.replace("$0", "");
        let Some(h) = signature_help(&a, &text, at.expect("a $0 cursor")) else {
            return "none".into();
        };
        let mut out = format!(
            "active {} param {}\n",
            h.active_signature, h.active_parameter
        );
        for s in &h.signatures {
            let params: Vec<&str> = s.params.iter().map(|&(a, b)| &s.label[a..b]).collect();
            out.push_str(&format!("{} {params:?}\n", s.label));
        }
        out
    }

    #[test]
    fn overloads_and_the_active_parameter() {
        let src = "#version 330 core\nstruct S { float a; vec2 b; };\nfloat f(float x) { return x; }\nfloat f(float x, out int n) { n = 1; return x; }\nvoid main() {\n    int n;\n    f(1.0, $0n);\n    S s = S(1.0, vec2(0.0));\n}\n";
        expect_test::expect![[r#"
            active 1 param 1
            float f(float x) ["float x"]
            float f(float x, out int n) ["float x", "out int n"]
        "#]]
        .assert_eq(&help(src));
        expect_test::expect![[r#"
            active 0 param 0
            S S(float a, vec2 b) ["float a", "vec2 b"]
        "#]]
        .assert_eq(&help(
            &src.replace("S(1.0, vec2", "S($01.0, vec2")
                .replace("$0n", "n"),
        ));
        expect_test::expect![[r#"
            active 0 param 1
            float mix(float x, float y, float a) ["float x", "float y", "float a"]
            vec2 mix(vec2 x, vec2 y, vec2 a) ["vec2 x", "vec2 y", "vec2 a"]
            vec3 mix(vec3 x, vec3 y, vec3 a) ["vec3 x", "vec3 y", "vec3 a"]
            vec4 mix(vec4 x, vec4 y, vec4 a) ["vec4 x", "vec4 y", "vec4 a"]
            vec2 mix(vec2 x, vec2 y, float a) ["vec2 x", "vec2 y", "float a"]
            vec3 mix(vec3 x, vec3 y, float a) ["vec3 x", "vec3 y", "float a"]
            vec4 mix(vec4 x, vec4 y, float a) ["vec4 x", "vec4 y", "float a"]
            float mix(float x, float y, bool a) ["float x", "float y", "bool a"]
            vec2 mix(vec2 x, vec2 y, bvec2 a) ["vec2 x", "vec2 y", "bvec2 a"]
            vec3 mix(vec3 x, vec3 y, bvec3 a) ["vec3 x", "vec3 y", "bvec3 a"]
            vec4 mix(vec4 x, vec4 y, bvec4 a) ["vec4 x", "vec4 y", "bvec4 a"]
        "#]]
        .assert_eq(&help(
            &src.replace("    int n;", "    float m = mix(0.0, $01.0, 0.5);")
                .replace("$0n", "n"),
        ));
    }
}
