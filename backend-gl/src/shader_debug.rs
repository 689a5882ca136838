//! The language engines as the agent uses them: a shader's runtime sources
//! parsed once, breakpoints bound to steps, instrumented variants generated.
//! Its probe table is the one the session decodes with (it travels in
//! `Stopped`), so agent and session agree on probe ids by construction.
//!
//! GLSL goes to the GLSL engine. GLSL that naga wrote for a WGSL file and
//! that names its WGSL in a header (`shaderdbg_wgsl::gl_origin`, what the
//! built-in host compiles) is debugged as that WGSL: the WGSL engine
//! instruments the naga module and emits GLSL 4.30 again, so probes, lines
//! and breakpoint conditions are WGSL's.

use shaderdbg_core::decode::{decode_hits, decode_sanitizer, Hit, SanitizerReport};
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::{Invocation, Stage, Type};
use shaderdbg_glsl::instrument::{self, Breakpoint, InstrumentError, Mode, Request, Target};
use shaderdbg_glsl::parse::{parse, Parsed};
use shaderdbg_protocol as proto;
use shaderdbg_wgsl as wgsl;

/// A shader the debugger may set breakpoints in.
pub struct ShaderDebug {
    pub table: ProbeTable,
    engine: Engine,
}

enum Engine {
    Glsl(Parsed),
    /// GLSL naga wrote from WGSL: the WGSL module and the entry point.
    Wgsl {
        parsed: Box<wgsl::Parsed>,
        entry_point: String,
    },
}

/// Why the engine could not serve a request for a shader.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShaderDebugError {
    #[error("the shader does not parse (line {line}): {message}")]
    Parse { line: u32, message: String },
    #[error("no executable statement at or after line {0}")]
    NoStatement(u32),
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    /// The WGSL engine could not instrument or emit.
    #[error("{0}")]
    Wgsl(String),
}

/// A breakpoint after binding: the step it uses and the line it moved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundBreakpoint {
    pub requested_line: u32,
    pub line: u32,
    pub probe: u32,
    pub condition: Option<String>,
}

impl ShaderDebug {
    /// Parses runtime sources; the error is what the debugger shows as the
    /// reason breakpoints in this shader stay unverified.
    pub fn new(stage: Stage, sources: &[String]) -> Result<ShaderDebug, ShaderDebugError> {
        if let Some(origin) = wgsl::gl_origin::extract(&sources.concat()) {
            return Self::new_wgsl(origin);
        }
        let strings: Vec<&str> = sources.iter().map(String::as_str).collect();
        let parsed = parse(&strings, stage, None).map_err(|d| ShaderDebugError::Parse {
            line: parsed_location(&strings, d.span.start),
            message: d.message,
        })?;
        let table = instrument::probe_table(&parsed);
        Ok(ShaderDebug {
            table,
            engine: Engine::Glsl(parsed),
        })
    }

    fn new_wgsl(origin: wgsl::gl_origin::WgslOrigin) -> Result<ShaderDebug, ShaderDebugError> {
        let parsed = wgsl::parse(&origin.source).map_err(|e| {
            let (line, message) = match e {
                wgsl::ParseError::Syntax { message, line, .. }
                | wgsl::ParseError::Invalid { message, line, .. } => (line, message),
            };
            ShaderDebugError::Parse { line, message }
        })?;
        let table = wgsl::probe_table(&parsed, &origin.entry_point)
            .map_err(|e| ShaderDebugError::Wgsl(e.to_string()))?;
        Ok(ShaderDebug {
            table,
            engine: Engine::Wgsl {
                parsed: Box::new(parsed),
                entry_point: origin.entry_point,
            },
        })
    }

    /// The parsed GLSL (`None` for a shader debugged as WGSL).
    pub fn glsl(&self) -> Option<&Parsed> {
        match &self.engine {
            Engine::Glsl(p) => Some(p),
            Engine::Wgsl { .. } => None,
        }
    }

    /// Whether the shader is debugged as WGSL.
    pub fn is_wgsl(&self) -> bool {
        matches!(self.engine, Engine::Wgsl { .. })
    }

    /// The first step of the entry point (`main` in GLSL).
    fn entry_step(&self) -> Option<&shaderdbg_core::probes::Probe> {
        match self.engine {
            Engine::Glsl(_) => self.table.main_entry_step(),
            Engine::Wgsl { .. } => self.table.entry_step(),
        }
    }

