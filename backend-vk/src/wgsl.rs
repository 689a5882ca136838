//! SPIR-V that naga wrote from WGSL (wgpu's Vulkan backend): the module
//! carries the WGSL text when the program asked for debug information
//! (`wgpu::InstanceFlags::DEBUG`, the default in debug builds). The WGSL
//! is debugged with the WGSL engine, and an instrumented module must
//! compute what the program's does, so the writer options wgpu used are
//! found, not guessed: the WGSL is written again under each candidate set
//! of options, and the module is debuggable only under the options that
//! give back the program's SPIR-V word for word. That needs the naga the
//! program's wgpu uses (wgpu and naga share their version numbers); with
//! another, no candidate matches and the breakpoints say so.

use naga::back::spv::{self, WriterFlags, ZeroInitializeWorkgroupMemoryMode as ZeroInit};
use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy as Policy};

use crate::error::Error;

/// A WGSL module as a pipeline stage of the program runs it (compacted to
/// its entry point), and the options under which naga writes the
/// program's SPIR-V from it (without the debug information, for
/// instrumented twins).
pub struct WgslModule {
    pub parsed: shaderdbg_wgsl::Parsed,
    pub options: spv::Options<'static>,
    /// The whole WGSL text's functions and their lines (the module is
    /// compacted to one entry point's functions): where a breakpoint is.
    function_lines: Vec<(String, u32, u32)>,
}

/// The WGSL module `words` was written from, with its writer options;
/// `file` is the file name the module records. wgpu writes one entry point
/// per module (at pipeline creation: the WGSL module compacted to that
/// entry point, its bindings renumbered densely per bind group). The error
/// says why the module cannot be debugged as that WGSL.
pub fn recompiled(source: &str, file: Option<&str>, words: &[u32]) -> Result<WgslModule, Error> {
    let parsed = shaderdbg_wgsl::parse(source).map_err(|e| Error::WgslParse(Box::new(e)))?;
    let info = crate::spirv::read(words).map_err(Error::from)?;
    // Without the source in the module, naga wrote it without debug
    // information (`InstanceFlags::DEBUG` off).
    let debug = info.source.is_some();
    let entry_point = match info.entry_points.as_slice() {
        [one] => {
            let stage = match one.stage {
                Some(shaderdbg_core::Stage::Vertex) => naga::ShaderStage::Vertex,
                Some(shaderdbg_core::Stage::Fragment) => naga::ShaderStage::Fragment,
                Some(shaderdbg_core::Stage::Compute) => naga::ShaderStage::Compute,
                _ => {
                    return Err(Error::Cannot(
                        "an entry point of a stage the WGSL engine does not debug",
                    ))
                }
            };
            Some((stage, one.name.clone()))
        }
        _ => None,
    };
    let (module, module_info) = naga::back::pipeline_constants::process_overrides(
        &parsed.module,
        &parsed.info,
        entry_point.as_ref().map(|(s, n)| (*s, n.as_str())),
        &Default::default(),
    )
    .map_err(|e| Error::Overrides(Box::new(e)))?;
    let function_lines = parsed.function_lines();
    let parsed = parsed.with_module(module.into_owned(), module_info.into_owned());
    let binding_map = binding_map(&parsed.module, words);
    let pipeline = entry_point
        .as_ref()
        .map(|(shader_stage, name)| spv::PipelineOptions {
            shader_stage: *shader_stage,
            entry_point: name.clone(),
        });
    let version = words.get(1).copied().unwrap_or(0);
    let lang_version = ((version >> 16) as u8, (version >> 8) as u8);
    for mut options in candidates(lang_version) {
        options.binding_map = binding_map.clone();
        let mut with_debug = options.clone();
        if debug {
            with_debug.debug_info = Some(spv::DebugInfo {
                source_code: source,
                file_name: file.unwrap_or(""),
                language: spv::SourceLanguage::WGSL,
            });
            with_debug.flags |= WriterFlags::DEBUG;
        }
        match spv::write_vec(&parsed.module, &parsed.info, &with_debug, pipeline.as_ref()) {
            Ok(again) if again == words => {
                return Ok(WgslModule {
                    parsed,
                    options,
                    function_lines,
                })
            }
            Ok(_) => {}
            Err(e) => return Err(Error::NagaWrite(Box::new(e))),
        }
    }
    Err(Error::NotWrittenAgain)
}

