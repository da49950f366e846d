// The first screen and the way out of "does not fit": a first visit (no
// hash) shows the schema's example, a plan people run that fits; old links
// still mean what they meant; a scenario that does not fit offers to search
// for a plan on the same GPUs and applies the best one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, setup, shot, waitEvaluated } from './harness.mjs';

setup();

const card = (page, key) => page.locator(`#results [data-key="${key}"] .value`).textContent();

test('the first screen is a plan that fits: Llama 3.1 8B on one 8-GPU H100 node', async () => {
  const { page, errors } = await openPage('', { viewport: { width: 1366, height: 900 } });
  await waitEvaluated(page);
  const verdict = await page.locator('#results .verdict').textContent();
  assert.match(verdict, /^Fits: /);
  assert.doesNotMatch(await page.locator('#results').textContent(), /Does not fit/);
  assert.equal(await page.locator('#fit-plan').count(), 0, 'nothing to fix');
  assert.equal(await card(page, 'gpus'), '8');
  assert.match(await page.locator('.result-title').textContent(), /Llama 3\.1 8B on DGX H100/);
  // the link holds the plan, relative to the defaults every older link used
  assert.match(page.url(), /#v=1&tp=2&dp=4&sp=1&z=1&gb=256&sl=8192$/);
  assert.equal(await page.locator('[data-key="parallelism.tp"] input').inputValue(), '2');
  // every headline figure sits inside its card, with room to spare
  const cramped = await page.evaluate(() =>
    [...document.querySelectorAll('#results .card .value')]
      .filter((v) => v.getBoundingClientRect().right > v.closest('.card').getBoundingClientRect().right - 6)
      .map((v) => v.closest('.card').dataset.key),
  );
  assert.deepEqual(cramped, []);
  await shot(page, 'first-screen');
  // Reset after a change comes back to it
  await page.locator('[data-key="parallelism.tp"] input').fill('8');
  await page.waitForFunction(() => location.hash.includes('tp=8'));
  await page.locator('#reset').click();
  await page.waitForFunction(() => /#v=1&tp=2&dp=4&sp=1&z=1&gb=256&sl=8192$/.test(location.href));
  await waitEvaluated(page);
  assert.match(await page.locator('#results .verdict').textContent(), /^Fits: /);
  await page.close();
  assert.deepEqual(errors, []);
});

test('an old link means what it meant: #v=1 is still the schema defaults (one GPU, does not fit)', async () => {
  const { page, errors } = await openPage('v=1');
  await waitEvaluated(page);
  assert.equal(await card(page, 'gpus'), '1');
  assert.match(await page.locator('#results .verdict').textContent(), /^Does not fit/);
  assert.equal(await page.locator('#fit-plan').textContent(), 'Find a plan that fits on this GPU');
  await page.close();
  assert.deepEqual(errors, []);
});

test('"Find a plan that fits on these 8 GPUs" searches in a worker and applies the best plan, which fits', async () => {
  const { page, errors } = await openPage('v=1&dp=8&gb=256&sl=8192&rc=none&mb=4');
  await waitEvaluated(page);
  assert.match(await page.locator('#results .verdict').textContent(), /^Does not fit/);
  const button = page.locator('#fit-plan');
  assert.equal(await button.textContent(), 'Find a plan that fits on these 8 GPUs');
  await shot(page, 'does-not-fit');
  const before = page.url();
  await button.click();
  await page.locator('#results .plan-note').waitFor({ timeout: 60000 });
  await waitEvaluated(page);
  assert.match(await page.locator('#results .verdict').textContent(), /^Fits: /);
  assert.equal(await card(page, 'gpus'), '8', 'on the same GPUs');
  assert.match(await page.locator('#results .plan-note').textContent(), /Plan found by the search \(the best of [\d,]+ tried on 8 GPUs(; the \d+ faster plans? carr(y|ies) warnings, listed in the Search view)?\): TP \d+ · PP \d+ · DP \d+/);
  // not one the calculator warns about (the fastest plans often fit with under 5% to spare)
  assert.equal(await page.locator('#results ul.warnings li').count(), 0);
  assert.notEqual(page.url(), before, 'the plan is in the link');
  assert.doesNotMatch(page.url(), /view=/, 'still the calculator');
  await shot(page, 'fit-plan-applied');
  // Back returns to the plan that did not fit
  await page.goBack();
  await page.waitForFunction((u) => location.href === u, before);
  await waitEvaluated(page);
  assert.match(await page.locator('#results .verdict').textContent(), /^Does not fit/);
  await page.close();
  assert.deepEqual(errors, []);
});

// Opens `hash` on one GPU where nothing fits, presses the button and checks
// the plan it applies: its note, the host memory on the card, the link.
async function fitsByOffloading(hash, note, memory, link) {
  const { page, errors } = await openPage(hash);
  await waitEvaluated(page);
  assert.match(await page.locator('#results .verdict').textContent(), /^Does not fit/);
  await page.locator('#fit-plan').click();
  await page.locator('#results .plan-note').waitFor({ timeout: 60000 });
  await waitEvaluated(page);
  assert.match(await page.locator('#results .plan-note').textContent(), note);
  assert.match(await page.locator('#results .verdict').textContent(), /^Fits: /);
  assert.match(await page.locator('#results .card[data-key="memory"]').textContent(), memory);
  assert.match(page.url(), link, 'the offload is in the link');
  await page.close();
  assert.deepEqual(errors, []);
}

test('when nothing fits in GPU memory, the button offloads the optimizer to host memory', () =>
  fitsByOffloading('v=1',
    /^No plan fits in GPU memory alone; with the optimizer offloaded to host memory \(ZeRO-Offload\), the best of [\d,]+ tried on 1 GPU: TP 1 · PP 1 · DP 1 · .*optimizer offloaded\./,
    /in host memory/, /ofl=optimizer/));

test('Llama 3.1 70B on one H100: the button offloads the weights too (ZeRO-Infinity), the host being the whole node\'s', () =>
  fitsByOffloading('v=1&m=llama3.1-70b',
    /^No plan fits in GPU memory alone; with the weights and optimizer offloaded to host memory \(ZeRO-Infinity\), the best of [\d,]+ tried on 1 GPU[^:]*: .*ZeRO 3 · .*weights and optimizer offloaded\./,
    /in host memory \(of 2\.00\s*TiB\)/, /ofl=parameters/));

// Opens `hash` on one GPU, presses the button and waits for "No plan fits on 1 GPU".
async function noPlanOnOneGpu(hash) {
  const opened = await openPage(hash);
  await waitEvaluated(opened.page);
  await opened.page.locator('#fit-plan').click();
  await opened.page.waitForFunction(() => /No plan fits on 1 GPU/.test(document.querySelector('#fit-status')?.textContent || ''), null, { timeout: 60000 });
  return opened;
}

// Presses the button, now offering `gpus`, and checks the applied plan fits on them.
async function fitsOnOffered(page, gpus) {
  const button = page.locator('#fit-plan');
  assert.equal(await button.textContent(), `Find a plan that fits on ${gpus} GPUs`);
  await button.click();
  await page.locator('#results .plan-note').waitFor({ timeout: 60000 });
  await waitEvaluated(page);
  assert.match(await page.locator('#results .verdict').textContent(), /^Fits: /);
  assert.equal(await card(page, 'gpus'), String(gpus));
}

test('when no plan fits on the GPUs, the button offers a whole node and that plan fits', async () => {
  const { page, errors } = await noPlanOnOneGpu('v=1&m=mistral-large-2');
  // ... not even with the optimizer in host memory, and says by how much the leanest plan misses
  assert.match(await page.locator('#fit-status').textContent(), /plans tried, also with the optimizer and then the weights offloaded to host memory\)/);
  // its 123B parameters at 18 bytes are 2.2 TB, more than the DGX's 2 TiB of host memory: the plans that
  // fit the GPU with everything offloaded are counted apart, and the closest plan is the leanest of the rest
  assert.match(await page.locator('#fit-status').textContent(), /\)\. [\d,]+ of them fit in GPU memory but offload more than the host memory holds\. /);
  assert.match(await page.locator('#fit-status').textContent(), /The closest plan \(TP 1 · PP 1 · DP 1 · ZeRO 3 · micro-batch \d+ · recompute full · weights and optimizer offloaded\) needs [0-9.]+\s[GT]iB per GPU of 80\.0\sGiB\./);
  await fitsOnOffered(page, 8);
  await page.close();
  assert.deepEqual(errors, []);
});

