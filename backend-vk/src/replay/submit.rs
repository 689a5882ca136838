//! Submitting shadows in place of the application's command buffers.
//!
//! For now only the replay self-check does this (`SHADERDBG_VK_SHADOW=1`):
//! every submission goes through shadow copies, so that a program's frames
//! show whether the replay buffer reproduces its command buffers exactly.
//! At `vkDestroyDevice` the layer prints one line to stderr saying how many
//! buffers went through shadows and why any did not.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use ash::vk;

use super::{Cmd, Shadow};
use crate::dispatch::{array, DeviceData};
use crate::error::Error;
use crate::pipelines::{Code, CodeFor, DebugBinding, StageCode, Twin};

/// What the replay self-check does (`SHADERDBG_VK_SHADOW`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfCheckMode {
    /// `1`: shadows replay the application's commands as recorded.
    Shadows,
    /// `twins`: shadows also bind every pipeline's twin and the debug set.
    Twins,
    /// `recompiled`: twins run modules compiled again (shaderc) from the
    /// source the layer recovered (embedded or decompiled).
    Recompiled,
    /// `instrumented`: twins run the recovered source instrumented (GLSL
    /// engine, Vulkan dialect) for a hit test at the first step of `main`
    /// with no condition (every invocation hits), compiled again; the
    /// summary counts the hits the debug buffer received.
    Instrumented,
}

/// The replay self-check asked for, if any.
pub fn self_check() -> Option<SelfCheckMode> {
    static MODE: OnceLock<Option<SelfCheckMode>> = OnceLock::new();
    *MODE.get_or_init(|| match std::env::var("SHADERDBG_VK_SHADOW").as_deref() {
        Ok("1") => Some(SelfCheckMode::Shadows),
        Ok("twins") => Some(SelfCheckMode::Twins),
        Ok("recompiled") => Some(SelfCheckMode::Recompiled),
        Ok("instrumented") => Some(SelfCheckMode::Instrumented),
        _ => None,
    })
}

/// What the self-check saw on one device.
#[derive(Default)]
pub struct SelfCheck {
    shadowed: AtomicU64,
    /// Hits the instrumented twins wrote (`instrumented`).
    hits: AtomicU64,
    /// Buffers submitted as the application recorded them, by reason.
    refused: Mutex<BTreeMap<String, u64>>,
}

impl SelfCheck {
    /// The line printed when the device is destroyed.
    pub fn summary(&self) -> String {
        let refused = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        let mut s = format!(
            "shaderdbg replay self-check: {} command buffers submitted as shadows, {} as recorded",
            self.shadowed.load(Ordering::Relaxed),
            refused.values().sum::<u64>()
        );
        if self_check() == Some(SelfCheckMode::Instrumented) {
            s.push_str(&format!(", {} hits", self.hits.load(Ordering::Relaxed)));
        }
        for (why, n) in refused.iter() {
            s.push_str(&format!("; {n}x {why}"));
        }
        s
    }
}

/// A submit info whose command buffers can be swapped.
pub trait Submission: Copy {
    /// Its command buffers.
    ///
    /// # Safety
    /// `self` is a valid submit info.
    unsafe fn command_buffers(&self) -> Vec<vk::CommandBuffer>;

    /// A copy naming `cbs` instead (their storage is pushed onto `keep`).
    ///
    /// # Safety
    /// `self` is a valid submit info; `cbs` has as many buffers as it names.
    unsafe fn replaced(&self, cbs: Vec<vk::CommandBuffer>, keep: &mut Keep) -> Self;
}

/// Storage for the arrays replaced submit infos point to.
#[derive(Default)]
pub struct Keep {
    buffers: Vec<Vec<vk::CommandBuffer>>,
    infos: Vec<Vec<vk::CommandBufferSubmitInfo<'static>>>,
}

