//! What a debugger asks of an agent and hears back, in API-neutral words:
//! which frames and pixels may stop, why a draw stopped, when to take a
//! screenshot. The session uses these types; the agent protocol carries them.

use serde::{Deserialize, Serialize};

/// Which frames stopping is allowed in (frames are numbered from 0; frame N
/// ends at the (N+1)-th swap).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    /// Only invocations at this pixel (fragment) stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel: Option<[u32; 2]>,
    /// Stop at every draw whose fragments cover `pixel`, breakpoints or not.
    #[serde(default)]
    pub pixel_history: bool,
}

/// Why a program stopped at a draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Invocations reached a breakpoint whose condition held (`Hit::line` is
    /// the breakpoint's runtime line).
    #[default]
    Breakpoint,
    /// Pixel history: the draw's fragments cover the filter's pixel (`line` 0:
    /// the start of `main`).
    PixelHistory,
    /// A pause was asked: the first draw after it, every invocation at
    /// the start of `main` (`line` 0), up to the hit buffer's capacity.
    Pause,
    /// Invocations wrote a NaN or an infinity to an output (exception filter
    /// `nan_inf`); `Hit::line` is the line of the writing statement and
    /// `occurrence` counts reaches of that statement, as for breakpoints.
    NanInf,
    /// The sanitizer found violations in a dispatch (exception filters
    /// `sanitize_oob`, `sanitize_uninit`, `sanitize_race`): one hit per
    /// report, at the line of the statement whose access it was
    /// (occurrence 0), for the invocation the report names; a race also
    /// has a hit for the other invocation, at the line of its access.
    Sanitizer,
}

/// What a screenshot shows: the agents take `ScreenshotAt::Now` at
/// different moments of a stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScreenshotShows {
    /// The stopped draw's framebuffer before the draw (the GL agent, also
    /// where the hit test was the draw itself: it keeps a copy).
    BeforeDraw,
    /// What the stopped submission drew, every draw of it done (the Vulkan
    /// layer runs the submission before it reports the stop).
    AfterSubmission,
    /// The frame as the program presents it (`ScreenshotAt::FrameEnd`).
    FrameEnd,
}

/// When to take a screenshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum ScreenshotAt {
    /// While stopped: the framebuffer the stopped draw renders to
    /// (colour attachment 0, or the back buffer), as it is before the draw
    /// in OpenGL and after the stopped submission in Vulkan (the answer
    /// says which: [`ScreenshotShows`]).
    Now,
    /// At the swap that ends frame `frame` (the next swap when `None`); the
    /// back buffer just before the swap.
    FrameEnd {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frame: Option<u64>,
    },
}
