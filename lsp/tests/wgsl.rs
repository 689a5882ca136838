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
    let mut c = Client::start_clean(uri, "wgsl", SRC);

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
    // A validation error naga gives no span for: on the `return`, with
    // the types named.
    let invalid = SRC.replace("return vec4<f32>(acc, 1.0);", "return acc;");
    c.replace_all(uri, 3, &invalid);
    let d = c.diagnostics(uri, 3);
    let shown = show_diagnostics(&d);
    expect!["18:5-18:16 error: `main` returns `vec4<f32>`, but this `return` gives a `vec3<f32>`"]
        .assert_eq(&shown);
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
    let mut c = Client::start_clean(uri, "wgsl", src);

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

/// Ranges of a list of locations (or highlights, with their kind).
fn show_ranges(v: &Value) -> String {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    let kind = match l["kind"].as_u64() {
                        Some(2) => " read",
                        Some(3) => " write",
                        _ => "",
                    };
                    format!("{}{kind}", show_range(&l["range"]))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| format!("{v}"))
}

fn labels(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let detail = i["detail"].as_str().unwrap_or("");
            format!("{} {detail}", i["label"].as_str().unwrap())
        })
        .collect()
}

/// References, highlights, rename, completion, signature help, semantic
/// tokens and inline values on WGSL, over stdio.
#[test]
fn wgsl_navigation_completion_and_inline_values() {
    let uri = "file:///tmp/shaderdbg-lsp-test/nav.wgsl";
    let mut c = Client::start_clean(uri, "wgsl", SRC);

    // `acc`: declared, written with `+=`, read in the return.
    let (l, ch) = pos_of(SRC, "acc", 1, 0);
    let mut p = at(uri, l, ch);
    p["context"] = json!({"includeDeclaration": true});
    let refs = c.request("textDocument/references", p.clone());
    expect!["16:9-16:12 17:5-17:8 18:22-18:25"].assert_eq(&show_ranges(&refs));
    p["context"] = json!({"includeDeclaration": false});
    let refs = c.request("textDocument/references", p);
    expect!["17:5-17:8 18:22-18:25"].assert_eq(&show_ranges(&refs));
    let hl = c.request("textDocument/documentHighlight", at(uri, l, ch));
    expect!["16:9-16:12 write 17:5-17:8 write 18:22-18:25 read"].assert_eq(&show_ranges(&hl));
    // A struct member, through the variable of that type.
    let (l, ch) = pos_of(SRC, "radius", 1, 0);
    let refs = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": {"line": l, "character": ch},
               "context": {"includeDeclaration": true}}),
    );
    expect!["3:5-3:11 11:34-11:40"].assert_eq(&show_ranges(&refs));

    // Rename a function: declaration and call.
    let (l, ch) = pos_of(SRC, "falloff", 0, 0);
    let mut p = at(uri, l, ch);
    let prep = c.request("textDocument/prepareRename", p.clone());
    expect!["9:4-9:11"].assert_eq(&show_range(&prep));
    p["newName"] = json!("attenuation");
    let edit = c.request("textDocument/rename", p.clone());
    let edits = &edit["changes"][uri];
    expect!["9:4-9:11 17:24-17:31"].assert_eq(&show_ranges(edits));
    assert!(edits
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["newText"] == "attenuation"));
    for bad in ["fn", "vec3", "2x", "normalize"] {
        p["newName"] = json!(bad);
        let e = c.request_error("textDocument/rename", p.clone());
        let message = e["message"].as_str().unwrap_or_default();
        assert!(message.contains(&format!("`{bad}`")), "{e}");
    }

    // Completion: members of a struct variable, swizzles of a vector,
    // names in scope (locals only after their declaration).
    let members = "    acc += light.pos * falloff(uv.x);";
    let (l, _) = pos_of(SRC, members, 0, 0);
    let dot = members.find("light.").unwrap() as u32 + 6;
    let items = c.request("textDocument/completion", at(uri, l, dot));
    expect![[r#"["pos vec3<f32>", "radius f32"]"#]].assert_eq(&format!("{:?}", labels(&items)));
    let swz = members.find("uv.").unwrap() as u32 + 3;
    let items = c.request("textDocument/completion", at(uri, l, swz));
    expect![[r#"["x f32", "y f32", "r f32", "g f32"]"#]]
        .assert_eq(&format!("{:?}", labels(&items)));
    // Inside a member name: the members still (the editor filters).
    let pos = members.find("pos").unwrap() as u32 + 2;
    let items = c.request("textDocument/completion", at(uri, l, pos));
    assert_eq!(labels(&items), ["pos vec3<f32>", "radius f32"]);
    let (l, ch) = pos_of(SRC, "    let k = d * K;", 0, 4);
    let names = labels(&c.request("textDocument/completion", at(uri, l, ch)));
    let user: Vec<&String> = names.iter().take(5).collect();
    expect![[r#"["d f32", "Light struct Light {\n    pos: vec3<f32>,\n    radius: f32,\n}", "light Light", "K f32", "falloff fn falloff(d: f32) -> f32"]"#]]
        .assert_eq(&format!("{user:?}"));
    assert!(
        !names.iter().any(|n| n.starts_with("k ")),
        "k is declared later: {names:?}"
    );
    assert!(
        !names.iter().any(|n| n.starts_with("acc ")),
        "acc is main's: {names:?}"
    );
    // Built-in functions with their signature.
    assert!(
        names.contains(&"normalize fn normalize(e: vecN<T>) -> vecN<T>".to_string()),
        "{names:?}"
    );
    assert!(names.contains(&"vec3f predeclared type".to_string()));

    // Signature help inside a call of a user function.
    let (l, ch) = pos_of(SRC, "falloff(uv.x)", 0, 8);
    let sig = c.request("textDocument/signatureHelp", at(uri, l, ch));
    expect![[r#"fn falloff(d: f32) -> f32 ["d: f32"] 0"#]].assert_eq(&format!(
        "{} {:?} {}",
        sig["signatures"][0]["label"].as_str().unwrap(),
        sig["signatures"][0]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["label"].as_str().unwrap())
            .collect::<Vec<_>>(),
        sig["activeParameter"]
    ));

    // Semantic tokens: (line, column, length, type, modifiers) decoded.
    let toks = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let data: Vec<u64> = toks["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let (mut line, mut col) = (0, 0);
    let mut shown = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            col = 0;
        }
        line += t[0];
        col += t[1];
        let name: String = SRC.lines().nth(line as usize).unwrap()
            [col as usize..(col + t[2]) as usize]
            .to_string();
        shown.push(format!("{name}:{}/{}", t[3], t[4]));
    }
    expect![[r#"Light:3/1 pos:4/1 radius:4/1 light:0/9 Light:3/0 K:0/11 falloff:2/1 d:1/3 k:0/3 d:1/2 K:0/10 clamp:2/4 k:0/2 light:0/8 radius:4/0 main:2/1 uv:1/3 acc:0/1 acc:0/0 light:0/8 pos:4/0 falloff:2/0 uv:1/2 acc:0/0"#]]
        .assert_eq(&shown.join(" "));

    // Inline values at a stop on the `return` of main: the parameter and
    // the writes of main's variables, up to the stopped line.
    let shown = inline_values(&mut c, uri, SRC, "    return vec4<f32>(acc, 1.0);");
    expect![[r#"["uv 15:22-15:24", "acc 16:9-16:12", "acc 17:5-17:8"]"#]]
        .assert_eq(&format!("{shown:?}"));

    // Half-typed member chains (naga rejects the text; the types of the
    // last version it accepted answer).
    let typing = SRC.replace("acc += light.pos * falloff(uv.x);", "acc += light.pos.");
    c.replace_all(uri, 2, &typing);
    let _ = c.diagnostics(uri, 2);
    let (l, ch) = pos_of(&typing, "light.pos.", 0, 10);
    let items = c.request("textDocument/completion", at(uri, l, ch));
    assert_eq!(
        labels(&items),
        ["x f32", "y f32", "z f32", "r f32", "g f32", "b f32"]
    );
    c.shutdown();
}

/// Signature help in calls of WGSL built-in functions, over stdio: every
/// overload the specification lists, the one the arguments typed so far fit
/// active (the texture's type picks `textureSample`'s), the parameter the
/// cursor is in, the descriptions; a user function of the same name wins.
#[test]
fn wgsl_signature_help_for_builtin_functions() {
    let uri = "file:///tmp/shaderdbg-lsp-test/builtins.wgsl";
    let src = r#"@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var shadow: texture_depth_2d;
@group(0) @binding(2) var samp: sampler;

@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    let a = mix(vec3<f32>(0.0), vec3<f32>(1.0), 0.5);
    let b = clamp(uv.x, 0.0, 1.0);
    let c = textureSample(tex, samp, uv);
    let d = textureSample(shadow, samp, uv, vec2<i32>(1, 0));
    let e = dot(a, a);
    let f = select(a, a, vec3<bool>(b > 0.5));
    let g = bitcast<u32>(e);
    return vec4<f32>(a * b * e + f + c.rgb * d, f32(g));
}
"#;
    let mut c = Client::start_clean(uri, "wgsl", src);

    // One line per request: the active overload with the active parameter
    // in [brackets], then `active/overloads`.
    let mut shown = Vec::new();
    for snippet in [
        "mix($0vec3<f32>(0.0)",
        "vec3<f32>(1.0), 0.$05)",
        "clamp(uv.x, 0$0.0, 1.0)",
        "textureSample(tex, samp, $0uv)",
        "textureSample(shadow, samp, uv, $0vec2<i32>(1, 0))",
        "dot(a, $0a)",
        "select(a, a, $0vec3<bool>",
        "bitcast<u32>($0e)",
    ] {
        let sig = c.request(
            "textDocument/signatureHelp",
            at_cursor(uri, src, snippet, json!({})),
        );
        let active = sig["activeSignature"].as_u64().unwrap() as usize;
        let all = sig["signatures"].as_array().unwrap();
        let s = &all[active];
        let label = s["label"].as_str().unwrap();
        let p = sig["activeParameter"].as_u64().unwrap() as usize;
        let offsets = &s["parameters"][p]["label"];
        let (from, to) = (
            offsets[0].as_u64().unwrap() as usize,
            offsets[1].as_u64().unwrap() as usize,
        );
        shown.push(format!(
            "{}[{}]{} {}/{}",
            &label[..from],
            &label[from..to],
            &label[to..],
            active,
            all.len()
        ));
    }
    expect![[r#"
        fn mix([e1: T], e2: T, e3: T) -> T 0/2
        fn mix(e1: T, e2: T, [e3: T]) -> T 0/2
        fn clamp(e: T, [low: T], high: T) -> T 0/1
        fn textureSample(t: texture_2d<f32>, s: sampler, [coords: vec2<f32>]) -> vec4<f32> 1/14
        fn textureSample(t: texture_depth_2d, s: sampler, coords: vec2<f32>, [offset: vec2<i32>]) -> f32 9/14
        fn dot(e1: vecN<T>, [e2: vecN<T>]) -> T 0/1
        fn select(f: T, t: T, [cond: bool]) -> T 0/2
        fn bitcast<T>([e: T]) -> T 0/9"#]]
    .assert_eq(&shown.join("\n"));

    // The descriptions: of the overload with what its type parameters range
    // over, and of the parameter.
    let sig = c.request(
        "textDocument/signatureHelp",
        at_cursor(uri, src, "textureSample(tex, samp, $0uv)", json!({})),
    );
    let s = &sig["signatures"][1];
    assert_eq!(s["documentation"], "Samples a texture.");
    expect!["The texture coordinates used for sampling."]
        .assert_eq(s["parameters"][2]["documentation"].as_str().unwrap());
    let sig = c.request(
        "textDocument/signatureHelp",
        at_cursor(uri, src, "clamp(uv.x, 0$0.0, 1.0)", json!({})),
    );
    let doc = sig["signatures"][0]["documentation"].as_str().unwrap();
    assert!(
        doc.starts_with("Restricts the value of e within a range."),
        "{doc}"
    );
    assert!(
        doc.contains(
            "Where S is AbstractInt, AbstractFloat, i32, u32, f32, or f16; T is S, or vecN<S>"
        ),
        "{doc}"
    );

    // A function of the shader named like a built-in shadows it.
    let own = format!(
        "fn clamp(x: f32) -> f32 {{ return x; }}\n{}",
        src.replace("clamp(uv.x, 0.0, 1.0)", "clamp(uv.x)")
    );
    c.replace_all(uri, 2, &own);
    let _ = c.diagnostics(uri, 2);
    let sig = c.request(
        "textDocument/signatureHelp",
        at_cursor(uri, &own, "clamp(uv$0.x)", json!({})),
    );
    expect!["fn clamp(x: f32) -> f32"].assert_eq(sig["signatures"][0]["label"].as_str().unwrap());
    assert_eq!(sig["signatures"].as_array().unwrap().len(), 1);
    c.shutdown();
}

const MEMBERS: &str = r#"struct Light {
    pos: vec3<f32>,
    radius: f32,
}

struct Camera {
    pos: vec3<f32>,
    fov: f32,
}

@group(0) @binding(0) var<uniform> lights: array<Light, 2>;
@group(0) @binding(1) var<uniform> cam: Camera;

fn get_light(i: u32) -> Light {
    return lights[i];
}

fn shift(l: ptr<function, Light>, by: f32) {
    (*l).radius += by;
}

@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    var l = get_light(0u);
    shift(&l, 0.5);
    let d = distance(l.pos, cam.pos);
    let n = (l.pos + cam.pos).xy;
    let c = vec3<f32>(uv, d).zy;
    let r = get_light(1u).radius * cam.fov;
    return vec4<f32>(n, c.x, r);
}
"#;

fn references(
    c: &mut Client,
    uri: &str,
    text: &str,
    needle: &str,
    nth: usize,
    delta: usize,
) -> String {
    let (l, ch) = pos_of(text, needle, nth, delta);
    let mut p = at(uri, l, ch);
    p["context"] = json!({"includeDeclaration": true});
    show_ranges(&c.request("textDocument/references", p))
}

/// Members are those of the receiver's struct type (two structs with a
/// member `pos`); references of struct types and globals; completion after
/// a `.` whose receiver only naga can type (a call, a constructor, a
/// parenthesised expression, a dereferenced pointer), also while the text
/// does not parse; built-in functions complete with their signatures.
#[test]
fn wgsl_members_by_type_and_references() {
    let uri = "file:///tmp/shaderdbg-lsp-test/members.wgsl";
    let mut c = Client::start_clean(uri, "wgsl", MEMBERS);

    let src = MEMBERS;
    let mut shown = Vec::new();
    for (what, needle, nth, delta) in [
        ("Light.pos via l.pos", "l.pos", 0, 2),
        ("Camera.pos via cam.pos", "cam.pos", 0, 4),
        ("Camera.pos declaration", "pos", 1, 0),
        ("radius via (*l)", "radius", 1, 0),
        ("struct Light", "Light", 0, 0),
        ("global cam", "cam", 0, 0),
        ("function get_light", "get_light", 2, 0),
        ("local l", "var l", 0, 4),
    ] {
        shown.push(format!(
            "{what}: {}",
            references(&mut c, uri, src, needle, nth, delta)
        ));
    }
    expect![[r#"
        Light.pos via l.pos: 2:5-2:8 26:24-26:27 27:16-27:19
        Camera.pos via cam.pos: 7:5-7:8 26:33-26:36 27:26-27:29
        Camera.pos declaration: 7:5-7:8 26:33-26:36 27:26-27:29
        radius via (*l): 3:5-3:11 19:10-19:16 29:27-29:33
        struct Light: 1:8-1:13 11:50-11:55 14:25-14:30 18:27-18:32
        global cam: 12:36-12:39 26:29-26:32 27:22-27:25 29:36-29:39
        function get_light: 14:4-14:13 24:13-24:22 29:13-29:22
        local l: 24:9-24:10 25:12-25:13 26:22-26:23 27:14-27:15"#]]
    .assert_eq(&shown.join("\n"));

    let (l, ch) = pos_of(src, "cam.pos", 0, 5);
    let h = c.request("textDocument/hover", at(uri, l, ch));
    expect![[r#"
        ```wgsl
        Camera.pos: vec3<f32>
        ```"#]]
    .assert_eq(h["contents"]["value"].as_str().unwrap_or("<none>"));
    let (l, ch) = pos_of(src, "l.pos", 0, 2);
    let def = c.request("textDocument/definition", at(uri, l, ch));
    expect!["2:5-2:8"].assert_eq(&show_range(&def[0]["range"]));

    // Completion after receivers only naga types: one line per cursor.
    let mut shown = Vec::new();
    for snippet in [
        "get_light(1u).$0radius",
        "(l.pos + cam.pos).$0xy",
        "vec3<f32>(uv, d).$0zy",
        "(*l).$0radius",
        "cam.$0fov",
    ] {
        let items = c.request(
            "textDocument/completion",
            at_cursor(uri, src, snippet, json!({})),
        );
        shown.push(format!("{snippet}: {}", labels(&items).join(", ")));
    }
    expect![[r#"
        get_light(1u).$0radius: pos vec3<f32>, radius f32
        (l.pos + cam.pos).$0xy: x f32, y f32, z f32, r f32, g f32, b f32
        vec3<f32>(uv, d).$0zy: x f32, y f32, z f32, r f32, g f32, b f32
        (*l).$0radius: pos vec3<f32>, radius f32
        cam.$0fov: pos vec3<f32>, fov f32"#]]
    .assert_eq(&shown.join("\n"));

    // While the text does not parse: naga's types of the last module it
    // accepted, the receiver lowered against that module.
    let typing = src.replace(
        "let r = get_light(1u).radius * cam.fov;",
        "let r = get_light(1u).",
    );
    c.replace_all(uri, 2, &typing);
    let d = c.diagnostics(uri, 2);
    assert_ne!(show_diagnostics(&d), "");
    let items = c.request(
        "textDocument/completion",
        at_cursor(uri, &typing, "get_light(1u).$0", json!({})),
    );
    assert_eq!(labels(&items), ["pos vec3<f32>", "radius f32"]);

    // Hover and definition of a member of a call's result, where two
    // structs have a member of that name: naga types the receiver.
    let call = src.replace(
        "get_light(1u).radius * cam.fov",
        "get_light(1u).pos.x * cam.fov",
    );
    c.replace_all(uri, 3, &call);
    assert_eq!(show_diagnostics(&c.diagnostics(uri, 3)), "");
    let h = c.request(
        "textDocument/hover",
        at_cursor(uri, &call, "get_light(1u).p$0os", json!({})),
    );
    expect![[r#"
        ```wgsl
        Light.pos: vec3<f32>
        ```"#]]
    .assert_eq(h["contents"]["value"].as_str().unwrap_or("<none>"));
    let def = c.request(
        "textDocument/definition",
        at_cursor(uri, &call, "get_light(1u).p$0os", json!({})),
    );
    expect!["2:5-2:8"].assert_eq(&show_range(&def[0]["range"]));
    // References of Light.pos from either end: the access through the
    // call's result is found by naga (its typed expressions' spans).
    let from_decl = references(&mut c, uri, &call, "pos", 0, 0);
    let from_call = references(&mut c, uri, &call, "get_light(1u).pos", 0, 14);
    expect!["2:5-2:8 26:24-26:27 27:16-27:19 29:27-29:30"].assert_eq(&from_decl);
    assert_eq!(from_call, from_decl);
    // Semantic tokens: that `pos` is a member (type 4) too.
    let toks = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let (l, ch) = pos_of(&call, "get_light(1u).pos", 0, 14);
    assert_eq!(token_at(&toks, l, ch), Some((3, 4)), "{toks}");
    // A built-in function: its overloads and description.
    let h = c.request(
        "textDocument/hover",
        at_cursor(uri, &call, "dist$0ance(l.pos", json!({})),
    );
    expect![[r#"
        ```wgsl
        fn distance(e1: T, e2: T) -> S
        ```

        Returns the distance between e1 and e2 (e.g. length(e1 - e2)).

        The domain is all vectors (e1,e2) where the subtraction e1−e2 is valid."#]]
    .assert_eq(h["contents"]["value"].as_str().unwrap_or("<none>"));
    c.replace_all(uri, 4, &typing);

    // Names in scope: built-in functions with their first signature, the
    // count of the others, and the description.
    let items = c.request(
        "textDocument/completion",
        at_cursor(uri, &typing, "    $0shift(&l", json!({})),
    );
    let all = items["items"].as_array().unwrap();
    let found = |name: &str| {
        all.iter()
            .find(|i| i["label"] == name)
            .map(|i| {
                format!(
                    "{} | {}",
                    i["detail"].as_str().unwrap_or(""),
                    i["documentation"].as_str().unwrap_or("")
                )
            })
            .unwrap_or_default()
    };
    expect![[r#"
        fn distance(e1: T, e2: T) -> S | Returns the distance between e1 and e2 (e.g. length(e1 - e2)).

        The domain is all vectors (e1,e2) where the subtraction e1−e2 is valid.
        fn textureSample(t: texture_1d<f32>, s: sampler, coords: f32) -> vec4<f32> (+13 overloads) | Samples a texture."#]]
    .assert_eq(&format!("{}\n{}", found("distance"), found("textureSample")));
    c.shutdown();
}

/// Inline values and highlights count writes through members and elements
/// (`p.pos.x = ...`, `a[1] += ...`, `p.n++`) as writes of the root variable,
/// as for GLSL.
#[test]
fn wgsl_writes_through_members_and_elements() {
    let uri = "file:///tmp/shaderdbg-lsp-test/writes.wgsl";
    let src = r#"struct P {
    pos: vec3<f32>,
    n: u32,
}

@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    var p = P(vec3<f32>(0.0), 1u);
    var a = array<f32, 4>(1.0, 2.0, 3.0, 4.0);
    p.pos.x = uv.x;
    a[1] += f32(p.n);
    p.n++;
    let s = a[1] + p.pos.x;
    if (a[0] == s) {
        return vec4<f32>(0.0);
    }
    return vec4<f32>(s, f32(p.n), 0.0, 1.0);
}
"#;
    let mut c = Client::start_clean(uri, "wgsl", src);
    let shown = inline_values(&mut c, uri, src, "    return vec4<f32>(s, f32(p.n)");
    expect![[r#"
        uv 7:22-7:24
        p 8:9-8:10
        a 9:9-9:10
        p 10:5-10:6
        a 11:5-11:6
        p 12:5-12:6
        s 13:9-13:10"#]]
    .assert_eq(&shown.join("\n"));
    let hl = c.request(
        "textDocument/documentHighlight",
        at_cursor(uri, src, "var $0p", json!({})),
    );
    expect!["8:9-8:10 write 10:5-10:6 write 11:17-11:18 read 12:5-12:6 write 13:20-13:21 read 17:29-17:30 read"]
    .assert_eq(&show_ranges(&hl));
    let hl = c.request(
        "textDocument/documentHighlight",
        at_cursor(uri, src, "var $0a", json!({})),
    );
    expect!["9:9-9:10 write 11:5-11:6 write 13:13-13:14 read 14:9-14:10 read"]
        .assert_eq(&show_ranges(&hl));
    c.shutdown();
}

/// The inline values (`NAME RANGE`) of lines 1 to 20 of `uri` at a stop at
/// column 4 of the line of `src` that starts with `stopped`.
fn inline_values(c: &mut Client, uri: &str, src: &str, stopped: &str) -> Vec<String> {
    let (l, _) = pos_of(src, stopped, 0, 0);
    let iv = c.request(
        "textDocument/inlineValue",
        json!({"textDocument": {"uri": uri},
               "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}},
               "context": {"frameId": 1, "stoppedLocation": {"start": {"line": l, "character": 4}, "end": {"line": l, "character": 4}}}}),
    );
    iv.as_array()
        .unwrap()
        .iter()
        .map(|v| {
            format!(
                "{} {}",
                v["variableName"].as_str().unwrap(),
                show_range(&v["range"])
            )
        })
        .collect()
}

/// The (length, type) of the semantic token starting at (line, character).
fn token_at(toks: &Value, line: u32, character: u32) -> Option<(u64, u64)> {
    let data: Vec<u64> = toks["data"]
        .as_array()?
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    let (mut l, mut c) = (0, 0);
    for t in data.chunks(5) {
        if t[0] > 0 {
            c = 0;
        }
        l += t[0];
        c += t[1];
        if (l, c) == (u64::from(line), u64::from(character)) {
            return Some((t[2], t[3]));
        }
    }
    None
}
