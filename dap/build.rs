//! Generates `$OUT_DIR/protocol_generated.rs`, included by
//! `src/protocol/mod.rs` as `protocol::generated`: the DAP types this adapter
//! reads and writes, from the protocol's JSON schema
//! (`schema/debugAdapterProtocol.json`, vendored from
//! github.com/microsoft/debug-adapter-protocol) and [`TYPES`]. Generated at
//! build time, like backend-gl's GL entry points, so the types can never
//! drift from the schema and the list.
//!
//! Only the types and properties listed are generated: a property the
//! adapter does not use is not read (unknown fields are ignored, as clients
//! send many) and never written. Strings with an open or closed set of
//! values stay `String` so that an unexpected value is not a malformed
//! request (and the adapter sends its own `stopped` reasons).

use std::fmt::Write as _;

use serde_json::Value;

/// What to generate: a schema definition (or `Definition.body`, the inline
/// body of a response or event, named `DefinitionBody`), and its properties
/// in the order written.
const TYPES: &[(&str, &[&str])] = &[
    // Shared types.
    (
        "Source",
        &["name", "path", "sourceReference", "presentationHint"],
    ),
    (
        "Breakpoint",
        &["id", "verified", "message", "source", "line"],
    ),
    ("Thread", &["id", "name"]),
    (
        "StackFrame",
        &["id", "name", "source", "line", "column", "presentationHint"],
    ),
    (
        "Scope",
        &[
            "name",
            "presentationHint",
            "variablesReference",
            "namedVariables",
            "expensive",
        ],
    ),
    (
        "Variable",
        &[
            "name",
            "value",
            "type",
            "evaluateName",
            "variablesReference",
        ],
    ),
    // initialize
    (
        "InitializeRequestArguments",
        &[
            "clientID",
            "adapterID",
            "linesStartAt1",
            "supportsProgressReporting",
        ],
    ),
    (
        "Capabilities",
        &[
            "supportsConfigurationDoneRequest",
            "supportsConditionalBreakpoints",
            "supportsHitConditionalBreakpoints",
            "supportsLogPoints",
            "supportsStepBack",
            "supportsEvaluateForHovers",
            "supportsTerminateRequest",
            "supportTerminateDebuggee",
            "supportsLoadedSourcesRequest",
            "supportsRestartRequest",
            "exceptionBreakpointFilters",
        ],
    ),
    (
        "ExceptionBreakpointsFilter",
        &["filter", "label", "default"],
    ),
    // disconnect
    ("DisconnectArguments", &["terminateDebuggee"]),
    // setBreakpoints, setExceptionBreakpoints
    (
        "SetBreakpointsArguments",
        &["source", "breakpoints", "lines"],
    ),
    (
        "SourceBreakpoint",
        &["line", "column", "condition", "hitCondition", "logMessage"],
    ),
    ("SetBreakpointsResponse.body", &["breakpoints"]),
    ("SetExceptionBreakpointsArguments", &["filters"]),
    ("SetExceptionBreakpointsResponse.body", &["breakpoints"]),
    // Execution.
    ("ContinueResponse.body", &["allThreadsContinued"]),
    // The stack.
    ("ThreadsResponse.body", &["threads"]),
    ("StackTraceArguments", &["threadId", "startFrame", "levels"]),
    ("StackTraceResponse.body", &["stackFrames", "totalFrames"]),
    ("ScopesArguments", &["frameId"]),
    ("ScopesResponse.body", &["scopes"]),
    (
        "VariablesArguments",
        &["variablesReference", "start", "count"],
    ),
    ("VariablesResponse.body", &["variables"]),
    // evaluate
    ("EvaluateArguments", &["expression", "frameId", "context"]),
    (
        "EvaluateResponse.body",
        &["result", "type", "variablesReference"],
    ),
    // Sources.
    ("SourceArguments", &["source", "sourceReference"]),
    ("SourceResponse.body", &["content", "mimeType"]),
    ("LoadedSourcesResponse.body", &["sources"]),
    // Events.
    (
        "StoppedEvent.body",
        &[
            "reason",
            "description",
            "threadId",
            "text",
            "allThreadsStopped",
            "hitBreakpointIds",
        ],
    ),
    (
        "OutputEvent.body",
        &["category", "output", "source", "line"],
    ),
    ("BreakpointEvent.body", &["reason", "breakpoint"]),
    (
        "ProcessEvent.body",
        &["name", "systemProcessId", "isLocalProcess", "startMethod"],
    ),
    ("ExitedEvent.body", &["exitCode"]),
    ("ProgressStartEvent.body", &["progressId", "title"]),
    ("ProgressEndEvent.body", &["progressId"]),
];

/// Execution requests: only `threadId` is read (no granularity, no single thread).
const THREAD_ONLY: &[&str] = &[
    "ContinueArguments",
    "NextArguments",
    "StepInArguments",
    "StepOutArguments",
    "StepBackArguments",
    "ReverseContinueArguments",
    "PauseArguments",
];

