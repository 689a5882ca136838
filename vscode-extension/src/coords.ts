// Pixel coordinates between an image shown on screen (top row first) and
// gl_FragCoord (origin bottom-left). Pure.

export interface Pixel { x: number; y: number }

/**
 * A click at (offsetX, offsetY) CSS pixels inside an element showing a
 * `width`x`height` image scaled to `shownWidth`x`shownHeight` -> the
 * gl_FragCoord pixel (integer part; the fragment's centre is +0.5).
 * Undefined outside the image.
 */
export function clickToFragCoord(offsetX: number, offsetY: number, shownWidth: number, shownHeight: number,
  width: number, height: number): Pixel | undefined {
  if (shownWidth <= 0 || shownHeight <= 0 || width <= 0 || height <= 0) return undefined;
  if (offsetX < 0 || offsetY < 0 || offsetX >= shownWidth || offsetY >= shownHeight) return undefined;
  const column = Math.min(width - 1, Math.floor((offsetX * width) / shownWidth));
  const row = Math.min(height - 1, Math.floor((offsetY * height) / shownHeight));
  return { x: column, y: height - 1 - row };
}

/** Where gl_FragCoord's origin is in the API that drew an image (Vulkan: top-left, y down). */
export type Origin = 'bottomLeft' | 'topLeft';

/** The gl_FragCoord y of picture row `y` counted from the bottom (what clickToFragCoord gives) in an API whose origin is `origin`. */
export function fragYFromBottom(y: number, height: number, origin: Origin | undefined): number {
  return origin === 'topLeft' ? height - 1 - y : y;
}

/** The image row (top row first) that shows gl_FragCoord row `y`. */
export function fragYToRow(y: number, height: number): number {
  return height - 1 - y;
}
