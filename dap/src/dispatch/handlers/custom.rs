//! The extension's requests (contract in `crate::custom`): `shaderdbg/frameImage`, `shaderdbg/debugPixel`, `shaderdbg/valuesImage`.

use crate::dispatch::*;

impl<W: Write> Server<W> {
    pub(in crate::dispatch) fn frame_image(&mut self) -> Reply {
        let draw = match &self.state {
            State::Stopped(ds) => ds.cur().stop.draw,
            State::Halted(_) => {
                return Err(
                    "shaderdbg/frameImage: stopped outside a draw (no framebuffer to show)".into(),
                )
            }
            _ => return Err("shaderdbg/frameImage: the program is not stopped at a draw".into()),
        };
        let shot = self
            .call(Some("Reading the framebuffer"), |s| {
                s.screenshot(ScreenshotAt::Now)
            })?
            .map_err(|e| format!("shaderdbg/frameImage: {e}"))?;
        let png = shot
            .png()
            .map_err(|e| format!("shaderdbg/frameImage: {e}"))?;
        Ok(json!({
            "frame": shot.frame,
            "draw": draw,
            "width": shot.width,
            "height": shot.height,
            "png": custom::base64(&png),
        }))
    }

    pub(in crate::dispatch) fn debug_pixel(&mut self, a: custom::DebugPixelArguments) -> Reply {
        if !matches!(
            self.state,
            State::Running | State::Stopped(_) | State::Halted(_)
        ) {
            return Err("shaderdbg/debugPixel: the program is not running".into());
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
        Ok(json!({ "frame": frame }))
    }

    pub(in crate::dispatch) fn values_image(&mut self, a: custom::ValuesImageArguments) -> Reply {
        let (t, step) = self
            .frame_or_cursor(a.frame_id)
            .map_err(|e| format!("shaderdbg/valuesImage: {e}"))?;
        let loc = self.thread_at(t)?.stop.location(step);
        let expr = a.expression.trim().to_string();
        if expr.is_empty() {
            return Err("shaderdbg/valuesImage: an empty expression".into());
        }
        let runtime_line = loc.runtime_line;
        let title = format!("Computing `{expr}` for every fragment");
        let img = self
            .call(Some(&title), move |s| s.watch(runtime_line, &expr))?
            .map_err(|e| format!("shaderdbg/valuesImage: {e}"))?;
        custom::values_image_body(&img, self.line_out(loc.line) as u32)
            .map_err(|e| format!("shaderdbg/valuesImage: {e}").into())
    }
}
