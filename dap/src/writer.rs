//! Writes responses and events with the adapter's sequence numbers.
//!
//! Messages go through `serde_json::Value` on their way out (as
//! [`framing::write_frame`] takes them), so their keys are written in one
//! sorted order whatever type built them.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::framing;
use crate::protocol::Event;

#[derive(Serialize)]
struct ResponseMessage<'a> {
    seq: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    request_seq: i64,
    command: &'a str,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<Value>,
}

#[derive(Serialize)]
struct EventMessage {
    seq: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    event: Event,
}

pub struct Writer<W: Write> {
    w: W,
    seq: i64,
    broken: bool,
}

impl<W: Write> Writer<W> {
    pub fn new(w: W) -> Self {
        Writer {
            w,
            seq: 0,
            broken: false,
        }
    }

    fn next_seq(&mut self) -> i64 {
        self.seq += 1;
        self.seq
    }

    fn send(&mut self, msg: impl Serialize) {
        let msg = match serde_json::to_value(msg) {
            Ok(m) => m,
            Err(e) => return tracing::warn!("cannot encode a message: {e}"),
        };
        tracing::debug!("<- {msg}");
        if let Err(e) = framing::write_frame(&mut self.w, &msg) {
            if !self.broken {
                tracing::warn!("cannot write to the client: {e}");
            }
            self.broken = true;
        }
    }

    pub fn event(&mut self, event: Event) {
        let seq = self.next_seq();
        self.send(EventMessage {
            seq,
            kind: "event",
            event,
        });
    }

    /// The response to request `request_seq`; a body that is `()` is left out.
    pub fn respond<B: Serialize>(
        &mut self,
        request_seq: i64,
        command: &str,
        result: Result<B, Error>,
    ) {
        let result = result.and_then(|b| serde_json::to_value(b).map_err(Error::Encode));
        let (body, message) = match result {
            Ok(body) => (Some(body).filter(|b| !b.is_null()), None),
            Err(e) => {
                tracing::info!("{command} failed: {e}");
                (None, Some(e.to_string()))
            }
        };
        let seq = self.next_seq();
        self.send(ResponseMessage {
            seq,
            kind: "response",
            request_seq,
            command,
            success: message.is_none(),
            message,
            body,
        });
    }
}
