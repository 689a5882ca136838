//! What a SPIR-V module says about its source: the `OpSource` text (with
//! its `OpSourceContinued` pieces and the file named by `OpString`), and the
//! stages of its entry points. The instruction stream is walked here (four
//! instructions matter; a full SPIR-V loader in every debugged process
//! would be much more); opcodes and operand enums are the `spirv` crate's.

use shaderdbg_core::Stage;
use spirv::{ExecutionModel, Op};

pub use spirv::SourceLanguage as Language;

const HEADER_WORDS: usize = 5;

/// The source text embedded in a module, as the compiler recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedSource {
    pub language: Language,
    pub version: u32,
    /// The file name (`OpString` named by `OpSource`), if recorded.
    pub file: Option<String>,
    pub text: String,
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
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpirvError {
    #[error("not SPIR-V: {0} bytes, magic {1:#010x}")]
    NotSpirv(usize, u32),
    #[error("instruction at word {0} runs past the end of the module")]
    Truncated(usize),
}

/// Reads the words of a module (`pCode` of `VkShaderModuleCreateInfo`).
pub fn read(words: &[u32]) -> Result<ModuleInfo, SpirvError> {
    let magic = words.first().copied().unwrap_or(0);
    if words.len() < HEADER_WORDS || magic != spirv::MAGIC_NUMBER {
        return Err(SpirvError::NotSpirv(words.len() * 4, magic));
    }
    let mut info = ModuleInfo::default();
    let mut strings: Vec<(u32, String)> = Vec::new();
    let mut source: Option<(Language, u32, Option<u32>, String)> = None;
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
                source = Some((language, operands[1], file, text));
            }
            Some(Op::SourceContinued) => {
                if let Some((.., text)) = source.as_mut() {
                    text.push_str(&string(operands));
                }
            }
            Some(Op::EntryPoint) if operands.len() >= 3 => info.entry_points.push(EntryPoint {
                stage: ExecutionModel::from_u32(operands[0]).and_then(stage),
                name: string(&operands[2..]),
            }),
            _ => {}
        }
        at += count;
    }
    info.source =
        source
            .filter(|(.., text)| !text.is_empty())
            .map(|(language, version, file, text)| EmbeddedSource {
                language,
                version,
                file: file.and_then(|id| {
                    strings
                        .iter()
                        .find(|(i, _)| *i == id)
                        .map(|(_, s)| s.clone())
                }),
                text,
            });
    Ok(info)
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

#[cfg(test)]
mod tests {
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
