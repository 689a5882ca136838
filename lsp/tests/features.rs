//! The GLSL features in-process, data-driven: each case is a feature, a
//! fixture with the cursor (`$0`) and the answer's snapshot; one runner
//! answers them all. (`UPDATE_EXPECT=1 cargo test -p shaderdbg-lsp
//! --test features` rewrites the snapshots.) The real server binary is
//! exercised by `glsl.rs` and `cross_file.rs`.

mod fixture;

use expect_test::{expect, Expect};
use fixture::*;
use shaderdbg_glsl::ide::nav;
use shaderdbg_lsp::glsl::features::{self, RenameError};

/// What to ask at the cursor.
enum Ask {
    Hover,
    Definition,
    References {
        declaration: bool,
    },
    /// How many highlights.
    Highlights,
    Rename(&'static str),
    PrepareRename,
    /// Completion items whose sort text starts with one of these.
    Completion(&'static [&'static str]),
    SignatureHelp,
    /// Inline values of the whole file, stopped at the cursor's line.
    InlineValues,
    /// The file's symbols, semantic tokens or diagnostics (no cursor).
    Symbols,
    Tokens,
    Diagnostics,
}

/// The one runner: the answer to `ask` as text.
fn answer(fx: &Fixture, ask: &Ask) -> String {
    let (a, at) = match ask {
        Ask::Symbols | Ask::Tokens | Ask::Diagnostics => {
            (fx.analyze(fx.cursor.map_or(0, |c| c.0)), 0)
        }
        _ => fx.analyze_cursor(),
    };
    if let Ask::Diagnostics = ask {
        return a.diagnostics();
    }
    let v = a.view();
    let open = a.open_fn();
    let refused = |e: RenameError| format!("refused: {e}");
    match ask {
        Ask::Hover => show_hover(features::hover(&v, at)),
        Ask::Definition => show_locations(&features::definition(&v, at)),
        Ask::References { declaration } => {
            show_locations(&features::references(&v, at, *declaration))
        }
        Ask::Highlights => features::highlights(&v, at).len().to_string(),
        Ask::PrepareRename => match features::prepare_rename(&v, at, &open) {
            Ok(r) => r.map_or_else(|| "null".into(), |r| show_range(&r)),
            Err(e) => refused(e),
        },
        Ask::Rename(new_name) => {
            let edits = features::rename_target(&v, at, &open).and_then(|t| {
                let Some((t, _)) = t else {
                    return Ok(Vec::new());
                };
                nav::check_new_name(new_name)?;
                features::rename_edits(&v, &t, new_name, &open)
            });
            edits.map_or_else(refused, |e| show_edits(&e))
        }
        Ask::Completion(prefixes) => show_completions(&features::completion(&v, at), prefixes),
        // Through a JSON value, as a client sees it (keys sorted).
        Ask::SignatureHelp => features::signature_help(&v, at).map_or_else(
            || "null".into(),
            |s| {
                serde_json::to_value(&s)
                    .and_then(|v| serde_json::to_string_pretty(&v))
                    .unwrap_or_default()
            },
        ),
        Ask::InlineValues => {
            let line = a.lines.line_of(at);
            let stop = a.lines.line_start(line) + 4;
            show_inline_values(
                &features::inline_values(&v, (0, a.text.len()), stop),
                &a.text,
            )
        }
        Ask::Symbols => show_symbols(&features::document_symbols(&v), 0),
        Ask::Tokens => show_tokens(&features::semantic_tokens(&v), &a.text),
        Ask::Diagnostics => unreachable!(),
    }
}

fn check(cases: Vec<(Ask, Fixture, Expect)>) {
    for (ask, fx, want) in cases {
        want.assert_eq(&answer(&fx, &ask));
    }
}

const COMMON: &str = include_str!("data/common.glsl");

const SCENE: &str = include_str!("data/scene.frag");

/// The scene and the file it includes (`closed`: on disk, not open).
fn scene(at: &str) -> Fixture {
    scene_text(SCENE, at)
}

fn scene_text(text: &str, at: &str) -> Fixture {
    let fx = Fixture::parse(&format!(
        "//- /scene.frag\n{text}//- /common.glsl closed\n{COMMON}"
    ));
    if at.is_empty() {
        fx
    } else {
        fx.at(at)
    }
}

