//! Submissions that stop. When a submission runs a pipeline one of whose
//! modules has breakpoints, the layer submits shadows of its command
//! buffers in their place, with that pipeline's twin running the module
//! instrumented for the hit test (one pass: the twin computes what the
//! pipeline computes, the debug buffer is the only extra write), waits for
//! it, and reads the hits. With hits, the application's thread stops inside
//! `vkQueueSubmit` until the session resumes it; a recording of one
//! invocation re-executes the shadows with the module instrumented to
//! record it — only where running the buffers again gives what running
//! them once gave: what the submission reads before writing it (storage
//! buffers, loaded attachments, storage images) is copied before the hit
//! test and put back before each re-execution (`snapshots`, `images`);
//! where that cannot be done, the submission is not hit-tested and the
//! session hears why.
//!
//! Every module the submission runs that has breakpoints (or pixel
//! history, or the NaN/Inf filter) is hit-tested in the same run, each
//! draw and module writing its hits to a region of the debug buffer of its
//! own; the submission then stops once per draw and module with hits, in
//! submission order (within a draw, in pipeline stage order).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use ash::vk;
use shaderdbg_core::control::StopReason;
use shaderdbg_core::decode::{decode_hits, HitTag};
use shaderdbg_core::{layout, Invocation, Stage};
use shaderdbg_protocol::FromAgent;

use crate::agent::Ask;
use crate::breakpoints::{self, Bound, ModuleDebug};
use crate::dispatch::DeviceData;
use crate::error::{check, Error};
use crate::pipelines::{debug_slot, Code, DebugBinding, StageCode, Twin, DEBUG_BUFFER_BYTES};
use crate::replay::{AppSubmit, Cmd, Shadow, Submission};

fn variant(what: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    what.hash(&mut h);
    // Variants 0-2 are the self-check's.
    h.finish() | 1 << 63
}

/// The instrumented code a twin runs for a module (by the session's id),
/// given the debug set's number; none for a module that runs as it is.
type Instrumented<'a> = &'a dyn Fn(u32, u32) -> Option<Result<Code, Error>>;

/// A region of the debug buffer in a hit test: the hits of one module
/// under test in one draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    /// The draw (numbered in submission order, from 0: every draw and
    /// dispatch of every buffer).
    draw: u32,
    /// The module: its index among the submission's tests.
    test: usize,
    /// The debug set's binding the module writes ([`debug_slot`]).
    slot: usize,
}

/// Which draws of a submission an instrumented stage writes the debug
/// buffer in.
#[derive(Clone, Copy)]
enum Observe<'a> {
    /// A hit test: the module and draw of `regions[k]` write hits to the
    /// `k`th region of `region` bytes, so that each hit says its draw and
    /// module (`regions` in draw order).
    Regions { regions: &'a [Region], region: u32 },
    /// A recording or a watch: draw `d` writes to the whole buffer, the
    /// others to the scratch header (nothing).
    Only(u32),
    /// Every draw writes to the whole buffer (a hit test that only flags).
    All,
}

impl Observe<'_> {
    /// What draw `d` binds (none: what is bound already will do).
    fn binding(&self, d: u32) -> Option<DebugBinding> {
        match *self {
            Observe::Regions { regions, region } => {
                let from = regions.partition_point(|r| r.draw < d);
                let mut offsets = None;
                for (k, r) in regions.iter().enumerate().skip(from) {
                    if r.draw != d {
                        break;
                    }
                    let at = k as u32 * region;
                    // A binding no module of the draw writes: anywhere.
                    let o: &mut [u32; crate::pipelines::DEBUG_SLOTS] =
                        offsets.get_or_insert([at; crate::pipelines::DEBUG_SLOTS]);
                    o[r.slot] = at;
                }
                offsets.map(DebugBinding::Buffer)
            }
            Observe::Only(only) if only == d => Some(DebugBinding::at(0)),
            Observe::Only(_) => Some(DebugBinding::Scratch),
            Observe::All => None,
        }
    }

    /// What a pipeline's debug set points at when it is bound.
    fn at_bind(&self) -> DebugBinding {
        match self {
            Observe::All => DebugBinding::at(0),
            _ => DebugBinding::Scratch,
        }
    }
}

/// Shadows of `cbs` whose pipelines run the modules `code` instruments as
/// it says, each draw's debug set bound as `observe` says; the error says
/// why one could not be made (the ones made are freed).
///
/// # Safety
/// `cbs` are executable (being submitted); their pipelines are alive.
unsafe fn shadows(
    data: &DeviceData,
    cbs: &[vk::CommandBuffer],
    variant: u64,
    code: Instrumented,
    observe: &Observe,
) -> Result<Vec<Shadow>, Error> {
    let code_for = |sc: &StageCode, set: u32| {
        sc.shader
            .and_then(|shader| code(shader, set))
            .unwrap_or_else(|| Ok(sc.code.clone()))
    };
    let mut made = Vec::new();
    let mut draw = 0;
    for cb in cbs {
        // Per bind point: the twin bound, and where its debug set points
        // (a command buffer starts with nothing bound, and so does the
        // primary after executing secondaries: each is a shadow of its own).
        let mut bound: Vec<(vk::PipelineBindPoint, Twin, DebugBinding)> = Vec::new();
        let mut recording = vk::CommandBuffer::null();
        let mut substitute = |shadow: vk::CommandBuffer, cmd: &Cmd| {
            if shadow != recording {
                recording = shadow;
                bound.clear();
            }
            if let Some(point) = cmd.work() {
                let d = draw;
                draw += 1;
                let want = observe.binding(d);
                if let Some((_, twin, now)) = bound.iter_mut().find(|b| b.0 == point) {
                    if let Some(want) = want.filter(|w| w != now) {
                        // SAFETY: the shadow is recording with `twin` bound.
                        unsafe { data.pipelines.bind_debug(shadow, point, twin, want)? };
                        *now = want;
                    }
                }
                return Ok(false);
            }
            let first = observe.at_bind();
            // SAFETY: the shadow is recording; the pipelines are alive.
            let twin =
                unsafe { crate::replay::bind_twin(data, shadow, cmd, variant, &code_for, first)? };
            let (Cmd::CmdBindPipeline(a), Some(twin)) = (cmd, twin) else {
                return Ok(false);
            };
            let point = a.pipeline_bind_point;
            bound.retain(|b| b.0 != point);
            bound.push((point, twin, first));
            Ok(true)
        };
        // SAFETY: per this function's contract.
        match unsafe { data.replay.shadow(data.handle, *cb, &mut substitute) } {
            Ok(s) => made.push(s),
            Err(why) => {
                // SAFETY: none was submitted.
                unsafe { data.replay.free_shadows(data.handle, &made) };
                return Err(why);
            }
        }
    }
    Ok(made)
}

