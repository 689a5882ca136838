import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { hostConfig, initialConfigurations, isHostShader, resolveConfiguration } from '../../src/config';

test('F5 with no launch.json on a fragment shader runs it in the built-in host', () => {
  const r = resolveConfiguration({}, { path: '/ws/demo.frag', languageId: 'glsl' });
  assert.ok('config' in r);
  assert.deepEqual(r.config, { type: 'shaderdbg', request: 'launch', name: 'Debug demo.frag in the built-in host', program: '/ws/demo.frag', args: ['--frames', '2'], frame: 0 });
  assert.deepEqual(r.config, hostConfig('/ws/demo.frag'));
});

test('F5 with no launch.json on a WGSL file runs its fragment entry point in the built-in host', () => {
  const r = resolveConfiguration({}, { path: '/ws/rings.wgsl', languageId: 'wgsl' });
  assert.ok('config' in r);
  assert.deepEqual(r.config, hostConfig('/ws/rings.wgsl'));
  assert.equal(r.config.program, '/ws/rings.wgsl');
});

test('F5 with no launch.json on a vertex shader or a non-shader explains what to do', () => {
  const v = resolveConfiguration({}, { path: '/ws/a.vert', languageId: 'glsl' });
  assert.ok('error' in v && /launch\.json/.test(v.error) && /a\.vert/.test(v.error));
  const js = resolveConfiguration({}, { path: '/ws/a.js', languageId: 'javascript' });
  assert.ok('error' in js && /not a shader/.test(js.error));
  const none = resolveConfiguration({}, undefined);
  assert.ok('error' in none);
});

test('a launch.json naming a program is passed on unchanged', () => {
  const c = { type: 'shaderdbg', request: 'launch', name: 'app', program: '/ws/app', args: ['-x'], cwd: '/ws', env: { A: '1' }, frame: 2, pixel: [3, 4] as [number, number], stopOnEntry: true };
  const r = resolveConfiguration(c, { path: '/ws/x.frag', languageId: 'glsl' });
  assert.ok('config' in r);
  assert.deepEqual(r.config, c);
});

test('a shader program without args gets the host defaults; with args keeps them', () => {
  const r = resolveConfiguration({ type: 'shaderdbg', request: 'launch', name: 'n', program: '${file}.frag' }, undefined);
  assert.ok('config' in r && r.config.args?.join(' ') === '--frames 2');
  const k = resolveConfiguration({ type: 'shaderdbg', request: 'launch', name: 'n', program: 'x.glsl', args: [] }, undefined);
  assert.ok('config' in k && k.config.args?.length === 0);
});

test('bad configurations are refused with a reason', () => {
  const base = { type: 'shaderdbg', request: 'launch', name: 'n' };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...base }, /program/],
    [{ ...base, program: '  ' }, /program/],
    [{ ...base, request: 'attach', program: 'a' }, /launch/],
    [{ ...base, program: 'a', pixel: [1] }, /pixel/],
    [{ ...base, program: 'a', pixel: [1, -1] }, /pixel/],
    [{ ...base, program: 'a', frame: 1.5 }, /frame/],
    [{ ...base, program: 'a', args: 'x' }, /args/],
  ];
  for (const [c, why] of cases) {
    const r = resolveConfiguration(c, undefined);
    assert.ok('error' in r && why.test(r.error), JSON.stringify(c));
  }
});

test('host shader extensions and initial configurations', () => {
  assert.ok(isHostShader('a.FRAG') && isHostShader('b.glsl') && isHostShader('c.fs'));
  assert.ok(isHostShader('rings.wgsl') && isHostShader('R.WGSL'));
  assert.ok(!isHostShader('a.vert') && !isHostShader('a.comp'));
  assert.equal(initialConfigurations()[0].program, '${file}');
});
