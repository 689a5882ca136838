//! The GLSL requests through the real server binary over stdio: each request
//! once (the conversion to LSP types and the server's plumbing), editing and
//! versions, includes from buffers and disk, settings, many documents. What
//! each feature answers is checked in-process, case by case, in
//! `features.rs`. (`UPDATE_EXPECT=1 cargo test -p shaderdbg-lsp` rewrites
//! the snapshots.)

mod support;

use expect_test::{expect, Expect};
use serde_json::{json, Value};
use support::*;

const COMMON: &str = include_str!("data/common.glsl");

const SCENE: &str = include_str!("data/scene.frag");

struct Session {
    c: Client,
    uri: String,
    text: String,
}

impl Session {
    fn pos(&self, needle: &str, nth: usize, delta: usize) -> (u32, u32) {
        pos_of(&self.text, needle, nth, delta)
    }

    fn hover(&mut self, snippet: &str, want: Expect) {
        let h = self.c.request(
            "textDocument/hover",
            at_cursor(&self.uri, &self.text, snippet, json!({})),
        );
        want.assert_eq(&markdown(&h));
    }
}

fn open_scene(name: &str) -> (Session, TempDir) {
    let dir = workdir(name);
    std::fs::write(dir.join("common.glsl"), COMMON).unwrap();
    let path = dir.join("scene.frag");
    std::fs::write(&path, SCENE).unwrap();
    let uri = uri_of(&path);
    let c = Client::start_clean(&uri, "glsl", SCENE);
    (
        Session {
            c,
            uri,
            text: SCENE.to_string(),
        },
        dir,
    )
}

/// How a request's result is shown.
#[derive(Clone, Copy)]
enum Show {
    Hover,
    Locations,
    Count,
    Edit,
    Range,
    /// The error's message (the request must fail).
    Error,
    /// Labels (with details) of completion items sorted first.
    Completion,
    /// The active parameter and the signatures' labels.
    Signatures,
    InlineValues,
    Folds,
    /// Names and files of workspace symbols.
    WorkspaceSymbols,
}

