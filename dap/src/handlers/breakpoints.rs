//! `setBreakpoints`, `setExceptionBreakpoints`. Both change a running
//! program's list at once; before `configurationDone` they are kept for the
//! start.

use std::io::Write;
use std::path::Path;

use shaderdbg_session::ExceptionFilters;

use crate::error::Error;
use crate::protocol::{
    Breakpoint, ExceptionBreakpointsFilter, SetBreakpointsArguments, SetBreakpointsResponseBody,
    SetExceptionBreakpointsArguments, SetExceptionBreakpointsResponseBody, SourceBreakpoint,
};
use crate::sources::SourceError;
use crate::state::Adapter;

/// The exception filters offered: (filter, label).
const EXCEPTION_FILTERS: [(&str, &str); 6] = [
    ("nan_inf", "NaN or Inf written to an output"),
    ("gl_error", "GL error"),
    ("compile_error", "Shader failed to compile"),
    ("sanitize_oob", "Out-of-bounds index (sanitizer)"),
    (
        "sanitize_uninit",
        "Local or shared memory read before written (sanitizer)",
    ),
    (
        "sanitize_race",
        "Data race on shared memory or a storage buffer (sanitizer)",
    ),
];

/// The exception filters offered (`initialize`), all off by default.
pub fn exception_filters() -> Vec<ExceptionBreakpointsFilter> {
    EXCEPTION_FILTERS
        .iter()
        .map(|(filter, label)| ExceptionBreakpointsFilter {
            filter: filter.to_string(),
            label: label.to_string(),
            default: Some(false),
        })
        .collect()
}

impl<W: Write> Adapter<W> {
    pub fn set_breakpoints(
        &mut self,
        mut a: SetBreakpointsArguments,
    ) -> Result<SetBreakpointsResponseBody, Error> {
        // The deprecated form: lines only.
        let mut requested = a.breakpoints.take().unwrap_or_else(|| {
            a.lines
                .take()
                .unwrap_or_default()
                .into_iter()
                .map(|line| SourceBreakpoint {
                    line,
                    ..Default::default()
                })
                .collect()
        });
        for b in &mut requested {
            b.line = self.line_in(b.line);
        }
        let file = match (&a.source.path, a.source.source_reference.filter(|&r| r > 0)) {
            (_, Some(r)) => self.sources.file(r),
            (Some(path), None) => {
                Path::new(path)
                    .canonicalize()
                    .map_err(|source| SourceError::Unreadable {
                        path: path.clone(),
                        source,
                    })
            }
            (None, None) => Err(SourceError::Unnamed),
        };
        let mut breakpoints = self.breakpoints.set(&a.source, file, &requested);
        for b in &mut breakpoints {
            b.line = b.line.map(|l| l - i64::from(!self.lines_start_at1));
        }
        if self.live() {
            let list = self.breakpoints.list();
            if self.call(None, move |s| s.set_breakpoints(list)).is_err() {
                tracing::debug!("breakpoints not sent: the program has ended");
            }
        }
        Ok(SetBreakpointsResponseBody { breakpoints })
    }

    pub fn exception_filter_state(&self) -> ExceptionFilters {
        let on = |f: &str| self.exception_filters.iter().any(|x| x == f);
        ExceptionFilters {
            nan_inf: on("nan_inf"),
            gl_error: on("gl_error"),
            compile_error: on("compile_error"),
            sanitize_oob: on("sanitize_oob"),
            sanitize_uninit: on("sanitize_uninit"),
            sanitize_race: on("sanitize_race"),
        }
    }

    pub fn set_exception_breakpoints(
        &mut self,
        a: SetExceptionBreakpointsArguments,
    ) -> Result<SetExceptionBreakpointsResponseBody, Error> {
        let known = EXCEPTION_FILTERS.map(|(f, _)| f);
        let mut answer = Vec::new();
        let mut filters = Vec::new();
        for f in a.filters {
            let message = if known.contains(&f.as_str()) {
                filters.push(f);
                None
            } else {
                Some(format!(
                    "no exception filter `{f}` (there are {})",
                    known.join(", ")
                ))
            };
            answer.push(Breakpoint {
                verified: message.is_none(),
                message,
                ..Default::default()
            });
        }
        let before = self.exception_filter_state();
        self.exception_filters = filters;
        let now = self.exception_filter_state();
        if now != before && self.live() {
            let _ = self.call(None, move |s| s.set_exception_filters(now));
        }
        Ok(SetExceptionBreakpointsResponseBody {
            breakpoints: Some(answer),
        })
    }
}