/// The WGSL files the session named (path, text).
static CANDIDATES: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());

/// Replaces the WGSL files modules without source are matched against.
pub fn set_candidates(files: Vec<(String, String)>) {
    *CANDIDATES.lock().unwrap_or_else(|e| e.into_inner()) = files;
}

/// For a module that carries no source: the session's WGSL file naga
/// writes it from under wgpu's options, as the module's source and the
/// module. Cheap for modules that cannot match (a file without the
/// module's entry point is not parsed).
pub fn matching_file(words: &[u32]) -> Option<(crate::source::RuntimeSource, WgslModule)> {
    let info = crate::spirv::read(words).ok()?;
    if info.source.is_some() {
        return None;
    }
    let [entry] = info.entry_points.as_slice() else {
        return None;
    };
    let stage = entry.stage?;
    let files = CANDIDATES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    files.into_iter().find_map(|(path, text)| {
        if !text.contains(entry.name.as_str()) {
            return None;
        }
        match recompiled(&text, None, words) {
            Ok(module) => {
                let source = crate::source::RuntimeSource {
                    stage,
                    entry_point: entry.name.clone(),
                    text,
                    origin: crate::source::Origin::Matched { file: path },
                    language: shaderdbg_core::Language::Wgsl,
                    parts: Vec::new(),
                };
                Some((source, module))
            }
            Err(why) => {
                tracing::debug!(%path, "not the module's source: {why}");
                None
            }
        }
    })
}

/// The descriptor set and binding the module gives each resource of the
/// WGSL (wgpu renumbers a bind group's bindings densely): by name where the
/// module has names, else in order (naga writes the resources in the
/// order of the module's global variables).
fn binding_map(module: &naga::Module, words: &[u32]) -> spv::BindingMap {
    let written = crate::spirv::resource_bindings(words);
    let resources: Vec<_> = module
        .global_variables
        .iter()
        .filter_map(|(_, g)| Some((g.binding?, g)))
        .collect();
    let by_name = |g: &naga::GlobalVariable| {
        let name = g.name.as_deref()?;
        written
            .iter()
            .find(|(n, ..)| n.as_deref() == Some(name))
            .map(|(_, set, binding)| (*set, *binding))
    };
    let named = resources.iter().all(|(_, g)| by_name(g).is_some());
    resources
        .iter()
        .enumerate()
        .filter_map(|(i, (rb, g))| {
            let (set, binding) = if named {
                by_name(g)?
            } else {
                written.get(i).map(|(_, set, binding)| (*set, *binding))?
            };
            let binding_array_size = match module.types[g.ty].inner {
                naga::TypeInner::BindingArray {
                    size: naga::ArraySize::Constant(n),
                    ..
                } => Some(n.get()),
                _ => None,
            };
            Some((
                *rb,
                spv::BindingInfo {
                    descriptor_set: set,
                    binding,
                    binding_array_size,
                },
            ))
        })
        .collect()
}

/// The naga this layer was built with.
pub const NAGA_VERSION: &str = "30";

/// The writer options wgpu's Vulkan backend may have used, most likely
/// first (wgpu-hal's `vulkan/adapter.rs` and `device.rs`): they differ by
/// what the device supports (robust buffer and image access, zero-
/// initialized workgroup memory), by vendor (Qualcomm: no varying labels),
/// by the program's runtime checks (off: no bounds checks) and by
/// ray-tracing diagnostics. Debug information is set by the caller.
fn candidates(lang_version: (u8, u8)) -> impl Iterator<Item = spv::Options<'static>> {
    let checks = [
        (Policy::Restrict, Policy::Restrict, Policy::Restrict),
        (Policy::Restrict, Policy::Unchecked, Policy::Unchecked),
        (Policy::Restrict, Policy::Unchecked, Policy::Restrict),
        (Policy::Restrict, Policy::Restrict, Policy::Unchecked),
        (Policy::Unchecked, Policy::Unchecked, Policy::Unchecked),
    ];
    let zero_init = [ZeroInit::Native, ZeroInit::Polyfill, ZeroInit::None];
    let printing = [true, false];
    let labels = [true, false];
    checks
        .into_iter()
        .flat_map(move |(index, buffer, image_load)| {
            zero_init.into_iter().flat_map(move |zero| {
                printing.into_iter().flat_map(move |print| {
                    labels.into_iter().map(move |label| {
                        let mut flags = WriterFlags::FORCE_POINT_SIZE;
                        flags.set(WriterFlags::LABEL_VARYINGS, label);
                        flags.set(
                            WriterFlags::PRINT_ON_RAY_QUERY_INITIALIZATION_FAIL
                                | WriterFlags::PRINT_ON_TRACE_RAYS_FAIL,
                            print,
                        );
                        spv::Options {
                            lang_version,
                            flags,
                            fake_missing_bindings: false,
                            capabilities: None,
                            bounds_check_policies: BoundsCheckPolicies {
                                index,
                                buffer,
                                image_load,
                                binding_array: Policy::Unchecked,
                            },
                            zero_initialize_workgroup_memory: zero,
                            use_storage_input_output_16: false,
                            debug_info: None,
                            task_dispatch_limits: None,
                            ..spv::Options::default()
                        }
                    })
                })
            })
        })
}

