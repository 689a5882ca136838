//! What a SPIR-V module says about its source: the `OpSource` text (with
//! its `OpSourceContinued` pieces and the file named by `OpString`) or, in
//! modules with `NonSemantic.Shader.DebugInfo.100` (`glslangValidator -gVS`,
//! shaderc's debug info), the compilation unit's `DebugSource` text (with
//! its `DebugSourceContinued` pieces), and the stages of its entry points.
//! The instruction stream is walked here (a few instructions matter; a full
//! SPIR-V loader in every debugged process would be much more); opcodes and
//! operand enums are the `spirv` crate's.

use shaderdbg_core::Stage;
use spirv::{ExecutionModel, Op};

pub use spirv::SourceLanguage as Language;

const HEADER_WORDS: usize = 5;

/// The extended instruction set whose `DebugSource` carries the source.
const DEBUG_INFO_SET: &str = "NonSemantic.Shader.DebugInfo.100";
/// Its instruction numbers (NonSemantic.Shader.DebugInfo.100, section 4).
const DEBUG_COMPILATION_UNIT: u32 = 1;
const DEBUG_SOURCE: u32 = 35;
const DEBUG_SOURCE_CONTINUED: u32 = 102;

/// The source text embedded in a module, as the compiler recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedSource {
    pub language: Language,
    pub version: u32,
    /// The file name (`OpString` named by `OpSource`), if recorded.
    pub file: Option<String>,
    pub text: String,
    /// The files it `#include`s (directly or not), as recorded: name and
    /// text (glslang writes one more `OpSource`, or `DebugSource`, each).
    pub includes: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    pub stage: Option<Stage>,
    pub name: String,
}

/// What the module says about itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleInfo {
    pub entry_points: Vec<EntryPoint>,
    /// `None` when the module carries no source text (compiled without
    /// debug information).
    pub source: Option<EmbeddedSource>,
    /// The language its first `OpSource` names, text or not (glslang
    /// writes one without debug information too: ESSL for an ES shader).
    pub source_language: Option<Language>,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpirvError {
    #[error("not SPIR-V: {0} bytes, magic {1:#010x}")]
    NotSpirv(usize, u32),
    #[error("instruction at word {0} runs past the end of the module")]
    Truncated(usize),
}

/// Reads the words of a module (`pCode` of `VkShaderModuleCreateInfo`).
/// What storage a module declares that its shader could write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WritableStorage {
    /// Storage buffers (the `StorageBuffer` storage class, or `Uniform`
    /// blocks decorated `BufferBlock`).
    pub buffers: bool,
    /// Storage images (images used without a sampler).
    pub images: bool,
}

/// The storage a module declares that its shader could write.
/// Conservative: a declaration counts even if it is only read; a module
/// that cannot be read counts as declaring everything.
pub fn writable_storage(words: &[u32]) -> WritableStorage {
    let mut found = WritableStorage::default();
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return WritableStorage {
                buffers: true,
                images: true,
            };
        }
        let operands = &words[at + 1..at + count];
        match Op::from_u32(words[at] & 0xffff) {
            Some(Op::TypePointer)
                if operands.get(1) == Some(&(spirv::StorageClass::StorageBuffer as u32)) =>
            {
                found.buffers = true
            }
            Some(Op::Decorate)
                if operands.get(1) == Some(&(spirv::Decoration::BufferBlock as u32)) =>
            {
                found.buffers = true
            }
            // `Sampled` 2: used without a sampler, i.e. a storage image.
            Some(Op::TypeImage) if operands.get(6) == Some(&2) => found.images = true,
            _ => {}
        }
        at += count;
    }
    found
}

/// Whether a module declares any storage its shader could write.
pub fn declares_writable_storage(words: &[u32]) -> bool {
    let w = writable_storage(words);
    w.buffers || w.images
}

/// The descriptor set and binding of each resource variable (with its
/// `OpName`, if the module has names), in the order of their `OpVariable`s.
pub fn resource_bindings(words: &[u32]) -> Vec<(Option<String>, u32, u32)> {
    let mut names = std::collections::HashMap::new();
    let mut sets = std::collections::HashMap::new();
    let mut bindings = std::collections::HashMap::new();
    let mut variables = Vec::new();
    for (_, op, operands) in instructions(words) {
        match (op, operands) {
            (Some(Op::Name), [id, name @ ..]) => {
                names.insert(*id, string(name));
            }
            (Some(Op::Decorate), [id, d, n, ..])
                if *d == spirv::Decoration::DescriptorSet as u32 =>
            {
                sets.insert(*id, *n);
            }
            (Some(Op::Decorate), [id, d, n, ..]) if *d == spirv::Decoration::Binding as u32 => {
                bindings.insert(*id, *n);
            }
            (Some(Op::Variable), [_, id, ..]) => variables.push(*id),
            _ => {}
        }
    }
    variables
        .into_iter()
        .filter_map(|id| {
            Some((
                names.get(&id).cloned(),
                *sets.get(&id)?,
                *bindings.get(&id)?,
            ))
        })
        .collect()
}

