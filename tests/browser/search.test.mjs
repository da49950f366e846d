// The Search view: a small search draws the counters, the TP x PP heatmap,
// the ranked plans and the Pareto front; Apply loads a plan into the
// calculator; Cancel stops a long search and the page stays responsive; the
// GPT-3 175B / 1,024-GPU search is timed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { afterEvaluation, openPage, setup, shot, waitEvaluated } from './harness.mjs';

setup();

const searchDone = (page) => page.waitForFunction(() => document.querySelector('[data-explore="search"] .job-bar')?.dataset.state === 'done', null, { timeout: 60000 });

test('search on llama3.1-8b / 16 GPUs: heatmap, ranked plans, Pareto front; Apply fills the calculator', async () => {
  const { page, errors } = await openPage('v=1&gb=64&view=search&qg=16');
  await searchDone(page);
  assert.equal(await page.locator('#tab-search').getAttribute('aria-selected'), 'true');
  assert.ok(await page.locator('#results').isHidden(), 'the calculator results are hidden');
  const evaluated = Number((await page.locator('#search-stats [data-key="evaluated"] .value').textContent()).replace(/,/g, ''));
  assert.ok(evaluated > 1000, `evaluated ${evaluated}`);
  // heatmap: tp, pp in {1, 2, 4, 8, 16} with tp x pp <= 16: 15 cells, each searched
  const cells = page.locator('svg.heatmap rect.hm-cell');
  assert.equal(await cells.count(), 25);
  assert.equal(await page.locator('svg.heatmap rect.hm-cell.out').count(), 10);
  const values = await page.$$eval('svg.heatmap rect.hm-cell[data-value]:not([data-value=""])', (gs) => gs.map((g) => Number(g.dataset.value)));
  assert.ok(values.length >= 5, `cells with a plan: ${values.length}`);
  const rows = page.locator('table.plans tbody tr');
  assert.equal(await rows.count(), 10);
  assert.ok((await page.locator('svg.scatter.pareto circle.front').count()) >= 1);
  // the ranking's caveat: the validation of each kind of plan listed
  const kinds = page.locator('.search-accuracy li[data-regime]');
  assert.ok((await kinds.count()) >= 1);
  assert.match(await kinds.first().textContent(), /off by [0-9.]+% on average|no published run/);
  assert.doesNotMatch(await kinds.first().textContent(), /none of these runs on this device/);  // H100 runs, H100 plans
  // the best cell is the best plan
  const bestTime = Number(await rows.first().getAttribute('data-time'));
  assert.ok(Math.abs(Math.min(...values) - bestTime) <= 1e-9 * bestTime, `${Math.min(...values)} vs ${bestTime}`);
  await shot(page, 'search-llama8b-16');

  // Apply the third plan: the calculator shows it
  const plan = await rows.nth(2).locator('td').allTextContents();
  await rows.nth(2).locator('button.apply-plan').click();
  await page.waitForFunction(() => !location.hash.includes('view=search'));
  await waitEvaluated(page);
  assert.ok(await page.locator('#results').isVisible());
  const field = (k) => page.locator(`[data-key="${k}"] input, [data-key="${k}"] select`).first();
  const [tp, pp, dp] = [plan[4], plan[5], plan[6]]; // after time, tokens/s, MFU, memory
  for (const [k, v] of [['parallelism.tp', tp], ['parallelism.pp', pp], ['parallelism.dp', dp]]) {
    const el = field(k);
    const shown = (await el.inputValue()) || (await el.getAttribute('placeholder'));
    assert.equal(shown, v, k);
  }
  assert.match(page.url(), new RegExp(`dp=${dp}`));
  await page.close();
  assert.deepEqual(errors, []);
});

