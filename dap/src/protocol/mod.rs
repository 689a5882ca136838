//! The Debug Adapter Protocol messages this adapter reads and writes.
//!
//! - [`generated`]: the standard DAP types it uses (arguments, response and
//!   event bodies), generated from the protocol's JSON schema by
//!   `tests/protocol_types.rs`. Generated rather than taken from a crate:
//!   the schema is the reference every client follows, the generator keeps
//!   only the properties the adapter uses (others are ignored when read, as
//!   before) and names its few deviations (a required property clients
//!   leave out, counts read as `usize`), and no dependency with its own
//!   parsing or writing comes along — framing and dispatch stay ours.
//! - [`Request`]: every request as one enum, parsed from a frame; a
//!   command the adapter does not know is [`Request::Unknown`], so it is
//!   still answered.
//! - [`Event`]: the events it sends, with their bodies.
//! - [`LaunchArguments`]: `launch` is adapter-specific (the schema leaves
//!   its arguments open); the custom requests are in [`crate::custom`].
//!
//! The adapter sends no reverse requests (`runInTerminal`,
//! `startDebugging`), so a response from the client answers nothing: it is
//! logged with its `request_seq` and dropped, as are client events.

pub mod generated;

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::custom::{self, DebugPixelArguments, ValuesImageArguments};
use crate::error::Error;
pub use generated::*;

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

/// `restart`: the latest launch configuration, when the client sends one
/// (VS Code does); without it the session restarts as it was launched.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestartArguments {
    #[serde(default)]
    pub arguments: Option<LaunchArguments>,
}

/// A message from the client, as far as its envelope goes.
#[derive(Debug)]
pub enum Incoming {
    /// A request: `command` decides how `arguments` are read ([`Request::parse`]).
    Request {
        seq: i64,
        command: String,
        arguments: Option<Value>,
    },
    /// Not a request (`type` is `response`, `event`, or something else).
    Ignored {
        kind: String,
        request_seq: Option<i64>,
    },
    /// Not a DAP message: answered with what could be read of it.
    Malformed {
        seq: i64,
        command: String,
        error: Error,
    },
}

#[derive(Deserialize)]
struct Envelope {
    seq: i64,
    #[serde(rename = "type")]
    kind: String,
    command: String,
    #[serde(default)]
    arguments: Option<Value>,
}

impl Incoming {
    pub fn read(msg: Value) -> Incoming {
        let kind = msg.get("type").and_then(Value::as_str).map(str::to_string);
        let request_seq = msg.get("request_seq").and_then(Value::as_i64);
        match serde_json::from_value::<Envelope>(msg.clone()) {
            Ok(e) if e.kind == "request" => Incoming::Request {
                seq: e.seq,
                command: e.command,
                arguments: e.arguments,
            },
            Ok(e) => Incoming::Ignored {
                kind: e.kind,
                request_seq,
            },
            Err(_) if matches!(kind.as_deref(), Some("response" | "event")) => Incoming::Ignored {
                kind: kind.unwrap_or_default(),
                request_seq,
            },
            Err(e) => Incoming::Malformed {
                seq: msg.get("seq").and_then(Value::as_i64).unwrap_or(0),
                command: msg
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                error: Error::NotARequest(e),
            },
        }
    }
}

/// Every request, with its arguments read. Requests whose arguments the
/// adapter does not use carry none (whatever was sent is not looked at).
#[derive(Debug)]
pub enum Request {
    // Lifecycle.
    Initialize(InitializeRequestArguments),
    Launch(LaunchArguments),
    Attach,
    ConfigurationDone,
    Disconnect(DisconnectArguments),
    Terminate,
    Restart(RestartArguments),
    // Breakpoints.
    SetBreakpoints(SetBreakpointsArguments),
    SetExceptionBreakpoints(SetExceptionBreakpointsArguments),
    // Execution.
    Continue(ContinueArguments),
    Next(NextArguments),
    StepIn(StepInArguments),
    StepOut(StepOutArguments),
    StepBack(StepBackArguments),
    ReverseContinue(ReverseContinueArguments),
    Pause(PauseArguments),
    // The stack.
    Threads,
    StackTrace(StackTraceArguments),
    Scopes(ScopesArguments),
    Variables(VariablesArguments),
    Evaluate(EvaluateArguments),
    // Sources.
    Source(SourceArguments),
    LoadedSources,
    // The extension's (see `custom`).
    FrameImage,
    DebugPixel(DebugPixelArguments),
    ValuesImage(ValuesImageArguments),
    /// Anything else: answered with an error.
    Unknown {
        command: String,
        arguments: Option<Value>,
    },
}