impl Submission for vk::SubmitInfo<'_> {
    unsafe fn command_buffers(&self) -> Vec<vk::CommandBuffer> {
        // SAFETY: a valid submit info names this many buffers.
        unsafe { array(self.p_command_buffers, self.command_buffer_count) }.to_vec()
    }

    unsafe fn replaced(&self, cbs: Vec<vk::CommandBuffer>, keep: &mut Keep) -> Self {
        let mut copy = *self;
        copy.p_command_buffers = cbs.as_ptr();
        keep.buffers.push(cbs);
        copy
    }
}

impl Submission for vk::SubmitInfo2<'_> {
    unsafe fn command_buffers(&self) -> Vec<vk::CommandBuffer> {
        // SAFETY: a valid submit info names this many buffer infos.
        unsafe { array(self.p_command_buffer_infos, self.command_buffer_info_count) }
            .iter()
            .map(|i| i.command_buffer)
            .collect()
    }

    unsafe fn replaced(&self, cbs: Vec<vk::CommandBuffer>, keep: &mut Keep) -> Self {
        // SAFETY: a valid submit info names this many buffer infos.
        let old = unsafe { array(self.p_command_buffer_infos, self.command_buffer_info_count) };
        let infos: Vec<vk::CommandBufferSubmitInfo<'static>> = old
            .iter()
            .zip(cbs)
            .map(|(i, cb)| vk::CommandBufferSubmitInfo {
                command_buffer: cb,
                device_mask: i.device_mask,
                p_next: i.p_next,
                ..Default::default()
            })
            .collect();
        let mut copy = *self;
        copy.p_command_buffer_infos = infos.as_ptr();
        keep.infos.push(infos);
        copy
    }
}

/// The next layer's `vkQueueSubmit` or `vkQueueSubmit2`.
pub type Submit<I> = unsafe extern "system" fn(vk::Queue, u32, *const I, vk::Fence) -> vk::Result;

/// The application's `vkQueueSubmit[2]`: its arguments, and the next
/// layer's command that submits them.
pub struct AppSubmit<'a, I> {
    pub queue: vk::Queue,
    /// Its submit infos.
    pub infos: &'a [I],
    /// As the application passed them (null where there are none).
    submits: *const I,
    fence: vk::Fence,
    next: Submit<I>,
}

impl<'a, I: Submission> AppSubmit<'a, I> {
    /// # Safety
    /// The arguments are the application's, valid for `vkQueueSubmit[2]`
    /// (`count` infos at `submits`), alive for `'a`.
    pub unsafe fn new(
        queue: vk::Queue,
        count: u32,
        submits: *const I,
        fence: vk::Fence,
        next: Submit<I>,
    ) -> Self {
        AppSubmit {
            queue,
            // SAFETY: per this function's contract.
            infos: unsafe { array(submits, count) },
            submits,
            fence,
            next,
        }
    }

    /// Its command buffers, in order.
    pub fn command_buffers(&self) -> Vec<vk::CommandBuffer> {
        let infos = self.infos.iter();
        // SAFETY: valid submit infos.
        infos.flat_map(|i| unsafe { i.command_buffers() }).collect()
    }

    /// Submits it down the chain as it is.
    ///
    /// # Safety
    /// Nothing of it was submitted yet.
    pub unsafe fn down(&self) -> vk::Result {
        let count = self.infos.len() as u32;
        // SAFETY: the application's arguments.
        unsafe { (self.next)(self.queue, count, self.submits, self.fence) }
    }

    /// Submits `infos` (its infos, their command buffers replaced) in its
    /// place, with its queue and fence.
    ///
    /// # Safety
    /// As [`AppSubmit::down`]; `infos` are valid, one per application info.
    pub unsafe fn down_with(&self, infos: &[I]) -> vk::Result {
        debug_assert_eq!(infos.len(), self.infos.len());
        // SAFETY: per this function's contract; every other member is the
        // application's.
        unsafe { (self.next)(self.queue, infos.len() as u32, infos.as_ptr(), self.fence) }
    }
}

