//! The GLSL engine as the agent uses it: a shader's runtime sources parsed once,
//! breakpoints bound to steps, instrumented variants generated, hits turned into
//! protocol records in a deterministic order.

use shaderdbg_glsl::instrument::{self, Breakpoint, Mode, Request, Selector, Target};
use shaderdbg_glsl::layout;
use shaderdbg_glsl::parse::{parse, Parsed};
use shaderdbg_glsl::probes::ProbeTable;
use shaderdbg_glsl::Stage;
use shaderdbg_protocol as proto;

/// A shader the debugger may set breakpoints in.
pub struct ShaderDebug {
    pub parsed: Parsed,
    pub table: ProbeTable,
}

/// A breakpoint after binding: the step it uses and the line it moved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundBreakpoint {
    pub requested_line: u32,
    pub line: u32,
    pub probe: u32,
    pub condition: Option<String>,
}

pub fn stage_from_gl(shader_type: u32) -> Option<Stage> {
    Some(match shader_type {
        0x8B31 => Stage::Vertex,
        0x8B30 => Stage::Fragment,
        0x8DD9 => Stage::Geometry,
        0x8E88 => Stage::TessControl,
        0x8E87 => Stage::TessEvaluation,
        0x91B9 => Stage::Compute,
        _ => return None,
    })
}

pub fn stage_to_protocol(s: Stage) -> proto::Stage {
    match s {
        Stage::Vertex => proto::Stage::Vertex,
        Stage::TessControl => proto::Stage::TessControl,
        Stage::TessEvaluation => proto::Stage::TessEvaluation,
        Stage::Geometry => proto::Stage::Geometry,
        Stage::Fragment => proto::Stage::Fragment,
        Stage::Compute => proto::Stage::Compute,
    }
}

pub fn selector_from_protocol(s: proto::Selector) -> Selector {
    match s {
        proto::Selector::Fragment { x, y, primitive } => Selector::Fragment { x, y, primitive },
        proto::Selector::Vertex { vertex, instance } => Selector::Vertex { vertex, instance },
        proto::Selector::Compute { id } => Selector::Compute { id },
    }
}

impl ShaderDebug {
    /// Parses runtime sources; the error is what the debugger shows as the
    /// reason breakpoints in this shader stay unverified.
    pub fn new(stage: Stage, sources: &[String]) -> Result<ShaderDebug, String> {
        let strings: Vec<&str> = sources.iter().map(String::as_str).collect();
        let parsed = parse(&strings, stage, None).map_err(|d| {
            let loc = parsed_location(&strings, d.span.start);
            format!("the shader does not parse (line {loc}): {}", d.message)
        })?;
        let table = instrument::probe_table(&parsed);
        Ok(ShaderDebug { parsed, table })
    }

    /// Binds breakpoints to the step on their line or the next line that has
    /// one; line 0 means the first step of `main`.
    pub fn bind(
        &self,
        requested: &[proto::LineBreakpoint],
    ) -> Vec<Result<BoundBreakpoint, (u32, String)>> {
        requested
            .iter()
            .map(|b| {
                let step = if b.line == 0 {
                    self.table.main_entry_step()
                } else {
                    self.table.step_for_line(b.line)
                };
                (b, step)
            })
            .map(|(b, step)| match step {
                Some(p) => Ok(BoundBreakpoint {
                    requested_line: b.line,
                    line: p.line,
                    probe: p.id,
                    condition: b.condition.clone(),
                }),
                None => Err((
                    b.line,
                    format!("no executable statement at or after line {}", b.line),
                )),
            })
            .collect()
    }

    fn instrument(
        &self,
        mode: Mode,
        target: Target,
        binding: u32,
    ) -> Result<instrument::Instrumented, String> {
        instrument::instrument(
            &self.parsed,
            &Request {
                mode,
                target,
                binding,
            },
        )
        .map_err(|e| e.to_string())
    }

    /// Whether a bound breakpoint's condition parses and type-checks in the
    /// scope of its statement (checked in the shader's own dialect).
    pub fn check_condition(&self, b: &BoundBreakpoint) -> Result<(), String> {
        if b.condition.is_none() {
            return Ok(());
        }
        let target = if self.parsed.version.is_es() {
            Target::ES
        } else {
            Target::COMPAT
        };
        let mode = Mode::HitTest(vec![Breakpoint {
            probe: b.probe,
            condition: b.condition.clone(),
        }]);
        match instrument::instrument(
            &self.parsed,
            &Request {
                mode,
                target,
                binding: 0,
            },
        ) {
            Err(e @ instrument::InstrumentError::Condition { .. }) => Err(e.to_string()),
            _ => Ok(()),
        }
    }

