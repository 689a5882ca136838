//! The engine's side of an editor (the language server): parsing half-typed
//! code ([`parse_recovering`], with diagnostics placed in the text, header
//! or included files), a symbol index of a parsed shader ([`Index`]), what
//! is in scope at an offset ([`scope_at`]), what a name stands for and where
//! it is used ([`nav`]), the outline ([`symbols`]), what can be completed
//! ([`complete`]), signature help ([`signature`]), what each name is for
//! highlighting ([`highlight`]) and which variables to show at a stop
//! ([`inline`]).
//!
//! Everything here works on byte offsets: of [`crate::parse::SourceText::text`]
//! (the parsed text), or of the shader's own text where [`SourceMap`] says
//! so. Converting to editor positions, URIs and protocol types is the
//! editor's business.

pub mod complete;
pub mod highlight;
mod index;
pub mod inline;
mod macros;
pub mod nav;
mod recover;
mod scope;
pub mod signature;
mod sources;
pub mod symbols;
pub mod text;

pub use complete::{keywords, members, type_names, Member, MemberKind};
pub use index::{
    BlockSym, FieldSym, FunctionSym, GlobalSym, Index, NameUse, ParamSym, StructSym, WriteSym,
};
pub use macros::{is_builtin_macro, MacroDef, MacroUse, Macros};
pub use recover::{
    defines_main, has_version, include_lines, is_reserved_word, parse_recovering, version_split,
    Analysis, Loc, Located, Recovery, Request,
};
pub use scope::{scope_at, ScopeAt};
pub use sources::{IncludedFile, Place, SourceMap};

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::parse::parse;
    use crate::Stage;

    /// A fragment shader fixture analysed as an editor's text, and the offset
    /// of its `$0` cursor (taken out of the text).
    pub(crate) fn analyse(fixture: &str) -> (Analysis, Option<usize>) {
        let cursor = fixture.find("$0");
        let text = fixture.replace("$0", "");
        let recovery = parse_recovering(&Request {
            text: &text,
            header: "",
            stage: Stage::Fragment,
            resolver: None,
            header_is_context: false,
            piece: false,
            cancelled: &|| false,
        });
        (recovery.analysis.expect("an analysis"), cursor)
    }

    const SRC: &str = r#"#version 330 core
