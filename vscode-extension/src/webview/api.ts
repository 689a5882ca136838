// The webview side's handle on VS Code.
interface VsCodeApi { postMessage(message: unknown): void }
declare function acquireVsCodeApi(): VsCodeApi;
export const vscodeApi: VsCodeApi = acquireVsCodeApi();

export function el<K extends keyof HTMLElementTagNameMap>(id: string, _tag: K): HTMLElementTagNameMap[K] {
  const e = document.getElementById(id);
  if (e === null) throw new Error(`no #${id}`);
  return e as HTMLElementTagNameMap[K];
}
