//! Every GLSL request, through a real client over stdio, with snapshots.
//! (`UPDATE_EXPECT=1 cargo test -p shaderdbg-lsp` rewrites the snapshots.)

mod support;

use std::path::{Path, PathBuf};

use expect_test::{expect, Expect};
use serde_json::{json, Value};
use support::*;

const COMMON: &str = "// Shared helpers.\nfloat luminance(vec3 c) {\n    return dot(c, vec3(0.2126, 0.7152, 0.0722));\n}\n";

const SCENE: &str = r#"#version 330 core
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

struct Light {
    vec3 pos;
    float radius;
};

uniform Light lights[2];
uniform sampler2D tex;
in vec2 uv;
out vec4 color;

float falloff(float d, float r) {
    return clamp(1.0 - d / r, 0.0, 1.0);
}

void main() {
    vec3 acc = vec3(0.0);
    for (int i = 0; i < 2; i++) {
        float d = length(lights[i].pos.xy - uv);
        acc += vec3(falloff(d, lights[i].radius));
    }
    float l = luminance(acc);
    float fx = gl_FragCoord.x;
    color = vec4(acc * l, fx) * texture(tex, uv);
}
"#;

/// A scratch directory, removed when dropped.
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
    let dir = std::env::temp_dir().join(format!("shaderdbg-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

fn markdown(v: &Value) -> String {
    v["contents"]["value"]
        .as_str()
        .unwrap_or("<none>")
        .to_string()
}

fn file_of(uri: &Value) -> String {
    uri.as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string()
}

fn show_locations(v: &Value) -> String {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|l| format!("{} {}", file_of(&l["uri"]), show_range(&l["range"])))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_else(|| "null".into())
}

fn show_symbols(v: &Value, indent: usize) -> String {
    let mut out = String::new();
    for s in v.as_array().unwrap() {
        out.push_str(&format!(
            "{}{} [{}] {} {}\n",
            " ".repeat(indent),
            s["name"].as_str().unwrap(),
            s["kind"],
            s["detail"].as_str().unwrap_or(""),
            show_range(&s["selectionRange"])
        ));
        if let Some(c) = s.get("children").filter(|c| c.is_array()) {
            out.push_str(&show_symbols(c, indent + 2));
        }
    }
    out
}

fn show_tokens(result: &Value, text: &str) -> String {
    let types = [
        "variable",
        "parameter",
        "function",
        "struct",
        "property",
        "interface",
    ];
    let mods = ["declaration", "readonly", "defaultLibrary", "global"];
    let data: Vec<u64> = result["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut col) = (0u64, 0u64);
    let mut out = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            line += t[0];
            col = t[1];
        } else {
            col += t[1];
        }
        let word = &lines[line as usize][col as usize..(col + t[2]) as usize];
        let m: Vec<&str> = (0..4)
            .filter(|b| t[4] & (1 << b) != 0)
            .map(|b| mods[b])
            .collect();
        out.push(format!(
            "{}:{} {word} {} {}",
            line + 1,
            col + 1,
            types[t[3] as usize],
            m.join(",")
        ));
    }
    out.join("\n")
}

struct Session {
    c: Client,
    uri: String,
    text: String,
}

impl Session {
    fn pos(&self, needle: &str, nth: usize, delta: usize) -> (u32, u32) {
        pos_of(&self.text, needle, nth, delta)
    }

    fn req(&mut self, method: &str, needle: &str, nth: usize, delta: usize, extra: Value) -> Value {
        let (l, c) = self.pos(needle, nth, delta);
        let mut params = at(&self.uri, l, c);
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                p.insert(k.clone(), v.clone());
            }
        }
        self.c.request(method, params)
    }

    fn hover(&mut self, needle: &str, nth: usize, want: Expect) {
        let h = self.req(
            "textDocument/hover",
            needle,
            nth,
            needle.len() - 1,
            json!({}),
        );
        want.assert_eq(&markdown(&h));
    }
}

fn open_scene(name: &str) -> (Session, TempDir) {
    let dir = workdir(name);
    std::fs::write(dir.join("common.glsl"), COMMON).unwrap();
    let path = dir.join("scene.frag");
    std::fs::write(&path, SCENE).unwrap();
    let uri = format!("file://{}", path.display());
    let mut c = Client::start(json!({}));
    c.open(&uri, "glsl", 1, SCENE);
    let d = c.diagnostics(&uri, 1);
    assert_eq!(show_diagnostics(&d), "");
    (
        Session {
            c,
            uri,
            text: SCENE.to_string(),
        },
        dir,
    )
}