struct Light { vec3 pos; float radius; };
uniform Light lights[2];
in vec2 uv;
out vec4 color;
float falloff(float d) { return 1.0 - d; }
void main() {
    vec3 acc = vec3(0.0);
    for (int i = 0; i < 2; i++) {
        float d = length(lights[i].pos.xy - uv);
        acc += vec3(falloff(d));
    }
    float after = 1.0;
    color = vec4(acc, after);
}
"#;

    fn names(s: &ScopeAt, ids: &[usize]) -> Vec<String> {
        ids.iter()
            .map(|&id| s.model.decls[id].name.clone())
            .collect()
    }

    #[test]
    fn macro_expansion_spans() {
        let src = "#version 330 core\n#define L0 lights[0]\n#define F(x) falloff(x)\nuniform float lights[2];\nfloat falloff(float d) { return d; }\nout vec4 o;\nvoid main() { o = vec4(L0 + F(1.0)); }\n";
        let p = parse(&[src], Stage::Fragment, None).unwrap();
        let m = crate::analysis::Model::analyze(&p);
        let ix = Index::build(&p);
        let shown: Vec<String> = m
            .references
            .iter()
            .map(|(s, d)| format!("{} {}", m.decls[*d].name, &src[s.start..s.end]))
            .chain(
                ix.calls
                    .iter()
                    .map(|c| format!("call {} {}", c.name, &src[c.span.start..c.span.end])),
            )
            .collect();
        assert_eq!(shown, ["d d", "o o", "lights L0", "call falloff F(1.0)"]);
        let mac = Macros::scan(src);
        assert_eq!(mac.use_at(m.references[2].0).unwrap().name, "L0");
        assert_eq!(mac.use_at(ix.calls[0].span).unwrap().name, "F");
    }

    #[test]
    fn scopes_at_offsets() {
        let p = parse(&[SRC], Stage::Fragment, None).unwrap();
        let at = SRC.find("acc += ").unwrap();
        let s = scope_at(&p, at);
        assert_eq!(names(&s, &s.locals()), ["acc", "i", "d"]);
        assert_eq!(names(&s, &s.globals()), ["lights", "uv", "color"]);
        let at = SRC.find("color = vec4(acc").unwrap();
        let s = scope_at(&p, at);
        assert_eq!(names(&s, &s.locals()), ["acc", "after"]);
        let mut s = scope_at(&p, SRC.find("acc += ").unwrap());
        assert_eq!(s.type_of("lights[i]").unwrap().to_string(), "Light");
        assert_eq!(s.type_of("lights[i].pos.xy").unwrap().to_string(), "vec2");
        assert_eq!(s.type_of("nothing"), None);
        // In the parameter list and body of `falloff`.
        let s = scope_at(&p, SRC.find("1.0 - d").unwrap());
        assert_eq!(names(&s, &s.locals()), ["d"]);
    }

    #[test]
    fn index_collects_symbols_and_uses() {
        let p = parse(&[SRC], Stage::Fragment, None).unwrap();
        let ix = Index::build(&p);
        let fns: Vec<&str> = ix.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(fns, ["falloff", "main"]);
        assert_eq!(ix.structs[0].name, "Light");
        assert_eq!(ix.structs[0].fields.len(), 2);
        let globals: Vec<(&str, &str)> = ix
            .globals
            .iter()
            .map(|g| (g.name.as_str(), g.storage.as_str()))
            .collect();
        assert_eq!(
            globals,
            [("lights", "uniform"), ("uv", "in"), ("color", "out")]
        );
        let calls: Vec<&str> = ix.calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(calls, ["length", "falloff"]);
        let writes: Vec<(&str, bool)> = ix
            .writes
            .iter()
            .map(|w| (w.name.as_str(), w.declaration))
            .collect();
        assert_eq!(
            writes,
            [
                ("acc", true),
                ("i", true),
                ("i", false),
                ("d", true),
                ("acc", false),
                ("after", true),
                ("color", false)
            ]
        );
        for f in &ix.functions {
            assert_eq!(&SRC[f.name_span.start..f.name_span.end], f.name);
        }
        assert_eq!(ix.function_at(SRC.find("acc +=").unwrap()), Some(1));
    }

    #[test]
    fn highlight_classifies_names() {
        let src = "#version 330 core\nstruct S { float a; };\nuniform S u;\nout vec4 o;\n#define U u\nfloat f(float x) { return x + U.a; }\nvoid main() { float l = f(u.a); o = vec4(l) * gl_FragCoord; }\n";
        let (a, _) = analyse(src);
        let shown: String = highlight::classify(&a)
            .iter()
            .map(|t| {
                let name = &src[t.span.start..t.span.end];
                format!("{name} {:?} {:04b}\n", t.class, t.modifiers.0)
            })
            .collect();
        expect_test::expect![[r#"
            S Struct 0001
            a Property 0001
            S Struct 0000
            u Variable 1011
            o Variable 1001
            f Function 0001
            x Parameter 0001
            x Parameter 0000
            a Property 0000
            main Function 0001
            l Variable 0001
            f Function 0000
            u Variable 1010
            a Property 0000
            o Variable 1000
            l Variable 0000
            gl_FragCoord Variable 1110
        "#]]
        .assert_eq(&shown);
    }

    #[test]
    fn inline_variables_are_writes_in_scope_at_the_stop() {
        let src = "#version 330 core\nout vec4 o;\nfloat g(float k) { return k; }\nvoid main() {\n    float a = 1.0;\n    for (int i = 0; i < 2; i++) { float t = a; a += t; }\n    $0o = vec4(a);\n    float later = 2.0;\n}\n";
        let (a, at) = analyse(src);
        let text = src.replace("$0", "");
        let shown: Vec<String> = inline::variables_in(&a, at.unwrap())
            .iter()
            .map(|v| format!("{}@{}", v.name, text[..v.span.start].lines().count()))
            .collect();
        expect_test::expect!["a@5 a@6 o@7"].assert_eq(&shown.join(" "));
    }
}
