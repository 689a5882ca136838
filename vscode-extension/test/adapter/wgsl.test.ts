// F5 on a WGSL file, as the extension resolves it (no launch.json): the real
// shaderdbg-dap runs host/examples/rings.wgsl in the built-in host and stops
// at a WGSL line with a WGSL condition; values and types are WGSL's, the
// Debug Console evaluates WGSL, stepping back works.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { REPO, close, numbers } from '../common/demo';
import { type Adapter, launchAndStop, locals, startAdapter, stopAdapter, topFrame } from '../common/adapter';
import { resolveConfiguration } from '../../src/config';

const RINGS = path.join(REPO, 'host/examples/rings.wgsl');
/** `glow += weights[i] * ring(d, r);` */
const LINE = 25;
const PIXEL: [number, number] = [400, 200];
const SIZE = [640, 360];

let adapter: Adapter | undefined;

before(async () => {
  adapter = await startAdapter();
});

after(async () => stopAdapter(adapter));

test('WGSL file: F5 runs it in the host, WGSL condition, WGSL values and types, WGSL evaluate, step back', async () => {
  const dc = adapter!.client;
  const resolved = resolveConfiguration({}, { path: RINGS, languageId: 'wgsl' });
  assert.ok('config' in resolved, JSON.stringify(resolved));
  const ev = await launchAndStop(dc, RINGS, [{ line: LINE, condition: 'i == 2' }], { ...resolved.config, pixel: PIXEL });
  assert.equal(ev.body.reason, 'breakpoint');

  const top = await topFrame(dc);
  assert.equal(top.line, LINE);
  assert.equal(path.resolve(top.source?.path ?? ''), RINGS);
  assert.equal(top.name, 'fs');

  // The values, against the shader computed in f32 on the CPU.
  const f = Math.fround;
  const uv = [f((PIXEL[0] + 0.5) / SIZE[0]), f((PIXEL[1] + 0.5) / SIZE[1])];
  const p = uv.map((u) => f(f(u * 2) - 1));
  const d = f(Math.hypot(p[0], p[1]));
  const vars = await locals(dc, top.id);
  console.log('locals at the WGSL stop:', Object.fromEntries(vars));
  assert.deepEqual([vars.get('i')?.value, vars.get('i')?.type], ['2', 'i32']);
  assert.equal(vars.get('count')?.type, 'u32');
  assert.deepEqual(numbers(vars.get('count')?.value ?? ''), [2]);
  assert.equal(vars.get('uv')?.type, 'vec2<f32>');
  assert.ok(close(numbers(vars.get('uv')?.value ?? ''), uv), `uv ${vars.get('uv')?.value} vs ${uv.join(', ')}`);
  assert.equal(vars.get('d')?.type, 'f32');
  assert.ok(close(numbers(vars.get('d')?.value ?? ''), [d]), `d ${vars.get('d')?.value} vs ${d}`);
  assert.equal(vars.get('r')?.type, 'Ring');

  // The Debug Console speaks WGSL.
  const sel = await dc.evaluateRequest({ expression: 'select(0u, count, d < 0.5)', context: 'repl', frameId: top.id });
  assert.deepEqual(numbers(sel.body.result), [d < 0.5 ? 2 : 0], sel.body.result);
  const ctor = await dc.evaluateRequest({ expression: 'vec2<f32>(r.width, f32(i))', context: 'watch', frameId: top.id });
  assert.ok(close(numbers(ctor.body.result), [0.1, 2]), ctor.body.result);

  // Step back: the line before, in the same iteration.
  await Promise.all([dc.stepBackRequest({ threadId: ev.body.threadId! }), dc.waitForEvent('stopped')]);
  const back = await topFrame(dc);
  assert.equal(back.line, LINE - 1);
  await dc.disconnectRequest({ terminateDebuggee: true });
});
