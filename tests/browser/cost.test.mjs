// Cost and energy on the page: the "Cost and energy" form group sets the
// scenario's cost section (link keys cgh, cpu, ...), and the headline shows
// what the core computed: dollars only with a GPU-hour price.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, setup, waitEvaluated } from './harness.mjs';

setup();

const cardText = (page, key) => page.locator(`.headline .card[data-key="${key}"] dd`).textContent();

test('training with tokens and a GPU-hour price: cost and energy to train in the headline', async () => {
  const { page, errors } = await openPage('v=1&dp=8&gb=256&sl=8192&mb=2&tk=15e12&cgh=2.5');
  await waitEvaluated(page);
  // the GPU-hours and, held through the interruptions, a little more (8 GPUs are rarely interrupted)
  const cost = await cardText(page, 'cost_to_train');
  const m = cost.match(/^\$([0-9.]+)([kM])\s[0-9.]+[kMG]?\sGPU-hours; \$([0-9.]+)\2 with interruptions$/);
  assert.ok(m, cost);
  assert.ok(+m[3] >= +m[1] && +m[3] < 1.01 * +m[1], cost);
  assert.match(await cardText(page, 'energy_to_train'), /MWh\s.*CO₂$/);
  assert.ok(await page.locator('details.group-cost').count(), 'the form has the cost group');
  assert.deepEqual(errors, []);
  await page.close();
});

test('serving without a price: energy per output token, no dollar card', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=4&b=32&in=1024&out=256');
  await waitEvaluated(page);
  assert.match(await cardText(page, 'joules_per_output_token'), /^[0-9.]+\sJ\s.*per M$/);
  assert.equal(await page.locator('.headline .card[data-key="cost_per_million_output_tokens"]').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
