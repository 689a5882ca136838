import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { RUNTIME_SOURCE_EVENT, RuntimeSources } from '../../src/runtime';

test('runtime sources become notifications, and are forgotten when the session ends', () => {
  const r = new RuntimeSources();
  const body = { path: '/s/light.frag', source: 'const vec4 K = vec4(1.0);\nvoid main() {}\n' };
  assert.deepEqual(r.onEvent('a', RUNTIME_SOURCE_EVENT, body), body);
  assert.deepEqual(r.onEvent('a', RUNTIME_SOURCE_EVENT, { path: '/s/other.vert', source: '' }), {
    path: '/s/other.vert',
    source: '',
  });
  assert.deepEqual(r.onEnd('a'), [
    { path: '/s/light.frag', source: null },
    { path: '/s/other.vert', source: null },
  ]);
  assert.deepEqual(r.onEnd('a'), [], 'nothing twice');
});

test('other events and malformed bodies are not ours', () => {
  const r = new RuntimeSources();
  assert.equal(r.onEvent('a', 'stopped', { path: '/x', source: 'y' }), undefined);
  assert.equal(r.onEvent('a', RUNTIME_SOURCE_EVENT, undefined), undefined);
  assert.equal(r.onEvent('a', RUNTIME_SOURCE_EVENT, { path: 3, source: 'y' }), undefined);
  assert.equal(r.onEvent('a', RUNTIME_SOURCE_EVENT, { path: '/x' }), undefined);
  assert.deepEqual(r.onEnd('a'), []);
});

test('a file another running session also set keeps its context', () => {
  const r = new RuntimeSources();
  r.onEvent('a', RUNTIME_SOURCE_EVENT, { path: '/s/f.frag', source: '1' });
  r.onEvent('b', RUNTIME_SOURCE_EVENT, { path: '/s/f.frag', source: '2' });
  assert.deepEqual(r.onEnd('a'), []);
  assert.deepEqual(r.onEnd('b'), [{ path: '/s/f.frag', source: null }]);
});
