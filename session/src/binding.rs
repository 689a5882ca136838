//! Breakpoints set in files, bound to the shaders a program compiled. The
//! runtime source is often not the file verbatim (a header prepended, the file
//! a section of a larger document, placeholders replaced), so files and
//! shaders are matched by content with a line-level diff.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use shaderdbg_glsl::source_map::{BoundLine, SourceMap};
use shaderdbg_protocol::SourcePart;

use crate::breakpoints::HitCondition;

/// A breakpoint as the user set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileBreakpoint {
    pub file: PathBuf,
    pub line: u32,
    /// An expression in the shader's language; the breakpoint is reached
    /// only by invocations for which it holds (decided on the GPU).
    pub condition: Option<String>,
    /// Stop only when the count of invocations that reached it satisfies this.
    pub hit_condition: Option<HitCondition>,
    /// A logpoint: print this message (`{expression}`s evaluated), never stop.
    pub log_message: Option<String>,
}

impl FileBreakpoint {
    pub fn new(file: PathBuf, line: u32, condition: Option<String>) -> FileBreakpoint {
        FileBreakpoint {
            file,
            line,
            condition,
            hit_condition: None,
            log_message: None,
        }
    }
}

/// Where a file breakpoint landed in one shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// Index into the breakpoint list.
    pub index: usize,
    pub shader: u32,
    pub runtime_line: u32,
    /// The file line it binds to (moved to the nearest line that survives).
    pub file_line: u32,
}

/// A user's file aligned with a shader's runtime source: with all of it,
/// or, for a source put together from several files (`#include`), with
/// the part that one of them is.
#[derive(Clone, Debug)]
pub struct FileMap {
    map: SourceMap,
    /// The part the file is, and its index among the shader's parts.
    part: Option<(usize, Arc<SourcePart>)>,
}

impl FileMap {
    /// File line for a runtime line, if it came from the file.
    pub fn runtime_to_file(&self, runtime_line: u32) -> Option<u32> {
        let line = match &self.part {
            Some((_, part)) => part.line_of_runtime(runtime_line)?,
            None => runtime_line,
        };
        self.map.runtime_to_file(line)
    }

    /// As [`SourceMap::bind_breakpoint`], in runtime lines.
    pub fn bind_breakpoint(&self, file_line: u32) -> Option<BoundLine> {
        let bound = self.map.bind_breakpoint(file_line)?;
        match &self.part {
            Some((_, part)) => Some(BoundLine {
                runtime_line: part.runtime_of_line(bound.runtime_line)?,
                ..bound
            }),
            None => Some(bound),
        }
    }
}

/// Files' texts and their maps to shaders, computed once each.
#[derive(Default)]
pub struct Binder {
    files: HashMap<PathBuf, Option<String>>,
    maps: HashMap<(u32, PathBuf), Option<FileMap>>,
    /// The parts of shaders put together from several files.
    parts: HashMap<u32, Vec<Arc<SourcePart>>>,
}

