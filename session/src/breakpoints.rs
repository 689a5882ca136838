//! What happens when invocations reach breakpoints: the session decides, not
//! a front end. The agent reports every invocation whose breakpoint
//! condition held (tagged with the breakpoint's id); here:
//!
//! - each breakpoint counts the invocations that reach it, across draws (an
//!   invocation counts once per draw, in the agent's order: primitive, then
//!   y, then x); a breakpoint with a [`HitCondition`] stops only at an
//!   invocation whose count satisfies it;
//! - a logpoint never stops: the invocations that reach it (at most
//!   [`LOGPOINT_CAP`] per logpoint and draw) are recorded and its message is
//!   printed with `{expression}`s evaluated, once per time the invocation
//!   reached the line; a line says how many more reached it unprinted;
//! - the program stops at the first invocation (in that order) whose
//!   breakpoint says so, and goes on if none does.

use std::collections::{HashMap, HashSet};

use shaderdbg_core::{Hit, HitTag, Invocation};

use crate::binding::FileBreakpoint;
use crate::eval;
use crate::present;
use crate::stop::Stop;

/// At most this many invocations per logpoint and draw are recorded and printed.
pub const LOGPOINT_CAP: usize = 32;

/// When a breakpoint stops, by how many times it was reached (a DAP
/// `hitCondition`; gdb's `ignore N` is `> N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HitCondition {
    AtLeast(u64),
    Greater(u64),
    Equal(u64),
    Less(u64),
    AtMost(u64),
    Every(u64),
}

/// As it is written: `>= 3`, `% 4`, ...
impl std::fmt::Display for HitCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HitCondition::AtLeast(n) => write!(f, ">= {n}"),
            HitCondition::Greater(n) => write!(f, "> {n}"),
            HitCondition::Equal(n) => write!(f, "== {n}"),
            HitCondition::Less(n) => write!(f, "< {n}"),
            HitCondition::AtMost(n) => write!(f, "<= {n}"),
            HitCondition::Every(n) => write!(f, "% {n}"),
        }
    }
}

/// A hit condition that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HitConditionError {
    #[error(
        "hit condition `{0}`: expected N, >= N, > N, == N, < N, <= N or % N with N a whole number"
    )]
    Syntax(String),
    #[error("hit condition `{0}`: % 0")]
    EveryZero(String),
}

impl HitCondition {
    /// `N` (the same as `>= N`), `>= N`, `> N`, `== N`, `< N`, `<= N`, `% N`.
    pub fn parse(text: &str) -> Result<HitCondition, HitConditionError> {
        let t = text.trim();
        let (op, rest) = [">=", "<=", "==", ">", "<", "%", "="]
            .iter()
            .find_map(|op| t.strip_prefix(op).map(|r| (*op, r)))
            .unwrap_or(("", t));
        let n: u64 = rest
            .trim()
            .parse()
            .map_err(|_| HitConditionError::Syntax(text.to_string()))?;
        Ok(match op {
            "" | ">=" => HitCondition::AtLeast(n),
            ">" => HitCondition::Greater(n),
            "==" | "=" => HitCondition::Equal(n),
            "<" => HitCondition::Less(n),
            "<=" => HitCondition::AtMost(n),
            _ if n == 0 => return Err(HitConditionError::EveryZero(text.to_string())),
            _ => HitCondition::Every(n),
        })
    }

    /// Whether the `count`-th hit (from 1) stops.
    pub fn holds(self, count: u64) -> bool {
        match self {
            HitCondition::AtLeast(n) => count >= n,
            HitCondition::Greater(n) => count > n,
            HitCondition::Equal(n) => count == n,
            HitCondition::Less(n) => count < n,
            HitCondition::AtMost(n) => count <= n,
            HitCondition::Every(n) => count.is_multiple_of(n),
        }
    }
}

