// shaderdbg for VS Code: languages, the language client, the debugger
// (configuration provider, adapter descriptor), the frame and values views.
// Activation does only registrations; the language client is loaded and
// started after it, so activation stays fast (its duration is logged).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BINARIES, findBinary, notFoundMessage, type BinaryName } from './binaries';
import { CAPTURE_APIS, captureArgs, captureCandidates, captureEnv, chooseConfiguration, planCapture, traceDebugConfig, type CaptureApi } from './capture';
import { DEBUG_TYPE, initialConfigurations, resolveConfiguration } from './config';
import { expressionAt } from './expression';
import { FrameView, ValuesView } from './panels';
import { RUNTIME_CONTEXT_NOTIFICATION, RuntimeSources, type RuntimeContextParams } from './runtime';

/** Set by the bundle's first line (esbuild banner); undefined when not bundled. */
declare const __shaderdbgLoadStart: number | undefined;

type LanguageClient = import('vscode-languageclient/node').LanguageClient;

let output: vscode.OutputChannel;
let client: LanguageClient | undefined;

function log(line: string): void {
  output.appendLine(`[${new Date().toISOString().slice(11, 23)}] ${line}`);
}

function isExecutableFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

export function locate(context: vscode.ExtensionContext, name: BinaryName): string {
  const setting = vscode.workspace.getConfiguration('shaderdbg').get<string>('binariesPath', '');
  const found = findBinary(name, {
    setting,
    bundledDir: path.join(context.extensionPath, 'bin'),
    pathEnv: process.env.PATH,
    isFile: isExecutableFile,
    workspaceDir: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
  });
  if (found.path === undefined) throw new Error(notFoundMessage(name, found));
  log(`${name}: ${found.path} (${found.source})`);
  return found.path;
}

function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('shaderdbg');
  return {
    includePaths: c.get('includePaths', []),
    header: c.get('header') ?? undefined,
    headerFile: c.get('headerFile') ?? undefined,
    defaultStage: c.get('defaultStage') ?? undefined,
    placeholders: c.get('placeholders', {}),
    placeholderDefault: c.get('placeholderDefault') ?? undefined,
    maxFileSize: c.get('maxFileSize') ?? undefined,
  };
}

async function startLanguageServer(context: vscode.ExtensionContext): Promise<void> {
  if (!vscode.workspace.getConfiguration('shaderdbg').get<boolean>('languageServer.enabled', true)) {
    log('language server disabled by shaderdbg.languageServer.enabled');
    return;
  }
  let command: string;
  try {
    command = locate(context, BINARIES.lsp);
  } catch (e) {
    log(String(e instanceof Error ? e.message : e));
    void vscode.window.showWarningMessage(e instanceof Error ? e.message : String(e));
    return;
  }
  const t0 = performance.now();
  const lc = await import('vscode-languageclient/node');
  const serverOptions = { run: { command, transport: lc.TransportKind.stdio }, debug: { command, transport: lc.TransportKind.stdio } };
  client = new lc.LanguageClient('shaderdbg', 'shaderdbg language server', serverOptions, {
    documentSelector: [{ language: 'glsl' }, { language: 'wgsl' }],
    initializationOptions: serverSettings(),
    outputChannel: output,
    middleware: {
      workspace: {
        // The server reads `workspace/configuration` answers as its settings object.
        configuration: () => [serverSettings()],
      },
    },
  });
  await client.start();
  log(`language server started in ${(performance.now() - t0).toFixed(0)} ms`);
}

/** The active shaderdbg session, or a message saying there is none. */
function activeSession(): vscode.DebugSession | undefined {
  const s = vscode.debug.activeDebugSession;
  if (s?.type === DEBUG_TYPE) return s;
  void vscode.window.showInformationMessage('shaderdbg: start debugging a shader (F5) and stop at a breakpoint first.');
  return undefined;
}

function activeFrameId(): number | undefined {
  const item = vscode.debug.activeStackItem;
  return item instanceof vscode.DebugStackFrame ? item.frameId : undefined;
}

/** The watch/variables context menu hands over one of several shapes. */
function expressionOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object') {
    const o = arg as { variable?: { evaluateName?: string; name?: string }; expression?: string; evaluateName?: string; name?: string };
    return o.variable?.evaluateName ?? o.variable?.name ?? o.evaluateName ?? o.expression ?? o.name;
  }
  return undefined;
}

/** Runs `shaderdbg args` in `cwd` with `env`, its output to the output
 *  channel; its exit code (`null`: it could not start or was cancelled). */