/// The draws of `cbs` (numbered in submission order) whose pipeline runs
/// `shader`.
fn draws_running(data: &DeviceData, cbs: &[vk::CommandBuffer], shader: u32) -> Vec<u32> {
    let mut runs: crate::dispatch::HandleMap<u64, bool> = Default::default();
    let mut out = Vec::new();
    let mut draw = 0;
    for cb in cbs {
        // The commands in the order they run: secondaries bind what they
        // draw with, as the primary does after them (`walk`).
        let mut bound: Vec<(vk::PipelineBindPoint, bool)> = Vec::new();
        let _ = data.replay.walk(*cb, &mut |cmd| {
            if let Cmd::CmdBindPipeline(a) = cmd {
                let raw = vk::Handle::as_raw(a.pipeline);
                let running = *runs
                    .entry(raw)
                    .or_insert_with(|| data.pipelines.shaders_of(a.pipeline).contains(&shader));
                bound.retain(|b| b.0 != a.pipeline_bind_point);
                bound.push((a.pipeline_bind_point, running));
            } else if let Some(point) = cmd.work() {
                if bound.iter().any(|b| b.0 == point && b.1) {
                    out.push(draw);
                }
                draw += 1;
            }
            Ok(())
        });
    }
    out
}

/// The regions of a hit test of `tests`: one per draw and module it runs,
/// in draw order, and within a draw in pipeline stage order (the order the
/// stops come in).
fn regions_of(data: &DeviceData, cbs: &[vk::CommandBuffer], tests: &[Test]) -> Vec<Region> {
    let mut out: Vec<Region> = tests
        .iter()
        .enumerate()
        .flat_map(|(i, t)| {
            let slot = debug_slot(t.module.stage);
            let draws = draws_running(data, cbs, t.shader);
            draws.into_iter().map(move |draw| Region {
                draw,
                test: i,
                slot,
            })
        })
        .collect();
    out.sort_by_key(|r| (r.draw, tests[r.test].module.stage as u8));
    out
}

/// The bytes of the debug buffer each of `regions` regions gets for its
/// hits (a multiple of `align`), or why they do not fit.
fn region_bytes(regions: usize, align: u64) -> Result<u32, Error> {
    let least = ((layout::HEADER_WORDS + layout::HIT_RECORD_WORDS) * 4) as u64;
    let least = least.div_ceil(align) * align;
    let region = DEBUG_BUFFER_BYTES / regions.max(1) as u64 / align * align;
    if region < least {
        return Err(Error::TooManyDraws {
            regions,
            fit: DEBUG_BUFFER_BYTES / least,
        });
    }
    Ok(region as u32)
}

/// Empties the hit buffers of `n` regions of `region` bytes.
fn reset_regions(w: &mut [u32], n: usize, region: u32) {
    let words = region as usize / 4;
    let cap = ((words - layout::HEADER_WORDS) / layout::HIT_RECORD_WORDS) as u32;
    for k in 0..n {
        let header = &mut w[k * words..k * words + layout::HEADER_WORDS];
        header.fill(0);
        header[layout::CAP_INDEX] = cap;
    }
}

/// The regions (of `n`, `region` bytes each) that hold hits, in order:
/// each one's number and its used words.
fn regions_with_hits(
    w: &[u32],
    n: usize,
    region: u32,
) -> impl Iterator<Item = (usize, Vec<u32>)> + '_ {
    let words = region as usize / 4;
    (0..n).filter_map(move |k| {
        let r = &w[k * words..(k + 1) * words];
        (r[0] > 0).then(|| (k, hit_words(r)))
    })
}

/// Capacity words of the debug buffer after its header.
fn capacity() -> u32 {
    (DEBUG_BUFFER_BYTES / 4) as u32 - layout::HEADER_WORDS as u32
}

/// Debugs a submission if it runs a module with breakpoints: `None` when it
/// does not (the caller submits it as usual), else what the application's
/// submission returned.
///
/// # Safety
/// Nothing of `app` was submitted yet.
pub unsafe fn submit<I: Submission>(
    data: &DeviceData,
    app: &AppSubmit<'_, I>,
) -> Option<vk::Result> {
    if !breakpoints::any() {
        return None;
    }
    let dbg = crate::agent::debugger()?;
    // The device's teardown waits for this submission (with its stop).
    let in_progress = data.busy.enter()?;
    // SAFETY: per this function's contract.
    let result = unsafe { debugged(data, dbg, app) };
    drop(in_progress);
    if data.busy.release_lost() {
        // SAFETY: no submission of the device is debugged, and none will be.
        unsafe {
            data.storage.drop_taken(data);
            data.pipelines.destroy_all(data.handle);
        }
    }
    result
}

