//! An edit burst: 200 incremental changes sent without waiting keep their
//! order, and the last version's diagnostics win.

mod support;

use expect_test::expect;
use support::*;

const BASE: &str =
    "#version 330 core\nout vec4 o;\nvoid main() {\n    float v0 = 0.0;\n    o = vec4(v0);\n}\n";

#[test]
fn two_hundred_changes_keep_their_order() {
    let uri = "file:///tmp/shaderdbg-lsp-test/burst.frag";
    let mut c = Client::start_clean(uri, "glsl", BASE);
    let mut expected = BASE.to_string();
    let mut version = 1;
    // 100 edits, each inserting a line that uses the line the previous edit
    // inserted (applied out of order, the text would not be this).
    for k in 1..=100u32 {
        let line = format!("    float v{k} = v{} + 1.0;\n", k - 1);
        version += 1;
        c.edit(uri, version, [3 + k, 0, 3 + k, 0], &line);
        let at = expected
            .match_indices('\n')
            .nth(3 + k as usize - 1)
            .unwrap()
            .0
            + 1;
        expected.insert_str(at, &line);
    }
    // 100 more: typing a statement character by character at the end of main
    // (half-typed code all along), ending in a semantic error.
    let mut typed = String::from("    o.x = v100 * undefinedThing");
    for k in (80..100).rev() {
        if typed.len() + 6 > 98 {
            break;
        }
        typed.push_str(&format!(" + v{k}"));
    }
    let typed = format!("{typed:<98};");
    assert_eq!(typed.len(), 99);
    let line = 3 + 100 + 2; // after `o = vec4(v0);`
    version += 1;
    c.edit(uri, version, [line, 0, line, 0], "\n");
    expected.insert(expected.rfind('}').unwrap(), '\n');
    for (i, ch) in typed.chars().take(99).enumerate() {
        version += 1;
        c.edit(
            uri,
            version,
            [line, i as u32, line, i as u32],
            &ch.to_string(),
        );
    }
    let typed_part: String = typed.chars().take(99).collect();
    let end = expected.rfind("\n}").unwrap();
    expected.insert_str(end, &typed_part);
    assert_eq!(version, 201);

    let last = c.diagnostics(uri, 201);
    expect!["106:18-106:32 error: undeclared identifier `undefinedThing`"]
        .assert_eq(&show_diagnostics(&last));
    // Whatever was published before came in increasing version order, and
    // nothing older comes after the last version.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let versions = c.published_versions(uri);
    assert_eq!(versions.last(), Some(&Some(201)), "{versions:?}");
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
    eprintln!("published versions during the burst: {versions:?}");

    // The server's text is the text we meant: the same diagnostics as a fresh
    // open of it, and the last line's names resolve.
    let fresh = "file:///tmp/shaderdbg-lsp-test/fresh.frag";
    c.open(fresh, "glsl", 1, &expected);
    let d = c.diagnostics(fresh, 1);
    assert_eq!(show_diagnostics(&d), show_diagnostics(&last));
    let (l, ch) = pos_of(&expected, "v100 *", 0, 2);
    let h = c.request("textDocument/hover", at(uri, l, ch));
    expect![[r#"
        ```glsl
        float v100
        ```

        local variable of `main`, declared at line 104"#]]
    .assert_eq(h["contents"]["value"].as_str().unwrap());
    c.shutdown();
}

#[test]
fn diagnostics_versions_never_go_back() {
    let uri = "file:///tmp/shaderdbg-lsp-test/versions.frag";
    let (mut c, _) = Client::start_open(uri, "glsl", BASE);
    // Alternate between a valid and a broken text, 200 times, as fast as possible.
    for v in 2..=201 {
        let text = if v % 2 == 0 {
            BASE.replace("0.0;", "0.0 +;")
        } else {
            BASE.to_string()
        };
        c.replace_all(uri, v, &text);
    }
    let last = c.diagnostics(uri, 201);
    assert_eq!(show_diagnostics(&last), "");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let versions = c.published_versions(uri);
    assert_eq!(versions.last(), Some(&Some(201)), "{versions:?}");
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
    c.shutdown();
}
