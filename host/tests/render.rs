//! The built-in host renders standalone shaders; pixel values are checked
//! against what the shaders compute from their coordinates and uniforms.
//! Every test runs the real binary on Mesa (EGL device platform, pbuffer).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shaderdbg-host-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn shader(name: &str, text: &str) -> PathBuf {
    let path = temp_dir().join(name);
    std::fs::write(&path, text).expect("write shader");
    path
}

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shaderdbg-host"))
        .args(args)
        .output()
        .expect("run the host")
}

/// The host run on shader file `name` (written with `text`) with `args`.
fn render(name: &str, text: &str, args: &[&str]) -> Output {
    let f = shader(name, text);
    let mut all = vec![arg(&f)];
    all.extend_from_slice(args);
    host(&all)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The values of every `pixel X Y R G B A` line; stdout must hold nothing else.
fn pixels(out: &Output) -> Vec<Vec<u32>> {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", stderr(out));
    text.lines()
        .map(|line| {
            let mut words = line.split(' ');
            assert_eq!(words.next(), Some("pixel"), "stdout: {text}");
            words.map(|v| v.parse().expect("number")).collect()
        })
        .collect()
}

fn pixel(out: &Output) -> Vec<u32> {
    let mut all = pixels(out);
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0)
}

fn arg(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

#[test]
fn a_complete_shader_renders_its_coordinates() {
    let out = render(
        "complete.frag",
        "#version 330 core\nout vec4 o;\nvoid main() {\n    o = vec4((gl_FragCoord.x - 0.5) / 255.0, (gl_FragCoord.y - 0.5) / 255.0, 0.25, 1.0);\n}\n",
        &["--size", "64x32", "--print-pixel", "10,20", "--print-pixel", "63,0"],
    );
    assert_eq!(
        pixels(&out),
        vec![vec![10, 20, 10, 20, 64, 255], vec![63, 0, 63, 0, 64, 255]]
    );
}

/// What the host gives a shader (resolution, time, frame, mouse; declared
/// by the host for `mainImage` bodies, or by a complete shader itself)
/// reaches it: the printed pixel is `x, y, r, g, b, a` (0..=255).
#[test]
fn uniforms_and_options_reach_the_shader() {
    // The last of 3 frames from time 2 is frame 2 at iTime = 2 + 2/60.
    let t = ((2.0 + 2.0 / 60.0) / 4.0 * 255.0f64).round() as u32;
    let cases: [(&str, &str, &[&str], [u32; 6]); 4] = [
        (
            // uv.x at pixel 37 of 100 is 0.375 -> 3; iTime 2.5 -> 25.
            "toy_time.frag",
            "void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n    vec2 uv = fragCoord / iResolution.xy;\n    fragColor = vec4(floor(uv.x * 10.0) / 255.0, iTime * 10.0 / 255.0, iResolution.x / 255.0, iResolution.y / 255.0);\n}\n",
            &["--size", "100x50", "--time", "2.5", "--print-pixel", "37,3"],
            [37, 3, 3, 25, 100, 50],
        ),
        (
            "toy_frame.frag",
            "void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n    fragColor = vec4((fragCoord.x - 0.5) / 255.0, iTime / 4.0, float(iFrame) / 255.0, iTimeDelta * 60.0 / 255.0);\n}\n",
            &["--size", "100x50", "--time", "2", "--frames", "3", "--print-pixel", "7,3"],
            [7, 3, 7, t, 2, 1],
        ),
        (
            "toy_mouse.frag",
            "void mainImage(out vec4 c, in vec2 p) { c = iMouse / 255.0; }\n",
            &["--size", "8x8", "--mouse", "12,34", "--print-pixel", "0,0"],
            [0, 0, 12, 34, 12, 34],
        ),
        (
            "uniforms.frag",
            "#version 330 core\nuniform vec2 iResolution;\nuniform float iTime;\nuniform int iFrame;\nout vec4 o;\nvoid main() { o = vec4(iResolution / 255.0, iTime / 255.0, float(iFrame) / 255.0); }\n",
            &["--size", "30x20", "--time", "7", "--print-pixel", "0,0"],
            [0, 0, 30, 20, 7, 0],
        ),
    ];
    for (name, source, args, want) in cases {
        assert_eq!(pixel(&render(name, source, args)), want, "{name}");
    }
}

fn write_png(path: &Path, width: u32, height: u32, rgba_top_down: &[u8]) {
    let file = std::fs::File::create(path).expect("create PNG");
    let mut e = png::Encoder::new(file, width, height);
    e.set_color(png::ColorType::Rgba);
    e.set_depth(png::BitDepth::Eight);
    let mut w = e.write_header().expect("PNG header");
    w.write_image_data(rgba_top_down).expect("PNG data");
}

#[test]
fn a_channel_png_is_bound_upright() {
    let tiny = temp_dir().join("tiny.png");
    // PNG rows top first: top-left red, top-right green, bottom-left blue,
    // bottom-right (10, 20, 30, 40).
    #[rustfmt::skip]
    let data = [
        255, 0, 0, 255,   0, 255, 0, 255,
        0, 0, 255, 255,   10, 20, 30, 40,
    ];
    write_png(&tiny, 2, 2, &data);
    let f = shader(
        "channel.frag",
        "void mainImage(out vec4 c, in vec2 p) {\n    ivec2 t = ivec2(p) % 2;\n    c = texelFetch(iChannel0, t, 0);\n    if (iChannelResolution[0] != vec3(2.0, 2.0, 1.0)) c = vec4(1.0, 1.0, 1.0, 0.0);\n}\n",
    );
    let channel = format!("0={}", arg(&tiny));
    let out = host(&[
        arg(&f),
        "--size",
        "4x4",
        "--channel",
        &channel,
        "--print-pixel",
        "1,0",
        "--print-pixel",
        "0,1",
    ]);
    // Texel row 0 is the PNG's bottom row (Shadertoy's vertical flip).
    assert_eq!(
        pixels(&out),
        vec![vec![1, 0, 10, 20, 30, 40], vec![0, 1, 255, 0, 0, 255]]
    );
}

#[test]
fn compile_errors_name_the_line_of_the_users_file() {
    let f = shader(
        "broken.frag",
        "void mainImage(out vec4 c, in vec2 p) {\n  c = vec4(1.0);\n\n\n\n\n  c = vec4(oops);\n}\n",
    );
    let out = host(&[arg(&f)]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("broken.frag:7:"), "{err}");
    assert!(err.contains("    7 |   c = vec4(oops);"), "{err}");
    assert!(out.stdout.is_empty());

    // A file with its own #version: the header goes after it, lines still map.
    let f = shader(
        "broken_es.frag",
        "#version 300 es\n// comment\nvoid mainImage(out vec4 c, in vec2 p) {\n  c = vec4(1.0);\n  float x = 1.0 +;\n}\n",
    );
    let out = host(&[arg(&f)]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("broken_es.frag:5:"), "{err}");

    // A complete shader is one string: the driver's line is the file's line.
    let f = shader(
        "broken_complete.frag",
        "#version 330 core\nout vec4 o;\nvoid main() {\n  o = vec4(nope);\n}\n",
    );
    let err = stderr(&host(&[arg(&f)]));
    assert!(err.contains("broken_complete.frag:4:"), "{err}");
}

#[test]
fn link_errors_and_bad_files_exit_1() {
    let f = shader(
        "unlinked.frag",
        "#version 330 core\nout vec4 o;\nfloat f();\nvoid main() { o = vec4(f()); }\n",
    );
    let out = host(&[arg(&f)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("failed to link"), "{}", stderr(&out));

    let missing = host(&["/nonexistent/shader.frag"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("/nonexistent/shader.frag"));

    let bad = temp_dir().join("bad.png");
    std::fs::write(&bad, b"not a png").expect("write");
    let ok = shader(
        "ok.frag",
        "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n",
    );
    let channel = format!("1={}", arg(&bad));
    let out = host(&[arg(&ok), "--channel", &channel]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not a readable PNG"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn usage_errors_exit_2() {
    let ok = shader(
        "usage.frag",
        "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n",
    );
    for args in [
        vec![],
        vec![arg(&ok), "--size", "12"],
        vec![arg(&ok), "--frames", "0"],
        vec![arg(&ok), "--channel", "4=x.png"],
        vec![arg(&ok), "--size", "8x8", "--print-pixel", "8,0"],
        vec![arg(&ok), "--mouse", "1"],
    ] {
        let out = host(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn png_output_is_top_row_first() {
    let f = shader(
        "rows.frag",
        "#version 330 core\nout vec4 o;\nvoid main() { o = vec4(0.0, (gl_FragCoord.y - 0.5) / 255.0, (gl_FragCoord.x - 0.5) / 255.0, 1.0); }\n",
    );
    let out_png = temp_dir().join("rows.png");
    let out = host(&[arg(&f), "--size", "5x3", "--png", arg(&out_png)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let decoder = png::Decoder::new(std::fs::File::open(&out_png).expect("open PNG"));
    let mut reader = decoder.read_info().expect("decodable PNG");
    let mut buf = vec![0u8; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    assert_eq!((info.width, info.height), (5, 3));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    // First row of the file is y = 2 (the top), last is y = 0.
    assert_eq!(&buf[0..4], &[0, 2, 0, 255]);
    assert_eq!(&buf[4 * 4..4 * 4 + 4], &[0, 2, 4, 255]);
    assert_eq!(&buf[2 * 5 * 4..2 * 5 * 4 + 4], &[0, 0, 0, 255]);
}

#[test]
fn legacy_and_es_shaders_render() {
    // (file, source, size, pixel, the pixel's line)
    let cases = [
        // GLSL 1.10 with gl_FragColor: compatibility context.
        (
            "legacy.frag",
            "void main() {\n    gl_FragColor = vec4(0.2, 0.4, 0.6, 1.0);\n}\n",
            "4x4",
            "1,1",
            [1, 1, 51, 102, 153, 255],
        ),
        // GLSL ES 3.00: GLES 3.2 context.
        (
            "es.frag",
            "#version 300 es\nprecision mediump float;\nout vec4 o;\nvoid main() { o = vec4(1.0, 0.0, (gl_FragCoord.x - 0.5) / 255.0, 1.0); }\n",
            "4x4",
            "3,1",
            [3, 1, 255, 0, 3, 255],
        ),
        // GLSL ES 1.00 and a wrapped 1.20 mainImage (gl_FragColor in the footer).
        (
            "es100.frag",
            "#version 100\nprecision mediump float;\nvoid main() { gl_FragColor = vec4(1.0, 0.0, 1.0, 1.0); }\n",
            "4x4",
            "0,0",
            [0, 0, 255, 0, 255, 255],
        ),
        (
            "toy120.frag",
            "#version 120\nvoid mainImage(out vec4 c, in vec2 p) { c = vec4(iResolution.x / 255.0, 0.0, 0.0, 1.0); }",
            "40x4",
            "1,1",
            [1, 1, 40, 0, 0, 255],
        ),
    ];
    for (name, source, size, at, want) in cases {
        let f = shader(name, source);
        let got = pixel(&host(&[arg(&f), "--size", size, "--print-pixel", at]));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_bundled_example_renders() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/orbits.frag");
    let out_png = temp_dir().join("orbits.png");
    let out = host(&[
        arg(&example),
        "--size",
        "160x90",
        "--frames",
        "2",
        "--png",
        arg(&out_png),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(out_png.exists());
}

/// `--window` under Xvfb (`cargo xtask setup` installs it; missing is a failure).
#[test]
fn window_mode_renders_under_xvfb() {
    let f = shader(
        "window.frag",
        "void mainImage(out vec4 c, in vec2 p) { c = vec4(floor(p) / 255.0, float(iFrame) / 255.0, 1.0); }\n",
    );
    let out = shaderdbg_test_support::xvfb_run(320, 240)
        .arg(env!("CARGO_BIN_EXE_shaderdbg-host"))
        .args([
            arg(&f),
            "--window",
            "--size",
            "64x48",
            "--frames",
            "4",
            "--print-pixel",
            "5,6",
        ])
        .output()
        .expect("run xvfb-run");
    assert_eq!(pixel(&out), vec![5, 6, 5, 6, 3, 255]);
}

/// A `.wgsl` file: its `@fragment` entry point gets `pos` (pixel centres,
/// origin bottom left, like `gl_FragCoord`) and the `host` uniform block
/// (resolution, time, time_delta, frame, mouse) unless it declares `host`
/// itself; each printed pixel is `x, y, r, g, b, a` (0..=255).
#[test]
fn wgsl_shaders_get_position_and_the_host_block() {
    const FS: &str =
        "@fragment\nfn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {\n";
    // The last of 3 frames from time 2 is frame 2 at time 2 + 2/60.
    let t = ((2.0 + 2.0 / 60.0) / 4.0 * 255.0f64).round() as u32;
    // (file, source, arguments, the pixels printed)
    type Case<'a> = (&'a str, String, &'a [&'a str], &'a [[u32; 6]]);
    let cases: [Case; 6] = [
        (
            "coords.wgsl",
            format!("{FS}    return vec4((pos.xy - 0.5) / 255.0, 0.25, 1.0);\n}}\n"),
            &["--size", "64x32", "--print-pixel", "10,20", "--print-pixel", "63,0"],
            &[[10, 20, 10, 20, 64, 255], [63, 0, 63, 0, 64, 255]],
        ),
        (
            "time.wgsl",
            format!("{FS}    return vec4((pos.x - 0.5) / 255.0, host.time / 4.0, f32(host.frame) / 255.0, host.time_delta * 60.0 / 255.0);\n}}\n"),
            &["--size", "100x50", "--time", "2", "--frames", "3", "--print-pixel", "7,3"],
            &[[7, 3, 7, t, 2, 1]],
        ),
        (
            // uv.x at pixel 37 of 100 is 0.375 -> 3; time 2.5 -> 25.
            "resolution.wgsl",
            format!("{FS}    let uv = pos.xy / host.resolution;\n    return vec4(floor(uv.x * 10.0) / 255.0, host.time * 10.0 / 255.0, host.resolution / 255.0);\n}}\n"),
            &["--size", "100x50", "--time", "2.5", "--print-pixel", "37,3"],
            &[[37, 3, 3, 25, 100, 50]],
        ),
        (
            "mouse.wgsl",
            format!("{FS}    return host.mouse / 255.0;\n}}\n"),
            &["--size", "8x8", "--mouse", "12,34", "--print-pixel", "0,0"],
            &[[0, 0, 12, 34, 12, 34]],
        ),
        (
            // Its own `host` (a constant): no second one is added.
            "own_const.wgsl",
            format!("const host = vec4<f32>(0.25, 0.5, 0.75, 1.0);\n{FS}    return host;\n}}\n"),
            &["--size", "4x4", "--print-pixel", "1,1"],
            &[[1, 1, 64, 128, 191, 255]],
        ),
        (
            // Its own block at @group(0) @binding(0), the same layout under
            // other names: no second one, and the host fills it all the same.
            "own_block.wgsl",
            format!("struct Host {{ res: vec2<f32>, t: f32, dt: f32, n: u32, m: vec4<f32> }}\n@group(0) @binding(0) var<uniform> host: Host;\n{FS}    return vec4(host.res, host.t, f32(host.n)) / 255.0;\n}}\n"),
            &["--size", "30x20", "--time", "7", "--print-pixel", "0,0"],
            &[[0, 0, 30, 20, 7, 0]],
        ),
    ];
    for (name, source, args, want) in cases {
        let out = render(name, &source, args);
        assert!(stderr(&out).is_empty(), "{name}: {}", stderr(&out));
        let want: Vec<Vec<u32>> = want.iter().map(|p| p.to_vec()).collect();
        assert_eq!(pixels(&out), want, "{name}");
    }
}

#[test]
fn wgsl_errors_name_the_line_and_column_of_the_users_file() {
    let out = render(
        "broken.wgsl",
        "@fragment\nfn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {\n\n    return vec4(pos.xy +, 0.0, 1.0);\n}\n",
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("broken.wgsl:4:25: error: "), "{err}");
    assert!(
        err.contains("    4 |     return vec4(pos.xy +, 0.0, 1.0);"),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    // A validation error (a type mismatch) is located too.
    let out = render(
        "invalid.wgsl",
        "@fragment\nfn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {\n    let n: u32 = host.time;\n    return vec4(1.0);\n}\n",
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("invalid.wgsl:3:"), "{err}");

    // Inputs the host's triangle does not provide.
    let out = render(
        "varying.wgsl",
        "@fragment\nfn fs(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {\n    return vec4(uv, 0.0, 1.0);\n}\n",
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("@location(0)"), "{}", stderr(&out));
}
