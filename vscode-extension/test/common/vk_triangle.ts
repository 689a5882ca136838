// The Vulkan test program (tests/vk-apps: `vk_triangle FRAMES SIZE`) and its
// fragment shader (tests/vk-apps/shaders/vk_triangle.frag) computed
// independently in f32 on the CPU, as cli/tests/vulkan.rs does, to check what
// the debugger shows at a stop in a Vulkan program.
import * as path from 'node:path';
import { REPO } from './demo';

export const VK_SHADER = path.join(REPO, 'tests/vk-apps/shaders/vk_triangle.frag');
/** Where the built test program is: $SHADERDBG_BIN_DIR (as the adapter tests), else target/debug. */
export const VK_BIN_DIR = process.env.SHADERDBG_BIN_DIR ?? path.join(REPO, 'target/debug');
export const VK_APP = path.join(VK_BIN_DIR, 'vk_triangle');
/** Two frames of 64x64 (`cargo build -p shaderdbg-vk-test-apps` builds it). */
export const VK_ARGS = ['2', '64'];
export const VK_SIZE = 64;
/** `color = vec4(fract(p.x + t), ring, ...);` */
export const VK_LINE = 12;
export const VK_CONDITION = 'ring > 0.9 && p.x > 1.0';

const f = Math.fround;
const fract = (v: number): number => f(v - Math.floor(v));

export interface VkStop { x: number; y: number; p: [number, number]; t: number; ring: number }

/** The locals at `VK_LINE` for fragment (x, y) (gl_FragCoord) in frame `frame` (`t = frame * 0.125`). */
export function vkLocals(x: number, y: number, frame: number): VkStop {
  const p: [number, number] = [f((x + 0.5) / 32), f((y + 0.5) / 32)];
  const t = f(frame * 0.125);
  const dx = f(p[0] - 1), dy = f(p[1] - 1);
  const d = f(Math.sqrt(f(f(dx * dx) + f(dy * dy))));
  const ring = fract(f(f(d * 2) - t));
  return { x, y, p, t, ring };
}

/** The first fragment in row order (y, then x) of frame `frame` where `VK_CONDITION` holds. */
export function vkFirstStop(frame: number): VkStop | undefined {
  for (let y = 0; y < VK_SIZE; y++) {
    for (let x = 0; x < VK_SIZE; x++) {
      const s = vkLocals(x, y, frame);
      if (s.ring > 0.9 && s.p[0] > 1.0) return s;
    }
  }
  return undefined;
}