/// `words` with every resource of descriptor set `set` at `binding` (the
/// layer's debug set has one resource per module: its debug buffer, which
/// the instrumenters declare at binding 0; a fragment stage's is moved to
/// its own binding so that the vertex and fragment stages of one draw write
/// different regions). Whether anything changed.
pub fn rebind(words: &mut [u32], set: u32, binding: u32) -> bool {
    let decorations = decorations(words);
    let of = |which: spirv::Decoration| {
        let which = which as u32;
        decorations.iter().filter(move |(_, _, d)| *d == which)
    };
    let in_set: std::collections::HashSet<u32> = of(spirv::Decoration::DescriptorSet)
        .filter(|(at, _, _)| words[*at] == set)
        .map(|(_, id, _)| *id)
        .collect();
    let mut changed = false;
    for (at, id, _) in of(spirv::Decoration::Binding) {
        if in_set.contains(id) && words[*at] != binding {
            words[*at] = binding;
            changed = true;
        }
    }
    changed
}

/// The module's `OpDecorate`s with a literal: where the (first) literal
/// word is, the target id and the decoration.
fn decorations(words: &[u32]) -> Vec<(usize, u32, u32)> {
    instructions(words)
        .filter_map(|(at, op, operands)| match (op, operands) {
            (Some(Op::Decorate), [id, d, _, ..]) => Some((at + 3, *id, *d)),
            _ => None,
        })
        .collect()
}

/// The module's instructions after its header, up to the first that is
/// malformed: where each starts, its opcode and its operands.
fn instructions(words: &[u32]) -> impl Iterator<Item = (usize, Option<Op>, &[u32])> {
    let mut at = HEADER_WORDS;
    std::iter::from_fn(move || {
        let count = (*words.get(at)? >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return None;
        }
        let start = at;
        at += count;
        let op = Op::from_u32(words[start] & 0xffff);
        Some((start, op, &words[start + 1..start + count]))
    })
}

pub fn read(words: &[u32]) -> Result<ModuleInfo, SpirvError> {
    let magic = words.first().copied().unwrap_or(0);
    if words.len() < HEADER_WORDS || magic != spirv::MAGIC_NUMBER {
        return Err(SpirvError::NotSpirv(words.len() * 4, magic));
    }
    let mut info = ModuleInfo::default();
    let mut strings: Vec<(u32, String)> = Vec::new();
    // Every `OpSource`: the main file's first, then included files'.
    let mut sources: Vec<Recorded> = Vec::new();
    let mut debug_info = DebugInfo::default();
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = Op::from_u32(words[at] & 0xffff);
        if count == 0 || at + count > words.len() {
            return Err(SpirvError::Truncated(at));
        }
        let operands = &words[at + 1..at + count];
        match opcode {
            Some(Op::String) if !operands.is_empty() => {
                strings.push((operands[0], string(&operands[1..])));
            }
            Some(Op::Source) if operands.len() >= 2 => {
                let file = operands.get(2).copied();
                let text = operands.get(3..).map(string).unwrap_or_default();
                let language = Language::from_u32(operands[0]).unwrap_or(Language::Unknown);
                sources.push((language, operands[1], file, text));
            }
            Some(Op::SourceContinued) => {
                if let Some((.., text)) = sources.last_mut() {
                    text.push_str(&string(operands));
                }
            }
            Some(Op::ExtInstImport)
                if operands.len() >= 2 && string(&operands[1..]) == DEBUG_INFO_SET =>
            {
                debug_info.set = Some(operands[0]);
            }
            Some(Op::Constant) if operands.len() >= 3 => {
                debug_info.constants.push((operands[1], operands[2]));
            }
            Some(Op::ExtInst) if operands.len() >= 4 && Some(operands[2]) == debug_info.set => {
                debug_info.instruction(operands[1], operands[3], &operands[4..]);
            }
            Some(Op::EntryPoint) if operands.len() >= 3 => info.entry_points.push(EntryPoint {
                stage: ExecutionModel::from_u32(operands[0]).and_then(stage),
                name: string(&operands[2..]),
            }),
            _ => {}
        }
        at += count;
    }
    let find_string = |id: u32| {
        strings
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, s)| s.clone())
    };
    // Without `OpSource` text: the compilation unit's `DebugSource`.
    let main_has_text = sources.first().is_some_and(|(.., text)| !text.is_empty());
    if !main_has_text {
        if let Some(from_debug_info) = debug_info.sources(&find_string) {
            sources = from_debug_info;
        }
    }
    info.source_language = sources.first().map(|(language, ..)| *language);
    let mut sources = sources.into_iter();
    info.source = sources.next().filter(|(.., text)| !text.is_empty()).map(
        |(language, version, file, text)| EmbeddedSource {
            language,
            version,
            file: file.and_then(find_string),
            text,
            includes: sources
                .filter_map(|(.., file, text)| Some((find_string(file?)?, text)))
                .filter(|(_, text)| !text.is_empty())
                .collect(),
        },
    );
    Ok(info)
}

