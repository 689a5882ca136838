import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { findBinary, notFoundMessage, settingDir } from '../../src/binaries';

const files = (...ps: string[]) => (p: string) => ps.includes(p);

test('the setting wins over bundled and PATH', () => {
  const r = findBinary('shaderdbg-dap', { setting: '/opt/sdbg', bundledDir: '/ext/bin', pathEnv: '/usr/bin', isFile: files('/opt/sdbg/shaderdbg-dap', '/ext/bin/shaderdbg-dap', '/usr/bin/shaderdbg-dap') });
  assert.deepEqual(r, { path: '/opt/sdbg/shaderdbg-dap', source: 'setting' });
});

test('bundled bin/ before PATH; a setting without the file falls through', () => {
  const r = findBinary('shaderdbg-lsp', { setting: '/nowhere', bundledDir: '/ext/bin', pathEnv: '/usr/bin', isFile: files('/ext/bin/shaderdbg-lsp', '/usr/bin/shaderdbg-lsp') });
  assert.deepEqual(r, { path: '/ext/bin/shaderdbg-lsp', source: 'bundled' });
});

test('PATH in order, empty entries skipped', () => {
  const r = findBinary('shaderdbg-dap', { setting: '', bundledDir: '/ext/bin', pathEnv: '::/a:/b', isFile: files('/b/shaderdbg-dap', '/c/shaderdbg-dap') });
  assert.deepEqual(r, { path: '/b/shaderdbg-dap', source: 'PATH' });
});

test('a relative setting is relative to the workspace', () => {
  assert.equal(settingDir('target/debug', '/ws'), '/ws/target/debug');
  assert.equal(settingDir(' /abs ', '/ws'), '/abs');
  assert.equal(settingDir('  ', '/ws'), undefined);
  const r = findBinary('shaderdbg-host', { setting: 'target/debug', workspaceDir: '/ws', bundledDir: '/e', pathEnv: undefined, isFile: files('/ws/target/debug/shaderdbg-host') });
  assert.equal(r.path, '/ws/target/debug/shaderdbg-host');
});

test('not found names every place looked at', () => {
  const r = findBinary('shaderdbg-dap', { setting: '/s', bundledDir: '/e/bin', pathEnv: '/usr/bin', isFile: () => false });
  assert.equal(r.path, undefined);
  if (r.path !== undefined) return;
  assert.deepEqual(r.tried, ['/s/shaderdbg-dap', '/e/bin/shaderdbg-dap', 'shaderdbg-dap on PATH']);
  assert.match(notFoundMessage('shaderdbg-dap', r), /shaderdbg\.binariesPath/);
});
