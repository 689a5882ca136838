//! Where each offset of the text the engine parsed comes from, for a shader
//! assembled as an editor assembles it: the file's text up to its `#version`
//! line, a header, the rest of the text (three source strings), `#include`s
//! expanded.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::parse::{Origin, SourceText};
use crate::Span;

/// A file the parse included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncludedFile {
    /// The name the include resolver gave it.
    pub path: PathBuf,
    pub text: Arc<String>,
}

/// Where an offset of the parsed text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In the shader's own text, at this offset.
    Text(usize),
    /// In an included file (index into [`SourceMap::files`]) at this offset.
    Include(usize, usize),
    /// In the header string, at this offset.
    Header(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum SegKind {
    /// Part of the text; `base` is where its source string starts in it.
    Text {
        base: usize,
    },
    Header,
    /// An included file (index into `files`), brought in by the text's
    /// `#include` line at this offset (`None`: by the header, or nested).
    Include(usize, Option<usize>),
}

#[derive(Clone, Debug)]
struct Seg {
    text_start: usize,
    len: usize,
    kind: SegKind,
    origin_start: usize,
}

/// Offsets of the parsed text <-> the shader's text, its header and the
/// files it included.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    segs: Vec<Seg>,
    pub files: Vec<IncludedFile>,
    text_len: usize,
}

impl SourceMap {
    /// `split`: where the text's second part starts (after `#version`);
    /// `sites`: for each included file in the order the resolver was asked
    /// for them, the text's own `#include` line that led to it.
    pub(crate) fn new(source: &SourceText, split: usize, sites: &[Option<usize>]) -> SourceMap {
        let mut files: Vec<IncludedFile> = Vec::new();
        let mut segs = Vec::new();
        // Include origins in order (the same file included twice is two origins).
        let include_origins: Vec<*const Origin> = source
            .origins()
            .filter(|(o, _)| matches!(o, Origin::Include(_)))
            .map(|(o, _)| o as *const Origin)
            .collect();
        for p in source.pieces() {
            let kind = match p.origin {
                Origin::String(0) => SegKind::Text { base: 0 },
                Origin::String(2) => SegKind::Text { base: split },
                Origin::String(_) => SegKind::Header,
                Origin::Include(name) => {
                    let path = PathBuf::from(name);
                    let idx = match files.iter().position(|f| f.path == path) {
                        Some(i) => i,
                        None => {
                            let text = source
                                .origins()
                                .find(|(o, _)| *o == p.origin)
                                .map_or_else(String::new, |(_, t)| t.to_string());
                            files.push(IncludedFile {
                                path,
                                text: Arc::new(text),
                            });
                            files.len() - 1
                        }
                    };
                    let k = include_origins
                        .iter()
                        .position(|&o| std::ptr::eq(o, p.origin));
                    SegKind::Include(idx, k.and_then(|k| sites.get(k).copied().flatten()))
                }
            };
            segs.push(Seg {
                text_start: p.text_start,
                len: p.len,
                kind,
                origin_start: p.origin_start,
            });
        }
        SourceMap {
            segs,
            files,
            text_len: source.text.len(),
        }
    }

    fn seg_index(&self, t: usize) -> Option<usize> {
        let k = self.segs.partition_point(|s| s.text_start <= t);
        let k = k.checked_sub(1)?;
        // An offset just past a segment's end still belongs to it (span ends).
        (t <= self.segs[k].text_start + self.segs[k].len).then_some(k)
    }

    /// Where an offset of the parsed text comes from.
    pub fn place(&self, t: usize) -> Option<Place> {
        let seg = &self.segs[self.seg_index(t)?];
        let in_origin = seg.origin_start + (t - seg.text_start);
        Some(match seg.kind {
            SegKind::Text { base } => Place::Text(base + in_origin),
            SegKind::Header => Place::Header(in_origin),
            SegKind::Include(f, _) => Place::Include(f, in_origin),
        })
    }

    /// A span of the parsed text as where it starts and where it ends in
    /// the same origin (cut at the end of the run it starts in).
    pub fn span_place(&self, span: Span) -> Option<(Place, usize)> {
        let k = self.seg_index(span.start)?;
        let seg = &self.segs[k];
        let end = span.end.clamp(span.start, seg.text_start + seg.len);
        let start = self.place(span.start)?;
        let in_origin_end = seg.origin_start + (end - seg.text_start);
        let end = match seg.kind {
            SegKind::Text { base } => base + in_origin_end,
            _ => in_origin_end,
        };
        Some((start, end))
    }

    /// The offset in the parsed text of an offset of the shader's text.
    pub fn from_text(&self, off: usize) -> Option<usize> {
        let mut best = None;
        for s in &self.segs {
            if let SegKind::Text { base } = s.kind {
                let start = base + s.origin_start;
                if off >= start && off <= start + s.len {
                    best = Some(s.text_start + (off - start));
                    if off < start + s.len {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The offset in the parsed text of an offset of the header string.
    pub fn from_header(&self, h: usize) -> Option<usize> {
        self.segs.iter().find_map(|s| match s.kind {
            SegKind::Header if h >= s.origin_start && h <= s.origin_start + s.len => {
                Some(s.text_start + h - s.origin_start)
            }
            _ => None,
        })
    }

    /// For an offset in an included file: the offset in the shader's text of
    /// the `#include` line that brought it in, if the text's own line did.
    pub fn include_site(&self, t: usize) -> Option<usize> {
        match self.seg_index(t).map(|k| &self.segs[k].kind) {
            Some(SegKind::Include(_, site)) => *site,
            _ => None,
        }
    }

    /// The file the text's `#include` line starting at `line_start` brought in.
    pub fn included_by_line(&self, line_start: usize) -> Option<&IncludedFile> {
        self.segs.iter().find_map(|s| match s.kind {
            SegKind::Include(f, Some(site)) if site == line_start => self.files.get(f),
            _ => None,
        })
    }

    /// The offset in the parsed text of offset `off` of the included file
    /// with this path (its first inclusion).
    pub fn from_file(&self, path: &Path, off: usize) -> Option<usize> {
        let f = self.files.iter().position(|f| f.path == path)?;
        self.segs.iter().find_map(|s| match s.kind {
            SegKind::Include(g, _)
                if g == f && off >= s.origin_start && off <= s.origin_start + s.len =>
            {
                Some(s.text_start + off - s.origin_start)
            }
            _ => None,
        })
    }

    pub fn text_len(&self) -> usize {
        self.text_len
    }
}
