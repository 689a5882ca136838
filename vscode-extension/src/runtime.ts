// What the debugged program compiled from each file, relayed from the debug
// adapter (event `shaderdbg/runtimeSource`) to the language server
// (notification `shaderdbg/runtimeContext`), so that while a session runs a
// file the program completes at run time (a prepended header, replaced
// placeholders) is analysed as the program built it. Pure: the caller sends.

export const RUNTIME_SOURCE_EVENT = 'shaderdbg/runtimeSource';
export const RUNTIME_CONTEXT_NOTIFICATION = 'shaderdbg/runtimeContext';

/** The notification's parameters: `source` null forgets the file's context. */
export interface RuntimeContextParams {
  path: string;
  source: string | null;
}

/** The files each debug session gave a context, so its end can forget them. */
export class RuntimeSources {
  private readonly bySession = new Map<string, Set<string>>();

  /** The notification for a debug adapter event, if it is ours and well-formed. */
  onEvent(session: string, event: string, body: unknown): RuntimeContextParams | undefined {
    if (event !== RUNTIME_SOURCE_EVENT || typeof body !== 'object' || body === null) return undefined;
    const { path, source } = body as { path?: unknown; source?: unknown };
    if (typeof path !== 'string' || typeof source !== 'string') return undefined;
    let paths = this.bySession.get(session);
    if (!paths) this.bySession.set(session, (paths = new Set()));
    paths.add(path);
    return { path, source };
  }

  /** The notifications that forget what an ended session set (files another
   * running session also set keep their context). */
  onEnd(session: string): RuntimeContextParams[] {
    const paths = this.bySession.get(session);
    this.bySession.delete(session);
    if (!paths) return [];
    const stillSet = new Set([...this.bySession.values()].flatMap((s) => [...s]));
    return [...paths].filter((p) => !stillSet.has(p)).map((path) => ({ path, source: null }));
  }
}