    /// GLSL 4.30 core of the WGSL module instrumented for `mode`, the debug
    /// buffer at GL storage binding `binding` (and the watched value's type).
    fn wgsl_glsl(
        &self,
        mode: wgsl::Mode,
        target: Target,
        binding: u32,
        only: Option<Invocation>,
    ) -> Result<(String, Option<Type>), ShaderDebugError> {
        if !self.is_wgsl() {
            return Err(ShaderDebugError::Wgsl("not a WGSL shader".into()));
        }
        if target.es {
            return Err(ShaderDebugError::Wgsl(
                "WGSL is debugged in desktop GL contexts only (GLSL 4.30 core)".into(),
            ));
        }
        let inst = self
            .wgsl_instrument(mode, binding, only)
            .map_err(|e| ShaderDebugError::Wgsl(e.to_string()))?;
        // The program's own resources get no `binding =`: the debug draw
        // copies the application's block bindings and uniforms by name.
        let glsl = wgsl::emit::to_glsl(&inst, &Default::default())
            .map_err(|e| ShaderDebugError::Wgsl(e.to_string()))?;
        Ok((glsl, inst.watch_type))
    }

    /// The WGSL module instrumented for `mode` (no GLSL emitted), the debug
    /// buffer at GL storage binding `binding`.
    fn wgsl_instrument(
        &self,
        mode: wgsl::Mode,
        binding: u32,
        only: Option<Invocation>,
    ) -> Result<wgsl::Instrumented, wgsl::InstrumentError> {
        let Engine::Wgsl {
            parsed,
            entry_point,
        } = &self.engine
        else {
            unreachable!("wgsl_instrument is called for WGSL shaders only");
        };
        // A group of its own: the module's (group, binding) pairs are
        // naga's, the GL binding is what the agent found free.
        let group = parsed
            .module
            .global_variables
            .iter()
            .filter_map(|(_, g)| g.binding.map(|b| b.group + 1))
            .max()
            .unwrap_or(0);
        wgsl::instrument(
            parsed,
            &wgsl::Request {
                entry_point: entry_point.clone(),
                mode,
                group,
                binding,
                only,
            },
        )
    }

    fn wgsl_breakpoints(bps: &[BoundBreakpoint]) -> Vec<wgsl::Breakpoint> {
        bps.iter()
            .map(|b| wgsl::Breakpoint {
                probe: b.probe,
                condition: b.condition.clone(),
            })
            .collect()
    }

