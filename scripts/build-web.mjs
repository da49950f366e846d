// Bundles web/ into the static folder build/web/ (all URLs relative, no
// external requests). The worker is a classic script: it loads the
// Emscripten glue llmcalc.js with importScripts, which the CSP allows ('self').
// Every HTML file gets the Content-Security-Policy <meta> from scripts/csp.mjs.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { injectCsp } from './csp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'build', 'web');
const wasmDir = join(root, 'build', 'wasm', 'wasm');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const common = { bundle: true, minify: true, sourcemap: true, target: ['es2020'], logLevel: 'warning' };
await build({ ...common, entryPoints: [join(root, 'web/src/main.js')], outfile: join(out, 'main.js'), format: 'esm' });
await build({ ...common, entryPoints: [join(root, 'web/src/client/worker.js')], outfile: join(out, 'worker.js'), format: 'iife' });
await build({ ...common, entryPoints: [join(root, 'web/src/boot.js')], outfile: join(out, 'boot.js'), format: 'iife' });
await build({ ...common, entryPoints: [join(root, 'web/src/style.css')], outfile: join(out, 'style.css'), sourcemap: false });

const pages = readdirSync(join(root, 'web')).filter((f) => f.endsWith('.html'));
if (!pages.includes('index.html')) throw new Error('web/index.html is missing');
for (const f of pages) {
  const html = readFileSync(join(root, 'web', f), 'utf8');
  writeFileSync(join(out, f), injectCsp(html, `web/${f}`));
}
copyFileSync(join(root, 'web', 'favicon.svg'), join(out, 'favicon.svg'));
copyFileSync(join(wasmDir, 'llmcalc.js'), join(out, 'llmcalc.js'));
copyFileSync(join(wasmDir, 'llmcalc.wasm'), join(out, 'llmcalc.wasm'));
console.log(`web: wrote ${out}`);

// What a visit downloads (source maps are fetched only by developer tools).
const loaded = ['index.html', 'style.css', 'boot.js', 'main.js', 'worker.js', 'llmcalc.js', 'llmcalc.wasm', 'favicon.svg'];
let raw = 0;
let gz = 0;
const each = loaded.map((f) => {
  const body = readFileSync(join(out, f));
  const z = gzipSync(body, { level: 9 }).length;
  raw += body.length;
  gz += z;
  return `${f} ${(z / 1024).toFixed(1)}`;
});
console.log(`web: page loads ${(raw / 1024).toFixed(0)} KiB, ${(gz / 1024).toFixed(0)} KiB gzipped (${each.join(', ')} KiB)`);
