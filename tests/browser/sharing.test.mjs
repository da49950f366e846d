// Sharing and embedding: the state in the URL hash, Back/Forward, history
// not flooded while typing, Copy link, embed mode (one view, no chrome, height
// posted to the parent) and the embed snippet dialog.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { EMBED_HOST, afterEvaluation, h, openPage, setup, shot, shots, waitEvaluated } from './harness.mjs';

setup();

test('typing replaces one history entry; discrete changes push; Back/Forward restore them', async () => {
  const { page, errors } = await openPage('v=1');
  await waitEvaluated(page);
  const len0 = await page.evaluate(() => history.length);
  const gb = page.locator('[data-key="training.global_batch"] input');
  await gb.click();
  await page.keyboard.type('128', { delay: 30 }); // three keystrokes, one entry
  await page.waitForFunction(() => location.hash.includes('gb=128'));
  await waitEvaluated(page);
  assert.equal(await page.evaluate(() => history.length), len0 + 1, 'one entry for one typing session');
  await afterEvaluation(page, () => page.locator('#f-mode-inference').check());
  assert.equal(await page.evaluate(() => history.length), len0 + 2, 'a discrete change pushes');
  await page.locator('[data-key="inference.kv_precision"] select').selectOption('fp8');
  await page.waitForFunction(() => location.hash.includes('kp=fp8'));
  assert.equal(await page.evaluate(() => history.length), len0 + 3);

  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('kp=fp8') && location.hash.includes('mode=inference'));
  assert.equal(await page.locator('[data-key="inference.kv_precision"] select').inputValue(), 'bf16');
  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('mode=inference'));
  await waitEvaluated(page);
  assert.ok(await page.locator('#f-mode-training').isChecked());
  assert.equal(await gb.inputValue(), '128');
  await page.goForward();
  await page.waitForFunction(() => location.hash.includes('mode=inference'));
  await page.waitForFunction(() => document.querySelector('#f-mode-inference').checked);
  await page.close();
  assert.deepEqual(errors, []);
});

test('Copy link puts the page address, state included, on the clipboard', async () => {
  await h.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin });
  const { page, errors } = await openPage('v=1&tp=2');
  await waitEvaluated(page);
  await page.locator('#copy-link').click();
  await page.waitForFunction(() => document.querySelector('#status').textContent === 'Link copied.');
  const text = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(text, await page.evaluate(() => location.href));
  assert.match(text, /#v=1&tp=2/);
  await page.close();
  assert.deepEqual(errors, []);
});

test('embed mode shows one view without chrome and posts its height to the parent', async (t) => {
  // The parent is another origin (a second server, no CSP), as on a real blog.
  const parentServer = createServer((req, res) => {
    const body = EMBED_HOST[req.url];
    res.writeHead(body ? 200 : 404, { 'Content-Type': req.url.endsWith('.js') ? 'text/javascript' : 'text/html' }).end(body || '');
  });
  await new Promise((ok) => parentServer.listen(0, '127.0.0.1', ok));
  t.after(() => parentServer.close()); // also when an assertion fails, or the test run would not end
  const parent = { url: `http://127.0.0.1:${parentServer.address().port}/` };
  const page = await h.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const src = `${h.baseUrl}#v=1&pp=4&gb=32&embed=1&view=pipeline`;
  await page.goto(`${parent.url}#${encodeURIComponent(src)}`);
  const frame = page.frameLocator('iframe');
  await frame.locator('svg.chart.pipeline').waitFor();
  await page.waitForFunction(() => window.__heights.some((x) => x > 200));
  const inner = page.frames().find((f) => f.url().startsWith(h.baseUrl));
  // The header stays only as a screen reader's h1 (a 1 px clipped box); its buttons are gone, as are the view tabs.
  const visible = await inner.evaluate(() => ({
    header: document.querySelector('header.top').getBoundingClientRect().height <= 1 ? 'none' : 'shown',
    actions: getComputedStyle(document.querySelector('header.top nav')).display,
    h1: document.querySelector('header.top h1')?.textContent,
    tabs: document.querySelectorAll('#view-tabs').length,
    form: getComputedStyle(document.querySelector('#form')).display,
    footer: getComputedStyle(document.querySelector('footer')).display,
    views: [...document.querySelectorAll('#results [data-view]')].map((e) => e.dataset.view),
    hash: location.hash,
    back: document.querySelector('.embed-credit a')?.getAttribute('href'),
    target: document.querySelector('.embed-credit a')?.getAttribute('target'),
  }));
  // a link back to the full page with the same scenario, in a new tab
  assert.equal(visible.back, `${h.baseUrl}#v=1&pp=4&gb=32`);
  assert.equal(visible.target, '_blank');
  assert.deepEqual([visible.header, visible.actions, visible.form, visible.footer], ['none', 'none', 'none', 'none']);
  assert.equal(visible.h1, 'llmcalc');
  assert.equal(visible.tabs, 0);
  assert.deepEqual(visible.views, ['pipeline']);
  assert.match(visible.hash, /embed=1&view=pipeline/, 'embed mode leaves the hash alone');
  await page.screenshot({ path: join(shots, 'embed-pipeline.png') });
  await page.close();
  assert.deepEqual(errors, []);
});

