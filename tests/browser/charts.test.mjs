// Charts (SVG, asserted on their elements) and export: the pipeline schedule,
// the prefill-vs-decode boundedness chart, JSON / CSV / SVG / PNG downloads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { openPage, setup, shot, waitEvaluated } from './harness.mjs';

setup();

test('pipeline schedule: one row per stage, F and B boxes, bubble; truncated past 32 micro-batches', async () => {
  const { page, errors } = await openPage('v=1&pp=4&gb=8');
  await waitEvaluated(page);
  const fig = page.locator('figure.chart-pipeline');
  assert.equal(await fig.getAttribute('data-truncated'), 'false');
  const count = (sel) => page.locator(`figure.chart-pipeline ${sel}`).count();
  assert.equal(await count('rect.pipe-op[data-kind="F"]'), 4 * 8);
  assert.equal(await count('rect.pipe-op[data-kind="B"]'), 4 * 8);
  // stage 3 (last) starts only after stage 0..2 have passed micro-batch 1 forward
  const first = await page.$$eval('figure.chart-pipeline rect.pipe-op[data-kind="F"][data-mb="0"]', (rs) => rs.map((r) => [Number(r.dataset.stage), Number(r.getAttribute('x'))]));
  first.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < first.length; i++) assert.ok(first[i][1] > first[i - 1][1], 'forward moves down the pipeline');
  assert.match(await fig.textContent(), /idle \(bubble\)/);
  assert.match(await fig.textContent(), /8 layers per stage\./);  // Llama 3.1 8B's 32 layers on 4 stages
  await shot(page, 'training-pipeline');
  await page.close();

  // One stage has no pipeline: the figure says so rather than naming a schedule.
  const one = await openPage('v=1&gb=16');
  await waitEvaluated(one.page);
  const ofig = one.page.locator('figure.chart-pipeline');
  assert.equal(await ofig.locator('figcaption').textContent(), 'Micro-batches of one iteration (no pipeline)');
  assert.match(await ofig.textContent(), /No pipeline parallelism \(pp 1\): the 16 micro-batches of one iteration run back to back/);
  assert.doesNotMatch(await ofig.textContent(), /idle \(bubble\)|point-to-point/);
  await one.page.close();

  const big = await openPage('v=1&pp=8&gb=1536&ps=interleaved&vs=2');
  await waitEvaluated(big.page);
  const bfig = big.page.locator('figure.chart-pipeline');
  assert.equal(await bfig.getAttribute('data-truncated'), 'true');
  assert.match(await bfig.textContent(), /first 32 of 1536 micro-batches/);
  const mbs = await big.page.$$eval('figure.chart-pipeline rect.pipe-op', (rs) => new Set(rs.map((r) => r.dataset.mb)).size);
  assert.equal(mbs, 32);
  assert.equal(await big.page.locator('figure.chart-pipeline rect.pipe-op[data-chunk="1"]').count(), 8 * 32 * 2);
  await big.page.close();
  // 32 layers on 3 stages: 11, 11 and the last, with the LM head, 10.
  const uneven = await openPage('v=1&pp=3&gb=6');
  await waitEvaluated(uneven.page);
  assert.match(await uneven.page.locator('figure.chart-pipeline').textContent(), /11 layers per stage, 10 on the one with the LM head\./);
  await uneven.page.close();
  assert.deepEqual([...errors, ...one.errors, ...big.errors, ...uneven.errors], []);
});

// Megatron's interleaved order runs the micro-batches in groups of pp: a
// shortened drawing keeps whole groups (24 of 48 on 12 stages, where 32 left
// a part group and the drawing stalled half-laid-out), and a run whose count
// leaves a part group is not drawn but said (the core warns of it too).
test('interleaved pipeline: the drawing keeps whole groups of pp micro-batches; a part group is said, not drawn', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&tp=8&pp=12&dp=1&sp=1&ps=interleaved&vs=2&gb=48');
  await waitEvaluated(page);
  const fig = page.locator('figure.chart-pipeline');
  assert.match(await fig.textContent(), /first 24 of 48 micro-batches/);
  assert.equal(await page.locator('figure.chart-pipeline rect.pipe-op').count(), 12 * 24 * 2 * 2);
  assert.doesNotMatch(await fig.textContent(), /could not be laid out|schedule is not drawn/);
  await page.close();
  const part = await openPage('v=1&m=llama3.1-70b&tp=8&pp=8&dp=1&sp=1&ps=interleaved&vs=2&gb=20');
  await waitEvaluated(part.page);
  const pfig = part.page.locator('figure.chart-pipeline');
  assert.match(await pfig.textContent(), /in groups of 8 \(the stages\); 20 leave a part group, which that order cannot lay out, so the schedule is not drawn\./);
  assert.equal(await part.page.locator('figure.chart-pipeline svg').count(), 0);
  assert.doesNotMatch(await pfig.textContent(), /idle \(bubble\)/);
  assert.match(await part.page.locator('ul.warnings').textContent(), /needs micro-batches divisible by pp/);
  await part.page.close();
  // DualPipe needs at least 2 x pp micro-batches, an even count
  const dual = await openPage('v=1&tp=2&pp=4&dp=1&gb=6&ps=dualpipe');
  await waitEvaluated(dual.page);
  assert.match(await dual.page.locator('figure.chart-pipeline').textContent(), /at least 8 micro-batches, an even count \(here 4 stages, 6 micro-batches\), so the schedule is not drawn\./);
  await dual.page.close();
  assert.deepEqual([...errors, ...part.errors, ...dual.errors], []);
});

