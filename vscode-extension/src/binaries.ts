// Where the native binaries are: the `shaderdbg.binariesPath` setting, then the
// `bin/` folder bundled in the .vsix, then PATH. Pure: the file system is passed in.
import * as path from 'node:path';

export const BINARIES = {
  dap: 'shaderdbg-dap',
  lsp: 'shaderdbg-lsp',
  host: 'shaderdbg-host',
  /** The CLI: `shaderdbg capture` records a launch configuration. */
  cli: 'shaderdbg',
  agent: 'libshaderdbg_agent.so',
} as const;

export type BinaryName = (typeof BINARIES)[keyof typeof BINARIES];

export interface LookupEnv {
  /** The `shaderdbg.binariesPath` setting ('' when unset). */
  setting: string;
  /** The extension's bundled `bin/` folder. */
  bundledDir: string;
  /** `process.env.PATH`. */
  pathEnv: string | undefined;
  /** Whether a path is an existing file (executable for programs). */
  isFile(p: string): boolean;
  /** Workspace folder against which a relative setting is resolved. */
  workspaceDir?: string | undefined;
}

export type Found = { path: string; source: 'setting' | 'bundled' | 'PATH' };

export interface NotFound {
  path: undefined;
  /** The places looked at, in order, for the error message. */
  tried: string[];
}

/** The folder a setting names, made absolute (`~` expanded is not needed: VS Code users write absolute paths). */
export function settingDir(setting: string, workspaceDir: string | undefined): string | undefined {
  const s = setting.trim();
  if (s === '') return undefined;
  if (path.isAbsolute(s) || workspaceDir === undefined) return s;
  return path.join(workspaceDir, s);
}

/** Finds one binary; the first place that has it wins. */
export function findBinary(name: BinaryName, env: LookupEnv): Found | NotFound {
  const tried: string[] = [];
  const dir = settingDir(env.setting, env.workspaceDir);
  if (dir !== undefined) {
    const p = path.join(dir, name);
    tried.push(p);
    if (env.isFile(p)) return { path: p, source: 'setting' };
  }
  const bundled = path.join(env.bundledDir, name);
  tried.push(bundled);
  if (env.isFile(bundled)) return { path: bundled, source: 'bundled' };
  for (const d of (env.pathEnv ?? '').split(path.delimiter)) {
    if (d === '') continue;
    const p = path.join(d, name);
    if (env.isFile(p)) return { path: p, source: 'PATH' };
  }
  tried.push(`${name} on PATH`);
  return { path: undefined, tried };
}

/** The message shown when a binary is missing. */
export function notFoundMessage(name: BinaryName, nf: NotFound): string {
  return `shaderdbg: cannot find ${name} (looked at ${nf.tried.join(', ')}). ` +
    'Set "shaderdbg.binariesPath" to the folder holding the shaderdbg binaries (e.g. target/debug of a checkout), ' +
    'or install the platform-specific .vsix that bundles them.';
}