    /// Binds breakpoints to the step on their line or the next line that has
    /// one; line 0 means the first step of `main`.
    pub fn bind(
        &self,
        requested: &[proto::LineBreakpoint],
    ) -> Vec<Result<BoundBreakpoint, ShaderDebugError>> {
        requested
            .iter()
            .map(|b| {
                let step = if b.line == 0 {
                    self.entry_step()
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
                None => Err(ShaderDebugError::NoStatement(b.line)),
            })
            .collect()
    }

    fn instrument(
        &self,
        mode: Mode,
        target: Target,
        binding: u32,
    ) -> Result<instrument::Instrumented, ShaderDebugError> {
        let Engine::Glsl(parsed) = &self.engine else {
            return Err(ShaderDebugError::Wgsl(
                "this is not available for WGSL yet".into(),
            ));
        };
        Ok(instrument::instrument(
            parsed,
            &Request {
                mode,
                target,
                binding,
            },
        )?)
    }

    /// Whether a bound breakpoint's condition parses and type-checks in the
    /// scope of its statement (checked in the shader's own dialect).
    pub fn check_condition(&self, b: &BoundBreakpoint) -> Result<(), ShaderDebugError> {
        if b.condition.is_none() {
            return Ok(());
        }
        let parsed = match &self.engine {
            Engine::Glsl(p) => p,
            Engine::Wgsl { .. } => {
                // Instrumenting checks the condition; no GLSL is emitted.
                let mode = wgsl::Mode::HitTest(Self::wgsl_breakpoints(std::slice::from_ref(b)));
                return match self.wgsl_instrument(mode, 0, None) {
                    Err(e @ wgsl::InstrumentError::Condition { .. }) => {
                        Err(ShaderDebugError::Wgsl(e.to_string()))
                    }
                    _ => Ok(()),
                };
            }
        };
        let target = if parsed.version.is_es() {
            Target::ES
        } else {
            Target::COMPAT
        };
        let mode = Mode::HitTest(vec![Breakpoint {
            probe: b.probe,
            condition: b.condition.clone(),
        }]);
        match instrument::instrument(
            parsed,
            &Request {
                mode,
                target,
                binding: 0,
            },
        ) {
            Err(e @ InstrumentError::Condition { .. }) => Err(e.into()),
            _ => Ok(()),
        }
    }

    /// GLSL of the hit test for these breakpoints (a hit's tag is the
    /// breakpoint's index in `bps`), with NaN/Inf checks after output writes
    /// when `nan_inf` (tag `HitTag::NanInf`). `only`: the invocation whose
    /// hits count (the pixel filter; GLSL shaders get it as a condition
    /// instead, see `stops::attempts`).
    pub fn hit_test(
        &self,
        bps: &[BoundBreakpoint],
        nan_inf: bool,
        target: Target,
        binding: u32,
        only: Option<Invocation>,
    ) -> Result<String, ShaderDebugError> {
        if self.is_wgsl() {
            let bps = Self::wgsl_breakpoints(bps);
            let mode = if nan_inf {
                wgsl::Mode::HitTestNanInf(bps)
            } else {
                wgsl::Mode::HitTest(bps)
            };
            return Ok(self.wgsl_glsl(mode, target, binding, only)?.0);
        }
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

    /// GLSL of the sanitized shader (`Mode::Sanitize`): its violations go
    /// to a report buffer (`core::layout::new_sanitize_buffer`) at `binding`.
    pub fn sanitize(
        &self,
        checks: instrument::Checks,
        target: Target,
        binding: u32,
    ) -> Result<String, ShaderDebugError> {
        Ok(self
            .instrument(Mode::Sanitize(checks), target, binding)?
            .glsl)
    }

    /// The reports of a sanitize buffer, in the core decoder's order, and
    /// whether some were lost.
    pub fn sanitizer_reports(&self, words: &[u32]) -> (Vec<SanitizerReport>, bool) {
        decode_sanitizer(words, &self.table)
    }

    /// GLSL recording one invocation.
    pub fn record(
        &self,
        selector: Invocation,
        target: Target,
        binding: u32,
    ) -> Result<String, ShaderDebugError> {
        if self.is_wgsl() {
            return Ok(self
                .wgsl_glsl(wgsl::Mode::Record(selector), target, binding, None)?
                .0);
        }
        Ok(self
            .instrument(Mode::Record(selector), target, binding)?
            .glsl)
    }

    /// GLSL capturing `expr` at `line` for every invocation, and the type
    /// of the values.
    pub fn watch(
        &self,
        line: u32,
        expr: &str,
        target: Target,
        binding: u32,
    ) -> Result<(String, Type), ShaderDebugError> {
        let probe = self
            .table
            .step_for_line(line)
            .ok_or(ShaderDebugError::NoStatement(line))?
            .id;
        if self.is_wgsl() {
            let mode = wgsl::Mode::Watch {
                probe,
                expr: expr.to_string(),
            };
            let (glsl, ty) = self.wgsl_glsl(mode, target, binding, None)?;
            let ty = ty.ok_or_else(|| {
                ShaderDebugError::Wgsl(format!("watch expression `{expr}`: it has no type here"))
            })?;
            return Ok((glsl, ty));
        }
        let out = self.instrument(
            Mode::Watch {
                probe,
                expr: expr.to_string(),
            },
            target,
            binding,
        )?;
        let ty = out.watch_type.ok_or_else(|| InstrumentError::Watch {
            expr: expr.to_string(),
            message: "it has no type here".into(),
        })?;
        Ok((out.glsl, ty))
    }

    /// The hits of a hit buffer, in the core decoder's deterministic order.
    pub fn hits(&self, words: &[u32]) -> (Vec<Hit>, bool) {
        decode_hits(words, &self.table)
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
                id: 0,
                line: 4,
                condition: None,
            },
            proto::LineBreakpoint {
                id: 1,
                line: 6,
                condition: Some("x > 1.0".into()),
            },
            proto::LineBreakpoint {
                id: 2,
                line: 40,
                condition: None,
            },
        ]);
        assert_eq!(bound[0].as_ref().map(|b| b.line), Ok(5));
        assert_eq!(bound[1].as_ref().map(|b| b.line), Ok(6));
        assert!(bound[2].is_err());
        let ok: Vec<BoundBreakpoint> = bound.into_iter().filter_map(Result::ok).collect();
        let glsl = d.hit_test(&ok, false, Target::CORE, 5, None).unwrap();
        assert!(glsl.contains("_sdbg_hit1(x > 1.)"), "{glsl}");
    }

    /// GLSL with a `gl_origin` header is debugged as its WGSL: the WGSL
    /// engine's table, WGSL lines, WGSL conditions, line 0 the first step
    /// of the entry point, naga's GLSL out.
    #[test]
    fn glsl_that_names_its_wgsl_is_debugged_as_wgsl() {
        const WGSL: &str = "fn half(v: f32) -> f32 {
    return v * 0.5;
}

