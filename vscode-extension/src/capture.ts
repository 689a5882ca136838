// "shaderdbg: Capture a Trace of the Launch Configuration" (pure, no `vscode`):
// which launch configuration, the `shaderdbg capture` command line for it,
// where the trace goes, and the configuration that debugs the trace.
import * as path from 'node:path';
import { DEBUG_TYPE, HOST_ARGS, isHostShader, type LaunchConfig } from './config';

/** `shaderdbg capture --api`: GLX (most X11 programs) or EGL. */
export type CaptureApi = 'gl' | 'egl';

export const CAPTURE_APIS: { api: CaptureApi; label: string; detail: string }[] = [
  { api: 'gl', label: 'GLX', detail: 'Desktop OpenGL through GLX (glmark2, most X11 programs)' },
  { api: 'egl', label: 'EGL', detail: 'OpenGL or OpenGL ES through EGL (headless and Wayland programs)' },
];

/** What `${...}` in a launch configuration stands for here. */
export interface Variables {
  workspaceFolder: string;
  /** The active editor's file, if any. */
  file?: string | undefined;
  userHome?: string | undefined;
  env: Record<string, string | undefined>;
}

export interface CapturePlan {
  /** The program recorded (the built-in host for a shader file). */
  program: string;
  args: string[];
  cwd: string;
  /** Added to the environment (null values are ignored, as in a launch). */
  env: Record<string, string>;
  /** The trace written: `<program name>.trace` in the workspace folder. */
  output: string;
  /** `undefined`: ask (the configuration has no `captureApi`). */
  api: CaptureApi | undefined;
  /** The configuration captured (its name, `frame`, `pixel` go to the trace's). */
  config: LaunchConfig;
}

export type Planned = { plan: CapturePlan } | { error: string };

/** The `shaderdbg` launch configurations a trace can be captured of: launch
 *  requests with a program that is not already a recording. */
export function captureCandidates(configs: unknown): LaunchConfig[] {
  if (!Array.isArray(configs)) return [];
  return configs.filter((c): c is LaunchConfig => {
    if (typeof c !== 'object' || c === null) return false;
    const o = c as Partial<LaunchConfig>;
    return o.type === DEBUG_TYPE && o.request === 'launch' && typeof o.program === 'string' &&
      o.program.trim() !== '' && !isTraceFile(o.program);
  });
}

/**
 * The configuration to capture: the one named `selected` (the Run view's
 * choice, or the running session's) if it is a candidate, else the only
 * candidate; `undefined` with several: the user picks.
 */
export function chooseConfiguration(candidates: LaunchConfig[], selected: string | undefined): LaunchConfig | undefined {
  const named = candidates.find((c) => c.name === selected);
  if (named) return named;
  return candidates.length === 1 ? candidates[0] : undefined;
}

export function isTraceFile(p: string): boolean {
  return p.toLowerCase().endsWith('.trace');
}

/** Replaces `${workspaceFolder}`, `${workspaceFolderBasename}`, `${file}`,
 *  `${fileDirname}`, `${userHome}`, `${env:NAME}`; an unknown variable is an error. */
export function substitute(value: string, vars: Variables): { value: string } | { error: string } {
  let unknown: string | undefined;
  const out = value.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
    if (name.startsWith('env:')) return vars.env[name.slice(4)] ?? '';
    switch (name) {
      case 'workspaceFolder': return vars.workspaceFolder;
      case 'workspaceFolderBasename': return path.basename(vars.workspaceFolder);
      case 'userHome': if (vars.userHome !== undefined) return vars.userHome; break;
      case 'file': if (vars.file !== undefined) return vars.file; break;
      case 'fileDirname': if (vars.file !== undefined) return path.dirname(vars.file); break;
    }
    unknown ??= whole;
    return whole;
  });
  return unknown === undefined ? { value: out } : { error: `shaderdbg: cannot capture: ${unknown} in "${value}" has no value here.` };
}

/**
 * The capture of `config`: its `program` (a fragment shader file runs in the
 * built-in host at `hostPath`, which draws through EGL), `args`, `cwd`
 * (default: the workspace folder; a relative program is found there, as the
 * adapter does) and `env`, written to `<program name>.trace` in the workspace.
 */
export function planCapture(config: LaunchConfig, vars: Variables, hostPath: string | undefined): Planned {
  const sub = (v: string): string | { error: string } => {
    const r = substitute(v, vars);
    return 'error' in r ? r : r.value;
  };
  const fail = (v: string | { error: string }): v is { error: string } => typeof v !== 'string';
  const program0 = sub(config.program ?? '');
  if (fail(program0)) return program0;
  const cwd0 = sub(config.cwd ?? '${workspaceFolder}');
  if (fail(cwd0)) return cwd0;
  const cwd = path.resolve(vars.workspaceFolder, cwd0);
  const args: string[] = [];
  for (const a of config.args ?? []) {
    const s = sub(a);
    if (fail(s)) return s;
    args.push(s);
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(config.env ?? {})) {
    if (v === null) continue;
    const s = sub(v);
    if (fail(s)) return s;
    env[k] = s;
  }
  // A bare name stays a name (found on PATH by the capture); a path is made absolute.
  const named = program0.includes('/') ? path.resolve(cwd, program0) : program0;
  let program = named;
  let api = captureApi(config.captureApi);
  if (isHostShader(named)) {
    if (hostPath === undefined) return { error: 'shaderdbg: cannot capture a shader file: the built-in host shaderdbg-host was not found.' };
    program = hostPath;
    const shader = path.resolve(cwd, program0);
    args.unshift(shader);
    if (config.args === undefined) args.push(...HOST_ARGS);
    api = 'egl';
  }
  const output = path.join(vars.workspaceFolder, `${path.basename(named)}.trace`);
  return { plan: { program, args, cwd, env, output, api, config } };
}

function captureApi(v: unknown): CaptureApi | undefined {
  return v === 'gl' || v === 'egl' ? v : undefined;
}

/** The arguments of the bundled `shaderdbg` binary that record the plan. */
export function captureArgs(plan: CapturePlan, api: CaptureApi): string[] {
  return ['capture', '--api', api, '-o', plan.output, '--', plan.program, ...plan.args];
}

/** The environment the capture runs in: the extension host's plus the configuration's. */
export function captureEnv(base: Record<string, string | undefined>, plan: CapturePlan): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  return { ...env, ...plan.env };
}

/** "Debug the trace": the captured configuration's filters, the trace as the program. */
export function traceDebugConfig(plan: CapturePlan): LaunchConfig {
  const c: LaunchConfig = {
    type: DEBUG_TYPE,
    request: 'launch',
    name: `Debug ${path.basename(plan.output)}`,
    program: plan.output,
    cwd: plan.cwd,
  };
  const { frame, pixel, stopOnEntry } = plan.config;
  if (frame !== undefined) c.frame = frame;
  if (pixel !== undefined) c.pixel = pixel;
  if (stopOnEntry !== undefined) c.stopOnEntry = stopOnEntry;
  return c;
}
