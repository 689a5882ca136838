//! Values for people: formatting in the stop's language (`vec3(1.0, 0.5,
//! 0.25)`, WGSL's `vec3<f32>(1.0, 0.5, 0.25)`) and the
//! expandable parts of vectors, matrices, arrays and structs, with the
//! `variablesReference` handles that name them while the program is stopped.

use shaderdbg_core::Language;
use shaderdbg_glsl::{Type, Value};
pub use shaderdbg_session::present::{format, format_in, parts};
use shaderdbg_session::stop::Scope as VarScope;

use crate::protocol::Variable;

/// What a `variablesReference` stands for.
#[derive(Clone, Debug)]
pub enum Handle {
    /// The variables of one scope, as they are before `step` executes.
    Scope {
        /// Thread index (thread id - 1).
        thread: usize,
        step: usize,
        scope: ScopeKind,
    },
    /// The parts of a value.
    Value {
        ty: Type,
        value: Value,
        evaluate_name: String,
    },
}

/// The scopes shown for a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    Locals,
    Inputs,
    Builtins,
    Globals,
}

impl ScopeKind {
    pub const ALL: [ScopeKind; 4] = [
        ScopeKind::Locals,
        ScopeKind::Inputs,
        ScopeKind::Builtins,
        ScopeKind::Globals,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ScopeKind::Locals => "Locals",
            ScopeKind::Inputs => "Inputs & Uniforms",
            ScopeKind::Builtins => "Built-ins",
            ScopeKind::Globals => "Outputs & Globals",
        }
    }

    pub fn holds(self, s: VarScope) -> bool {
        matches!(
            (self, s),
            (ScopeKind::Locals, VarScope::Local)
                | (ScopeKind::Inputs, VarScope::Input)
                | (ScopeKind::Builtins, VarScope::Builtin)
                | (ScopeKind::Globals, VarScope::Global)
        )
    }
}

/// Handles, valid until the cursor moves or the program resumes.
#[derive(Default)]
pub struct Handles {
    items: Vec<Handle>,
    /// The language type names and values are spelled in (the stop's
    /// shader's; set where a stop's variables are read).
    pub language: Language,
}

impl Handles {
    pub fn clear(&mut self) {
        self.items.clear();
    }

    pub fn add(&mut self, h: Handle) -> i64 {
        self.items.push(h);
        self.items.len() as i64
    }

    pub fn get(&self, reference: i64) -> Option<&Handle> {
        usize::try_from(reference)
            .ok()
            .and_then(|r| r.checked_sub(1))
            .and_then(|r| self.items.get(r))
    }

    /// A DAP variable for a value; parts get a handle.
    pub fn variable(
        &mut self,
        name: &str,
        ty: &Type,
        value: Option<&Value>,
        eval: &str,
    ) -> Variable {
        let (text, reference) = match value {
            None => ("not written yet".to_string(), 0),
            Some(v) => {
                let r = if has_parts(ty, v) {
                    self.add(Handle::Value {
                        ty: ty.clone(),
                        value: v.clone(),
                        evaluate_name: eval.to_string(),
                    })
                } else {
                    0
                };
                (format_in(ty, v, self.language), r)
            }
        };
        Variable {
            name: name.to_string(),
            value: text,
            ty: Some(ty.display_in(self.language).to_string()),
            evaluate_name: Some(eval.to_string()),
            variables_reference: reference,
        }
    }
}

fn has_parts(ty: &Type, v: &Value) -> bool {
    matches!(
        (ty, v),
        (
            Type::Vector(..) | Type::Matrix { .. } | Type::Array(..),
            Value::List(_)
        ) | (Type::Struct(_), Value::Struct(_))
    )
}
