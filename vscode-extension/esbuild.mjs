// Bundles the extension (CommonJS for the Node extension host, `vscode`
// external) and the two webview scripts (IIFE for the browser).
//   node esbuild.mjs [--minify]
import * as esbuild from 'esbuild';

const minify = process.argv.includes('--minify');
const common = { bundle: true, minify, sourcemap: !minify, logLevel: 'warning', target: 'es2022' };
const t0 = Date.now();
await Promise.all([
  esbuild.build({
    ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js',
    platform: 'node', format: 'cjs', external: ['vscode'],
    // The first statement of the bundle: when VS Code started loading it (activation time = load + activate()).
    banner: { js: 'var __shaderdbgLoadStart = performance.now();' },
  }),
  esbuild.build({
    ...common, entryPoints: { frame: 'src/webview/frame.ts', values: 'src/webview/values.ts' }, outdir: 'dist/webview',
    platform: 'browser', format: 'iife',
  }),
]);
console.log(`esbuild: dist/ in ${Date.now() - t0} ms${minify ? ' (minified)' : ''}`);
