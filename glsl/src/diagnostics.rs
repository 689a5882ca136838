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

/// What a diagnostic is about, for tools that treat some differently (an
/// editor leaves out errors about names that only a broken statement
/// declared) without reading the message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The parser's: the text is not GLSL.
    Syntax,
    /// An `#include` that cannot be expanded.
    Include,
    /// A name used where none is declared (a variable or a function).
    Undeclared(String),
    /// A value of the wrong type; the struct types involved, by name.
    Types(Vec<String>),
    #[default]
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    pub message: String,
    pub kind: DiagnosticKind,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, span, message.into())
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, span, message.into())
    }

    fn new(severity: Severity, span: Span, message: String) -> Diagnostic {
        Diagnostic {
            severity,
            span,
            kind: DiagnosticKind::Other,
            message,
        }
    }

    /// The same diagnostic with its kind (set where the problem is found).
    pub fn with_kind(self, kind: DiagnosticKind) -> Diagnostic {
        Diagnostic { kind, ..self }
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
