//! A stop as the adapter shows it: the recorded invocation, the adapter's
//! own cursor into its trace, the invocations that hit (threads), and the
//! moves (`next`, `stepIn`, `stepOut`, `stepBack`, `continue` and
//! `reverseContinue` within the trace). All of it is navigation of the
//! recording: nothing runs on the GPU.

use shaderdbg_glsl::Value;
use shaderdbg_session::stop::{Stop, Variable};
use shaderdbg_session::Hit;

use crate::breakpoints::Breakpoints;
use crate::evaluate::{self, Typed};

/// At most this many threads are listed (a draw can have thousands of hits).
pub const MAX_THREADS: usize = 64;

/// A step move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Over,
    In,
    Out,
    Back,
}

/// A stop at a draw: one thread per invocation that hit (the one shown
/// first is thread 1; a sanitizer stop: the invocations of its report),
/// each recorded when first looked at.
pub struct DrawStop {
    /// Each invocation's first hit; thread id = index + 1.
    pub invocations: Vec<Hit>,
    /// Recordings, by thread index.
    pub threads: Vec<Option<Stopped>>,
    /// The thread requests without a frame refer to.
    pub current: usize,
}

impl DrawStop {
    pub fn new(stop: Box<Stop>) -> DrawStop {
        let mut invocations: Vec<Hit> = vec![stop.hit];
        // A sanitizer stop: the invocations of the report shown.
        for h in &stop.invocations() {
            if invocations.len() >= MAX_THREADS {
                break;
            }
            if !invocations.iter().any(|k| k.invocation == h.invocation) {
                invocations.push(*h);
            }
        }
        let mut threads: Vec<Option<Stopped>> = invocations.iter().map(|_| None).collect();
        threads[0] = Some(Stopped::new(stop));
        DrawStop {
            invocations,
            threads,
            current: 0,
        }
    }

    /// Thread 1's recording: the stop as it was shown.
    pub fn first(&self) -> &Stopped {
        self.thread(0).expect("thread 1 is always recorded")
    }

    /// The recording of thread index `i`, if made.
    pub fn thread(&self, i: usize) -> Option<&Stopped> {
        self.threads.get(i).and_then(Option::as_ref)
    }

    pub fn thread_mut(&mut self, i: usize) -> Option<&mut Stopped> {
        self.threads.get_mut(i).and_then(Option::as_mut)
    }

    /// The thread requests without a thread refer to.
    pub fn cur(&self) -> &Stopped {
        self.thread(self.current)
            .or_else(|| self.thread(0))
            .expect("thread 1 is always recorded")
    }

    pub fn cur_mut(&mut self) -> &mut Stopped {
        let i = if self.thread(self.current).is_some() {
            self.current
        } else {
            0
        };
        self.thread_mut(i).expect("thread 1 is always recorded")
    }

    /// (thread id, name) of each invocation listed.
    pub fn threads(&self) -> Vec<(i64, String)> {
        self.invocations
            .iter()
            .enumerate()
            .map(|(i, h)| (i as i64 + 1, h.invocation.to_string()))
            .collect()
    }
}

pub struct Stopped {
    pub stop: Box<Stop>,
    pub cursor: usize,
    /// Steps where the agent's hit test found the breakpoints true for this
    /// invocation.
    hit_steps: Vec<usize>,
}

impl Stopped {
    pub fn new(stop: Box<Stop>) -> Stopped {
        Stopped {
            cursor: stop.cursor,
            hit_steps: stop.hit_steps(),
            stop,
        }
    }

    /// Where a move goes (`None`: the recording has no such step).
    pub fn target(&self, m: Move) -> Option<usize> {
        let s = &self.stop;
        match m {
            Move::Over => s.step_over_target(self.cursor),
            Move::In => s.step_in_target(self.cursor),
            Move::Out => s.step_out_target(self.cursor),
            Move::Back => s.step_back_target(self.cursor),
        }
    }

    /// Whether a breakpoint (not a logpoint) holds at `step`: one is set on
    /// its line and has no condition, or the agent's hit test found its
    /// condition true there, or the condition evaluates to true over the
    /// recorded values (for breakpoints set after the draw's hit test; a
    /// condition this evaluator cannot handle does not hold).
    pub fn breaks_at(&self, step: usize, bps: &Breakpoints) -> bool {
        let loc = self.stop.location(step);
        let Some(file) = &loc.file else {
            return false;
        };
        bps.at(file, loc.line)
            .iter()
            .filter(|e| e.stops())
            .any(|e| match &e.condition {
                None => true,
                Some(c) => {
                    (e.sent && self.hit_steps.binary_search(&step).is_ok())
                        || matches!(
                            self.evaluate(c, step),
                            Ok(Typed {
                                value: Value::Bool(true),
                                ..
                            })
                        )
                }
            })
    }

    /// The next breakpoint step after the cursor.
    pub fn next_breakpoint(&self, bps: &Breakpoints) -> Option<usize> {
        (self.cursor + 1..self.stop.trace.steps.len()).find(|&s| self.breaks_at(s, bps))
    }

    /// The previous breakpoint step before the cursor.
    pub fn previous_breakpoint(&self, bps: &Breakpoints) -> Option<usize> {
        (0..self.cursor).rev().find(|&s| self.breaks_at(s, bps))
    }

    /// The step each stack frame (innermost first) is at, for frame ids.
    pub fn frame_steps(&self) -> Vec<Option<usize>> {
        self.stop.call_stack_steps(self.cursor)
    }

    /// The variables at `step`, innermost local first for lookups.
    pub fn variables(&self, step: usize) -> Vec<Variable> {
        self.stop.variables(step)
    }

    /// Evaluates an expression over the values before `step` executes.
    pub fn evaluate(&self, expr: &str, step: usize) -> Result<Typed, evaluate::EvalError> {
        evaluate_in(&self.stop, expr, step)
    }
}

/// Evaluates an expression over the values of a recorded invocation before
/// `step` executes.
pub fn evaluate_in(stop: &Stop, expr: &str, step: usize) -> Result<Typed, evaluate::EvalError> {
    evaluate::evaluate_at(stop, step, expr, None)
}
