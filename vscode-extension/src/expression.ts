// The expression under the cursor (pure): an identifier with its member
// accesses and constant indices (`lights[0].pos`, `uv.x`).

const PART = /[A-Za-z_][A-Za-z0-9_]*(?:\s*\[\s*[0-9]+\s*\]|\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*/g;

export function expressionAt(line: string, character: number): string | undefined {
  PART.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PART.exec(line)) !== null) {
    const start = m.index, end = start + m[0].length;
    if (character >= start && character <= end) {
      // Stop at the member the cursor is on: `a.b.c` with the cursor on b -> `a.b`.
      let text = m[0];
      const dot = text.slice(character - start).search(/\.|\[/);
      if (dot > 0) text = text.slice(0, character - start + dot);
      return text.replace(/\s+/g, '');
    }
  }
  return undefined;
}
