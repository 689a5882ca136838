//! GLSL to SPIR-V inside the layer, for twins whose modules are compiled
//! from source (instrumented GLSL, or the recovered source itself in the
//! self-check): glslang's `glslangValidator` (Debian's `glslang-tools`),
//! run as a child process like SPIRV-Cross for decompiling.
//!
//! Considered and rejected: shaderc through Debian's `libshaderc1`, whose
//! library does not load (it leaves glslang's and SPIRV-Tools' symbols
//! undefined: bookworm ships those only as static libraries); the `shaderc`
//! crate, which builds glslang from source (minutes on every clean build);
//! naga's GLSL front end, which reads only part of Vulkan GLSL (no combined
//! image samplers, which vkcube uses).

use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use shaderdbg_core::Stage;

use crate::error::Error;

/// The GLSL glslang embedded with `-g`, as it compiles again: glslang
/// records its processing options as `// OpModuleProcessed` comment lines
/// and a `#line 1` before the source, and `#version` must come before any
/// directive. The `#line 1` becomes an empty line, so that every line keeps
/// its number in the text the session shows (breakpoints and probes are in
/// those numbers).
pub fn compilable(embedded: &str) -> std::borrow::Cow<'_, str> {
    let mut rest = embedded;
    while let Some(after) = rest.strip_prefix("// OpModuleProcessed") {
        rest = after.split_once('\n').map_or("", |(_, r)| r);
    }
    let header = embedded.len() - rest.len();
    match rest.strip_prefix("#line 1\n") {
        Some(r) if header > 0 => format!("{}\n{r}", &embedded[..header]).into(),
        _ => embedded.into(),
    }
}

/// Compiles Vulkan GLSL to SPIR-V words whose entry point (`main` in the
/// GLSL) is named `entry_point` (the name the application's pipeline stage
/// gives: decompiled GLSL calls every entry point `main`); the error is
/// glslang's message (`name` is the file name its messages give).
pub fn glsl_to_spirv(
    source: &str,
    stage: Stage,
    entry_point: &str,
    name: &str,
) -> Result<Vec<u32>, Error> {
    static N: AtomicU64 = AtomicU64::new(0);
    let out = std::env::temp_dir().join(format!(
        "shaderdbg-vk-{}-{}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let mut cmd = Command::new("glslangValidator");
    cmd.args(["-V", "--target-env", "vulkan1.0", "--stdin", "-S"])
        .arg(stage.short_name());
    if entry_point != "main" {
        cmd.args(["-e", entry_point, "--source-entrypoint", "main"]);
    }
    cmd.arg("-o").arg(&out);
    let result = crate::child::run_piped(&mut cmd, source.as_bytes().to_vec())
        .map_err(|e| Error::NoGlslang(Box::new(e)))?;
    let code = std::fs::read(&out);
    let _ = std::fs::remove_file(&out);
    if !result.status.success() {
        // glslang names its input `stdin`; say the name the caller gave.
        let msg = String::from_utf8_lossy(&result.stdout).replace("stdin", name);
        let msg: Vec<&str> = msg
            .lines()
            .filter(|l| l.starts_with("ERROR:") && !l.contains("compilation errors"))
            .collect();
        return Err(Error::Glslang(msg.join("\n")));
    }
    let bytes = code.map_err(Error::GlslangNoModule)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_vulkan_glsl_and_reports_errors_with_lines() {
        let ok = glsl_to_spirv(
            "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n",
            Stage::Fragment,
            "main",
            "t.frag",
        )
        .expect("compiles");
        assert_eq!(ok[0], 0x0723_0203, "SPIR-V magic");
        let err = glsl_to_spirv(
            "#version 450\nvoid main() { x = 1; }\n",
            Stage::Fragment,
            "main",
            "t.frag",
        )
        .expect_err("undeclared");
        assert!(matches!(err, crate::error::Error::Glslang(_)), "{err:?}");
        assert!(err.to_string().contains("t.frag:2"), "{err}");
    }

    #[test]
    fn the_entry_point_takes_the_name_the_pipeline_gives() {
        let code = glsl_to_spirv(
            "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n",
            Stage::Fragment,
            "fs_main",
            "t.frag",
        )
        .expect("compiles");
        let info = crate::spirv::read(&code).expect("reads");
        let names: Vec<&str> = info.entry_points.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["fs_main"]);
    }

    #[test]
    fn glslang_s_processing_header_is_dropped_and_nothing_else() {
        let embedded = "// OpModuleProcessed client vulkan100\n// OpModuleProcessed entry-point main\n#line 1\n#version 450\nvoid main() {}\n";
        assert_eq!(
            compilable(embedded),
            "// OpModuleProcessed client vulkan100\n// OpModuleProcessed entry-point main\n\n#version 450\nvoid main() {}\n"
        );
        let plain = "#line 1\n#version 450\n";
        assert_eq!(compilable(plain), plain);
    }
}
