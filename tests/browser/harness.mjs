// Shared by the browser tests: serves build/web with the production CSP,
// drives the system Chromium (never a downloaded one), and records every
// console error, page error and request outside the page's origin.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { repoRoot } from '../node/wasm.mjs';

const CHROMIUM = process.env.LLMCALC_CHROMIUM || '/usr/bin/chromium';
export const shots = join(repoRoot, 'build', 'screenshots');
const TIMEOUT = 30000;

export const h = { server: null, baseUrl: '', origin: '', context: null, problems: [], requests: [] };
let userDataDir;

export function setup({ viewport = { width: 1280, height: 1000 } } = {}) {
  before(async () => {
    mkdirSync(shots, { recursive: true });
    ({ server: h.server, url: h.baseUrl } = await startServer({ dir: join(repoRoot, 'build', 'web'), port: 0 }));
    h.origin = new URL(h.baseUrl).origin;
    userDataDir = mkdtempSync(join(tmpdir(), 'llmcalc-chromium-'));
    h.context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport,
      acceptDownloads: true,
    });
    h.context.on('request', (req) => {
      const u = req.url();
      h.requests.push(u);
      if (!u.startsWith(h.origin) && !u.startsWith('data:') && !u.startsWith('blob:')) h.problems.push(`outside request: ${u}`);
    });
  });
  after(async () => {
    await h.context?.close();
    h.server?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });
}

export async function openPage(hash = '', { viewport } = {}) {
  const page = await h.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  page.setDefaultTimeout(TIMEOUT);
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') errors.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
  page.on('worker', (w) => w.on('console', (msg) => msg.type() === 'error' && errors.push(`worker console: ${msg.text()}`)));
  const response = await page.goto(h.baseUrl + (hash ? `#${hash}` : ''));
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'] || '', /script-src 'self' 'wasm-unsafe-eval'/);
  return { page, errors };
}

export async function waitEvaluated(page) {
  await page.waitForFunction(() => document.querySelector('#status')?.textContent.startsWith('Evaluated'));
}

// The same page at another link (`#...`), reloaded as a visitor opening it,
// once it has evaluated.
export async function reopen(page, hash) {
  await page.goto(page.url().replace(/#.*/, hash));
  await page.reload();
  await waitEvaluated(page);
}

// Waits for the next evaluation after `action` (the status line changes).
export async function afterEvaluation(page, action) {
  await page.evaluate(() => {
    window.__evals = 0;
    const s = document.querySelector('#status');
    new MutationObserver(() => {
      if (s.textContent.startsWith('Evaluated')) window.__evals += 1;
    }).observe(s, { childList: true, characterData: true, subtree: true });
  });
  await action();
  await page.waitForFunction(() => window.__evals > 0);
}

export const shot = (page, name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

// A page of another origin that embeds the URL in its hash in an iframe and
// records the heights the frame posts ({path: body}); used by the embed tests.
export const EMBED_HOST = {
  '/': '<!doctype html><title>host</title><link rel="icon" href="data:,"><script src="host.js"></script><body></body>',
  '/host.js': `window.__heights = [];
  addEventListener('message', (e) => e.data && e.data.type === 'llmcalc:height' && window.__heights.push(e.data.height));
  addEventListener('DOMContentLoaded', () => {
    const f = document.createElement('iframe');
    f.src = decodeURIComponent(location.hash.slice(1));
    f.width = '800';
    f.height = '200';
    document.body.append(f);
  });`,
};
