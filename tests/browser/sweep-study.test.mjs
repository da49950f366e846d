// The Sweep and Studies views: a sweep draws one line per series with one dot
// per value; every study renders (gpu-generations with its waterfall,
// published-runs with a dot per measurement); the
// views' settings round-trip through the URL, Back/Forward included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, setup, shot } from './harness.mjs';

setup();

const done = (page, view) =>
  page.waitForFunction((v) => document.querySelector(`[data-explore="${v}"] .job-bar`)?.dataset.state === 'done', view, { timeout: 60000 });

test('a sweep link draws one chart per output, one line per system, one dot per step', async () => {
  const hash = 'v=1&view=sweep&wi=training.global_batch&wf=64&wt=1024&wn=5&wo=training.iteration_time_s,training.mfu&wr=dgx-h100,dgx-a100-80gb';
  const { page, errors } = await openPage(hash);
  await done(page, 'sweep');
  const charts = page.locator('#sweep-out figure.sweep-chart');
  assert.equal(await charts.count(), 2);
  for (const out of ['training.iteration_time_s', 'training.mfu']) {
    const fig = page.locator(`#sweep-out figure[data-output="${out}"]`);
    assert.deepEqual(await fig.locator('svg path.line').evaluateAll((ps) => ps.map((p) => p.dataset.series)), ['dgx-h100', 'dgx-a100-80gb']);
    for (const s of ['dgx-h100', 'dgx-a100-80gb']) {
      assert.equal(await fig.locator(`svg circle.pt[data-series="${s}"]`).count(), 5, `${out} ${s}`);
      assert.match(await fig.locator(`svg path.line[data-series="${s}"]`).getAttribute('d'), /^M[^M]+$/, 'one unbroken line');
    }
    assert.equal(await fig.locator('.legend li').count(), 2);
  }
  // Log-spaced points: the iteration time (16x over the range) gets a log y
  // axis too, and a note says so; the MFU (within 4x) stays linear.
  const time = page.locator('#sweep-out figure[data-output="training.iteration_time_s"]');
  assert.equal(await time.getAttribute('data-y-scale'), 'log');
  assert.match(await time.locator('.log-note').textContent(), /^Both axes are logarithmic/);
  const mfu = page.locator('#sweep-out figure[data-output="training.mfu"]');
  assert.equal(await mfu.getAttribute('data-y-scale'), 'linear');
  assert.equal(await mfu.locator('.log-note').count(), 0);
  // the controls show the link's settings
  assert.equal(await page.locator('#sweep-input').inputValue(), 'training.global_batch');
  assert.equal(await page.locator('#sweep-steps').inputValue(), '5');
  assert.ok(await page.locator('#sweep-series-dgx-h100').isChecked());
  await shot(page, 'sweep-global-batch');
  await page.close();
  assert.deepEqual(errors, []);
});

// The outputs' "per GPU" reads in the swept systems' word: chips on TPUs,
// devices when a TPU and a GPU share the chart.
test('a sweep on TPUs labels its outputs per chip; across a TPU and a GPU, per device', async () => {
  const hash = 'v=1&m=llama3.1-8b&s=tpu-v5p&dp=8&gb=64&view=sweep&wi=training.global_batch&wf=32&wt=128&wn=3&wo=training.tflops_per_gpu';
  const { page, errors } = await openPage(hash);
  await done(page, 'sweep');
  assert.equal(await page.locator('#sweep-out figure.sweep-chart figcaption').textContent(), 'TFLOP/s per chip vs global batch');
  assert.ok((await page.locator('#sweep-outputs').textContent()).includes('memory per chip'));
  await page.close();
  const mixed = await openPage(`${hash}&wr=tpu-v5p,dgx-h100`);
  await done(mixed.page, 'sweep');
  assert.equal(await mixed.page.locator('#sweep-out figure.sweep-chart figcaption').textContent(), 'TFLOP/s per device vs global batch');
  // the controls take the swept systems' words as the chart does
  assert.ok((await mixed.page.locator('#sweep-outputs').textContent()).includes('memory per device'));
  await mixed.page.close();
  assert.deepEqual(errors, []);
  assert.deepEqual(mixed.errors, []);
});

