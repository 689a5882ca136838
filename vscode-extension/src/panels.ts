// The two webview panels: the frame view and the values-over-the-draw view.
import * as vscode from 'vscode';
import type { ValuesImageBody } from './values';

export const FRAME_IMAGE = 'shaderdbg/frameImage';
export const DEBUG_PIXEL = 'shaderdbg/debugPixel';
export const VALUES_IMAGE = 'shaderdbg/valuesImage';

interface FrameImageBody {
  frame: number; draw: number; width: number; height: number; png: string;
  shows?: 'beforeDraw' | 'afterSubmission'; origin?: 'bottomLeft' | 'topLeft';
}

function nonce(): string {
  let s = '';
  for (let i = 0; i < 32; i++) s += 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.charAt(Math.floor(Math.random() * 62));
  return s;
}

const STYLE = `
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 8px; }
  .bar { display: flex; gap: 12px; align-items: center; margin-bottom: 6px; flex-wrap: wrap; }
  img, canvas.main { image-rendering: pixelated; max-width: 100%; border: 1px solid var(--vscode-panel-border); cursor: crosshair; display: none; }
  #status { color: var(--vscode-errorForeground); margin: 6px 0; }
  .bad { color: var(--vscode-errorForeground); font-weight: bold; }
  #hover { font-family: var(--vscode-editor-font-family); min-height: 1.4em; }
`;

function page(webview: vscode.Webview, script: vscode.Uri, title: string, body: string): string {
  const n = nonce();
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${webview.cspSource} data:; style-src 'unsafe-inline'; script-src 'nonce-${n}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0"><title>${title}</title><style>${STYLE}</style></head>
<body>${body}<script nonce="${n}" src="${webview.asWebviewUri(script).toString()}"></script></body></html>`;
}

abstract class Panel {
  protected panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private pending: unknown;

  constructor(protected readonly extensionUri: vscode.Uri, private readonly viewType: string, private readonly title: string,
    private readonly script: string, private readonly body: string) {}

  get visible(): boolean { return this.panel !== undefined; }

  protected open(): vscode.WebviewPanel {
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
      return this.panel;
    }
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    const p = vscode.window.createWebviewPanel(this.viewType, this.title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [dist], retainContextWhenHidden: true });
    p.webview.html = page(p.webview, vscode.Uri.joinPath(dist, this.script), this.title, this.body);
    p.webview.onDidReceiveMessage((m: { type?: string }) => {
      if (m.type === 'ready') {
        this.ready = true;
        if (this.pending !== undefined) void p.webview.postMessage(this.pending);
        this.pending = undefined;
      } else {
        this.onMessage(m);
      }
    });
    p.onDidDispose(() => { this.panel = undefined; this.ready = false; this.pending = undefined; });
    this.panel = p;
    return p;
  }

  protected post(message: unknown): void {
    const p = this.panel;
    if (!p) return;
    if (this.ready) void p.webview.postMessage(message);
    else this.pending = message;
  }

  protected abstract onMessage(m: unknown): void;

  dispose(): void { this.panel?.dispose(); }
}

/** The frame view: the framebuffer of the stopped draw; a click asks for pixel history. */
export class FrameView extends Panel {
  constructor(extensionUri: vscode.Uri, private readonly log: (s: string) => void) {
    super(extensionUri, 'shaderdbg.frame', 'shaderdbg: Frame', 'frame.js',
      '<div class="bar"><button id="refresh">Refresh</button><div id="info">Waiting for a stop at a draw…</div></div><div id="status"></div><img id="frame" alt="frame">');
  }

  private session: vscode.DebugSession | undefined;

  async show(session: vscode.DebugSession, reveal = true): Promise<void> {
    this.session = session;
    if (reveal) this.open();
    try {
      const body = await session.customRequest(FRAME_IMAGE, {}) as FrameImageBody;
      this.post({ type: 'frame', ...body });
    } catch (e) {
      this.post({ type: 'error', message: `No frame image: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  protected onMessage(m: unknown): void {
    const msg = m as { type: string; x?: number; y?: number };
    const s = this.session;
    if (!s) return;
    if (msg.type === 'refresh') { void this.show(s); return; }
    if (msg.type === 'debugPixel' && typeof msg.x === 'number' && typeof msg.y === 'number') {
      const { x, y } = msg;
      this.log(`debugPixel (${x}, ${y})`);
      s.customRequest(DEBUG_PIXEL, { x, y }).then(
        (b: { frame?: number }) => this.post({ type: 'error', message: `Pixel (${x}, ${y}): history in frame ${b.frame ?? '?'}; the debugger stops at each draw covering it.` }),
        (e: unknown) => this.post({ type: 'error', message: `debugPixel failed: ${e instanceof Error ? e.message : String(e)}` }));
    }
  }
}

/** Values over the draw of one expression. */
export class ValuesView extends Panel {
  constructor(extensionUri: vscode.Uri) {
    super(extensionUri, 'shaderdbg.values', 'shaderdbg: Values', 'values.js',
      `<div class="bar"><div id="title">Values over the draw</div><select id="channel"></select></div>
       <div class="bar"><canvas id="scale" width="160" height="12"></canvas><div id="range"></div></div>
       <div class="bar"><div id="flags"></div></div>
       <div id="status"></div><canvas id="values" class="main"></canvas><div id="hover"></div>`);
  }

  expression: string | undefined;

  async show(session: vscode.DebugSession, expression: string, frameId: number | undefined, reveal = true): Promise<void> {
    this.expression = expression;
    if (reveal) {
      this.open();
      if (this.panel) this.panel.title = `Values: ${expression}`;
    }
    try {
      const args: { expression: string; frameId?: number } = { expression };
      if (frameId !== undefined) args.frameId = frameId;
      const body = await session.customRequest(VALUES_IMAGE, args) as ValuesImageBody;
      this.post({ type: 'values', body });
    } catch (e) {
      this.post({ type: 'error', message: `No values for ${expression}: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  protected onMessage(_m: unknown): void { /* nothing comes back */ }
}