/// What the hits of one draw come to.
#[derive(Debug, Default)]
pub(crate) struct Decision {
    /// The hit to stop at, and the breakpoints (indices) it stops for.
    pub stop: Option<(Hit, Vec<usize>)>,
    /// Logpoint hits to print: (breakpoint index, hit), in order.
    pub logs: Vec<(usize, Hit)>,
    /// Per logpoint (breakpoint index), the invocations past
    /// [`LOGPOINT_CAP`] that reached it and are not printed.
    pub unlogged: Vec<(usize, usize)>,
}

/// Hit counts of a breakpoint list.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    counts: Vec<u64>,
}

impl Counts {
    /// Counts for a new list: a breakpoint equal to one of the old list
    /// keeps its count (clients send a file's whole list again when one of
    /// its breakpoints changes).
    pub fn carry_over(&self, old: &[FileBreakpoint], new: &[FileBreakpoint]) -> Counts {
        let counts = new
            .iter()
            .map(|b| {
                old.iter()
                    .position(|o| o == b)
                    .and_then(|i| self.counts.get(i).copied())
                    .unwrap_or(0)
            })
            .collect();
        Counts { counts }
    }

    pub fn get(&self, index: usize) -> u64 {
        self.counts.get(index).copied().unwrap_or(0)
    }

    /// Goes through a draw's hits in order. `targets(id)` are the indices of
    /// the breakpoints a hit tagged `Breakpoint(id)` is for.
    pub fn decide(
        &mut self,
        breakpoints: &[FileBreakpoint],
        hits: &[Hit],
        targets: impl Fn(u32) -> Vec<usize>,
    ) -> Decision {
        if self.counts.len() < breakpoints.len() {
            self.counts.resize(breakpoints.len(), 0);
        }
        let mut d = Decision::default();
        let mut seen: HashSet<(u32, Invocation)> = HashSet::new();
        let mut logged: HashMap<usize, usize> = HashMap::new();
        for h in hits {
            let HitTag::Breakpoint(id) = h.tag else {
                continue;
            };
            // An invocation reaching the line again (a loop) is one hit.
            if !seen.insert((id, h.invocation)) {
                continue;
            }
            let mut stops_for = Vec::new();
            for i in targets(id) {
                let Some(bp) = breakpoints.get(i) else {
                    continue;
                };
                if bp.log_message.is_some() {
                    let n = logged.entry(i).or_default();
                    *n += 1;
                    if *n <= LOGPOINT_CAP {
                        d.logs.push((i, *h));
                    }
                    continue;
                }
                self.counts[i] += 1;
                if bp.hit_condition.is_none_or(|c| c.holds(self.counts[i])) {
                    stops_for.push(i);
                }
            }
            if d.stop.is_none() && !stops_for.is_empty() {
                d.stop = Some((*h, stops_for));
            }
        }
        d.unlogged = logged
            .into_iter()
            .filter(|&(_, n)| n > LOGPOINT_CAP)
            .map(|(i, n)| (i, n - LOGPOINT_CAP))
            .collect();
        d.unlogged.sort_unstable();
        d
    }
}

/// A logpoint's message for every time the recorded invocation reached
/// `runtime_line` (consecutive steps on one line are one reach),
/// `{expression}`s evaluated before the line, prefixed with the invocation.
pub fn logpoint_lines(stop: &Stop, runtime_line: u32, message: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut previous: Option<usize> = None;
    for (step, s) in stop.trace.steps.iter().enumerate() {
        if s.line != runtime_line {
            continue;
        }
        let consecutive = previous.is_some_and(|p| p + 1 == step);
        previous = Some(step);
        if consecutive {
            continue;
        }
        let text = interpolate(message, |expr| {
            match eval::evaluate_at(stop, step, expr, None) {
                Ok(t) => present::format_in(&t.ty, &t.value, stop.language()),
                Err(e) => format!("<{expr}: {e}>"),
            }
        });
        out.push(format!("[{}] {text}", stop.invocation_name()));
    }
    out
}

