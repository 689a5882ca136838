// F5 on a launch.json naming a Vulkan program, as the extension resolves it:
// the real shaderdbg-dap launches tests/vk-apps' vk_triangle (the session
// enables our Vulkan layer), a conditional breakpoint in vk_triangle.frag
// (bound by content to the GLSL the program's SPIR-V carries) stops at the
// first fragment where it holds, with the values the CPU computes for that
// fragment; stepping back goes to the line before.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { close, numbers } from '../common/demo';
import { type Adapter, launchAndStop, locals, startAdapter, stopAdapter, topFrame } from '../common/adapter';
import { VK_APP, VK_ARGS, VK_CONDITION, VK_LINE, VK_SHADER, vkFirstStop, vkLocals } from '../common/vk_triangle';
import { resolveConfiguration } from '../../src/config';

let adapter: Adapter | undefined;

before(async () => {
  assert.ok(fs.existsSync(VK_APP), `${VK_APP} missing: cargo build -p shaderdbg-vk-test-apps`);
  adapter = await startAdapter();
});

after(async () => stopAdapter(adapter));

test('Vulkan program: launch.json F5, conditional breakpoint in its shader, values at the first fragment where it holds, step back', async () => {
  const dc = adapter!.client;
  // What F5 sends for this launch.json entry.
  const resolved = resolveConfiguration(
    { type: 'shaderdbg', request: 'launch', name: 'Debug vk_triangle (Vulkan)', program: VK_APP, args: VK_ARGS },
    { path: VK_SHADER, languageId: 'glsl' },
  );
  assert.ok('config' in resolved, JSON.stringify(resolved));
  const ev = await launchAndStop(dc, VK_SHADER, [{ line: VK_LINE, condition: VK_CONDITION }], resolved.config);
  assert.equal(ev.body.reason, 'breakpoint');

  const top = await topFrame(dc);
  assert.equal(top.line, VK_LINE);
  assert.equal(path.resolve(top.source?.path ?? ''), VK_SHADER);
  assert.equal(top.name, 'main');

  // Which fragment: the thread that stopped names it.
  const threads = (await dc.threadsRequest()).body.threads;
  console.log('threads at the Vulkan stop:', threads.map((t) => t.name));
  const stopped = threads.find((t) => t.id === ev.body.threadId) ?? threads[0];
  const px = /fragment \((\d+), ?(\d+)\)/.exec(stopped.name);
  assert.ok(px, `no fragment in the thread name ${stopped.name}`);
  const [x, y] = [Number(px[1]), Number(px[2])];
  // Frame 0 (t = 0): the first fragment in row order where the condition holds.
  const first = vkFirstStop(0);
  assert.ok(first);
  assert.deepEqual([x, y], [first.x, first.y]);
  assert.deepEqual([x, y], [32, 0]);
  const e = vkLocals(x, y, 0);

  const vars = await locals(dc, top.id);
  console.log('locals at the Vulkan stop:', Object.fromEntries(vars));
  assert.deepEqual(numbers(vars.get('p')?.value ?? ''), e.p, `p ${vars.get('p')?.value} vs ${e.p.join(', ')}`);
  assert.deepEqual(e.p, [1.015625, 0.015625]);
  assert.deepEqual(numbers(vars.get('t')?.value ?? ''), [e.t], `t ${vars.get('t')?.value}`);
  assert.ok(close(numbers(vars.get('ring')?.value ?? ''), [e.ring], 1e-5), `ring ${vars.get('ring')?.value} vs ${e.ring}`);
  assert.equal(vars.get('p')?.type, 'vec2');
  assert.equal(vars.get('ring')?.type, 'float');

  // The condition, evaluated at the stop.
  const cond = await dc.evaluateRequest({ expression: VK_CONDITION, context: 'watch', frameId: top.id });
  assert.equal(cond.body.result, 'true');

  // Step back: the line before (`float ring = ...`), ring not assigned yet there.
  await Promise.all([dc.stepBackRequest({ threadId: ev.body.threadId! }), dc.waitForEvent('stopped')]);
  const back = await topFrame(dc);
  assert.equal(back.line, VK_LINE - 1);
  const backVars = await locals(dc, back.id);
  assert.deepEqual(numbers(backVars.get('p')?.value ?? ''), e.p);
  await dc.disconnectRequest({ terminateDebuggee: true });
});
