import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { clickToFragCoord, fragYFromBottom, fragYToRow } from '../../src/coords';

test('image clicks become gl_FragCoord with the origin bottom-left', () => {
  // 640x360 image shown at its size
  assert.deepEqual(clickToFragCoord(0, 0, 640, 360, 640, 360), { x: 0, y: 359 });
  assert.deepEqual(clickToFragCoord(639.9, 359.9, 640, 360, 640, 360), { x: 639, y: 0 });
  assert.deepEqual(clickToFragCoord(200.5, 209.5, 640, 360, 640, 360), { x: 200, y: 150 });
});

test('scaled images map back to image pixels', () => {
  // shown at half size: one CSS pixel = two image pixels
  assert.deepEqual(clickToFragCoord(100, 100, 320, 180, 640, 360), { x: 200, y: 159 });
  // shown at 4x: 4 CSS pixels per image pixel
  assert.deepEqual(clickToFragCoord(7, 7, 16, 8, 4, 2), { x: 1, y: 0 });
  assert.deepEqual(clickToFragCoord(3.99, 3.99, 16, 8, 4, 2), { x: 0, y: 1 });
});

test('outside the image is nothing', () => {
  assert.equal(clickToFragCoord(-1, 0, 10, 10, 10, 10), undefined);
  assert.equal(clickToFragCoord(10, 0, 10, 10, 10, 10), undefined);
  assert.equal(clickToFragCoord(0, 0, 0, 10, 10, 10), undefined);
});

test('fragYToRow is its own inverse', () => {
  for (let y = 0; y < 5; y++) assert.equal(fragYToRow(fragYToRow(y, 5), 5), y);
  assert.equal(fragYToRow(0, 360), 359);
});

test('a picture row from the bottom is gl_FragCoord.y in OpenGL and counted from the top in Vulkan', () => {
  assert.equal(fragYFromBottom(0, 360, 'bottomLeft'), 0);
  assert.equal(fragYFromBottom(0, 360, undefined), 0);
  assert.equal(fragYFromBottom(0, 360, 'topLeft'), 359);
  // The frame view's top-left click in a Vulkan frame is gl_FragCoord (0, 0).
  const p = clickToFragCoord(0, 0, 640, 360, 640, 360);
  assert.equal(p && fragYFromBottom(p.y, 360, 'topLeft'), 0);
});