test('ZB-H1 from the link: weight-gradient boxes fill the bubble, which shrinks against 1F1B', async () => {
  const idle = async (hash) => {
    const { page, errors } = await openPage(hash);
    await waitEvaluated(page);
    const text = await page.locator('figure.chart-pipeline').textContent();
    const w = await page.locator('figure.chart-pipeline rect.pipe-op[data-kind="W"]').count();
    if (w) await shot(page, 'training-zero-bubble');
    assert.deepEqual(errors, []);
    await page.close();
    return { share: Number(/idle \(bubble\) ([\d.]+)%/.exec(text)[1]), w, text };
  };
  const one = await idle('v=1&pp=4&gb=8');
  const zb = await idle('v=1&pp=4&gb=8&ps=zb_h1');
  assert.equal(one.w, 0);
  assert.equal(zb.w, 4 * 8, 'one W per micro-batch and stage');
  assert.match(zb.text, /ZB-H1 zero bubble/);
  assert.match(zb.text, /weight gradient/);
  assert.ok(zb.share < one.share, `${zb.share}% vs ${one.share}%`);
});

// DualPipe (DeepSeek-V3 §3.2.1): micro-batches from both ends, twice the
// weights per GPU, a smaller bubble than 1F1B at the same plan.
test('DualPipe from the link: both directions on every stage, twice the weights, less idle time than 1F1B', async () => {
  const look = async (hash) => {
    const { page, errors } = await openPage(hash);
    await waitEvaluated(page);
    const fig = page.locator('figure.chart-pipeline');
    const text = await fig.textContent();
    const dirs = await fig.locator('rect.pipe-op[data-kind="F"]').evaluateAll((rs) => [...new Set(rs.map((r) => `${r.dataset.stage}.${r.dataset.chunk}`))].length);
    const weights = Number(/weights[^\d]*([\d.]+)\sGiB/.exec(await page.locator('figure[data-view="memory"]').textContent())[1]);
    if (/DualPipe/.test(text)) await shot(page, 'training-dualpipe');
    assert.deepEqual(errors, []);
    await page.close();
    return { share: Number(/idle \(bubble\) ([\d.]+)%/.exec(text)[1]), dirs, text, weights };
  };
  const one = await look('v=1&tp=2&pp=4&dp=1&gb=32');
  const dual = await look('v=1&tp=2&pp=4&dp=1&gb=32&ps=dualpipe');
  assert.match(dual.text, /Pipeline schedule \(DualPipe\)/);
  assert.match(dual.text, /half the micro-batches enter at stage 0, half at the last stage/);
  assert.equal(one.dirs, 4, 'one direction');
  assert.equal(dual.dirs, 8, 'forwards of both directions on each of the 4 stages');
  assert.ok(Math.abs(dual.weights / one.weights - 2) < 0.05, `${dual.weights} vs ${one.weights} GiB`);
  assert.ok(dual.share < one.share, `${dual.share}% vs ${one.share}%`);
});