impl WgslModule {
    /// The step of `table` a breakpoint on `line` binds to: the first step
    /// at or after it in the function the line is in, or why there is none
    /// (a line of another entry point's functions).
    pub fn step_for_line<'t>(
        &self,
        table: &'t shaderdbg_core::probes::ProbeTable,
        entry_point: &str,
        line: u32,
    ) -> Result<&'t shaderdbg_core::probes::Probe, Error> {
        let function = shaderdbg_wgsl::parse::function_for_line(&self.function_lines, line)
            .ok_or(Error::NoStatement(line))?;
        let f = table
            .functions
            .iter()
            .position(|f| f.name == function)
            .ok_or_else(|| Error::NotRun {
                line,
                function: function.to_string(),
                entry_point: entry_point.to_string(),
            })?;
        table
            .probes
            .iter()
            .filter(|p| p.is_step() && p.function == Some(f) && p.line >= line)
            .min_by_key(|p| (p.line, p.id))
            .ok_or_else(|| Error::NoStatementIn {
                line,
                function: function.to_string(),
            })
    }

    /// The first descriptor set no resource of the module uses.
    pub fn free_set(&self) -> u32 {
        self.options
            .binding_map
            .values()
            .map(|b| b.descriptor_set + 1)
            .max()
            .unwrap_or(0)
    }

    /// SPIR-V of `entry_point` instrumented for `mode`, the debug buffer at
    /// set `set`, binding 0, written under the program's options; a watch
    /// expression's type.
    pub fn spirv(
        &self,
        entry_point: &str,
        mode: &shaderdbg_core::modes::Mode,
        set: u32,
    ) -> Result<(Vec<u32>, Option<shaderdbg_core::Type>), Error> {
        self.write(&self.request(entry_point, mode, set), set)
    }

    /// The module instrumented as `request` says, written under the
    /// program's options with the debug buffer at set `set`, binding 0.
    fn write(
        &self,
        request: &shaderdbg_wgsl::Request,
        set: u32,
    ) -> Result<(Vec<u32>, Option<shaderdbg_core::Type>), Error> {
        let inst = shaderdbg_wgsl::instrument(&self.parsed, request).map_err(Error::from)?;
        let mut options = self.options.clone();
        if let Some(debug) = inst.debug_binding {
            options.binding_map.insert(
                debug,
                spv::BindingInfo {
                    descriptor_set: set,
                    binding: 0,
                    binding_array_size: None,
                },
            );
        }
        let words = shaderdbg_wgsl::emit::to_spirv(&inst, &options).map_err(Error::from)?;
        Ok((words, inst.watch_type))
    }

    /// As [`WgslModule::spirv`] for a hit test that writes only `only`'s hits.
    pub fn hit_test_spirv(
        &self,
        entry_point: &str,
        mode: &shaderdbg_core::modes::Mode,
        only: shaderdbg_core::Invocation,
        set: u32,
    ) -> Result<(Vec<u32>, Option<shaderdbg_core::Type>), Error> {
        let mut request = self.request(entry_point, mode, set);
        request.only = Some(only);
        self.write(&request, set)
    }

    /// Whether `mode` instruments (a condition or a watch expression that
    /// does not compile says why), and a watch expression's type.
    pub fn check(
        &self,
        entry_point: &str,
        mode: &shaderdbg_core::modes::Mode,
    ) -> Result<Option<shaderdbg_core::Type>, Error> {
        shaderdbg_wgsl::instrument(
            &self.parsed,
            &self.request(entry_point, mode, self.free_set()),
        )
        .map(|i| i.watch_type)
        .map_err(Error::from)
    }

    /// The debug buffer goes to a WGSL group no resource uses (the set the
    /// twin's layout adds), binding 0.
    fn request(
        &self,
        entry_point: &str,
        mode: &shaderdbg_core::modes::Mode,
        set: u32,
    ) -> shaderdbg_wgsl::Request {
        let group = self
            .parsed
            .module
            .global_variables
            .iter()
            .filter_map(|(_, g)| g.binding.map(|b| b.group + 1))
            .max()
            .unwrap_or(0)
            .max(set);
        shaderdbg_wgsl::Request {
            entry_point: entry_point.to_string(),
            mode: mode.clone(),
            group,
            binding: 0,
            only: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHADER: &str = "\
struct U { t: f32 }
@group(0) @binding(3) var<uniform> u: U;
@group(0) @binding(5) var<storage, read> s: array<f32>;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    return vec4<f32>(f32(i), 0.0, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let a = p.x * u.t + s[u32(p.y)];
    return vec4<f32>(a, 0.0, 0.0, 1.0);
}
";

    /// The fragment entry point's SPIR-V as wgpu writes it at pipeline
    /// creation on a device with robust buffer access and no zero-
    /// initialization feature (one of the candidates, not the first): the
    /// module compacted to the entry point, binding 3 renumbered to 0.
    fn as_wgpu_writes(source: &str, file: &str) -> Vec<u32> {
        written(source, Some(file))
    }

    /// As [`as_wgpu_writes`], with debug information (the file name given)
    /// or without (`InstanceFlags::DEBUG` off: no source, no names).
    fn written(source: &str, file: Option<&str>) -> Vec<u32> {
        let parsed = shaderdbg_wgsl::parse(source).expect("parses");
        let (module, info) = naga::back::pipeline_constants::process_overrides(
            &parsed.module,
            &parsed.info,
            Some((naga::ShaderStage::Fragment, "fs")),
            &Default::default(),
        )
        .expect("compacts");
        let options = spv::Options {
            lang_version: (1, 6),
            flags: WriterFlags::LABEL_VARYINGS
                | WriterFlags::FORCE_POINT_SIZE
                | WriterFlags::PRINT_ON_RAY_QUERY_INITIALIZATION_FAIL
                | WriterFlags::PRINT_ON_TRACE_RAYS_FAIL,
            fake_missing_bindings: false,
            binding_map: [(3, 0), (5, 1)]
                .into_iter()
                .map(|(wgsl, vk)| {
                    let rb = naga::ResourceBinding {
                        group: 0,
                        binding: wgsl,
                    };
                    let info = spv::BindingInfo {
                        descriptor_set: 0,
                        binding: vk,
                        binding_array_size: None,
                    };
                    (rb, info)
                })
                .collect(),
            bounds_check_policies: BoundsCheckPolicies {
                index: Policy::Restrict,
                buffer: Policy::Unchecked,
                image_load: Policy::Restrict,
                binding_array: Policy::Unchecked,
            },
            zero_initialize_workgroup_memory: ZeroInit::Polyfill,
            use_storage_input_output_16: false,
            debug_info: file.map(|file_name| spv::DebugInfo {
                source_code: source,
                file_name,
                language: spv::SourceLanguage::WGSL,
            }),
            ..spv::Options::default()
        };
        let mut options = options;
        options.flags.set(WriterFlags::DEBUG, file.is_some());
        let pipeline = spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Fragment,
            entry_point: "fs".into(),
        };
        spv::write_vec(&module, &info, &options, Some(&pipeline)).expect("writes")
    }

    #[test]
    fn the_options_that_write_the_module_again_are_found() {
        let words = as_wgpu_writes(SHADER, "quad.wgsl");
        let m = recompiled(SHADER, Some("quad.wgsl"), &words).expect("found");
        assert_eq!(m.options.bounds_check_policies.buffer, Policy::Unchecked);
        assert_eq!(m.options.lang_version, (1, 6));
        let renumbered: Vec<u32> = m.options.binding_map.values().map(|b| b.binding).collect();
        assert_eq!(renumbered, [0, 1]);
        assert_eq!(m.free_set(), 1);
        let names: Vec<&str> = m
            .parsed
            .module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, ["fs"], "compacted to the module's entry point");
    }

    #[test]
    fn breakpoints_bind_in_the_function_their_line_is_in() {
        let words = as_wgpu_writes(SHADER, "quad.wgsl");
        let m = recompiled(SHADER, Some("quad.wgsl"), &words).expect("found");
        let table = shaderdbg_wgsl::probe_table(&m.parsed, "fs").expect("table");
        // Line 5 is the vertex entry point's: the fragment's must not take it.
        let err = m
            .step_for_line(&table, "fs", 5)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("line 5 is in `vs`, which entry point `fs` does not run")
        );
        let line = |l| m.step_for_line(&table, "fs", l).map(|p| p.line).ok();
        assert_eq!(line(7), Some(8));
        assert_eq!(line(9), Some(9));
    }

    #[test]
    fn a_module_without_source_is_the_file_naga_writes_it_from() {
        let words = written(SHADER, None);
        assert!(crate::spirv::read(&words).expect("reads").source.is_none());
        let other = SHADER.replace("p.x * u.t", "p.y * u.t");
        set_candidates(vec![
            ("other.wgsl".into(), other),
            ("quad.wgsl".into(), SHADER.into()),
        ]);
        let (src, m) = matching_file(&words).expect("matched");
        assert_eq!(
            src.origin,
            crate::source::Origin::Matched {
                file: "quad.wgsl".into()
            }
        );
        assert_eq!(
            (src.stage, src.entry_point.as_str()),
            (shaderdbg_core::Stage::Fragment, "fs")
        );
        assert_eq!(src.text, SHADER);
        // Without names, the resources are renumbered in order.
        let renumbered: Vec<u32> = m.options.binding_map.values().map(|b| b.binding).collect();
        assert_eq!(renumbered, [0, 1]);
        set_candidates(vec![(
            "other.wgsl".into(),
            SHADER.replace("p.x * u.t", "p.y"),
        )]);
        assert!(matching_file(&words).is_none());
    }

    #[test]
    fn a_module_naga_did_not_write_from_that_text_is_refused() {
        let words = as_wgpu_writes(SHADER, "quad.wgsl");
        // The text changed after compiling: not the module's source.
        let edited = SHADER.replace("p.x * u.t", "p.y * u.t");
        let err = recompiled(&edited, Some("quad.wgsl"), &words)
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("does not write this module again")),
            "{err:?}"
        );
    }

    #[test]
    fn instrumented_entry_points_keep_their_names_and_put_the_debug_buffer_in_the_free_set() {
        let words = as_wgpu_writes(SHADER, "quad.wgsl");
        let m = recompiled(SHADER, Some("quad.wgsl"), &words).expect("found");
        let table = shaderdbg_wgsl::probe_table(&m.parsed, "fs").expect("table");
        let step = table.step_for_line(9).expect("a step on line 9");
        let mode = shaderdbg_core::modes::Mode::HitTest(vec![shaderdbg_core::modes::Breakpoint {
            probe: step.id,
            condition: Some("a > 2.0".into()),
        }]);
        m.check("fs", &mode).expect("the condition compiles");
        let (code, _) = m.spirv("fs", &mode, m.free_set()).expect("instrumented");
        let info = crate::spirv::read(&code).expect("reads");
        let names: Vec<&str> = info.entry_points.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["fs"]);
        let back =
            naga::front::spv::parse_u8_slice(crate::spirv::bytes_of(&code), &Default::default())
                .expect("naga reads it back");
        let sets: Vec<(u32, u32)> = back
            .global_variables
            .iter()
            .filter_map(|(_, g)| g.binding.map(|b| (b.group, b.binding)))
            .collect();
        assert!(sets.contains(&(1, 0)), "the debug buffer: {sets:?}");
        assert!(
            sets.contains(&(0, 0)) && sets.contains(&(0, 1)),
            "the program's, renumbered: {sets:?}"
        );
    }
}