// The device memory's word across the swept systems: an H100's HBM3 beside
// an L4's GDDR6 is DRAM, in the input list and on the chart's axis.
test('a sweep of an HBM and a GDDR system names their memory DRAM', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-8b&s=dgx-h100&view=sweep&wi=system.hbm_GBps&wf=1000&wt=4000&wn=3&wr=dgx-h100,l4');
  await done(page, 'sweep');
  assert.equal((await page.locator('#sweep-input option:checked').textContent()).replace(/\u00a0/g, ' '), 'system: DRAM (GB/s)');
  assert.equal(await page.locator('#sweep-out figure.sweep-chart figcaption').textContent(), 'iteration time vs DRAM (GB/s)');  // capacity is DRAM too
  await page.close();
  assert.deepEqual(errors, []);
});

test('the default sweep (global batch, a quarter to 4x, 9 log steps) rounds to whole micro-batches: no invalid point', async () => {
  const { page, errors } = await openPage('v=1&tp=2&dp=4&sp=1&z=1&gb=256&sl=8192&view=sweep');
  await page.locator('#sweep-run, button:has-text("Run sweep")').first().click();
  await done(page, 'sweep');
  const fig = page.locator('#sweep-out figure.sweep-chart').first();
  const xs = await fig.locator('svg circle.pt').evaluateAll((cs) => cs.length);
  assert.ok(xs >= 8, `${xs} points`);
  assert.equal(await page.locator('#sweep-out .sweep-errors').count(), 0, 'every point computed');
  assert.match(await page.locator('#sweep-out .sweep-rounded').textContent(), /rounded to multiples of 4 \(micro-batch × dp\)/);
  // a count reads whole: the dots' tooltips say 64 and 1,024, not 64.0 and 1.02k
  const tips = await fig.locator('svg circle.pt title').allTextContents();
  assert.match(tips[0], /: 64 → /);
  assert.match(tips.at(-1), /: 1,024 → /);
  await page.close();
  assert.deepEqual(errors, []);
});

test('a sweep marks the points whose plan does not fit in memory: hollow dots and a note', async () => {
  // Llama 3.1 8B on tp 2 x dp 4 without recompute: the activations outgrow 80 GB as the sequence grows.
  const hash = 'v=1&m=llama3.1-8b&tp=2&dp=4&gb=64&rc=none&rcf=0&view=sweep&wi=training.seq_len&wf=2048&wt=65536&wn=6&wl=log&wo=training.iteration_time_s';
  const { page, errors } = await openPage(hash);
  await done(page, 'sweep');
  const fig = page.locator('#sweep-out figure[data-output="training.iteration_time_s"]');
  const fits = await fig.locator('svg circle.pt').evaluateAll((cs) => cs.map((c) => c.dataset.fits));
  assert.equal(fits.length, 6);
  assert.equal(fits[0], 'true');
  assert.equal(fits.at(-1), 'false');
  const over = fits.filter((f) => f === 'false').length;
  assert.equal(await fig.locator('svg circle.pt.open').count(), over);
  // hollow: filled with the background, ringed in the series' colour
  const [fill, stroke] = await fig.locator('svg circle.pt.open').first().evaluate((c) => [getComputedStyle(c).fill, getComputedStyle(c).stroke]);
  const solid = await fig.locator('svg circle.pt:not(.open)').first().evaluate((c) => getComputedStyle(c).fill);
  assert.notEqual(fill, solid);
  assert.equal(stroke, solid);
  assert.equal(await fig.locator('p.fit-note').textContent(), `Hollow points (${over} of 6) do not fit in memory: their figures are for a plan that could not run as given.`);
  await shot(page, 'sweep-fits');
  await page.close();
  assert.deepEqual(errors, []);
});