test('a hand-written view name: a tab by its label opens it; a slip is said, in the page and in an embed', async () => {
  const { page, errors } = await openPage('view=studies');
  await page.locator('[data-explore="study"]').waitFor();
  assert.equal(await page.locator('#view-tabs [aria-selected="true"]').textContent(), 'Studies');
  await page.close();
  const slip = await openPage('v=1&view=serach');
  await waitEvaluated(slip.page);
  assert.equal(await slip.page.locator('#view-tabs [aria-selected="true"]').textContent(), 'Calculator');
  assert.match(await slip.page.locator('#notice').textContent(), /Ignored the view "serach" in the link: the views are calc, search, sweep, study\./);
  await slip.page.close();
  const embed = await openPage('v=1&embed=1&view=memroy');
  await waitEvaluated(embed.page);
  assert.match(await embed.page.locator('#results .view-missing').textContent(), /^No view is named “memroy”; an embed shows one of: summary, memory,/);
  await embed.page.close();
  // a real view this scenario has not: what it needs
  const kv = await openPage('v=1&embed=1&view=kv');
  await waitEvaluated(kv.page);
  assert.equal(await kv.page.locator('#results .view-missing').textContent(), 'The “kv” view is not available for this scenario: it needs an inference scenario.');
  await kv.page.close();
  assert.deepEqual([...errors, ...slip.errors, ...embed.errors, ...kv.errors], []);
});

test('the embed dialog writes an iframe snippet for the chosen view', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&b=4');
  await waitEvaluated(page);
  await page.locator('#embed').click();
  const dlg = page.locator('#embed-dialog');
  await dlg.waitFor({ state: 'visible' });
  await page.locator('#embed-view').selectOption('phases');
  const code = await page.locator('#embed-code').inputValue();
  assert.match(code, /^<iframe id="llmcalc-phases" src="http:\/\/127\.0\.0\.1:\d+\/#v=1&amp;mode=inference&amp;b=4&amp;embed=1&amp;view=phases"/);
  assert.match(code, /llmcalc:height/);
  const href = await page.locator('#embed-preview').getAttribute('href');
  assert.match(href, /embed=1&view=phases$/);
  await shot(page, 'embed-dialog');
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'hidden' });
  await page.close();
  assert.deepEqual(errors, []);
});

test('embedded studies: systems (bars and table), scaling (line and table), models (bars and table) and the published runs (dots and tables), nothing else', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-8b&dp=8&gb=64&sl=4096&embed=1&view=systems');
  await page.locator('#results svg.factor-bars').waitFor({ timeout: 60000 });
  const views = await page.evaluate(() => [...document.querySelectorAll('#results > [data-view]')].map((e) => e.dataset.view));
  assert.deepEqual(views, ['systems']);
  const rows = page.locator('#results [data-table="systems"] tbody tr');
  assert.ok((await rows.count()) >= 15);
  // a bar per system with a plan (tpu-v5e's 16 GiB chips do not fit it)
  assert.equal(await page.locator('#results svg.factor-bars rect.wf-bar').count(), await rows.evaluateAll((trs) => trs.filter((tr) => !/^(does not fit|error:)/.test(tr.lastElementChild.textContent)).length));
  assert.match(await rows.first().locator('th').textContent(), /^dgx-h100 \(this scenario’s system\)$/);
  await shot(page, 'embed-systems');
  await page.close();
  assert.deepEqual(errors, []);
  // the scaling study embeds the same way: its line and its table, nothing else
  const scaling = await openPage('v=1&m=llama3.1-8b&dp=8&gb=64&sl=4096&embed=1&view=scaling');
  await scaling.page.locator('#results svg.scaling-chart').waitFor({ timeout: 60000 });
  assert.deepEqual(await scaling.page.evaluate(() => [...document.querySelectorAll('#results > [data-view]')].map((e) => e.dataset.view)), ['scaling']);
  assert.equal(await scaling.page.locator('#results [data-table="scaling"] tbody tr').count(), 7);
  // a goodput column: interruptions cost more as the GPUs grow
  const heads = await scaling.page.locator('#results [data-table="scaling"] thead th').allTextContents();
  const col = heads.indexOf('goodput (interruptions)');
  assert.ok(col > 0, heads.join(' | '));
  const goodput = await scaling.page.locator(`#results [data-table="scaling"] tbody tr > :nth-child(${col + 1})`).allTextContents();
  const values = goodput.map((t) => parseFloat(t));
  assert.ok(values.every((v, i) => v <= 100 && (i === 0 || v <= values[i - 1])), goodput.join(' '));
  await scaling.page.close();
  assert.deepEqual(scaling.errors, []);
  // and the models study: its cost bars and its table
  const models = await openPage('v=1&m=llama3.1-8b&dp=8&gb=64&sl=4096&embed=1&view=models');
  await models.page.locator('#results svg.value-bars').waitFor({ timeout: 60000 });
  assert.deepEqual(await models.page.evaluate(() => [...document.querySelectorAll('#results > [data-view]')].map((e) => e.dataset.view)), ['models']);
  assert.ok((await models.page.locator('#results [data-table="models"] tbody tr').count()) >= 25);
  await models.page.close();
  assert.deepEqual(models.errors, []);
  // and the published runs, which ignore the scenario: the error dots and the tables
  const runs = await openPage('embed=1&view=published-runs');
  await runs.page.locator('#results svg.error-dots').waitFor({ timeout: 60000 });
  assert.deepEqual(await runs.page.evaluate(() => [...document.querySelectorAll('#results > [data-view]')].map((e) => e.dataset.view)), ['published-runs']);
  assert.equal(await runs.page.locator('#results svg.error-dots circle.pt').count(), await runs.page.locator('#results [data-table="rows"] tbody tr').count());
  // its link back opens the study in the full page
  assert.match(await runs.page.locator('.embed-credit a').getAttribute('href'), /#view=study&study=published-runs$/);
  await runs.page.close();
  assert.deepEqual(runs.errors, []);
});
