import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  captureArgs, captureCandidates, captureEnv, chooseConfiguration, planCapture, substitute, traceDebugConfig,
  type CapturePlan, type Variables,
} from '../../src/capture';
import type { LaunchConfig } from '../../src/config';

const vars: Variables = { workspaceFolder: '/ws', file: '/ws/src/a.frag', userHome: '/home/u', env: { HOME: '/home/u', N: '3' } };

const app: LaunchConfig = {
  type: 'shaderdbg', request: 'launch', name: 'Debug app',
  program: '${workspaceFolder}/build/app', args: ['${env:N}', '64'], cwd: '${workspaceFolder}/run',
  env: { GALLIUM_DRIVER: 'llvmpipe', IGNORED: null }, frame: 1, pixel: [3, 4],
};

function planOf(c: LaunchConfig, host?: string): CapturePlan {
  const r = planCapture(c, vars, host);
  if ('error' in r) assert.fail(r.error);
  return r.plan;
}

test('candidates: shaderdbg launch configurations of programs, not of recordings', () => {
  const configs = [
    app,
    { type: 'shaderdbg', request: 'launch', name: 'Replay', program: '${workspaceFolder}/app.trace' },
    { type: 'cppdbg', request: 'launch', name: 'C', program: 'a.out' },
    { type: 'shaderdbg', request: 'attach', name: 'A', program: 'a.out' },
    { type: 'shaderdbg', request: 'launch', name: 'No program' },
    'junk',
  ];
  assert.deepEqual(captureCandidates(configs).map((c) => c.name), ['Debug app']);
  assert.deepEqual(captureCandidates(undefined), []);
});

test('the selected configuration, else the only one, else the user picks', () => {
  const other = { ...app, name: 'Other' };
  assert.equal(chooseConfiguration([app, other], 'Other'), other);
  assert.equal(chooseConfiguration([app], 'Replay'), app);
  assert.equal(chooseConfiguration([app], undefined), app);
  assert.equal(chooseConfiguration([app, other], undefined), undefined);
  assert.equal(chooseConfiguration([], undefined), undefined);
});

test('variables are substituted; an unknown one is an error', () => {
  assert.deepEqual(substitute('${workspaceFolder}/x ${workspaceFolderBasename} ${env:N} ${env:NONE}|', vars), { value: '/ws/x ws 3 |' });
  assert.deepEqual(substitute('${fileDirname}/${userHome}', vars), { value: '/ws/src//home/u' });
  const r = substitute('${command:pick}', vars);
  assert.ok('error' in r && r.error.includes('${command:pick}'), JSON.stringify(r));
  const noFile = substitute('${file}', { ...vars, file: undefined });
  assert.ok('error' in noFile);
});

test('a program is captured with its args, cwd and env into <program name>.trace in the workspace', () => {
  const p = planOf(app);
  assert.equal(p.program, '/ws/build/app');
  assert.deepEqual(p.args, ['3', '64']);
  assert.equal(p.cwd, '/ws/run');
  assert.deepEqual(p.env, { GALLIUM_DRIVER: 'llvmpipe' });
  assert.equal(p.output, '/ws/app.trace');
  assert.equal(p.api, undefined, 'asked: the configuration has no captureApi');
  assert.deepEqual(captureArgs(p, 'egl'), ['capture', '--api', 'egl', '-o', '/ws/app.trace', '--', '/ws/build/app', '3', '64']);
  assert.deepEqual(captureEnv({ PATH: '/bin', GALLIUM_DRIVER: 'softpipe', GONE: undefined }, p), { PATH: '/bin', GALLIUM_DRIVER: 'llvmpipe' });
});

test('relative programs from cwd, bare names from PATH, captureApi taken', () => {
  const rel = planOf({ ...app, program: './bin/app', cwd: undefined, captureApi: 'gl' });
  assert.equal(rel.program, '/ws/bin/app');
  assert.equal(rel.cwd, '/ws');
  assert.equal(rel.api, 'gl');
  const bare = planOf({ ...app, program: 'glmark2', args: undefined, captureApi: 'bogus' });
  assert.equal(bare.program, 'glmark2');
  assert.deepEqual(bare.args, []);
  assert.equal(bare.output, '/ws/glmark2.trace');
  assert.equal(bare.api, undefined);
});

test('a shader file is captured in the built-in host, through EGL', () => {
  const shader: LaunchConfig = { type: 'shaderdbg', request: 'launch', name: 'Shader', program: '${file}', frame: 0 };
  const p = planOf(shader, '/ext/bin/shaderdbg-host');
  assert.equal(p.program, '/ext/bin/shaderdbg-host');
  assert.deepEqual(p.args, ['/ws/src/a.frag', '--frames', '2']);
  assert.equal(p.api, 'egl');
  assert.equal(p.output, '/ws/a.frag.trace');
  const r = planCapture(shader, vars, undefined);
  assert.ok('error' in r && r.error.includes('shaderdbg-host'));
});

test('"Debug the trace" launches the trace with the configuration\'s filters', () => {
  const p = planOf(app);
  assert.deepEqual(traceDebugConfig(p), {
    type: 'shaderdbg', request: 'launch', name: 'Debug app.trace', program: '/ws/app.trace', cwd: '/ws/run', frame: 1, pixel: [3, 4],
  });
});