    /// GLSL of the hit test for these breakpoints (a hit's tag is the
    /// breakpoint's index in `bps`), with NaN/Inf checks after output writes
    /// when `nan_inf` (tag `layout::HIT_TAG_NAN_INF`).
    pub fn hit_test(
        &self,
        bps: &[BoundBreakpoint],
        nan_inf: bool,
        target: Target,
        binding: u32,
    ) -> Result<String, String> {
        let bps = bps
            .iter()
            .map(|b| Breakpoint {
                probe: b.probe,
                condition: b.condition.clone(),
            })
            .collect();
        let mode = if nan_inf {
            Mode::HitTestNanInf(bps)
        } else {
            Mode::HitTest(bps)
        };
        Ok(self.instrument(mode, target, binding)?.glsl)
    }

    /// GLSL recording one invocation.
    pub fn record(
        &self,
        selector: Selector,
        target: Target,
        binding: u32,
    ) -> Result<String, String> {
        Ok(self
            .instrument(Mode::Record(selector), target, binding)?
            .glsl)
    }

    /// GLSL capturing `expr` at `line` for every invocation, and the words per value.
    pub fn watch(
        &self,
        line: u32,
        expr: &str,
        target: Target,
        binding: u32,
    ) -> Result<(String, u32), String> {
        let probe = self
            .table
            .step_for_line(line)
            .ok_or_else(|| format!("no executable statement at or after line {line}"))?
            .id;
        let out = self.instrument(
            Mode::Watch {
                probe,
                expr: expr.to_string(),
            },
            target,
            binding,
        )?;
        Ok((out.glsl, out.watch_words.unwrap_or(0)))
    }

    /// The hits of a hit buffer as protocol records with their tags (the
    /// breakpoint's index, or `layout::HIT_TAG_NAN_INF`), sorted by
    /// primitive, then y, then x (then occurrence), so every run reports them
    /// in the same order. The records' keys have the tag word zeroed.
    pub fn hits(&self, words: &[u32]) -> (Vec<(u32, proto::Hit)>, bool) {
        let (hits, truncated) = layout::read_hits(words);
        let mut out: Vec<(u32, proto::Hit)> = hits
            .iter()
            .map(|h| {
                (
                    h.tag(),
                    proto::Hit {
                        line: self.table.get(h.probe).map_or(0, |p| p.line),
                        occurrence: h.occurrence,
                        key: h.invocation(),
                        probe: Some(h.probe),
                    },
                )
            })
            .collect();
        // Fragment keys are (x, y, primitive), vertex (vertex, instance), compute (x, y, z).
        out.sort_by_key(|(t, h)| (h.key[2], h.key[1], h.key[0], h.occurrence, h.line, *t));
        (out, truncated)
    }
}

fn parsed_location(strings: &[&str], offset: usize) -> u32 {
    let text: String = strings.concat();
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|b| **b == b'\n')
        .count() as u32
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "#version 330 core\nout vec4 o;\nvoid main() {\n\n    float x = gl_FragCoord.x;\n    o = vec4(x);\n}\n";

    #[test]
    fn breakpoints_bind_to_the_next_step() {
        let d = ShaderDebug::new(Stage::Fragment, &[SRC.to_string()]).unwrap();
        let bound = d.bind(&[
            proto::LineBreakpoint {
                line: 4,
                condition: None,
            },
            proto::LineBreakpoint {
                line: 6,
                condition: Some("x > 1.0".into()),
            },
            proto::LineBreakpoint {
                line: 40,
                condition: None,
            },
        ]);
        assert_eq!(bound[0].as_ref().map(|b| b.line), Ok(5));
        assert_eq!(bound[1].as_ref().map(|b| b.line), Ok(6));
        assert!(bound[2].is_err());
        let ok: Vec<BoundBreakpoint> = bound.into_iter().filter_map(Result::ok).collect();
        let glsl = d.hit_test(&ok, false, Target::CORE, 5).unwrap();
        assert!(glsl.contains(", x > 1.)"), "{glsl}");
    }

    #[test]
    fn unparsable_shaders_say_why() {
        let err = ShaderDebug::new(
            Stage::Fragment,
            &["void main() {\n  x = ;\n}\n".to_string()],
        )
        .err()
        .unwrap();
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn hits_are_sorted_by_primitive_then_y_then_x() {
        let d = ShaderDebug::new(Stage::Fragment, &[SRC.to_string()]).unwrap();
        let step = d.table.step_for_line(5).unwrap().id;
        let mut words = vec![3, 10, 0, 0];
        for key in [[5, 1, 0], [2, 3, 0], [1, 1, 1]] {
            words.extend([step, 0, key[0], key[1], key[2], 0]);
        }
        let (hits, truncated) = d.hits(&words);
        assert!(!truncated);
        let keys: Vec<[u32; 4]> = hits.iter().map(|(_, h)| h.key).collect();
        assert_eq!(keys, vec![[5, 1, 0, 0], [2, 3, 0, 0], [1, 1, 1, 0]]);
        assert!(hits.iter().all(|(t, h)| h.line == 5 && *t == 0));
    }
}
