// "Values over the draw": decoding the `shaderdbg/valuesImage` body and
// painting it with a colour scale. Pure; runs in the extension's tests and in
// the webview (no Node or DOM APIs besides `atob`).
import { fragYFromBottom, type Origin } from './coords';

/** The `shaderdbg/valuesImage` response body (see dap/src/custom.rs). */
export interface ValuesImageBody {
  expression: string;
  type: string;
  line: number;
  width: number;
  height: number;
  components: number;
  /** base64, little-endian f32, width*height*components, bottom row first. */
  data: string;
  /** base64, one byte per pixel (1: a fragment of the draw produced a value). */
  covered: string;
  min: (number | null)[];
  max: (number | null)[];
  nan: number;
  inf: number;
  /** gl_FragCoord's origin in the stopped API (Vulkan: 'topLeft', y down); data is bottom row first either way. */
  origin?: Origin;
}

export interface ValuesImage {
  body: ValuesImageBody;
  values: Float32Array;
  covered: Uint8Array;
}

export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Little-endian f32s, whatever the host's byte order. */
export function bytesToF32(bytes: Uint8Array): Float32Array {
  const n = Math.floor(bytes.length / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * 4);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

export function decode(body: ValuesImageBody): ValuesImage {
  const values = bytesToF32(base64ToBytes(body.data));
  const covered = base64ToBytes(body.covered);
  const pixels = body.width * body.height;
  if (values.length !== pixels * body.components) {
    throw new Error(`valuesImage: ${values.length} values for ${body.width}x${body.height}x${body.components}`);
  }
  if (covered.length !== pixels) throw new Error(`valuesImage: ${covered.length} coverage bytes for ${pixels} pixels`);
  return { body, values, covered };
}

/** The values of gl_FragCoord pixel (x, y) (y from the bottom), or undefined if not covered. */
export function valueAt(img: ValuesImage, x: number, y: number): number[] | undefined {
  const { width, height, components } = img.body;
  if (x < 0 || y < 0 || x >= width || y >= height) return undefined;
  const p = y * width + x;
  if (!img.covered[p]) return undefined;
  return Array.from(img.values.subarray(p * components, (p + 1) * components));
}

/** The y the shader's gl_FragCoord has at picture row `y` from the bottom (Vulkan counts from the top). */
export function fragCoordY(body: ValuesImageBody, y: number): number {
  return fragYFromBottom(y, body.height, body.origin);
}

/** A float as the hover shows it: shortest round-trip text, NaN/Inf spelled out. */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  // Shortest text that reads back as the same f32.
  for (let digits = 1; digits <= 9; digits++) {
    const s = v.toPrecision(digits);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(v);
}

export function formatValue(type: string, v: number[]): string {
  const parts = v.map(formatFloat);
  return parts.length === 1 ? parts[0] : `${type}(${parts.join(', ')})`;
}

/** Perceptual colour map (viridis, 9 stops), t in [0,1] -> [r,g,b] 0..255. */
const VIRIDIS: [number, number, number][] = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
];

export function viridis(t: number): [number, number, number] {
  const c = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(c));
  const f = c - i;
  const a = VIRIDIS[i], b = VIRIDIS[i + 1];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f)) as [number, number, number];
}

/** (v - min) / (max - min), 0.5 when the range is empty. */
export function normalize(v: number, min: number, max: number): number {
  if (!(max > min)) return 0.5;
  return Math.min(1, Math.max(0, (v - min) / (max - min)));
}

export const NAN_COLOUR: [number, number, number] = [255, 0, 255];
export const INF_COLOUR: [number, number, number] = [255, 0, 0];
/** Pixels the draw did not cover: a dark checkerboard. */
export function uncoveredColour(x: number, row: number): [number, number, number] {
  return ((x >> 3) + (row >> 3)) % 2 ? [40, 40, 40] : [60, 60, 60];
}

/** Which component(s) to paint: one (colour-mapped) or 'rgb' (the first three as red/green/blue, each scaled by its own range). */
export type Channel = number | 'rgb';

export function defaultChannel(components: number): Channel {
  return components >= 2 && components <= 4 ? 'rgb' : 0;
}

/**
 * RGBA pixels, top row first (ready for ImageData): NaN magenta, Inf red,
 * uncovered a checkerboard, everything else on the colour scale between
 * min and max (per component for 'rgb').
 */
export function paint(img: ValuesImage, channel: Channel): Uint8ClampedArray<ArrayBuffer> {
  const { width, height, components } = img.body;
  const out = new Uint8ClampedArray(new ArrayBuffer(width * height * 4));
  const lo = img.body.min.map((m) => m ?? 0), hi = img.body.max.map((m) => m ?? 0);
  for (let row = 0; row < height; row++) {
    const y = height - 1 - row;
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const o = (row * width + x) * 4;
      let rgb: [number, number, number];
      if (!img.covered[p]) {
        rgb = uncoveredColour(x, row);
      } else {
        const v = img.values.subarray(p * components, (p + 1) * components);
        const shown = channel === 'rgb' ? Array.from(v.subarray(0, 3)) : [v[channel]];
        if (shown.some(Number.isNaN)) rgb = NAN_COLOUR;
        else if (shown.some((s) => !Number.isFinite(s))) rgb = INF_COLOUR;
        else if (channel === 'rgb') {
          rgb = [0, 1, 2].map((k) => (k < shown.length ? Math.round(255 * normalize(shown[k], lo[k], hi[k])) : 0)) as [number, number, number];
        } else rgb = viridis(normalize(shown[0], lo[channel], hi[channel]));
      }
      out[o] = rgb[0]; out[o + 1] = rgb[1]; out[o + 2] = rgb[2]; out[o + 3] = 255;
    }
  }
  return out;
}

/** Counts, recomputed from the data (the body's own counts are shown; tests compare both). */
export function stats(img: ValuesImage): { min: (number | null)[]; max: (number | null)[]; nan: number; inf: number; covered: number } {
  const { width, height, components } = img.body;
  const min: (number | null)[] = Array<number | null>(components).fill(null);
  const max: (number | null)[] = Array<number | null>(components).fill(null);
  let nan = 0, inf = 0, covered = 0;
  for (let p = 0; p < width * height; p++) {
    if (!img.covered[p]) continue;
    covered++;
    let hasNan = false, hasInf = false;
    for (let k = 0; k < components; k++) {
      const v = img.values[p * components + k];
      if (Number.isNaN(v)) { hasNan = true; continue; }
      if (!Number.isFinite(v)) { hasInf = true; continue; }
      const m = min[k], M = max[k];
      if (m === null || v < m) min[k] = v;
      if (M === null || v > M) max[k] = v;
    }
    if (hasNan) nan++;
    if (hasInf) inf++;
  }
  return { min, max, nan, inf, covered };
}