/// Every type generated, with its properties.
fn types() -> impl Iterator<Item = (&'static str, &'static [&'static str])> {
    let thread_only = THREAD_ONLY.iter().map(|t| (*t, &["threadId"][..]));
    TYPES.iter().copied().chain(thread_only)
}

/// Where the adapter reads a property differently from the schema.
enum Override {
    /// Required by the schema, optional here: clients leave it out.
    Optional,
    /// Required by the schema, empty when left out.
    Default,
    /// Read as this Rust type (a count or index: negative is malformed).
    Type(&'static str),
}

const OVERRIDES: &[(&str, &str, Override)] = &[
    (
        "InitializeRequestArguments",
        "adapterID",
        Override::Optional,
    ),
    ("SourceArguments", "sourceReference", Override::Optional),
    (
        "SetExceptionBreakpointsArguments",
        "filters",
        Override::Default,
    ),
    ("StackTraceArguments", "startFrame", Override::Type("usize")),
    ("StackTraceArguments", "levels", Override::Type("usize")),
    ("VariablesArguments", "start", Override::Type("usize")),
    ("VariablesArguments", "count", Override::Type("usize")),
];

fn schema() -> Value {
    let path = "schema/debugAdapterProtocol.json";
    let text = std::fs::read_to_string(path).expect("the vendored DAP schema");
    serde_json::from_str(&text).expect("the DAP schema is JSON")
}

/// The object schema (properties, required) of `Definition` or `Definition.body`.
fn object<'a>(defs: &'a Value, path: &str) -> &'a Value {
    let (name, part) = match path.split_once('.') {
        Some((n, p)) => (n, Some(p)),
        None => (path, None),
    };
    let def = defs
        .get(name)
        .unwrap_or_else(|| panic!("no definition {name}"));
    let Some(part) = part else { return def };
    // Responses and events: `allOf: [base, {properties: {body: ...}}]`.
    def["allOf"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|p| p["properties"].get(part))
        .unwrap_or_else(|| panic!("{name} has no {part}"))
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// `StackTraceResponse.body` -> `StackTraceResponseBody`.
fn rust_name(path: &str) -> String {
    path.split('.').map(capitalize).collect()
}

/// `linesStartAt1` -> `lines_start_at1`, `clientID` -> `client_id`.
fn snake(prop: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in prop.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c.to_ascii_lowercase());
    }
    if out == "type" {
        "ty".into()
    } else {
        out
    }
}

/// What serde's `camelCase` makes of a snake-case field name.
fn camel(field: &str) -> String {
    let mut words = field.split('_');
    let first = words.next().unwrap_or_default().to_string();
    first + &words.map(capitalize).collect::<String>()
}

fn rust_type(prop: &Value, known: &[String]) -> String {
    if let Some(r) = prop["$ref"].as_str() {
        let name = r.trim_start_matches("#/definitions/");
        assert!(
            known.iter().any(|k| k == name),
            "{name} is used but not generated: add it to TYPES"
        );
        return name.to_string();
    }
    match prop["type"].as_str() {
        Some("string") => "String".into(),
        Some("integer") => "i64".into(),
        Some("number") => "f64".into(),
        Some("boolean") => "bool".into(),
        Some("array") => format!("Vec<{}>", rust_type(&prop["items"], known)),
        _ => "serde_json::Value".into(),
    }
}

/// The first paragraph of a description, as doc comment lines.
fn doc(out: &mut String, indent: &str, text: Option<&str>) {
    if let Some(line) = text.and_then(|t| t.lines().next()) {
        let line = line.trim();
        if !line.is_empty() {
            writeln!(out, "{indent}/// {line}").unwrap();
        }
    }
}

fn generate() -> String {
    let schema = schema();
    let defs = &schema["definitions"];
    let known: Vec<String> = types().map(|(p, _)| rust_name(p)).collect();
    let mut out = String::new();
    out.push_str(
        "// Generated by build.rs from schema/debugAdapterProtocol.json.\n\n\
         use serde::{Deserialize, Serialize};\n",
    );
    for (path, props) in types() {
        let obj = object(defs, path);
        let required: Vec<&str> = obj["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        out.push('\n');
        let description = if path.contains('.') {
            let (def, _) = path.split_once('.').unwrap_or_default();
            let base = object(defs, def)["allOf"]
                .as_array()
                .into_iter()
                .flatten()
                .find_map(|p| p["description"].as_str())
                .unwrap_or_default();
            Some(format!("`{path}`: {base}"))
        } else {
            obj["description"].as_str().map(str::to_string)
        };
        doc(&mut out, "", description.as_deref());
        out.push_str("#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]\n");
        out.push_str("#[serde(rename_all = \"camelCase\")]\n");
        writeln!(out, "pub struct {} {{", rust_name(path)).unwrap();
        for prop in props {
            let schema = obj["properties"]
                .get(*prop)
                .unwrap_or_else(|| panic!("{path} has no property {prop}"));
            let field = snake(prop);
            let over = OVERRIDES
                .iter()
                .find(|(p, f, _)| *p == path && f == prop)
                .map(|(_, _, o)| o);
            let mut ty = rust_type(schema, &known);
            if let Some(Override::Type(t)) = over {
                ty = (*t).to_string();
            }
            let optional = !required.contains(prop) || matches!(over, Some(Override::Optional));
            doc(&mut out, "    ", schema["description"].as_str());
            let mut attrs = Vec::new();
            if camel(&field) != *prop {
                attrs.push(format!("rename = \"{prop}\""));
            }
            if matches!(over, Some(Override::Default)) {
                attrs.push("default".to_string());
            } else if optional {
                attrs.push("default".to_string());
                attrs.push("skip_serializing_if = \"Option::is_none\"".to_string());
                ty = format!("Option<{ty}>");
            }
            if !attrs.is_empty() {
                writeln!(out, "    #[serde({})]", attrs.join(", ")).unwrap();
            }
            writeln!(out, "    pub {field}: {ty},").unwrap();
        }
        out.push_str("}\n");
    }
    out
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=schema/debugAdapterProtocol.json");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let path = std::path::Path::new(&out).join("protocol_generated.rs");
    std::fs::write(&path, generate()).expect("writing the generated DAP types");
}