// Nothing fits: the view names the plan that misses by the least, and Apply
// shows it in the calculator (which says it does not fit, by as much).
test('no feasible plan: the closest plan, what it misses, and Apply', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&gb=512&sl=8192&view=search&qg=8');
  await searchDone(page);
  assert.match(await page.locator('[data-explore="search"] .warnings').textContent(), /no configuration fits in memory on 8 GPUs/);
  const note = page.locator('.closest-plan');
  const text = await note.textContent();
  const m = text.match(/^No plan fits\. The closest plan \((.*)\) needs ([0-9.]+)\sGiB per GPU of 80\.0\sGiB\./);
  assert.ok(m, text);
  assert.match(m[1], /^TP 8 · .*micro-batch 1 · recompute full$/, 'the leanest plan: ZeRO-3 plans also hold the gathered layers');
  await shot(page, 'search-closest');
  await note.locator('button.apply-plan').click();
  await page.waitForFunction(() => !location.hash.includes('view=search'));
  await waitEvaluated(page);
  const verdict = await page.locator('#results .verdict').textContent();
  assert.match(verdict, new RegExp(`^Does not fit: needs ${m[2].replace('.', '\\.')}\\sGiB per GPU`));
  await page.close();
  assert.deepEqual(errors, []);

  // Under a memory share the closest plan is measured against what the share allows.
  const shared = await openPage('v=1&m=llama3.1-70b&gb=512&sl=8192&view=search&qg=8&qm=0.9');
  await searchDone(shared.page);
  assert.match(await shared.page.locator('[data-explore="search"] .warnings').textContent(), /no configuration fits in 90% of the memory on 8 GPUs/);
  assert.match(await shared.page.locator('.closest-plan').textContent(), /needs [0-9.]+\sGiB per GPU of 72\.0\sGiB allowed \(90\.0% of 80\.0\sGiB\)\./);
  assert.doesNotMatch(await shared.page.locator('.closest-plan').textContent(), /Narrower weights/, 'training: no weight ladder');
  await shared.page.close();
  assert.deepEqual(shared.errors, []);

  // Serving with 16-bit weights: the note names the narrower weights the calculator's button tries.
  const serving = await openPage('v=1&mode=inference&m=deepseek-v3&s=dgx-h200&view=search&qg=8');
  await searchDone(serving.page);
  assert.match(await serving.page.locator('.closest-plan').textContent(), /needs [0-9.]+\sGiB per GPU of 141\sGiB\. Apply Narrower weights hold less: the calculator's "Find a plan that fits" also tries fp8 \(the format the model is released in\), then int4 weights\.$/);
  await serving.page.close();
  assert.deepEqual(serving.errors, []);
});

// Nothing fits on 8 GPUs: the core walks doubling counts from the memory
// floor (70B with Adam states: 1.16 TiB, more than 14 H100s hold) and the
// view names the first that holds a plan; its button searches that count.
test('no feasible plan: the fewest GPUs, doubling, that hold one, and a button that searches there', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&gb=512&sl=8192&view=search&qg=8');
  await searchDone(page);
  const more = page.locator('[data-explore="search"] .more-gpus');
  const text = await more.textContent();
  assert.match(text, /^Doubling the GPUs, a plan fits on 16 \(fewer than 1[45] cannot hold the weights, gradients and optimizer states; searched 16\): TP \d+ · .*recompute \w+\. Search 16 GPUs$/);
  assert.match(await page.locator('[data-explore="search"] .job-bar').textContent(), /Searched [0-9,]+ plans on 8 GPUs and [0-9,]+ on more in /);
  await more.locator('button.search-more').click();
  await page.waitForFunction(() => document.querySelector('[data-explore="search"] table.plans tbody tr'), null, { timeout: 60000 });
  await searchDone(page);
  assert.equal(await page.locator('#search-gpus').inputValue(), '16');
  assert.ok(Number((await page.locator('#search-stats [data-key="feasible"] .value').textContent()).replace(/,/g, '')) > 0);
  assert.equal(await page.locator('[data-explore="search"] .more-gpus').count(), 0, 'a search with a plan walks nowhere');
  assert.match(page.url(), /qg=16/);
  await page.close();
  assert.deepEqual(errors, []);
});

