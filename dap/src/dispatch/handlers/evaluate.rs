//! `evaluate`: hover, watch and console expressions over the values at a frame.

use crate::dispatch::*;

impl<W: Write> Server<W> {
    pub(in crate::dispatch) fn evaluate(&mut self, a: p::EvaluateArguments) -> Reply {
        let (t, step) = self.frame_or_cursor(a.frame_id)?;
        let expr = a.expression.trim();
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
            evaluate::evaluate_at(
                &s.stop,
                step,
                expr,
                gpu.as_mut().map(|g| g as &mut dyn eval::GpuWatch),
            )
        };
        match result {
            Ok(t) => {
                let v = self.handles.variable(expr, &t.ty, Some(&t.value), expr);
                json_body(p::EvaluateResponse {
                    result: v.value,
                    ty: v.ty,
                    variables_reference: v.variables_reference,
                })
            }
            Err(EvalError::Unsupported(m)) => {
                Err(format!("cannot evaluate `{expr}` yet: {m}").into())
            }
            Err(EvalError::Invalid(m)) => Err(m.into()),
        }
    }
}