impl Binder {
    fn text(&mut self, file: &Path) -> Option<&str> {
        self.files
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                std::fs::read(file)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            })
            .as_deref()
    }

    /// The files `shader`'s runtime source was put together from (none:
    /// it is bound as one text); forgets what was bound to it before.
    pub fn set_parts(&mut self, shader: u32, parts: Vec<SourcePart>) {
        self.maps.retain(|(s, _), _| *s != shader);
        if parts.is_empty() {
            self.parts.remove(&shader);
        } else {
            self.parts
                .insert(shader, parts.into_iter().map(Arc::new).collect());
        }
    }

    /// The map between `shader`'s runtime source (or the first of its
    /// parts that `file` is) and `file`, if the shader was built from it.
    pub fn map(&mut self, shader: u32, runtime: &str, file: &Path) -> Option<&FileMap> {
        let key = (shader, file.to_path_buf());
        if !self.maps.contains_key(&key) {
            let parts = self.parts.get(&shader).cloned();
            let map = self.text(file).and_then(|t| match parts {
                None => Some(FileMap {
                    map: SourceMap::new(runtime, t),
                    part: None,
                })
                .filter(|m| m.map.is_match()),
                Some(parts) => parts.into_iter().enumerate().find_map(|(i, part)| {
                    let map = SourceMap::new(&part.text, t);
                    map.is_match().then_some(FileMap {
                        map,
                        part: Some((i, part)),
                    })
                }),
            });
            self.maps.insert(key.clone(), map);
        }
        self.maps.get(&key).and_then(Option::as_ref)
    }

    /// The file a shader came from, among the files that have breakpoints
    /// (of a shader put together from several, the main one's if it is
    /// among them).
    pub fn file_of(
        &mut self,
        shader: u32,
        runtime: &str,
        candidates: &[PathBuf],
    ) -> Option<PathBuf> {
        self.files_of(shader, runtime, candidates)
            .into_iter()
            .next()
            .map(|(f, _)| f)
    }

    /// Every file among `candidates` that `shader` was built from, with
    /// its map, the main file first.
    pub fn files_of(
        &mut self,
        shader: u32,
        runtime: &str,
        candidates: &[PathBuf],
    ) -> Vec<(PathBuf, FileMap)> {
        let mut found: Vec<(PathBuf, FileMap)> = candidates
            .iter()
            .filter_map(|f| Some((f.clone(), self.map(shader, runtime, f)?.clone())))
            .collect();
        found.sort_by_key(|(_, m)| m.part.as_ref().map_or(0, |(i, _)| *i));
        found
    }

    /// Binds every breakpoint whose file the shader was built from.
    pub fn bind(&mut self, shader: u32, runtime: &str, bps: &[FileBreakpoint]) -> Vec<Bound> {
        let mut out = Vec::new();
        for (index, bp) in bps.iter().enumerate() {
            let Some(map) = self.map(shader, runtime, &bp.file) else {
                continue;
            };
            if let Some(b) = map.bind_breakpoint(bp.line) {
                out.push(Bound {
                    index,
                    shader,
                    runtime_line: b.runtime_line,
                    file_line: b.file_line,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binds_through_a_prepended_header() {
        let dir = std::env::temp_dir().join(format!("shaderdbg-binding-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.frag");
        let text = "uniform float k;\nvoid main() {\n    float x = k * 2.0;\n    gl_FragColor = vec4(x);\n}\n";
        std::fs::write(&file, text).unwrap();
        let runtime = format!("#version 110\n#define FOO 1\n{text}");
        let mut b = Binder::default();
        let bps = vec![FileBreakpoint::new(file.clone(), 3, None)];
        let bound = b.bind(7, &runtime, &bps);
        assert_eq!(
            bound,
            vec![Bound {
                index: 0,
                shader: 7,
                runtime_line: 5,
                file_line: 3
            }]
        );
        assert!(b.bind(8, "void main() { }\n", &bps).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A runtime source put together from a main file and an included one
    /// (`SourcePart`s): each file binds to its own part, however small, and
    /// lines map through the part's runs.
    #[test]
    fn files_bind_to_the_parts_a_source_was_put_together_from() {
        let dir = std::env::temp_dir().join(format!("shaderdbg-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let main_text = "#version 450\n#include \"f.glsl\"\nlayout(location = 0) out vec4 c;\nvoid main() {\n    float x = f();\n    c = vec4(x);\n}\n";
        let inc_text = "float f() {\n    float y = 2.0;\n    return y;\n}\n";
        let (main, inc) = (dir.join("main.frag"), dir.join("f.glsl"));
        std::fs::write(&main, main_text).unwrap();
        std::fs::write(&inc, inc_text).unwrap();
        // The include replaced by the file's four lines (runtime 2-5).
        let runtime = "#version 450\nfloat f() {\n    float y = 2.0;\n    return y;\n}\nlayout(location = 0) out vec4 c;\nvoid main() {\n    float x = f();\n    c = vec4(x);\n}\n";
        let parts = vec![
            SourcePart {
                name: "main.frag".into(),
                text: main_text.into(),
                lines: vec![[1, 1, 1], [6, 3, 5]],
            },
            SourcePart {
                name: "f.glsl".into(),
                text: inc_text.into(),
                lines: vec![[2, 1, 4]],
            },
        ];
        let mut b = Binder::default();
        b.set_parts(3, parts);
        let bps = vec![
            FileBreakpoint::new(inc.clone(), 3, None),
            FileBreakpoint::new(main.clone(), 5, None),
        ];
        let lines: Vec<(u32, u32)> = b
            .bind(3, runtime, &bps)
            .iter()
            .map(|x| (x.file_line, x.runtime_line))
            .collect();
        assert_eq!(lines, [(3, 4), (5, 8)]);
        let files = b.files_of(3, runtime, &[inc.clone(), main.clone()]);
        let names: Vec<&PathBuf> = files.iter().map(|(f, _)| f).collect();
        assert_eq!(names, [&main, &inc], "the main file first");
        assert_eq!(files[1].1.runtime_to_file(4), Some(3));
        assert_eq!(files[1].1.runtime_to_file(8), None);
        assert_eq!(files[0].1.runtime_to_file(8), Some(5));
        // The included file alone is no match for the whole text.
        assert!(Binder::default().bind(3, runtime, &bps[..1]).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
