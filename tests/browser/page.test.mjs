// The page in headless Chromium (the system's, never a downloaded one), served
// with the production CSP: it loads cleanly, evaluates in its worker, draws
// the memory breakdown, and puts input errors next to the offending field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h, openPage, setup, shot, waitEvaluated } from './harness.mjs';

setup();

test('default scenario evaluates in the worker and draws the memory breakdown', async () => {
  const { page, errors } = await openPage();
  await waitEvaluated(page);
  const segs = page.locator('#results svg.chart-memory rect.seg');
  assert.ok((await segs.count()) >= 1, 'memory chart has segments');
  assert.ok((await page.locator('#results .legend li').count()) >= 1, 'memory legend present');
  assert.ok((await page.locator('#results .card').count()) >= 3, 'headline cards present');
  assert.match(await page.locator('#results .verdict').textContent(), /fit/i);
  assert.ok((await page.locator('#form [data-key="parallelism.tp"] input').count()) === 1, 'form built from the schema');
  assert.match(page.url(), /#v=1/, 'state is in the URL hash');
  // One worker: the one web/src/boot.js started from <head>, taken over by the engine.
  const worker = await page.evaluate(() => ({
    loads: performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.endsWith('/worker.js')).length,
    early: self.llmcalcEarlyWorker,
  }));
  assert.deepEqual(worker, { loads: 1, early: null });
  await shot(page, 'training-default');
  await page.close();
  assert.deepEqual(errors, []);
});

test('inference mode and the share link round-trip', async () => {
  const { page, errors } = await openPage();
  await waitEvaluated(page);
  await page.locator('#f-mode-inference').check();
  await page.locator('[data-key="inference.batch"] input').fill('16');
  await page.waitForFunction(() => document.querySelector('[data-key="ttft_s"]') && location.hash.includes('b=16'));
  await waitEvaluated(page);
  assert.ok((await page.locator('#results svg.chart-memory rect.seg').count()) >= 1);
  const shared = new URL(page.url()).hash.slice(1);
  assert.match(shared, /mode=inference/);
  await shot(page, 'inference');
  await page.close();

  const again = await openPage(shared);
  await waitEvaluated(again.page);
  assert.equal(await again.page.locator('[data-key="inference.batch"] input').inputValue(), '16');
  assert.ok(await again.page.locator('#f-mode-inference').isChecked());
  await again.page.close();
  assert.deepEqual([...errors, ...again.errors], []);
});

test('a negative batch shows an error next to its field and keeps the last result, stale', async () => {
  const { page, errors } = await openPage();
  await waitEvaluated(page);
  await page.locator('[data-key="training.global_batch"] input').fill('-4');
  const err = page.locator('[data-key="training.global_batch"] .error');
  await err.waitFor({ state: 'visible' });
  assert.ok((await err.textContent()).length > 0);
  assert.equal(await page.locator('[data-key="training.global_batch"] input').getAttribute('aria-invalid'), 'true');
  assert.ok(await page.locator('#results.stale').count(), 'results marked stale');
  assert.ok((await page.locator('#results svg.chart-memory rect.seg').count()) >= 1, 'last result still shown');
  await shot(page, 'error-negative-batch');

  await page.locator('[data-key="training.global_batch"] input').fill('64');
  await waitEvaluated(page);
  assert.ok(await err.isHidden(), 'error clears when fixed');
  assert.equal(await page.locator('#results.stale').count(), 0);
  await page.close();
  assert.deepEqual(errors, []);
});

test('tp that does not divide the heads is reported at the tp field', async () => {
  const { page, errors } = await openPage();
  await waitEvaluated(page);
  await page.locator('[data-key="parallelism.tp"] input').fill('7');
  const err = page.locator('[data-key="parallelism.tp"] .error');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.textContent(), /\S/);
  // The status line at the top names the field and the problem too.
  const status = await page.locator('#status.error').textContent();
  assert.match(status, /^Input error: parallelism\.tp: \S.*\. Showing the last valid result/);
  await shot(page, 'error-tp');
  await page.close();
  assert.deepEqual(errors, []);
});

test('a model error opens the collapsed model group and points at the field', async () => {
  const { page, errors } = await openPage();
  await waitEvaluated(page);
  assert.equal(await page.locator('details.group-model').getAttribute('open'), null, 'model group starts collapsed');
  await page.locator('details.group-model > summary').click();
  await page.locator('[data-key="model.kv_heads"] input').fill('5');
  const err = page.locator('[data-key="model.kv_heads"] .error');
  await err.waitFor({ state: 'visible' });
  assert.match(await page.locator('details.group-model > summary').textContent(), /1 set/);
  await page.locator('[data-key="model.kv_heads"] input').fill('');
  await waitEvaluated(page);
  assert.ok(await err.isHidden());
  await page.locator('details.group-model > summary').click(); // close it again
  assert.equal(await page.locator('details.group-model').getAttribute('open'), null);
  await page.evaluate(() => {
    location.hash = 'v=1&mk=3'; // a shared link with a bad model override
  });
  await err.waitFor({ state: 'visible' });
  assert.notEqual(await page.locator('details.group-model').getAttribute('open'), null, 'group reopened for the error');
  await page.close();
  assert.deepEqual(errors, []);
});

test('op table sorts from the keyboard; every control has a label; dark mode', async () => {
  const { page, errors } = await openPage();
  await page.emulateMedia({ colorScheme: 'dark' });
  await waitEvaluated(page);
  const header = page.locator('table.ops th button[data-key="total"]');
  await header.focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('table.ops th:has(button[data-key="total"])').getAttribute('aria-sort'), 'descending');
  const shares = await page.locator('table.ops tbody td[data-col="share"]').allTextContents();
  const nums = shares.map((t) => parseFloat(t));
  assert.ok(nums.length > 1);
  for (let i = 1; i < nums.length; i++) assert.ok(nums[i - 1] >= nums[i], `sorted: ${shares.join(', ')}`);
  // A collective is charged no FLOP or memory bytes: its cells say so, not "0 B".
  const comm = await page.$$eval('table.ops tbody tr', (trs) => trs
    .filter((tr) => tr.querySelector('td[data-col="kind"]').textContent === 'comm')
    .map((tr) => [tr.querySelector('td[data-col="bytes"]').textContent, tr.querySelector('td[data-col="bytes"]').title]));
  assert.ok(comm.length > 0, 'the example has collectives');
  for (const [text, title] of comm) {
    assert.equal(text, '–');
    assert.match(title, /network/);
  }
  const unlabelled = await page.$$eval('input, select', (els) => els.filter((e) => !e.labels || e.labels.length === 0).map((e) => e.id || e.outerHTML));
  assert.deepEqual(unlabelled, []);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.notEqual(bg, 'rgb(255, 255, 255)', 'dark background');
  await shot(page, 'training-dark');
  await page.close();
  assert.deepEqual(errors, []);
});

test('no CSP violation, console error or outside request anywhere', () => {
  assert.deepEqual(h.problems, []);
});