/// A source as the module records it: language, version, the id of its
/// file's `OpString`, text.
type Recorded = (Language, u32, Option<u32>, String);

/// What `NonSemantic.Shader.DebugInfo.100` instructions said, as the walk
/// meets them (every operand is an id).
#[derive(Default)]
struct DebugInfo {
    /// The id of the imported set.
    set: Option<u32>,
    /// `OpConstant` result id -> its first value word.
    constants: Vec<(u32, u32)>,
    /// `DebugSource` result id -> (file string id, text string ids).
    sources: Vec<(u32, u32, Vec<u32>)>,
    /// `DebugCompilationUnit`: (its `DebugSource` id, language constant id).
    unit: Option<(u32, u32)>,
    /// The `DebugSource` that `DebugSourceContinued` pieces extend.
    last_source: Option<usize>,
}

impl DebugInfo {
    fn instruction(&mut self, result: u32, number: u32, args: &[u32]) {
        match (number, args) {
            (DEBUG_SOURCE, [file, rest @ ..]) => {
                self.sources
                    .push((result, *file, rest.iter().take(1).copied().collect()));
                self.last_source = Some(self.sources.len() - 1);
            }
            (DEBUG_SOURCE_CONTINUED, [text, ..]) => {
                if let Some(i) = self.last_source {
                    self.sources[i].2.push(*text);
                }
            }
            (DEBUG_COMPILATION_UNIT, [_version, _dwarf, source, language, ..]) => {
                self.unit.get_or_insert((*source, *language));
            }
            _ => self.last_source = None,
        }
    }

    /// The compilation unit's source (else the first one with text)
    /// first, then every other source with text (included files).
    fn sources(&self, string: &impl Fn(u32) -> Option<String>) -> Option<Vec<Recorded>> {
        let text_of = |ids: &[u32]| ids.iter().filter_map(|id| string(*id)).collect::<String>();
        let (unit_source, language) = match self.unit {
            Some((source, language)) => (Some(source), self.constant(language)),
            None => (None, None),
        };
        let main = self
            .sources
            .iter()
            .position(|(id, ..)| Some(*id) == unit_source)
            .or_else(|| self.sources.iter().position(|(.., t)| !t.is_empty()))?;
        let language = language
            .and_then(Language::from_u32)
            .unwrap_or(Language::Unknown);
        let of =
            |(_, file, texts): &(u32, u32, Vec<u32>)| (language, 0, Some(*file), text_of(texts));
        let others = (0..self.sources.len()).filter(|&i| i != main);
        Some(
            std::iter::once(main)
                .chain(others)
                .map(|i| of(&self.sources[i]))
                .collect(),
        )
    }

    fn constant(&self, id: u32) -> Option<u32> {
        self.constants
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, v)| *v)
    }
}

/// The stage of an execution model, where the debugger knows it.
fn stage(model: ExecutionModel) -> Option<Stage> {
    Some(match model {
        ExecutionModel::Vertex => Stage::Vertex,
        ExecutionModel::TessellationControl => Stage::TessControl,
        ExecutionModel::TessellationEvaluation => Stage::TessEvaluation,
        ExecutionModel::Geometry => Stage::Geometry,
        ExecutionModel::Fragment => Stage::Fragment,
        ExecutionModel::GLCompute => Stage::Compute,
        _ => return None,
    })
}