/// The device was lost (`why`, in the debugger's words) under the layer's
/// own work: it is said once, and no submission is debugged from then on.
fn lost(data: &DeviceData, dbg: &crate::agent::Debugger, why: &str) {
    if data.busy.lose() {
        tracing::warn!("the device was lost {why}: no more stops on it");
        dbg.send(&FromAgent::Error {
            request: None,
            message: format!(
                "the device was lost (VK_ERROR_DEVICE_LOST) {why}: no more stops on it"
            ),
        });
    }
}

/// [`submit`] of a submission the layer may debug.
///
/// # Safety
/// As [`submit`].
unsafe fn debugged<I: Submission>(
    data: &DeviceData,
    dbg: &crate::agent::Debugger,
    app: &AppSubmit<'_, I>,
) -> Option<vk::Result> {
    let (infos, queue) = (app.infos, app.queue);
    let cbs = app.command_buffers();
    let frame = data.frames.load(std::sync::atomic::Ordering::Relaxed);
    let filter = breakpoints::filter();
    if filter.frame.is_some_and(|f| f != frame) {
        return None;
    }
    let pipelines: Vec<Vec<u32>> = pipelines_of(data, &cbs)
        .into_iter()
        .map(|p| data.pipelines.shaders_of(p))
        .collect();
    let tests = what_to_test(&pipelines, filter);
    if tests.is_empty() {
        return None;
    }
    // The session hears each reason once per shader under test (a program
    // submits the same work every frame).
    let say = |message: &dyn Fn(u32) -> String, why: &str| {
        for t in &tests {
            if said_once(t.shader, why) {
                dbg.send(&FromAgent::Error {
                    request: None,
                    message: message(t.shader),
                });
            }
        }
    };
    // A stop needs a recording, which runs the buffers again: where that
    // is not safe, the submission runs as the application made it.
    if let Some(why) = not_reexecutable(data, &cbs) {
        let message = |shader| {
            format!(
                "breakpoints in shader {shader} cannot stop in this submission: recording an \
                 invocation runs the submission again, and {why}"
            )
        };
        say(&message, &why.to_string());
        return None;
    }
    let family = cbs.first().and_then(|cb| data.replay.family_of(*cb))?;
    // The storage the submission may write, as it is before it runs.
    let taken = storage_ranges(data, &cbs).and_then(|ranges| {
        // SAFETY: the application is submitting: nothing pending uses its
        // storage (a program must not submit work racing with it).
        unsafe { data.storage.take(data, queue, family, &ranges) }
    });
    // The images it reads before writing them (loaded attachments,
    // storage images), as they are before it runs.
    let taken = taken.and_then(|()| {
        let plan = images_read_first(data, &cbs)?;
        // SAFETY: as above; the copy waits for earlier work on the queue.
        unsafe { data.storage.images.take(data, queue, family, plan) }
    });
    // The submission runs as the application made it.
    let refuse = |why: Error, what: &str| {
        // SAFETY: the copies were waited for.
        unsafe { data.storage.drop_taken(data) };
        say(
            &|shader| format!("shader {shader}: {what}: {why}"),
            &why.to_string(),
        );
        None
    };
    if let Err(why) = taken {
        return refuse(why, "the storage cannot be kept for a stop");
    }
    // Each draw and module under test writes its hits to a region of its
    // own, so that a stop can say which draw and module it is in.
    let regions = regions_of(data, &cbs, &tests);
    let region = match region_bytes(regions.len(), data.pipelines.offset_alignment()) {
        Ok(r) => r,
        Err(why) => return refuse(why, "no hit test in this submission"),
    };
    let in_regions = Observe::Regions {
        regions: &regions,
        region,
    };
    let reset_all = |w: &mut [u32]| reset_regions(w, regions.len(), region);
    let pixel = filter.pixel;
    let test_of = |shader: u32| tests.iter().position(|t| t.shader == shader);
    let full = |shader: u32, set: u32| {
        let t = &tests[test_of(shader)?];
        Some(
            t.module
                .hit_test_spirv(&t.bound, t.nan_inf, pixel, set)
                .map(Arc::new),
        )
    };
    let key: Vec<_> = tests
        .iter()
        .map(|t| (t.shader, &t.bound, t.nan_inf))
        .collect();
    let full_variant = variant(&(&key, pixel));
    // The application's submission runs the modules instrumented to flag a
    // hit where they can (GLSL): the hits are found by running it again
    // with the full hit test when there are some, which is rare, and the
    // count costs a fraction of the hit records on SIMD drivers (see
    // `instrument_vulkan_flag`). WGSL modules run the full hit test in
    // that pass too (any hit record flags the buffer).
    let flags: Vec<_> = tests
        .iter()
        .map(|t| t.module.hit_flag(&t.bound, t.nan_inf, pixel))
        .collect();
    let flagging = flags.iter().any(Option::is_some);
    let flag_code = |shader: u32, set: u32| match &flags[test_of(shader)?] {
        Some(f) => Some(f(set).map(Arc::new)),
        None => full(shader, set),
    };
    let (code, observe, range, first_variant): (Instrumented, _, _, _) = match flagging {
        true => (
            &flag_code,
            Observe::All,
            DEBUG_BUFFER_BYTES,
            variant(&(&key, pixel, "flag")),
        ),
        false => (&full, in_regions, u64::from(region), full_variant),
    };
    // SAFETY: nothing pending uses the debug set (every use is waited for).
    if let Err(why) = unsafe { data.pipelines.set_debug_range(data.handle, range) } {
        return refuse(why, "no hit test in this submission");
    }
    // SAFETY: the application is submitting `cbs`.
    let hit_shadows = match unsafe { shadows(data, &cbs, first_variant, code, &observe) } {
        Ok(s) => s,
        Err(why) => return refuse(why, "the hit test cannot run in this submission"),
    };
    let mut keep = crate::replay::Keep::default();
    let mut at = 0;
    let replaced: Vec<I> = infos
        .iter()
        .map(|info| {
            // SAFETY: a valid submit info.
            let n = unsafe { info.command_buffers() }.len();
            let these = hit_shadows[at..at + n].iter().map(|s| s.cb).collect();
            at += n;
            // SAFETY: `these` replaces each of the info's buffers.
            unsafe { info.replaced(these, &mut keep) }
        })
        .collect();
    // SAFETY: nothing pending uses the debug buffer (every use is waited for).
    unsafe {
        data.pipelines.with_debug_words(|w| match flagging {
            true => reset_regions(w, 1, DEBUG_BUFFER_BYTES as u32),
            false => reset_all(w),
        })
    };
    // SAFETY: the application's submission with shadows in place of its
    // buffers.
    let result = unsafe { app.down_with(&replaced) };
    let wait = data.replay.life.queue_wait_idle;
    let waited = match wait {
        // SAFETY: a queue of this device.
        Some(wait) => unsafe { wait(queue) },
        None => vk::Result::SUCCESS,
    };
    let waited = match crate::fault::injected(crate::fault::Fault::DeviceLost) {
        true => vk::Result::ERROR_DEVICE_LOST,
        false => waited,
    };
    // SAFETY: the queue is idle.
    unsafe { data.replay.free_shadows(data.handle, &hit_shadows) };
    if result == vk::Result::ERROR_DEVICE_LOST || waited == vk::Result::ERROR_DEVICE_LOST {
        lost(data, dbg, &format!("in frame {frame}'s hit test"));
        // SAFETY: the device is lost: nothing of it is pending any more.
        unsafe { data.storage.drop_taken(data) };
        return Some(result);
    }
    // Each region's hits, decoded with its module's probe table.
    let found_in = |w: &mut [u32]| -> Vec<Found> {
        regions_with_hits(w, regions.len(), region)
            .filter_map(|(k, words)| {
                let Region { draw, test, .. } = regions[k];
                let t = &tests[test];
                let (hits, truncated) = decode_hits(&words, &t.module.table);
                let mut hits = tagged(hits, &t.bound);
                if let Some(pixel) = filter.pixel.filter(|_| t.module.stage == Stage::Fragment) {
                    hits.retain(|h| h.invocation.pixel() == Some(pixel));
                }
                (!hits.is_empty()).then_some(Found {
                    draw,
                    test,
                    hits,
                    truncated,
                })
            })
            .collect()
    };
    let submitted = Submitted {
        data,
        queue,
        cbs: &cbs,
    };
    let found = if result != vk::Result::SUCCESS {
        Vec::new()
    } else if flagging {
        // SAFETY: the queue is idle.
        let flagged = unsafe { data.pipelines.with_debug_words(|w| w[0] != 0) };
        if flagged == Some(true) {
            // SAFETY: the application waits in its submission, whose
            // buffers are executable.
            let again = unsafe {
                rerun(
                    &submitted,
                    &in_regions,
                    u64::from(region),
                    full_variant,
                    &full,
                    reset_all,
                    found_in,
                )
            };
            again.unwrap_or_else(|why| {
                say(
                    &|shader| format!("shader {shader}: finding the hits: {why}"),
                    &why.to_string(),
                );
                Vec::new()
            })
        } else {
            Vec::new()
        }
    } else {
        // SAFETY: the queue is idle.
        unsafe { data.pipelines.with_debug_words(found_in) }.unwrap_or_default()
    };
    // One stop after another, in submission order; the storage is put back
    // before each re-execution until the last.
    for Found {
        draw,
        test,
        hits,
        truncated,
    } in found
    {
        if !dbg.is_alive() {
            break;
        }
        let t = &tests[test];
        let (reason, hits) = pick(t.reason, still_wanted(t, hits));
        if hits.is_empty() {
            continue;
        }
        if reason == StopReason::Pause {
            breakpoints::take_pause();
        }
        let stopped = FromAgent::Stopped {
            context: vk::Handle::as_raw(data.handle),
            frame,
            draw: u64::from(draw),
            program: 0,
            shader: t.shader,
            hits,
            truncated,
            reason,
            probes: t.module.table.clone(),
            sanitizer: Vec::new(),
        };
        let at = Stopped {
            at: &submitted,
            draw,
            shader: t.shader,
            module: &t.module,
        };
        let mut answer = |request: u64, ask: Ask| match ask {
            Ask::Record(selector) => {
                // SAFETY: the application's thread waits here; its buffers are
                // still executable and their objects alive.
                let log = unsafe { record(&at, selector)? };
                Ok(FromAgent::Recorded {
                    request,
                    shader: at.shader,
                    selector,
                    log: shaderdbg_protocol::Blob::from_words(&log),
                })
            }
            Ask::Watch { line, expr } => {
                // SAFETY: as above.
                let w = unsafe { watch(&at, line, &expr)? };
                Ok(w.reply(request))
            }
            Ask::Screenshot => {
                // SAFETY: as above; every submission of the stop was waited for.
                let shot = unsafe { crate::screenshot::now(data, queue, &cbs)? };
                Ok(FromAgent::Screenshot {
                    request,
                    frame,
                    width: shot.width,
                    height: shot.height,
                    shows: shaderdbg_protocol::ScreenshotShows::AfterSubmission,
                    origin: shaderdbg_protocol::Origin::TopLeft,
                    rgba: shaderdbg_protocol::Blob(shot.rgba),
                })
            }
        };
        crate::agent::stop(dbg, stopped, &mut answer);
        if reason == StopReason::Pause {
            break;
        }
    }
    // SAFETY: the last re-execution was waited for.
    unsafe { data.storage.drop_taken(data) };
    Some(result)
}

