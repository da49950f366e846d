// The Content-Security-Policy holds where the page is hosted, not only on the
// dev server: build/web served under a sub-path by a plain static server that
// sends no security headers (as GitHub Pages does) relies on the <meta> tag the
// build writes. Injected inline script and style are refused, and the page
// still evaluates, exports SVG and PNG, and works in an iframe on another origin.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { CSP } from '../../scripts/csp.mjs';
import { repoRoot } from '../node/wasm.mjs';
import { EMBED_HOST, h, setup, shot, waitEvaluated } from './harness.mjs';

setup();

const PREFIX = '/docs/llmcalc/';
const WEB = join(repoRoot, 'build', 'web');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.map': 'application/json' };
const REFUSED = /Refused to (execute|apply)|violates the following Content Security Policy directive/;

// A static server with nothing but Content-Type: `files(path)` -> {body, type} or null.
async function plainServer(files) {
  const server = createServer(async (req, res) => {
    const hit = await files(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!hit) res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    else res.writeHead(200, { 'Content-Type': hit.type }).end(hit.body);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

async function siteFile(path) {
  if (!path.startsWith(PREFIX)) return null;
  const rel = path.slice(PREFIX.length) || 'index.html';
  const file = normalize(join(WEB, rel.endsWith('/') ? `${rel}index.html` : rel));
  if (!file.startsWith(WEB + sep)) return null;
  try {
    return { body: await readFile(file), type: TYPES[extname(file)] || 'application/octet-stream' };
  } catch {
    return null;
  }
}

let site;
let host;
before(async () => {
  site = await plainServer(siteFile);
  host = await plainServer(async (p) => (EMBED_HOST[p] ? { body: EMBED_HOST[p], type: p.endsWith('.js') ? 'text/javascript' : 'text/html' } : null));
});
after(() => {
  site?.server.close();
  host?.server.close();
});

async function open(url) {
  const page = await h.context.newPage();
  page.setDefaultTimeout(30000);
  const errors = [];
  const requests = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  page.on('response', (r) => r.status() >= 400 && errors.push(`HTTP ${r.status()} ${r.url()}`));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.effectiveDirective));
  });
  const response = await page.goto(url);
  return { page, errors, requests, response };
}

// Injects an inline script, an inline <style> and a style attribute; returns
// what took effect and the violations reported.
async function inject(frame) {
  return frame.evaluate(async () => {
    const before = window.__violations.length;
    const s = document.createElement('script');
    s.textContent = 'window.__ran = true;';
    document.body.append(s);
    const st = document.createElement('style');
    st.textContent = 'body { outline: 7px solid red; }';
    document.head.append(st);
    const d = document.createElement('div');
    d.setAttribute('style', 'width: 1234px; height: 1px');
    document.body.append(d);
    await new Promise((r) => setTimeout(r, 300));
    const out = { before, ran: window.__ran === true, outline: getComputedStyle(document.body).outlineWidth, width: d.getBoundingClientRect().width, violations: window.__violations };
    s.remove();
    st.remove();
    d.remove();
    return out;
  });
}

function assertRefused(probe) {
  assert.equal(probe.before, 0, `the page itself violates nothing: ${probe.violations}`);
  assert.equal(probe.ran, false, 'the inline script did not run');
  assert.notEqual(probe.outline, '7px', 'the inline <style> was not applied');
  assert.notEqual(Math.round(probe.width), 1234, 'the style attribute was not applied');
  for (const d of ['script-src-elem', 'style-src-elem', 'style-src-attr']) assert.ok(probe.violations.includes(d), `${d} violation reported: ${probe.violations}`);
}

const unexpected = (errors) => errors.filter((e) => !REFUSED.test(e));

test('without any header the <meta> policy is in force: inline script and style refused, the page evaluates', async () => {
  const { page, errors, requests, response } = await open(`${site.url}${PREFIX}#v=1&mode=inference&m=llama3.1-70b&tp=8`);
  assert.equal(response.status(), 200);
  const headers = response.headers();
  assert.equal(headers['content-security-policy'], undefined, 'the server sends no policy header');
  assert.equal(headers['x-content-type-options'], undefined);
  assert.equal(await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content'), CSP);
  await waitEvaluated(page);
  assert.ok((await page.locator('#results .card').count()) >= 3, 'headline cards drawn');
  assert.ok((await page.locator('#results svg.chart-memory rect.seg').count()) >= 1, 'memory chart drawn');
  assertRefused(await inject(page));
  for (const u of requests) assert.ok(u.startsWith(`${site.url}${PREFIX}`) || /^(data|blob):/.test(u), `request below the sub-path: ${u}`);
  await shot(page, 'csp-static');
  await page.close();
  assert.deepEqual(unexpected(errors), []);
});

async function saved(page, click) {
  const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: dl.suggestedFilename(), body: await readFile(await dl.path()) };
}

test('under the <meta> policy the charts still export as SVG and PNG', async () => {
  const { page, errors } = await open(`${site.url}${PREFIX}#v=1&pp=2&gb=16`);
  await waitEvaluated(page);
  const svg = await saved(page, () => page.locator('[data-view="memory"] button.export-svg').click());
  assert.match(svg.name, /-memory\.svg$/);
  assert.match(svg.body.toString(), /^<\?xml[^]*<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const png = await saved(page, () => page.locator('[data-view="memory"] button.export-png').click());
  assert.match(png.name, /-memory\.png$/);
  assert.deepEqual([...png.body.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(png.body.length > 2000, `PNG of ${png.body.length} bytes`);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  await page.close();
  assert.deepEqual(errors, []);
});

test('embedded in an iframe on another origin it evaluates, posts its height and keeps the policy', async () => {
  const src = `${site.url}${PREFIX}#v=1&embed=1&view=memory`;
  assert.notEqual(new URL(src).origin, new URL(host.url).origin);
  const { page, errors } = await open(`${host.url}/#${encodeURIComponent(src)}`);
  await page.frameLocator('iframe').locator('svg.chart-memory rect.seg').first().waitFor();
  const inner = page.frames().find((f) => f.url().startsWith(`${site.url}${PREFIX}`));
  assert.ok(inner, 'the llmcalc frame is found');
  // The frame posts its document's height (the memory view alone is under the frame's first 200 px).
  const height = await inner.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  assert.ok(height > 100, `document height ${height}`);
  await page.waitForFunction((h) => window.__heights.includes(h), height);
  assert.equal(await inner.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content'), CSP);
  assertRefused(await inject(inner));
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'the host page has no policy of its own');
  await page.close();
  assert.deepEqual(unexpected(errors), []);
});
