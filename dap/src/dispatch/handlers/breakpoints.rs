//! `setBreakpoints` and `setExceptionBreakpoints`: the client's lists, given to the session engine.

use crate::dispatch::*;

impl<W: Write> Server<W> {
    pub(in crate::dispatch) fn set_breakpoints(
        &mut self,
        mut a: p::SetBreakpointsArguments,
    ) -> Reply {
        let mut requested = a.breakpoints.take().unwrap_or_else(|| {
            a.lines
                .clone()
                .unwrap_or_default()
                .into_iter()
                .map(|line| p::SourceBreakpoint {
                    line,
                    column: None,
                    condition: None,
                    hit_condition: None,
                    log_message: None,
                })
                .collect()
        });
        for b in &mut requested {
            b.line = self.line_in(b.line);
        }
        let file = match (&a.source.path, a.source.source_reference.filter(|&r| r > 0)) {
            (_, Some(r)) => self.sources.file(r),
            (Some(path), None) => Path::new(path)
                .canonicalize()
                .map_err(|e| format!("cannot read {path}: {e}").into()),
            (None, None) => Err("a source needs a path or a sourceReference".into()),
        };
        let mut answer = self.breakpoints.set(&a.source, file, &requested);
        for b in &mut answer {
            b.line = b.line.map(|l| l - i64::from(!self.lines_start_at1));
        }
        if self.engine.is_some() && !matches!(self.state, State::Exited) {
            let list = self.breakpoints.list();
            if self.call(None, move |s| s.set_breakpoints(list)).is_err() {
                tracing::debug!("breakpoints not sent: the program has ended");
            }
        }
        json_body(p::SetBreakpointsResponse {
            breakpoints: answer,
        })
    }

    pub(in crate::dispatch) fn exception_filter_state(&self) -> ExceptionFilters {
        let on = |f: &str| self.exception_filters.iter().any(|x| x == f);
        ExceptionFilters {
            nan_inf: on("nan_inf"),
            gl_error: on("gl_error"),
            compile_error: on("compile_error"),
        }
    }

    pub(in crate::dispatch) fn set_exception_breakpoints(
        &mut self,
        a: p::SetExceptionBreakpointsArguments,
    ) -> Reply {
        let known = ["nan_inf", "gl_error", "compile_error"];
        let mut answer = Vec::new();
        let mut filters = Vec::new();
        for f in &a.filters {
            if known.contains(&f.as_str()) {
                filters.push(f.clone());
                answer.push(p::FilterAnswer {
                    verified: true,
                    message: None,
                });
            } else {
                answer.push(p::FilterAnswer {
                    verified: false,
                    message: Some(format!(
                        "no exception filter `{f}` (there are {})",
                        known.join(", ")
                    )),
                });
            }
        }
        let before = self.exception_filter_state();
        self.exception_filters = filters;
        let now = self.exception_filter_state();
        if now != before && self.engine.is_some() && !matches!(self.state, State::Exited) {
            let _ = self.call(None, move |s| s.set_exception_filters(now));
        }
        json_body(p::SetExceptionBreakpointsResponse {
            breakpoints: answer,
        })
    }
}