test('inference: prefill vs decode chart with ridge lines, per-op dots and time by bound', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=8&b=8');
  await waitEvaluated(page);
  const fig = page.locator('figure.chart-phases');
  await fig.waitFor();
  for (const phase of ['prefill', 'decode']) {
    assert.ok((await page.locator(`figure.chart-phases circle[data-phase="${phase}"]`).count()) > 5, `${phase} dots`);
    const shares = await page.$$eval(`figure.chart-phases rect.seg[data-phase="${phase}"]`, (rs) => rs.map((r) => Number(r.getAttribute('width'))));
    assert.ok(shares.length >= 1);
  }
  assert.ok((await page.locator('figure.chart-phases line.ridge').count()) >= 3, 'a ridge per memory level');
  // each memory level's ridge named (on a wide screen there is room for all), the outermost with its value;
  // the note tells the lighter (achievable) one apart
  const ridgeLabels = await page.locator('figure.chart-phases text.ridge-label').allTextContents();
  assert.equal(ridgeLabels.length, (await page.locator('figure.chart-phases line.ridge:not(.achievable)').count()), ridgeLabels.join(' | '));
  assert.ok(ridgeLabels.some((t) => /^HBM3 ridge \d+$/.test(t)), ridgeLabels.join(' | '));
  assert.match(await fig.locator('p.chart-note').textContent(), /Dashed lines: ridge points, the peak ÷ the bandwidth of each memory level; the lighter one, the achievable rate ÷ the HBM3 bandwidth \(\d+ FLOP\/byte\)\./);
  // prefill's GEMMs are compute-bound, decode's are memory-bound
  const bounds = await page.$$eval('figure.chart-phases circle', (cs) => cs.map((c) => `${c.dataset.phase}:${c.dataset.op}:${c.dataset.bound}`));
  assert.ok(bounds.includes('prefill:mlp.up:compute'), bounds.join(' '));
  assert.ok(bounds.includes('decode:mlp.up:hbm'), bounds.join(' '));
  assert.match(await fig.locator('svg').getAttribute('aria-label'), /prefill: .*compute-bound/);
  // the roofline colours a bound as the phase chart does (one key for both charts)
  const colours = (sel) => page.$$eval(sel, (lis) => Object.fromEntries(lis.map((li) => [li.dataset.bound, getComputedStyle(li.querySelector('.swatch')).backgroundColor])));
  const phaseKey = await colours('figure.chart-phases ul.legend li');
  const roofKey = await colours('figure.roofline-box ul.legend li');
  assert.ok(Object.keys(roofKey).length >= 2, JSON.stringify(roofKey));
  for (const [bound, colour] of Object.entries(roofKey)) if (bound in phaseKey) assert.equal(colour, phaseKey[bound], bound);
  const dot = await page.$eval('figure.roofline-box circle[data-bound="hbm"]', (c) => getComputedStyle(c).fill);
  assert.equal(dot, roofKey.hbm);
  assert.equal(await page.locator('figure.chart-pipeline').count(), 0, 'no pipeline chart for inference');
  // every chart is Plot's SVG without its inline <style> (the CSP would refuse it)
  const plots = await page.$$eval('svg.chart', (ss) => ss.map((s) => [s.classList.contains('lc-plot'), s.querySelectorAll('style').length, s.getAttribute('role')]));
  assert.ok(plots.length >= 4, `charts: ${plots.length}`);
  for (const p of plots) assert.deepEqual(p, [true, 0, 'img']);
  await shot(page, 'inference-phases');
  await page.close();
  assert.deepEqual(errors, []);
});

async function saved(page, click) {
  const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: dl.suggestedFilename(), body: readFileSync(await dl.path()) };
}