test('when the leanest plan needs many GPUs, the button skips the counts that cannot hold it', async () => {
  // DeepSeek-V3 serving on one H100: 1.22 TiB per GPU of 80 GiB, so at least 16 GPUs; the node (8) is skipped
  const { page, errors } = await noPlanOnOneGpu('v=1&mode=inference&m=deepseek-v3');
  assert.match(await page.locator('#fit-status').textContent(), /needs 1\.22\sTiB per GPU of 80\.0\sGiB\. More GPUs \(at least 16 to hold that memory\)/);
  await fitsOnOffered(page, 16);
  assert.doesNotMatch(await page.locator('#results .plan-note').textContent(), /1f1b/, 'a serving plan names no training schedule');
  await page.close();
  assert.deepEqual(errors, []);
});

// A serving scenario that does not fit, opened from `hash`: the button finds
// a plan with narrower weights; returns the page and the note it applied.
async function narrowedFromPage(hash) {
  const opened = await openPage(hash);
  const { page } = opened;
  await waitEvaluated(page);
  assert.match(await page.locator('#results .verdict').textContent(), /^Does not fit/);
  await page.locator('#fit-plan').click();
  await page.locator('#results .plan-note').waitFor({ timeout: 60000 });
  await waitEvaluated(page);
  assert.match(await page.locator('#results .verdict').textContent(), /^Fits: /);
  return { ...opened, note: await page.locator('#results .plan-note').textContent() };
}