/// `{expr}` replaced by `eval(expr)`; `{{` and `}}` are braces.
pub fn interpolate(message: &str, mut eval: impl FnMut(&str) -> String) -> String {
    let mut out = String::new();
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut expr = String::new();
                let mut depth = 0;
                let mut closed = false;
                for c in chars.by_ref() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            closed = true;
                            break;
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                    expr.push(c);
                }
                if closed {
                    out.push_str(&eval(expr.trim()));
                } else {
                    out.push('{');
                    out.push_str(&expr);
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use shaderdbg_core::Invocation;

    use super::HitCondition as H;
    use super::*;

    #[test]
    fn hit_conditions() {
        assert_eq!(H::parse("3"), Ok(H::AtLeast(3)));
        assert_eq!(H::parse(">= 3"), Ok(H::AtLeast(3)));
        assert_eq!(H::parse("> 2"), Ok(H::Greater(2)));
        assert_eq!(H::parse("==5"), Ok(H::Equal(5)));
        assert_eq!(H::parse("% 4"), Ok(H::Every(4)));
        assert!(H::parse("% 0").is_err());
        assert!(H::parse("lots")
            .unwrap_err()
            .to_string()
            .contains("expected N"));
        assert!(H::Every(4).holds(8) && !H::Every(4).holds(6));
        assert!(H::Equal(2).holds(2) && !H::Equal(2).holds(3));
    }

    #[test]
    fn interpolation() {
        let r = interpolate("x={x} {{lit}} y={ y }", |e| format!("<{e}>"));
        assert_eq!(r, "x=<x> {lit} y=<y>");
        assert_eq!(interpolate("open {x", |e| e.into()), "open {x");
    }

    fn hit(id: u32, x: u32) -> Hit {
        Hit {
            tag: HitTag::Breakpoint(id),
            probe: 1,
            line: 3,
            occurrence: 0,
            invocation: Invocation::fragment(x, 0),
        }
    }

    /// Hit counts run across draws, once per invocation and draw; the stop
    /// is the first invocation whose count satisfies the condition; a
    /// logpoint on the same line logs and never stops.
    #[test]
    fn counts_decide_the_stop_and_logpoints_only_log() {
        let file = PathBuf::from("/s.frag");
        let mut third = FileBreakpoint::new(file.clone(), 3, None);
        third.hit_condition = Some(H::Equal(3));
        let mut log = FileBreakpoint::new(file.clone(), 3, None);
        log.log_message = Some("x".into());
        let bps = vec![third, log];
        let mut counts = Counts::default();
        let both = |_: u32| vec![0, 1];
        // Draw 1: two invocations (one of them twice, a loop): counts 1, 2.
        let d = counts.decide(&bps, &[hit(0, 1), hit(0, 1), hit(0, 2)], both);
        assert!(d.stop.is_none());
        assert_eq!(d.logs.len(), 2);
        assert_eq!(counts.get(0), 2);
        // Draw 2: the third invocation stops, the fourth still counts.
        let d = counts.decide(&bps, &[hit(0, 7), hit(0, 8)], both);
        let (h, for_) = d.stop.expect("a stop");
        assert_eq!((h.invocation, for_), (Invocation::fragment(7, 0), vec![0]));
        assert_eq!(counts.get(0), 4);
        // The same list again keeps the counts; a changed breakpoint starts over.
        let kept = counts.carry_over(&bps, &bps);
        assert_eq!(kept.get(0), 4);
        let mut changed = bps.clone();
        changed[0].hit_condition = Some(H::Equal(4));
        assert_eq!(counts.carry_over(&bps, &changed).get(0), 0);
    }

    #[test]
    fn logpoints_are_capped_per_draw() {
        let mut log = FileBreakpoint::new(PathBuf::from("/s.frag"), 3, None);
        log.log_message = Some("x".into());
        let hits: Vec<Hit> = (0..100).map(|x| hit(0, x)).collect();
        let d = Counts::default().decide(&[log], &hits, |_| vec![0]);
        assert_eq!(d.logs.len(), LOGPOINT_CAP);
        assert_eq!(d.unlogged, vec![(0, 100 - LOGPOINT_CAP)]);
        assert!(d.stop.is_none());
    }
}