@fragment
fn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let x = half(pos.x);
    return vec4<f32>(x, 0.0, 0.0, 1.0);
}
";
        let origin = wgsl::gl_origin::WgslOrigin {
            entry_point: "fs".into(),
            file: "a.wgsl".into(),
            file_lines: 0,
            source: WGSL.into(),
        };
        let glsl = wgsl::gl_origin::embed(&origin, "#version 430 core\nvoid main() {}\n");
        let d = ShaderDebug::new(Stage::Fragment, &[glsl]).unwrap();
        assert!(d.is_wgsl() && d.glsl().is_none());
        let parsed = wgsl::parse(WGSL).unwrap();
        assert_eq!(d.table, wgsl::probe_table(&parsed, "fs").unwrap());
        let bp = |id, line, condition: Option<&str>| proto::LineBreakpoint {
            id,
            line,
            condition: condition.map(str::to_string),
        };
        let bound = d.bind(&[bp(0, 0, None), bp(1, 8, Some("x > 1.0")), bp(2, 20, None)]);
        assert_eq!(
            bound[0].as_ref().map(|b| b.line),
            Ok(7),
            "the entry point's first step"
        );
        assert_eq!(bound[1].as_ref().map(|b| b.line), Ok(8));
        assert!(bound[2].is_err());
        let ok: Vec<BoundBreakpoint> = bound.into_iter().filter_map(Result::ok).collect();
        assert_eq!(d.check_condition(&ok[1]), Ok(()));
        let bad = BoundBreakpoint {
            condition: Some("x > 1".into()),
            ..ok[1].clone()
        };
        assert!(d.check_condition(&bad).is_ok(), "1 converts to f32 in WGSL");
        let bad = BoundBreakpoint {
            condition: Some("y > 1.0".into()),
            ..ok[1].clone()
        };
        let e = d.check_condition(&bad).unwrap_err().to_string();
        assert!(e.contains("`y`"), "{e}");
        let out = d.hit_test(
            &ok,
            false,
            Target::CORE,
            3,
            Some(Invocation::fragment(1, 2)),
        );
        let out = out.unwrap();
        assert!(out.starts_with("#version 430 core"), "{out}");
        assert!(out.contains("binding = 3"), "{out}");
        let e = d.hit_test(&ok, false, Target::ES, 3, None).unwrap_err();
        assert!(e.to_string().contains("desktop"), "{e}");
        let (_, ty) = d.watch(8, "pos.xy * x", Target::CORE, 3).unwrap();
        assert_eq!(ty.to_string(), "vec2");
    }

    #[test]
    fn unparsable_shaders_say_why() {
        let err = ShaderDebug::new(
            Stage::Fragment,
            &["void main() {\n  x = ;\n}\n".to_string()],
        )
        .err()
        .unwrap();
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    /// The type travels with the watch image: the session decodes with the
    /// type the instrumenter gave the expression in the scope of its line.
    #[test]
    fn watch_expressions_are_typed_in_the_scope_of_their_line() {
        const SHADER: &str = "#version 330 core
out vec4 color;
void main() {
    vec2 p = gl_FragCoord.xy;
    float r = length(p);
    color = vec4(p, r, 1.0);
}
";
        let d = ShaderDebug::new(Stage::Fragment, &[SHADER.to_string()]).unwrap();
        let type_at = |line: u32, expr: &str| {
            d.watch(line, expr, Target::CORE, 3)
                .map(|(_, t)| t.to_string())
                .map_err(|e| e.to_string())
        };
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