test('DeepSeek-V3 in bf16 on eight H200: the button finds no 16-bit plan and applies one with fp8 weights and math, as released', async () => {
  const { page, errors, note } = await narrowedFromPage('v=1&mode=inference&m=deepseek-v3&s=dgx-h200&tp=8');
  assert.match(note, /^No plan fits with bf16 weights; with fp8 weights and fp8 math \(W8A8\), the format the model is released in, the best of [\d,]+ tried on 8 GPUs[^:]*: TP \d+ · [^.]*\. Back returns/);
  assert.equal(await card(page, 'gpus'), '8', 'on the same GPUs');
  assert.match(page.url(), /[#&]wp=fp8(&|$)/, 'the weight precision is in the link');
  assert.match(page.url(), /[#&]ic=fp8(&|$)/, 'and the math precision');
  await page.close();
  assert.deepEqual(errors, []);
});

test('gpt-oss-120b in bf16 on one H100: the button serves it as released, in mxfp4, not in int4', async () => {
  const { page, errors, note } = await narrowedFromPage('v=1&mode=inference&m=gpt-oss-120b');
  assert.match(note, /^No plan fits with bf16 weights; with mxfp4 weights \(weight-only kernels, bf16 math\), the format the model is released in, the best of [\d,]+ tried on 1 GPU/);
  assert.doesNotMatch(note, /output quality/, 'the released checkpoint needs no caveat on quality');
  assert.match(page.url(), /[#&]wp=mxfp4(&|$)/, 'the weight precision is in the link');
  await page.close();
  assert.deepEqual(errors, []);
});