test('sweep controls write the URL; the link reproduces the chart; Back returns to the previous view', async () => {
  const { page, errors } = await openPage('v=1&mode=inference');
  await page.locator('#tab-sweep').click();
  await page.waitForFunction(() => location.hash.includes('view=sweep'));
  await page.locator('#sweep-input').selectOption('system.hbm_GBps');
  await page.locator('#sweep-from').fill('1000');
  await page.locator('#sweep-to').fill('8000');
  await page.locator('#sweep-steps').fill('8');
  await page.locator('#sweep-scale').selectOption('lin');
  await page.locator('#sweep-outputs-inference-tpot-s').check();
  await page.locator('#sweep-run').click();
  await done(page, 'sweep');
  const fig = page.locator('#sweep-out figure[data-output="inference.tpot_s"]');
  assert.equal(await fig.locator('svg path.line').count(), 1);
  assert.equal(await fig.locator('circle.pt').count(), 8);
  const url = page.url();
  for (const part of ['view=sweep', 'wi=system.hbm_GBps', 'wf=1000', 'wt=8000', 'wn=8', 'wl=lin', 'wo=inference.output_tokens_per_s%2Cinference.tpot_s']) assert.ok(url.includes(part), `${part} in ${url}`);
  // TPOT falls as HBM bandwidth grows
  const ys = await fig.locator('circle.pt').evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('cy'))));
  assert.ok(ys[0] < ys[7], 'higher TPOT (smaller y) at low bandwidth');

  const copy = await openPage(url.split('#')[1]);
  await done(copy.page, 'sweep');
  assert.equal(await copy.page.locator('#sweep-out figure[data-output="inference.tpot_s"] circle.pt').count(), 8);
  assert.equal(await copy.page.locator('#sweep-input').inputValue(), 'system.hbm_GBps');
  await copy.page.close();

  await page.locator('#tab-study').click();
  await page.waitForFunction(() => location.hash.includes('view=study'));
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('view=sweep'));
  await page.waitForFunction(() => !document.querySelector('[data-explore="sweep"]').hidden);
  assert.equal(await page.locator('#tab-sweep').getAttribute('aria-selected'), 'true');
  // each discrete setting was one history entry; further back is the calculator
  for (let i = 0; i < 8 && page.url().includes('view='); i++) await page.goBack();
  await page.waitForFunction(() => document.querySelector('#output').dataset.view === 'calc');
  assert.ok(await page.locator('#results').isVisible());
  await page.close();
  assert.deepEqual([...errors, ...copy.errors], []);
});

test('system figures sweep in the page (they were "unknown key" before): every point computed', async () => {
  for (const [wi, wf, wt] of [['system.matmul_eff', '0.5', '0.8'], ['system.l2_MiB', '25', '100'], ['system.nvlink_span', '8', '72']]) {
    const { page, errors } = await openPage(`v=1&tp=2&dp=4&gb=64&view=sweep&wi=${wi}&wf=${wf}&wt=${wt}&wn=4&wl=lin`);
    await done(page, 'sweep');
    assert.equal(await page.locator('#sweep-out figure.sweep-chart circle.pt').count(), 4, wi);
    assert.equal(await page.locator('#sweep-out .sweep-errors').count(), 0, `${wi}: ${await page.locator('#sweep-out').textContent()}`);
    await page.close();
    assert.deepEqual(errors, []);
  }
});