/// Hits of one module in one draw of a hit test.
struct Found {
    draw: u32,
    test: usize,
    /// Tagged with the session's ids.
    hits: Vec<shaderdbg_core::decode::Hit>,
    truncated: bool,
}

/// Of a test's hits, those whose breakpoint the session still has (an
/// earlier stop of the submission may have removed it), pixel history and
/// NaN/Inf checks still on.
fn still_wanted(
    t: &Test,
    hits: Vec<shaderdbg_core::decode::Hit>,
) -> Vec<shaderdbg_core::decode::Hit> {
    if t.reason == StopReason::Pause {
        return hits;
    }
    let ids: Vec<u32> = breakpoints::of(t.shader).iter().map(|b| b.id).collect();
    let filter = breakpoints::filter();
    let history = filter.pixel_history && filter.pixel.is_some();
    let nan_inf = breakpoints::nan_inf();
    hits.into_iter()
        .filter(|h| match h.tag {
            HitTag::Breakpoint(PIXEL_HISTORY) => history,
            HitTag::Breakpoint(id) => ids.contains(&id),
            HitTag::NanInf => nan_inf,
        })
        .collect()
}

/// The id a pixel-history entry has among a hit test's breakpoints.
const PIXEL_HISTORY: u32 = u32::MAX;

