//! What the GPU tests share.

use shaderdbg_core::decode::InvocationTrace;
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_glsl::Value;

/// The value of `name` in scope at the last step of `main` (depth 0).
pub fn final_value(inv: &InvocationTrace, table: &ProbeTable, name: &str) -> Value {
    let step = (0..inv.steps.len())
        .rev()
        .find(|&i| inv.steps[i].depth == 0)
        .expect("a step in main");
    inv.variables_at(step, table)
        .into_iter()
        .find(|(d, _)| table.vars[*d].name == name)
        .and_then(|(_, v)| v)
        .unwrap_or_else(|| panic!("{name} has no value at the last step"))
}