test('each study renders from its link; gpu-generations has a waterfall of cumulative speed-ups', async () => {
  const expect = {
    'gpu-generations': ['generations', 'decomposition'],
    'technology-nodes': ['devices', 'workloads'],
    'dram-scaling': ['rows'],
    'inference-boundedness': ['systems'],
    'published-runs': ['groups', 'kinds', 'rows'],
  };
  for (const [name, tables] of Object.entries(expect)) {
    const { page, errors } = await openPage(`view=study&study=${name}`);
    await done(page, 'study');
    assert.equal(await page.locator(`#study-out section.study[data-study="${name}"]`).count(), 1);
    for (const t of tables) assert.ok((await page.locator(`[data-table="${t}"] tbody tr`).count()) >= 4, `${name} ${t}`);
    assert.equal(await page.locator(`button.study-link[data-study="${name}"]`).getAttribute('aria-pressed'), 'true');
    if (name === 'gpu-generations') {
      const bars = page.locator('svg.waterfall rect.wf-bar');
      assert.equal(await bars.count(), await page.locator('[data-table="decomposition"] tbody tr').count());
      const last = await page.locator('[data-table="decomposition"] tbody tr').last().locator('td').nth(1).textContent();
      assert.match(last, /^(\d\.\d\d|\d\d\.\d)×$/, 'three significant digits');
      assert.match(await page.locator('svg.waterfall').getAttribute('aria-label'), new RegExp(last.replace('.', '\\.')));
    }
    if (name === 'technology-nodes') {
      // one bar per node, 12 nm to 1 nm
      assert.equal(await page.locator('svg.waterfall rect.wf-bar').count(), await page.locator('[data-table="workloads"] tbody tr').count());
      assert.match(await page.locator('[data-table="devices"] tbody tr').first().textContent(), /12nm/);
      // bounds name the derived device's memory as its HBM generation, not the key "hbm"
      const workloads = await page.locator('[data-table="workloads"] tbody').textContent();
      assert.doesNotMatch(workloads, /\bhbm\b/);
    }
    if (name === 'dram-scaling') {
      // bandwidths in the unit their size calls for: HBM2's 1.28 TB/s, not "1.28k GB/s"
      const bw = await page.locator('[data-table="rows"] tbody tr').first().locator('td, th').nth(3).textContent();
      assert.match(bw, /^\d\.\d\d\u00a0TB\/s$/);
    }
    if (name === 'inference-boundedness') {
      // decode on an A100 is bound by its HBM2e, on an H200 by its HBM3e; the ridge header names them
      const rows = page.locator('[data-table="systems"] tbody tr');
      assert.match(await rows.first().textContent(), /HBM2e/);
      assert.match(await page.locator('[data-table="systems"] tbody').textContent(), /HBM3e/);
      assert.doesNotMatch(await page.locator('[data-table="systems"]').textContent(), /\bhbm\b/);
      assert.match(await page.locator('[data-table="systems"] thead').textContent(), /ridge HBM2e \/ HBM3 \/ HBM3e/);
    }
    if (name === 'published-runs') {
      // a dot per measurement, at the error its table row gives
      const rows = page.locator('[data-table="rows"] tbody tr');
      const n = await rows.count();
      assert.ok(n >= 50, `${n} measurements`);
      assert.equal(await page.locator('svg.error-dots circle.pt').count(), n);
      const first = (await rows.first().locator('td').nth(3).textContent()).replace('−', '-').replace('%', '');
      const id = await rows.first().locator('th').textContent();
      const dot = Number(await page.locator(`svg.error-dots circle.pt[data-key="${id}"]`).getAttribute('data-error'));
      assert.ok(Math.abs(Number(first) / 100 - dot) < 1e-3, `${first}% against ${dot}`);
      // each value in its unit: a rate as a number, a time in seconds, memory in bytes
      const cell = (re) => rows.filter({ hasText: re }).first().locator('td').nth(1).textContent();
      assert.match(await cell(/output tokens\/s/), /^[0-9.]+k?$/);
      assert.match(await cell(/iteration time/), /^[0-9.]+\s(ms|s|min)$/);
      assert.match(await cell(/activation memory/), /^[0-9.]+\s[KMGT]iB$/);
      assert.equal(await page.locator('#study-out section.study p.chart-note', { hasText: /^\d+ measurements from \d+ sources and outputs/ }).count(), 1);
    }
    await shot(page, `study-${name}`);
    await page.close();
    assert.deepEqual(errors, []);
  }
});

test('technology-nodes takes a power budget from the page and the link', async () => {
  const { page, errors } = await openPage('view=study&study=technology-nodes&tw=1000');
  await done(page, 'study');
  assert.equal(await page.locator('#study-tdp-W').inputValue(), '1000');
  assert.match(await page.locator('#study-out section.study p.chart-note').first().textContent(), /at 1000 W/);
  const clock = async () => page.locator('[data-table="devices"] tbody tr').nth(3).locator('td').nth(1).textContent();
  const at1000 = await clock();  // 3 nm
  await page.locator('#study-tdp-W').fill('400');
  await page.waitForFunction(() => /at 400 W/.test(document.querySelector('#study-out section.study p.chart-note')?.textContent || ''));
  await done(page, 'study');
  assert.match(page.url(), /tw=400/);
  assert.ok(parseFloat(await clock()) < parseFloat(at1000), 'less power, a lower 3 nm clock');
  await page.locator('#study-tdp-W').fill('5');
  await page.waitForFunction(() => document.querySelector('[data-explore="study"] .job-bar')?.dataset.state === 'error');
  assert.match(await page.locator('#study-status').textContent(), /50\.\.10000 W/);
  await page.close();
  assert.deepEqual(errors, []);
});

