// shaderdbg for VS Code: languages, the language client, the debugger
// (configuration provider, adapter descriptor), the frame and values views.
// Activation does only registrations; the language client is loaded and
// started after it, so activation stays fast (its duration is logged).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BINARIES, findBinary, notFoundMessage, type BinaryName } from './binaries';
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
