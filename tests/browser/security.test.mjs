// Security: hostile hashes are text, never markup or script; malformed and
// oversized hashes are recovered with a visible message; the page asks for
// nothing outside its origin; the worker survives garbage.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h, openPage, setup, shot, waitEvaluated } from './harness.mjs';

setup();

const XSS = '<img src=x onerror=alert(1)>';

async function armTrap(page) {
  await page.addInitScript(() => {
    window.__pwned = [];
    for (const k of ['alert', 'confirm', 'prompt']) window[k] = (...a) => window.__pwned.push([k, ...a]);
  });
}

test('markup in the model name and every string field is rendered as text and runs nothing', async () => {
  const { page: first } = await openPage();
  await waitEvaluated(first);
  // every field the URL can carry as free text: the name, the presets, and text in numeric fields
  const schemaKeys = await first.evaluate(() => [...document.querySelectorAll('#form [data-key]')].map((e) => e.dataset.key));
  await first.close();
  const p = new URLSearchParams({ v: '1', mnm: XSS, m: XSS, s: XSS, tp: XSS, gb: XSS, mode: XSS, pr: XSS, view: XSS, pin: `v=1&mnm=${XSS}` });
  const page = await h.context.newPage();
  await armTrap(page);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${h.baseUrl}#${p.toString()}`);
  await page.waitForFunction(() => /error|Evaluated/i.test(document.querySelector('#status').textContent));
  await page.waitForTimeout(500);
  assert.ok(schemaKeys.includes('model.name'));
  const probe = await page.evaluate(() => ({
    pwned: window.__pwned,
    imgs: document.querySelectorAll('img').length,
    badOption: [...document.querySelectorAll('#f-model option')].some((o) => o.textContent.includes('<img src=x onerror=alert(1)>')),
    name: document.querySelector('[data-key="model.name"] input').value,
  }));
  assert.deepEqual(probe.pwned, []);
  assert.equal(probe.imgs, 0, 'no <img> element was created');
  assert.ok(probe.badOption, 'the hostile preset id is shown as text');
  assert.equal(probe.name, XSS);
  await shot(page, 'security-xss');
  // Now a valid preset, the hostile name: it reaches the results as text.
  await page.evaluate((x) => {
    location.hash = new URLSearchParams({ v: '1', mnm: x }).toString();
  }, XSS);
  await waitEvaluated(page);
  assert.match(await page.locator('.result-title').textContent(), /<img src=x onerror=alert\(1\)>/);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
  assert.deepEqual(await page.evaluate(() => window.__pwned), []);
  await page.close();
  assert.deepEqual(errors, []);
});

test('malformed and 100 KB hashes are recovered with a visible message', async () => {
  const cases = [
    ['v=1&' + 'tp=1&'.repeat(20000), /too long/],
    ['v=9&zzz=1&mode=sideways&ifa=maybe&%E0%A4%A=1', /unknown setting|invalid value|another version/],
    ['%%%&&&==&=&v', /unknown setting/],
  ];
  for (const [hash, re] of cases) {
    const { page, errors } = await openPage(hash);
    await waitEvaluated(page);
    const notice = page.locator('#notice');
    assert.ok(await notice.isVisible(), `message shown for ${hash.slice(0, 40)}`);
    assert.match(await notice.textContent(), re);
    assert.ok((await page.locator('#results svg.chart-memory rect.seg').count()) >= 1, 'the page still works');
    if (hash.length > 1000) {
      await shot(page, 'security-oversized-hash');
      assert.ok(page.url().length < 1000, 'the oversized state is not kept');
    }
    await page.locator('#notice-close').click();
    assert.ok(await notice.isHidden());
    await page.close();
    assert.deepEqual(errors, []);
  }
});

test('the worker survives garbage and deep nesting, then evaluates', async () => {
  const { page, errors } = await openPage();
  await waitEvaluated(page);
  const out = await page.evaluate(async () => {
    const w = new Worker('worker.js');
    let seq = 0;
    const pending = new Map();
    w.onmessage = (e) => {
      const p = pending.get(e.data && e.data.id);
      if (p) p(e.data);
    };
    const call = (msg) =>
      new Promise((resolve) => {
        const id = ++seq;
        pending.set(id, resolve);
        w.postMessage({ id, ...msg });
        setTimeout(() => resolve({ id, timeout: true }), 20000);
      });
    w.postMessage(null);
    w.postMessage('not an object');
    w.postMessage({ fn: 'evaluate' });
    const replies = [];
    for (const json of ['{', '{"mode": }', '\u0000', 'null', '[]', '['.repeat(100000) + ']'.repeat(100000), '{"a":'.repeat(50000) + '1' + '}'.repeat(50000), JSON.stringify({ mode: 'training', model: 'x'.repeat(1 << 20) })]) {
      replies.push(await call({ fn: 'evaluate', json }));
    }
    replies.push(await call({ fn: 'evaluate', json: { not: 'a string' } }));
    replies.push(await call({ fn: '__proto__' }));
    replies.push(await call({ fn: 'constructor' }));
    const good = await call({ fn: 'evaluate', json: JSON.stringify({ mode: 'inference', model: 'llama3.1-8b', system: 'dgx-h100', parallelism: { tp: 1 }, inference: { batch: 1 } }) });
    w.terminate();
    return { replies, good };
  });
  for (const r of out.replies) {
    assert.ok(!r.timeout, 'every message is answered');
    if (r.ok) assert.ok(JSON.parse(r.result).error, `garbage gives an error object: ${String(r.result).slice(0, 100)}`);
    else assert.equal(typeof r.error, 'string');
  }
  assert.equal(out.good.ok, true);
  const res = JSON.parse(out.good.result);
  assert.ok(res.inference.ttft_s > 0);
  await page.close();
  assert.deepEqual(errors, []);
});

test('every request stays on the page origin', () => {
  assert.ok(h.requests.length > 10, 'requests were recorded');
  const outside = h.requests.filter((u) => !u.startsWith(h.origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(outside, []);
  assert.deepEqual(h.problems, []);
});