test('clicking a study writes a shareable link', async () => {
  const { page, errors } = await openPage('v=1');
  await page.locator('#tab-study').click();
  await page.locator('button.study-link[data-study="dram-scaling"]').click();
  await done(page, 'study');
  assert.match(page.url(), /#v=1&view=study&study=dram-scaling$/);
  await page.close();
  assert.deepEqual(errors, []);
});

// Opens a study's link and waits for it: {page, errors, rows (its table's body rows)}.
async function openStudy(hash, table) {
  const opened = await openPage(hash);
  await done(opened.page, 'study');
  return { ...opened, rows: opened.page.locator(`[data-table="${table}"] tbody tr`) };
}

test('the systems study runs the scenario on the left on every system preset, with a bar per system', async () => {
  const { page, errors, rows } = await openStudy('v=1&view=study&study=systems&m=llama3.1-8b&dp=8&gb=64&sl=4096', 'systems');
  assert.ok((await rows.count()) >= 15, 'a row per system preset');
  // the scenario's own system first, at 1.00×; every row has a plan on 8 GPUs, a B200 node beats it
  assert.match(await rows.first().locator('th').textContent(), /^dgx-h100 \(this scenario’s system\)$/);
  assert.equal(await rows.first().locator('td').nth(3).textContent(), '1.00×');
  // GPU-hours and wall energy per million tokens, comparable across systems whatever their price
  assert.match(await rows.first().locator('td').nth(6).textContent(), /^\d[\d.,]*$/);
  assert.match(await rows.first().locator('td').nth(7).textContent(), /^\d[\d.,]*$/);
  assert.match(await page.locator('#study-out section.study p.chart-note').first().textContent(), /Llama 3\.1 8B training on 8 GPUs of each system/);
  const b200 = rows.filter({ has: page.locator('th', { hasText: /^dgx-b200$/ }) });
  assert.ok(parseFloat(await b200.locator('td').nth(3).textContent()) > 1.5);
  assert.match(await b200.locator('td').last().textContent(), /^TP \d+ · PP \d+ · DP \d+/);
  // one bar per row with a plan, the own system's drawn apart; 8 TPU v5e (16 GiB each) cannot hold it
  const v5e = rows.filter({ has: page.locator('th', { hasText: /^tpu-v5e$/ }) });
  assert.match(await v5e.locator('td').last().textContent(), /^does not fit/);
  assert.equal(await page.locator('svg.factor-bars rect.wf-bar').count(), await rows.evaluateAll((trs) => trs.filter((tr) => !/^(does not fit|error:)/.test(tr.lastElementChild.textContent)).length));
  // the V100s of a DGX-2 have no bf16: the scenario's unset precision is fp16 there, and it has a plan
  const v100 = rows.filter({ has: page.locator('th', { hasText: /^dgx-2$/ }) });
  assert.match(await v100.locator('td').last().textContent(), /^TP \d+ · PP \d+ · DP \d+/);
  assert.equal(await page.locator('svg.factor-bars rect.wf-bar').count(), (await rows.count()) - 1);
  assert.equal(await page.locator('svg.factor-bars rect.wf-bar.base').count(), 1);
  await shot(page, 'study-systems');
  await page.close();
  assert.deepEqual(errors, []);
  // in fp8 the A100s, which have no fp8, train in bf16 and their rows say so; the V100s in fp16; no row fails
  const fp8 = await openStudy('v=1&view=study&study=systems&m=llama3.1-8b&dp=8&gb=64&sl=4096&pr=fp8', 'systems');
  const a100 = fp8.rows.filter({ has: fp8.page.locator('th', { hasText: /^dgx-a100-80gb \(bf16: no fp8\)$/ }) });
  assert.match(await a100.locator('td').last().textContent(), /^TP \d+ · PP \d+ · DP \d+/);
  assert.equal(await fp8.rows.filter({ has: fp8.page.locator('th', { hasText: /^dgx-2 \(fp16: no fp8\)$/ }) }).count(), 1);
  assert.match(await fp8.rows.first().locator('th').textContent(), /^dgx-h100 \(this scenario’s system\)$/);
  assert.deepEqual(await fp8.rows.evaluateAll((trs) => trs.map((tr) => tr.lastElementChild.textContent).filter((t) => t.startsWith('error'))), []);
  assert.equal(await fp8.page.locator('svg.factor-bars rect.wf-bar').count(), await fp8.rows.evaluateAll((trs) => trs.filter((tr) => !/^(does not fit|error:)/.test(tr.lastElementChild.textContent)).length));
  await fp8.page.close();
  assert.deepEqual(fp8.errors, []);
});

// Llama 3.1 8B's training state fits no 80 GB GPU alone: with the scenario
// on one H100 the bars are over the slowest system that holds a plan (drawn
// as the base, every other bar at or above 1×), and a note says why; the
// scaling study's shares start at 2 GPUs, the fewest that fit.
test('where no plan fits on the scenario’s system or count, the speed-ups are over the slowest system or the fewest GPUs that fit', async () => {
  const { page, errors, rows } = await openStudy('v=1&view=study&study=systems&m=llama3.1-8b&tp=1&dp=1&gb=64&sl=4096', 'systems');
  assert.match(await rows.first().locator('td').last().textContent(), /^needs \d+ GiB of 80\.0 GiB$|^does not fit/);
  assert.equal(await rows.first().locator('td').nth(3).textContent(), '–');
  const note = await page.locator('#study-out p.reference-note').textContent();
  const slowest = note.match(/the speed-ups are over (\S+), the slowest system that holds one\.$/);
  assert.ok(slowest, note);
  assert.match(note, /^No plan fits on this scenario’s system \(dgx-h100\)/);
  assert.match(await page.locator('figure:has(svg.factor-bars) figcaption').textContent(), new RegExp(`^Speed-up over ${slowest[1]} `));
  const reference = rows.filter({ has: page.locator('th', { hasText: new RegExp(`^${slowest[1]}$`) }) });
  assert.equal(await reference.locator('td').nth(3).textContent(), '1.00×');
  assert.equal(await page.locator('svg.factor-bars rect.wf-bar.base').count(), 1);
  const speedups = (await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[3].textContent))).filter((t) => t !== '–').map(parseFloat);
  assert.ok(speedups.length >= 3 && speedups.every((v) => v >= 1), speedups.join(' '));
  assert.equal(await page.locator('svg.factor-bars rect.wf-bar').count(), speedups.length);
  await shot(page, 'study-systems-reference');
  await page.close();
  assert.deepEqual(errors, []);
  const scaling = await openStudy('v=1&view=study&study=scaling&m=llama3.1-8b&tp=1&dp=1&gb=64&sl=4096', 'scaling');
  assert.match(await scaling.page.locator('#study-out p.reference-note').textContent(), /^No plan fits on the scenario’s 1 GPU, so the speed-ups and shares of linear scaling are from 2 GPUs, the fewest that hold one\.$/);
  assert.match(await scaling.page.locator('figure:has(svg.scaling-chart) figcaption').textContent(), /^Share of linear scaling from 2 GPUs /);
  const second = scaling.rows.nth(1);
  assert.equal(await second.locator('th').textContent(), '2 (the fewest that fit)');
  // columns: global batch, iteration, tokens/s, MFU, speed-up, share of linear
  assert.equal(await second.locator('td').nth(4).textContent(), '1.00×');
  assert.equal(await second.locator('td').nth(5).textContent(), '100%');
  assert.equal(await scaling.rows.first().locator('td').nth(4).textContent(), '–');
  await scaling.page.close();
  assert.deepEqual(scaling.errors, []);
});

