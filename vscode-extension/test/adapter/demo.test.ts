// The real shaderdbg-dap through @vscode/debugadapter-testsupport's DebugClient
// on the demo shader in the built-in host: launch, conditional breakpoint,
// variables, evaluate, step, step back, and the extension's custom requests.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { BREAK_LINE, CONDITION, DEMO_SHADER, close, demoStop, numbers } from '../common/demo';
import { type Adapter, launchAndStop, startAdapter, stopAdapter } from '../common/adapter';
import * as common from '../common/adapter';
import { decode, stats, type ValuesImageBody } from '../../src/values';

const PIXEL: [number, number] = [200, 150];
const expected = demoStop(...PIXEL);

let adapter: Adapter | undefined;
let dc: DebugClient;

before(async () => {
  assert.ok(expected, 'the demo pixel hits the condition');
  adapter = await startAdapter();
  dc = adapter.client;
});

after(async () => stopAdapter(adapter));

const topFrame = (): Promise<DebugProtocol.StackFrame> => common.topFrame(dc);

async function locals(frameId: number): Promise<Map<string, string>> {
  const vars = await common.locals(dc, frameId);
  return new Map([...vars].map(([name, v]) => [name, v.value]));
}

test('demo shader: conditional breakpoint, variables, evaluate, step, step back, custom requests', async () => {
  const e = expected!;
  const ev = await launchAndStop(dc, DEMO_SHADER, [{ line: BREAK_LINE, condition: CONDITION }], { program: DEMO_SHADER, args: ['--frames', '2'], frame: 0, pixel: PIXEL });
  assert.equal(ev.body.reason, 'breakpoint');

  console.log('stopped at the breakpoint');
  // Where: the breakpoint's line in the demo file.
  const top = await topFrame();
  assert.equal(top.line, BREAK_LINE);
  assert.equal(path.resolve(top.source?.path ?? ''), path.resolve(DEMO_SHADER));
  assert.equal(top.name, 'shade');

  // Variables: the locals at that line, against the CPU computation.
  const vars = await locals(top.id);
  console.log('locals at the stop:', Object.fromEntries(vars));
  assert.ok(close(numbers(vars.get('falloff') ?? ''), [e.falloff]), `falloff ${vars.get('falloff')} vs ${e.falloff}`);
  assert.ok(close(numbers(vars.get('d') ?? ''), e.d), `d ${vars.get('d')} vs ${e.d.join(', ')}`);
  assert.ok(close(numbers(vars.get('i') ?? ''), [e.i]), `i ${vars.get('i')}`);
  assert.ok(close(numbers(vars.get('c') ?? ''), e.c), `c ${vars.get('c')}`);

  // Evaluate (hover and watch).
  const hover = await dc.evaluateRequest({ expression: 'falloff', context: 'hover', frameId: top.id });
  assert.ok(close(numbers(hover.body.result), [e.falloff]), hover.body.result);
  const watch = await dc.evaluateRequest({ expression: 'falloff * 2.0', context: 'watch', frameId: top.id });
  assert.ok(close(numbers(watch.body.result), [2 * e.falloff]), watch.body.result);
  const cond = await dc.evaluateRequest({ expression: CONDITION, context: 'watch', frameId: top.id });
  assert.equal(cond.body.result, 'true');

  console.log('evaluate done');
  // Step: the line moves on and c has the light added.
  await Promise.all([dc.nextRequest({ threadId: ev.body.threadId! }), dc.waitForEvent('stopped')]);
  const next = await topFrame();
  assert.notEqual(next.line, BREAK_LINE);
  const after = await locals(next.id);
  assert.ok(close(numbers(after.get('c') ?? ''), e.cAfter), `c after the step ${after.get('c')} vs ${e.cAfter.join(', ')}`);

  console.log('stepped');
  // Step back: on the breakpoint's line again, c as it was.
  await Promise.all([dc.stepBackRequest({ threadId: ev.body.threadId! }), dc.waitForEvent('stopped')]);
  const back = await topFrame();
  assert.equal(back.line, BREAK_LINE);
  assert.ok(close(numbers((await locals(back.id)).get('c') ?? ''), e.c));

  console.log('stepped back');
  // shaderdbg/frameImage: the framebuffer before the draw, a PNG.
  const frame = (await dc.customRequest('shaderdbg/frameImage', {})).body as { frame: number; draw: number; width: number; height: number; png: string };
  assert.deepEqual([frame.frame, frame.width, frame.height], [0, 640, 360]);
  const png = Buffer.from(frame.png, 'base64');
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  assert.equal(png.readUInt32BE(16), 640);

  console.log('frameImage done');
  // shaderdbg/valuesImage: falloff over the whole draw, at our pixel the value we computed.
  const values = (await dc.customRequest('shaderdbg/valuesImage', { expression: 'falloff', frameId: back.id })).body as ValuesImageBody;
  assert.deepEqual([values.width, values.height, values.components, values.line], [640, 360, 1, BREAK_LINE]);
  const img = decode(values);
  const s = stats(img);
  assert.ok(s.covered > 0);
  assert.deepEqual([s.nan, s.inf], [values.nan, values.inf]);
  assert.ok(close([s.min[0]!, s.max[0]!], [values.min[0]!, values.max[0]!], 1e-6));
  console.log(`valuesImage falloff: ${s.covered} covered pixels, min ${values.min[0]}, max ${values.max[0]}`);

  console.log('valuesImage done');
  // shaderdbg/debugPixel: pixel history of (200, 150) in the next frame.
  const stopped2 = dc.waitForEvent('stopped');
  const dp = (await dc.customRequest('shaderdbg/debugPixel', { x: PIXEL[0], y: PIXEL[1] })).body as { frame: number };
  assert.equal(dp.frame, 1);
  const ev2 = await stopped2 as DebugProtocol.StoppedEvent;
  // The breakpoint still holds there in frame 1 (a breakpoint outranks pixel history as the reason).
  // The invocation is the thread's name; the draw and frame are the label frame's.
  const threads = (await dc.threadsRequest()).body.threads;
  const tid = ev2.body.threadId ?? threads[0].id;
  const name = threads.find((t) => t.id === tid)?.name ?? '';
  assert.match(name, /\(200, ?150\)/);
  const frames = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
  assert.match(frames[frames.length - 1]?.name ?? '', /frame 1/);
  console.log(`debugPixel: stopped (${ev2.body.reason}) in ${name}, ${frames[frames.length - 1]?.name}`);
  await dc.disconnectRequest({ terminateDebuggee: true });
});
