//! Byte offsets <-> LSP positions (line, UTF-16 code unit column).

use tower_lsp_server::gen_lsp_types::{Position, Range, SemanticToken};

/// Line starts of a text, for converting offsets to positions and back.
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset of each line start.
    starts: Vec<usize>,
    /// Whether each line is pure ASCII (then UTF-16 columns are byte columns).
    ascii: Vec<bool>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let mut ascii = Vec::new();
        let mut line_ascii = true;
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
                ascii.push(line_ascii);
                line_ascii = true;
            } else if b >= 0x80 {
                line_ascii = false;
            }
        }
        ascii.push(line_ascii);
        LineIndex {
            starts,
            ascii,
            len: text.len(),
        }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// 0-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// Byte offset where a 0-based line starts (the end of the text past the last line).
    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.len)
    }

    /// Byte offset of the end of a line's content (before its newline).
    pub fn line_end(&self, text: &str, line: usize) -> usize {
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.len, |&s| s.saturating_sub(1));
        let start = self.line_start(line).min(end);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end - 1
        } else {
            end
        }
    }

    /// The LSP position of a byte offset (clamped to the text, moved back to a
    /// character boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while offset > 0 && !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.starts[line];
        let col = if self.ascii.get(line).copied().unwrap_or(true) {
            offset - start
        } else {
            text[start..offset].chars().map(char::len_utf16).sum()
        };
        Position {
            line: line as u32,
            character: col as u32,
        }
    }

    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range {
            start: self.position(text, start),
            end: self.position(text, end.max(start)),
        }
    }

    /// The byte offset of an LSP position; `None` if the line does not exist.
    /// A column past the end of the line gives the line's end; one inside a
    /// surrogate pair gives the character's start.
    pub fn offset(&self, text: &str, pos: Position) -> Option<usize> {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            // The position just past the last line is the end of the text.
            return (line == self.starts.len() && pos.character == 0).then_some(self.len);
        }
        let start = self.starts[line];
        let end = self.line_end(text, line);
        let col = pos.character as usize;
        if self.ascii.get(line).copied().unwrap_or(true) {
            return Some((start + col).min(end));
        }
        let mut units = 0;
        for (i, c) in text[start..end].char_indices() {
            if units >= col {
                return Some(start + i);
            }
            units += c.len_utf16();
            if units > col {
                return Some(start + i);
            }
        }
        Some(end)
    }

    /// Like [`LineIndex::offset`], clamping a line past the end to the end.
    pub fn offset_clamped(&self, text: &str, pos: Position) -> usize {
        self.offset(text, pos).unwrap_or(self.len)
    }

    /// Semantic tokens as LSP deltas, from `(start, end, type, modifiers)`
    /// in document order; a token that spans lines is left out.
    pub fn semantic_tokens(
        &self,
        text: &str,
        tokens: impl IntoIterator<Item = (usize, usize, u32, u32)>,
    ) -> Vec<SemanticToken> {
        let mut out = Vec::new();
        let (mut last_line, mut last_col) = (0u32, 0u32);
        for (s, e, token_type, modifiers) in tokens {
            let (p, pe) = (self.position(text, s), self.position(text, e));
            if pe.line != p.line {
                continue;
            }
            let delta_line = p.line - last_line;
            let delta_start = if delta_line == 0 {
                p.character - last_col
            } else {
                p.character
            };
            out.push(SemanticToken {
                delta_line,
                delta_start,
                length: pe.character - p.character,
                token_type,
                token_modifiers_bitset: modifiers,
            });
            (last_line, last_col) = (p.line, p.character);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns() {
        let text = "ab\n// é😀x\r\nlast";
        let ix = LineIndex::new(text);
        let x = text.find('x').unwrap();
        let p = ix.position(text, x);
        assert_eq!((p.line, p.character), (1, 6)); // "// " 3 + é 1 + 😀 2
        assert_eq!(ix.offset(text, p), Some(x));
        // Inside the surrogate pair: the emoji's start.
        let emoji = text.find('😀').unwrap();
        assert_eq!(ix.offset(text, Position::new(1, 5)), Some(emoji));
        // Past the end of the line: before "\r\n".
        assert_eq!(ix.offset(text, Position::new(1, 99)), Some(x + 1));
        assert_eq!(ix.offset(text, Position::new(2, 4)), Some(text.len()));
        assert_eq!(ix.offset(text, Position::new(3, 0)), Some(text.len()));
        assert_eq!(ix.offset(text, Position::new(9, 0)), None);
        assert_eq!(ix.position(text, 999), Position::new(2, 4));
    }
}