/// Submits shadows of the application's command buffers in their place,
/// waits for the queue and frees them; where a buffer cannot be shadowed,
/// the application's own submission goes down unchanged.
///
/// # Safety
/// Nothing of `app` was submitted yet.
pub unsafe fn submit_shadows<I: Submission>(
    data: &DeviceData,
    app: &AppSubmit<'_, I>,
) -> vk::Result {
    let (infos, queue) = (app.infos, app.queue);
    let replay = &data.replay;
    let mut shadows: Vec<Shadow> = Vec::new();
    let mut keep = Keep::default();
    let mut replaced = Vec::with_capacity(infos.len());
    let mut refused = None;
    'infos: for info in infos {
        let mut these = Vec::new();
        // SAFETY: a valid submit info.
        for cb in unsafe { info.command_buffers() } {
            let mode = self_check();
            let mut substitute = |shadow: vk::CommandBuffer, cmd: &Cmd| {
                let code_for: (u64, CodeFor<'_>) = match mode {
                    Some(SelfCheckMode::Twins) => (0, &|c, _| Ok(c.code.clone())),
                    Some(SelfCheckMode::Recompiled) => (1, &|c, _| recompiled(c)),
                    Some(SelfCheckMode::Instrumented) => (2, &|c, set| instrumented(c, set)),
                    _ => return Ok(false),
                };
                let debug = DebugBinding::at(0);
                // SAFETY: the shadow is recording; the pipelines are alive
                // (the application's buffer is executable).
                unsafe { bind_twin(data, shadow, cmd, code_for.0, code_for.1, debug) }
                    .map(|t| t.is_some())
            };
            // SAFETY: the application is submitting `cb`: it is executable.
            match unsafe { replay.shadow(data.handle, cb, &mut substitute) } {
                Ok(s) => {
                    these.push(s.cb);
                    shadows.push(s);
                }
                Err(why) => {
                    refused = Some(why);
                    break 'infos;
                }
            }
        }
        // SAFETY: `these` replaces each of the info's buffers.
        replaced.push(unsafe { info.replaced(these, &mut keep) });
    }
    let check = &replay.self_check;
    if let Some(why) = refused {
        // SAFETY: none of the shadows was submitted.
        unsafe { replay.free_shadows(data.handle, &shadows) };
        let n: usize = infos
            .iter()
            // SAFETY: valid submit infos.
            .map(|i| unsafe { i.command_buffers() }.len())
            .sum();
        let mut refused = check.refused.lock().unwrap_or_else(|e| e.into_inner());
        *refused.entry(why.to_string()).or_default() += n as u64;
        // SAFETY: the application's arguments, down the chain.
        return unsafe { app.down() };
    }
    let counting = self_check() == Some(SelfCheckMode::Instrumented);
    if counting {
        // SAFETY: nothing is pending on the debug buffer (every earlier
        // self-check submission was waited for).
        unsafe { data.pipelines.with_debug_words(reset_hits) };
    }
    // SAFETY: the application's submission with shadows in place of its
    // buffers.
    let result = unsafe { app.down_with(&replaced) };
    check
        .shadowed
        .fetch_add(shadows.len() as u64, Ordering::Relaxed);
    // A check, not the fast path: wait so that the shadows can be freed now.
    if let Some(wait) = replay.life.queue_wait_idle {
        // SAFETY: a queue of this device.
        let _ = unsafe { wait(queue) };
    }
    if counting {
        // SAFETY: the queue is idle.
        let hits = unsafe { data.pipelines.with_debug_words(|w| w[0].min(w[1])) };
        check
            .hits
            .fetch_add(u64::from(hits.unwrap_or(0)), Ordering::Relaxed);
    }
    // SAFETY: the queue is idle.
    unsafe { replay.free_shadows(data.handle, &shadows) };
    result
}

