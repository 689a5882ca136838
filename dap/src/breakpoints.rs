//! Breakpoints as the client set them, file by file, and what became of them.
//!
//! The whole list goes to the session engine at `configurationDone` and again
//! after every `setBreakpoints` (`Session::set_breakpoints` binds it to every
//! shader known so far). Indices in the engine's `BreakpointBound` events
//! refer to the last list sent ([`Breakpoints::list`]).
//!
//! `hitCondition` ("N" or ">= N", "> N", "== N", "< N", "<= N", "% N") and
//! `logMessage` go to the session engine with the breakpoint: it counts,
//! decides where to stop and prints logpoints (`shaderdbg_session::breakpoints`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use shaderdbg_session::binding::FileBreakpoint;
use shaderdbg_session::breakpoints::HitCondition;

use crate::protocol::{self, Source, SourceBreakpoint};
use crate::sources::SourceError;

#[derive(Clone, Debug)]
pub struct Entry {
    pub id: i64,
    /// The requested line, 1-based.
    pub line: u32,
    pub condition: Option<String>,
    pub hit_condition: Option<HitCondition>,
    /// A logpoint's message (`{expression}`s interpolated).
    pub log_message: Option<String>,
    pub verified: bool,
    /// Where it was bound (moved to the nearest executable line).
    pub bound_line: Option<u32>,
    pub message: Option<String>,
    /// Part of the list the program has.
    pub sent: bool,
    /// Never sent (a bad line or hit condition).
    pub invalid: bool,
}

impl Entry {
    /// The line it is at now: where it was bound, else where it was set.
    pub fn line_now(&self) -> u32 {
        self.bound_line.unwrap_or(self.line)
    }

    /// A breakpoint that can stop the program (not a logpoint).
    pub fn stops(&self) -> bool {
        !self.invalid && self.log_message.is_none()
    }
}

#[derive(Clone, Debug)]
struct FileEntries {
    /// The source as the client named it.
    client: Source,
    entries: Vec<Entry>,
}

#[derive(Default)]
pub struct Breakpoints {
    next_id: i64,
    files: BTreeMap<PathBuf, FileEntries>,
    /// The last list sent to the engine: index -> (file, id).
    sent: Vec<(PathBuf, i64)>,
}

impl Breakpoints {
    fn new_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// `setBreakpoints` for one source, whose breakpoints bind by the content
    /// of `file` (the client's file, or the text of a shader without one):
    /// replaces its breakpoints and answers one breakpoint per requested
    /// one, in order. Lines are 1-based.
    pub fn set(
        &mut self,
        source: &Source,
        file: Result<PathBuf, SourceError>,
        requested: &[SourceBreakpoint],
    ) -> Vec<protocol::Breakpoint> {
        let file = match file {
            Ok(f) => f,
            Err(e) => {
                return requested
                    .iter()
                    .map(|b| protocol::Breakpoint {
                        id: Some(self.new_id()),
                        verified: false,
                        message: Some(e.to_string()),
                        source: Some(source.clone()),
                        line: Some(b.line),
                    })
                    .collect()
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
            let log_message = b.log_message.clone();
            let line = u32::try_from(b.line).unwrap_or(0);
            let hit = b
                .hit_condition
                .as_deref()
                .filter(|h| !h.trim().is_empty())
                .map(HitCondition::parse)
                .transpose();
            let invalid = match (&hit, line) {
                (Err(m), _) => Some(m.to_string()),
                (_, 0) => Some("line numbers start at 1".to_string()),
                _ => None,
            };
            let hit_condition = hit.ok().flatten();
            let same = |e: &&Entry| {
                e.line == line
                    && e.condition == condition
                    && e.hit_condition == hit_condition
                    && e.log_message == log_message
                    && !e.invalid
            };
            // An unchanged breakpoint keeps its id and binding.
            let entry = match old.iter().find(same).filter(|_| invalid.is_none()) {
                Some(e) => e.clone(),
                None => Entry {
                    id: self.new_id(),
                    line,
                    condition,
                    hit_condition,
                    log_message,
                    verified: false,
                    bound_line: None,
                    invalid: invalid.is_some(),
                    message: invalid,
                    sent: false,
                },
            };
            entries.push(entry);
        }
        let mut client = source.clone();
        if client.name.is_none() {
            client.name = client.path.as_deref().and_then(|p| source_of(p).name);
        }
        let answer = entries.iter().map(|e| Self::dap(e, &client)).collect();
        self.files.insert(file, FileEntries { client, entries });
        answer
    }

    fn dap(e: &Entry, source: &Source) -> protocol::Breakpoint {
        protocol::Breakpoint {
            id: Some(e.id),
            verified: e.verified,
            message: e.message.clone(),
            source: Some(source.clone()),
            line: Some(i64::from(e.line_now())),
        }
    }

    /// The list for the engine; fixes the indices [`Breakpoints::bound`]
    /// refers to.
    pub fn list(&mut self) -> Vec<FileBreakpoint> {
        let mut out = Vec::new();
        self.sent.clear();
        for (file, f) in &mut self.files {
            for e in f.entries.iter_mut().filter(|e| !e.invalid) {
                e.sent = true;
                out.push(FileBreakpoint {
                    file: file.clone(),
                    line: e.line,
                    condition: e.condition.clone(),
                    hit_condition: e.hit_condition,
                    log_message: e.log_message.clone(),
                });
                self.sent.push((file.clone(), e.id));
            }
        }
        out
    }

    /// The engine bound (or could not bind) breakpoint `index` of the list
    /// sent: the updated breakpoint, for a `breakpoint` event; `None` when it
    /// was removed since, or nothing changed.
    pub fn bound(
        &mut self,
        index: usize,
        line: Option<u32>,
        message: Option<String>,
    ) -> Option<protocol::Breakpoint> {
        let (file, id) = self.sent.get(index)?.clone();
        let f = self.files.get_mut(&file)?;
        let e = f.entries.iter_mut().find(|e| e.id == id)?;
        let before = (e.verified, e.bound_line, e.message.clone());
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
        if before == (e.verified, e.bound_line, e.message.clone()) {
            return None;
        }
        Some(Self::dap(e, &f.client))
    }

    /// The breakpoints (not invalid ones) at `line` of `file`.
    pub fn at(&self, file: &Path, line: u32) -> Vec<&Entry> {
        self.files
            .get(file)
            .map(|f| {
                f.entries
                    .iter()
                    .filter(|e| !e.invalid && e.line_now() == line)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The source the client used for a file.
    pub fn client_source(&self, file: &Path) -> Option<&Source> {
        self.files.get(file).map(|f| &f.client)
    }

    pub fn is_empty(&self) -> bool {
        self.files.values().all(|f| f.entries.is_empty())
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