/// A module a submission's hit test runs: its breakpoints, why it would
/// stop.
struct Test {
    shader: u32,
    bound: Vec<Bound>,
    module: Arc<ModuleDebug>,
    /// `Pause`, or `Breakpoint` (then pixel history and NaN/Inf too).
    reason: StopReason,
    nan_inf: bool,
}

/// What a submission whose pipelines run `pipelines` (each one's modules,
/// in the order the buffers bind them) hit-tests: a pause stops every
/// invocation of the first module at the start of its entry point; else
/// every module with breakpoints, every fragment module under pixel
/// history, every fragment or vertex module under NaN/Inf, with what
/// applies to it of the three, in bind order — but of the modules of one
/// pipeline, one per binding of the debug set ([`debug_slot`]): the
/// first.
fn what_to_test(pipelines: &[Vec<u32>], filter: shaderdbg_core::control::StopFilter) -> Vec<Test> {
    let mut shaders: Vec<u32> = Vec::new();
    for &sh in pipelines.iter().flatten() {
        if !shaders.contains(&sh) {
            shaders.push(sh);
        }
    }
    let start = |module: &ModuleDebug, id: u32| {
        let entry = module.table.entry_step()?;
        Some(Bound {
            id,
            line: entry.line,
            probe: entry.id,
            condition: None,
        })
    };
    if breakpoints::pause_pending() {
        let found = shaders.iter().find_map(|&sh| {
            let module = breakpoints::module(sh)?;
            Some((sh, vec![start(&module, 0)?], module))
        });
        if let Some((shader, bound, module)) = found {
            return vec![Test {
                shader,
                bound,
                module,
                reason: StopReason::Pause,
                nan_inf: false,
            }];
        }
    }
    let history = filter.pixel_history && filter.pixel.is_some();
    let nan_inf = breakpoints::nan_inf();
    let wanted = |sh: u32| {
        let module = breakpoints::module(sh)?;
        let mut bound = breakpoints::of(sh);
        let fragment = module.stage == Stage::Fragment;
        let checked = nan_inf && matches!(module.stage, Stage::Fragment | Stage::Vertex);
        if history && fragment {
            bound.push(start(&module, PIXEL_HISTORY)?);
        }
        (!bound.is_empty() || checked).then_some(Test {
            shader: sh,
            bound,
            module,
            reason: StopReason::Breakpoint,
            nan_inf: checked,
        })
    };
    let tests: Vec<Test> = shaders.iter().filter_map(|&sh| wanted(sh)).collect();
    let slots: Vec<(u32, usize)> = tests
        .iter()
        .map(|t| (t.shader, debug_slot(t.module.stage)))
        .collect();
    let keep = one_per_slot(&slots, pipelines);
    tests
        .into_iter()
        .zip(keep)
        .filter_map(|(t, keep)| {
            if !keep {
                tracing::debug!(
                    shader = t.shader,
                    "not hit-tested: another stage of its pipeline writes its debug binding"
                );
            }
            keep.then_some(t)
        })
        .collect()
}

/// Which of `tests` (a module and its debug binding, in order) to keep so
/// that no pipeline (its modules) runs two with the same binding: the
/// first of them.
fn one_per_slot(tests: &[(u32, usize)], pipelines: &[Vec<u32>]) -> Vec<bool> {
    let mut kept: Vec<(u32, usize)> = Vec::new();
    tests
        .iter()
        .map(|&(shader, slot)| {
            let clash = pipelines.iter().any(|p| {
                p.contains(&shader)
                    && kept
                        .iter()
                        .any(|&(other, s)| s == slot && other != shader && p.contains(&other))
            });
            if !clash {
                kept.push((shader, slot));
            }
            !clash
        })
        .collect()
}