test('export: scenario + result JSON, ops CSV, text summary, each chart as SVG and PNG', async () => {
  const { page, errors } = await openPage('v=1&pp=2&gb=16');
  await waitEvaluated(page);
  const json = await saved(page, () => page.locator('#export-json').click());
  assert.match(json.name, /\.json$/);
  const doc = JSON.parse(json.body.toString());
  assert.equal(doc.scenario.parallelism.pp, 2);
  assert.ok(doc.result.training.iteration_time_s > 0);

  const csv = await saved(page, () => page.locator('#export-csv').click());
  const lines = csv.body.toString().trim().split(/\r\n/);
  assert.match(lines[0], /^index,name,phase,kind,count,flops,bytes_hbm/);
  assert.equal(lines.length - 1, doc.result.ops.length);

  // The text summary is the CLI's run --text for the same scenario.
  const txt = await saved(page, () => page.locator('#export-text').click());
  assert.match(txt.name, /\.txt$/);
  const summary = txt.body.toString();
  assert.match(summary, /^Training Llama 3\.1 8B on \d+ × H100 SXM5 80GB \(DGX H100\), bf16\n/);
  assert.match(summary, /\nplan {20}tp \d+ · pp 2 · /);
  assert.match(summary, /\niteration time {10}\S+ (s|ms|min), bound by /);

  for (const view of ['memory', 'time', 'pipeline', 'roofline']) {
    const svgFile = await saved(page, () => page.locator(`[data-view="${view}"] button.export-svg`).click());
    const text = svgFile.body.toString();
    assert.match(svgFile.name, new RegExp(`-${view}\\.svg$`));
    assert.match(text, /^<\?xml[^]*<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.doesNotMatch(text, /class="/, 'styles are inlined as attributes');
    assert.match(text, /fill="rgb\(/);
  }
  const png = await saved(page, () => page.locator('[data-view="memory"] button.export-png').click());
  assert.match(png.name, /-memory\.png$/);
  assert.deepEqual([...png.body.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(png.body.length > 2000);
  await page.close();
  assert.deepEqual(errors, []);
});

// Each part of the iteration-time bar has its own colour, the legend's swatch
// the segment's: with eleven parts, the optimizer once wrapped to compute's blue.
test('time breakdown: every part in a colour of its own, legend matching the bar', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-8b&tp=2&dp=4');
  await waitEvaluated(page);
  const parts = await page.$$eval('figure.chart-time ul.legend li', (items) =>
    items.map((li) => {
      const seg = document.querySelector(`figure.chart-time svg [data-key="${li.dataset.key}"]`);
      return { key: li.dataset.key, swatch: getComputedStyle(li.querySelector('.swatch')).backgroundColor, fill: seg && getComputedStyle(seg).fill };
    }),
  );
  assert.ok(parts.some((p) => p.key === 'optimizer') && parts.some((p) => p.key === 'compute'), JSON.stringify(parts));
  for (const p of parts) assert.equal(p.fill, p.swatch, p.key);
  assert.equal(new Set(parts.map((p) => p.swatch)).size, parts.length, JSON.stringify(parts));
  assert.deepEqual(errors, []);
  await page.close();
});

test('what twice as fast buys: a bar per part the job uses, HBM for decode, compute for prefill', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=8&b=1');
  await waitEvaluated(page);
  const fig = page.locator('figure.chart-what-if');
  await fig.waitFor();
  const bars = await page.$$eval('figure.chart-what-if rect.seg', (rs) => rs.map((r) => ({ part: r.dataset.part, metric: r.dataset.metric, s: Number(r.dataset.speedup), w: Number(r.getAttribute('width')) })));
  // compute, HBM, NVLink (8 GPUs in one node) and the fixed latencies, for each of the two headline times
  assert.deepEqual([...new Set(bars.map((b) => b.part))], ['compute', 'memory', 'network.0', 'latency']);
  assert.deepEqual([...new Set(bars.map((b) => b.metric))], ['ttft_s', 'tpot_s']);
  for (const b of bars) assert.ok(b.s >= 1 && b.s <= 2, JSON.stringify(b));
  const at = (part, metric) => bars.find((b) => b.part === part && b.metric === metric);
  assert.ok(at('memory', 'tpot_s').s > at('compute', 'tpot_s').s, 'decode is memory-bound');
  assert.ok(at('memory', 'tpot_s').w > at('compute', 'tpot_s').w, 'the longer bar for the larger speed-up');
  assert.ok(at('compute', 'ttft_s').s > at('memory', 'ttft_s').s, 'prefill is compute-bound');
  const labels = await fig.locator('svg text').allTextContents();
  assert.ok(labels.includes('HBM3 bandwidth') && labels.includes('scale-up link (nvlink)'), labels.join(' | '));
  assert.match(await fig.locator('p.chart-note').textContent(), /The time per output token gains most from HBM3 bandwidth: 1\.\d+× \(\d+(\.\d)?% less time\)\./);
  // each part keeps its colour: HBM's bar is the same colour in both strips and on a two-node plan
  const colour = (sel) => page.$$eval(sel, (rs) => rs.map((r) => getComputedStyle(r).fill));
  const hbm = await colour('figure.chart-what-if rect.seg[data-part="memory"]');
  assert.equal(new Set(hbm).size, 1, hbm.join(' '));
  // the verdict names the part that buys most for each headline time
  assert.match(await page.locator('.verdict').textContent(), /Of each part twice as fast, \S.* gains the first token the most \(1\.\d+×\), HBM3 bandwidth each next token \(1\.\d+×\)\./);
  // the same chart as an embed view
  const embed = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=8&b=1&embed=1&view=whatif');
  await waitEvaluated(embed.page);
  assert.equal(await embed.page.locator('figure.chart-what-if').count(), 1);
  assert.equal(await embed.page.locator('figure.chart-memory').count(), 0);
  await embed.page.close();
  const wide = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=8&b=16&ptp=8');
  await waitEvaluated(wide.page);
  const latency = async (p) => p.$eval('figure.chart-what-if rect.seg[data-part="latency"]', (r) => getComputedStyle(r).fill);
  assert.ok((await wide.page.locator('figure.chart-what-if rect.seg[data-part="network.1"]').count()) > 0, 'the prefill instance reaches InfiniBand');
  assert.equal(await latency(wide.page), await latency(page), 'the latency bar keeps its colour with a scale-out row');
  await wide.page.close();
  await shot(page, 'what-if');
  assert.deepEqual(errors, []);
  await page.close();
});
