//! The built-in host renders standalone shaders; pixel values are checked
//! against what the shaders compute from their coordinates and uniforms.

use std::path::PathBuf;
use std::process::{Command, Output};

fn shader(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shaderdbg-host-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write shader");
    path
}

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shaderdbg-host"))
        .args(args)
        .output()
        .expect("run the host")
}

fn pixel(out: &Output) -> Vec<u32> {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.trim()
        .split(' ')
        .skip(1)
        .map(|v| v.parse().expect("number"))
        .collect()
}

#[test]
fn a_complete_shader_renders_its_coordinates() {
    let f = shader(
        "complete.frag",
        "#version 330 core\nout vec4 o;\nvoid main() {\n    o = vec4((gl_FragCoord.x - 0.5) / 255.0, (gl_FragCoord.y - 0.5) / 255.0, 0.25, 1.0);\n}\n",
    );
    let out = host(&[
        f.to_str().unwrap(),
        "--size",
        "64x32",
        "--print-pixel",
        "10,20",
    ]);
    assert_eq!(pixel(&out), vec![10, 20, 10, 20, 64, 255]);
}

#[test]
fn a_main_image_shader_gets_shadertoy_uniforms() {
    let f = shader(
        "toy.frag",
        "void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n    fragColor = vec4((fragCoord.x - 0.5) / 255.0, iTime / 4.0, float(iFrame) / 255.0, iResolution.x / 255.0);\n}\n",
    );
    let out = host(&[
        f.to_str().unwrap(),
        "--size",
        "100x50",
        "--time",
        "2",
        "--frames",
        "3",
        "--print-pixel",
        "7,3",
    ]);
    // Frame 2 of 3: iTime = 2 + 2/60, iFrame = 2.
    let t = ((2.0 + 2.0 / 60.0) / 4.0 * 255.0f64).round() as u32;
    assert_eq!(pixel(&out), vec![7, 3, 7, t, 2, 100]);
}

#[test]
fn compile_errors_name_the_line_of_the_users_file() {
    let f = shader(
        "broken.frag",
        "void mainImage(out vec4 c, in vec2 p) {\n  c = vec4(1.0);\n\n\n\n\n  c = vec4(oops);\n}\n",
    );
    let out = host(&[f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.frag:7:"), "{err}");
    let missing = host(&["/nonexistent/shader.frag"]);
    assert_eq!(missing.status.code(), Some(1));
}