/// Why the hits stop, and the hits shown: a breakpoint wins over pixel
/// history, which wins over NaN/Inf (as in GL).
fn pick(
    reason: StopReason,
    hits: Vec<shaderdbg_core::decode::Hit>,
) -> (StopReason, Vec<shaderdbg_core::decode::Hit>) {
    if reason == StopReason::Pause {
        return (reason, hits);
    }
    let of = |keep: &dyn Fn(&HitTag) -> bool| -> Vec<_> {
        hits.iter().filter(|h| keep(&h.tag)).copied().collect()
    };
    let user = of(&|t| matches!(t, HitTag::Breakpoint(id) if *id != PIXEL_HISTORY));
    let history: Vec<_> = of(&|t| *t == HitTag::Breakpoint(PIXEL_HISTORY))
        .into_iter()
        .map(|h| shaderdbg_core::decode::Hit {
            tag: HitTag::Breakpoint(0),
            ..h
        })
        .collect();
    let nan_inf = of(&|t| *t == HitTag::NanInf);
    [
        (StopReason::Breakpoint, user),
        (StopReason::PixelHistory, history),
        (StopReason::NanInf, nan_inf),
    ]
    .into_iter()
    .find(|(_, h)| !h.is_empty())
    .unwrap_or((StopReason::Breakpoint, Vec::new()))
}

/// Whether `why` is new for `shader` (each reason is said once).
fn said_once(shader: u32, why: &str) -> bool {
    static SAID: std::sync::Mutex<Vec<(u32, String)>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if said.iter().any(|(s, w)| *s == shader && w == why) {
        return false;
    }
    said.push((shader, why.to_string()));
    true
}

/// The used part of a hit buffer.
fn hit_words(w: &[u32]) -> Vec<u32> {
    let n = w[0].min(w[layout::CAP_INDEX]) as usize;
    w[..(layout::HEADER_WORDS + n * layout::HIT_RECORD_WORDS).min(w.len())].to_vec()
}

/// Hits tagged with the session's ids of their breakpoints (decoded tags
/// are indices into `bound`), each invocation and step once.
fn tagged(
    hits: Vec<shaderdbg_core::decode::Hit>,
    bound: &[Bound],
) -> Vec<shaderdbg_core::decode::Hit> {
    let mut out: Vec<_> = hits
        .into_iter()
        .filter_map(|h| match h.tag {
            HitTag::Breakpoint(i) => Some(shaderdbg_core::decode::Hit {
                tag: HitTag::Breakpoint(bound.get(i as usize)?.id),
                ..h
            }),
            HitTag::NanInf => Some(h),
        })
        .collect();
    out.dedup();
    out
}

/// The pipelines `cbs` bind, each once, in the order they are first bound
/// (programs bind a few pipelines many times).
fn pipelines_of(data: &DeviceData, cbs: &[vk::CommandBuffer]) -> Vec<vk::Pipeline> {
    let mut seen: crate::dispatch::HandleMap<u64, ()> = Default::default();
    let mut out = Vec::new();
    for cb in cbs {
        for p in data.replay.pipelines_bound(*cb) {
            if seen.insert(vk::Handle::as_raw(p), ()).is_none() {
                out.push(p);
            }
        }
    }
    out
}

/// Why running `cbs` again would not give what running them once gave, if so.
fn not_reexecutable(data: &DeviceData, cbs: &[vk::CommandBuffer]) -> Option<Error> {
    // Every buffer the submission runs (secondaries too) has a recording.
    for cb in cbs {
        if let Err(why) = data.replay.walk(*cb, &mut |_| Ok(())) {
            return Some(why);
        }
    }
    // Storage buffers and images read first (loaded attachments, storage
    // images) are put back before each re-execution (snapshots), where
    // they can be copied.
    storage_ranges(data, cbs)
        .err()
        .or_else(|| images_read_first(data, cbs).err())
}

/// The image subresources the buffers read before writing them (attachments
/// loaded; storage images, where a pipeline they bind declares some), or
/// why one cannot be kept.
fn images_read_first(
    data: &DeviceData,
    cbs: &[vk::CommandBuffer],
) -> Result<crate::images::Plan, Error> {
    let storage_images = pipelines_of(data, cbs)
        .into_iter()
        .any(|p| data.pipelines.writable_storage(p).images);
    // The submission's commands in the order they run (recordings are
    // locked one at a time, so each buffer's are walked on their own, in
    // order, sharing what earlier buffers did).
    let mut walk = data.storage.images.walk(storage_images);
    for cb in cbs {
        // SAFETY: recorded arguments point into the recording.
        data.replay.walk(*cb, &mut |c| unsafe { walk.command(c) })?;
    }
    Ok(walk.plan())
}

/// The storage buffer ranges the buffers bind, where a pipeline they bind
/// declares storage buffers (empty otherwise), or why they cannot be kept.
fn storage_ranges(
    data: &DeviceData,
    cbs: &[vk::CommandBuffer],
) -> Result<Vec<crate::snapshots::Range>, Error> {
    let writes = pipelines_of(data, cbs)
        .into_iter()
        .any(|p| data.pipelines.writable_storage(p).buffers);
    if !writes {
        return Ok(Vec::new());
    }
    let mut all = Vec::new();
    for cb in cbs {
        data.replay
            .walk(*cb, &mut |cmd| {
                if !matches!(
                    cmd,
                    Cmd::CmdBindDescriptorSets(_) | Cmd::CmdPushDescriptorSetKHR(_)
                ) {
                    return Ok(());
                }
                for r in data.storage.bound(std::slice::from_ref(cmd))? {
                    if !all.contains(&r) {
                        all.push(r);
                    }
                }
                Ok(())
            })
            .map_err(|why| why.within("storage buffers cannot be kept for it"))?;
    }
    Ok(all)
}

