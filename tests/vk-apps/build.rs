//! Compiles the test shaders to SPIR-V with glslangValidator (Debian's
//! glslang-tools; `cargo xtask setup` installs it), each three times: with
//! debug information (`-g`: the GLSL source travels in `OpSource`), with
//! NonSemantic.Shader.DebugInfo.100 (`-gVS`: the source travels in
//! `DebugSource`, as shaderc writes it), and without (the layer must
//! decompile those). `NAME.STAGE.hlsl` files are HLSL (`-D`, entry point
//! `main`). `shaders.rs` in OUT_DIR lists them all for
//! `shaderdbg_vk_test_apps::shader`.

use std::fmt::Write;
use std::path::PathBuf;
use std::process::Command;

/// Every shader in `shaders/`, by file name.
const SHADERS: &[&str] = &[
    "vk_triangle.vert",
    "vk_triangle.frag",
    "vk_compute.comp",
    "vk_image.comp",
    "vk_textured.vert",
    "vk_textured.frag",
    "vk_sets.frag",
    "vk_spec.frag",
    "vk_hlsl.frag.hlsl",
    "vk_include.frag",
    "vk_subpass.frag",
    "vk_push.frag",
    "vk_es.frag",
    "vk_separate.frag.hlsl",
];

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    // (name, [-g, -gVS, plain]) for each shader.
    // What the shaders `#include`.
    println!("cargo:rerun-if-changed=shaders/include");
    let mut table = String::from("pub(crate) const BUILT: &[(&str, [&[u8]; 3])] = &[\n");
    for &name in SHADERS {
        let built = |suffix: &str| out.join(format!("{name}.{suffix}"));
        let _ = writeln!(
            table,
            "    ({name:?}, [include_bytes!({:?}), include_bytes!({:?}), include_bytes!({:?})]),",
            built("g.spv"),
            built("gvs.spv"),
            built("spv"),
        );
        let src = PathBuf::from("shaders").join(name);
        println!("cargo:rerun-if-changed={}", src.display());
        for (suffix, debug) in [
            ("g.spv", Some("-g")),
            ("gvs.spv", Some("-gVS")),
            ("spv", None),
        ] {
            let dst = out.join(format!("{name}.{suffix}"));
            let mut cmd = Command::new("glslangValidator");
            cmd.arg("-V").arg("--quiet");
            if name.ends_with(".hlsl") {
                cmd.args(["-D", "-e", "main"]);
            }
            if let Some(flag) = debug {
                cmd.arg(flag);
            }
            let status = cmd
                .arg("-o")
                .arg(&dst)
                .arg(&src)
                .status()
                .unwrap_or_else(|e| panic!("glslangValidator (run `cargo xtask setup`): {e}"));
            assert!(status.success(), "glslangValidator failed on {name}");
        }
    }
    table.push_str("];\n");
    std::fs::write(out.join("shaders.rs"), table).expect("writing shaders.rs");
}
