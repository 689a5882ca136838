//! The Debug Adapter Protocol messages this adapter reads and writes, as
//! serde types (only the fields it uses; unknown fields are ignored).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A client request.
#[derive(Debug, Clone, Deserialize)]
pub struct Request {
    pub seq: i64,
    #[serde(rename = "type")]
    pub kind: String,
    pub command: String,
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// What this adapter can do, as `initialize` answers it. Only what works is
/// declared; everything left out is `false`/absent.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub supports_configuration_done_request: bool,
    pub supports_conditional_breakpoints: bool,
    pub supports_hit_conditional_breakpoints: bool,
    pub supports_log_points: bool,
    pub supports_step_back: bool,
    pub supports_evaluate_for_hovers: bool,
    pub supports_terminate_request: bool,
    pub support_terminate_debuggee: bool,
    pub supports_loaded_sources_request: bool,
    pub exception_breakpoint_filters: Vec<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeArguments {
    #[serde(rename = "clientID", default)]
    pub client_id: Option<String>,
    #[serde(rename = "adapterID", default)]
    pub adapter_id: Option<String>,
    #[serde(default)]
    pub lines_start_at1: Option<bool>,
    #[serde(default)]
    pub supports_progress_reporting: Option<bool>,
}

/// `launch`: a program (or a fragment shader file to run in the built-in
/// host), where and when to stop.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchArguments {
    pub program: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    /// Values `null` unset nothing (the program gets the adapter's environment
    /// plus these).
    #[serde(default)]
    pub env: BTreeMap<String, Option<String>>,
    /// Only stop in this frame (frames count from 0).
    #[serde(default)]
    pub frame: Option<u64>,
    /// Only invocations at this pixel (`gl_FragCoord`, origin bottom-left)
    /// stop; without breakpoints, every fragment covering it stops (pixel history).
    #[serde(default)]
    pub pixel: Option<[u32; 2]>,
    #[serde(default)]
    pub stop_on_entry: bool,
    #[serde(default)]
    pub no_debug: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_reference: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceBreakpoint {
    pub line: i64,
    #[serde(default)]
    pub column: Option<i64>,
    #[serde(default)]
    pub condition: Option<String>,
    #[serde(default)]
    pub hit_condition: Option<String>,
    #[serde(default)]
    pub log_message: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetBreakpointsArguments {
    pub source: Source,
    #[serde(default)]
    pub breakpoints: Option<Vec<SourceBreakpoint>>,
    /// Deprecated form: lines only.
    #[serde(default)]
    pub lines: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Breakpoint {
    pub id: i64,
    pub verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetExceptionBreakpointsArguments {
    #[serde(default)]
    pub filters: Vec<String>,
}

/// `continue`, `next`, `stepIn`, `stepOut`, `stepBack`, `reverseContinue`, `pause`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadArguments {
    pub thread_id: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Thread {
    pub id: i64,
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceArguments {
    pub thread_id: i64,
    #[serde(default)]
    pub start_frame: Option<usize>,
    #[serde(default)]
    pub levels: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    pub id: i64,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    pub line: i64,
    pub column: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopesArguments {
    pub frame_id: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presentation_hint: Option<String>,
    pub variables_reference: i64,
    pub named_variables: usize,
    pub expensive: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VariablesArguments {
    pub variables_reference: i64,
    #[serde(default)]
    pub start: Option<usize>,
    #[serde(default)]
    pub count: Option<usize>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    pub name: String,
    pub value: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluate_name: Option<String>,
    pub variables_reference: i64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateArguments {
    pub expression: String,
    #[serde(default)]
    pub frame_id: Option<i64>,
    #[serde(default)]
    pub context: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceArguments {
    #[serde(default)]
    pub source: Option<Source>,
    #[serde(default)]
    pub source_reference: Option<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisconnectArguments {
    #[serde(default)]
    pub terminate_debuggee: Option<bool>,
}

// ---- response bodies ---------------------------------------------------------

#[derive(Debug, Clone, Serialize)]
pub struct SetBreakpointsResponse {
    pub breakpoints: Vec<Breakpoint>,
}

/// One answer of `setExceptionBreakpoints`.
#[derive(Debug, Clone, Serialize)]
pub struct FilterAnswer {
    pub verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SetExceptionBreakpointsResponse {
    pub breakpoints: Vec<FilterAnswer>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThreadsResponse {
    pub threads: Vec<Thread>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceResponse {
    pub stack_frames: Vec<StackFrame>,
    pub total_frames: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScopesResponse {
    pub scopes: Vec<Scope>,
}

#[derive(Debug, Clone, Serialize)]
pub struct VariablesResponse {
    pub variables: Vec<Variable>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResponse {
    pub result: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub variables_reference: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceResponse {
    pub content: String,
    pub mime_type: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LoadedSourcesResponse {
    pub sources: Vec<Source>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueResponse {
    pub all_threads_continued: bool,
}

/// Why a request gets `success: false`: the `message` of the response.
#[derive(Debug, thiserror::Error)]
pub enum AdapterError {
    #[error("invalid arguments for `{command}`: {source}")]
    Arguments {
        command: String,
        source: serde_json::Error,
    },
    #[error("unknown or unsupported command `{0}`")]
    UnknownCommand(String),
    #[error("`{0}` before `initialize`: the adapter must be initialized first")]
    NotInitialized(String),
    #[error(transparent)]
    Session(#[from] shaderdbg_session::SessionError),
    #[error(transparent)]
    Ended(#[from] crate::engine::ProgramEnded),
    /// The request cannot be served in this state; the reason, for the user.
    #[error("{0}")]
    Refused(String),
}

impl From<String> for AdapterError {
    fn from(reason: String) -> Self {
        AdapterError::Refused(reason)
    }
}

impl From<&str> for AdapterError {
    fn from(reason: &str) -> Self {
        AdapterError::Refused(reason.to_string())
    }
}

/// Every request this adapter knows, with its typed arguments; anything
/// else is `Unknown` (and still gets a response).
#[derive(Debug, Clone)]
pub enum Command {
    Initialize(InitializeArguments),
    Launch(Box<LaunchArguments>),
    Attach,
    SetBreakpoints(SetBreakpointsArguments),
    SetExceptionBreakpoints(SetExceptionBreakpointsArguments),
    ConfigurationDone,
    Threads,
    StackTrace(StackTraceArguments),
    Scopes(ScopesArguments),
    Variables(VariablesArguments),
    Evaluate(EvaluateArguments),
    Source(SourceArguments),
    LoadedSources,
    Next(ThreadArguments),
    StepIn(ThreadArguments),
    StepOut(ThreadArguments),
    StepBack(ThreadArguments),
    Continue(ThreadArguments),
    ReverseContinue(ThreadArguments),
    Pause(ThreadArguments),
    Terminate,
    Disconnect(DisconnectArguments),
    /// The extension's requests (contract in `custom`).
    FrameImage,
    DebugPixel(crate::custom::DebugPixelArguments),
    ValuesImage(crate::custom::ValuesImageArguments),
    Unknown(String),
}

impl Command {
    /// The request's command with its arguments parsed; malformed
    /// arguments are an error the response carries.
    pub fn parse(req: &Request) -> Result<Command, AdapterError> {
        fn args<T: serde::de::DeserializeOwned>(req: &Request) -> Result<T, AdapterError> {
            arguments(req)
        }
        Ok(match req.command.as_str() {
            "initialize" => Command::Initialize(args(req)?),
            "launch" => Command::Launch(Box::new(args(req)?)),
            "attach" => Command::Attach,
            "setBreakpoints" => Command::SetBreakpoints(args(req)?),
            "setExceptionBreakpoints" => Command::SetExceptionBreakpoints(args(req)?),
            "configurationDone" => Command::ConfigurationDone,
            "threads" => Command::Threads,
            "stackTrace" => Command::StackTrace(args(req)?),
            "scopes" => Command::Scopes(args(req)?),
            "variables" => Command::Variables(args(req)?),
            "evaluate" => Command::Evaluate(args(req)?),
            "source" => Command::Source(args(req)?),
            "loadedSources" => Command::LoadedSources,
            "next" => Command::Next(args(req)?),
            "stepIn" => Command::StepIn(args(req)?),
            "stepOut" => Command::StepOut(args(req)?),
            "stepBack" => Command::StepBack(args(req)?),
            "continue" => Command::Continue(args(req)?),
            "reverseContinue" => Command::ReverseContinue(args(req)?),
            "pause" => Command::Pause(args(req)?),
            "terminate" => Command::Terminate,
            "disconnect" => Command::Disconnect(args(req)?),
            crate::custom::FRAME_IMAGE => Command::FrameImage,
            crate::custom::DEBUG_PIXEL => Command::DebugPixel(args(req)?),
            crate::custom::VALUES_IMAGE => Command::ValuesImage(args(req)?),
            other => Command::Unknown(other.to_string()),
        })
    }
}

/// Parses a request's arguments (`{}` when absent).
pub fn arguments<T: serde::de::DeserializeOwned>(req: &Request) -> Result<T, AdapterError> {
    let v = req
        .arguments
        .clone()
        .unwrap_or_else(|| Value::Object(Default::default()));
    serde_json::from_value(v).map_err(|source| AdapterError::Arguments {
        command: req.command.clone(),
        source,
    })
}