#[test]
fn hover() {
    check(vec![
        (
            Ask::Hover,
            scene("ac$0c += vec3"),
            expect![[r#"
                ```glsl
                vec3 acc
                ```

                local variable of `main`, declared at line 20"#]],
        ),
        (
            Ask::Hover,
            scene("length(light$0s[i]"),
            expect![[r#"
                ```glsl
                Light lights[2]
                ```

                uniform, declared at line 10"#]],
        ),
        (
            Ask::Hover,
            scene(".po$0s.xy"),
            expect![[r#"
                ```glsl
                vec3 Light.pos
                ```

                field of `Light`"#]],
        ),
        (
            Ask::Hover,
            scene(".x$0y - uv"),
            expect![[r#"
                ```glsl
                vec2 .xy
                ```

                swizzle of a vec3"#]],
        ),
        (
            Ask::Hover,
            scene("vec3(fallof$0f(d"),
            expect![[r#"
                ```glsl
                float falloff(float d, float r)
                ```

                user function, defined at line 15"#]],
        ),
        (
            Ask::Hover,
            scene("luminanc$0e(acc)"),
            expect![[r#"
                ```glsl
                float luminance(vec3 c)
                ```

                user function, defined at common.glsl:2"#]],
        ),
        (
            Ask::Hover,
            scene("lengt$0h(lights"),
            expect![[r#"
                ```glsl
                float length(float x)
                float length(vec2 x)
                float length(vec3 x)
                float length(vec4 x)
                ```

                built-in function: The length of vector x. (GLSL 330 core, fragment shader)"#]],
        ),
        (
            Ask::Hover,
            scene("gl_FragCoor$0d.x"),
            expect![[r#"
                ```glsl
                vec4 gl_FragCoord
                ```

                built-in input: The window-relative coordinates of the fragment: x, y in pixels (pixel centres at .5), z the depth, w = 1 / clip w. (GLSL 330 core, fragment shader)"#]],
        ),
        (
            Ask::Hover,
            scene("uniform Ligh$0t lights"),
            expect![[r#"
                ```glsl
                struct Light {
                    vec3 pos;
                    float radius;
                }
                ```

                struct, declared at line 5"#]],
        ),
        (
            Ask::Hover,
            scene("(float $0d, float r)"),
            expect![[r#"
                ```glsl
                float d
                ```

                parameter of `falloff`, declared at line 15"#]],
        ),
        // Nothing to say on a keyword, a literal, whitespace.
        (Ask::Hover, scene("retur$0n clamp"), expect!["<none>"]),
        (Ask::Hover, scene("0.0, 1.$00)"), expect!["<none>"]),
    ]);
}

#[test]
fn definition_references_highlights() {
    check(vec![
        (
            Ask::Definition,
            scene("l$0uminance(acc)"),
            expect!["common.glsl 2:7-2:16"],
        ),
        (
            Ask::Definition,
            scene("vec3(f$0alloff"),
            expect!["scene.frag 15:7-15:14"],
        ),
        (
            Ask::Definition,
            scene(".p$0os.xy"),
            expect!["scene.frag 6:10-6:13"],
        ),
        (
            Ask::Definition,
            scene("uniform L$0ight lights"),
            expect!["scene.frag 5:8-5:13"],
        ),
        (
            Ask::Definition,
            scene("falloff($0d, lights"),
            expect!["scene.frag 22:15-22:16"],
        ),
        (Ask::Definition, scene("g$0l_FragCoord"), expect!["null"]),
        // On an `#include` line: the file.
        (
            Ask::Definition,
            scene("co$0mmon.glsl"),
            expect!["common.glsl 1:1-1:1"],
        ),
        (
            Ask::References { declaration: true },
            scene("vec3 a$0cc = vec3(0.0)"),
            expect![[r#"
                scene.frag 20:10-20:13
                scene.frag 23:9-23:12
                scene.frag 25:25-25:28
                scene.frag 27:18-27:21"#]],
        ),
        (
            Ask::References { declaration: false },
            scene("float f$0alloff(float d"),
            expect!["scene.frag 23:21-23:28"],
        ),
        (
            Ask::References { declaration: true },
            scene("l$0uminance(acc)"),
            expect![[r#"
                common.glsl 2:7-2:16
                scene.frag 25:15-25:24"#]],
        ),
        (Ask::Highlights, scene("- u$0v);"), expect!["3"]),
    ]);
}

#[test]
fn rename() {
    check(vec![
        // A local, a parameter, a function.
        (
            Ask::Rename("dist"),
            scene("float $0d = length"),
            expect![[r#"
                scene.frag 22:15-22:16 -> dist
                scene.frag 23:29-23:30 -> dist"#]],
        ),
        (
            Ask::Rename("radius"),
            scene("float $0r)"),
            expect![[r#"
                scene.frag 15:30-15:31 -> radius
                scene.frag 16:28-16:29 -> radius"#]],
        ),
        (
            Ask::Rename("attenuation"),
            scene("vec3(fa$0lloff"),
            expect![[r#"
                scene.frag 15:7-15:14 -> attenuation
                scene.frag 23:21-23:28 -> attenuation"#]],
        ),
        (
            Ask::PrepareRename,
            scene("luminance($0acc)"),
            expect!["25:25-25:28"],
        ),
        // A global (a uniform array of structs) and a struct field, used
        // through an array index.
        (
            Ask::Rename("ls"),
            scene("length($0lights[i]"),
            expect![[r#"
                scene.frag 10:15-10:21 -> ls
                scene.frag 22:26-22:32 -> ls
                scene.frag 23:32-23:38 -> ls"#]],
        ),
        (
            Ask::Rename("range"),
            scene(".r$0adius)"),
            expect![[r#"
                scene.frag 23:42-23:48 -> range
                scene.frag 7:11-7:17 -> range"#]],
        ),
        // Refused: built-ins, names declared in files that are not open.
        (
            Ask::PrepareRename,
            scene("g$0l_FragCoord"),
            expect!["refused: `gl_FragCoord` is a built-in variable and cannot be renamed"],
        ),
        (
            Ask::PrepareRename,
            scene("t$0exture(tex"),
            expect!["refused: `texture` is a built-in function and cannot be renamed"],
        ),
        (
            Ask::PrepareRename,
            scene("$0luminance(acc)"),
            expect!["refused: `luminance` is declared in common.glsl, which is not open in the editor; open it to rename `luminance`"],
        ),
        (
            Ask::Rename("luma"),
            scene("$0luminance(acc)"),
            expect!["refused: `luminance` is declared in common.glsl, which is not open in the editor; open it to rename `luminance`"],
        ),
    ]);
    // Names a user variable cannot have.
    for bad in ["gl_x", "vec3", "2x", "for", "mix"] {
        let got = answer(&scene("vec3 $0acc = "), &Ask::Rename(bad));
        assert_eq!(
            got,
            format!("refused: `{bad}` is not a name a user variable or function can have")
        );
    }
}

#[test]
fn symbols_and_tokens() {
    check(vec![
        (
            Ask::Symbols,
            scene(""),
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
            "#]],
        ),
        (
            Ask::Tokens,
            scene(""),
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
                27:46 uv variable readonly,global"#]],
        ),
    ]);
}

/// The scene with the line before `acc += ` being typed.
fn typing(line: &str) -> Fixture {
    // The `$0` of `line` is the cursor.
    let text = SCENE.replace(
        "        acc += ",
        &format!("        {line}\n        acc += "),
    );
    scene_text(&text, "")
}

#[test]
fn completion_and_signature_help() {
    check(vec![
        // Members of a struct, of a vector.
        (
            Ask::Completion(&["0"]),
            typing("lights[i].$0"),
            expect![[r#"
                pos (vec3)
                radius (float)"#]],
        ),
        (
            Ask::Completion(&["0", "1"]),
            typing("acc.$0"),
            expect![[r#"
                x (float)
                y (float)
                z (float)
                r (float)
                g (float)
                b (float)
                s (float)
                t (float)
                p (float)
                xy (vec2)
                rg (vec2)
                xyz (vec3)
                rgb (vec3)
                yx (vec2)"#]],
        ),
        // The half-typed line's error is reported.
        (
            Ask::Diagnostics,
            typing("acc.$0"),
            expect!["24:9-24:12 error: invalid swizzle `acc` on vec3"],
        ),
        // An identifier being typed: locals, globals, functions first.
        (
            Ask::Completion(&["0", "1", "2"]),
            typing("f$0"),
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
                Light (struct)"#]],
        ),
        (
            Ask::SignatureHelp,
            typing("falloff(1.0, $0"),
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
                }"#]],
        ),
    ]);
    // Built-ins of the stage and version only, with the rest.
    let fx = typing("f$0");
    let (a, at) = fx.analyze_cursor();
    let items = features::completion(&a.view(), at);
    let has = |l: &str| items.iter().any(|i| i.label == l);
    for want in ["texture", "gl_FragCoord", "mix", "vec3", "for", "uniform"] {
        assert!(has(want), "{want} missing");
    }
    assert!(!has("gl_Position"), "vertex built-in in a fragment shader");
    assert!(!has("texture2D"), "legacy built-in in 330 core");
    // Inside a call: every overload, the active parameter.
    let fx = typing("acc = mix(acc, vec3(1.0), $0");
    let (a, at) = fx.analyze_cursor();
    let sh = features::signature_help(&a.view(), at).expect("signature help");
    assert!(
        sh.signatures
            .iter()
            .any(|s| s.label == "vec3 mix(vec3 x, vec3 y, vec3 a)"),
        "{:?}",
        sh.signatures
    );
    expect![[r#"Some(Int(2))"#]].assert_eq(&format!("{:?}", sh.active_parameter));
}

#[test]
fn inline_values_at_a_stop() {
    check(vec![
        // Stopped on `float l = luminance(acc);`.
        (
            Ask::InlineValues,
            scene("$0    float l = "),
            expect![[r#"
                20:10-20:13 acc | vec3 acc = vec3(0.0);
                23:9-23:12 acc | acc += vec3(falloff(d, lights[i].radius));"#]],
        ),
        // Inside the loop: the loop's variables too.
        (
            Ask::InlineValues,
            scene("$0        acc += "),
            expect![[r#"
                20:10-20:13 acc | vec3 acc = vec3(0.0);
                21:14-21:15 i | for (int i = 0; i < 2; i++) {
                21:28-21:29 i | for (int i = 0; i < 2; i++) {
                22:15-22:16 d | float d = length(lights[i].pos.xy - uv);
                23:9-23:12 acc | acc += vec3(falloff(d, lights[i].radius));"#]],
        ),
        // In `falloff`: its parameters.
        (
            Ask::InlineValues,
            scene("$0    return clamp"),
            expect![[r#"
                15:21-15:22 d | float falloff(float d, float r) {
                15:30-15:31 r | float falloff(float d, float r) {"#]],
        ),
    ]);
}

#[test]
fn diagnostics_and_recovery() {
    let broken = SCENE
        .replace("vec3(0.0);", "vec3(0.0) +;")
        .replace("fx)", "fy)");
    check(vec![
        (Ask::Diagnostics, scene(""), expect![""]),
        // A syntax error, and a semantic error further down.
        (
            Ask::Diagnostics,
            scene_text(&broken, ""),
            expect![[r#"
                20:27-20:28 error: unexpected `;`, expected an expression
                27:27-27:29 error: undeclared identifier `fy`"#]],
        ),
        // Hover still answers from the recovered parse.
        (
            Ask::Hover,
            scene_text(&broken, "vec3(fallof$0f(d"),
            expect![[r#"
                ```glsl
                float falloff(float d, float r)
                ```

                user function, defined at line 15"#]],
        ),
        // Columns count UTF-16 code units (the emoji is two).
        (
            Ask::Diagnostics,
            Fixture::parse("void main() {\n    /* 😀é */ float x = undefinedThing;\n}\n"),
            expect!["2:25-2:39 error: undeclared identifier `undefinedThing`"],
        ),
    ]);
}

const BLOCKS: &str = "#version 450\nlayout(std140, binding = 0) uniform Camera { mat4 view; vec3 eye; } cam;\nuniform Params { float gain; };\nlayout(location = 0) out vec4 o;\nvoid main() {\n    o = cam.view * vec4(cam.eye * gain, 1.0);\n}\n";

#[test]
fn interface_blocks() {
    let blocks = |at: &str| Fixture::parse(BLOCKS).at(at);
    check(vec![
        (Ask::Diagnostics, blocks("$0#version"), expect![""]),
        (
            Ask::Hover,
            blocks("o = c$0am.view"),
            expect![[r#"
                ```glsl
                Camera cam
                ```

                uniform, declared at line 2"#]],
        ),
        (
            Ask::Hover,
            blocks("cam.e$0ye *"),
            expect![[r#"
                ```glsl
                vec3 Camera.eye
                ```

                field of `Camera`"#]],
        ),
        (
            Ask::Hover,
            blocks("* g$0ain"),
            expect![[r#"
                ```glsl
                float gain
                ```

                uniform, declared at line 3"#]],
        ),
        (
            Ask::Hover,
            blocks("C$0amera {"),
            expect![[r#"
                ```glsl
                uniform Camera {
                    mat4 view;
                    vec3 eye;
                } cam
                ```"#]],
        ),
        (
            Ask::Hover,
            blocks("mat4 v$0iew"),
            expect![[r#"
                ```glsl
                mat4 Camera.view
                ```

                field of `Camera`"#]],
        ),
        (
            Ask::Definition,
            blocks("cam.e$0ye *"),
            expect!["main.frag 2:62-2:65"],
        ),
        (
            Ask::Symbols,
            blocks("$0#version"),
            expect![[r#"
                Camera [11] uniform block cam 2:37-2:43
                  view [8] mat4 2:51-2:55
                  eye [8] vec3 2:62-2:65
                Params [11] uniform block 3:9-3:15
                  gain [8] float 3:24-3:28
                o [13] out vec4 4:31-4:32
                main [12] void main() 5:6-5:10
            "#]],
        ),
    ]);
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
    let fields = |at: &str| Fixture::parse(FIELDS).at(at);
    check(vec![
        (Ask::Diagnostics, fields("$0#version"), expect![""]),
        // A field: its declaration and every `.radius` on a Light, through an
        // array element, a macro, a call's result, a nested struct, a parameter.
        (
            Ask::References { declaration: true },
            fields("float r$0adius; };"),
            expect![[r#"
                main.frag 5:32-5:38
                main.frag 11:32-11:38
                main.frag 13:22-13:28
                main.frag 13:39-13:45
                main.frag 13:62-13:68"#]],
        ),
        (
            Ask::Rename("range"),
            fields("LIGHT0.$0radius"),
            expect![[r#"
                main.frag 11:32-11:38 -> range
                main.frag 13:22-13:28 -> range
                main.frag 13:39-13:45 -> range
                main.frag 13:62-13:68 -> range
                main.frag 5:32-5:38 -> range"#]],
        ),
        (
            Ask::References { declaration: true },
            fields("scene.f$0ill"),
            expect![[r#"
                main.frag 6:33-6:37
                main.frag 13:54-13:58"#]],
        ),
        // A global used in several functions and through a macro (at the
        // macro's use); renamed in the macro's definition.
        (
            Ask::References { declaration: true },
            fields("uniform Light l$0ights[2]"),
            expect![[r#"
                main.frag 7:15-7:21
                main.frag 10:24-10:30
                main.frag 13:15-13:21
                main.frag 14:25-14:31"#]],
        ),
        (
            Ask::Rename("lamps"),
            fields("uniform Light $0lights[2]"),
            expect![[r#"
                main.frag 10:24-10:30 -> lamps
                main.frag 14:25-14:31 -> lamps
                main.frag 3:16-3:22 -> lamps
                main.frag 7:15-7:21 -> lamps"#]],
        ),
        // Macros: definition, references (in other macros too), hover, rename.
        (
            Ask::Definition,
            fields("r = L$0IGHT0"),
            expect!["main.frag 3:9-3:15"],
        ),
        (
            Ask::References { declaration: true },
            fields("S$0CALE 2.0"),
            expect![[r#"
                main.frag 2:9-2:14
                main.frag 4:26-4:31"#]],
        ),
        (
            Ask::Hover,
            fields("vec4(BR$0IGHT"),
            expect![[r#"
                ```glsl
                #define BRIGHT(c) ((c) * SCALE)
                ```

                macro, defined at line 4"#]],
        ),
        (
            Ask::Hover,
            fields("r = LI$0GHT0"),
            expect![[r#"
                ```glsl
                #define LIGHT0 lights[0]
                ```

                macro, defined at line 3"#]],
        ),
        (
            Ask::Rename("GAIN"),
            fields("* $0SCALE)"),
            expect![[r#"
                main.frag 2:9-2:14 -> GAIN
                main.frag 4:26-4:31 -> GAIN"#]],
        ),
        (
            Ask::PrepareRename,
            fields("[1].$0pos)"),
            expect!["14:35-14:38"],
        ),
    ]);
}

const LIGHTING: &str = include_str!("data/lighting.glsl");

const A: &str = include_str!("data/a.frag");

const B: &str = include_str!("data/b.frag");

/// An include-only file (`common.glsl`) and two files that include it.
fn project(common: &str, at: &str) -> Fixture {
    let fx = Fixture::parse(&format!(
        "//- /a.frag\n{A}//- /b.frag\n{B}//- /common.glsl\n{common}"
    ));
    if at.is_empty() {
        fx
    } else {
        fx.at(at)
    }
}

#[test]
fn include_only_file_in_its_includers_context() {
    let common = |at: &str| project(LIGHTING, at);
    check(vec![
        // Checked after a.frag's text up to its #include: no false errors,
        // and a hint saying how it was checked.
        (
            Ask::Diagnostics,
            common("g$0ain *"),
            expect!["1:1-1:1 hint: checked as included by a.frag (an include-only file)"],
        ),
        (
            Ask::Hover,
            common("g$0ain *"),
            expect![[r#"
                ```glsl
                float gain
                ```

                uniform, declared at a.frag:4"#]],
        ),
        (
            Ask::Definition,
            common("shade(L$0ight l"),
            expect!["a.frag 3:8-3:13"],
        ),
        // A global declared in a.frag and used in common.glsl (b.frag
        // declares its own `gain`: a different variable). a.frag's own uses
        // after its `#include` are in a.frag's analysis; the server adds
        // them (cross_file.rs checks that).
        (
            Ask::References { declaration: true },
            common("g$0ain *"),
            expect![[r#"
                a.frag 4:15-4:19
                common.glsl 3:12-3:16"#]],
        ),
        (
            Ask::Rename("exposure"),
            common("g$0ain *"),
            expect![[r#"
                a.frag 4:15-4:19 -> exposure
                common.glsl 3:12-3:16 -> exposure"#]],
        ),
        // A field through a parameter, in the include-only file.
        (
            Ask::References { declaration: true },
            common("l.r$0adius"),
            expect![[r#"
                a.frag 3:32-3:38
                common.glsl 3:21-3:27"#]],
        ),
        // A real error in the include-only file is still reported.
        (
            Ask::Diagnostics,
            project(&LIGHTING.replace("l.radius", "l.radiuz"), "l.r$0adiuz"),
            expect![[r#"
                1:1-1:1 hint: checked as included by a.frag (an include-only file)
                3:21-3:27 error: Light has no field `radiuz`"#]],
        ),
    ]);
}

#[test]
fn include_only_file_alone() {
    // No includer: checked alone, errors from the missing context left out
    // (and said so); its own errors still reported.
    let alone = |text: &str, at: &str| Fixture::parse(&format!("//- /lights.glsl\n{text}")).at(at);
    check(vec![
        (
            Ask::Diagnostics,
            alone(LIGHTING, "g$0ain *"),
            expect!["1:1-1:1 info: include-only file with no includer open or in the workspace: checked on its own as GLSL 4.60, without errors about names and types it uses but does not declare"],
        ),
        (
            Ask::Diagnostics,
            alone(&LIGHTING.replace("0.001);", "0.001) +;"), "g$0ain *"),
            expect![[r#"
                1:1-1:1 info: include-only file with no includer open or in the workspace: checked on its own as GLSL 4.60, without errors about names and types it uses but does not declare
                3:61-3:62 error: unexpected `;`, expected an expression"#]],
        ),
        (
            Ask::Hover,
            alone(LIGHTING, "s$0hade("),
            expect![[r#"
                ```glsl
                float shade(Light l, vec3 p)
                ```

                user function, defined at line 2"#]],
        ),
    ]);
}

/// A Shadertoy-style body (the demo shader, which the built-in host wraps
/// with Shadertoy's uniforms) has no false errors for `iResolution`/`iTime`,
/// and hover knows them; a real error in such a file is still reported.
#[test]
fn shadertoy_bodies_know_the_hosts_uniforms() {
    let demo = include_str!("../../cli/demo/demo.frag");
    let body = |text: &str, at: &str| Fixture::parse(&format!("//- /demo.frag\n{text}")).at(at);
    check(vec![
        (
            Ask::Diagnostics,
            body(demo, "iResolutio$0n.xy"),
            expect![""],
        ),
        (
            Ask::Hover,
            body(demo, "iResolutio$0n.xy"),
            expect![[r#"
                ```glsl
                vec3 iResolution
                ```

                uniform, declared at the configured header"#]],
        ),
        (
            Ask::Diagnostics,
            body(&demo.replace("iTime)", "iTimes)"), "iResolutio$0n.xy"),
            expect!["33:41-33:47 error: undeclared identifier `iTimes`"],
        ),
        // A GLSL ES body gets the host's default precisions too (it had
        // "`float` has no default precision" on each uniform).
        (
            Ask::Diagnostics,
            body(
                "#version 300 es\nvoid mainImage(out vec4 o, in vec2 p) {\n    o = vec4(p / iResolution.xy, iTime, 1.0);\n}\n",
                "iResolutio$0n.xy",
            ),
            expect![""],
        ),
    ]);
}
