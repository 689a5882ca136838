//! WGSL through naga: diagnostics, symbols, hover, definition, over stdio.

mod support;

use expect_test::expect;
use serde_json::{json, Value};
use support::*;

const SRC: &str = r#"struct Light {
    pos: vec3<f32>,
    radius: f32,
}

@group(0) @binding(0) var<uniform> light: Light;
const K: f32 = 2.0;

fn falloff(d: f32) -> f32 {
    let k = d * K;
    return clamp(1.0 - k / light.radius, 0.0, 1.0);
}

@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    var acc = vec3<f32>(0.0);
    acc += light.pos * falloff(uv.x);
    return vec4<f32>(acc, 1.0);
}
"#;

fn hover_text(c: &mut Client, uri: &str, text: &str, needle: &str, nth: usize) -> String {
    let (l, ch) = pos_of(text, needle, nth, 1);
    let h = c.request("textDocument/hover", at(uri, l, ch));
    h["contents"]["value"]
        .as_str()
        .unwrap_or("<none>")
        .to_string()
}

#[test]
fn wgsl_requests() {
    let uri = "file:///tmp/shaderdbg-lsp-test/light.wgsl";
    let (mut c, d) = Client::start_open(uri, "wgsl", SRC);
    assert_eq!(show_diagnostics(&d), "");

    let mut hovers = Vec::new();
    for (needle, nth) in [
        ("acc", 1),
        (" k ", 1),
        ("falloff", 1),
        ("pos", 1),
        ("light", 1),
        ("K", 1),
        ("uv", 1),
        ("main", 0),
    ] {
        hovers.push(format!(
            "{needle}: {}",
            hover_text(&mut c, uri, SRC, needle, nth)
        ));
    }
    expect![[r#"
        acc: ```wgsl
        var acc: vec3<f32>
        ```
         k : ```wgsl
        let k: f32
        ```
        falloff: ```wgsl
        fn falloff(d: f32) -> f32
        ```
        pos: ```wgsl
        Light.pos: vec3<f32>
        ```
        light: ```wgsl
        var light: Light
        ```
        K: ```wgsl
        const K: f32
        ```
        uv: ```wgsl
        uv: vec2<f32>
        ```
        main: ```wgsl
        fn main(uv: vec2<f32>) -> vec4<f32>
        ```

        fragment entry point"#]]
    .assert_eq(&hovers.join("\n"));

    let (l, ch) = pos_of(SRC, "falloff(uv", 0, 2);
    let d = c.request("textDocument/definition", at(uri, l, ch));
    expect!["9:4-9:11"].assert_eq(&show_range(&d[0]["range"]));
    let (l, ch) = pos_of(SRC, "K;", 0, 0);
    let d = c.request("textDocument/definition", at(uri, l, ch));
    expect!["7:7-7:8"].assert_eq(&show_range(&d[0]["range"]));

    let syms = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let shown: Vec<String> = syms
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let kids: Vec<&str> = s["children"].as_array().map_or(Vec::new(), |k| {
                k.iter().map(|k| k["name"].as_str().unwrap()).collect()
            });
            format!(
                "{} [{}] {} {} {:?}",
                s["name"].as_str().unwrap(),
                s["kind"],
                s["detail"].as_str().unwrap_or(""),
                show_range(&s["selectionRange"]),
                kids
            )
        })
        .collect();
    expect![[r#"
        Light [23] struct 1:8-1:13 ["pos", "radius"]
        light [13] Light 6:36-6:41 []
        K [14] f32 7:7-7:8 []
        falloff [12] fn falloff(d: f32) -> f32 9:4-9:11 []
        main [12] fn main(uv: vec2<f32>) -> vec4<f32> 15:4-15:8 []"#]]
    .assert_eq(&shown.join("\n"));

    // A parse error, with its range; hover keeps the types naga found before.
    let broken = SRC.replace("let k = d * K;", "let k = d * ;");
    c.replace_all(uri, 2, &broken);
    let d = c.diagnostics(uri, 2);
    expect!["10:17-10:18 error: expected expression, found \";\" (expected expression)"]
        .assert_eq(&show_diagnostics(&d));
    assert!(hover_text(&mut c, uri, &broken, "acc", 1).contains("var acc: vec3<f32>"));
    // A validation error.
    let invalid = SRC.replace("return vec4<f32>(acc, 1.0);", "return acc;");
    c.replace_all(uri, 3, &invalid);
    let d = c.diagnostics(uri, 3);
    let shown = show_diagnostics(&d);
    expect!["15:4-15:8 error: Entry point main at Fragment is invalid: The `return` expression Some([12]) does not match the declared return type Some([4])"].assert_eq(&shown);
    assert!(shown.contains("main"), "{shown}");
    c.shutdown();
}

#[test]
fn wgsl_bad_positions_and_garbage() {
    let uri = "file:///tmp/shaderdbg-lsp-test/garbage.wgsl";
    let mut c = Client::start(json!({}));
    c.open(
        uri,
        "wgsl",
        1,
        "fn ( { @@@ var<<< \u{1F600} struct { : , } }}}} /* unterminated",
    );
    let d = c.diagnostics(uri, 1);
    assert_eq!(d["diagnostics"].as_array().unwrap().len(), 1, "{d}");
    for (l, ch) in [(0, 0), (0, 5), (0, 999), (99, 0)] {
        let id = c.send_request("textDocument/hover", at(uri, l, ch));
        let r: Value = c.response(id);
        assert!(r.get("result").is_some() || r.get("error").is_some(), "{r}");
    }
    let syms = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(syms.is_array());
    c.shutdown();
}

/// A shader for the built-in host uses its `host` uniform block without
/// declaring it: analysed with the host's block, no false errors; real
/// errors keep the file's own ranges; a file with its own `host` gets none.
#[test]
fn wgsl_host_shaders_know_the_host_block() {
    let uri = "file:///tmp/shaderdbg-lsp-test/effect.wgsl";
    let src = "@fragment\nfn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {\n    let uv = pos.xy / host.resolution;\n    return vec4(uv, host.time + host.time_delta + f32(host.frame), host.mouse.x);\n}\n";
    let (mut c, d) = Client::start_open(uri, "wgsl", src);
    assert_eq!(show_diagnostics(&d), "");

    let wrong = src.replace(
        "let uv = pos.xy",
        "let n: u32 = host.time;\n    let uv = pos.xy",
    );
    c.replace_all(uri, 2, &wrong);
    let d = c.diagnostics(uri, 2);
    let shown = show_diagnostics(&d);
    assert!(shown.starts_with("3:"), "{shown}");
    assert!(shown.contains("u32"), "{shown}");

    // Its own `host` (and no `Host`): nothing is added, nothing redefined.
    let own = format!(
        "const host = vec4<f32>(1.0);\n{}",
        src.replace("pos.xy / host.resolution", "pos.xy").replace(
            "host.time + host.time_delta + f32(host.frame), host.mouse.x",
            "host.xy"
        )
    );
    c.replace_all(uri, 3, &own);
    let d = c.diagnostics(uri, 3);
    assert_eq!(show_diagnostics(&d), "");

    // A file declaring `Host` but not `host` gets no block: its use of
    // `host` is an unknown name.
    let own_struct = format!("struct Host {{ t: f32 }}\n{src}");
    c.replace_all(uri, 4, &own_struct);
    let d = c.diagnostics(uri, 4);
    let shown = show_diagnostics(&d);
    assert!(shown.starts_with("4:"), "{shown}");
    assert!(shown.contains("`host`"), "{shown}");
    c.shutdown();
}