function runCapture(shaderdbg: string, args: string[], cwd: string, env: Record<string, string>, title: string): Thenable<number | null> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_p, token) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(shaderdbg, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (d: Buffer) => { output.append(d.toString()); });
      child.stderr.on('data', (d: Buffer) => { output.append(d.toString()); });
      child.on('error', (e) => { log(`capture: ${e.message}`); resolve(null); });
      child.on('close', (code) => { resolve(code); });
      token.onCancellationRequested(() => { child.kill(); });
    }));
}

/** `shaderdbg.captureLaunch`: records the selected (or only, or picked)
 *  `shaderdbg` launch configuration with `shaderdbg capture` into
 *  `<program name>.trace` in the workspace; offers to debug the trace. */
async function captureLaunch(context: vscode.ExtensionContext): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showErrorMessage('shaderdbg: open a folder first: the trace is written into the workspace.');
    return;
  }
  const candidates = captureCandidates(vscode.workspace.getConfiguration('launch', folder.uri).get<unknown>('configurations'));
  if (candidates.length === 0) {
    void vscode.window.showErrorMessage('shaderdbg: launch.json has no "shaderdbg" launch configuration with a "program" to capture.');
    return;
  }
  const running = vscode.debug.activeDebugSession;
  let config = chooseConfiguration(candidates, running?.type === DEBUG_TYPE ? running.configuration.name : undefined);
  if (!config) {
    const pick = await vscode.window.showQuickPick(
      candidates.map((c) => ({ label: c.name, description: c.program, config: c })),
      { placeHolder: 'The launch configuration to capture' });
    if (!pick) return;
    config = pick.config;
  }
  let host: string | undefined;
  try {
    host = locate(context, BINARIES.host);
  } catch {
    host = undefined;
  }
  const planned = planCapture(config, {
    workspaceFolder: folder.uri.fsPath,
    file: vscode.window.activeTextEditor?.document.uri.fsPath,
    userHome: os.homedir(),
    env: process.env,
  }, host);
  if ('error' in planned) {
    void vscode.window.showErrorMessage(planned.error);
    return;
  }
  const plan = planned.plan;
  let api: CaptureApi | undefined = plan.api;
  if (api === undefined) {
    const pick = await vscode.window.showQuickPick(
      CAPTURE_APIS.map((a) => ({ label: a.label, detail: a.detail, api: a.api })),
      { placeHolder: `How does ${path.basename(plan.program)} draw? ("captureApi" in the configuration answers this)` });
    if (!pick) return;
    api = pick.api;
  }
  let shaderdbg: string;
  try {
    shaderdbg = locate(context, BINARIES.cli);
  } catch (e) {
    void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
    return;
  }
  const args = captureArgs(plan, api);
  log(`capture in ${plan.cwd}: ${shaderdbg} ${args.join(' ')}`);
  output.show(true);
  const code = await runCapture(shaderdbg, args, plan.cwd, captureEnv(process.env, plan), `shaderdbg: capturing ${path.basename(plan.output)}`);
  if (code !== 0) {
    void vscode.window.showErrorMessage(`shaderdbg: the capture of "${config.name}" failed${code === null ? '' : ` (exit code ${code})`}; see the "shaderdbg" output.`);
    return;
  }
  const debug = 'Debug the trace';
  const choice = await vscode.window.showInformationMessage(`shaderdbg: captured ${plan.output}`, debug);
  if (choice === debug) await vscode.debug.startDebugging(folder, traceDebugConfig(plan));
}

