// Accelerators beyond NVIDIA on the page: an AMD MI300X system (Infinity
// Fabric mesh) and a TPU v6e pod (ICI torus) evaluate, the system form
// names the network tiers by role (scale-up, scale-out), not as NVLink, and
// an L4's GDDR6 is called GDDR6.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, setup, shot, waitEvaluated } from './harness.mjs';

setup();

async function systemField(page, key) {
  const row = page.locator(`[data-key="${key}"]`).first();
  const input = row.locator('input').first();
  const value = (await input.inputValue()) || (await input.getAttribute('placeholder'));
  return { label: (await row.locator('label').first().textContent()).trim(), value: String(value).replace(/,/g, '') };
}

test('Llama 3.1 70B on 8x MI300X (tp 8, pp 4, dp 2): evaluates; the scale-up link is the 448 GB/s mesh', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&s=amd-mi300x&tp=8&pp=4&dp=2&gb=64');
  await waitEvaluated(page);
  assert.match(await page.textContent('.verdict'), /^Fits/);
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
  const up = await systemField(page, 'system.nvlink_GBps');
  assert.equal(up.label, 'scale-up link (GB/s)');
  assert.equal(up.value, '448');
  const out = await systemField(page, 'system.ib_GBps');
  assert.equal(out.label, 'scale-out link (GB/s)');
  assert.equal(out.value, '50');
  await shot(page, 'accelerators-mi300x');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Llama 3.1 8B serving on a TPU v6e pod (tp 4): evaluates with the ICI as the scale-up tier', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-8b&s=tpu-v6e&tp=4&b=16&in=1024&out=256');
  await waitEvaluated(page);
  assert.match(await page.textContent('.verdict'), /^Fits/);
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
  const span = await systemField(page, 'system.nvlink_span');
  assert.equal(span.label, 'scale-up domain (chips)');
  assert.equal(span.value, '256');
  // The form's texts that say GPU for any device say chip here (schema device_words).
  assert.equal((await systemField(page, 'system.gpus_per_node')).label, 'chips per node');
  assert.match(await page.textContent('[data-key="system.nvlink_GBps"] .help'), /^Scale-up bandwidth per chip, /);
  assert.match(await page.textContent('[data-key="system.nvlink_span"] .help'), /^Chips in one scale-up domain/);
  const marked = await page.$$eval('[data-key="system.nvlink_GBps"], [data-key="system.nvlink_span"], [data-key="system.ib_GBps"], [data-key="system.gpus_per_node"], [data-key="inference.prefill_tp"], [data-key="cost.gpu_hour_usd"]', (rows) => rows.map((r) => r.textContent).join(' '));
  assert.doesNotMatch(marked, /GPU/);
  // the attention kernel's help is about GPUs as such and keeps their name
  assert.match(await page.textContent('[data-key="training.attention_kernel"] .help'), /best on the GPU/);
  // A TPU is counted in chips, as Google counts it, not in GPUs.
  assert.equal((await page.textContent('.card[data-key="gpus"] dt')).trim(), 'Chips');
  assert.match(await page.textContent('.card[data-key="memory"] dt'), /^Memory \/ chip$/);
  assert.match(await page.textContent('.card[data-key="output_tokens_per_s"]'), /per replica \(4 chips\)/);
  assert.match(await page.textContent('.verdict'), /^Fits: .* per chip /);
  assert.doesNotMatch(await page.textContent('.summary'), /GPU/);
  // nor do the charts' notes (the request's time, the KV cache per layer type)
  assert.match(await page.textContent('figure.kv-box .chart-note'), /^One chip of the most loaded stage/);
  assert.doesNotMatch(await page.textContent('#results'), /GPU/);
  // back on a GPU system the form says GPU again
  await page.selectOption('[data-key="system"] select', 'dgx-h100');
  await page.waitForFunction(() => document.querySelector('[data-key="system.nvlink_span"] label')?.textContent.includes('GPUs'));
  assert.equal((await systemField(page, 'system.nvlink_span')).label, 'scale-up domain (GPUs)');
  assert.equal((await systemField(page, 'system.gpus_per_node')).label, 'GPUs per node');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Llama 3.1 70B on an 8x Gaudi 3 server (tp 8): evaluates on the 525 GB/s RoCE mesh, compute-bound', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&s=intel-gaudi3&tp=8&pp=4&dp=2&gb=64');
  await waitEvaluated(page);
  assert.match(await page.textContent('.verdict'), /^Fits/);
  // The MMEs with the SRAM as the GEMM scratchpad: the step is compute-bound, not HBM-bound.
  assert.match(await page.textContent('.verdict'), /compute/);
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
  const up = await systemField(page, 'system.nvlink_GBps');
  assert.equal(up.label, 'scale-up link (GB/s)');
  assert.equal(up.value, '525');
  // No published run was on a Gaudi: the validation line says so.
  assert.match(await page.textContent('.summary .accuracy-note p'), /None of these runs was on the Gaudi 3 OAM 128GB/);
  // Intel's word for the device, and no PyTorch-eager what-if: the graph
  // compiler fuses element-wise work on a Gaudi.
  assert.equal((await page.textContent('.card[data-key="gpus"] dt')).trim(), 'HPUs');
  assert.equal((await page.textContent('.card[data-key="tflops_per_gpu"] dt')).trim(), 'Per HPU');
  assert.equal(await page.locator('.fusion-note').count(), 0);
  await shot(page, 'accelerators-gaudi3');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Llama 3.1 8B served on an L4: the GDDR6 device memory is called GDDR6, not HBM, in the verdict and charts', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-8b&s=l4&b=8&in=512&out=128');
  await waitEvaluated(page);
  const verdict = await page.textContent('.verdict');
  assert.match(verdict, /Decode is GDDR6-bound/);
  assert.doesNotMatch(verdict, /hbm/i);
  // The roofline's outermost roof and the phase chart's ridge carry the label;
  // the dots keep the level's name as their data key.
  const roofs = await page.locator('figure.roofline-box text.roof-label').allTextContents();
  assert.ok(roofs.includes('GDDR6'), roofs.join(' | '));
  assert.match((await page.locator('figure.chart-phases text.ridge-label').allTextContents()).at(-1), /^GDDR6 ridge \d+/);
  assert.ok((await page.locator('figure.roofline-box circle[data-bound="hbm"]').count()) > 0);
  assert.ok((await page.locator('figure.roofline-box ul.legend').textContent()).includes('GDDR6-bound'));
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
  const head = await page.$$eval('table.ops thead th', (ths) => ths.map((t) => t.textContent));
  assert.ok(head.some((h) => h.includes('bytes (GDDR6)')), head.join(' | '));
  // and the form's system figures (schema device_words)
  assert.equal((await systemField(page, 'system.hbm_GiB')).label, 'GDDR6 (GiB)');
  assert.equal((await systemField(page, 'system.hbm_GBps')).label, 'GDDR6 (GB/s)');
  assert.equal(await page.textContent('[data-key="system.hbm_GBps"] .help'), 'Device memory (GDDR6) bandwidth.');
  await shot(page, 'accelerators-l4');
  assert.deepEqual(errors, []);
  await page.close();
});

