//! Breakpoints set in files, bound to the shaders a program compiled. The
//! runtime source is often not the file verbatim (a header prepended, the file
//! a section of a larger document, placeholders replaced), so files and
//! shaders are matched by content with a line-level diff.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use shaderdbg_glsl::source_map::SourceMap;

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

/// Files' texts and their maps to shaders, computed once each.
#[derive(Default)]
pub struct Binder {
    files: HashMap<PathBuf, Option<String>>,
    maps: HashMap<(u32, PathBuf), Option<SourceMap>>,
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

    /// The map between `shader`'s runtime source and `file`, if the shader was
    /// built from that file.
    pub fn map(&mut self, shader: u32, runtime: &str, file: &Path) -> Option<&SourceMap> {
        let key = (shader, file.to_path_buf());
        if !self.maps.contains_key(&key) {
            let map = self
                .text(file)
                .map(|t| SourceMap::new(runtime, t))
                .filter(SourceMap::is_match);
            self.maps.insert(key.clone(), map);
        }
        self.maps.get(&key).and_then(Option::as_ref)
    }

    /// The file a shader came from, among the files that have breakpoints.
    pub fn file_of(
        &mut self,
        shader: u32,
        runtime: &str,
        candidates: &[PathBuf],
    ) -> Option<PathBuf> {
        candidates
            .iter()
            .find(|f| self.map(shader, runtime, f).is_some())
            .cloned()
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
}