/// A submission being debugged: its buffers.
struct Submitted<'a> {
    data: &'a DeviceData,
    queue: vk::Queue,
    cbs: &'a [vk::CommandBuffer],
}

/// A stop: the submission, the draw and the module stopped in.
struct Stopped<'a> {
    at: &'a Submitted<'a>,
    draw: u32,
    shader: u32,
    module: &'a ModuleDebug,
}

impl Stopped<'_> {
    /// The stopped module as `code` makes it (every other as it is).
    fn only<'c>(
        &self,
        code: &'c dyn Fn(u32) -> Result<Vec<u32>, Error>,
    ) -> impl Fn(u32, u32) -> Option<Result<Code, Error>> + 'c {
        let shader = self.shader;
        move |sh, set| (sh == shader).then(|| code(set).map(Arc::new))
    }
}

/// The debug buffer as a fresh one holding `buffer`'s words, or why it
/// cannot.
fn fresh(buffer: &[u32]) -> Result<impl FnOnce(&mut [u32]) + '_, Error> {
    if buffer.len() * 4 > DEBUG_BUFFER_BYTES as usize {
        return Err(Error::DebugBufferTooSmall {
            holds: DEBUG_BUFFER_BYTES,
            needs: buffer.len() * 4,
        });
    }
    Ok(|w: &mut [u32]| w[..buffer.len()].copy_from_slice(buffer))
}

/// Runs the submission's buffers again as shadows whose pipelines run
/// the modules `code` instruments as it says, each draw's debug set bound
/// as `observe` says (`range` bytes of the buffer from its offset), the
/// debug buffer prepared by `reset`; what `read` makes of the debug buffer
/// afterwards.
///
/// # Safety
/// The buffers are executable and their objects alive; the application waits.
#[allow(clippy::too_many_arguments)]
unsafe fn rerun<R>(
    at: &Submitted,
    observe: &Observe,
    range: u64,
    variant: u64,
    code: Instrumented,
    reset: impl FnOnce(&mut [u32]),
    read: impl FnOnce(&mut [u32]) -> R,
) -> Result<R, Error> {
    let (data, queue, cbs) = (at.data, at.queue, at.cbs);
    if let Some(why) = not_reexecutable(data, cbs) {
        return Err(Error::NotReexecutable(Box::new(why)));
    }
    let family = data.replay.family_of_first(cbs)?;
    // The storage and images as they were before the submission ran.
    // SAFETY: the earlier submissions were waited for.
    unsafe {
        data.storage.restore(data, queue, family)?;
        data.pipelines.set_debug_range(data.handle, range)?;
    }
    // SAFETY: per this function's contract.
    let made = unsafe { shadows(data, cbs, variant, code, observe)? };
    let submit = data.queue_submit.ok_or(Error::Lacks("vkQueueSubmit"))?;
    let handles: Vec<vk::CommandBuffer> = made.iter().map(|s| s.cb).collect();
    let info = vk::SubmitInfo::default().command_buffers(&handles);
    // SAFETY: the application waits in its own submission; the earlier
    // submission of the shadows was waited for.
    unsafe {
        data.pipelines.with_debug_words(reset);
        let r = submit(queue, 1, &info, vk::Fence::null());
        let waited = match data.replay.life.queue_wait_idle {
            Some(wait) => wait(queue),
            None => vk::Result::SUCCESS,
        };
        data.replay.free_shadows(data.handle, &made);
        if r == vk::Result::ERROR_DEVICE_LOST || waited == vk::Result::ERROR_DEVICE_LOST {
            // No later submission is debugged; the reply says why.
            data.busy.lose();
            return Err(Error::DeviceLost);
        }
        check(r, "submitting again")?;
        data.pipelines
            .with_debug_words(read)
            .ok_or(Error::Cannot("no debug buffer"))
    }
}

/// A recording of `selector` in the stopped draw, by running the buffers
/// again with the stopped module instrumented to record it.
///
/// # Safety
/// As [`rerun`].
unsafe fn record(stop: &Stopped, selector: Invocation) -> Result<Vec<u32>, Error> {
    let mode = ModuleDebug::record(selector);
    let code = |set: u32| stop.module.spirv(&mode, set);
    let mut header = layout::to_words(&layout::new_record_buffer(0));
    header[layout::CAP_INDEX] = capacity();
    let v = variant(&(stop.shader, "record", selector));
    let only = Observe::Only(stop.draw);
    let whole = DEBUG_BUFFER_BYTES;
    let reset = fresh(&header)?;
    let code = stop.only(&code);
    // SAFETY: per this function's contract.
    unsafe {
        rerun(stop.at, &only, whole, v, &code, reset, |w| {
            layout::trim_record(w)
        })
    }
}

/// A values image: the value of `expr` at `line` for every fragment the
/// stopped draw draws in the render area, by running the buffers again
/// with the stopped module instrumented to watch it.
///
/// # Safety
/// As [`rerun`].
unsafe fn watch(stop: &Stopped, line: u32, expr: &str) -> Result<Watched, Error> {
    let (code, ty) = stop.module.watch_spirv(line, expr)?;
    let words = ty.words().ok_or(Error::Cannot(
        "the expression's type cannot be shown as an image",
    ))?;
    let (width, height) = render_area(stop.at.data, stop.at.cbs)
        .ok_or(Error::Cannot("the submission draws in no render pass"))?;
    let buffer = layout::to_words(&layout::new_watch_buffer(width, height, words));
    let v = variant(&(stop.shader, "watch", line, expr));
    let only = Observe::Only(stop.draw);
    let whole = DEBUG_BUFFER_BYTES;
    let reset = fresh(&buffer)?;
    let code = stop.only(&code);
    // SAFETY: per this function's contract.
    let data_words = unsafe {
        rerun(stop.at, &only, whole, v, &code, reset, |w| {
            w[..buffer.len()].to_vec()
        })?
    };
    Ok(Watched {
        width,
        height,
        ty,
        value_words: words,
        data: data_words,
    })
}

