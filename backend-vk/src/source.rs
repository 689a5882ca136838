//! The source a module is debugged in: the GLSL embedded by the compiler
//! (`glslangValidator -g`, shaderc with debug info), or else GLSL
//! decompiled from the SPIR-V, shown to the user as a source of its own.
//!
//! Decompiling: SPIRV-Cross first (Debian's `spirv-cross`, run as a child
//! process), then naga. SPIRV-Cross writes Vulkan GLSL that keeps the
//! module's interface (sets, bindings, push constants, locations), which
//! is what instrumenting and compiling back needs, and it reads modules
//! naga's SPIR-V front end rejects (vkcube's fragment shader: combined
//! image samplers); naga's GLSL back end writes OpenGL GLSL, so it is the
//! fallback where SPIRV-Cross is not installed.

use shaderdbg_core::Stage;
use shaderdbg_glsl::parse::{IncludeError, IncludeResolver, SourceText};
use shaderdbg_protocol::SourcePart;

use crate::error::Error;
use crate::spirv::{self, EmbeddedSource, Language, ModuleInfo};

/// Where the text of a [`RuntimeSource`] came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The compiler embedded it (`file` as the compiler recorded it).
    Embedded { file: Option<String> },
    /// Decompiled (the module carried no source), by this tool.
    Decompiled(Decompiler),
    /// The module carried no source; naga writes it from this file of the
    /// user's (`crate::wgsl::matching_file`).
    Matched { file: String },
    /// The compiler embedded a source the debugger cannot instrument (in
    /// a language it does not know: HLSL, Slang, ...; `#include`ing a file
    /// the debug information lacks): announced all the same, so that the
    /// user's file binds and its breakpoints say `why` they are not set.
    Foreign { file: Option<String>, why: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decompiler {
    SpirvCross,
    Naga,
}

/// A module's source as the session binds breakpoints to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeSource {
    pub stage: Stage,
    pub entry_point: String,
    pub text: String,
    pub origin: Origin,
    /// GLSL (embedded or decompiled), or WGSL (embedded by naga).
    pub language: shaderdbg_core::Language,
    /// The files `text` was put together from, where the main file
    /// `#include`s others (empty: `text` is one file's).
    pub parts: Vec<SourcePart>,
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Spirv(#[from] spirv::SpirvError),
    #[error("the module has no entry point of a stage the debugger knows")]
    NoEntryPoint,
    #[error("the module's source is {}, not GLSL or WGSL", language_name(*.0))]
    NotGlsl(Language),
    #[error("SPIRV-Cross: {0}; {1}")]
    Decompile(Box<crate::error::Error>, Box<SourceError>),
    #[error("naga cannot read the SPIR-V: {0}")]
    NagaParse(String),
    #[error("naga rejects the module: {0}")]
    NagaValidate(String),
    #[error("naga cannot write GLSL for it: {0}")]
    NagaGlsl(String),
}

/// The source of each entry point of a module (of a stage the debugger
/// knows; naga writes all of a WGSL module's entry points into one SPIR-V
/// module), or why there is none to debug in.
pub fn of_module(bytes: &[u8]) -> Result<Vec<RuntimeSource>, SourceError> {
    use shaderdbg_core::Language as Lang;
    let words = spirv::words_of(bytes);
    let ModuleInfo {
        entry_points,
        source,
        source_language,
    } = spirv::read(&words)?;
    let es = source_language == Some(Language::ESSL);
    let known: Vec<(Stage, String)> = entry_points
        .into_iter()
        .filter_map(|e| Some((e.stage?, e.name)))
        .collect();
    if known.is_empty() {
        return Err(SourceError::NoEntryPoint);
    }
    let each = |text: &str, origin: Origin, language, parts: Vec<SourcePart>| {
        known
            .iter()
            .map(|(stage, entry_point)| RuntimeSource {
                stage: *stage,
                entry_point: entry_point.clone(),
                text: text.to_string(),
                origin: origin.clone(),
                language,
                parts: parts.clone(),
            })
            .collect()
    };
    match source {
        Some(EmbeddedSource {
            language: Language::GLSL | Language::ESSL,
            file,
            text,
            includes,
            ..
        }) => Ok(match put_together(&text, file.as_deref(), &includes) {
            Ok((text, parts)) => each(&text, Origin::Embedded { file }, Lang::Glsl, parts),
            Err(why) => {
                let why = why.to_string();
                each(&text, Origin::Foreign { file, why }, Lang::Glsl, Vec::new())
            }
        }),
        Some(EmbeddedSource {
            language: Language::WGSL,
            file,
            text,
            ..
        }) => Ok(each(
            &text,
            Origin::Embedded { file },
            Lang::Wgsl,
            Vec::new(),
        )),
        Some(EmbeddedSource {
            language,
            file,
            text,
            ..
        }) => {
            let why = format!(
                "{}: the debugger instruments GLSL and WGSL only, so this shader runs as the \
                 program made it",
                SourceError::NotGlsl(language)
            );
            Ok(each(
                &text,
                Origin::Foreign { file, why },
                Lang::Glsl,
                Vec::new(),
            ))
        }
        None => known
            .iter()
            .map(|(stage, entry_point)| {
                let (text, by) = match spirv_cross(bytes, *stage, entry_point, es) {
                    Ok(text) => (text, Decompiler::SpirvCross),
                    Err(why) => match naga(bytes, *stage, entry_point) {
                        Ok(text) => (text, Decompiler::Naga),
                        Err(e) => return Err(SourceError::Decompile(Box::new(why), Box::new(e))),
                    },
                };
                Ok(RuntimeSource {
                    stage: *stage,
                    entry_point: entry_point.clone(),
                    text,
                    origin: Origin::Decompiled(by),
                    language: Lang::Glsl,
                    parts: Vec::new(),
                })
            })
            .collect(),
    }
}

/// The GLSL of a module whose main file (`text`, recorded as `file`)
/// `#include`s others: each `#include` replaced by the file the debug
/// information recorded for it, as the compiler did, and the parts the
/// result is made of. Unchanged, without parts, where it includes nothing;
/// the error says which `#include` has no recorded file.
fn put_together(
    text: &str,
    file: Option<&str>,
    includes: &[(String, String)],
) -> Result<(String, Vec<SourcePart>), Error> {
    let recorded = Recorded {
        main: file.unwrap_or(""),
        includes,
    };
    let st = SourceText::new(&[text], Some(&recorded)).map_err(|d| Error::Include(Box::new(d)))?;
    let origins: Vec<_> = st.origins().collect();
    if origins.len() == 1 {
        return Ok((text.to_string(), Vec::new()));
    }
    let mut parts: Vec<SourcePart> = Vec::new();
    for piece in st.pieces() {
        let Some((_, origin_text)) = origins.iter().find(|(o, _)| *o == piece.origin) else {
            continue;
        };
        let name = match piece.origin {
            shaderdbg_glsl::parse::Origin::Include(name) => name.as_str(),
            shaderdbg_glsl::parse::Origin::String(_) => recorded.main,
        };
        let chunk = &st.text[piece.text_start..piece.text_start + piece.len];
        let run = [
            st.line_of(piece.text_start),
            origin_text[..piece.origin_start].matches('\n').count() as u32 + 1,
            (chunk.matches('\n').count() + usize::from(!chunk.ends_with('\n'))) as u32,
        ];
        match parts.iter_mut().find(|p| p.name == name) {
            Some(part) => part.lines.push(run),
            None => parts.push(SourcePart {
                name: name.to_string(),
                text: origin_text.to_string(),
                lines: vec![run],
            }),
        }
    }
    Ok((st.text, parts))
}

/// `#include`s resolved to the files a module's debug information records
/// (glslang records an included file as the includer's directory joined
/// with the path the `#include` gives).
struct Recorded<'a> {
    main: &'a str,
    includes: &'a [(String, String)],
}