/// A literal string: UTF-8 bytes, little-endian within words, NUL-terminated.
fn string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The bytes of `pCode` as words (SPIR-V is word-aligned by definition; a
/// trailing partial word is not SPIR-V and is dropped).
pub fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// SPIR-V words as the bytes `pCode` holds (native order, as the module
/// was given).
pub fn bytes_of(words: &[u32]) -> &[u8] {
    // SAFETY: any u32 is four valid bytes; the slice covers the same memory.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 4) }
}

/// The module `glslangValidator -V ARGS FILE` writes, run in `dir` (tests).
#[cfg(test)]
pub(crate) fn glslang(args: &[&str], file: &str, dir: &str) -> Vec<u32> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let out = std::env::temp_dir().join(format!(
        "shaderdbg-glslang-{}-{}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let status = std::process::Command::new("glslangValidator")
        .args(["-V", "--quiet"])
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg(file)
        .current_dir(dir)
        .status()
        .expect("glslangValidator (cargo xtask setup installs it)");
    assert!(status.success(), "glslangValidator {args:?} {file}");
    let bytes = std::fs::read(&out).expect("the module");
    let _ = std::fs::remove_file(&out);
    words_of(&bytes)
}

#[cfg(test)]
mod tests {

    #[test]
    fn storage_a_shader_could_write_is_found_and_uniforms_are_not() {
        let compile = |src: &str, stage| {
            crate::compile::glsl_to_spirv(src, stage, "main", "t").expect("compiles")
        };
        let ssbo = compile(
            "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = 1u; }\n",
            Stage::Compute,
        );
        assert!(declares_writable_storage(&ssbo));
        let image = compile(
            "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0, r32f) uniform image2D img;\nvoid main() { imageStore(img, ivec2(0), vec4(1.0)); }\n",
            Stage::Compute,
        );
        assert!(declares_writable_storage(&image));
        let ubo = compile(
            "#version 450\nlayout(set = 0, binding = 0) uniform U { vec4 c; };\nlayout(location = 0) out vec4 o;\nvoid main() { o = c; }\n",
            Stage::Fragment,
        );
        assert!(!declares_writable_storage(&ubo));
    }
    #[test]
    fn rebind_moves_only_the_resources_of_the_set() {
        let src = "#version 450\nlayout(set = 0, binding = 3) uniform U { vec4 c; };\nlayout(std430, set = 1, binding = 0) buffer D { uint d[]; };\nlayout(location = 0) out vec4 o;\nvoid main() { d[0] = 1u; o = c; }\n";
        let mut words =
            crate::compile::glsl_to_spirv(src, Stage::Fragment, "main", "t").expect("compiles");
        assert!(rebind(&mut words, 1, 1));
        let mut b: Vec<(u32, u32)> = resource_bindings(&words)
            .into_iter()
            .map(|(_, set, binding)| (set, binding))
            .collect();
        b.sort_unstable();
        assert_eq!(b, [(0, 3), (1, 1)]);
        assert!(!rebind(&mut words, 1, 1), "already there");
        assert!(!rebind(&mut words, 2, 1), "no resource in set 2");
    }
    use super::*;

    /// Packs a string operand as SPIR-V does.
    fn lit(s: &str) -> Vec<u32> {
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        while !bytes.len().is_multiple_of(4) {
            bytes.push(0);
        }
        words_of(&bytes)
    }

    fn inst(opcode: Op, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![(((operands.len() + 1) as u32) << 16) | opcode as u32];
        v.extend_from_slice(operands);
        v
    }

    #[test]
    fn source_text_file_and_stage_are_recovered() {
        let mut m = vec![spirv::MAGIC_NUMBER, 0x0001_0000, 0, 100, 0];
        m.extend(inst(
            Op::EntryPoint,
            &[[4, 1].as_slice(), &lit("main")].concat(),
        ));
        m.extend(inst(
            Op::String,
            &[[7].as_slice(), &lit("shader.frag")].concat(),
        ));
        let first = "#version 450\nvoid main() {\n";
        m.extend(inst(
            Op::Source,
            &[[2, 450, 7].as_slice(), &lit(first)].concat(),
        ));
        m.extend(inst(Op::SourceContinued, &lit("}\n")));
        let info = read(&m).expect("reads");
        assert_eq!(
            info.entry_points,
            vec![EntryPoint {
                stage: Some(Stage::Fragment),
                name: "main".into()
            }]
        );
        let src = info.source.expect("source");
        assert_eq!(src.language, Language::GLSL);
        assert_eq!(src.version, 450);
        assert_eq!(src.file.as_deref(), Some("shader.frag"));
        assert_eq!(src.text, "#version 450\nvoid main() {\n}\n");
    }

    /// `OpExtInst` of the debug-info set (id 2) with result `id`.
    fn debug(id: u32, number: u32, args: &[u32]) -> Vec<u32> {
        inst(Op::ExtInst, &[[1, id, 2, number].as_slice(), args].concat())
    }

    #[test]
    fn debug_info_source_is_recovered_with_its_continuations() {
        let mut m = vec![spirv::MAGIC_NUMBER, 0x0001_0000, 0, 100, 0];
        m.extend(inst(
            Op::ExtInstImport,
            &[[2].as_slice(), &lit(DEBUG_INFO_SET)].concat(),
        ));
        m.extend(inst(
            Op::EntryPoint,
            &[[0, 1].as_slice(), &lit("main")].concat(),
        ));
        let strings = [
            (10, "inc.glsl"),
            (11, "float twice(float x) { return 2.0 * x; }\n"),
            (12, "shader.vert"),
            (13, "#version 450\n#include \"inc.glsl\"\n"),
            (14, "void main() {}\n"),
        ];
        for (id, text) in strings {
            m.extend(inst(Op::String, &[[id].as_slice(), &lit(text)].concat()));
        }
        // uint 2 (GLSL, the language of the compilation unit).
        m.extend(inst(Op::Constant, &[3, 20, 2]));
        // An included file first, then the unit's own file in two pieces.
        m.extend(debug(30, DEBUG_SOURCE, &[10, 11]));
        m.extend(debug(31, DEBUG_SOURCE, &[12, 13]));
        m.extend(debug(32, DEBUG_SOURCE_CONTINUED, &[14]));
        m.extend(debug(33, DEBUG_COMPILATION_UNIT, &[20, 20, 31, 20]));
        let info = read(&m).expect("reads");
        let src = info.source.expect("source");
        assert_eq!(src.language, Language::GLSL);
        assert_eq!(src.file.as_deref(), Some("shader.vert"));
        assert_eq!(
            src.text,
            "#version 450\n#include \"inc.glsl\"\nvoid main() {}\n"
        );
        assert_eq!(
            src.includes,
            [(
                "inc.glsl".to_string(),
                "float twice(float x) { return 2.0 * x; }\n".to_string()
            )]
        );
        assert_eq!(info.entry_points[0].stage, Some(Stage::Vertex));
    }

    /// `glslangValidator -g` writes one `OpSource` per file, the main
    /// file's first: the main file is the source, the others its includes
    /// (the last `OpSource` used to win, an included file's).
    #[test]
    fn glslang_records_included_files_after_the_main_one() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vk-apps/shaders");
        for flag in ["-g", "-gVS"] {
            let src = read(&glslang(&[flag], "vk_include.frag", dir))
                .expect("reads")
                .source
                .expect("source");
            let file = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).expect("file");
            assert_eq!(src.file.as_deref(), Some("vk_include.frag"), "{flag}");
            assert!(src.text.ends_with(&file("vk_include.frag")), "{flag}");
            assert_eq!(
                src.includes,
                [(
                    "./include/vk_rings.glsl".to_string(),
                    file("include/vk_rings.glsl")
                )],
                "{flag}"
            );
        }
    }

    #[test]
    fn glslang_nonsemantic_debug_info_carries_the_file() {
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/vk-apps/shaders/vk_triangle.frag"
        );
        let src = read(&glslang(&["-gVS"], file, "."))
            .expect("reads")
            .source
            .expect("source");
        let text = std::fs::read_to_string(file).expect("the file");
        assert_eq!(src.language, Language::GLSL);
        assert_eq!(src.file.as_deref(), Some(file));
        // glslang puts `// OpModuleProcessed` lines and a `#line` first.
        assert!(src.text.ends_with(&text), "{}", src.text);
    }

    #[test]
    fn bad_modules_are_errors_not_panics() {
        assert_eq!(read(&[]), Err(SpirvError::NotSpirv(0, 0)));
        assert_eq!(read(&[1, 2, 3, 4, 5]), Err(SpirvError::NotSpirv(20, 1)));
        let mut m = vec![spirv::MAGIC_NUMBER, 0x0001_0000, 0, 100, 0];
        m.push((9 << 16) | Op::Source as u32);
        assert_eq!(read(&m), Err(SpirvError::Truncated(5)));
        m[5] = Op::Source as u32; // word count 0
        assert_eq!(read(&m), Err(SpirvError::Truncated(5)));
        let no_source = [spirv::MAGIC_NUMBER, 0x0001_0000, 0, 100, 0];
        assert_eq!(read(&no_source), Ok(ModuleInfo::default()));
    }
}