/// A values image, ready to send.
struct Watched {
    width: u32,
    height: u32,
    ty: shaderdbg_core::Type,
    value_words: u32,
    data: Vec<u32>,
}

impl Watched {
    fn reply(self, request: u64) -> FromAgent {
        FromAgent::WatchImage {
            request,
            width: self.width,
            height: self.height,
            ty: self.ty,
            value_words: self.value_words,
            data: shaderdbg_protocol::Blob::from_words(&self.data),
            // Slots are `y * width + x` in Vulkan's framebuffer coordinates,
            // `gl_FragCoord` as the shader sees it, as the stop's pixel is.
            origin: shaderdbg_protocol::Origin::TopLeft,
        }
    }
}

/// The extent of the largest render area the buffers draw in.
fn render_area(data: &DeviceData, cbs: &[vk::CommandBuffer]) -> Option<(u32, u32)> {
    let mut area: Option<(u32, u32)> = None;
    for cb in cbs {
        let _ = data.replay.walk(*cb, &mut |cmd| {
            // SAFETY: recorded arguments point into the recording.
            let rect = unsafe {
                match *cmd {
                    Cmd::CmdBeginRenderPass(a) => {
                        (*a.p_render_pass_begin.cast::<vk::RenderPassBeginInfo>()).render_area
                    }
                    Cmd::CmdBeginRenderPass2(a) => {
                        (*a.p_render_pass_begin.cast::<vk::RenderPassBeginInfo>()).render_area
                    }
                    Cmd::CmdBeginRendering(a) => {
                        (*a.p_rendering_info.cast::<vk::RenderingInfo>()).render_area
                    }
                    _ => return Ok(()),
                }
            };
            let w = (rect.offset.x.max(0) as u32) + rect.extent.width;
            let h = (rect.offset.y.max(0) as u32) + rect.extent.height;
            let (aw, ah) = area.unwrap_or((0, 0));
            area = Some((aw.max(w), ah.max(h)));
            Ok(())
        });
    }
    area
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_draw_and_module_under_test_gets_its_own_region_and_others_none() {
        let r = |draw, test, slot| Region { draw, test, slot };
        // Draw 1 runs module 0 (vertex) and module 1 (fragment), draws 4
        // and 5 module 1 only.
        let regions = [r(1, 0, 0), r(1, 1, 1), r(4, 1, 1), r(5, 1, 1)];
        let observe = Observe::Regions {
            regions: &regions,
            region: 256,
        };
        let b = |d| observe.binding(d);
        assert_eq!(b(0), None);
        assert_eq!(b(1), Some(DebugBinding::Buffer([0, 256])));
        assert_eq!(b(4), Some(DebugBinding::Buffer([512, 512])));
        assert_eq!(b(5), Some(DebugBinding::Buffer([768, 768])));
        assert_eq!(b(6), None);
        let only = Observe::Only(4);
        assert_eq!(only.binding(4), Some(DebugBinding::at(0)));
        assert_eq!(only.binding(5), Some(DebugBinding::Scratch));
    }

    #[test]
    fn of_the_modules_of_one_pipeline_one_per_debug_binding_is_tested() {
        // Pipelines: [vertex 1, fragment 2], [vertex 1, fragment 3],
        // [vertex 4, geometry 5, fragment 2].
        let pipelines = [vec![1, 2], vec![1, 3], vec![4, 5, 2]];
        let tests = [(1, 0), (2, 1), (3, 1), (4, 0), (5, 0)];
        // 5 shares binding 0 with 4 in the third pipeline.
        assert_eq!(
            one_per_slot(&tests, &pipelines),
            [true, true, true, true, false]
        );
    }

    #[test]
    fn regions_split_the_buffer_at_the_alignment_and_refuse_when_too_small() {
        assert_eq!(
            region_bytes(1, 64).expect("fits"),
            DEBUG_BUFFER_BYTES as u32
        );
        assert_eq!(
            region_bytes(2, 64).expect("fits"),
            DEBUG_BUFFER_BYTES as u32 / 2
        );
        let r = region_bytes(3000, 256).expect("fits");
        assert_eq!(r % 256, 0);
        assert!(u64::from(r) * 3000 <= DEBUG_BUFFER_BYTES);
        assert!(matches!(
            region_bytes(1 << 20, 256),
            Err(Error::TooManyDraws { .. })
        ));
    }

    #[test]
    fn the_first_region_with_hits_is_found_with_its_records() {
        let region = 64u32;
        let mut w = vec![0xdead_beef; 3 * 16];
        reset_regions(&mut w, 3, region);
        // (64 / 4 - 4) / 6 = 2 records each.
        assert_eq!(w[1], 2);
        assert_eq!(w[16], 0);
        // Region 2 has one hit, region 1 none.
        w[32] = 1;
        w[36..42].copy_from_slice(&[7, 0, 3, 4, 0, 0]);
        let found: Vec<_> = regions_with_hits(&w, 3, region).collect();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 2);
        assert_eq!(found[0].1, [1, 2, 0, 0, 7, 0, 3, 4, 0, 0]);
    }
}