// The Search view and "Find a plan that fits" count a TPU's chips too: the
// count's label, the search's warning, the closest plan, the heatmap's key
// and the table's header; the button offers more chips.
test('on a TPU v5p the search and the fit button count chips, not GPUs', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&s=tpu-v5p&tp=8&gb=64&view=search');
  const searchDone = () => page.waitForFunction(() => document.querySelector('[data-explore="search"] .job-bar')?.dataset.state === 'done', null, { timeout: 60000 });
  await searchDone();
  assert.equal((await page.locator('label[for="search-gpus"]').textContent()).trim(), 'Chips');
  assert.equal(await page.locator('#search-out ul.warnings').textContent(), 'no configuration fits in memory on 8 chips');
  assert.match(await page.locator('.closest-plan').textContent(), /needs [0-9.]+\sGiB per chip of 95\.0\sGiB\./);
  assert.match(await page.locator('.heatmap-box .chart-note').textContent(), /TP × PP is more chips than searched\./);
  // 16 chips hold the 70B's training: the plan table's headers
  await page.locator('#search-gpus').fill('16');
  await page.locator('[data-explore="search"] button', { hasText: 'Run search' }).click();
  await page.waitForFunction(() => document.querySelector('table.plans'), null, { timeout: 60000 });
  await searchDone();
  const headers = await page.$$eval('table.plans thead th', (ths) => ths.map((t) => t.textContent));
  assert.ok(headers.includes('memory per chip'), headers.join(' | '));
  assert.doesNotMatch(await page.textContent('#search-out'), /GPU/);
  // the view's introduction too
  assert.match(await page.locator('[data-explore="search"] > p.chart-note').textContent(), /^Every TP × PP × DP × CP split of the chips .* added per chip\)/);
  // The calculator's button on the 8 chips the form gives
  await page.locator('#tab-calc').click();
  await waitEvaluated(page);
  const button = page.locator('#fit-plan');
  assert.equal(await button.textContent(), 'Find a plan that fits on these 8 chips');
  await button.click();
  await page.waitForFunction(() => /^No plan fits on 8 chips/.test(document.querySelector('#fit-status')?.textContent || ''), null, { timeout: 60000 });
  const status = await page.locator('#fit-status').textContent();
  assert.match(status, /per chip of 95\.0\sGiB\. More chips/);
  assert.doesNotMatch(status, /GPU/);
  // a TPU slice doubles (its node is the whole ICI torus, 6,144 chips): 16 hold the leanest plan
  assert.equal(await button.textContent(), 'Find a plan that fits on 16 chips');
  // the Studies view's introduction and its scaling study's button
  await page.locator('#tab-study').click();
  assert.equal((await page.locator('button.study-link[data-study="scaling"]').textContent()).trim(), 'Chip count, ⅛× to 8×');
  assert.match(await page.locator('[data-explore="study"] > p.chart-note').textContent(), /at ⅛× to 8× its chips,/);
  assert.deepEqual(errors, []);
  await page.close();
});
