// The demo shader (cli/demo/demo.frag) computed independently in f32 on the
// CPU, to check what the debugger shows at a stop.
import * as path from 'node:path';

export const REPO = path.resolve(__dirname, '../../../..');
export const DEMO_SHADER = path.join(REPO, 'cli/demo/demo.frag');
/** `c += lights[i].color * falloff;` */
export const BREAK_LINE = 21;
export const CONDITION = 'falloff > 0.5';
export const SIZE = [640, 360] as const;

const f = Math.fround;
const LIGHTS: { pos: [number, number]; color: [number, number, number] }[] = [
  { pos: [-0.4, 0.0], color: [1.0, 0.3, 0.2] },
  { pos: [0.4, 0.1], color: [0.2, 0.5, 1.0] },
  { pos: [0.0, -0.3], color: [0.3, 1.0, 0.4] },
];

export interface DemoStop { uv: [number, number]; i: number; d: [number, number]; falloff: number; c: [number, number, number]; cAfter: [number, number, number] }

/** The first loop iteration at pixel (x, y) (gl_FragCoord) where the breakpoint's condition holds. */
export function demoStop(x: number, y: number): DemoStop | undefined {
  const uv: [number, number] = [f((x + 0.5 - 0.5 * SIZE[0]) / SIZE[1]), f((y + 0.5 - 0.5 * SIZE[1]) / SIZE[1])];
  let c: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < 3; i++) {
    const d: [number, number] = [f(uv[0] - LIGHTS[i].pos[0]), f(uv[1] - LIGHTS[i].pos[1])];
    const falloff = f(1 / f(1 + f(8 * f(d[0] * d[0] + d[1] * d[1]))));
    if (falloff < 0.2) continue;
    const cAfter = c.map((v, k) => f(v + f(LIGHTS[i].color[k] * falloff))) as [number, number, number];
    if (falloff > 0.5) return { uv, i, d, falloff, c, cAfter };
    c = cAfter;
  }
  return undefined;
}

/** Numbers in a DAP value text such as `vec2(0.1, 0.2)`. */
export function numbers(text: string): number[] {
  return (text.match(/(?<![A-Za-z_0-9.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi) ?? []).map(Number);
}

export function close(a: number[], b: number[], eps = 1e-4): boolean {
  return a.length === b.length && a.every((v, k) => Math.abs(v - b[k]) <= eps);
}