// The page searches the whole plan, whatever the form sets: from the first
// screen (tp 2, dp 4, ZeRO 1, micro-batch and recompute set) on 64 GPUs every
// tp and every dp is open, as with a scenario that sets no plan. Keeping what
// the form sets ("only what the form leaves unset") searches far fewer plans.
test('the search varies the whole plan unless told to keep what the form sets', async () => {
  const first = 'v=1&tp=2&dp=4&sp=1&z=1&gb=256&sl=8192';
  const { page, errors } = await openPage(`${first}&view=search&qg=64`);
  await searchDone(page);
  const evaluated = async () => Number((await page.locator('#search-stats [data-key="evaluated"] .value').textContent()).replace(/,/g, ''));
  const select = page.locator('#search-vary');
  assert.equal(await select.inputValue(), 'plan');
  const whole = await evaluated();
  assert.ok(whole > 1000, `evaluated ${whole}`);
  const tps = await page.$$eval('table.plans tbody tr', (trs) => trs.map((tr) => tr.querySelectorAll('td')[4].textContent));
  const dps = await page.$$eval('table.plans tbody tr', (trs) => trs.map((tr) => tr.querySelectorAll('td')[6].textContent));
  assert.ok(dps.some((d) => d !== '4') || tps.some((t) => t !== '2'), `tp ${tps} dp ${dps}`);
  assert.ok((await page.$$eval('svg.heatmap rect.hm-cell[data-value]:not([data-value=""])', (gs) => gs.length)) > 7, 'more than one tp row');
  // The JSON the page sends says so: the CLI reproduces it.
  await select.selectOption('unset');
  await page.waitForFunction(() => location.hash.includes('qv=unset'));
  await page.locator('[data-explore="search"] button', { hasText: 'Run search' }).click();
  await page.waitForFunction((n) => Number(document.querySelector('#search-stats [data-key="evaluated"] .value')?.textContent.replace(/,/g, '')) !== n, whole);
  await searchDone(page);
  const kept = await evaluated();
  assert.ok(kept * 10 < whole, `kept ${kept}, whole ${whole}`);
  const keptDps = await page.$$eval('table.plans tbody tr', (trs) => trs.map((tr) => tr.querySelectorAll('td')[6].textContent));
  for (const d of keptDps) assert.equal(d, '4');
  // 64 GPUs searched, 8 on the left: no comparison with the plan on the left.
  assert.ok(await page.locator('p.own-plan').isHidden());
  assert.equal(await page.locator('svg.scatter.pareto .pt.own').count(), 0);
  await page.close();
  assert.deepEqual(errors, []);
  // On the form's own 8 GPUs the view says how the plan on the left compares.
  const eight = await openPage(`${first}&view=search`);
  await searchDone(eight.page);
  const own = await eight.page.locator('p.own-plan').textContent();
  const m = own.match(/^The plan on the left \(TP 2 · PP 1 · DP 4 · SP · ZeRO 1 · micro-batch \d+ · recompute \w+\) takes ([\d.]+)\s(s|min), ([\d.]+)% longer than the best plan found\.$/);
  assert.ok(m, own);
  const best = Number(await eight.page.locator('table.plans tbody tr').first().getAttribute('data-time'));
  assert.ok(best > 0 && Number(m[3]) > 0);
  // It is a point of its own on the Pareto chart, named in the legend.
  await eight.page.waitForSelector('svg.scatter.pareto .pt.own');
  assert.equal(await eight.page.locator('svg.scatter.pareto .pt.own').count(), 1);
  assert.match(await eight.page.locator('figure.pareto .legend').textContent(), /the plan on the left/);
  await eight.page.close();
  assert.deepEqual(eight.errors, []);
});

// The fixed parallelism leaves nothing to search (tp 2 x dp 2 x cp 1 x pp 1
// is 4 of the 8 GPUs): the view says why, and not that nothing fits; the
// one-row heatmap keeps its axis label out of its caption.
test('fixed inputs that leave no plan: the view says so', async () => {
  const { page, errors } = await openPage('v=1&tp=2&pp=1&dp=2&cp=1&view=search&qg=8&qv=unset');
  await searchDone(page);
  assert.match(
    await page.locator('[data-explore="search"] .warnings').textContent(),
    /no valid configuration on 8 GPUs keeps the parallelism and batch inputs the scenario gives/,
  );
  assert.equal(await page.locator('[data-explore="search"] .view-missing').textContent(), 'No plan to show.');
  const caption = await page.locator('figure.heatmap-box figcaption').boundingBox();
  const svg = await page.locator('figure.heatmap-box svg.heatmap').boundingBox();
  const labels = await page.$$eval('figure.heatmap-box svg.heatmap text', (ts) => ts.map((t) => t.getBoundingClientRect().top));
  assert.ok(Math.min(...labels) >= caption.y + caption.height - 1, 'no axis text over the caption');
  assert.ok(svg.height > 0);
  await page.close();
  assert.deepEqual(errors, []);
});