test('"Every system" and "Every model" under the result open the systems and models studies of the scenario shown', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-8b&dp=8&gb=64&sl=4096');
  await page.locator('#every-system:not([disabled])').click();
  await done(page, 'study');
  assert.match(page.url(), /&view=study&study=systems$/);
  assert.equal(await page.locator('#tab-study').getAttribute('aria-selected'), 'true');
  assert.match(await page.locator('[data-table="systems"] tbody tr').first().locator('th').textContent(), /^dgx-h100 \(this scenario’s system\)$/);
  // "Every model" beside it opens the models study
  await page.locator('#tab-calc').click();
  await page.locator('#every-model:not([disabled])').click();
  await page.locator('[data-table="models"]').waitFor();
  assert.match(page.url(), /&view=study&study=models$/);
  assert.match(await page.locator('[data-table="models"] tbody tr').first().locator('th').textContent(), /^llama3\.1-8b \(this scenario’s model\)$/);
  await page.close();
  assert.deepEqual(errors, []);
});

test('the scaling study searches the scenario at an eighth of its GPUs to eight times as many', async () => {
  const { page, errors, rows } = await openStudy('v=1&view=study&study=scaling&m=llama3.1-8b&dp=8&gb=128&sl=4096', 'scaling');
  assert.deepEqual(await rows.locator('th').allTextContents(), ['1', '2', '4', '8 (this scenario’s count)', '16', '32', '64']);
  assert.match(await rows.first().locator('td').last().textContent(), /^does not fit$/);
  const cell = async (row, header) => {
    const headers = await page.locator('[data-table="scaling"] thead th').allTextContents();
    return rows.nth(row).locator('th, td').nth(headers.indexOf(header)).textContent();
  };
  assert.equal(await cell(3, 'share of linear'), '100%');
  // strong scaling keeps the global batch; weak scaling grows it with the GPUs (128 at 8, 1,024 at 64)
  assert.equal(await cell(6, 'global batch'), '128');
  assert.equal(await cell(6, 'global batch grown with the GPUs'), '1,024');
  assert.match(await cell(6, 'its share of linear'), /^\d+(\.\d+)?%$/);
  // a dot per GPU count with a plan on each of the two lines, the x axis labelled with the counts
  assert.equal(await page.locator('svg.scaling-chart circle.pt').count(), 12);
  assert.deepEqual(await page.locator('figure:has(svg.scaling-chart) ul.legend li').allTextContents(), ['global batch kept', 'global batch grown with the GPUs']);
  assert.deepEqual((await page.locator('svg.scaling-chart text').allTextContents()).filter((t) => /^\d+$/.test(t)), ['2', '4', '8', '16', '32', '64']);
  // the note on shares above 100% comes exactly when a count beyond the scenario's passes it (either line)
  const heads = await page.locator('[data-table="scaling"] thead th').allTextContents();
  const column = async (h) => (await rows.locator(`td:nth-child(${heads.indexOf(h) + 1})`).allTextContents()).slice(4);
  const shares = [...(await column('share of linear')), ...(await column('its share of linear'))].map(parseFloat).filter(Number.isFinite);
  assert.equal(await page.locator('.superlinear-note').count(), shares.some((v) => v > 100.5) ? 1 : 0, shares.join(', '));
  await shot(page, 'study-scaling');
  await page.close();
  assert.deepEqual(errors, []);
});

