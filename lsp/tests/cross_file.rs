//! Names across files and include-only files through the real server: what
//! the server adds to one document's analysis (the other open documents that
//! read a file, the workspace's includers on disk) and incremental analysis.
//! The single-document answers (struct fields, macros, an include-only file
//! in its includer's context or alone) are checked in-process in
//! `features.rs`. (`UPDATE_EXPECT=1 cargo test -p shaderdbg-lsp` rewrites
//! the snapshots.)

mod support;

use expect_test::{expect, Expect};
use serde_json::{json, Value};
use support::*;

const COMMON: &str = include_str!("data/lighting.glsl");

const A: &str = include_str!("data/a.frag");

const B: &str = include_str!("data/b.frag");

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

/// A request: (document, its text, method, where (`$0`), more parameters,
/// how to show the answer, the answer).
type Case<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    Value,
    fn(&Value) -> String,
    Expect,
);

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
    // The include-only file, checked after a.frag's text up to its #include.
    c.open(&common, "glsl", 1, COMMON);
    expect!["1:1-1:1 hint: checked as included by a.frag (an include-only file)"]
        .assert_eq(&show_diagnostics(&c.diagnostics(&common, 1)));
    let cases: Vec<Case> = vec![
        (
            &common,
            COMMON,
            "textDocument/hover",
            "g$0ain *",
            json!({}),
            markdown,
            expect![[r#"
                ```glsl
                float gain
                ```

                uniform, declared at a.frag:4"#]],
        ),
        // A global declared in a.frag and used in common.glsl: its uses in
        // a.frag come from a.frag's own analysis (b.frag declares its own
        // `gain`: a different variable).
        (
            &common,
            COMMON,
            "textDocument/references",
            "g$0ain *",
            json!({"context": {"includeDeclaration": true}}),
            show_locations,
            expect![[r#"
                a.frag 4:15-4:19
                a.frag 8:54-8:58
                common.glsl 3:12-3:16"#]],
        ),
        (
            &common,
            COMMON,
            "textDocument/rename",
            "g$0ain *",
            json!({"newName": "exposure"}),
            show_edit,
            expect![[r#"
                a.frag 4:15-4:19 -> exposure
                a.frag 8:54-8:58 -> exposure
                common.glsl 3:12-3:16 -> exposure"#]],
        ),
        // A function declared in the included file, renamed from an includer:
        // in every open document that reads it.
        (
            &a,
            A,
            "textDocument/rename",
            "s$0hade(light",
            json!({"newName": "lit"}),
            show_edit,
            expect![[r#"
                a.frag 8:28-8:33 -> lit
                b.frag 8:35-8:40 -> lit
                common.glsl 2:7-2:12 -> lit"#]],
        ),
        (
            &common,
            COMMON,
            "textDocument/references",
            "l.r$0adius",
            json!({"context": {"includeDeclaration": true}}),
            show_locations,
            expect![[r#"
                a.frag 3:32-3:38
                common.glsl 3:21-3:27"#]],
        ),
    ];
    for (uri, text, method, snippet, extra, show, want) in cases {
        let r = c.request(method, at_cursor(uri, text, snippet, extra));
        want.assert_eq(&show(&r));
    }
    // A real error in the include-only file is still reported.
    c.replace_all(&common, 2, &COMMON.replace("l.radius", "l.radiuz"));
    expect![[r#"
        1:1-1:1 hint: checked as included by a.frag (an include-only file)
        3:21-3:27 error: Light has no field `radiuz`"#]]
    .assert_eq(&show_diagnostics(&c.diagnostics(&common, 2)));

    // Incremental analysis: who is analysed again after what. (document,
    // its new version and text, the documents asked afterwards, the
    // analyses it caused)
    c.replace_all(&common, 3, COMMON);
    c.diagnostics(&common, 3);
    let _ = c.request("textDocument/hover", at(&a, 0, 0));
    let _ = c.request("textDocument/hover", at(&b, 0, 0));
    let steps: Vec<(&str, i64, String, bool, Expect)> = vec![
        // The same text: nothing.
        (
            &a,
            2,
            A.to_string(),
            false,
            expect!["a.frag +0, b.frag +0, common.glsl +0"],
        ),
        // b.frag: only b.frag (nothing includes it; common.glsl is checked
        // in a.frag's context).
        (
            &b,
            2,
            B.replace("vec3(1.0)", "vec3(2.0)"),
            false,
            expect!["a.frag +0, b.frag +1, common.glsl +0"],
        ),
        // common.glsl: it and its includers.
        (
            &common,
            4,
            COMMON.replace("gain *", "gain * gain *"),
            true,
            expect!["a.frag +1, b.frag +1, common.glsl +1"],
        ),
        // a.frag: it and common.glsl (whose context it is).
        (
            &a,
            3,
            A.replace("vec3(0.0)", "vec3(0.5)"),
            false,
            expect!["a.frag +1, b.frag +0, common.glsl +1"],
        ),
    ];
    let mut before = analyses(&mut c);
    for (uri, version, text, ask_includers, want) in steps {
        let same = uri == a.as_str() && text == A;
        c.replace_all(uri, version, &text);
        if same {
            let _ = c.request("textDocument/hover", at(&a, 0, 0));
        } else {
            c.diagnostics(uri, version);
        }
        if ask_includers {
            let _ = c.request("textDocument/hover", at(&a, 0, 0));
            let _ = c.request("textDocument/hover", at(&b, 0, 0));
        }
        let after = analyses(&mut c);
        want.assert_eq(&delta(&before, &after));
        before = after;
    }
    c.shutdown();
}

#[test]
fn include_only_file_from_the_workspace() {
    // Only the include-only file is open; its includer is found on disk.
    let dir = project("workspace");
    let common = uri_of(&dir.join("common.glsl"));
    let mut c = Client::start_with_root(json!({}), Some(&dir));
    c.open(&common, "glsl", 1, COMMON);
    expect!["1:1-1:1 hint: checked as included by a.frag (an include-only file)"]
        .assert_eq(&show_diagnostics(&c.diagnostics(&common, 1)));
    // Renaming a name declared in a file that is not open is refused.
    let err = c.request_error(
        "textDocument/prepareRename",
        at_cursor(&common, COMMON, "g$0ain *", json!({})),
    );
    expect![
        "`gain` is declared in a.frag, which is not open in the editor; open it to rename `gain`"
    ]
    .assert_eq(err["message"].as_str().unwrap_or(""));
    c.shutdown();
}