// The search explores fully sharded plans; applying one clears a hybrid
// sharding setting of the calculator (it would describe another plan).
test('Apply clears zero_shard: the applied plan is the one searched', async () => {
  const { page, errors } = await openPage('v=1&gb=64&dp=16&z=1&zs=8&view=search&qg=16');
  await searchDone(page);
  const rows = page.locator('table.plans tbody tr');
  assert.ok((await rows.count()) >= 1);
  const planTime = (await rows.first().locator('td').first().textContent()).trim();
  await rows.first().locator('button.apply-plan').click();
  await page.waitForFunction(() => !location.hash.includes('view=search'));
  await waitEvaluated(page);
  assert.doesNotMatch(page.url(), /zs=/);
  const shown = (await page.locator('.headline .card[data-key="iteration_time_s"] dd').textContent()).trim();
  assert.ok(shown.startsWith(planTime), `calculator ${shown}, plan ${planTime}`);
  await page.close();
  assert.deepEqual(errors, []);
});

// Expert tensor parallelism: the search names etp 1 where it tries it beside
// the default ("8/1" under "EP / ETP"), and applying a plan that leaves etp to its
// default clears the calculator's etp (it would describe another plan). The
// twenty best hold both kinds (the ten best are all of the default kind).
test('Apply sets or clears etp: the applied plan is the one searched', async () => {
  const { page, errors } = await openPage('v=1&m=mixtral-8x7b&gb=64&tp=2&dp=8&ep=4&etp=1&view=search&qg=16&qv=plan&qt=20');
  await searchDone(page);
  const rows = page.locator('table.plans tbody tr');
  const epCells = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[8].textContent));
  assert.ok((await page.locator('table.plans thead th').allTextContents()).includes('EP / ETP'));
  const named = epCells.findIndex((c) => /^\d+\/1$/.test(c));
  const plain = epCells.findIndex((c) => /^\d+$/.test(c));
  assert.ok(named >= 0 && plain >= 0, `EP cells: ${epCells.join(', ')}`);
  // figures (time, tokens/s, MFU, memory, EP) align right, the schedule's name ("1f1b") left; the table fits the panel at 1280 px
  for (const col of [0, 1, 2, 3, 8])
    assert.deepEqual(await rows.evaluateAll((trs, c) => [...new Set(trs.map((tr) => tr.querySelectorAll('td')[c].className))], col), ['num'], `column ${col}`);
  assert.ok(await rows.evaluateAll((trs) => trs.every((tr) => !tr.querySelectorAll('td')[11].classList.contains('num'))));
  assert.ok(await page.evaluate(() => document.querySelector('table.plans').scrollWidth <= document.querySelector('.search-table').clientWidth));
  for (const [i, etp] of [[plain, null], [named, '1']]) {
    const row = rows.nth(i);
    const planTime = (await row.locator('td').first().textContent()).trim();
    await row.locator('button.apply-plan').click();
    await page.waitForFunction(() => !location.hash.includes('view=search'));
    await waitEvaluated(page);
    assert.equal(new URL(page.url()).hash.match(/[#&]etp=(\d+)/)?.[1] ?? null, etp, page.url());
    const shown = (await page.locator('.headline .card[data-key="iteration_time_s"] dd').textContent()).trim();
    assert.ok(shown.startsWith(planTime), `calculator ${shown}, plan ${planTime}`);
    await page.goto(page.url().replace(/#.*/, '#v=1&m=mixtral-8x7b&gb=64&tp=2&dp=8&ep=4&etp=1&view=search&qg=16&qv=plan&qt=20'));
    await searchDone(page);
  }
  await page.close();
  assert.deepEqual(errors, []);
});

// At common laptop widths the ten plans, Apply buttons included, fit the
// panel without a sideways scroll (units sit in the headers, headers wrap,
// cells tighten below 1366 px).
test('the plans table fits the panel at 1280 px', async () => {
  const viewport = { width: 1280, height: 900 };
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&gb=128&view=search&qg=64', { viewport });
  await searchDone(page);
  const [table, panel] = await page.evaluate(() => {
    const t = document.querySelector('table.plans');
    return [t.scrollWidth, t.parentElement.clientWidth];
  });
  assert.ok(table <= panel, `plans table ${table} px in a ${panel} px panel`);
  assert.equal(await page.locator('table.plans tbody tr').count(), 10);
  await page.close();
  assert.deepEqual(errors, []);
});

test('GPT-3 175B on 1,024 GPUs, global batch 1536: the search takes under 2 s in the browser', async () => {
  const { page, errors } = await openPage('v=1&m=gpt3-175b&s=dgx-a100-80gb&gb=1536&view=search&qg=1024');
  await searchDone(page);
  const stats = page.locator('#search-stats');
  const wallMs = Number(await stats.getAttribute('data-wall-ms'));
  const coreS = Number(await stats.getAttribute('data-elapsed-s'));
  const evaluated = (await page.locator('#search-stats [data-key="evaluated"] .value').textContent()).trim();
  console.log(`# browser search gpt3-175b / 1024 GPUs / gb 1536: ${wallMs} ms wall (core ${(coreS * 1000).toFixed(0)} ms), ${evaluated} plans`);
  assert.ok(wallMs < 2000, `search took ${wallMs} ms`);
  const first = await page.locator('table.plans tbody tr').first().locator('td').allTextContents();
  assert.match(first[0], /s$/);
  await shot(page, 'search-gpt3-1024');
  await page.close();
  assert.deepEqual(errors, []);
});

test('Cancel stops a long search (the worker is replaced) and the page stays responsive', async () => {
  const { page, errors } = await openPage('v=1&m=mixtral-8x22b&gb=6144&view=search&qg=6144');
  const bar = page.locator('[data-explore="search"] .job-bar');
  await page.waitForFunction(() => document.querySelector('[data-explore="search"] .job-bar')?.dataset.state === 'running');
  await page.waitForTimeout(300);
  assert.equal(await bar.getAttribute('data-state'), 'running');
  // the main thread answers while the worker searches
  const t0 = Date.now();
  await page.evaluate(() => 1 + 1);
  assert.ok(Date.now() - t0 < 500, 'the page is responsive during the search');
  const closed = Promise.race(page.workers().map((w) => new Promise((ok) => w.once('close', ok))));
  await page.locator('#search-cancel').click();
  await closed; // the searching worker was terminated
  assert.equal(await bar.getAttribute('data-state'), 'cancelled');
  assert.equal(await page.locator('#search-status').textContent(), 'Cancelled.');
  assert.ok(await page.locator('#search-cancel').isDisabled());
  // a new, small search runs on the fresh worker
  await page.locator('#search-gpus').fill('64');
  await page.locator('#search-run').click();
  await searchDone(page);
  assert.ok((await page.locator('table.plans tbody tr').count()) > 0);
  assert.match(page.url(), /qg=64/);
  // and the calculator still evaluates
  await page.locator('#tab-calc').click();
  await waitEvaluated(page);
  await page.close();
  assert.deepEqual(errors, []);
});

test('inference search honours the TPOT bound and ranks by tokens/s per GPU', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&view=search&qg=8&qo=0.03');
  await searchDone(page);
  assert.equal(await page.locator('#search-max-tpot-s').inputValue(), '0.03');
  const head = await page.locator('table.plans thead th').allTextContents();
  assert.deepEqual(head.slice(1, 5), ['end-to-end', 'tokens/s per GPU', 'TTFT', 'TPOT']);
  const tpots = await page.locator('table.plans tbody tr td:nth-of-type(4)').allTextContents();
  assert.ok(tpots.length > 0);
  for (const t of tpots) assert.ok(parseFloat(t) <= 30 && /\sms$/.test(t), t);
  assert.match(await page.locator('figure.heatmap-box figcaption').textContent(), /tokens\/s per GPU/);
  // the throughput-interactivity front: every point within the bound (at least 1 / 30 ms per user),
  // each further along it serving more per GPU for less speed per user
  const front = await page.$$eval('figure.serving-front .pt.front', (ps) => ps.map((p) => p.querySelector('title')?.textContent || ''));
  assert.ok(front.length >= 2, `front points: ${front.length}`);
  const pts = front.map((t) => t.match(/^front: ([0-9.,]+) tokens\/s per user, ([0-9.,]+) per GPU/)).map((m) => m && [Number(m[1].replace(/,/g, '')), Number(m[2].replace(/,/g, ''))]);
  assert.ok(pts.every(Boolean), front.join(' | '));
  pts.sort((a, b) => b[0] - a[0]);
  for (let i = 0; i < pts.length; i++) {
    assert.ok(pts[i][0] >= 33.3, `per user ${pts[i][0]}`);
    if (i) assert.ok(pts[i][1] > pts[i - 1][1], `per GPU along the front: ${pts.map((p) => p.join('/')).join(' ')}`);
  }
  // Where the front prefills apart, the colocated plans' front is drawn beside it: its own
  // dotted line and legend entry, every point colocated and none beyond the front above
  const colocated = await page.$$eval('figure.serving-front .pt.alt', (ps) => ps.map((p) => p.querySelector('title')?.textContent || ''));
  if (front.some((t) => /prefill on [\d.]+ instances/.test(t))) {
    assert.ok(colocated.length >= 2, `colocated points: ${colocated.length}`);
    assert.equal(await page.locator('figure.serving-front path.front-line.alt').count(), 1);
    assert.match(await page.locator('figure.serving-front .legend').textContent(), /Pareto front, prefill colocated/);
    assert.match(await page.locator('.serving-slot .chart-note').textContent(), /the gap between the two is what separate prefill instances buy/);
    for (const t of colocated) {
      assert.match(t, /^colocated: .*, prefill colocated/, t);
      const [, u, g] = t.match(/^colocated: ([0-9.,]+) tokens\/s per user, ([0-9.,]+) per GPU/).map((v) => Number(String(v).replace(/,/g, '')));
      assert.ok(pts.some(([fu, fg]) => fu >= u * 0.999 && fg >= g * 0.999), `colocated ${u}/${g} beyond the front`);
    }
  } else assert.equal(colocated.length, 0, 'a colocated front is drawn only beside one that prefills apart');
  await shot(page, 'search-inference');
  await page.close();
  assert.deepEqual(errors, []);
});

test('a serving search under a TTFT bound tries prefill on separate instances; Apply brings the prefill pool to the calculator', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&wp=fp8&ic=fp8&kp=fp8&view=search&qg=8&qf=0.5');
  await searchDone(page);
  const head = await page.locator('table.plans thead th').allTextContents();
  assert.equal(head.at(-2), 'prefill');
  const prefill = await page.locator('table.plans tbody tr').first().locator('td').nth(head.length - 3).textContent();
  assert.match(prefill, /^[\d.]+ × TP\d$/, 'under a 0.5 s TTFT bound the best plan prefills apart');
  // Colocated, static batching prefills each batch before its first token:
  // under the bound the dotted front goes on with chunked prefill, each such
  // point naming its budget, and the note says the front batches both ways.
  const colocated = await page.$$eval('figure.serving-front .pt.alt', (ps) => ps.map((p) => p.querySelector('title')?.textContent || ''));
  assert.ok(colocated.some((t) => /, prefill colocated, chunked: [\d,]+ tokens per step/.test(t)), colocated.join('\n'));
  assert.match(await page.locator('.serving-slot .chart-note').textContent(), /or in-flight batching with chunked prefill inside the decode steps/);
  await afterEvaluation(page, () => page.locator('table.plans tbody tr').first().locator('button.apply-plan').click());
  assert.match(page.url(), /ptp=\d/);
  // "6.00 × 1 GPU", "1.50 × 2 GPUs": the instance's size, singular for one
  assert.match(await page.locator('.card[data-key="prefill_instances"]').textContent(), /× (1 GPU|[2-9] GPUs)\b/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a search on a Gaudi 3 server says the quoted runs were on other hardware', async () => {
  const { page, errors } = await openPage('v=1&gb=64&s=intel-gaudi3&view=search&qg=8');
  await searchDone(page);
  const kinds = page.locator('.search-accuracy li[data-regime]');
  assert.ok((await kinds.count()) >= 1);
  assert.match(await kinds.first().textContent(), /none of these runs on this device/);
  assert.deepEqual(errors, []);
  await page.close();
});

// The search ranks by time, so its fastest plans crowd the memory ceiling:
// each plan the calculator would warn about is flagged, and the warnings are
// listed under the table with the ranks they concern.
test('plans at the memory ceiling are flagged and their warnings listed (Llama 3.1 405B on 128 H100)', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-405b&gb=128&sl=8192&view=search&qg=128&qt=4');
  await searchDone(page);
  const flagged = await page.$$eval('table.plans tbody tr', (rows) => rows.filter((r) => r.querySelector('.plan-flag')).map((r) => Number(r.dataset.rank)));
  assert.ok(flagged.length >= 1, 'at least one of the fastest plans is tight');
  const lines = await page.locator('ul.plan-warnings li').allTextContents();
  assert.ok(lines.some((t) => /under 5% to spare \([\d.]+ GiB of 80\.0 GiB\)/.test(t)), lines.join('\n'));
  // The four best are ZeRO-3, a kind the model has been optimistic about: each
  // carries that caution, and the core appends the fastest plan of another kind.
  assert.ok(lines.some((t) => /^Plans 1, 2, 3, 4: the model has been optimistic about this kind of run/.test(t)), lines.join('\n'));
  assert.match(await page.locator('table.plans caption').textContent(), /^Best 4 plans, then plan 5, the fastest of a kind the model has been less optimistic about;/);
  const listed = lines.flatMap((t) => t.match(/^Plans? ([\d, ]+):/)[1].split(', ').map(Number));
  assert.deepEqual([...new Set(listed)].sort((a, b) => a - b), flagged);
  // The recommended plan (what "Find a plan that fits" takes) is the first unflagged one, marked and named.
  const recommended = await page.$$eval('table.plans tbody tr.recommended', (rows) => rows.map((r) => Number(r.dataset.rank)));
  const firstClean = Math.min(...(await page.$$eval('table.plans tbody tr', (rows) => rows.filter((r) => !r.querySelector('.plan-flag')).map((r) => Number(r.dataset.rank)))));
  assert.deepEqual(recommended, [firstClean]);
  assert.match(await page.locator('table.plans caption').textContent(), new RegExp(`; plan ${firstClean} is the fastest without a warning$`));
  // The heatmap flags a cell as the table flags a row: its best plan's warnings, named in its tooltip.
  const cells = await page.$$eval('svg.heatmap rect.hm-cell:not(.out):not(.none)', (rs) => rs.map((r) => ({ flagged: r.classList.contains('flagged'), tip: r.querySelector('title')?.textContent || '' })));
  assert.ok(cells.some((c) => c.flagged && /^TP \d+ × PP 1: .*; its plan: .*the model has been optimistic about this kind of run/.test(c.tip)), cells.map((c) => c.tip).join('\n'));
  assert.ok(cells.some((c) => !c.flagged), 'some cells have a clean best plan');
  for (const c of cells) assert.equal(c.flagged, c.tip.includes('; its plan: '), c.tip);
  assert.equal(await page.locator('svg.heatmap text.hm-flag').count(), cells.filter((c) => c.flagged).length);
  assert.match(await page.locator('figure.heatmap-box p.chart-note').textContent(), /⚠ and an amber border: the cell’s best plan carries a warning/);
  // and so does the Pareto chart its points: an amber ring, the warning in the tooltip
  const dots = await page.$$eval('svg.pareto circle.pt:not(.own)', (cs) => cs.map((c) => ({ flagged: c.classList.contains('flagged'), tip: c.querySelector('title')?.textContent || '' })));
  assert.ok(dots.some((d) => d.flagged && /; its plan: .*the model has been optimistic about this kind of run/.test(d.tip)), dots.map((d) => d.tip).join('\n'));
  assert.ok(dots.some((d) => !d.flagged), 'some points are clean plans');
  for (const d of dots) assert.equal(d.flagged, d.tip.includes('; its plan: '), d.tip);
  assert.match(await page.locator('figure.pareto ul.legend').textContent(), /amber ring: the plan carries a warning/);
  await shot(page, 'search-llama405b-128-warnings');
  assert.deepEqual(errors, []);
  await page.close();
});

// A warning every plan carries tells no plan from another: Mixtral's plans are
// all mixture-of-experts training, a kind the model has been optimistic about,
// so the caution is said once for all and flags no row.
test('a caution every plan carries is stated once and flags no row (Mixtral 8x7B on 16 H100)', async () => {
  const { page, errors } = await openPage('v=1&m=mixtral-8x7b&gb=128&sl=4096&view=search&qg=16');
  await searchDone(page);
  const lines = await page.locator('ul.plan-warnings li').allTextContents();
  const shared = lines.filter((t) => t.startsWith('All listed plans: the model has been optimistic about this kind of run'));
  assert.equal(shared.length, 1, lines.join('\n'));
  assert.equal(lines.at(-1), shared[0], 'stated after the warnings of particular plans');
  const moe = 'optimistic about this kind of run, so it may rank too high: mixture-of-experts training';
  const flags = await page.$$eval('table.plans .plan-flag', (f) => f.map((x) => x.title));
  assert.ok(flags.every((t) => !t.includes(moe)), flags.join('\n'));
  // nor a heatmap cell, nor a point of the Pareto chart (a ZeRO-3 plan's own
  // caution, the fully sharded kind's, may flag one)
  const tips = await page.$$eval('svg.heatmap rect.hm-cell.flagged title, svg.pareto circle.pt.flagged title', (ts) => ts.map((t) => t.textContent));
  assert.ok(tips.every((t) => !t.includes(moe)), tips.join('\n'));
  assert.deepEqual(errors, []);
  await page.close();
});

// A ZeRO-3 plan of another kind is of the fully sharded kind too: the
// validation quoted for the kinds listed names both.
test('the kinds listed include the fully sharded kind of ZeRO-3 MoE plans', async () => {
  const { page, errors } = await openPage('v=1&m=mixtral-8x7b&gb=128&sl=4096&z=3&view=search&qg=16&qv=unset');
  await searchDone(page);
  const kinds = await page.$$eval('.search-accuracy li[data-regime]', (ls) => ls.map((l) => l.dataset.regime));
  assert.deepEqual(kinds.sort(), ['moe_training', 'sharded_data_parallel_training']);
  assert.deepEqual(errors, []);
  await page.close();
});

// The JSON button beside Run saves the request the CLI takes and the core's
// output, the same in every explore view; it waits for a run to finish.
test('JSON beside Run saves the last run: request and output (search, then a study)', async () => {
  const { page, errors } = await openPage('v=1&gb=64&view=search&qg=16');
  await searchDone(page);
  const saved = async (id) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`#${id}-json:not([disabled])`).click()]);
    return { name: dl.suggestedFilename(), body: JSON.parse(readFileSync(await dl.path(), 'utf8')) };
  };
  const search = await saved('search');
  assert.equal(search.name, 'llmcalc-search-training.json');
  assert.equal(search.body.request.search.gpus, 16);
  assert.equal(search.body.request.model, 'llama3.1-8b');
  assert.equal(search.body.output.search.best.length, 10);
  assert.equal(search.body.output.search.best[search.body.output.search.recommended].warnings.length, 0);
  // a fixed study: the request names it and takes no scenario
  await page.locator('#tab-study').click();
  await page.locator('button.study-link[data-study="dram-scaling"]').click();
  await page.waitForFunction(() => document.querySelector('[data-explore="study"] .job-bar')?.dataset.state === 'done', null, { timeout: 60000 });
  const study = await saved('study');
  assert.equal(study.name, 'llmcalc-study-dram-scaling.json');
  assert.deepEqual(study.body.request, { name: 'dram-scaling' });
  assert.equal(study.body.output.study, 'dram-scaling');
  assert.deepEqual(errors, []);
  await page.close();
});

