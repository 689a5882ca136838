//! Struct fields, globals and macros across functions and files; include-only
//! files; incremental analysis — through a real client over stdio.
//! (`UPDATE_EXPECT=1 cargo test -p shaderdbg-lsp` rewrites the snapshots.)

mod support;

use std::path::{Path, PathBuf};

use expect_test::{expect, Expect};
use serde_json::{json, Value};
use support::*;

struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn workdir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("shaderdbg-lsp-x-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

fn uri_of(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn file_of(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap()
}

fn show_locations(v: &Value) -> String {
    let mut out: Vec<String> = v
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    format!(
                        "{} {}",
                        file_of(l["uri"].as_str().unwrap()),
                        show_range(&l["range"])
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out.join("\n")
}

fn show_edit(e: &Value) -> String {
    let mut out = Vec::new();
    for (uri, edits) in e["changes"].as_object().unwrap() {
        for ed in edits.as_array().unwrap() {
            out.push(format!(
                "{} {} -> {}",
                file_of(uri),
                show_range(&ed["range"]),
                ed["newText"].as_str().unwrap()
            ));
        }
    }
    out.sort();
    out.join("\n")
}

/// A request at the `nth` `needle` (plus `delta` bytes) of `text`.
fn req(
    c: &mut Client,
    method: &str,
    uri: &str,
    text: &str,
    at_: (&str, usize, usize),
    extra: Value,
) -> Value {
    let (l, ch) = pos_of(text, at_.0, at_.1, at_.2);
    let mut p = at(uri, l, ch);
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    c.request(method, p)
}

fn req_error(
    c: &mut Client,
    method: &str,
    uri: &str,
    text: &str,
    at_: (&str, usize, usize),
    extra: Value,
) -> String {
    let (l, ch) = pos_of(text, at_.0, at_.1, at_.2);
    let mut p = at(uri, l, ch);
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    c.request_error(method, p)["message"]
        .as_str()
        .unwrap()
        .to_string()
}

fn refs(c: &mut Client, uri: &str, text: &str, at_: (&str, usize, usize), want: Expect) {
    let r = req(
        c,
        "textDocument/references",
        uri,
        text,
        at_,
        json!({"context": {"includeDeclaration": true}}),
    );
    want.assert_eq(&show_locations(&r));
}

const FIELDS: &str = r#"#version 330 core
#define SCALE 2.0
#define LIGHT0 lights[0]
#define BRIGHT(c) ((c) * SCALE)
struct Light { vec3 pos; float radius; };
struct Scene { Light key; Light fill[2]; };
uniform Light lights[2];
uniform Scene scene;
out vec4 color;
Light first() { return lights[1]; }
float size(Light l) { return l.radius; }
void main() {
    float r = LIGHT0.radius + first().radius + scene.fill[1].radius;
    color = vec4(BRIGHT(lights[1].pos), r + size(scene.key));
}
"#;

#[test]
fn struct_fields_globals_and_macros() {
    let dir = workdir("fields");
    let path = dir.join("fields.frag");
    std::fs::write(&path, FIELDS).unwrap();
    let uri = uri_of(&path);
    let mut c = Client::start(json!({}));
    c.open(&uri, "glsl", 1, FIELDS);
    expect![""].assert_eq(&show_diagnostics(&c.diagnostics(&uri, 1)));
    let t = FIELDS;
    // A field: its declaration and every `.radius` on a Light, through an
    // array element, a macro, a call's result, a nested struct, a parameter.
    refs(
        &mut c,
        &uri,
        t,
        ("radius", 0, 1),
        expect![[r#"
        fields.frag 11:32-11:38
        fields.frag 13:22-13:28
        fields.frag 13:39-13:45
        fields.frag 13:62-13:68
        fields.frag 5:32-5:38"#]],
    );
    let e = req(
        &mut c,
        "textDocument/rename",
        &uri,
        t,
        ("radius", 2, 0),
        json!({"newName": "range"}),
    );
    expect![[r#"
        fields.frag 11:32-11:38 -> range
        fields.frag 13:22-13:28 -> range
        fields.frag 13:39-13:45 -> range
        fields.frag 13:62-13:68 -> range
        fields.frag 5:32-5:38 -> range"#]]
    .assert_eq(&show_edit(&e));
    refs(
        &mut c,
        &uri,
        t,
        ("fill", 1, 1),
        expect![[r#"
        fields.frag 13:54-13:58
        fields.frag 6:33-6:37"#]],
    );
    // A global used in several functions and through a macro (at the macro's
    // use); renamed in the macro's definition.
    refs(
        &mut c,
        &uri,
        t,
        ("lights", 1, 1),
        expect![[r#"
        fields.frag 10:24-10:30
        fields.frag 13:15-13:21
        fields.frag 14:25-14:31
        fields.frag 7:15-7:21"#]],
    );
    let e = req(
        &mut c,
        "textDocument/rename",
        &uri,
        t,
        ("lights", 1, 0),
        json!({"newName": "lamps"}),
    );
    expect![[r#"
        fields.frag 10:24-10:30 -> lamps
        fields.frag 14:25-14:31 -> lamps
        fields.frag 3:16-3:22 -> lamps
        fields.frag 7:15-7:21 -> lamps"#]]
    .assert_eq(&show_edit(&e));
    // Macros: definition, references (in other macros too), hover, rename.
    let d = req(
        &mut c,
        "textDocument/definition",
        &uri,
        t,
        ("LIGHT0", 1, 1),
        json!({}),
    );
    expect!["fields.frag 3:9-3:15"].assert_eq(&show_locations(&d));
    refs(
        &mut c,
        &uri,
        t,
        ("SCALE", 0, 1),
        expect![[r#"
        fields.frag 2:9-2:14
        fields.frag 4:26-4:31"#]],
    );
    let h = req(
        &mut c,
        "textDocument/hover",
        &uri,
        t,
        ("BRIGHT", 1, 2),
        json!({}),
    );
    expect![[r#"
        ```glsl
        #define BRIGHT(c) ((c) * SCALE)
        ```

        macro, defined at line 4"#]]
    .assert_eq(h["contents"]["value"].as_str().unwrap());
    let h = req(
        &mut c,
        "textDocument/hover",
        &uri,
        t,
        ("LIGHT0", 1, 2),
        json!({}),
    );
    expect![[r#"
        ```glsl
        #define LIGHT0 lights[0]
        ```

        macro, defined at line 3"#]]
    .assert_eq(h["contents"]["value"].as_str().unwrap());
    let e = req(
        &mut c,
        "textDocument/rename",
        &uri,
        t,
        ("SCALE", 1, 0),
        json!({"newName": "GAIN"}),
    );
    expect![[r#"
        fields.frag 2:9-2:14 -> GAIN
        fields.frag 4:26-4:31 -> GAIN"#]]
    .assert_eq(&show_edit(&e));
    let r = req(
        &mut c,
        "textDocument/prepareRename",
        &uri,
        t,
        ("pos", 1, 0),
        json!({}),
    );
    expect!["14:35-14:38"].assert_eq(&show_range(&r));
    c.shutdown();
}

const COMMON: &str = "// Lighting helpers, included after the uniforms they use.\nfloat shade(Light l, vec3 p) {\n    return gain * l.radius / max(length(l.pos - p), 0.001);\n}\n";

const A: &str = "#version 330 core\n#extension GL_GOOGLE_include_directive : require\nstruct Light { vec3 pos; float radius; };\nuniform float gain;\nuniform Light light;\n#include \"common.glsl\"\nout vec4 color;\nvoid main() { color = vec4(shade(light, vec3(0.0)) * gain); }\n";

const B: &str = "#version 330 core\n#extension GL_GOOGLE_include_directive : require\nstruct Light { vec3 pos; float radius; };\nuniform float gain;\nuniform Light light;\n#include \"common.glsl\"\nout vec4 color;\nvoid main() { color = vec4(gain + shade(light, vec3(1.0))); }\n";

fn project(name: &str) -> TempDir {
    let dir = workdir(name);
    std::fs::write(dir.join("common.glsl"), COMMON).unwrap();
    std::fs::write(dir.join("a.frag"), A).unwrap();
    std::fs::write(dir.join("b.frag"), B).unwrap();
    dir
}

/// Analyses per document (file names), from `shaderdbg/analysisStats`.
/// Analyses per document, once none is running or scheduled.
fn analyses(c: &mut Client) -> Vec<(String, u64)> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let s = loop {
        let s = c.request("shaderdbg/analysisStats", Value::Null);
        if s["busy"] == 0 {
            break s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "analyses never settled: {s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let mut out: Vec<(String, u64)> = s["documents"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(u, n)| (file_of(u).to_string(), n.as_u64().unwrap()))
        .collect();
    out.sort();
    out
}

fn delta(before: &[(String, u64)], after: &[(String, u64)]) -> String {
    after
        .iter()
        .map(|(f, n)| {
            let b = before.iter().find(|(g, _)| g == f).map_or(0, |x| x.1);
            format!("{f} +{}", n - b)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn include_only_file_in_context_and_names_across_files() {
    let dir = project("context");
    let (a, b, common) = (
        uri_of(&dir.join("a.frag")),
        uri_of(&dir.join("b.frag")),
        uri_of(&dir.join("common.glsl")),
    );
    let mut c = Client::start_with_root(json!({}), Some(&dir));
    c.open(&a, "glsl", 1, A);
    expect![""].assert_eq(&show_diagnostics(&c.diagnostics(&a, 1)));
    c.open(&b, "glsl", 1, B);
    expect![""].assert_eq(&show_diagnostics(&c.diagnostics(&b, 1)));
    // The include-only file, checked after a.frag's text up to its #include:
    // no false errors, and a hint saying how it was checked.
    c.open(&common, "glsl", 1, COMMON);
    let d = show_diagnostics(&c.diagnostics(&common, 1));
    assert_eq!(
        d,
        "1:1-1:1 hint: checked as included by a.frag (an include-only file)"
    );
    let h = req(
        &mut c,
        "textDocument/hover",
        &common,
        COMMON,
        ("gain", 0, 1),
        json!({}),
    );
    expect![[r#"
        ```glsl
        float gain
        ```

        uniform, declared at a.frag:4"#]]
    .assert_eq(h["contents"]["value"].as_str().unwrap());
    let d = req(
        &mut c,
        "textDocument/definition",
        &common,
        COMMON,
        ("Light l", 0, 1),
        json!({}),
    );
    expect!["a.frag 3:8-3:13"].assert_eq(&show_locations(&d));
    // A global declared in a.frag and used in common.glsl (b.frag declares
    // its own `gain`: a different variable).
    refs(
        &mut c,
        &common,
        COMMON,
        ("gain", 0, 1),
        expect![[r#"
        a.frag 4:15-4:19
        a.frag 8:54-8:58
        common.glsl 3:12-3:16"#]],
    );
    let e = req(
        &mut c,
        "textDocument/rename",
        &common,
        COMMON,
        ("gain", 0, 1),
        json!({"newName": "exposure"}),
    );
    expect![[r#"
        a.frag 4:15-4:19 -> exposure
        a.frag 8:54-8:58 -> exposure
        common.glsl 3:12-3:16 -> exposure"#]]
    .assert_eq(&show_edit(&e));
    // A function declared in the included file, renamed from an includer.
    let e = req(
        &mut c,
        "textDocument/rename",
        &a,
        A,
        ("shade", 0, 1),
        json!({"newName": "lit"}),
    );
    expect![[r#"
        a.frag 8:28-8:33 -> lit
        b.frag 8:35-8:40 -> lit
        common.glsl 2:7-2:12 -> lit"#]]
    .assert_eq(&show_edit(&e));
    // A field through a parameter, in the include-only file.
    refs(
        &mut c,
        &common,
        COMMON,
        ("radius", 0, 1),
        expect![[r#"
        a.frag 3:32-3:38
        common.glsl 3:21-3:27"#]],
    );
    // A real error in the include-only file is still reported.
    c.replace_all(&common, 2, &COMMON.replace("l.radius", "l.radiuz"));
    expect![[r#"
        1:1-1:1 hint: checked as included by a.frag (an include-only file)
        3:21-3:27 error: Light has no field `radiuz`"#]]
    .assert_eq(&show_diagnostics(&c.diagnostics(&common, 2)));

    // Incremental analysis: who is analysed again after what.
    c.replace_all(&common, 3, COMMON);
    c.diagnostics(&common, 3);
    let _ = c.request("textDocument/hover", at(&a, 0, 0));
    let _ = c.request("textDocument/hover", at(&b, 0, 0));
    let s0 = analyses(&mut c);
    // A change of the same text: nothing.
    c.replace_all(&a, 2, A);
    let _ = c.request("textDocument/hover", at(&a, 0, 0));
    let s1 = analyses(&mut c);
    expect!["a.frag +0, b.frag +0, common.glsl +0"].assert_eq(&delta(&s0, &s1));
    // b.frag: only b.frag (nothing includes it; common.glsl is checked in
    // a.frag's context).
    c.replace_all(&b, 2, &B.replace("vec3(1.0)", "vec3(2.0)"));
    c.diagnostics(&b, 2);
    let s2 = analyses(&mut c);
    expect!["a.frag +0, b.frag +1, common.glsl +0"].assert_eq(&delta(&s1, &s2));
    // common.glsl: it and its includers.
    c.replace_all(&common, 4, &COMMON.replace("gain *", "gain * gain *"));
    c.diagnostics(&common, 4);
    let _ = c.request("textDocument/hover", at(&a, 0, 0));
    let _ = c.request("textDocument/hover", at(&b, 0, 0));
    let s3 = analyses(&mut c);
    expect!["a.frag +1, b.frag +1, common.glsl +1"].assert_eq(&delta(&s2, &s3));
    // a.frag: it and common.glsl (whose context it is).
    c.replace_all(&a, 3, &A.replace("vec3(0.0)", "vec3(0.5)"));
    c.diagnostics(&a, 3);
    let s4 = analyses(&mut c);
    expect!["a.frag +1, b.frag +0, common.glsl +1"].assert_eq(&delta(&s3, &s4));
    c.shutdown();
}

#[test]
fn include_only_file_from_the_workspace_or_alone() {
    // Only the include-only file is open; its includer is found on disk.
    let dir = project("workspace");
    let common = uri_of(&dir.join("common.glsl"));
    let mut c = Client::start_with_root(json!({}), Some(&dir));
    c.open(&common, "glsl", 1, COMMON);
    let d = show_diagnostics(&c.diagnostics(&common, 1));
    assert_eq!(
        d,
        "1:1-1:1 hint: checked as included by a.frag (an include-only file)"
    );
    // Renaming a name declared in a file that is not open is refused.
    let err = req_error(
        &mut c,
        "textDocument/prepareRename",
        &common,
        COMMON,
        ("gain", 0, 1),
        json!({}),
    );
    expect![
        "`gain` is declared in a.frag, which is not open in the editor; open it to rename `gain`"
    ]
    .assert_eq(&err);
    c.shutdown();

    // No includer anywhere: checked alone, errors from the missing context
    // left out (and said so); its own errors still reported.
    let lone = workdir("alone");
    let path = lone.join("lights.glsl");
    std::fs::write(&path, COMMON).unwrap();
    let uri = uri_of(&path);
    let mut c = Client::start_with_root(json!({}), Some(&lone));
    c.open(&uri, "glsl", 1, COMMON);
    expect!["1:1-1:1 info: include-only file with no includer open or in the workspace: checked on its own as GLSL 4.60, without errors about names and types it uses but does not declare"].assert_eq(&show_diagnostics(&c.diagnostics(&uri, 1)));
    let broken = COMMON.replace("0.001);", "0.001) +;");
    c.replace_all(&uri, 2, &broken);
    expect![[r#"
        1:1-1:1 info: include-only file with no includer open or in the workspace: checked on its own as GLSL 4.60, without errors about names and types it uses but does not declare
        3:61-3:62 error: unexpected `;`, expected an expression"#]].assert_eq(&show_diagnostics(&c.diagnostics(&uri, 2)));
    let h = req(
        &mut c,
        "textDocument/hover",
        &uri,
        COMMON,
        ("shade", 0, 1),
        json!({}),
    );
    expect![[r#"
        ```glsl
        float shade(Light l, vec3 p)
        ```

        user function, defined at line 2"#]]
    .assert_eq(h["contents"]["value"].as_str().unwrap_or("<none>"));
    c.shutdown();
}
