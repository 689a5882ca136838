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
//! where that cannot be done, or the buffers execute secondary ones, the
//! submission is not hit-tested and the session hears why.
//!
//! One module is hit-tested per submission: the first with breakpoints,
//! in the order the buffers bind pipelines.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use ash::vk;
use shaderdbg_core::control::StopReason;
use shaderdbg_core::decode::{decode_hits, HitTag};
use shaderdbg_core::{layout, Invocation};
use shaderdbg_protocol::FromAgent;

use crate::agent::Ask;
use crate::breakpoints::{self, Bound, ModuleDebug};
use crate::dispatch::{array, DeviceData};
use crate::pipelines::{Code, StageCode, DEBUG_BUFFER_BYTES};
use crate::replay::{Cmd, Shadow, Submission, Submit};

fn variant(what: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    what.hash(&mut h);
    // Variants 0-2 are the self-check's.
    h.finish() | 1 << 63
}

/// Shadows of `cbs` whose pipelines running `shader` run it as `code`;
/// the error says why one could not be made (the ones made are freed).
///
/// # Safety
/// `cbs` are executable (being submitted); their pipelines are alive.
unsafe fn shadows(
    data: &DeviceData,
    cbs: &[vk::CommandBuffer],
    shader: u32,
    variant: u64,
    code: &dyn Fn(u32) -> Result<Code, String>,
) -> Result<Vec<Shadow>, String> {
    let code_for = |sc: &StageCode, set: u32| {
        if sc.shader == Some(shader) {
            code(set)
        } else {
            Ok(sc.code.clone())
        }
    };
    let mut made = Vec::new();
    for cb in cbs {
        let mut substitute = |shadow: vk::CommandBuffer, cmd: &Cmd| {
            // SAFETY: the shadow is recording; the pipelines are alive.
            unsafe { crate::replay::bind_twin(data, shadow, cmd, variant, &code_for) }
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

/// Writes `header` (a fresh buffer's first words) to the debug buffer.
///
/// # Safety
/// Nothing pending uses the debug buffer.
unsafe fn reset(data: &DeviceData, header: &[u32]) {
    // SAFETY: per this function's contract.
    unsafe {
        data.pipelines.with_debug_words(|w| {
            w[..header.len()].copy_from_slice(header);
        })
    };
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
/// The arguments are the application's, valid for `vkQueueSubmit[2]`.
pub unsafe fn submit<I: Submission>(
    data: &DeviceData,
    queue: vk::Queue,
    count: u32,
    submits: *const I,
    fence: vk::Fence,
    next: Submit<I>,
) -> Option<vk::Result> {
    if !breakpoints::any() {
        return None;
    }
    let dbg = crate::agent::debugger()?;
    // SAFETY: the application names `count` submit infos.
    let infos = unsafe { array(submits, count) };
    // SAFETY: valid submit infos.
    let cbs: Vec<vk::CommandBuffer> = infos
        .iter()
        .flat_map(|i| unsafe { i.command_buffers() })
        .collect();
    let frame = data.frames.load(std::sync::atomic::Ordering::Relaxed);
    let filter = breakpoints::filter();
    if filter.frame.is_some_and(|f| f != frame) {
        return None;
    }
    let shaders: Vec<u32> = cbs
        .iter()
        .flat_map(|cb| data.replay.pipelines_bound(*cb))
        .flat_map(|p| data.pipelines.shaders_of(p))
        .collect();
    let Test {
        shader,
        bound,
        module,
        reason,
        nan_inf,
    } = what_to_test(&shaders, filter)?;
    // A stop needs a recording, which runs the buffers again: where that
    // is not safe, the submission runs as the application made it, and the
    // session hears why once.
    if let Some(why) = not_reexecutable(data, &cbs) {
        if said_once(shader, &why) {
            dbg.send(&FromAgent::Error {
                request: None,
                message: format!(
                    "breakpoints in shader {shader} cannot stop in this submission: recording an \
                     invocation runs the submission again, and {why}"
                ),
            });
        }
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
    if let Err(why) = taken {
        // SAFETY: the copies were waited for.
        unsafe { data.storage.drop_taken(data) };
        // Said once: a program submits the same work every frame.
        if said_once(shader, &why) {
            dbg.send(&FromAgent::Error {
                request: None,
                message: format!("shader {shader}: the storage cannot be kept for a stop: {why}"),
            });
        }
        return None;
    }
    let pixel = filter.pixel;
    let code = |set: u32| {
        module
            .hit_test_spirv(&bound, nan_inf, pixel, set)
            .map(Arc::new)
    };
    let variant = variant(&(shader, &bound, nan_inf, pixel));
    // SAFETY: the application is submitting `cbs`.
    let hit_shadows = match unsafe { shadows(data, &cbs, shader, variant, &code) } {
        Ok(s) => s,
        Err(why) => {
            dbg.send(&FromAgent::Error {
                request: None,
                message: format!(
                    "shader {shader}: the hit test cannot run in this submission: {why}"
                ),
            });
            return None;
        }
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
    unsafe { data.pipelines.with_debug_words(crate::replay::reset_hits) };
    // SAFETY: the application's submission with shadows in place of its
    // buffers; every other member is the application's.
    let result = unsafe { next(queue, count, replaced.as_ptr(), fence) };
    let wait = data.replay.life.queue_wait_idle;
    if let Some(wait) = wait {
        // SAFETY: a queue of this device.
        let _ = unsafe { wait(queue) };
    }
    // SAFETY: the queue is idle.
    let words = unsafe { data.pipelines.with_debug_words(|w| hit_words(w)) }.unwrap_or_default();
    // SAFETY: the queue is idle.
    unsafe { data.replay.free_shadows(data.handle, &hit_shadows) };
    if result != vk::Result::SUCCESS {
        return Some(result);
    }
    let (hits, truncated) = decode_hits(&words, &module.table);
    let mut hits = tagged(hits, &bound);
    if let Some(pixel) = filter
        .pixel
        .filter(|_| module.stage == shaderdbg_core::Stage::Fragment)
    {
        hits.retain(|h| h.invocation.pixel() == Some(pixel));
    }
    let (reason, hits) = pick(reason, hits);
    if hits.is_empty() {
        // SAFETY: the hit test was waited for.
        unsafe { data.storage.drop_taken(data) };
        return Some(result);
    }
    if reason == StopReason::Pause {
        breakpoints::take_pause();
    }
    let stopped = FromAgent::Stopped {
        context: vk::Handle::as_raw(data.handle),
        frame,
        draw: 0,
        program: 0,
        shader,
        hits,
        truncated,
        reason,
        probes: module.table.clone(),
        sanitizer: Vec::new(),
    };
    let mut answer = |request: u64, ask: Ask| match ask {
        Ask::Record(selector) => {
            // SAFETY: the application's thread waits here; its buffers are
            // still executable and their objects alive.
            let log = unsafe { record(data, queue, &cbs, shader, &module, selector)? };
            Ok(FromAgent::Recorded {
                request,
                shader,
                selector,
                log: shaderdbg_protocol::Blob::from_words(&log),
            })
        }
        Ask::Watch { line, expr } => {
            // SAFETY: as above.
            let w = unsafe { watch(data, queue, &cbs, shader, &module, line, &expr)? };
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
                rgba: shaderdbg_protocol::Blob(shot.rgba),
            })
        }
    };
    crate::agent::stop(dbg, stopped, &mut answer);
    // SAFETY: the last re-execution was waited for.
    unsafe { data.storage.drop_taken(data) };
    Some(result)
}

/// The id a pixel-history entry has among a hit test's breakpoints.
const PIXEL_HISTORY: u32 = u32::MAX;

/// A submission's hit test: the module, its breakpoints, why it would stop.
struct Test {
    shader: u32,
    bound: Vec<Bound>,
    module: Arc<ModuleDebug>,
    /// `Pause`, or `Breakpoint` (then pixel history and NaN/Inf too).
    reason: StopReason,
    nan_inf: bool,
}

/// What a submission running `shaders` (in the order its buffers bind
/// them) hit-tests: a pause stops every invocation of the first module at
/// the start of its entry point; else the first module with breakpoints,
/// or (pixel history) the first fragment module, or (NaN/Inf) the first
/// fragment or vertex module, with what applies to it of the three.
fn what_to_test(shaders: &[u32], filter: shaderdbg_core::control::StopFilter) -> Option<Test> {
    use shaderdbg_core::Stage;
    let start = |module: &ModuleDebug, id: u32| {
        let entry = breakpoints::entry_step(&module.table)?;
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
            return Some(Test {
                shader,
                bound,
                module,
                reason: StopReason::Pause,
                nan_inf: false,
            });
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
    let with_breakpoints = shaders
        .iter()
        .find(|&&sh| !breakpoints::of(sh).is_empty())
        .and_then(|&sh| wanted(sh));
    with_breakpoints.or_else(|| shaders.iter().find_map(|&sh| wanted(sh)))
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

/// Why running `cbs` again would not give what running them once gave, if so.
fn not_reexecutable(data: &DeviceData, cbs: &[vk::CommandBuffer]) -> Option<String> {
    for cb in cbs {
        let why = data.replay.with_commands(*cb, |cmds| {
            for cmd in cmds {
                // Loaded attachments and storage images are kept
                // (`images_read_first`).
                let why = match *cmd {
                    Cmd::CmdExecuteCommands(_) => Some("it executes secondary command buffers"),
                    _ => None,
                };
                if why.is_some() {
                    return why;
                }
            }
            None
        });
        match why {
            Some(Some(why)) => return Some(why.to_string()),
            Some(None) => {}
            None => return Some("a command buffer this layer did not record".into()),
        }
    }
    // Storage buffers and images read first are put back before each
    // re-execution (snapshots), where they can be copied.
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
) -> Result<crate::images::Plan, String> {
    let storage_images = cbs
        .iter()
        .flat_map(|cb| data.replay.pipelines_bound(*cb))
        .any(|p| data.pipelines.writable_storage(p).images);
    // The submission's commands in order (recordings are locked one at a
    // time, so each buffer's are walked on their own, in order, sharing
    // what earlier buffers did).
    let mut walk = data.storage.images.walk(storage_images);
    for cb in cbs {
        data.replay
            .with_commands(*cb, |cmds| {
                // SAFETY: recorded arguments point into the recording.
                cmds.iter().try_for_each(|c| unsafe { walk.command(c) })
            })
            .unwrap_or_else(|| Err("a command buffer this layer did not record".into()))?;
    }
    Ok(walk.plan())
}

/// The storage buffer ranges the buffers bind, where a pipeline they bind
/// declares storage buffers (empty otherwise), or why they cannot be kept.
fn storage_ranges(
    data: &DeviceData,
    cbs: &[vk::CommandBuffer],
) -> Result<Vec<crate::snapshots::Range>, String> {
    let writes = cbs
        .iter()
        .flat_map(|cb| data.replay.pipelines_bound(*cb))
        .any(|p| data.pipelines.writable_storage(p).buffers);
    if !writes {
        return Ok(Vec::new());
    }
    let mut all = Vec::new();
    for cb in cbs {
        let ranges = data
            .replay
            .with_commands(*cb, |cmds| data.storage.bound(cmds))
            .unwrap_or_else(|| Err("a command buffer this layer did not record".into()))
            .map_err(|why| format!("storage buffers cannot be kept for it: {why}"))?;
        for r in ranges {
            if !all.contains(&r) {
                all.push(r);
            }
        }
    }
    Ok(all)
}

/// Runs `cbs` again as shadows whose pipelines running `shader` run
/// `code` instead, the debug buffer first holding `buffer` (a fresh
/// buffer's words); what `read` makes of the debug buffer afterwards.
///
/// # Safety
/// `cbs` are executable and their objects alive; the application waits.
#[allow(clippy::too_many_arguments)]
unsafe fn rerun<R>(
    data: &DeviceData,
    queue: vk::Queue,
    cbs: &[vk::CommandBuffer],
    shader: u32,
    variant: u64,
    code: &dyn Fn(u32) -> Result<Code, String>,
    buffer: &[u32],
    read: impl FnOnce(&mut [u32]) -> R,
) -> Result<R, String> {
    if let Some(why) = not_reexecutable(data, cbs) {
        return Err(format!(
            "this needs the submission to run again, and {why}: running it again would not give what running it once gave"
        ));
    }
    if buffer.len() * 4 > DEBUG_BUFFER_BYTES as usize {
        return Err(format!(
            "the debug buffer holds {} bytes, this needs {}",
            DEBUG_BUFFER_BYTES,
            buffer.len() * 4
        ));
    }
    let family = cbs
        .first()
        .and_then(|cb| data.replay.family_of(*cb))
        .ok_or("a command buffer this layer did not see allocated")?;
    // The storage and images as they were before the submission ran.
    // SAFETY: the earlier submissions were waited for.
    unsafe {
        data.storage.restore(data, queue, family)?;
        data.storage.images.restore(data, queue, family)?;
    }
    // SAFETY: per this function's contract.
    let made = unsafe { shadows(data, cbs, shader, variant, code)? };
    let submit = data.queue_submit.ok_or("the device lacks vkQueueSubmit")?;
    let handles: Vec<vk::CommandBuffer> = made.iter().map(|s| s.cb).collect();
    let info = vk::SubmitInfo::default().command_buffers(&handles);
    // SAFETY: the application waits in its own submission; the earlier
    // submission of the shadows was waited for.
    unsafe {
        reset(data, buffer);
        let r = submit(queue, 1, &info, vk::Fence::null());
        if let Some(wait) = data.replay.life.queue_wait_idle {
            let _ = wait(queue);
        }
        data.replay.free_shadows(data.handle, &made);
        if r != vk::Result::SUCCESS {
            return Err(format!("submitting again: {r}"));
        }
        data.pipelines
            .with_debug_words(read)
            .ok_or_else(|| "no debug buffer".into())
    }
}

/// A recording of `selector` by running the buffers again with the module
/// instrumented to record it.
///
/// # Safety
/// As [`rerun`].
unsafe fn record(
    data: &DeviceData,
    queue: vk::Queue,
    cbs: &[vk::CommandBuffer],
    shader: u32,
    module: &ModuleDebug,
    selector: Invocation,
) -> Result<Vec<u32>, String> {
    let mode = ModuleDebug::record(selector);
    let code = |set: u32| module.spirv(&mode, set).map(Arc::new);
    let mut header = layout::to_words(&layout::new_record_buffer(0));
    header[layout::CAP_INDEX] = capacity();
    let v = variant(&(shader, "record", selector));
    // SAFETY: per this function's contract.
    unsafe {
        rerun(data, queue, cbs, shader, v, &code, &header, |w| {
            layout::trim_record(w)
        })
    }
}

/// A values image: the value of `expr` at `line` for every fragment of the
/// render area, by running the buffers again with the module instrumented
/// to watch it.
///
/// # Safety
/// As [`rerun`].
unsafe fn watch(
    data: &DeviceData,
    queue: vk::Queue,
    cbs: &[vk::CommandBuffer],
    shader: u32,
    module: &ModuleDebug,
    line: u32,
    expr: &str,
) -> Result<Watched, String> {
    let (code, ty) = module.watch_spirv(line, expr)?;
    let words = ty
        .words()
        .ok_or("the expression's type cannot be shown as an image")?;
    let (width, height) = render_area(data, cbs).ok_or("the submission draws in no render pass")?;
    let buffer = layout::to_words(&layout::new_watch_buffer(width, height, words));
    let code = |set: u32| code(set).map(Arc::new);
    let v = variant(&(shader, "watch", line, expr));
    // SAFETY: per this function's contract.
    let data_words = unsafe {
        rerun(data, queue, cbs, shader, v, &code, &buffer, |w| {
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
        data.replay.with_commands(*cb, |cmds| {
            for cmd in cmds {
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
                        _ => continue,
                    }
                };
                let w = (rect.offset.x.max(0) as u32) + rect.extent.width;
                let h = (rect.offset.y.max(0) as u32) + rect.extent.height;
                let (aw, ah) = area.unwrap_or((0, 0));
                area = Some((aw.max(w), ah.max(h)));
            }
        });
    }
    area
}
