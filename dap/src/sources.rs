//! Shaders without a file of their own, shown by `sourceReference`; their
//! text is written to a private directory when a breakpoint is set in one,
//! so that it binds by content like a file breakpoint.

use std::path::{Path, PathBuf};

use crate::protocol::Source;

/// Why a source has no file to bind breakpoints through.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("no source {0}")]
    NoSource(i64),
    #[error("a source needs a path or a sourceReference")]
    Unnamed,
    #[error("cannot read {path}: {source}")]
    Unreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A shader without a file of its own, shown by `sourceReference`.
pub struct SourceItem {
    shader: u32,
    name: String,
    pub text: String,
    /// The text written out, so that breakpoints set in it bind by content.
    file: Option<PathBuf>,
}

/// Shaders shown by `sourceReference` (those without a file).
#[derive(Default)]
pub struct Sources {
    /// Reference = index + 1.
    items: Vec<SourceItem>,
    dir: Option<PathBuf>,
}

impl Sources {
    /// The reference of `shader` (its text updated).
    pub fn reference(&mut self, shader: u32, name: String, text: &str) -> i64 {
        let i = match self.items.iter().position(|it| it.shader == shader) {
            Some(i) => {
                if self.items[i].text != text {
                    self.items[i].text = text.to_string();
                    self.items[i].file = None;
                }
                i
            }
            None => {
                self.items.push(SourceItem {
                    shader,
                    name,
                    text: text.to_string(),
                    file: None,
                });
                self.items.len() - 1
            }
        };
        i as i64 + 1
    }

    fn index(&self, reference: i64) -> Result<usize, SourceError> {
        usize::try_from(reference - 1)
            .ok()
            .filter(|&i| i < self.items.len())
            .ok_or(SourceError::NoSource(reference))
    }

    pub fn item(&self, reference: i64) -> Result<&SourceItem, SourceError> {
        Ok(&self.items[self.index(reference)?])
    }

    pub fn source(&self, reference: i64) -> Option<Source> {
        self.item(reference).ok().map(|it| Source {
            name: Some(it.name.clone()),
            source_reference: Some(reference),
            ..Default::default()
        })
    }

    /// Every source known.
    pub fn all(&self) -> Vec<Source> {
        (1..=self.items.len() as i64)
            .filter_map(|r| self.source(r))
            .collect()
    }

    /// The file breakpoints in a `sourceReference` source bind through.
    pub fn file(&mut self, reference: i64) -> Result<PathBuf, SourceError> {
        let i = self.index(reference)?;
        if let Some(f) = &self.items[i].file {
            return Ok(f.clone());
        }
        let dir = match &self.dir {
            Some(d) => d.clone(),
            None => {
                let d = std::env::temp_dir().join(format!("shaderdbg-dap-{}", std::process::id()));
                std::fs::create_dir_all(&d).map_err(|source| SourceError::Write {
                    path: d.clone(),
                    source,
                })?;
                self.dir = Some(d.clone());
                d
            }
        };
        let it = &mut self.items[i];
        let path = dir.join(format!("shader-{}-{reference}.glsl", it.shader));
        std::fs::write(&path, &it.text).map_err(|source| SourceError::Write {
            path: path.clone(),
            source,
        })?;
        let path = path.canonicalize().unwrap_or(path);
        it.file = Some(path.clone());
        Ok(path)
    }

    /// The reference whose text was written to `file`.
    pub fn reference_of_file(&self, file: &Path) -> Option<i64> {
        self.items
            .iter()
            .position(|it| it.file.as_deref() == Some(file))
            .map(|i| i as i64 + 1)
    }
}

impl Drop for Sources {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}
