//! Images from the agent: screenshots of the framebuffer and watch images
//! (the value of an expression for every fragment of a draw).

use shaderdbg_glsl::instrument::{self, InstrumentError, Mode, Request, Target};
use shaderdbg_glsl::{Type, Value};

use crate::SessionError;
use shaderdbg_glsl::parse::Parsed;
use shaderdbg_glsl::probes::ProbeTable;

/// A framebuffer image, RGBA8, bottom row first (as GL reads it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Screenshot {
    /// The frame it belongs to.
    pub frame: u64,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Screenshot {
    /// The image as a PNG file's bytes, top row first.
    pub fn png(&self) -> Result<Vec<u8>, SessionError> {
        let row = self.width as usize * 4;
        if self.rgba.len() < row * self.height as usize || row == 0 {
            return Err(SessionError::Failed(format!(
                "a {}x{} screenshot with {} bytes",
                self.width,
                self.height,
                self.rgba.len()
            )));
        }
        let mut flipped = Vec::with_capacity(row * self.height as usize);
        for y in (0..self.height as usize).rev() {
            flipped.extend_from_slice(&self.rgba[y * row..(y + 1) * row]);
        }
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width, self.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc
                .write_header()
                .map_err(|e| SessionError::Failed(format!("PNG: {e}")))?;
            w.write_image_data(&flipped)
                .map_err(|e| SessionError::Failed(format!("PNG: {e}")))?;
        }
        Ok(out)
    }
}

/// The value of an expression at one line for every invocation of a draw.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchImage {
    pub expr: String,
    pub ty: Type,
    /// The runtime line it was taken at (before the line's first execution).
    pub line: u32,
    /// Fragments: the viewport's extent; slots are `y * width + x`, bottom row first.
    pub width: u32,
    pub height: u32,
    /// One per slot: `None` where no invocation reached the line.
    pub values: Vec<Option<Value>>,
}

impl WatchImage {
    /// Decodes the agent's watch buffer (header + `[times reached, value...]` slots).
    pub fn decode(
        expr: &str,
        ty: Type,
        line: u32,
        width: u32,
        height: u32,
        value_words: u32,
        words: &[u32],
    ) -> Result<WatchImage, SessionError> {
        use shaderdbg_glsl::layout::HEADER_WORDS;
        let stride = value_words as usize + 1;
        let n = width as usize * height as usize;
        let data = words.get(HEADER_WORDS..).unwrap_or_default();
        if data.len() < n * stride {
            return Err(SessionError::Failed(format!(
                "a watch image of {} words for {width}x{height} values of {value_words} words",
                words.len()
            )));
        }
        let values = data
            .chunks_exact(stride)
            .take(n)
            .map(|slot| {
                if slot[0] == 0 {
                    None
                } else {
                    Value::decode(&ty, &slot[1..]).map(|(v, _)| v)
                }
            })
            .collect();
        Ok(WatchImage {
            expr: expr.to_string(),
            ty,
            line,
            width,
            height,
            values,
        })
    }

    /// The value at a pixel (`gl_FragCoord` convention).
    pub fn at(&self, x: u32, y: u32) -> Option<&Value> {
        if x >= self.width || y >= self.height {
            return None;
        }
        self.values
            .get(y as usize * self.width as usize + x as usize)
            .and_then(Option::as_ref)
    }
}

/// The GLSL type of `expr` in the scope of `runtime_line` of a shader, as the instrumenter types it (the same checker the agent runs).
pub fn expression_type(
    parsed: &Parsed,
    table: &ProbeTable,
    runtime_line: u32,
    expr: &str,
) -> Result<Type, SessionError> {
    let probe = table
        .step_for_line(runtime_line)
        .ok_or_else(|| {
            SessionError::Failed(format!(
                "no executable statement at or after line {runtime_line}"
            ))
        })?
        .id;
    let target = if parsed.version.is_es() {
        Target::ES
    } else {
        Target::COMPAT
    };
    let req = Request {
        mode: Mode::Watch {
            probe,
            expr: expr.to_string(),
        },
        target,
        binding: 0,
    };
    let out = instrument::instrument(parsed, &req).map_err(|e| match e {
        InstrumentError::Watch { message, .. } => {
            SessionError::Failed(format!("`{expr}`: {message}"))
        }
        other => SessionError::Failed(other.to_string()),
    })?;
    out.watch_type
        .ok_or_else(|| SessionError::Failed(format!("`{expr}` has no type here")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shaderdbg_glsl::instrument::probe_table;
    use shaderdbg_glsl::parse::parse;
    use shaderdbg_glsl::Stage;

    const SHADER: &str = "#version 330 core
out vec4 color;
void main() {
    vec2 p = gl_FragCoord.xy;
    float r = length(p);
    color = vec4(p, r, 1.0);
}
";

    fn type_at(line: u32, expr: &str) -> Result<String, String> {
        let parsed = parse(&[SHADER], Stage::Fragment, None).expect("parses");
        let table = probe_table(&parsed);
        expression_type(&parsed, &table, line, expr)
            .map(|t| t.to_string())
            .map_err(|e| e.to_string())
    }

    /// The type comes from the same checker that instruments the watch (a
    /// regression: it was read out of a breakpoint condition's error text).
    #[test]
    fn watch_expressions_are_typed_in_the_scope_of_their_line() {
        assert_eq!(type_at(5, "p * 2.0").as_deref(), Ok("vec2"));
        assert_eq!(type_at(6, "r > 1.0").as_deref(), Ok("bool"));
        assert_eq!(type_at(6, "mat2(p, p)").as_deref(), Ok("mat2"));
        assert_eq!(type_at(4, "gl_FragCoord").as_deref(), Ok("vec4"));
        let e = type_at(4, "r").unwrap_err();
        assert!(e.contains("`r`"), "{e}");
        let e = type_at(99, "p").unwrap_err();
        assert!(e.contains("no executable statement"), "{e}");
    }
}