impl Request {
    /// Reads the arguments of `command` (`{}` when absent).
    pub fn parse(command: &str, arguments: Option<Value>) -> Result<Request, Error> {
        let args = arguments
            .clone()
            .unwrap_or_else(|| Value::Object(Default::default()));
        Ok(match command {
            // Lifecycle.
            "initialize" => Request::Initialize(read(command, args)?),
            "launch" => Request::Launch(read(command, args)?),
            "attach" => Request::Attach,
            "configurationDone" => Request::ConfigurationDone,
            "disconnect" => Request::Disconnect(read(command, args)?),
            "terminate" => Request::Terminate,
            "restart" => Request::Restart(read(command, args)?),
            // Breakpoints.
            "setBreakpoints" => Request::SetBreakpoints(read(command, args)?),
            "setExceptionBreakpoints" => Request::SetExceptionBreakpoints(read(command, args)?),
            // Execution.
            "continue" => Request::Continue(read(command, args)?),
            "next" => Request::Next(read(command, args)?),
            "stepIn" => Request::StepIn(read(command, args)?),
            "stepOut" => Request::StepOut(read(command, args)?),
            "stepBack" => Request::StepBack(read(command, args)?),
            "reverseContinue" => Request::ReverseContinue(read(command, args)?),
            "pause" => Request::Pause(read(command, args)?),
            // The stack.
            "threads" => Request::Threads,
            "stackTrace" => Request::StackTrace(read(command, args)?),
            "scopes" => Request::Scopes(read(command, args)?),
            "variables" => Request::Variables(read(command, args)?),
            "evaluate" => Request::Evaluate(read(command, args)?),
            // Sources.
            "source" => Request::Source(read(command, args)?),
            "loadedSources" => Request::LoadedSources,
            // The extension's.
            custom::FRAME_IMAGE => Request::FrameImage,
            custom::DEBUG_PIXEL => Request::DebugPixel(read(command, args)?),
            custom::VALUES_IMAGE => Request::ValuesImage(read(command, args)?),
            _ => Request::Unknown {
                command: command.to_string(),
                arguments,
            },
        })
    }
}

fn read<T: DeserializeOwned>(command: &str, args: Value) -> Result<T, Error> {
    serde_json::from_value(args).map_err(|source| Error::Arguments {
        command: command.to_string(),
        source,
    })
}

/// The events the adapter sends (`body` as the variant's data).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", content = "body", rename_all = "camelCase")]
pub enum Event {
    Initialized,
    Stopped(StoppedEventBody),
    Output(OutputEventBody),
    Breakpoint(BreakpointEventBody),
    Process(ProcessEventBody),
    Exited(ExitedEventBody),
    Terminated,
    ProgressStart(ProgressStartEventBody),
    ProgressEnd(ProgressEndEventBody),
    /// The extension's event (see `custom`).
    #[serde(rename = "shaderdbg/runtimeSource")]
    RuntimeSource(crate::custom::RuntimeSourceBody),
}

impl Event {
    /// An `output` event in the debug console.
    pub fn console(text: String) -> Event {
        Event::Output(OutputEventBody {
            category: Some("console".into()),
            output: text,
            ..Default::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_have_the_dap_shape() {
        let v = serde_json::to_value(Event::Initialized).unwrap();
        assert_eq!(v, json!({"event": "initialized"}));
        let v = serde_json::to_value(Event::ProgressEnd(ProgressEndEventBody {
            progress_id: "p".into(),
        }))
        .unwrap();
        assert_eq!(
            v,
            json!({"event": "progressEnd", "body": {"progressId": "p"}})
        );
    }

    #[test]
    fn requests_parse_by_command() {
        let r = Request::parse("next", Some(json!({"threadId": 2}))).unwrap();
        assert!(matches!(r, Request::Next(NextArguments { thread_id: 2 })));
        let r = Request::parse("threads", None).unwrap();
        assert!(matches!(r, Request::Threads));
        let r = Request::parse("frobnicate", Some(json!(1))).unwrap();
        assert!(matches!(r, Request::Unknown { command, .. } if command == "frobnicate"));
        let e = Request::parse("next", Some(json!({"thread": 1}))).unwrap_err();
        assert!(
            e.to_string().starts_with("invalid arguments for `next`"),
            "{e}"
        );
    }
}
