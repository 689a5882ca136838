// The WGSL example (host/examples/rings.wgsl) computed independently in f32
// on the CPU, to check what the debugger shows at a WGSL stop.
import * as path from 'node:path';
import { REPO, SIZE } from './demo';

export const RINGS_SHADER = path.join(REPO, 'host/examples/rings.wgsl');
/** `glow += weights[i] * ring(d, r);` */
export const RINGS_LINE = 25;
/** WGSL only: `2i` is an i32 literal (GLSL has no `i` suffix). */
export const RINGS_CONDITION = 'i == 2i && d < 0.5';

const f = Math.fround;
const WEIGHTS = [1.0, 0.5, 0.25, 0.125].map(f);

export interface RingsStop { uv: [number, number]; d: number; i: number; count: number; glow: number; radius: number }

function ring(d: number, radius: number, width: number): number {
  const edge = f(Math.abs(f(d - radius)));
  return Math.min(1, Math.max(0, f(1 - f(edge / width))));
}

/** The state at the stop on `RINGS_LINE` for fragment (x, y) (gl_FragCoord),
 *  at the loop iteration `i == 2`; undefined where the condition fails there. */
export function ringsStop(x: number, y: number): RingsStop | undefined {
  const uv: [number, number] = [f((x + 0.5) / SIZE[0]), f((y + 0.5) / SIZE[1])];
  const p = uv.map((u) => f(f(u * 2) - 1));
  const d = f(Math.hypot(p[0], p[1]));
  let glow = 0;
  for (let i = 0; i < 2; i++) {
    const radius = f(f(i + 1) * f(0.2));
    glow = f(glow + f(WEIGHTS[i] * ring(d, radius, f(0.1))));
  }
  if (!(d < 0.5)) return undefined;
  return { uv, d, i: 2, count: 2, glow, radius: f(f(3) * f(0.2)) };
}
