//! Bad input: non-UTF-8 includes, huge files, absurd nesting, cyclic includes,
//! invalid positions and ranges, malformed messages, panics in a request or
//! an analysis. The server answers (or errors) and stays up.

mod support;

use serde_json::{json, Value};
use support::*;

const GOOD: &str =
    "#version 330 core\nout vec4 o;\nvoid main() {\n    float x = 1.0;\n    o = vec4(x);\n}\n";

/// The server still works: a hover on `x` in a fresh document.
fn still_alive(c: &mut Client, name: &str) {
    let uri = format!("file:///tmp/shaderdbg-lsp-test/alive-{name}.frag");
    c.open(&uri, "glsl", 1, GOOD);
    assert_eq!(show_diagnostics(&c.diagnostics(&uri, 1)), "");
    let h = c.request("textDocument/hover", at(&uri, 4, 14));
    assert!(
        h["contents"]["value"].as_str().unwrap().contains("float x"),
        "{h}"
    );
}

fn answers(c: &mut Client, method: &str, params: Value) -> Value {
    let id = c.send_request(method, params);
    let r = c.response(id);
    assert!(r.get("result").is_some() || r.get("error").is_some(), "{r}");
    r
}

#[test]
fn broken_documents() {
    let dir = std::env::temp_dir().join(format!("shaderdbg-lsp-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // An include that is not UTF-8.
    std::fs::write(
        dir.join("latin1.glsl"),
        b"// caf\xe9\nfloat f() { return 1.0; }\n",
    )
    .unwrap();
    std::fs::write(dir.join("self.glsl"), "#include \"self.glsl\"\n").unwrap();
    let mut c = Client::start(json!({"maxFileSize": 1_000_000}));
    let doc = |name: &str| format!("file://{}/{name}", dir.display());

    let uri = doc("latin1.frag");
    c.open(
        &uri,
        "glsl",
        1,
        "#include \"latin1.glsl\"\nout vec4 o;\nvoid main() { o = vec4(f()); }\n",
    );
    assert_eq!(show_diagnostics(&c.diagnostics(&uri, 1)), "");

    let uri = doc("cycle.frag");
    c.open(&uri, "glsl", 1, "#include \"self.glsl\"\nvoid main() {}\n");
    let shown = show_diagnostics(&c.diagnostics(&uri, 1));
    assert!(
        shown.starts_with("1:1-1:21 error:") && shown.contains("cyclic"),
        "{shown}"
    );

    // Larger than maxFileSize: a warning, no analysis, requests still answer.
    let uri = doc("huge.frag");
    let huge = GOOD.repeat(1_200_000 / GOOD.len());
    c.open(&uri, "glsl", 1, &huge);
    let shown = show_diagnostics(&c.diagnostics(&uri, 1));
    assert!(shown.contains("not analysed"), "{shown}");
    answers(&mut c, "textDocument/hover", at(&uri, 3, 11));
    answers(&mut c, "textDocument/completion", at(&uri, 3, 11));

    // Nesting beyond the engine's limits, token pastes it would loop on,
    // NUL bytes, emoji, CRLF, a lone `#`.
    let cases = [
        format!(
            "void main() {{ float x = {}1.0{}; }}\n",
            "(".repeat(500),
            ")".repeat(500)
        ),
        "#define A##\nvoid main() {}\n".to_string(),
        "void main() { float x\0 = 1.0; }\n".to_string(),
        "// 😀 é\r\nvoid main() {\r\n  float 😀 = 1.0;\r\n}\r\n".to_string(),
        "#\n#if\n#endif garbage\n#include\n#version 999\n".to_string(),
        "}}}}}}{{{{{{ ;;;; ((( ]]] #define\n".to_string(),
        String::new(),
    ];
    for (i, text) in cases.iter().enumerate() {
        let uri = doc(&format!("case{i}.frag"));
        c.open(&uri, "glsl", 1, text);
        let d = c.diagnostics(&uri, 1);
        assert!(d["diagnostics"].is_array());
        for (l, ch) in [(0, 0), (0, 3), (1, 2), (2, 40)] {
            for m in [
                "textDocument/hover",
                "textDocument/completion",
                "textDocument/definition",
                "textDocument/signatureHelp",
            ] {
                answers(&mut c, m, at(&uri, l, ch));
            }
        }
        for m in [
            "textDocument/documentSymbol",
            "textDocument/semanticTokens/full",
            "textDocument/foldingRange",
        ] {
            answers(&mut c, m, json!({"textDocument": {"uri": uri}}));
        }
    }
    still_alive(&mut c, "broken-documents");
    c.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn invalid_positions_and_messages() {
    let uri = "file:///tmp/shaderdbg-lsp-test/positions.frag";
    let (mut c, _) = Client::start_open(uri, "glsl", GOOD);
    // A line past the end: an error that says so. A column past the end of a
    // line: the line's end.
    let r = answers(&mut c, "textDocument/hover", at(uri, 99, 0));
    assert_error_says(&r, "outside the document");
    let r = answers(&mut c, "textDocument/hover", at(uri, 3, 999));
    assert!(r.get("result").is_some(), "{r}");
    let r = answers(
        &mut c,
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1000, "character": 0}, "newName": "y"}),
    );
    assert!(r.get("error").is_some(), "{r}");
    let r = answers(
        &mut c,
        "textDocument/inlineValue",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 50, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"frameId": 1, "stoppedLocation": {"start": {"line": 3, "character": 999}, "end": {"line": 3, "character": 999}}}
        }),
    );
    assert!(r.get("result").is_some(), "{r}");
    // Unknown documents, wrong parameter types, unknown methods.
    let r = answers(
        &mut c,
        "textDocument/hover",
        at("file:///nowhere.frag", 0, 0),
    );
    assert!(r.get("error").is_some(), "{r}");
    let r = answers(
        &mut c,
        "textDocument/hover",
        json!({"textDocument": 3, "position": "x"}),
    );
    assert!(r.get("error").is_some(), "{r}");
    let r = answers(&mut c, "shaderdbg/nonsense", json!({}));
    assert!(r.get("error").is_some(), "{r}");
    // Changes with ranges outside the text, for unknown documents, malformed.
    c.edit(uri, 2, [500, 0, 600, 3], "// appended\n");
    c.edit("file:///nowhere.frag", 2, [0, 0, 0, 0], "x");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri}, "contentChanges": "nope"}),
    );
    c.notify("textDocument/didOpen", json!({"textDocument": null}));
    c.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didClose"}));
    let d = c.diagnostics(uri, 2);
    assert_eq!(show_diagnostics(&d), "");
    still_alive(&mut c, "positions");
    c.shutdown();
}

#[test]
fn a_panic_does_not_take_the_server_down() {
    let uri = "file:///tmp/shaderdbg-lsp-test/panic.frag";
    let mut c = Client::start_with(json!({}), None, &[("SHADERDBG_LSP_TEST_PANIC", "1")]);
    let text = "void main() { float shaderdbg_test_panic = 1.0; }\n";
    c.open(uri, "glsl", 1, text);
    c.diagnostics(uri, 1);
    let r = answers(&mut c, "textDocument/hover", at(uri, 0, 22));
    assert_error_says(&r, "test panic in hover");
    // A panic in the analysis: a diagnostic says so; the last good parse stays.
    c.replace_all(
        uri,
        2,
        "void main() { float x = 1.0; } // shaderdbg_test_panic_analysis\n",
    );
    let shown = show_diagnostics(&c.diagnostics(uri, 2));
    assert!(
        shown.contains("internal error while analysing this file"),
        "{shown}"
    );
    let syms = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(syms[0]["name"], "main");
    still_alive(&mut c, "panic");
    c.shutdown();
}