test('on a TPU the scaling study counts chips: its heading, table and lines', async () => {
  const { page, errors } = await openStudy('v=1&view=study&study=scaling&m=llama3.1-8b&s=tpu-v5p&dp=8&gb=128&sl=4096', 'scaling');
  assert.equal(await page.locator('#study-out h3').textContent(), 'Chip count for this scenario (⅛× to 8× its chips, its plan searched)');
  assert.equal((await page.locator('[data-table="scaling"] thead th').allTextContents())[0], 'Chips');
  assert.deepEqual(await page.locator('figure:has(svg.scaling-chart) ul.legend li').allTextContents(), ['global batch kept', 'global batch grown with the chips']);
  assert.doesNotMatch(await page.locator('#study-out').textContent(), /GPU/);
  await page.close();
  assert.deepEqual(errors, []);
});

test('a share of linear scaling above 100% says why: Llama 3.1 405B recomputes to fit on 128 H100, not on 256', async () => {
  const { page, errors, rows } = await openStudy('v=1&view=study&study=scaling&m=llama3.1-405b&tp=8&pp=16&dp=1&gb=128&sl=8192', 'scaling');
  const headers = await page.locator('[data-table="scaling"] thead th').allTextContents();
  const at = async (gpus, header) => rows.filter({ has: page.locator('th', { hasText: new RegExp(`^${gpus}\\b`) }) }).locator('th, td').nth(headers.indexOf(header)).textContent();
  assert.match(await at(128, 'plan'), /recompute full$/);
  assert.match(await at(256, 'plan'), /recompute none$/);
  assert.ok(parseFloat(await at(256, 'share of linear')) > 100, await at(256, 'share of linear'));
  assert.equal(
    await page.locator('.superlinear-note').textContent(),
    'Above 100%: each GPU holds less when there are more, so plans too large for 128 GPUs run on more: on 128 the best plan recomputes (full) to fit, on 256 it keeps every activation.',
  );
  await page.close();
  assert.deepEqual(errors, []);
});

