// The real shaderdbg-dap on a TCP port (`--port 0`), driven by
// @vscode/debugadapter-testsupport's DebugClient: what the adapter tests share.
//
// Binaries: $SHADERDBG_BIN_DIR (default: target/debug of this checkout).
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { REPO } from './demo';

const BIN = process.env.SHADERDBG_BIN_DIR ?? path.join(REPO, 'target/debug');
const DAP = path.join(BIN, 'shaderdbg-dap');

/** A running adapter and the client connected to it. */
export interface Adapter {
  process: ChildProcess;
  client: DebugClient;
  stderr: () => string;
}

/** Starts the adapter (it prints `listening on 127.0.0.1:PORT` and serves one connection) and connects. */
export async function startAdapter(): Promise<Adapter> {
  assert.ok(fs.existsSync(DAP), `${DAP} missing: build the workspace (cargo build) or set SHADERDBG_BIN_DIR`);
  const adapter = spawn(DAP, ['--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    adapter.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    adapter.on('exit', (code) => reject(new Error(`shaderdbg-dap exited (${code}): ${stderr}`)));
  });
  const client = new DebugClient('', '', 'shaderdbg');
  client.defaultTimeout = 120_000;
  await client.start(port);
  return { process: adapter, client, stderr: () => stderr };
}

/** Ends the session and the adapter, whatever state a failed test left them in. */
export async function stopAdapter(a: Adapter | undefined): Promise<void> {
  const settle = <T>(p: Promise<T>) => Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
  if (a?.process.exitCode === null) await settle(a.client.disconnectRequest({ terminateDebuggee: true }));
  await settle(a?.client.stop() ?? Promise.resolve());
  if (a?.process.exitCode === null) a.process.kill('SIGKILL');
}

/** The top stack frame of the first thread. */
export async function topFrame(dc: DebugClient): Promise<DebugProtocol.StackFrame> {
  const threads = await dc.threadsRequest();
  const st = await dc.stackTraceRequest({ threadId: threads.body.threads[0].id });
  return st.body.stackFrames[0];
}

/** The variables of a frame's locals scope: name -> (value, type). */
export async function locals(dc: DebugClient, frameId: number): Promise<Map<string, { value: string; type: string | undefined }>> {
  const scopes = await dc.scopesRequest({ frameId });
  const scope = scopes.body.scopes.find((s) => s.presentationHint === 'locals') ?? scopes.body.scopes[0];
  const vars = await dc.variablesRequest({ variablesReference: scope.variablesReference });
  return new Map(vars.body.variables.map((v) => [v.name, { value: v.value, type: v.type }]));
}

/** `initialize`, then breakpoints in `file` and `configurationDone` once initialized, with `launch`: the first stop. */
export async function launchAndStop(
  dc: DebugClient,
  file: string,
  breakpoints: DebugProtocol.SourceBreakpoint[],
  launch: Record<string, unknown>,
): Promise<DebugProtocol.StoppedEvent> {
  // The adapter sends `initialized` right after the initialize response: wait for it before asking.
  const initialized = dc.waitForEvent('initialized');
  const init = await dc.initializeRequest({ adapterID: 'shaderdbg', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  assert.ok(init.body?.supportsConditionalBreakpoints && init.body.supportsStepBack && init.body.supportsEvaluateForHovers);
  const stopped = dc.waitForEvent('stopped');
  await Promise.all([
    initialized.then(async () => {
      const bp = await dc.setBreakpointsRequest({ source: { path: file }, breakpoints });
      assert.equal(bp.body.breakpoints.length, breakpoints.length);
      await dc.configurationDoneRequest();
    }),
    dc.launchRequest(launch as DebugProtocol.LaunchRequestArguments),
  ]);
  return (await stopped) as DebugProtocol.StoppedEvent;
}
