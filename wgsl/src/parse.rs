//! WGSL text -> validated naga module, with the line index every probe's
//! line comes from. Errors are values with 1-based line and column.

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};

/// A parsed and validated WGSL module.
#[derive(Debug)]
pub struct Parsed {
    pub source: String,
    pub module: naga::Module,
    /// The validator's analysis (expression types, global uses per entry point).
    pub info: ModuleInfo,
    line_starts: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("{line}:{column}: {message}")]
    Syntax {
        message: String,
        line: u32,
        column: u32,
    },
    #[error("{line}:{column}: invalid module: {message}")]
    Invalid {
        message: String,
        line: u32,
        column: u32,
    },
}

impl Parsed {
    /// The same text with another module made from it (naga's compaction
    /// of the module to one entry point, as a program's pipeline compiles
    /// it); spans stay the text's.
    pub fn with_module(&self, module: naga::Module, info: ModuleInfo) -> Parsed {
        Parsed {
            source: self.source.clone(),
            module,
            info,
            line_starts: self.line_starts.clone(),
        }
    }
}

/// The validator shaders are checked with: every capability, since the
/// program that loads the shader decided what its device allows.
pub(crate) fn validator() -> Validator {
    Validator::new(ValidationFlags::all(), Capabilities::all())
}

/// Parses and validates WGSL.
pub fn parse(source: &str) -> Result<Parsed, ParseError> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        let (line, column) = e
            .location(source)
            .map_or((0, 0), |l| (l.line_number, l.line_position));
        ParseError::Syntax {
            message: e.message().to_string(),
            line,
            column,
        }
    })?;
    let info = validator().validate(&module).map_err(|e| {
        // The innermost span (naga lists the function's before the expression's).
        let (line, column) = e
            .spans()
            .map(|(s, _)| *s)
            .filter(naga::Span::is_defined)
            .last()
            .map_or((0, 0), |s| {
                let l = s.location(source);
                (l.line_number, l.line_position)
            });
        ParseError::Invalid {
            message: error_chain(e.as_inner()),
            line,
            column,
        }
    })?;
    Ok(Parsed {
        source: source.to_string(),
        module,
        info,
        line_starts: line_starts(source),
    })
}

/// An error and its sources on one line (naga's messages nest).
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

fn line_starts(source: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(source.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

impl Parsed {
    /// The 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> u32 {
        let i = self.line_starts.partition_point(|&s| s <= offset);
        i.max(1) as u32
    }

    /// The entry point named `name`.
    pub fn entry_point(&self, name: &str) -> Option<usize> {
        self.module.entry_points.iter().position(|e| e.name == name)
    }

    /// Each function's and entry point's name with the first and last
    /// line of its body (from its statements' and locals' spans), in
    /// source order; a function with no statement has none.
    pub fn function_lines(&self) -> Vec<(String, u32, u32)> {
        let functions = self
            .module
            .functions
            .iter()
            .map(|(_, f)| f)
            .chain(self.module.entry_points.iter().map(|e| &e.function));
        let mut out: Vec<(String, u32, u32)> = functions
            .filter_map(|f| {
                let spans = f
                    .body
                    .span_iter()
                    .map(|(_, s)| *s)
                    .chain(
                        f.local_variables
                            .iter()
                            .map(|(h, _)| f.local_variables.get_span(h)),
                    )
                    .filter(naga::Span::is_defined);
                let (mut first, mut last) = (u32::MAX, 0);
                for span in spans {
                    let range = span.to_range()?;
                    first = first.min(self.line_of(range.start));
                    last = last.max(self.line_of(range.end.saturating_sub(1)));
                }
                (first <= last).then(|| (f.name.clone().unwrap_or_default(), first, last))
            })
            .collect();
        out.sort_by_key(|(_, first, _)| *first);
        out
    }

    /// The function a breakpoint on `line` belongs to ([`function_for_line`]).
    pub fn function_for_line(&self, line: u32) -> Option<String> {
        function_for_line(&self.function_lines(), line).map(str::to_string)
    }
}

/// Of [`Parsed::function_lines`], the function a breakpoint on `line`
/// belongs to: the one whose body spans the line, else the first that
/// starts after it.
pub fn function_for_line(lines: &[(String, u32, u32)], line: u32) -> Option<&str> {
    lines
        .iter()
        .find(|(_, first, last)| (*first..=*last).contains(&line))
        .or_else(|| lines.iter().find(|(_, first, _)| *first > line))
        .map(|(name, ..)| name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_line_and_column() {
        let err = parse("fn f() -> f32 {\n  return 1.0 +;\n}\n").unwrap_err();
        assert!(matches!(err, ParseError::Syntax { line: 2, .. }), "{err:?}");
        let err = parse("fn f() -> f32 {\n  return 1u;\n}\n").unwrap_err();
        assert!(
            matches!(err, ParseError::Invalid { line: 2, .. }),
            "{err:?}"
        );
        let ok = parse("fn f() -> f32 {\n  return 1.0;\n}\n").unwrap();
        assert_eq!(ok.line_of(0), 1);
        assert_eq!(ok.line_of(16), 2);
    }

    #[test]
    fn a_line_belongs_to_the_function_around_it_or_the_next_one() {
        let p = parse(
            "@fragment\nfn fs() -> @location(0) vec4<f32> {\n  var a = 1.0;\n  a += 2.0;\n  return vec4<f32>(a);\n}\n\n@vertex\nfn vs() -> @builtin(position) vec4<f32> {\n  return vec4<f32>(0.0);\n}\n",
        )
        .unwrap();
        assert_eq!(
            p.function_lines(),
            [("fs".to_string(), 3, 5), ("vs".to_string(), 10, 10)]
        );
        assert_eq!(p.function_for_line(4).as_deref(), Some("fs"));
        assert_eq!(p.function_for_line(1).as_deref(), Some("fs"));
        assert_eq!(p.function_for_line(7).as_deref(), Some("vs"));
        assert_eq!(p.function_for_line(11), None);
    }
}