/// Binds the twin of a pipeline the application binds, and the debug set
/// after it as `debug` says; the twin (none: `cmd` binds no pipeline).
///
/// # Safety
/// `shadow` is recording; the pipeline of `cmd` is alive.
pub unsafe fn bind_twin(
    data: &DeviceData,
    shadow: vk::CommandBuffer,
    cmd: &Cmd,
    variant: u64,
    code_for: CodeFor<'_>,
    debug: DebugBinding,
) -> Result<Option<Twin>, Error> {
    let Cmd::CmdBindPipeline(a) = cmd else {
        return Ok(None);
    };
    let p = &data.pipelines;
    // SAFETY: per this function's contract.
    let twin = unsafe { p.twin(data.handle, a.pipeline, variant, code_for)? };
    let bind = p
        .next
        .cmd_bind_pipeline
        .ok_or(Error::Lacks("vkCmdBindPipeline"))?;
    // SAFETY: per this function's contract.
    unsafe {
        bind(shadow, a.pipeline_bind_point, twin.pipeline);
        p.bind_debug(shadow, a.pipeline_bind_point, &twin, debug)?;
    }
    Ok(Some(twin))
}

/// The debug buffer as an empty hit buffer (header: no hits, the capacity
/// the buffer holds).
fn reset_hits(words: &mut [u32]) {
    use shaderdbg_core::layout::{CAP_INDEX, HEADER_WORDS, HIT_RECORD_WORDS};
    words[..HEADER_WORDS].fill(0);
    words[CAP_INDEX] = ((words.len() - HEADER_WORDS) / HIT_RECORD_WORDS) as u32;
}

/// The source the layer recovered for a stage's entry point, as Vulkan GLSL.
fn recovered(stage: &StageCode) -> Result<crate::source::RuntimeSource, Error> {
    let source = crate::source::of_module(crate::spirv::bytes_of(&stage.code))
        .map_err(Error::from)?
        .into_iter()
        .find(|s| s.entry_point == stage.entry_point)
        .ok_or(Error::Cannot("the module has no such entry point"))?;
    if let crate::source::Origin::Foreign { why, .. } = source.origin {
        return Err(Error::Undebuggable(why));
    }
    if source.language != shaderdbg_core::Language::Glsl {
        return Err(Error::Cannot("the self-check compiles GLSL only"));
    }
    if matches!(
        source.origin,
        crate::source::Origin::Decompiled(crate::source::Decompiler::Naga)
    ) {
        return Err(Error::Cannot(
            "naga decompiles to OpenGL GLSL, which does not compile for Vulkan",
        ));
    }
    Ok(source)
}

/// A module instrumented for a hit test at the first step of `main`
/// (no condition), the debug buffer in descriptor set `set`.
fn instrumented(code: &StageCode, set: u32) -> Result<Code, Error> {
    use shaderdbg_glsl::instrument::{self, Breakpoint, Mode};
    let source = recovered(code)?;
    let text = crate::compile::compilable(&source.text);
    let mut parsed =
        shaderdbg_glsl::parse::parse(&[&text], source.stage, None).map_err(Error::from)?;
    parsed.api = shaderdbg_glsl::Api::Vulkan;
    let table = instrument::probe_table(&parsed);
    let entry = table
        .main_entry_step()
        .ok_or(Error::Cannot("no step in main"))?;
    let mode = Mode::HitTest(vec![Breakpoint {
        probe: entry.id,
        condition: None,
    }]);
    let inst = instrument::instrument_vulkan(&parsed, &mode, set).map_err(Error::from)?;
    let name = format!("instrumented.{}", source.stage.short_name());
    crate::compile::glsl_to_spirv(&inst.glsl, source.stage, &source.entry_point, &name)
        .map(std::sync::Arc::new)
}

/// A module compiled again from the source the layer recovered for it.
fn recompiled(code: &StageCode) -> Result<Code, Error> {
    let source = recovered(code)?;
    let name = format!("module.{}", source.stage.short_name());
    crate::compile::glsl_to_spirv(
        &crate::compile::compilable(&source.text),
        source.stage,
        &source.entry_point,
        &name,
    )
    .map(std::sync::Arc::new)
}
