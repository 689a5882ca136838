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

/// glslang's verdict on `glsl` as a shader of `stage` (`frag`, `vert`,
/// ...): OpenGL GLSL, or with `vulkan` Vulkan GLSL compiled to SPIR-V
/// (`-V`). The error is glslang's output.
pub fn glslang(glsl: &str, stage: &str, vulkan: bool) -> Result<(), String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    shaderdbg_test_support::require_installed(&["/usr/bin/glslangValidator"]);
    let out = std::env::temp_dir().join(format!(
        "shaderdbg-glslang-{}-{stage}-{vulkan}.spv",
        std::process::id()
    ));
    let mut cmd = Command::new("glslangValidator");
    if vulkan {
        cmd.arg("-V").arg("-o").arg(&out);
    }
    let mut child = cmd
        .args(["--stdin", "-S", stage])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("glslangValidator runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(glsl.as_bytes())
        .expect("write");
    let result = child.wait_with_output().expect("waits");
    let _ = std::fs::remove_file(&out);
    if result.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&result.stdout).into_owned())
    }
}
