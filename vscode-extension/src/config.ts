// The debug configuration logic (pure, no `vscode`): what F5 launches.

export const DEBUG_TYPE = 'shaderdbg';

/** Shader files the built-in host runs (the adapter's own rule: dap/src/launch.rs). */
export const HOST_SHADER_EXTENSIONS = ['.frag', '.glsl', '.fs', '.wgsl'];

export interface LaunchConfig {
  type: string;
  request: string;
  name: string;
  program?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string | null>;
  frame?: number;
  pixel?: [number, number];
  stopOnEntry?: boolean;
  noDebug?: boolean;
  [key: string]: unknown;
}

export interface ActiveFile {
  path: string;
  languageId: string;
}

export type Resolved = { config: LaunchConfig } | { error: string };

/** Arguments the built-in host gets for a lone shader: two frames, so that a
 *  pixel picked in the frame view of frame 0 can be debugged in frame 1. */
export const HOST_ARGS = ['--frames', '2'];

export function isHostShader(file: string): boolean {
  const lower = file.toLowerCase();
  return HOST_SHADER_EXTENSIONS.some((e) => lower.endsWith(e));
}

function baseName(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return file.slice(i + 1);
}

/** The configuration for a shader file run in the built-in host. */
export function hostConfig(file: string): LaunchConfig {
  return {
    type: DEBUG_TYPE,
    request: 'launch',
    name: `Debug ${baseName(file)} in the built-in host`,
    program: file,
    args: [...HOST_ARGS],
    frame: 0,
  };
}

/** The configurations offered for a new launch.json. */
export function initialConfigurations(): LaunchConfig[] {
  return [
    { type: DEBUG_TYPE, request: 'launch', name: 'Debug shader in the built-in host', program: '${file}', args: [...HOST_ARGS], frame: 0 },
    { type: DEBUG_TYPE, request: 'launch', name: 'Debug an OpenGL program', program: '${workspaceFolder}/a.out', args: [], cwd: '${workspaceFolder}' },
  ];
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * `resolveDebugConfiguration`: an empty configuration (F5 with no launch.json)
 * becomes "run the active shader file in the built-in host"; a configuration
 * with a `program` is checked and passed on.
 */
export function resolveConfiguration(config: Partial<LaunchConfig>, active: ActiveFile | undefined): Resolved {
  const empty = !config.type && !config.request && !config.name;
  if (empty) {
    if (active === undefined) {
      return { error: 'shaderdbg: open a fragment shader (.frag, .glsl, .wgsl) to run it in the built-in host, or add a launch.json naming your program.' };
    }
    if (!isHostShader(active.path)) {
      if (active.languageId === 'glsl' || active.languageId === 'wgsl') {
        return { error: `shaderdbg: ${baseName(active.path)} cannot run on its own: the built-in host runs fragment shaders (.frag, .glsl, .wgsl). Add a launch.json whose "program" is the application that uses this shader.` };
      }
      return { error: 'shaderdbg: the active file is not a shader. Open a fragment shader, or add a launch.json naming your program.' };
    }
    return { config: hostConfig(active.path) };
  }
  const c: LaunchConfig = { type: config.type ?? DEBUG_TYPE, request: config.request ?? 'launch', name: config.name ?? 'shaderdbg', ...config };
  if (c.request !== 'launch') return { error: `shaderdbg: only "launch" requests are supported (got "${c.request}").` };
  if (typeof c.program !== 'string' || c.program.trim() === '') {
    return { error: 'shaderdbg: the launch configuration needs a "program": an OpenGL executable, or a fragment shader file for the built-in host.' };
  }
  if (c.args !== undefined && !(Array.isArray(c.args) && c.args.every((a) => typeof a === 'string'))) {
    return { error: 'shaderdbg: "args" must be an array of strings.' };
  }
  if (c.frame !== undefined && !isInt(c.frame)) return { error: 'shaderdbg: "frame" must be a whole number >= 0.' };
  if (c.pixel !== undefined && !(Array.isArray(c.pixel) && c.pixel.length === 2 && c.pixel.every(isInt))) {
    return { error: 'shaderdbg: "pixel" must be [x, y], two whole numbers >= 0 (gl_FragCoord, origin bottom-left).' };
  }
  // A shader file named without host arguments gets the same defaults as F5.
  if (c.args === undefined && isHostShader(c.program)) c.args = [...HOST_ARGS];
  return { config: c };
}
