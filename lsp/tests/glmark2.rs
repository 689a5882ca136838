//! The glmark2 shader corpus (Debian package glmark2-data, installed by
//! `cargo xtask setup`), opened as an editor opens the files, with glmark2's
//! run-time additions supplied through the settings: no false errors.
//!
//! What glmark2 does to a file at run time (see glsl/tests/glmark2_corpus.rs):
//! it prepends precision macros (`HIGHP_OR_DEFAULT`, `MEDIUMP_OR_DEFAULT`, empty
//! on desktop GL), adds `const` globals that depend on the scene
//! (`LightSourcePosition`, `TextureStepX`, ...), and fills `$PLACEHOLDER$`s
//! with generated statements. A glmark2 developer tells the server the same
//! with `header` (the macros and the union of the constants the scenes add)
//! and `placeholderDefault: ""` (the placeholders are statements; empty is a
//! valid filling).

mod support;

use serde_json::json;
use support::*;

const SHADER_DIR: &str = "/usr/share/glmark2/shaders";

/// The settings a glmark2 developer would use.
pub fn glmark2_settings() -> serde_json::Value {
    json!({
        "header": "#define HIGHP_OR_DEFAULT\n#define MEDIUMP_OR_DEFAULT\n\
            const vec4 LightSourcePosition = vec4(20.0, 20.0, 10.0, 1.0);\n\
            const vec3 LightSourceHalfVector = vec3(0.408248, 0.408248, 0.816497);\n\
            const vec4 MaterialDiffuse = vec4(1.0, 1.0, 1.0, 1.0);\n\
            const float TextureStepX = 0.000977;\n\
            const float TextureStepY = 0.000977;\n\
            const vec2 TextureSize = vec2(512.0, 512.0);\n\
            const float PI = 3.141593;\n\
            const vec4 LightColor = vec4(0.4, 0.4, 0.4, 1.0);\n\
            const float RefractiveIndex = 1.2;\n",
        "placeholderDefault": "",
    })
}

fn corpus() -> Vec<(String, String)> {
    let listing = std::fs::read_dir(SHADER_DIR).unwrap_or_else(|e| {
        panic!(
            "{SHADER_DIR}: {e}. The glmark2 shader corpus comes from the Debian package \
             glmark2-data: run `cargo xtask setup` (or `apt-get install glmark2-data`)."
        )
    });
    let mut files: Vec<(String, String)> = listing
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "frag" || x == "vert"))
        .map(|p| {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            (p.display().to_string(), text)
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 70,
        "{SHADER_DIR} has only {} .frag/.vert files: is glmark2-data installed completely?",
        files.len()
    );
    files
}

#[test]
fn glmark2_corpus_has_no_false_errors() {
    let files = corpus();
    let mut c = Client::start(glmark2_settings());
    for (path, text) in &files {
        c.open(&format!("file://{path}"), "glsl", 1, text);
    }
    let mut problems = Vec::new();
    for (path, text) in &files {
        let uri = format!("file://{path}");
        let d = c.diagnostics(&uri, 1);
        let shown = show_diagnostics(&d);
        if !shown.is_empty() {
            problems.push(format!("{path}:\n{shown}"));
            continue;
        }
        // The other requests answer on every file.
        let syms = c.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
        if !syms
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["name"] == "main"))
        {
            problems.push(format!("{path}: no `main` among the symbols: {syms}"));
        }
        let toks = c.request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": uri}}),
        );
        if toks["data"].as_array().is_none_or(|d| d.is_empty()) {
            problems.push(format!("{path}: no semantic tokens"));
        }
        let (l, ch) = pos_of(text, "main", 0, 1);
        let h = c.request("textDocument/hover", at(&uri, l, ch));
        if !h["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("void main()"))
        {
            problems.push(format!("{path}: hover on main: {h}"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} files:\n{}",
        problems.len(),
        files.len(),
        problems.join("\n")
    );
    c.shutdown();
}

#[test]
fn glmark2_without_the_header_says_what_is_missing() {
    // Without the settings, the placeholders and the run-time constants are
    // reported: the server does not guess.
    let files = corpus();
    let (path, text) = files
        .iter()
        .find(|(p, _)| p.ends_with("/light-basic.vert"))
        .unwrap();
    let uri = format!("file://{path}");
    let (c, d) = Client::start_open(&uri, "glsl", text);
    let shown = show_diagnostics(&d);
    assert!(
        shown.contains("undeclared identifier `LightSourcePosition`"),
        "{shown}"
    );
    c.shutdown();
}
