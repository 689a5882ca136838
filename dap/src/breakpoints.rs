//! Breakpoints as the client set them, file by file, and what became of them.
//!
//! The session engine takes its breakpoint list when the program starts
//! (`Session::start`) and has no way to change it afterwards. So:
//! breakpoints set before `configurationDone` go to the program; a
//! breakpoint set later is kept, reported unverified with that reason, and
//! only used when navigating the recorded trace (`continue` and
//! `reverseContinue` within a stop); a breakpoint removed later still makes
//! the program stop, and the adapter resumes such a stop without showing it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use shaderdbg_session::binding::FileBreakpoint;

use crate::protocol::{self, Source, SourceBreakpoint};

/// Said of a breakpoint set while the program runs.
pub const SET_LATE: &str = "set after the program started: the session engine cannot change a running program's breakpoints yet, so this one only applies to continue/reverse-continue within the recorded invocation";

#[derive(Clone, Debug)]
pub struct Entry {
    pub id: i64,
    /// The requested line, 1-based.
    pub line: u32,
    pub condition: Option<String>,
    pub verified: bool,
    /// Where it was bound (moved to the nearest executable line).
    pub bound_line: Option<u32>,
    pub message: Option<String>,
    /// Part of the list the program was started with.
    pub sent: bool,
    /// Uses something not supported (hit condition, log message): never sent.
    pub unsupported: bool,
}

impl Entry {
    /// The line it is at now: where it was bound, else where it was set.
    pub fn line_now(&self) -> u32 {
        self.bound_line.unwrap_or(self.line)
    }
}

#[derive(Clone, Debug)]
struct FileEntries {
    client_path: String,
    entries: Vec<Entry>,
}

#[derive(Default)]
pub struct Breakpoints {
    next_id: i64,
    files: BTreeMap<PathBuf, FileEntries>,
    /// The list the program was started with: index -> (file, id).
    launched: Vec<(PathBuf, i64)>,
    started: bool,
}

impl Breakpoints {
    fn new_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// `setBreakpoints` for one source: replaces its breakpoints and answers
    /// one breakpoint per requested one, in order. Lines are 1-based.
    pub fn set(
        &mut self,
        source: &Source,
        requested: &[SourceBreakpoint],
    ) -> Vec<protocol::Breakpoint> {
        let unverified = |this: &mut Self, message: String| -> Vec<protocol::Breakpoint> {
            requested
                .iter()
                .map(|b| protocol::Breakpoint {
                    id: this.new_id(),
                    verified: false,
                    message: Some(message.clone()),
                    source: Some(source.clone()),
                    line: Some(b.line),
                })
                .collect()
        };
        let Some(path) = source.path.clone() else {
            return unverified(
                self,
                "breakpoints in sources without a file are not supported yet".into(),
            );
        };
        let file = match Path::new(&path).canonicalize() {
            Ok(f) => f,
            Err(e) => {
                self.files.remove(Path::new(&path));
                return unverified(self, format!("cannot read {path}: {e}"));
            }
        };
        let old = self
            .files
            .remove(&file)
            .map(|f| f.entries)
            .unwrap_or_default();
        let mut entries = Vec::new();
        for b in requested {
            let condition = b.condition.clone().filter(|c| !c.trim().is_empty());
            let line = u32::try_from(b.line).unwrap_or(0);
            let unsupported = if b
                .hit_condition
                .as_deref()
                .is_some_and(|h| !h.trim().is_empty())
            {
                Some("hit conditions are not supported yet")
            } else if b.log_message.is_some() {
                Some("logpoints are not supported yet")
            } else if line == 0 {
                Some("line numbers start at 1")
            } else {
                None
            };
            let entry = if let Some(m) = unsupported {
                Entry {
                    id: self.new_id(),
                    line,
                    condition,
                    verified: false,
                    bound_line: None,
                    message: Some(m.into()),
                    sent: false,
                    unsupported: true,
                }
            } else if let Some(e) = old
                .iter()
                .find(|e| e.line == line && e.condition == condition && !e.unsupported)
                .filter(|_| self.started)
            {
                e.clone()
            } else {
                Entry {
                    id: self.new_id(),
                    line,
                    condition,
                    verified: false,
                    bound_line: None,
                    message: self.started.then(|| SET_LATE.to_string()),
                    sent: false,
                    unsupported: false,
                }
            };
            entries.push(entry);
        }
        let named = source_of(&path);
        let answer = entries.iter().map(|e| Self::dap(e, &named)).collect();
        self.files.insert(
            file,
            FileEntries {
                client_path: path,
                entries,
            },
        );
        answer
    }

    fn dap(e: &Entry, source: &Source) -> protocol::Breakpoint {
        protocol::Breakpoint {
            id: e.id,
            verified: e.verified,
            message: e.message.clone(),
            source: Some(source.clone()),
            line: Some(i64::from(e.line_now())),
        }
    }

    /// The list the program starts with; fixes the indices
    /// [`Breakpoints::bound`] refers to.
    pub fn launch_list(&mut self) -> Vec<FileBreakpoint> {
        self.started = true;
        let mut out = Vec::new();
        for (file, f) in &mut self.files {
            for e in f.entries.iter_mut().filter(|e| !e.unsupported) {
                e.sent = true;
                out.push(FileBreakpoint {
                    file: file.clone(),
                    line: e.line,
                    condition: e.condition.clone(),
                });
                self.launched.push((file.clone(), e.id));
            }
        }
        out
    }

    /// The engine bound (or could not bind) breakpoint `index` of the launch
    /// list: the updated breakpoint, for a `breakpoint` event; `None` when it
    /// was removed since, or nothing changed.
    pub fn bound(
        &mut self,
        index: usize,
        line: Option<u32>,
        message: Option<String>,
    ) -> Option<protocol::Breakpoint> {
        let (file, id) = self.launched.get(index)?.clone();
        let f = self.files.get_mut(&file)?;
        let e = f.entries.iter_mut().find(|e| e.id == id)?;
        match line {
            Some(l) => {
                e.verified = true;
                e.bound_line = Some(l);
                e.message = message;
            }
            // Bound in another shader already: that stays true.
            None if e.verified => return None,
            None => {
                e.message = Some(message.unwrap_or_else(|| "could not be bound".into()));
            }
        }
        let source = source_of(&f.client_path);
        Some(Self::dap(e, &source))
    }

    /// The breakpoints (that are not unsupported) at `line` of `file`.
    pub fn at(&self, file: &Path, line: u32) -> Vec<&Entry> {
        self.files
            .get(file)
            .map(|f| {
                f.entries
                    .iter()
                    .filter(|e| !e.unsupported && e.line_now() == line)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The path the client used for a file.
    pub fn client_path(&self, file: &Path) -> Option<&str> {
        self.files.get(file).map(|f| f.client_path.as_str())
    }
}

/// A source named by its path.
pub fn source_of(path: &str) -> Source {
    Source {
        name: Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
        path: Some(path.to_string()),
        ..Default::default()
    }
}
