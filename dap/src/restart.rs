//! `restart` of a recording: a trace replays the same way every time, so the
//! adapter can bring the session back to the stop the user was at. It counts
//! the stops shown so far; the new replay runs with the same breakpoints and
//! filters, every stop before that count is resumed without being shown,
//! and the one at the count is shown if it is the same place ([`StopKey`]:
//! frame, draw, invocation, line, breakpoints), with thread 1's cursor
//! where it was. Anything else (a different
//! stop there, the replay ending first) is said in the console and the
//! replay starts once more, to stop at its first stop.

use shaderdbg_session::stop::Stop;

/// Where a stop is, as far as "the same stop" goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopKey {
    pub frame: u64,
    pub draw: u64,
    /// The invocation shown first (thread 1), as its thread is named.
    pub invocation: String,
    pub stage: String,
    /// The runtime line the invocation stopped at.
    pub line: u32,
    /// The session's breakpoints (indices) the stop is for.
    pub breakpoints: Vec<usize>,
}

impl StopKey {
    pub fn of(stop: &Stop) -> StopKey {
        StopKey {
            frame: stop.frame,
            draw: stop.draw,
            invocation: stop.hit.invocation.to_string(),
            stage: stop.stage.to_string(),
            line: stop.hit.line,
            breakpoints: stop.breakpoints.clone(),
        }
    }
}

impl std::fmt::Display for StopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at line {} of draw {}, frame {}",
            self.invocation, self.line, self.draw, self.frame
        )
    }
}

/// The stop a restarted replay returns to.
#[derive(Clone, Debug)]
pub struct Seek {
    /// Its number among the stops shown (1 = the first).
    pub ordinal: u64,
    pub key: StopKey,
    /// Where thread 1's cursor was (steps moved within the stop are kept).
    pub cursor: usize,
}

/// What to do with a stop that comes while seeking.
#[derive(Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Before the one sought: resume without showing it.
    Skip,
    /// The one sought: show it.
    Found,
    /// Another stop where the one sought should be.
    Different,
}

impl Seek {
    /// Stop number `ordinal` (counted from 1) has come, at `key`.
    pub fn arrival(&self, ordinal: u64, key: &StopKey) -> Arrival {
        if ordinal < self.ordinal {
            Arrival::Skip
        } else if ordinal == self.ordinal && *key == self.key {
            Arrival::Found
        } else {
            Arrival::Different
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(frame: u64, invocation: &str) -> StopKey {
        StopKey {
            frame,
            draw: 0,
            invocation: invocation.into(),
            stage: "fragment".into(),
            line: 9,
            breakpoints: vec![0],
        }
    }

    #[test]
    fn stops_before_are_skipped_and_the_one_sought_checked() {
        let s = Seek {
            ordinal: 2,
            key: key(1, "fragment (48,0)"),
            cursor: 0,
        };
        assert_eq!(s.arrival(1, &key(0, "fragment (48,0)")), Arrival::Skip);
        assert_eq!(s.arrival(2, &key(1, "fragment (48,0)")), Arrival::Found);
        assert_eq!(s.arrival(2, &key(1, "fragment (49,0)")), Arrival::Different);
        assert_eq!(s.arrival(3, &key(1, "fragment (48,0)")), Arrival::Different);
        assert_eq!(
            key(1, "fragment (48,0)").to_string(),
            "fragment (48,0) at line 9 of draw 0, frame 1"
        );
    }
}
