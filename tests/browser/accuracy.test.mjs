// The summary quotes how far the model has been from published runs of the
// scenario's kind (result.accuracy, from tests/validation/public): the
// regime follows the plan in the form, and the figures are the core's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, setup, waitEvaluated } from './harness.mjs';

setup();

const note = (page) => page.locator('.summary .accuracy-note');

test('a ZeRO-3 data-parallel plan quotes the sharded-data-parallel runs', async () => {
  const { page, errors } = await openPage('v=1&dp=8&z=3&gb=64&sl=4096');
  await waitEvaluated(page);
  assert.equal(await note(page).getAttribute('data-regime'), 'sharded_data_parallel_training');
  const text = await note(page).locator('p').textContent();
  // 27% mean error on these runs: beyond the 15% target, said in words and colour
  assert.match(text, /^Caution: Validation against published runs of this kind \(fully sharded data parallel/);
  assert.match(await note(page).getAttribute('class'), /\bwide\b/);
  assert.match(text, /iteration time off by [0-9.]+% on average \(predicted [0-9.]+% (high|low) on balance, worst [0-9.]+%, [0-9]+ runs\)/);
  // the runs behind the figures, each with its signed error
  await note(page).locator('details.accuracy-runs summary').click();
  const runs = await note(page).locator('details.accuracy-runs li').allTextContents();
  assert.equal(runs.length, Number(text.match(/([0-9]+) runs\)/)[1]));
  assert.ok(runs.every((r) => /^iteration time, \S+: [+−][0-9.]+% \(.+\)$/.test(r)), runs.join('\n'));
  // every published run, of every kind, one click away: the Studies view's published-runs study
  await note(page).locator('button.all-runs').click();
  await page.waitForFunction(() => document.querySelector('[data-explore="study"] .job-bar')?.dataset.state === 'done', null, { timeout: 60000 });
  assert.match(page.url(), /view=study&study=published-runs/);
  assert.match(page.url(), /z=3/);  // the scenario stays in the link
  const dots = await page.locator('#study-out svg.error-dots circle.pt').count();
  assert.ok(dots > runs.length, `${dots} measurements`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('serving quotes each measured metric; a tensor-parallel plan changes the regime', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=4&b=32');
  await waitEvaluated(page);
  assert.equal(await note(page).getAttribute('data-regime'), 'dense_inference');
  assert.match(await note(page).locator('p').textContent(), /output tokens\/s .* time to first token .* time per output token/);
  await page.close();
  const { page: p2 } = await openPage('v=1&tp=2&dp=4&gb=64&sl=4096');
  await waitEvaluated(p2);
  assert.equal(await note(p2).getAttribute('data-regime'), 'dense_model_parallel_training');
  assert.doesNotMatch(await note(p2).getAttribute('class'), /\bwide\b/);  // 4-5% on Megatron-style runs
  assert.doesNotMatch(await note(p2).locator('p').textContent(), /None of these runs/);  // they ran on H100s
  assert.deepEqual(errors, []);
  await p2.close();
});

// The validation note of the result a link shows: its regime, text and class.
async function noteOf(hash) {
  const { page, errors } = await openPage(hash);
  await waitEvaluated(page);
  const out = { regime: await note(page).getAttribute('data-regime'), text: await note(page).locator('p').textContent(), cls: await note(page).getAttribute('class') };
  assert.deepEqual(errors, []);
  await page.close();
  return out;
}

test('a ZeRO-3 run of another kind quotes the sharded-data-parallel runs beside its own (MoE; LoRA, without runs of its own)', async () => {
  const moe = await noteOf('v=1&m=mixtral-8x7b&dp=8&ep=8&z=3&gb=64&sl=4096');
  assert.equal(moe.regime, 'moe_training');
  assert.match(moe.text, /^Caution: Validation against published runs of this kind \(mixture-of-experts training\): iteration time off by /);
  assert.match(moe.text, / It is also a run of this kind \(fully sharded data parallel training[^)]*\)\): iteration time off by [0-9.]+% on average/);
  // LoRA has no published run of its own: the fully sharded kind's caution, in words and colour
  const lora = await noteOf('v=1&dp=8&z=3&gb=64&sl=4096&lr=16');
  assert.equal(lora.regime, 'lora_training');
  assert.match(lora.text, /^Caution: Not yet validated: no published run of this kind \(LoRA/, lora.text);
  assert.match(lora.text, /It is also a run of this kind \(fully sharded data parallel training/);
  assert.match(lora.cls, /\bwide\b/);
});
