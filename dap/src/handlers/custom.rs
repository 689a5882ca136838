//! The extension's requests: `shaderdbg/frameImage`,
//! `shaderdbg/debugPixel`, `shaderdbg/valuesImage` (the contract is in
//! [`crate::custom`]). Their failures are prefixed with the command.

use std::io::Write;

use shaderdbg_session::{ScreenshotAt, ScreenshotShows};

use crate::custom::{
    self, DebugPixelArguments, DebugPixelBody, FrameImageBody, ValuesImageArguments,
    ValuesImageBody, DEBUG_PIXEL, FRAME_IMAGE, VALUES_IMAGE,
};
use crate::error::Error;
use crate::state::{Adapter, PixelDebug, State};

impl<W: Write> Adapter<W> {
    pub fn frame_image(&mut self) -> Result<FrameImageBody, Error> {
        let draw = match &self.state {
            State::Stopped(ds) => ds.cur().stop.draw,
            State::Halted(_) => return Err(Error::within(FRAME_IMAGE, Error::NoFramebuffer)),
            _ => return Err(Error::within(FRAME_IMAGE, Error::NotAtDraw)),
        };
        let shot = self
            .call(Some("Reading the framebuffer"), |s| {
                s.screenshot(ScreenshotAt::Now)
            })?
            .map_err(|e| Error::within(FRAME_IMAGE, e))?;
        let png = shot.png().map_err(|e| Error::within(FRAME_IMAGE, e))?;
        Ok(FrameImageBody {
            frame: shot.frame,
            draw,
            width: shot.width,
            height: shot.height,
            shows: match shot.shows {
                ScreenshotShows::BeforeDraw => "beforeDraw",
                ScreenshotShows::AfterSubmission => "afterSubmission",
                ScreenshotShows::FrameEnd => "frameEnd",
            },
            origin: custom::origin_name(shot.origin),
            png: custom::base64(&png),
        })
    }

    pub fn debug_pixel(&mut self, a: DebugPixelArguments) -> Result<DebugPixelBody, Error> {
        if !matches!(
            self.state,
            State::Running | State::Stopped(_) | State::Halted(_)
        ) {
            return Err(Error::within(DEBUG_PIXEL, Error::NotRunning));
        }
        let (x, y) = (a.x, a.y);
        let frame = self.call(None, move |s| s.debug_pixel(x, y))?;
        self.pixel_debug = Some(PixelDebug {
            x,
            y,
            frame,
            stops: 0,
        });
        if !matches!(self.state, State::Running) {
            self.resume();
        }
        Ok(DebugPixelBody { frame })
    }

    pub fn values_image(&mut self, a: ValuesImageArguments) -> Result<ValuesImageBody, Error> {
        let (t, step) = self
            .frame_or_cursor(a.frame_id)
            .map_err(|e| Error::within(VALUES_IMAGE, e))?;
        let stop = &self.thread_at(t)?.stop;
        let (loc, lang) = (stop.location(step), stop.language());
        let expr = a.expression.trim().to_string();
        if expr.is_empty() {
            return Err(Error::within(VALUES_IMAGE, Error::EmptyExpression));
        }
        let runtime_line = loc.runtime_line;
        let title = format!("Computing `{expr}` for every fragment");
        let img = self
            .call(Some(&title), move |s| s.watch(runtime_line, &expr))?
            .map_err(|e| Error::within(VALUES_IMAGE, e))?;
        let mut body = custom::values_image_body(&img, self.line_out(loc.line) as u32)
            .map_err(|e| Error::within(VALUES_IMAGE, e))?;
        body.ty = img.ty.display_in(lang).to_string();
        Ok(body)
    }
}
