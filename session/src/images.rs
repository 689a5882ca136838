//! Images from the agent: screenshots of the framebuffer and watch images
//! (the value of an expression for every fragment of a draw).

use shaderdbg_core::{ScreenshotShows, Type, Value};
pub use shaderdbg_protocol::Origin;

use crate::SessionError;

/// A framebuffer image, RGBA8, bottom row first (as GL reads it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Screenshot {
    /// The frame it belongs to.
    pub frame: u64,
    pub width: u32,
    pub height: u32,
    /// The moment it shows (before the stopped draw, after the stopped
    /// submission, or the frame).
    pub shows: ScreenshotShows,
    /// `gl_FragCoord`'s origin in the API that drew it (a pixel of the
    /// image is named in that convention).
    pub origin: Origin,
    pub rgba: Vec<u8>,
}

impl Screenshot {
    /// The agent's `Screenshot` reply as the session's (`None` for any
    /// other message).
    pub(crate) fn from_reply(reply: shaderdbg_protocol::FromAgent) -> Option<Screenshot> {
        match reply {
            shaderdbg_protocol::FromAgent::Screenshot {
                frame,
                width,
                height,
                shows,
                origin,
                rgba,
                ..
            } => Some(Screenshot {
                frame,
                width,
                height,
                shows,
                origin,
                rgba: rgba.0,
            }),
            _ => None,
        }
    }

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
    /// Fragments: the viewport's extent; slots are `y * width + x` with
    /// (x, y) the fragment's `gl_FragCoord`, so row 0 is where `origin` says.
    pub width: u32,
    pub height: u32,
    /// One per slot: `None` where no invocation reached the line.
    pub values: Vec<Option<Value>>,
    /// `gl_FragCoord`'s origin in the API that ran the draw (Vulkan's y
    /// goes down).
    pub origin: Origin,
}

impl WatchImage {
    /// The slots as an upright picture, bottom row first, whatever the
    /// API's origin (what an image shown to the user needs).
    pub fn bottom_row_first(&self) -> Vec<Option<&Value>> {
        let w = self.width as usize;
        let rows: Vec<&[Option<Value>]> = self.values.chunks(w.max(1)).collect();
        let slot = |y: usize, x: usize| rows.get(y).and_then(|r| r.get(x)).and_then(Option::as_ref);
        let h = self.height as usize;
        (0..h)
            .flat_map(|row| {
                let y = match self.origin {
                    Origin::BottomLeft => row,
                    Origin::TopLeft => h - 1 - row,
                };
                (0..w).map(move |x| (y, x))
            })
            .map(|(y, x)| slot(y, x))
            .collect()
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