#[test]
fn hover() {
    let (mut s, _dir) = open_scene("hover");
    s.hover(
        "acc",
        1,
        expect![[r#"
        ```glsl
        vec3 acc
        ```

        local variable of `main`, declared at line 20"#]],
    );
    s.hover(
        "lights",
        1,
        expect![[r#"
        ```glsl
        Light lights[2]
        ```

        uniform, declared at line 10"#]],
    );
    s.hover(
        "pos",
        1,
        expect![[r#"
        ```glsl
        vec3 Light.pos
        ```

        field of `Light`"#]],
    );
    s.hover(
        ".xy",
        0,
        expect![[r#"
        ```glsl
        vec2 .xy
        ```

        swizzle of a vec3"#]],
    );
    s.hover(
        "falloff",
        1,
        expect![[r#"
        ```glsl
        float falloff(float d, float r)
        ```

        user function, defined at line 15"#]],
    );
    s.hover(
        "luminance",
        0,
        expect![[r#"
        ```glsl
        float luminance(vec3 c)
        ```

        user function, defined at common.glsl:2"#]],
    );
    s.hover(
        "length",
        0,
        expect![[r#"
        ```glsl
        float length(float x)
        float length(vec2 x)
        float length(vec3 x)
        float length(vec4 x)
        ```

        built-in function: The length of vector x. (GLSL 330 core, fragment shader)"#]],
    );
    s.hover("gl_FragCoord", 0, expect![[r#"
        ```glsl
        vec4 gl_FragCoord
        ```

        built-in input: The window-relative coordinates of the fragment: x, y in pixels (pixel centres at .5), z the depth, w = 1 / clip w. (GLSL 330 core, fragment shader)"#]]);
    s.hover(
        "Light",
        1,
        expect![[r#"
        ```glsl
        struct Light {
            vec3 pos;
            float radius;
        }
        ```

        struct, declared at line 5"#]],
    );
    s.hover(
        "(float d",
        0,
        expect![[r#"
        ```glsl
        float d
        ```

        parameter of `falloff`, declared at line 15"#]],
    );
    // Nothing to say on a keyword, a literal, whitespace.
    s.hover("return", 0, expect!["<none>"]);
    s.hover("0.0, 1.0", 0, expect!["<none>"]);
    s.c.shutdown();
}

#[test]
fn definition_references_rename() {
    let (mut s, _dir) = open_scene("nav");
    let d = s.req("textDocument/definition", "luminance", 0, 1, json!({}));
    expect!["common.glsl 2:7-2:16"].assert_eq(&show_locations(&d));
    let d = s.req("textDocument/definition", "falloff", 1, 1, json!({}));
    expect!["scene.frag 15:7-15:14"].assert_eq(&show_locations(&d));
    let d = s.req("textDocument/definition", "pos", 1, 1, json!({}));
    expect!["scene.frag 6:10-6:13"].assert_eq(&show_locations(&d));
    let d = s.req("textDocument/definition", "Light", 1, 1, json!({}));
    expect!["scene.frag 5:8-5:13"].assert_eq(&show_locations(&d));
    let d = s.req("textDocument/definition", "(d, ", 0, 1, json!({}));
    expect!["scene.frag 22:15-22:16"].assert_eq(&show_locations(&d));
    let d = s.req("textDocument/definition", "gl_FragCoord", 0, 1, json!({}));
    expect!["null"].assert_eq(&show_locations(&d));
    let d = s.req("textDocument/definition", "common.glsl", 0, 2, json!({}));
    expect!["common.glsl 1:1-1:1"].assert_eq(&show_locations(&d));

    let r = s.req(
        "textDocument/references",
        "acc",
        0,
        1,
        json!({"context": {"includeDeclaration": true}}),
    );
    expect![[r#"
        scene.frag 20:10-20:13
        scene.frag 23:9-23:12
        scene.frag 25:25-25:28
        scene.frag 27:18-27:21"#]]
    .assert_eq(&show_locations(&r));
    let r = s.req(
        "textDocument/references",
        "falloff",
        0,
        1,
        json!({"context": {"includeDeclaration": false}}),
    );
    expect!["scene.frag 23:21-23:28"].assert_eq(&show_locations(&r));
    let r = s.req(
        "textDocument/references",
        "luminance",
        0,
        1,
        json!({"context": {"includeDeclaration": true}}),
    );
    expect![[r#"
        common.glsl 2:7-2:16
        scene.frag 25:15-25:24"#]]
    .assert_eq(&show_locations(&r));
    let r = s.req("textDocument/documentHighlight", "uv", 1, 1, json!({}));
    let n = r.as_array().unwrap().len();
    assert_eq!(n, 3, "{r}");

    // Rename a local, a parameter, a function.
    let show_edit = |e: &Value| -> String {
        let mut out = Vec::new();
        for (uri, edits) in e["changes"].as_object().unwrap() {
            for ed in edits.as_array().unwrap() {
                out.push(format!(
                    "{} {} -> {}",
                    uri.rsplit('/').next().unwrap(),
                    show_range(&ed["range"]),
                    ed["newText"].as_str().unwrap()
                ));
            }
        }
        out.join("\n")
    };
    let e = s.req(
        "textDocument/rename",
        "d =",
        0,
        0,
        json!({"newName": "dist"}),
    );
    expect![[r#"
        scene.frag 22:15-22:16 -> dist
        scene.frag 23:29-23:30 -> dist"#]]
    .assert_eq(&show_edit(&e));
    let e = s.req(
        "textDocument/rename",
        "float r)",
        0,
        6,
        json!({"newName": "radius"}),
    );
    expect![[r#"
        scene.frag 15:30-15:31 -> radius
        scene.frag 16:28-16:29 -> radius"#]]
    .assert_eq(&show_edit(&e));
    let e = s.req(
        "textDocument/rename",
        "falloff",
        1,
        2,
        json!({"newName": "attenuation"}),
    );
    expect![[r#"
        scene.frag 15:7-15:14 -> attenuation
        scene.frag 23:21-23:28 -> attenuation"#]]
    .assert_eq(&show_edit(&e));
    let p = s.req("textDocument/prepareRename", "acc", 2, 0, json!({}));
    expect!["25:25-25:28"].assert_eq(&show_range(&p));
    // A global (a uniform array of structs) and a struct field, used through
    // an array index.
    let e = s.req(
        "textDocument/rename",
        "lights",
        1,
        0,
        json!({"newName": "ls"}),
    );
    expect![[r#"
        scene.frag 10:15-10:21 -> ls
        scene.frag 22:26-22:32 -> ls
        scene.frag 23:32-23:38 -> ls"#]]
    .assert_eq(&show_edit(&e));
    let e = s.req(
        "textDocument/rename",
        "radius",
        1,
        1,
        json!({"newName": "range"}),
    );
    expect![[r#"
        scene.frag 7:11-7:17 -> range
        scene.frag 23:42-23:48 -> range"#]]
    .assert_eq(&show_edit(&e));
    // Refused: built-ins, names declared in files that are not open, bad names.
    let (l, c) = s.pos("gl_FragCoord", 0, 1);
    let err = s.c.request_error(
        "textDocument/prepareRename",
        json!({"textDocument": {"uri": s.uri}, "position": {"line": l, "character": c}}),
    );
    expect![[r#""`gl_FragCoord` is a built-in variable and cannot be renamed""#]]
        .assert_eq(&err["message"].to_string());
    let (l, c) = s.pos("texture(", 0, 1);
    let err = s.c.request_error(
        "textDocument/prepareRename",
        json!({"textDocument": {"uri": s.uri}, "position": {"line": l, "character": c}}),
    );
    expect![[r#""`texture` is a built-in function and cannot be renamed""#]]
        .assert_eq(&err["message"].to_string());
    let (l, c) = s.pos("luminance", 0, 0);
    let err = s.c.request_error(
        "textDocument/prepareRename",
        json!({"textDocument": {"uri": s.uri}, "position": {"line": l, "character": c}}),
    );
    expect![[r#""`luminance` is declared in common.glsl, which is not open in the editor; open it to rename `luminance`""#]].assert_eq(&err["message"].to_string());
    let err = s.c.request_error("textDocument/rename", json!({"textDocument": {"uri": s.uri}, "position": {"line": l, "character": c}, "newName": "luma"}));
    expect![[r#""`luminance` is declared in common.glsl, which is not open in the editor; open it to rename `luminance`""#]].assert_eq(&err["message"].to_string());
    let (l, c) = s.pos("acc", 0, 0);
    for bad in ["gl_x", "vec3", "2x", "for", "mix"] {
        let err = s.c.request_error("textDocument/rename", json!({"textDocument": {"uri": s.uri}, "position": {"line": l, "character": c}, "newName": bad}));
        assert!(
            err["message"].as_str().unwrap().contains("is not a name"),
            "{bad}: {err}"
        );
    }
    s.c.shutdown();
}

#[test]
fn symbols_tokens_folding() {
    let (mut s, _dir) = open_scene("symbols");
    let syms = s.c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": s.uri}}),
    );
    expect![[r#"
        Light [23] struct 5:8-5:13
          pos [8] vec3 6:10-6:13
          radius [8] float 7:11-7:17
        lights [13] uniform Light[2] 10:15-10:21
        tex [13] uniform sampler2D 11:19-11:22
        uv [13] in vec2 12:9-12:11
        color [13] out vec4 13:10-13:15
        falloff [12] float falloff(float d, float r) 15:7-15:14
        main [12] void main() 19:6-19:10
    "#]]
    .assert_eq(&show_symbols(&syms, 0));
    let ws = s.c.request("workspace/symbol", json!({"query": "fall"}));
    let names: Vec<String> = ws
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            format!(
                "{} {}",
                w["name"].as_str().unwrap(),
                file_of(&w["location"]["uri"])
            )
        })
        .collect();
    expect![[r#"["falloff scene.frag"]"#]].assert_eq(&format!("{names:?}"));

    let toks = s.c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": s.uri}}),
    );
    expect![[r#"
        5:8 Light struct declaration
        6:10 pos property declaration
        7:11 radius property declaration
        10:9 Light struct 
        10:15 lights variable declaration,readonly,global
        11:19 tex variable declaration,readonly,global
        12:9 uv variable declaration,readonly,global
        13:10 color variable declaration,global
        15:7 falloff function declaration
        15:21 d parameter declaration
        15:30 r parameter declaration
        16:12 clamp function defaultLibrary
        16:24 d parameter 
        16:28 r parameter 
        19:6 main function declaration
        20:10 acc variable declaration
        21:14 i variable declaration
        21:21 i variable 
        21:28 i variable 
        22:15 d variable declaration
        22:19 length function defaultLibrary
        22:26 lights variable readonly,global
        22:33 i variable 
        22:36 pos property 
        22:40 xy property 
        22:45 uv variable readonly,global
        23:9 acc variable 
        23:21 falloff function 
        23:29 d variable 
        23:32 lights variable readonly,global
        23:39 i variable 
        23:42 radius property 
        25:11 l variable declaration
        25:15 luminance function 
        25:25 acc variable 
        26:11 fx variable declaration
        26:16 gl_FragCoord variable readonly,defaultLibrary,global
        26:29 x property 
        27:5 color variable global
        27:18 acc variable 
        27:24 l variable 
        27:27 fx variable 
        27:33 texture function defaultLibrary
        27:41 tex variable readonly,global
        27:46 uv variable readonly,global"#]]
    .assert_eq(&show_tokens(&toks, &s.text));

    let folds = s.c.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": s.uri}}),
    );
    let shown: Vec<String> = folds
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}-{} {}",
                f["startLine"].as_u64().unwrap() + 1,
                f["endLine"].as_u64().unwrap() + 1,
                f["kind"].as_str().unwrap_or("")
            )
        })
        .collect();
    expect![[r#"["5-7 ", "15-16 ", "19-27 ", "21-23 "]"#]].assert_eq(&format!("{shown:?}"));
    s.c.shutdown();
}

#[test]
fn completion_and_signature_help() {
    let (mut s, _dir) = open_scene("complete");
    let labels = |r: &Value, sort_prefixes: &[&str]| -> String {
        r["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| {
                let st = i["sortText"].as_str().unwrap_or("");
                sort_prefixes.iter().any(|p| st.starts_with(p))
            })
            .map(|i| {
                format!(
                    "{} ({})",
                    i["label"].as_str().unwrap(),
                    i["detail"].as_str().unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Type `acc.` on a new line inside the loop: members of a vec3.
    let (l, _) = s.pos("acc += ", 0, 0);
    s.c.edit(&s.uri, 2, [l, 0, l, 0], "        lights[i].\n");
    let r = s.c.request("textDocument/completion", at(&s.uri, l, 18));
    expect![[r#"
        pos (vec3)
        radius (float)"#]]
    .assert_eq(&labels(&r, &["0"]));
    s.c.edit(&s.uri, 3, [l, 8, l, 18], "acc.");
    let r = s.c.request("textDocument/completion", at(&s.uri, l, 12));
    expect!["x (float), y (float), z (float), r (float), g (float), b (float), s (float), t (float), p (float), xy (vec2), rg (vec2), xyz (vec3), rgb (vec3), yx (vec2)"]
        .assert_eq(&labels(&r, &["0", "1"]).replace('\n', ", "));
    // The syntax error of the half-typed line is reported.
    let d = s.c.diagnostics(&s.uri, 3);
    expect!["24:9-24:12 error: invalid swizzle `acc` on vec3"].assert_eq(&show_diagnostics(&d));
    // An identifier being typed: locals, globals, functions first.
    s.c.edit(&s.uri, 4, [l, 8, l, 12], "f");
    let r = s.c.request("textDocument/completion", at(&s.uri, l, 9));
    expect![[r#"
        d (float — local variable)
        i (int — local variable)
        acc (vec3 — local variable)
        lights (Light[2] — uniform)
        tex (sampler2D — uniform)
        uv (vec2 — shader input)
        color (vec4 — shader output)
        luminance (float luminance(vec3 c))
        falloff (float falloff(float d, float r))
        main (void main())
        Light (struct)"#]]
    .assert_eq(&labels(&r, &["0", "1", "2"]));
    let all = r["items"].as_array().unwrap();
    for want in ["texture", "gl_FragCoord", "mix", "vec3", "for", "uniform"] {
        assert!(all.iter().any(|i| i["label"] == want), "{want} missing");
    }
    assert!(
        !all.iter().any(|i| i["label"] == "gl_Position"),
        "vertex built-in offered in a fragment shader"
    );
    assert!(
        !all.iter().any(|i| i["label"] == "texture2D"),
        "legacy built-in offered in 330 core"
    );
    // Signature help inside a call.
    s.c.edit(&s.uri, 5, [l, 8, l, 9], "acc = mix(acc, vec3(1.0), ");
    let sh = s.c.request("textDocument/signatureHelp", at(&s.uri, l, 34));
    let sigs: Vec<&str> = sh["signatures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["label"].as_str().unwrap())
        .collect();
    assert!(
        sigs.contains(&"vec3 mix(vec3 x, vec3 y, vec3 a)"),
        "{sigs:?}"
    );
    expect!["2"].assert_eq(&sh["activeParameter"].to_string());
    s.c.edit(&s.uri, 6, [l, 8, l, 34], "falloff(1.0, ");
    let sh = s.c.request("textDocument/signatureHelp", at(&s.uri, l, 21));
    expect![[r#"
        {
          "activeParameter": 1,
          "activeSignature": 0,
          "signatures": [
            {
              "label": "float falloff(float d, float r)",
              "parameters": [
                {
                  "label": [
                    14,
                    21
                  ]
                },
                {
                  "label": [
                    23,
                    30
                  ]
                }
              ]
            }
          ]
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(&sh).unwrap());
    s.c.shutdown();
}

#[test]
fn inline_values_at_a_stop() {
    let (mut s, _dir) = open_scene("inline");
    let show = |r: &Value, text: &str| -> String {
        r.as_array()
            .unwrap()
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
            .join("\n")
    };
    // Stopped on `float l = luminance(acc);`, the whole file visible.
    let (l, _) = s.pos("float l =", 0, 0);
    let params = |stop_line: u32| {
        json!({
            "textDocument": {"uri": s.uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 30, "character": 0}},
            "context": {"frameId": 1, "stoppedLocation": {"start": {"line": stop_line, "character": 4}, "end": {"line": stop_line, "character": 4}}}
        })
    };
    let r = s.c.request("textDocument/inlineValue", params(l));
    expect![[r#"
        20:10-20:13 acc | vec3 acc = vec3(0.0);
        23:9-23:12 acc | acc += vec3(falloff(d, lights[i].radius));"#]]
    .assert_eq(&show(&r, &s.text));
    // Inside the loop: the loop's variables too.
    let (l, _) = s.pos("acc += ", 0, 0);
    let r = s.c.request("textDocument/inlineValue", params(l));
    expect![[r#"
        20:10-20:13 acc | vec3 acc = vec3(0.0);
        21:14-21:15 i | for (int i = 0; i < 2; i++) {
        21:28-21:29 i | for (int i = 0; i < 2; i++) {
        22:15-22:16 d | float d = length(lights[i].pos.xy - uv);
        23:9-23:12 acc | acc += vec3(falloff(d, lights[i].radius));"#]]
    .assert_eq(&show(&r, &s.text));
    // In `falloff`: its parameters.
    let (l, _) = s.pos("return clamp", 0, 0);
    let r = s.c.request("textDocument/inlineValue", params(l));
    expect![[r#"
        15:21-15:22 d | float falloff(float d, float r) {
        15:30-15:31 r | float falloff(float d, float r) {"#]]
    .assert_eq(&show(&r, &s.text));
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
        "falloff",
        1,
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
        "luminance",
        0,
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

#[test]
fn interface_blocks() {
    let text = "#version 450\nlayout(std140, binding = 0) uniform Camera { mat4 view; vec3 eye; } cam;\nuniform Params { float gain; };\nlayout(location = 0) out vec4 o;\nvoid main() {\n    o = cam.view * vec4(cam.eye * gain, 1.0);\n}\n";
    let uri = "file:///tmp/shaderdbg-lsp-test/blocks.frag";
    let mut c = Client::start(json!({}));
    c.open(uri, "glsl", 1, text);
    assert_eq!(show_diagnostics(&c.diagnostics(uri, 1)), "");
    let mut shown = Vec::new();
    for (needle, nth, delta) in [
        ("cam", 1, 1),
        ("eye", 1, 1),
        ("gain", 1, 1),
        ("Camera", 0, 1),
        ("view", 0, 1),
    ] {
        let (l, ch) = pos_of(text, needle, nth, delta);
        let h = c.request("textDocument/hover", at(uri, l, ch));
        shown.push(format!("{needle}: {}", markdown(&h)));
    }
    expect![[r#"
        cam: ```glsl
        Camera cam
        ```

        uniform, declared at line 2
        eye: ```glsl
        vec3 Camera.eye
        ```

        field of `Camera`
        gain: ```glsl
        float gain
        ```

        uniform, declared at line 3
        Camera: ```glsl
        uniform Camera {
            mat4 view;
            vec3 eye;
        } cam
        ```
        view: ```glsl
        mat4 Camera.view
        ```

        field of `Camera`"#]]
    .assert_eq(&shown.join("\n"));
    let (l, ch) = pos_of(text, "eye", 1, 1);
    let d = c.request("textDocument/definition", at(uri, l, ch));
    expect!["blocks.frag 2:62-2:65"].assert_eq(&show_locations(&d));
    let syms = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    expect![[r#"
        Camera [11] uniform block cam 2:37-2:43
          view [8] mat4 2:51-2:55
          eye [8] vec3 2:62-2:65
        Params [11] uniform block 3:9-3:15
          gain [8] float 3:24-3:28
        o [13] out vec4 4:31-4:32
        main [12] void main() 5:6-5:10
    "#]]
    .assert_eq(&show_symbols(&syms, 0));
    c.shutdown();
}

/// A Shadertoy-style body (the demo shader, which the built-in host wraps
/// with Shadertoy's uniforms) has no false errors for `iResolution`/`iTime`,
/// and hover knows them; a real error in such a file is still reported.
#[test]
fn shadertoy_bodies_know_the_hosts_uniforms() {
    let dir = workdir("shadertoy");
    let text = include_str!("../../cli/demo/demo.frag");
    let path = dir.join("demo.frag");
    std::fs::write(&path, text).unwrap();
    let uri = format!("file://{}", path.display());
    let mut c = Client::start(json!({}));
    c.open(&uri, "glsl", 1, text);
    assert_eq!(show_diagnostics(&c.diagnostics(&uri, 1)), "");
    let mut s = Session {
        c,
        uri: uri.clone(),
        text: text.to_string(),
    };
    s.hover(
        "iResolution",
        0,
        expect![[r#"
            ```glsl
            vec3 iResolution
            ```

            uniform, declared at the configured header"#]],
    );
    let broken = text.replace("iTime)", "iTimes)");
    s.c.replace_all(&uri, 2, &broken);
    let d = show_diagnostics(&s.c.diagnostics(&uri, 2));
    assert!(d.contains("undeclared identifier `iTimes`"), "{d}");
    assert_eq!(d.lines().count(), 1, "{d}");
}
