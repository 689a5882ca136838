//! What the snapshot tests share: instrumented GLSL with its generated
//! runtime set apart, so a snapshot shows what is particular to its shader.
// Each test binary uses its own part of this module.
#![allow(dead_code)]

pub mod sanitize;

/// The top-level items of GLSL text: each runs from a line at brace depth 0
/// to the line that brings the depth back to 0.
pub fn items(text: &str) -> Vec<Vec<&str>> {
    let mut items = Vec::new();
    let mut current = Vec::new();
    let mut depth = 0i32;
    for line in text.lines() {
        current.push(line);
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        if depth <= 0 {
            items.push(std::mem::take(&mut current));
            depth = 0;
        }
    }
    if !current.is_empty() {
        items.push(current);
    }
    items
}

/// Whether an item is generated: its first line names a `_sdbg_` identifier.
pub fn is_generated(item: &[&str]) -> bool {
    item.first().is_some_and(|l| l.contains("_sdbg_"))
}

/// The generated runtime of instrumented GLSL: its items after `#version`
/// up to the first item of the shader's own.
pub fn runtime(glsl: &str) -> String {
    items(glsl)
        .iter()
        .skip(1)
        .take_while(|item| is_generated(item))
        .flat_map(|item| item.iter().map(|l| format!("{l}\n")))
        .collect()
}

/// `glsl` with every generated item that also stands in `runtime` (the text
/// of the snapshot named `name`) replaced by a marker line that counts
/// them; items that differ stay, so nothing particular to the shader is lost.
pub fn without_runtime(glsl: &str, runtime: &str, name: &str) -> String {
    let known: Vec<Vec<&str>> = items(runtime);
    let mut out: Vec<String> = Vec::new();
    let mut elided = 0;
    let flush = |out: &mut Vec<String>, elided: &mut usize| {
        if *elided > 0 {
            out.push(format!("// [{elided} runtime items as in {name}]"));
            *elided = 0;
        }
    };
    for item in items(glsl) {
        if is_generated(&item) && known.contains(&item) {
            elided += 1;
            continue;
        }
        flush(&mut out, &mut elided);
        out.extend(item.iter().map(|l| l.to_string()));
    }
    flush(&mut out, &mut elided);
    let mut text = out.join("\n");
    if glsl.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// `cmd` run with `input` on its standard input, and what it wrote.
pub fn piped(cmd: &mut std::process::Command, input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?} runs: {e}"));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    child.wait_with_output().expect("waits")
}

/// glslang's verdict on `glsl` as a shader of `stage` (`frag`, `vert`,
/// ...): OpenGL GLSL, or with `vulkan` Vulkan GLSL compiled to SPIR-V
/// (`-V`). The error is glslang's output.
pub fn glslang(glsl: &str, stage: &str, vulkan: bool) -> Result<(), String> {
    if vulkan {
        return spirv(glsl, stage, &[]).map(drop);
    }
    run_glslang(glsl, stage, &[])
}

/// The SPIR-V glslang makes of Vulkan GLSL `glsl` (`-V`, then `args`:
/// `-D` for HLSL). The error is glslang's output.
pub fn spirv(glsl: &str, stage: &str, args: &[&str]) -> Result<Vec<u8>, String> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let out = std::env::temp_dir().join(format!(
        "shaderdbg-glslang-{}-{}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let mut all = vec!["-V"];
    all.extend(args);
    all.push("-o");
    all.push(out.to_str().expect("a UTF-8 temp dir"));
    run_glslang(glsl, stage, &all)?;
    let bytes = std::fs::read(&out).map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&out);
    bytes
}

fn run_glslang(glsl: &str, stage: &str, args: &[&str]) -> Result<(), String> {
    shaderdbg_test_support::require_installed(&["/usr/bin/glslangValidator"]);
    let mut cmd = std::process::Command::new("glslangValidator");
    cmd.args(args).args(["--stdin", "-S", stage]);
    let result = piped(&mut cmd, glsl.as_bytes());
    if result.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&result.stdout).into_owned())
    }
}
