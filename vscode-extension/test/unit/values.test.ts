import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { base64ToBytes, bytesToF32, decode, defaultChannel, formatFloat, formatValue, fragCoordY, INF_COLOUR, NAN_COLOUR, normalize, paint, stats, valueAt, viridis, type ValuesImageBody } from '../../src/values';
import { expressionAt } from '../../src/expression';

/** A body as the adapter sends it: rows bottom first, LE f32. */
function body(width: number, height: number, components: number, values: number[], covered: number[]): ValuesImageBody {
  const buf = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => buf.writeFloatLE(v, i * 4));
  const img = { width, height, components, values: Float32Array.from(values), covered: Uint8Array.from(covered) };
  const s = stats({ body: { width, height, components } as ValuesImageBody, values: img.values, covered: img.covered });
  return { expression: 'e', type: components === 1 ? 'float' : `vec${components}`, line: 1, width, height, components,
    data: buf.toString('base64'), covered: Buffer.from(covered).toString('base64'), min: s.min, max: s.max, nan: s.nan, inf: s.inf };
}

test('base64 and little-endian floats decode', () => {
  assert.deepEqual(Array.from(base64ToBytes('AAEC/w==')), [0, 1, 2, 255]);
  const b = Buffer.alloc(8); b.writeFloatLE(1.5, 0); b.writeFloatLE(-2, 4);
  assert.deepEqual(Array.from(bytesToF32(new Uint8Array(b))), [1.5, -2]);
});

test('decode checks sizes; valueAt uses gl_FragCoord (bottom row first)', () => {
  // 2x2: bottom row (y=0) = 0,1 ; top row (y=1) = 2, (uncovered)
  const img = decode(body(2, 2, 1, [0, 1, 2, 3], [1, 1, 1, 0]));
  assert.deepEqual(valueAt(img, 1, 0), [1]);
  assert.deepEqual(valueAt(img, 0, 1), [2]);
  assert.equal(valueAt(img, 1, 1), undefined);
  assert.equal(valueAt(img, 2, 0), undefined);
  assert.throws(() => decode({ ...img.body, components: 2 }), /values for/);
});

test('pixels are named as the shader names them: Vulkan images (origin topLeft) count y from the top', () => {
  const gl = body(2, 4, 1, [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1]);
  assert.equal(fragCoordY(gl, 0), 0);
  assert.equal(fragCoordY({ ...gl, origin: 'bottomLeft' }, 1), 1);
  assert.equal(fragCoordY({ ...gl, origin: 'topLeft' }, 0), 3);
  assert.equal(fragCoordY({ ...gl, origin: 'topLeft' }, 3), 0);
});

test('stats: min/max per component over covered finite values, NaN/Inf counted per pixel', () => {
  const img = decode(body(3, 1, 2, [1, 5, NaN, 7, -Infinity, 2], [1, 1, 1]));
  assert.deepEqual(stats(img), { min: [1, 2], max: [1, 7], nan: 1, inf: 1, covered: 3 });
  const none = decode(body(1, 1, 1, [4], [0]));
  assert.deepEqual(stats(none).min, [null]);
});

test('colour scale: viridis ends, normalisation, empty range', () => {
  assert.deepEqual(viridis(0), [68, 1, 84]);
  assert.deepEqual(viridis(1), [253, 231, 37]);
  assert.deepEqual(viridis(-3), viridis(0));
  assert.deepEqual(viridis(NaN), viridis(0));
  assert.equal(normalize(5, 0, 10), 0.5);
  assert.equal(normalize(20, 0, 10), 1);
  assert.equal(normalize(3, 3, 3), 0.5);
});

test('paint: top row first, NaN magenta, Inf red, uncovered grey, scale between min and max', () => {
  // 2x2 scalar: y=0 row: [0, 1]; y=1 row: [NaN, Inf]
  const img = decode(body(2, 2, 1, [0, 1, NaN, Infinity], [1, 1, 1, 1]));
  const px = paint(img, 0);
  const at = (x: number, row: number) => Array.from(px.subarray((row * 2 + x) * 4, (row * 2 + x) * 4 + 4));
  assert.deepEqual(at(0, 0), [...NAN_COLOUR, 255]);
  assert.deepEqual(at(1, 0), [...INF_COLOUR, 255]);
  assert.deepEqual(at(0, 1), [...viridis(0), 255]);
  assert.deepEqual(at(1, 1), [...viridis(1), 255]);
  const unc = paint(decode(body(1, 1, 1, [0], [0])), 0);
  assert.equal(unc[0], unc[1]);
});

test('paint rgb: each component by its own range', () => {
  const img = decode(body(2, 1, 3, [0, 10, 100, 1, 20, 100], [1, 1]));
  assert.equal(defaultChannel(3), 'rgb');
  assert.equal(defaultChannel(1), 0);
  const px = paint(img, 'rgb');
  assert.deepEqual(Array.from(px.subarray(0, 8)), [0, 0, 128, 255, 255, 255, 128, 255]);
});

test('hover text: shortest f32 text, NaN/Inf spelled out', () => {
  assert.equal(formatFloat(Math.fround(0.1)), '0.1');
  assert.equal(formatFloat(0.5), '0.5');
  assert.equal(formatFloat(NaN), 'NaN');
  assert.equal(formatFloat(-Infinity), '-Inf');
  assert.equal(formatValue('vec2', [1, Math.fround(0.3)]), 'vec2(1, 0.3)');
  assert.equal(formatValue('float', [2]), '2');
});

test('expression under the cursor', () => {
  const line = '        c += lights[i].color * falloff;';
  assert.equal(expressionAt(line, line.indexOf('falloff') + 2), 'falloff');
  assert.equal(expressionAt(line, line.indexOf('c +')), 'c');
  assert.equal(expressionAt('  vec2 d = uv.xy - p;', 12), 'uv');
  assert.equal(expressionAt('  vec2 d = uv.xy - p;', 14), 'uv.xy');
  assert.equal(expressionAt('  x = lights[0].pos;', 17), 'lights[0].pos');
  assert.equal(expressionAt('   ;  ', 1), undefined);
});
