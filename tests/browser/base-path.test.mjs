// GitHub Pages serves a project site under /NAME/: the page must work under
// any base path (every URL it loads is relative), as the Pages workflow
// publishes build/web unchanged.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServer } from '../../scripts/serve.mjs';
import { repoRoot } from '../node/wasm.mjs';
import { h, openPage, setup, waitEvaluated } from './harness.mjs';

setup();

let site;
let server;
let url;
before(async () => {
  site = mkdtempSync(join(tmpdir(), 'llmcalc-pages-'));
  symlinkSync(join(repoRoot, 'build', 'web'), join(site, 'llmcalc'));
  ({ server, url } = await startServer({ dir: site, port: 0 }));
});
after(() => {
  server?.close();
  rmSync(site, { recursive: true, force: true });
});

test('the page evaluates when served under /llmcalc/, loading only files below it', async () => {
  const saved = { baseUrl: h.baseUrl, origin: h.origin };
  h.baseUrl = `${url}llmcalc/`;
  h.origin = new URL(url).origin;
  const seen = h.requests.length;
  try {
    const { page, errors } = await openPage('v=1&m=llama3.1-70b');
    await waitEvaluated(page);
    assert.match(await page.locator('#results').textContent(), /Llama 3.1 70B|70\.\d+G/);
    const loaded = h.requests.slice(seen).map((u) => new URL(u, url));
    assert.ok(loaded.some((u) => u.pathname.endsWith('.wasm')), 'the wasm was fetched');
    for (const u of loaded) if (u.protocol.startsWith('http')) assert.match(u.pathname, /^\/llmcalc\//, u.href);
    await page.close();
    assert.deepEqual(errors, []);
  } finally {
    Object.assign(h, saved);
  }
});