test('the models study puts every model preset in the scenario\'s place: cost bars for those that fit, the table smallest first', async () => {
  const { page, errors, rows } = await openStudy('v=1&view=study&study=models&m=llama3.1-8b&dp=8&gb=128&sl=4096', 'models');
  const names = await rows.locator('th').allTextContents();
  assert.equal(names[0], 'llama3.1-8b (this scenario’s model)');
  assert.ok(names.length >= 25 && names.includes('deepseek-v3') && new Set(names).size === names.length, names.join(', '));
  // a model whose training state 8 H100 cannot hold says how much its leanest plan needs
  const big = rows.filter({ has: page.locator('th', { hasText: /^llama3\.1-405b$/ }) });
  assert.match(await big.locator('td').last().textContent(), /^does not fit$/);
  assert.match(await big.locator('td').nth(4).textContent(), /^needs [\d.]+\s(GiB|TiB) of 80\.0\sGiB$/);
  // MoE models give the parameters a token uses
  const moe = rows.filter({ has: page.locator('th', { hasText: /^qwen3-30b-a3b$/ }) });
  assert.match(await moe.locator('td').first().textContent(), /^30\.5B \(3\.35B active\)$/);
  // one bar per model that fits, cheapest first, this scenario's drawn apart
  const fitting = (await rows.locator('td:last-child').allTextContents()).filter((t) => /^TP /.test(t)).length;
  assert.equal(await page.locator('svg.value-bars rect.wf-bar').count(), fitting);
  assert.equal(await page.locator('svg.value-bars rect.wf-bar.base').count(), 1);
  const values = (await page.locator('svg.value-bars text.wf-value').allTextContents()).map(Number);
  assert.deepEqual(values, [...values].sort((a, b) => a - b));
  await shot(page, 'study-models');
  await page.close();
  assert.deepEqual(errors, []);
});

test('a view that ran on the scenario is marked out of date when the scenario changes, until it runs again', async () => {
  const { page, errors, rows } = await openStudy('v=1&view=study&study=scaling&m=llama3.1-8b&dp=8&gb=128&sl=4096', 'scaling');
  const note = page.locator('#study-stale');
  assert.equal(await note.isVisible(), false);
  await page.locator('[data-key="parallelism.dp"] input').fill('16');
  await note.waitFor({ state: 'visible' });
  assert.match(await page.locator('#study-out').getAttribute('class'), /\bstale\b/);
  await page.locator('#study-run').click();
  await done(page, 'study');
  await note.waitFor({ state: 'hidden' });
  assert.match(await rows.filter({ hasText: 'this scenario' }).locator('th').textContent(), /^16 \(this scenario’s count\)$/);
  // back to the scenario it ran on: up to date again without running
  await page.locator('[data-key="parallelism.dp"] input').fill('8');
  await note.waitFor({ state: 'visible' });
  await page.locator('[data-key="parallelism.dp"] input').fill('16');
  await note.waitFor({ state: 'hidden' });
  // a fixed study does not depend on the scenario: never out of date
  await page.locator('button.study-link[data-study="dram-scaling"]').click();
  await done(page, 'study');
  await page.locator('[data-key="parallelism.dp"] input').fill('4');
  await page.waitForTimeout(300);
  assert.equal(await note.isVisible(), false);
  await page.close();
  assert.deepEqual(errors, []);
});
