//! Errors and warnings about a shader, with the span they concern.

use std::fmt;

/// A byte range in [`crate::parse::SourceText::text`] (the debug core's span).
pub use shaderdbg_core::probes::Span;

/// The span of a glsl-lang node.
pub fn span_from_node(span: Option<glsl_lang::ast::NodeSpan>) -> Span {
    span.map_or(Span::default(), |s| Span {
        start: usize::from(s.start().offset),
        end: usize::from(s.end().offset),
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    pub message: String,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            span,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}: {}", self.message)
    }
}

impl std::error::Error for Diagnostic {}