// The Search tab pressed on a scenario of 64 GPUs searches those 64 (the
// count goes in the link); a link to the view without qg still means 8.
test('the Search tab opens on the GPUs of the scenario on the left; a link without qg keeps 8', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&tp=8&dp=8&gb=256');
  await waitEvaluated(page);
  await page.locator('#tab-search').click();
  assert.equal(await page.locator('#search-gpus').inputValue(), '64');
  assert.match(page.url(), /&view=search&qg=64$/);
  await page.locator('[data-explore="search"] button', { hasText: 'Run search' }).click();
  await searchDone(page);
  assert.match(await page.locator('p.own-plan').textContent(), /^The plan on the left \(TP 8 · PP 1 · DP 8 · /);
  // Back: the calculator's link as it was
  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('view='));
  assert.doesNotMatch(page.url(), /qg=/);
  await page.close();
  // An old link to the view: 8 GPUs, as it always meant
  const old = await openPage('v=1&m=llama3.1-70b&tp=8&dp=8&gb=256&view=search');
  await searchDone(old.page);
  assert.equal(await old.page.locator('#search-gpus').inputValue(), '');
  assert.match(await old.page.locator('#search-out ul.warnings').textContent(), /on 8 GPUs$/);
  await old.page.close();
  assert.deepEqual(errors, []);
  assert.deepEqual(old.errors, []);
});

// When every listed plan carries a warning of its own (two serving plans at
// the memory ceiling), the core appends the fastest plan without one and the
// caption says so, once.
test('a short list whose plans are all warned is followed by the fastest plan without a warning', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&in=1024&out=256&view=search&qg=2&qt=2');
  await searchDone(page);
  assert.equal(await page.locator('table.plans caption').textContent(), 'Best 2 plans, then plan 3, the fastest without a warning, found beyond them');
  const rows = await page.$$eval('table.plans tbody tr', (rs) => rs.map((r) => [r.classList.contains('recommended'), !!r.querySelector('.plan-flag')]));
  assert.deepEqual(rows, [[false, true], [false, true], [true, false]]);
  await page.close();
  assert.deepEqual(errors, []);
});
