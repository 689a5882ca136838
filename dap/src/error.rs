//! Why a request failed. The `Display` text is the response's `message`
//! (clients show it as is), so each variant says what to do differently.

use shaderdbg_session::SessionError;

use crate::custom::NotAnImage;
use crate::engine::Ended;
use crate::framing::FrameError;
use crate::launch::LaunchError;
use crate::sources::SourceError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Frame(FrameError),
    #[error("not a DAP request: {0}")]
    NotARequest(serde_json::Error),
    #[error("`{0}` before `initialize`: the adapter must be initialized first")]
    NotInitialized(String),
    #[error("invalid arguments for `{command}`: {source}")]
    Arguments {
        command: String,
        source: serde_json::Error,
    },
    #[error("unknown or unsupported command `{0}`")]
    UnknownCommand(String),
    #[error("attach is not supported: use launch")]
    AttachUnsupported,
    #[error("cannot encode the response: {0}")]
    Encode(serde_json::Error),

    #[error("already initialized")]
    AlreadyInitialized,
    #[error("already launched")]
    AlreadyLaunched,
    #[error("cannot launch: {0}")]
    Launch(#[from] LaunchError),
    #[error("`launch` first: configurationDone starts the launched program")]
    NotLaunched,
    #[error("the program has already started")]
    AlreadyStarted,
    #[error("the program has not started")]
    NotStarted,
    #[error(transparent)]
    Ended(#[from] Ended),
    #[error("the program is not running")]
    NotRunning,
    #[error("the program is not stopped")]
    NotStopped,
    #[error("stopped outside a draw: there are no shader values here")]
    OutsideDraw,
    #[error("the program is not stopped: there are no values to evaluate over")]
    NoValues,

    #[error("no thread {0}")]
    NoThread(i64),
    #[error("thread {0} is not recorded")]
    NotRecorded(i64),
    #[error("cannot record {invocation}: {source}")]
    Record {
        invocation: String,
        source: SessionError,
    },
    #[error("no frame {0}")]
    NoFrame(i64),
    #[error("frame {0} has no recorded step")]
    NoFrameStep(i64),
    #[error("the draw's frame has no values: pick a shader frame")]
    LabelFrame,
    #[error("no variables reference {0} (the program moved on?)")]
    NoVariables(i64),

    #[error("cannot evaluate `{expr}` yet: {message}")]
    CannotEvaluate { expr: String, message: String },
    #[error("{0}")]
    InvalidExpression(String),
    #[error("an empty expression")]
    EmptyExpression,
    #[error("`source` needs a sourceReference")]
    NoSourceReference,
    #[error(transparent)]
    Source(#[from] SourceError),

    #[error("stopped outside a draw (no framebuffer to show)")]
    NoFramebuffer,
    #[error("the program is not stopped at a draw")]
    NotAtDraw,
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    NotAnImage(#[from] NotAnImage),
    /// A custom request's failure, prefixed with its command.
    #[error("{command}: {source}")]
    In {
        command: &'static str,
        source: Box<Error>,
    },
}

impl Error {
    /// `e` as a failure of custom request `command`.
    pub fn within(command: &'static str, e: impl Into<Error>) -> Error {
        Error::In {
            command,
            source: Box::new(e.into()),
        }
    }
}