export function activate(context: vscode.ExtensionContext): void {
  const t0 = performance.now();
  output = vscode.window.createOutputChannel('shaderdbg');
  context.subscriptions.push(output);

  context.subscriptions.push(vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
    provideDebugConfigurations: () => initialConfigurations(),
    resolveDebugConfiguration(_folder, config) {
      const ed = vscode.window.activeTextEditor;
      const active = ed ? { path: ed.document.uri.fsPath, languageId: ed.document.languageId } : undefined;
      const r = resolveConfiguration(config, active);
      if ('error' in r) {
        void vscode.window.showErrorMessage(r.error);
        return undefined; // abort the launch
      }
      log(`launch ${JSON.stringify(r.config)}`);
      return r.config;
    },
  }));
  // F5 with no launch.json: offer "run the active shader" directly.
  context.subscriptions.push(vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
    provideDebugConfigurations: () => initialConfigurations().slice(0, 1),
  }, vscode.DebugConfigurationProviderTriggerKind.Dynamic));

  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
    createDebugAdapterDescriptor(session) {
      const dap = locate(context, BINARIES.dap);
      log(`starting ${dap} for "${session.name}"`);
      return new vscode.DebugAdapterExecutable(dap, [], { cwd: path.dirname(dap) });
    },
  }));

  const frameView = new FrameView(context.extensionUri, log);
  const valuesView = new ValuesView(context.extensionUri);
  context.subscriptions.push({ dispose: () => { frameView.dispose(); valuesView.dispose(); } });

  // Refresh open views at every stop.
  context.subscriptions.push(vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
    createDebugAdapterTracker(session) {
      return {
        onDidSendMessage(m: { type?: string; event?: string; body?: { reason?: string; description?: string } }) {
          if (m.type !== 'event' || m.event !== 'stopped') return;
          log(`stopped: ${m.body?.reason ?? ''} ${m.body?.description ?? ''}`);
          // Let VS Code fetch the stack first so activeStackItem is the new frame.
          setTimeout(() => {
            if (frameView.visible) void frameView.show(session, false);
            if (valuesView.visible && valuesView.expression) void valuesView.show(session, valuesView.expression, activeFrameId(), false);
          }, 300);
        },
      };
    },
  }));

  // What the program compiled from each file goes to the language server
  // while the session runs (see runtime.ts).
  const runtimeSources = new RuntimeSources();
  const toServer = (params: RuntimeContextParams): void => {
    void client?.sendNotification(RUNTIME_CONTEXT_NOTIFICATION, params);
  };
  context.subscriptions.push(
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
      if (e.session.type !== DEBUG_TYPE) return;
      const params = runtimeSources.onEvent(e.session.id, e.event, e.body);
      if (params) toServer(params);
    }),
    vscode.debug.onDidTerminateDebugSession((s) => {
      for (const params of runtimeSources.onEnd(s.id)) toServer(params);
    }),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand('shaderdbg.showFrame', async () => {
      const s = activeSession();
      if (s) await frameView.show(s);
    }),
    vscode.commands.registerCommand('shaderdbg.showValues', async (arg?: unknown) => {
      const s = activeSession();
      if (!s) return;
      let expr = typeof arg === 'string' ? arg : undefined;
      const ed = vscode.window.activeTextEditor;
      if (expr === undefined && ed) {
        const sel = ed.selection;
        expr = sel.isEmpty ? expressionAt(ed.document.lineAt(sel.active.line).text, sel.active.character) : ed.document.getText(sel).trim();
      }
      expr ??= await vscode.window.showInputBox({ prompt: 'Expression to show over the draw' });
      if (!expr) return;
      log(`values over the draw: ${expr}`);
      await valuesView.show(s, expr, activeFrameId());
    }),
    vscode.commands.registerCommand('shaderdbg.showWatchValues', async (arg?: unknown) => {
      const s = activeSession();
      const expr = expressionOf(arg) ?? await vscode.window.showInputBox({ prompt: 'Expression to show over the draw' });
      if (s && expr) await valuesView.show(s, expr, activeFrameId());
    }),
    vscode.commands.registerCommand('shaderdbg.captureLaunch', () => captureLaunch(context)),
    vscode.commands.registerCommand('shaderdbg.restartLanguageServer', async () => {
      if (client) await client.restart();
      else await startLanguageServer(context);
    }),
  );

  context.subscriptions.push({ dispose: () => { void client?.stop(); } });
  const now = performance.now();
  const loaded = typeof __shaderdbgLoadStart === 'number' ? __shaderdbgLoadStart : moduleEvaluated;
  // Ours: evaluating the bundle + activate(). The rest, until VS Code calls activate(), is the extension host's.
  const ours = moduleEvaluated - loaded + (now - t0);
  log(`activated in ${ours.toFixed(1)} ms (evaluating the bundle ${(moduleEvaluated - loaded).toFixed(1)} ms, activate() ${(now - t0).toFixed(1)} ms; ` +
    `${(t0 - moduleEvaluated).toFixed(1)} ms in the extension host between loading and activate())`);
  // After activation: the language server (its client module loads lazily).
  setTimeout(() => {
    startLanguageServer(context).catch((e: unknown) => log(`language server failed: ${e instanceof Error ? e.message : String(e)}`));
  }, 0);
}

/** When the module's top level had run (all imports evaluated). */
const moduleEvaluated = performance.now();

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}
