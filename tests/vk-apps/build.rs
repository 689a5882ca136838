//! Compiles the test shaders to SPIR-V with glslangValidator (Debian's
//! glslang-tools; `cargo xtask setup` installs it), each three times: with
//! debug information (`-g`: the GLSL source travels in `OpSource`), with
//! NonSemantic.Shader.DebugInfo.100 (`-gVS`: the source travels in
//! `DebugSource`, as shaderc writes it), and without (the layer must
//! decompile those).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    for name in ["vk_triangle.vert", "vk_triangle.frag", "vk_compute.comp"] {
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
}