fn show(how: Show, r: &Value, text: &str) -> String {
    let items = |v: &Value| v.as_array().cloned().unwrap_or_default();
    match how {
        Show::Hover => markdown(r),
        Show::Locations => show_locations(r),
        Show::Count => items(r).len().to_string(),
        Show::Edit => show_edit(r),
        Show::Range => show_range(r),
        Show::Error => r["message"].as_str().unwrap_or("").to_string(),
        Show::Completion => items(&r["items"])
            .iter()
            .filter(|i| i["sortText"].as_str().is_some_and(|s| s.starts_with('0')))
            .map(|i| {
                format!(
                    "{} ({})",
                    i["label"].as_str().unwrap(),
                    i["detail"].as_str().unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Show::Signatures => {
            let labels: Vec<String> = items(&r["signatures"])
                .iter()
                .map(|s| s["label"].as_str().unwrap_or("").to_string())
                .collect();
            format!("active {}: {}", r["activeParameter"], labels.join(" | "))
        }
        Show::InlineValues => items(r)
            .iter()
            .map(|v| {
                let l = v["range"]["start"]["line"].as_u64().unwrap() as usize;
                format!(
                    "{} {} | {}",
                    show_range(&v["range"]),
                    v["variableName"].as_str().unwrap(),
                    text.lines().nth(l).unwrap().trim()
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Show::Folds => items(r)
            .iter()
            .map(|f| {
                format!(
                    "{}-{} {}",
                    f["startLine"].as_u64().unwrap() + 1,
                    f["endLine"].as_u64().unwrap() + 1,
                    f["kind"].as_str().unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        Show::WorkspaceSymbols => items(r)
            .iter()
            .map(|w| {
                let uri = w["location"]["uri"].as_str().unwrap_or("");
                format!(
                    "{} {}",
                    w["name"].as_str().unwrap(),
                    uri.rsplit('/').next().unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Every request once, on the scene, through the server: (method, where
/// (`$0`; empty for a whole-document request), more parameters, how to show
/// the answer, the answer).
#[test]
fn requests_through_the_server() {
    let (mut s, _dir) = open_scene("requests");
    let whole = |uri: &str| json!({"textDocument": {"uri": uri}});
    let stop = |line: u32| {
        json!({
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 30, "character": 0}},
            "context": {"frameId": 1, "stoppedLocation": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 4}}}
        })
    };
    let stopped_at = s.pos("return clamp", 0, 0).0;
    let cases: Vec<(&str, &str, Value, Show, Expect)> = vec![
        (
            "textDocument/hover",
            "ac$0c += vec3",
            json!({}),
            Show::Hover,
            expect![[r#"
                ```glsl
                vec3 acc
                ```

                local variable of `main`, declared at line 20"#]],
        ),
        (
            "textDocument/definition",
            "l$0uminance(acc)",
            json!({}),
            Show::Locations,
            expect!["common.glsl 2:7-2:16"],
        ),
        (
            "textDocument/references",
            "l$0uminance(acc)",
            json!({"context": {"includeDeclaration": true}}),
            Show::Locations,
            expect![[r#"
                common.glsl 2:7-2:16
                scene.frag 25:15-25:24"#]],
        ),
        (
            "textDocument/documentHighlight",
            "- u$0v);",
            json!({}),
            Show::Count,
            expect!["3"],
        ),
        (
            "textDocument/rename",
            "float $0d = length",
            json!({"newName": "dist"}),
            Show::Edit,
            expect![[r#"
                scene.frag 22:15-22:16 -> dist
                scene.frag 23:29-23:30 -> dist"#]],
        ),
        (
            "textDocument/prepareRename",
            "luminance($0acc)",
            json!({}),
            Show::Range,
            expect!["25:25-25:28"],
        ),
        (
            "textDocument/prepareRename",
            "g$0l_FragCoord",
            json!({}),
            Show::Error,
            expect!["`gl_FragCoord` is a built-in variable and cannot be renamed"],
        ),
        (
            "textDocument/rename",
            "vec3 $0acc = ",
            json!({"newName": "for"}),
            Show::Error,
            expect!["`for` is not a name a user variable or function can have"],
        ),
        (
            "textDocument/completion",
            "lights[i].$0pos.xy",
            json!({}),
            Show::Completion,
            expect![[r#"
                pos (vec3)
                radius (float)"#]],
        ),
        (
            "textDocument/signatureHelp",
            "clamp(1.0 - d / r, $00.0",
            json!({}),
            Show::Signatures,
            expect!["active 1: float clamp(float x, float minVal, float maxVal) | vec2 clamp(vec2 x, vec2 minVal, vec2 maxVal) | vec3 clamp(vec3 x, vec3 minVal, vec3 maxVal) | vec4 clamp(vec4 x, vec4 minVal, vec4 maxVal) | vec2 clamp(vec2 x, float minVal, float maxVal) | vec3 clamp(vec3 x, float minVal, float maxVal) | vec4 clamp(vec4 x, float minVal, float maxVal) | int clamp(int x, int minVal, int maxVal) | ivec2 clamp(ivec2 x, ivec2 minVal, ivec2 maxVal) | ivec3 clamp(ivec3 x, ivec3 minVal, ivec3 maxVal) | ivec4 clamp(ivec4 x, ivec4 minVal, ivec4 maxVal) | ivec2 clamp(ivec2 x, int minVal, int maxVal) | ivec3 clamp(ivec3 x, int minVal, int maxVal) | ivec4 clamp(ivec4 x, int minVal, int maxVal) | uint clamp(uint x, uint minVal, uint maxVal) | uvec2 clamp(uvec2 x, uvec2 minVal, uvec2 maxVal) | uvec3 clamp(uvec3 x, uvec3 minVal, uvec3 maxVal) | uvec4 clamp(uvec4 x, uvec4 minVal, uvec4 maxVal) | uvec2 clamp(uvec2 x, uint minVal, uint maxVal) | uvec3 clamp(uvec3 x, uint minVal, uint maxVal) | uvec4 clamp(uvec4 x, uint minVal, uint maxVal)"],
        ),
        (
            "textDocument/inlineValue",
            "",
            stop(stopped_at),
            Show::InlineValues,
            expect![[r#"
                15:21-15:22 d | float falloff(float d, float r) {
                15:30-15:31 r | float falloff(float d, float r) {"#]],
        ),
        (
            "textDocument/documentSymbol",
            "",
            json!({}),
            Show::Count,
            expect!["7"],
        ),
        (
            "textDocument/foldingRange",
            "",
            json!({}),
            Show::Folds,
            expect!["5-7 , 15-16 , 19-27 , 21-23 "],
        ),
        (
            "workspace/symbol",
            "",
            json!({"query": "fall"}),
            Show::WorkspaceSymbols,
            expect!["falloff scene.frag"],
        ),
    ];
    for (method, snippet, extra, how, want) in cases {
        let params = if method == "workspace/symbol" {
            extra
        } else if snippet.is_empty() {
            let mut p = whole(&s.uri);
            if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
                p.extend(e.clone());
            }
            p
        } else {
            at_cursor(&s.uri, &s.text, snippet, extra)
        };
        let r = match how {
            Show::Error => s.c.request_error(method, params),
            _ => s.c.request(method, params),
        };
        want.assert_eq(&show(how, &r, &s.text));
    }
    let toks =
        s.c.request("textDocument/semanticTokens/full", whole(&s.uri));
    assert_eq!(
        toks["data"].as_array().map(Vec::len),
        Some(45 * 5),
        "{toks}"
    );
    s.c.shutdown();
}

#[test]
fn open_change_close_and_half_typed_code() {
    let (mut s, _dir) = open_scene("edits");
    // Break a statement: the syntax error, and a semantic error further down.
    let (l, c) = s.pos("vec3(0.0);", 0, 0);
    s.c.edit(&s.uri, 2, [l, c, l, c + 10], "vec3(0.0) +;");
    let (l2, c2) = s.pos("fx)", 0, 0);
    s.c.edit(&s.uri, 3, [l2, c2, l2, c2 + 2], "fy");
    let d = s.c.diagnostics(&s.uri, 3);
    expect![[r#"
        20:27-20:28 error: unexpected `;`, expected an expression
        27:27-27:29 error: undeclared identifier `fy`"#]]
    .assert_eq(&show_diagnostics(&d));
    // Hover and symbols still answer from the recovered parse.
    s.text = s
        .text
        .replace("vec3(0.0);", "vec3(0.0) +;")
        .replace("fx)", "fy)");
    s.hover(
        "vec3(fallof$0f(d",
        expect![[r#"
        ```glsl
        float falloff(float d, float r)
        ```

        user function, defined at line 15"#]],
    );
    // Something the engine cannot recover from: the last good parse answers.
    s.c.replace_all(
        &s.uri,
        4,
        &SCENE.replace("void main() {", "void main() { #"),
    );
    let d = s.c.diagnostics(&s.uri, 4);
    assert!(
        show_diagnostics(&d).contains("19:"),
        "{}",
        show_diagnostics(&d)
    );
    s.text = SCENE.replace("void main() {", "void main() { #");
    s.hover(
        "luminanc$0e(acc)",
        expect![[r#"
        ```glsl
        float luminance(vec3 c)
        ```

        user function, defined at common.glsl:2"#]],
    );
    let syms = s.c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": s.uri}}),
    );
    assert_eq!(syms.as_array().unwrap().len(), 7, "{syms}");
    // Fixed again: no diagnostics.
    s.c.replace_all(&s.uri, 5, SCENE);
    let d = s.c.diagnostics(&s.uri, 5);
    assert_eq!(show_diagnostics(&d), "");
    // Closing clears the diagnostics; requests on a closed document are errors.
    s.c.close(&s.uri);
    let d = s.c.notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == s.uri.as_str() && p["version"].is_null()
    });
    assert_eq!(d["diagnostics"], json!([]));
    let err = s.c.request_error("textDocument/hover", at(&s.uri, 0, 0));
    assert!(
        err["message"].as_str().unwrap().contains("not open"),
        "{err}"
    );
    s.c.shutdown();
}

#[test]
fn includes_from_buffers_paths_and_stage_pragmas() {
    let dir = workdir("includes");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(
        dir.join("lib/noise.glsl"),
        "float noise(vec2 p) { return fract(sin(dot(p, vec2(12.9898, 78.233))) * 43758.5453); }\n",
    )
    .unwrap();
    let main_path = dir.join("shaders/main.glsl");
    std::fs::create_dir_all(main_path.parent().unwrap()).unwrap();
    let local = dir.join("shaders/local.glsl");
    std::fs::write(&local, "float local_thing() { return 1.0; }\n").unwrap();
    let text = "#version 450\n#pragma shaderdbg stage(frag)\n#extension GL_GOOGLE_include_directive : require\n#include \"noise.glsl\"\n#include \"local.glsl\"\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(noise(gl_FragCoord.xy) * local_thing()); }\n";
    let mut c = Client::start_with_root(json!({"includePaths": ["lib"]}), Some(&dir));
    let uri = format!("file://{}", main_path.display());
    c.open(&uri, "glsl", 1, text);
    assert_eq!(show_diagnostics(&c.diagnostics(&uri, 1)), "");
    // An unsaved buffer of an included file wins over the file on disk; the
    // includer is analysed again when it changes.
    let local_uri = format!("file://{}", local.display());
    c.open(
        &local_uri,
        "glsl",
        1,
        "float local_thing() { return oops; }\n",
    );
    let d = c.notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri.as_str() && p["diagnostics"].as_array().is_some_and(|a| !a.is_empty())
    });
    let shown = show_diagnostics(&d);
    assert!(shown.starts_with("5:1-5:22 error: in "), "{shown}");
    assert!(
        shown.contains("local.glsl:1: undeclared identifier `oops`"),
        "{shown}"
    );
    assert!(
        shown.contains("related local.glsl 1:30-1:34: undeclared identifier `oops`"),
        "{shown}"
    );
    // A missing include: its line, and no cascade of undeclared names.
    let broken = text.replace("noise.glsl", "missing.glsl");
    c.replace_all(&uri, 2, &broken);
    let d = c.diagnostics(&uri, 2);
    let shown = show_diagnostics(&d);
    assert!(
        shown.starts_with("4:1-4:24 error: #include \"missing.glsl\": not found (looked in"),
        "{shown}"
    );
    // The include, and `oops` from the buffer.
    assert_eq!(
        shown.lines().filter(|l| !l.starts_with(' ')).count(),
        2,
        "{shown}"
    );
    // Cyclic includes are an error, not a hang.
    std::fs::write(dir.join("lib/a.glsl"), "#include \"b.glsl\"\n").unwrap();
    std::fs::write(dir.join("lib/b.glsl"), "#include \"a.glsl\"\n").unwrap();
    c.replace_all(&uri, 3, &text.replace("noise.glsl", "a.glsl"));
    let d = c.diagnostics(&uri, 3);
    assert!(
        show_diagnostics(&d).contains("cyclic"),
        "{}",
        show_diagnostics(&d)
    );
    c.shutdown();
}

#[test]
fn utf16_columns_stages_and_settings() {
    let dir = workdir("settings");
    let mut c = Client::start_with_root(json!({"defaultStage": "vert"}), Some(&dir));
    // Diagnostic columns count UTF-16 code units (the emoji is two).
    let uri = format!("file://{}/emoji.frag", dir.display());
    let text = "void main() {\n    /* 😀é */ float x = undefinedThing;\n}\n";
    c.open(&uri, "glsl", 1, text);
    expect!["2:25-2:39 error: undeclared identifier `undefinedThing`"]
        .assert_eq(&show_diagnostics(&c.diagnostics(&uri, 1)));
    // `.glsl`: the defaultStage setting, unless a pragma says otherwise.
    let uri = format!("file://{}/legacy.glsl", dir.display());
    let frag = "void main() { gl_FragColor = vec4(1.0); }\n";
    c.open(&uri, "glsl", 1, frag);
    expect!["1:15-1:27 error: undeclared identifier `gl_FragColor`"]
        .assert_eq(&show_diagnostics(&c.diagnostics(&uri, 1)));
    c.replace_all(&uri, 2, &format!("#pragma shaderdbg stage(frag)\n{frag}"));
    assert_eq!(show_diagnostics(&c.diagnostics(&uri, 2)), "");
    // A header from a file, set after start-up: documents are analysed again.
    let uri = format!("file://{}/needs_header.frag", dir.display());
    let body = "#version 300 es\nout HIGHP_OR_DEFAULT vec4 o;\nvoid main() { o = vec4(K); }\n";
    c.open(&uri, "glsl", 1, body);
    let shown = show_diagnostics(&c.diagnostics(&uri, 1));
    assert!(!shown.is_empty());
    std::fs::write(
        dir.join("prelude.glsl"),
        "precision highp float;\n#define HIGHP_OR_DEFAULT highp\nconst float K = 1.0;",
    )
    .unwrap();
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"shaderdbg": {"headerFile": "prelude.glsl"}}}),
    );
    assert_eq!(show_diagnostics(&c.diagnostics(&uri, 1)), "");
    // Hover on something the header declares.
    let h = c.request("textDocument/hover", at(&uri, 2, 24));
    assert!(
        markdown(&h).contains("float K") && markdown(&h).contains("the configured header"),
        "{h}"
    );
    c.shutdown();
}

#[test]
fn many_documents_and_dropped_trees() {
    // More documents than the server keeps trees for: the least recently used
    // ones are analysed again when a request needs them.
    let mut c = Client::start(json!({}));
    let uris: Vec<String> = (0..40)
        .map(|i| format!("file:///tmp/shaderdbg-lsp-test/many{i}.frag"))
        .collect();
    for (i, uri) in uris.iter().enumerate() {
        c.open(uri, "glsl", 1, &format!("out vec4 o;\nfloat f{i}(float x) {{ return x * {i}.0; }}\nvoid main() {{ o = vec4(f{i}(1.0)); }}\n"));
    }
    for uri in &uris {
        assert_eq!(show_diagnostics(&c.diagnostics(uri, 1)), "");
    }
    for (i, uri) in uris.iter().enumerate() {
        let h = c.request("textDocument/hover", at(uri, 2, 24));
        assert!(
            markdown(&h).contains(&format!("float f{i}(float x)")),
            "{i}: {h}"
        );
    }
    let ws = c.request("workspace/symbol", json!({"query": "f3"}));
    let names: Vec<&str> = ws
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "f13", "f23", "f3", "f30", "f31", "f32", "f33", "f34", "f35", "f36", "f37", "f38",
            "f39"
        ]
    );
    // Each document's diagnostics were published once.
    for uri in &uris {
        assert_eq!(c.published_versions(uri), [Some(1)], "{uri}");
    }
    c.shutdown();
}

/// While a debug session runs, a file the program completes at run time
/// (glmark2's light-phong.frag: a header declares `MaterialDiffuse`,
/// `$DO_LIGHTS$` is replaced) is analysed in the context of what the program
/// compiled (`shaderdbg/runtimeContext`, relayed by the editor from the
/// debugger); when the session ends, as before.
#[test]
fn a_running_programs_source_is_the_context_of_its_file() {
    let file = std::path::Path::new("/usr/share/glmark2/shaders/light-phong.frag");
    assert!(
        file.exists(),
        "glmark2-data is missing: run `cargo xtask setup`"
    );
    let text = std::fs::read_to_string(file).expect("light-phong.frag");
    let uri = uri_of(file);
    let mut c = Client::start(json!({}));
    c.open(&uri, "glsl", 1, &text);
    let before = show_diagnostics(&c.diagnostics(&uri, 1));
    assert!(before.contains("MaterialDiffuse"), "{before}");
    // The shape of glmark2's own header and lights (as its run shows).
    let header = "#ifdef GL_ES\nprecision mediump float;\n#endif\n\
        const vec4 MaterialDiffuse = vec4(0.000000, 0.000000, 1.000000, 1.000000);\n\
        const vec4 LightColor0 = vec4(0.800000, 0.800000, 0.800000, 1.000000);\n\
        const vec4 LightSourcePosition0 = vec4(0.000000, 1.000000, 0.000000, 1.000000);\n";
    let lights = "    gl_FragColor = vec4(0.0, 0.0, 0.0, 0.0);\n\
        gl_FragColor += compute_color(LightSourcePosition0, LightColor0);\n";
    let runtime = format!("{header}{}", text.replace("$DO_LIGHTS$", lights));
    let clean = |p: &Value| p["uri"] == uri.as_str() && p["diagnostics"] == json!([]);
    c.notify(
        "shaderdbg/runtimeContext",
        json!({"path": file, "source": runtime}),
    );
    c.notification("textDocument/publishDiagnostics", clean);
    // What the header declares is known: hover says what it is.
    let (line, col) = pos_of(&text, "MaterialDiffuse", 0, 2);
    let h = c.request("textDocument/hover", at(&uri, line, col));
    assert!(markdown(&h).contains("vec4 MaterialDiffuse"), "{h}");
    // The session ends: the file alone again.
    c.notify(
        "shaderdbg/runtimeContext",
        json!({"path": file, "source": null}),
    );
    let again = c.notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri.as_str() && p["diagnostics"] != json!([])
    });
    assert!(show_diagnostics(&again).contains("MaterialDiffuse"));
    c.shutdown();
}
