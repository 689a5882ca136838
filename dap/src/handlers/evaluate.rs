//! `evaluate` (hover, watch, repl): an expression over the values before
//! the step of a frame (the current thread's cursor without one), with
//! GLSL semantics ([`crate::evaluate`]).

use std::io::Write;

use shaderdbg_session::{eval, SessionError};

use crate::error::Error;
use crate::evaluate::{self as evaluator, EvalError};
use crate::protocol::{EvaluateArguments, EvaluateResponseBody};
use crate::state::Adapter;

impl<W: Write> Adapter<W> {
    pub fn evaluate(&mut self, a: EvaluateArguments) -> Result<EvaluateResponseBody, Error> {
        let (t, step) = self.frame_or_cursor(a.frame_id)?;
        let expr = a.expression.trim();
        self.handles.language = self.thread_at(t)?.stop.language();
        let result = {
            let s = self.thread_at(t)?;
            // What the CPU cannot evaluate faithfully (texture lookups,
            // derivatives) is watched on the GPU in the stopped draw.
            let engine = self.engine.as_ref().filter(|e| !e.finished());
            let mut gpu = engine.map(|e| {
                move |line: u32, text: &str| {
                    let text = text.to_string();
                    e.call(move |sess| sess.watch(line, &text))
                        .map_err(|ended| SessionError::Agent(ended.to_string()))
                        .and_then(|r| r)
                }
            });
            evaluator::evaluate_at(
                &s.stop,
                step,
                expr,
                gpu.as_mut().map(|g| g as &mut dyn eval::GpuWatch),
            )
        };
        match result {
            Ok(t) => {
                let v = self.handles.variable(expr, &t.ty, Some(&t.value), expr);
                Ok(EvaluateResponseBody {
                    result: v.value,
                    ty: v.ty,
                    variables_reference: v.variables_reference,
                })
            }
            Err(EvalError::Unsupported(message)) => Err(Error::CannotEvaluate {
                expr: expr.to_string(),
                message,
            }),
            Err(EvalError::Invalid(m)) => Err(Error::InvalidExpression(m)),
        }
    }
}