impl IncludeResolver for Recorded<'_> {
    fn resolve(
        &self,
        path: &str,
        includer: Option<&str>,
    ) -> Result<(String, String), IncludeError> {
        let includer = includer.unwrap_or(self.main);
        let joined = match includer.rsplit_once('/') {
            Some((dir, _)) if !path.starts_with('/') => format!("{dir}/{path}"),
            _ => path.to_string(),
        };
        let wanted = components(&joined);
        let exact = self.includes.iter().find(|(n, _)| components(n) == wanted);
        // Else (an include path of the compiler's own): the one recorded
        // file whose path ends with the one given.
        let tail = components(path);
        let ending: Vec<_> = self
            .includes
            .iter()
            .filter(|(n, _)| components(n).ends_with(&tail))
            .collect();
        match (exact, ending.as_slice()) {
            (Some((n, t)), _) | (None, [(n, t)]) => Ok((n.clone(), t.clone())),
            _ => {
                let names: Vec<&str> = self.includes.iter().map(|(n, _)| n.as_str()).collect();
                Err(format!(
                    "the SPIR-V's debug information records no such file (it records {names:?})"
                )
                .into())
            }
        }
    }
}

/// A path's components, `.` and `..` resolved lexically.
fn components(path: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    if path.starts_with('/') {
        out.push("");
    }
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." if out.last().is_some_and(|l| !l.is_empty() && *l != "..") => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// A source language as people write it.
fn language_name(language: Language) -> String {
    match language {
        Language::HLSL => "HLSL".into(),
        Language::Slang => "Slang".into(),
        Language::OpenCL_C => "OpenCL C".into(),
        Language::OpenCL_CPP => "OpenCL C++".into(),
        Language::CPP_for_OpenCL => "C++ for OpenCL".into(),
        Language::SYCL => "SYCL".into(),
        Language::HERO_C => "HERO-C".into(),
        Language::NZSL => "NZSL".into(),
        Language::Unknown => "in an unknown language (OpSource Unknown)".into(),
        other => format!("{other:?}"),
    }
}

/// Vulkan GLSL for one entry point, written by `spirv-cross`; the error
/// says why not in words. `es`: the module was compiled from GLSL ES.
fn spirv_cross(bytes: &[u8], stage: Stage, entry_point: &str, es: bool) -> Result<String, Error> {
    let mut cmd = std::process::Command::new("spirv-cross");
    // GLSL 4.60 whatever the module's source version: below 4.10,
    // SPIRV-Cross leaves out `location` qualifiers, and the GLSL would not
    // compile back to SPIR-V (vkcube's modules say 4.00). From a GLSL ES
    // module it would write `#version 460 es`, which does not exist: ES
    // 3.20 there, which keeps the precision qualifiers, and so the
    // module's relaxed precision, through the compile back.
    let (version, profile) = if es {
        ("320", "--es")
    } else {
        ("460", "--no-es")
    };
    cmd.args([
        "-",
        "--vulkan-semantics",
        "--version",
        version,
        profile,
        "--entry",
        entry_point,
        "--stage",
    ])
    .arg(stage.short_name());
    let out = crate::child::run_piped(&mut cmd, bytes.to_vec())?;
    if !out.status.success() {
        return Err(Error::SpirvCross(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    String::from_utf8(out.stdout).map_err(|_| Error::SpirvCrossUtf8)
}

/// GLSL for one entry point of the module, written by naga.
fn naga(bytes: &[u8], stage: Stage, entry_point: &str) -> Result<String, SourceError> {
    use naga::back::glsl;
    let module = naga::front::spv::parse_u8_slice(bytes, &Default::default())
        .map_err(|e| SourceError::NagaParse(e.to_string()))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| SourceError::NagaValidate(e.into_inner().to_string()))?;
    let shader_stage = match stage {
        Stage::Vertex => naga::ShaderStage::Vertex,
        Stage::Fragment => naga::ShaderStage::Fragment,
        Stage::Compute => naga::ShaderStage::Compute,
        other => {
            return Err(SourceError::NagaGlsl(format!(
                "naga does not decompile {other:?} shaders"
            )))
        }
    };
    let options = glsl::Options {
        version: glsl::Version::Desktop(450),
        writer_flags: glsl::WriterFlags::empty(),
        binding_map: Default::default(),
        zero_initialize_workgroup_memory: false,
    };
    let pipeline = glsl::PipelineOptions {
        shader_stage,
        entry_point: entry_point.to_string(),
        multiview: None,
    };
    let mut text = String::new();
    let mut writer = glsl::Writer::new(
        &mut text,
        &module,
        &info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .map_err(|e| SourceError::NagaGlsl(e.to_string()))?;
    writer
        .write()
        .map_err(|e| SourceError::NagaGlsl(e.to_string()))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fragment shader compiled from HLSL with `glslangValidator -D -g`.
    fn hlsl_module() -> Vec<u32> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vk-apps/shaders");
        spirv::glslang(&["-g", "-D", "-e", "main"], "vk_hlsl.frag.hlsl", dir)
    }

    /// A module compiled from GLSL ES without debug information (as
    /// Android programs ship them) decompiles to GLSL ES 3.20, keeping its
    /// precision, and is instrumented and compiled back (SPIRV-Cross wrote
    /// `#version 460 es`, which does not exist, and nothing parsed).
    #[test]
    fn an_es_module_without_source_decompiles_to_glsl_es() {
        use shaderdbg_glsl::instrument::{self, Mode};
        let dir = std::env::temp_dir().join(format!("shaderdbg-es-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(
            dir.join("es.frag"),
            "#version 310 es\nprecision mediump float;\nlayout(location = 0) in vec2 uv;\nlayout(location = 0) out vec4 o;\nvoid main() {\n    float s = uv.x * 0.5;\n    o = vec4(s, uv.y, 0.0, 1.0);\n}\n",
        )
        .expect("written");
        let words = spirv::glslang(&[], "es.frag", dir.to_str().expect("UTF-8"));
        let _ = std::fs::remove_dir_all(&dir);
        let sources = of_module(spirv::bytes_of(&words)).expect("decompiled");
        let [source] = &sources[..] else {
            panic!("one entry point: {sources:?}")
        };
        assert_eq!(source.origin, Origin::Decompiled(Decompiler::SpirvCross));
        assert!(
            source.text.starts_with("#version 320 es\n"),
            "{}",
            source.text
        );
        assert!(source.text.contains("mediump"), "{}", source.text);
        let mut parsed = shaderdbg_glsl::parse::parse(&[&source.text], Stage::Fragment, None)
            .unwrap_or_else(|d| panic!("{}\n{}", d.message, source.text));
        parsed.api = shaderdbg_glsl::Api::Vulkan;
        let record = Mode::Record(shaderdbg_core::Invocation::fragment(1, 1));
        let inst = instrument::instrument_vulkan(&parsed, &record, 1).expect("instruments");
        crate::compile::glsl_to_spirv(&inst.glsl, Stage::Fragment, "main", "es.frag")
            .unwrap_or_else(|e| panic!("{e}\n{}", inst.glsl));
    }

    /// The reason a breakpoint in the module's source is refused.
    fn refusal(words: &[u32]) -> (Option<String>, String) {
        let sources = of_module(spirv::bytes_of(words)).expect("announced");
        assert_eq!(sources.len(), 1);
        match &sources[0].origin {
            Origin::Foreign { file, why } => (file.clone(), why.clone()),
            other => panic!("{other:?}"),
        }
    }

    fn owned(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn included_files_are_put_in_place_with_where_each_line_comes_from() {
        let main = "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"lib/a.glsl\"\nvoid main() {\n    float x = f();\n}\n";
        let includes = owned(&[
            ("src/lib/../b.glsl", "float g() { return 1.0; }\n"),
            (
                "src/lib/a.glsl",
                "#include \"../b.glsl\"\nfloat f() {\n    return g();\n}\n",
            ),
        ]);
        let (text, parts) = put_together(main, Some("src/main.frag"), &includes).expect("resolves");
        assert_eq!(
            text,
            "#version 450\n\nfloat g() { return 1.0; }\nfloat f() {\n    return g();\n}\nvoid main() {\n    float x = f();\n}\n"
        );
        let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
        // In the order their first lines come.
        assert_eq!(
            names,
            ["src/main.frag", "src/lib/../b.glsl", "src/lib/a.glsl"]
        );
        // main.frag: line 1 is runtime line 1, its lines 4-6 are 7-9 (the
        // `#extension` line, blank in the runtime source, is no one's).
        assert_eq!(parts[0].lines, [[1, 1, 1], [7, 4, 3]]);
        assert_eq!(parts[1].lines, [[3, 1, 1]]);
        assert_eq!(parts[2].lines, [[4, 2, 3]]);
        assert_eq!(parts[2].line_of_runtime(5), Some(3));
        assert_eq!(parts[0].runtime_of_line(5), Some(8));
        // Nothing included: the text as it is, one file.
        let plain = "#version 450\nvoid main() {}\n";
        assert_eq!(
            put_together(plain, None, &[]).expect("plain"),
            (plain.to_string(), Vec::new())
        );
        // An include path of the compiler's own (`-I`): the file recorded
        // under it.
        let (_, parts) = put_together(
            "#version 450\n#include \"b.glsl\"\n",
            Some("main.frag"),
            &owned(&[("/usr/include/shaders/b.glsl", "float g();\n")]),
        )
        .expect("by its tail");
        assert_eq!(parts[1].name, "/usr/include/shaders/b.glsl");
        let why = put_together(main, Some("src/main.frag"), &[])
            .expect_err("not recorded")
            .to_string();
        assert!(
            why.contains(
                "#include \"lib/a.glsl\": the SPIR-V's debug information records no such file"
            ),
            "{why}"
        );
    }

    #[test]
    fn sources_in_other_languages_are_announced_with_why_they_cannot_be_debugged() {
        let mut words = hlsl_module();
        let (file, why) = refusal(&words);
        assert!(file.is_some_and(|f| f.ends_with("vk_hlsl.frag.hlsl")));
        assert_eq!(
            why,
            "the module's source is HLSL, not GLSL or WGSL: the debugger instruments GLSL and \
             WGSL only, so this shader runs as the program made it"
        );
        // The same module saying its source is Slang (`OpSource`'s first
        // operand is the language).
        let mut at = 5;
        while words[at] & 0xffff != ::spirv::Op::Source as u32 {
            at += (words[at] >> 16) as usize;
        }
        words[at + 1] = Language::Slang as u32;
        let (_, why) = refusal(&words);
        assert!(
            why.starts_with("the module's source is Slang, not"),
            "{why}"
        );
    }
}
