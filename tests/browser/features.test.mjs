// Compare (pin), Hugging Face config import, custom models based on a
// preset (marked, resettable, compressed in the URL) and system overrides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { afterEvaluation, openPage, reopen, setup, shot, waitEvaluated } from './harness.mjs';

setup();

test('pin a result, change an input, see both with deltas; the comparison is in the link', async () => {
  const { page, errors } = await openPage('v=1&tp=2');
  await waitEvaluated(page);
  await afterEvaluation(page, () => page.locator('#pin').click());
  await page.waitForFunction(() => location.hash.includes('pin='));
  await afterEvaluation(page, () => page.locator('[data-key="parallelism.tp"] input').fill('4'));
  const row = page.locator('table.compare tr[data-key="iteration_time_s"]');
  await row.waitFor();
  const cells = await row.locator('td').allTextContents();
  assert.equal(cells.length, 3);
  assert.notEqual(cells[0], cells[1], 'pinned and current differ');
  assert.match(cells[2], /^[+−]\d/);
  assert.match(await page.locator('.compare-diff').textContent(), /parallelism\.tp 2 → 4/);
  await shot(page, 'compare');
  const link = new URL(page.url()).hash.slice(1);
  await page.close();

  const again = await openPage(link);
  await again.page.locator('table.compare tr[data-key="iteration_time_s"]').waitFor();
  assert.deepEqual(await again.page.locator('table.compare tr[data-key="iteration_time_s"] td').allTextContents(), cells);
  await afterEvaluation(again.page, () => again.page.locator('button.unpin').click());
  assert.equal(await again.page.locator('table.compare').count(), 0);
  assert.doesNotMatch(again.page.url(), /pin=/);
  await again.page.close();
  assert.deepEqual([...errors, ...again.errors], []);
});

test('a model field change makes "custom (based on X)" with a reset; the URL keeps only the change', async () => {
  const { page, errors } = await openPage('v=1');
  await waitEvaluated(page);
  await page.locator('details.group-model > summary').click();
  await afterEvaluation(page, () => page.locator('[data-key="model.layers"] input').fill('40'));
  const select = page.locator('#f-model');
  assert.match(await select.locator('option:checked').textContent(), /^custom \(based on llama3\.1-8b\)$/);
  assert.match(await page.locator('#model-custom').textContent(), /based on llama3\.1-8b/);
  assert.match(await page.locator('details.group-model > summary').textContent(), /custom, based on llama3\.1-8b/);
  const hash = new URL(page.url()).hash;
  assert.equal(hash, '#v=1&ml=40', 'only the changed field');
  await afterEvaluation(page, () => page.locator('button.reset-model').click());
  assert.equal(await select.inputValue(), 'llama3.1-8b');
  assert.ok(await page.locator('button.reset-model').isHidden());
  assert.equal(await page.locator('[data-key="model.layers"] input').inputValue(), '');
  await page.close();
  assert.deepEqual(errors, []);
});

test('system fields override the preset (device peak, HBM, NVLink, InfiniBand)', async () => {
  const { page, errors } = await openPage('v=1&mode=inference');
  await waitEvaluated(page);
  await page.locator('details.group-system > summary').click();
  assert.equal(await page.locator('[data-key="system.hbm_GiB"] input').getAttribute('placeholder'), '80');
  assert.equal(await page.locator('[data-key="system.nvlink_GBps"] input').getAttribute('placeholder'), '450');
  await afterEvaluation(page, () => page.locator('[data-key="system.hbm_GiB"] input').fill('141'));
  assert.match(await page.locator('[data-key="memory"] .note').textContent(), /141/);
  await afterEvaluation(page, () => page.locator('[data-key="system.ib_GBps"] input').fill('100'));
  const scenario = JSON.parse(await page.locator('#scenario-json').textContent());
  assert.equal(scenario.system.preset, 'dgx-h100');
  const hbm = scenario.system.device.memory.find((m) => m.name === 'hbm');
  assert.equal(hbm.capacity_GiB, 141);
  assert.equal(scenario.system.device.memory.length, 3, 'the whole memory array is sent');
  assert.deepEqual(scenario.system.network.map((t) => [t.name, t.bandwidth_GBps]), [['nvlink', 450], ['infiniband', 100]]);
  assert.match(page.url(), /shc=141&sib=100/);
  await page.close();
  assert.deepEqual(errors, []);
});

test('every system figure is editable: L2, fp8 peak, GEMM ceiling, node and NVLink domain size', async () => {
  const { page, errors } = await openPage('v=1');
  await waitEvaluated(page);
  await page.locator('details.group-system > summary').click();
  assert.equal(await page.locator('[data-key="system.l2_MiB"] input').getAttribute('placeholder'), '50');
  assert.equal(await page.locator('[data-key="system.gpus_per_node"] input').getAttribute('placeholder'), '8');
  const before = await page.locator('#results .card').first().textContent();
  await afterEvaluation(page, () => page.locator('[data-key="system.matmul_eff"] input').fill('0.4'));
  assert.notEqual(await page.locator('#results .card').first().textContent(), before, 'a lower GEMM ceiling changes the iteration time');
  await afterEvaluation(page, () => page.locator('[data-key="system.l2_MiB"] input').fill('128'));
  const scenario = JSON.parse(await page.locator('#scenario-json').textContent());
  assert.equal(scenario.system.device.efficiency.matmul.bf16, 0.4);
  assert.equal(scenario.system.device.memory.find((m) => m.name === 'l2').capacity_MiB, 128);
  assert.match(page.url(), /sme=0\.4/);
  assert.match(page.url(), /sl2=128/);
  await page.close();
  assert.deepEqual(errors, []);
});

const GPT2 = JSON.stringify({
  activation_function: 'gelu_new', architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', n_ctx: 1024, n_embd: 768, n_head: 12,
  n_layer: 12, n_positions: 1024, vocab_size: 50257, layer_norm_epsilon: 1e-5, fancy_new_field: true,
});

test('import a Hugging Face config.json by paste and by file', async () => {
  const { page, errors } = await openPage();
  await waitEvaluated(page);
  await page.locator('#import').click();
  await page.locator('#hf-text').fill(GPT2);
  await afterEvaluation(page, () => page.locator('#hf-import').click());
  assert.match(await page.locator('#hf-report').textContent(), /Imported gpt2: 12 layers, hidden 768/);
  assert.match(await page.locator('#hf-report .hf-unknown').textContent(), /fancy_new_field/);
  await shot(page, 'import-dialog');
  await page.keyboard.press('Escape');
  assert.match(await page.locator('#f-model option:checked').textContent(), /^custom \(based on /);
  assert.match(await page.locator('[data-key="parameters"] .value').textContent(), /^12[45]M$/);
  assert.match(page.url(), /ml=12/);

  await page.locator('#import').click();
  await page.locator('#hf-file').setInputFiles({ name: 'config.json', mimeType: 'application/json', buffer: Buffer.from('{"model_type": "llama", "hidden_size": 4096') });
  await page.locator('#hf-report .error').waitFor();
  assert.match(await page.locator('#hf-report .error').textContent(), /not valid JSON/);
  await page.close();
  assert.deepEqual(errors, []);
});

test('preset search: typing narrows the model picker; choosing a match updates the result and the link', async () => {
  const { page, errors } = await openPage();
  await waitEvaluated(page);
  const select = page.locator('#f-model');
  const presetIds = () => select.locator('option').evaluateAll((os) => os.map((o) => o.value).filter((v) => v && !v.startsWith('\u0000')));
  const all = await presetIds();
  const before = await page.locator('[data-key="parameters"] .value').textContent();
  const current = await select.inputValue();
  await page.locator('#f-model-search').fill('70B');
  const left = await presetIds();
  // the current choice stays listed (the picker shows the state); every other option matches
  const others = left.filter((v) => v !== current);
  assert.ok(others.length >= 1 && others.length < all.length - 1, `narrowed: ${left.join(',')}`);
  for (const v of others) assert.match(v, /70b/i);
  assert.equal(others.length, all.filter((v) => /70b/i.test(v)).length, 'no match is dropped');
  assert.match(await page.locator('#f-model-search-count').textContent(), new RegExp(`^${others.length} of ${all.length} presets match`));
  const pick = others.find((v) => v === 'llama3.1-70b') || others[0];
  await afterEvaluation(page, () => select.selectOption(pick));
  assert.match(page.url(), new RegExp(`m=${pick.replace('.', '\\.')}`));
  assert.notEqual(await page.locator('[data-key="parameters"] .value').textContent(), before, 'the result follows the new model');
  // clearing the search brings every preset back, the choice kept
  await page.locator('#f-model-search').fill('');
  assert.deepEqual(await presetIds(), all);
  assert.equal(await select.inputValue(), pick);
  await page.close();
  assert.deepEqual(errors, []);
});

test('presets named by aliases: a link opens on their ids, and the search box finds a preset by an alias', async () => {
  const { page, errors } = await openPage('v=1&m=llama3-70b&s=hgx-h100&tp=8');
  await waitEvaluated(page);
  assert.equal(await page.locator('#f-model').inputValue(), 'llama3.1-70b');
  assert.equal(await page.locator('#f-system').inputValue(), 'dgx-h100');
  assert.equal(await page.locator('#f-system option', { hasText: 'unknown' }).count(), 0);
  assert.match(await page.locator('[data-key="system"] .help').textContent(), /^NVIDIA DGX H100/);
  await page.locator('#f-system-search').fill('dgx-gb200');
  const ids = await page.locator('#f-system option').evaluateAll((os) => os.map((o) => o.value));
  assert.ok(ids.includes('gb200-nvl72'), ids.join(','));
  await page.close();
  assert.deepEqual(errors, []);
});

test('op-level selective recompute is a choice in the form: recompute rows appear and the link keeps it', async () => {
  const { page, errors } = await openPage('v=1&dp=8&z=3&gb=64&sl=8192');
  await waitEvaluated(page);
  const select = page.locator('[data-key="training.recompute"] select');
  assert.ok((await select.locator('option').allTextContents()).includes('selective_op'));
  await afterEvaluation(page, () => select.selectOption('selective_op'));
  await page.waitForFunction(() => location.hash.includes('rc=selective_op'));
  const phases = await page.$$eval('table.ops tbody tr', (rows) => rows.map((r) => r.textContent));
  assert.ok(phases.some((t) => /recompute/.test(t)), 'the op table has recompute rows');
  assert.deepEqual(errors, []);
  await page.close();
});

test('expert-parallel serving is a choice in the inference form: wide EP adds the all-to-all rows', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=mixtral-8x7b&dp=8&b=16');
  await waitEvaluated(page);
  const ep = page.locator('[data-key="parallelism.ep"] input');
  await afterEvaluation(page, () => ep.fill('8'));
  await page.waitForFunction(() => location.hash.includes('ep=8'));
  const rows = await page.$$eval('table.ops tbody tr', (trs) => trs.map((r) => r.textContent));
  assert.ok(rows.some((t) => /moe\.dispatch/.test(t)), 'the op table has the dispatch all-to-all');
  assert.ok(rows.some((t) => /moe\.combine/.test(t)), 'and the combine');
  // each of the 8 one-GPU replicas serves its own 16 sequences
  const rate = await page.locator('.card[data-key="output_tokens_per_s"]').textContent();
  assert.match(rate, /per replica \(1 GPU\), [\d.]+k?\s*tokens\/s on all 8/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('MoE serving says which expert kernel ran, and why when a longer output leaves no room for 16-bit experts', async () => {
  // Mixtral 8x22B fp8 on 4 H100, 256 sequences: 128 + 512 tokens hold the
  // legacy kernel's 16-bit experts, 128 + 1024 do not.
  const { page, errors } = await openPage('v=1&mode=inference&m=mixtral-8x22b&s=dgx-h100&tp=4&wp=fp8&b=256&in=128&out=512&bt=static');
  await waitEvaluated(page);
  assert.match(await page.textContent('.verdict'), /Experts run on the legacy 16-bit grouped GEMM/);
  await afterEvaluation(page, () => page.locator('[data-key="inference.output_tokens"] input').fill('1024'));
  assert.match(await page.textContent('.verdict'), /Experts run on the device's own GEMM kernels: the legacy kernel's 16-bit experts would not fit/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the warnings the verdict does not say follow the summary, before the charts; serving that does not fit gives the largest batch', async () => {
  // tp 16 spans two DGX H100 nodes and exceeds Llama 3.1 70B's 8 KV heads.
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&tp=16&dp=4&gb=128');
  await waitEvaluated(page);
  const lines = await page.locator('#results ul.warnings li').allTextContents();
  assert.ok(lines.some((l) => /^tp spans more GPUs than a node/.test(l)), lines.join(' | '));
  assert.ok(lines.some((l) => /^tp exceeds kv_heads/.test(l)), lines.join(' | '));
  const order = await page.evaluate(() => {
    const w = document.querySelector('#results ul.warnings');
    const charts = document.querySelector('#results .charts');
    return w && charts ? w.compareDocumentPosition(charts) & Node.DOCUMENT_POSITION_FOLLOWING : -1;
  });
  assert.ok(order > 0, 'the warnings list comes before the charts');
  await page.close();
  // Llama 3.1 70B serving on one H100 does not fit: the verdict says so and
  // that not one sequence fits, the weights alone being too large; the list does not repeat it.
  const one = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=1&b=64');
  await waitEvaluated(one.page);
  assert.match(await one.page.textContent('.verdict'), /^Does not fit: needs [\d.]+\s*GiB per GPU, 80\.0\s*GiB available.*Not one sequence fits: the weights alone need [\d.]+\s*GiB per GPU\./);
  assert.equal(await one.page.locator('#results ul.warnings li', { hasText: /does not fit/ }).count(), 0);
  await one.page.close();
  // With tp 4 the weights fit and the KV cache of 64 long sequences does not.
  const four = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=4&b=512&in=32000&out=2000');
  await waitEvaluated(four.page);
  assert.match(await four.page.textContent('.verdict'), /^Does not fit: .*The largest batch that fits: \d+\./);
  await four.page.close();
  // Disaggregated: a one-GPU prefill instance cannot hold the 70B weights; the verdict says a wider prefill tp spreads them.
  const pre = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=8&b=16&ptp=1');
  await waitEvaluated(pre.page);
  assert.match(await pre.page.textContent('.verdict'), /Prefill does not fit: needs [\d.]+\s*GiB per prefill GPU.*Its weights alone need [\d.]+\s*GiB per GPU: a wider prefill tp spreads them\./);
  assert.equal(await pre.page.locator('#results ul.warnings li', { hasText: /does not fit/ }).count(), 0);
  await pre.page.close();
  // Two prefill GPUs hold the weights; 64 prompts of 32k tokens do not fit beside them.
  const big = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=8&b=16&ptp=2&pfb=64&in=32000');
  await waitEvaluated(big.page);
  assert.match(await big.page.textContent('.verdict'), /Prefill does not fit: .*A wider prefill tp or a smaller prefill batch makes it smaller\./);
  await big.page.close();
  assert.deepEqual([...errors, ...one.errors, ...four.errors, ...pre.errors, ...big.errors], []);
});

test('recompute none that does not fit: the verdict says the time recomputes to fit, and whether that fits', async () => {
  // Llama 3.1 70B at 8k tokens on 64 H100 (tp 4, pp 4): every layer recomputed still needs more than 80 GB.
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&tp=4&pp=4&dp=4&gb=128&sl=8192&rc=none');
  await waitEvaluated(page);
  assert.match(await page.textContent('.verdict'), /^Does not fit: needs [\d.]+\s*GiB per GPU.*The time shown recomputes every layer whole, as a framework would to fit: that needs [\d.]+\s*GiB per GPU, which does not fit either\./);
  // What the verdict says is not listed again below it (the JSON keeps both warnings).
  assert.equal(await page.locator('#results ul.warnings li', { hasText: /does not fit/ }).count(), 0);
  await page.close();
  // With pp 8 (10 layers per stage) recomputing some of them is enough.
  const some = await openPage('v=1&m=llama3.1-70b&tp=4&pp=8&dp=2&gb=128&sl=8192&rc=none');
  await waitEvaluated(some.page);
  assert.match(await some.page.textContent('.verdict'), /The time shown recomputes \d+ layers per stage whole, as a framework would to fit: that needs [\d.]+\s*GiB per GPU\./);
  await some.page.close();
  assert.deepEqual([...errors, ...some.errors], []);
});

test('a host-paced step says the host bounds it, with the GPU work that runs under the launches', async () => {
  // Qwen3-30B-A3B on 8 B200: short expert GEMMs, the host's launches pace the step.
  const { page, errors } = await openPage('v=1&m=qwen3-30b-a3b&s=dgx-b200&dp=8&ep=8&z=1&gb=64&sl=4096&pr=fp8&rc=none');
  await waitEvaluated(page);
  const verdict = await page.textContent('.verdict');
  assert.match(verdict, /bound by the host's kernel launches: the GPU runs its compute \(\d+(\.\d+)?%\) and EP comm \(\d+(\.\d+)?%\) as they are launched and waits on them the rest \(\d+(\.\d+)?%\)\./);
  assert.match(verdict, /host launch time \(halved\) gains the most/, 'the what-if agrees: faster launches buy the most');
  await page.close();
  // Without the host's cost per kernel the same plan is bound by its largest part.
  const free = await openPage('v=1&m=qwen3-30b-a3b&s=dgx-b200&dp=8&ep=8&z=1&gb=64&sl=4096&pr=fp8&rc=none&hov=0');
  await waitEvaluated(free.page);
  assert.match(await free.page.textContent('.verdict'), /bound by compute \(\d/);
  await free.page.close();
  assert.deepEqual([...errors, ...free.errors], []);
});

test('speculative decoding from the link: the TPOT card says how many tokens a step emits', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=8&b=1&dt=3&da=0.8');
  await waitEvaluated(page);
  const tpot = page.locator('.card[data-key="tpot_s"]');
  assert.match(await tpot.textContent(), /2\.95 tokens \/ step/);
  const rows = await page.$$eval('table.ops tbody tr', (trs) => trs.map((r) => r.textContent));
  assert.ok(rows.some((t) => /draft\./.test(t)), 'the op table has the draft head');
  assert.deepEqual(errors, []);
  await page.close();
});

test('QLoRA from the link: the parameters card names what trains, the memory bar has almost no optimizer states', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&tp=1&dp=1&gb=8&mb=1&sl=2048&rc=full&lr=16&fw=nf4');
  await waitEvaluated(page);
  assert.match(await page.locator('.card[data-key="parameters"]').textContent(), /207M trained \(0\.294%\)/);
  assert.match(await page.locator('.verdict').first().textContent(), /^Fits/);
  const rows = await page.$$eval('table.ops tbody tr', (trs) => trs.map((r) => r.textContent));
  assert.ok(rows.some((t) => /mlp\.up\.dequant/.test(t)), 'the op table dequantises the NF4 weights');
  assert.ok(rows.some((t) => /attn\.qkv\.lora_a/.test(t)), 'and runs the adapters');
  assert.ok(!rows.some((t) => /mlp\.up\.wgrad/.test(t)), 'frozen weights take no weight gradient');
  await shot(page, 'qlora-70b');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a cached shared prefix from the link: prefill covers the rest of the prompt, the KV cache holds the prefix once', async () => {
  const seconds = (text) => {
    const m = /([\d.]+)\s*(ms|s)\b/.exec(text);
    return m ? Number(m[1]) * (m[2] === 'ms' ? 1e-3 : 1) : NaN;
  };
  const base = 'v=1&mode=inference&m=llama3.1-8b&tp=1&b=32&in=2048';
  const read = async (hash) => {
    const { page, errors } = await openPage(hash);
    await waitEvaluated(page);
    const ttft = seconds(await page.locator('.card[data-key="ttft_s"]').textContent());
    const memory = await page.locator('.card[data-key="memory"]').textContent();
    assert.deepEqual(errors, []);
    await page.close();
    return { ttft, memory };
  };
  const none = await read(base);
  const cached = await read(`${base}&spx=1920`);
  assert.ok(cached.ttft < 0.15 * none.ttft, `${cached.ttft} vs ${none.ttft}`);
  assert.notEqual(cached.memory, none.memory);
});

test('chunked prefill from the link: the step card, a shorter time to first token, the chunk attention in the ops', async () => {
  const base = 'v=1&mode=inference&m=llama3.1-70b&tp=4&b=16&in=1024&out=256&bt=inflight';
  const whole = await openPage(base);
  await waitEvaluated(whole.page);
  const ttftWhole = await whole.page.locator('.card[data-key="ttft_s"] .value').textContent();
  assert.equal(await whole.page.locator('.card[data-key="chunked_prefill"]').count(), 0);
  await whole.page.close();
  const { page, errors } = await openPage(`${base}&tbg=8192`);
  await waitEvaluated(page);
  assert.match(await page.locator('.card[data-key="chunked_prefill"]').textContent(), /15(\.0)? \+ 60\.2\s*decode rows \+ prompt tokens; 17\.0 steps per prompt/);
  const secs = (t) => Number(t.replace(/[^\d.]/g, '')) * (/ms/.test(t) ? 1e-3 : 1);
  const ttft = await page.locator('.card[data-key="ttft_s"] .value').textContent();
  assert.ok(secs(ttft) < 0.5 * secs(ttftWhole), `${ttft} vs ${ttftWhole}`);
  const rows = await page.$$eval('table.ops tbody tr', (trs) => trs.map((r) => r.textContent));
  assert.ok(rows.some((t) => /chunk\.attn\.flash/.test(t)), 'the op table has the chunks\' attention');
  await shot(page, 'chunked-prefill');
  assert.deepEqual([...whole.errors, ...errors], []);
  await page.close();
});

test('disaggregated prefill from the link: a card says how many prefill instances feed the decode instance', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=llama3.1-70b&tp=8&b=64&wp=fp8&ic=fp8&kp=fp8&ptp=4&rps=20');
  await waitEvaluated(page);
  assert.match(await page.locator('.card[data-key="capacity"]').textContent(), /GPUs for 20 req\/s\s*\d+\s*\d+ decode instances? \+ \d+ prefill instances?/);
  const pool = await page.locator('.card[data-key="prefill_instances"]').textContent();
  assert.match(pool, /\d\.\d\d × 4 GPUs/);
  assert.match(pool, /KV transfer [\d.]+\s*ms/);
  assert.match(await page.locator('.card[data-key="output_tokens_per_s"]').textContent(), /per replica of [\d.]+ GPUs/);
  // The GPU count is the decode instance's; the prefill pool it keeps busy is said beside it.
  const [n, per] = pool.match(/(\d\.\d\d) × (\d) GPUs/).slice(1).map(Number);
  const gpusCard = await page.locator('.card[data-key="gpus"]').textContent();
  const more = Number(gpusCard.match(/^GPUs\s*8\s*decode, with ([\d.]+) more on prefill; H100/)?.[1]);
  assert.ok(Math.abs(more - n * per) < 0.05, gpusCard);
  assert.match(await page.locator('.verdict').first().textContent(), /^Fits: .* per decode GPU .*Prefill fits: .* per prefill GPU/);
  const rows = await page.$$eval('table.ops tbody tr', (trs) => trs.map((r) => r.textContent));
  assert.ok(rows.some((t) => /kv_transfer/.test(t)), 'the op table has the KV transfer');
  await shot(page, 'disaggregated');
  assert.deepEqual(errors, []);
  await page.close();
});

test('advanced settings fold away until asked for, and a set one stays in view', async () => {
  const { page, errors } = await openPage('v=1&zgp=fp32');
  await waitEvaluated(page);
  const more = page.locator('.group-training .more-settings');
  assert.match(await more.textContent(), /^More settings \(\d+\)$/);
  assert.equal(await more.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.locator('[data-key="training.overlap.dp"]').isVisible(), false, 'an advanced field at its default is folded');
  assert.equal(await page.locator('[data-key="training.global_batch"]').isVisible(), true);
  assert.equal(await page.locator('[data-key="parallelism.gather_precision"]').isVisible(), true, 'a set advanced field shows');
  assert.equal(await page.locator('[data-key="parallelism.reduce_precision"]').isVisible(), false);
  await more.click();
  assert.equal(await more.textContent(), 'Fewer settings');
  assert.equal(await more.getAttribute('aria-expanded'), 'true');
  assert.equal(await page.locator('[data-key="training.overlap.dp"]').isVisible(), true);
  assert.equal(await page.locator('[data-key="parallelism.reduce_precision"]').isVisible(), false, 'each group unfolds on its own');
  assert.deepEqual(errors, []);
  await page.close();
});

test('optimizer offload from the link: the memory card names the host memory, the GPU bar leaves it out', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-70b&s=dgx-a100-80gb&tp=1&dp=8&z=3&gb=32&mb=1&sl=4096&rc=full&ofl=optimizer');
  await waitEvaluated(page);
  assert.match(await page.locator('.card[data-key="memory"]').textContent(), /of 80\.0\s*GiB; 131\s*GiB in host memory \(of 256\s*GiB\)/);
  assert.match(await page.locator('.verdict').first().textContent(), /^Fits/);
  const legend = await page.locator('[data-view="memory"]').textContent();
  assert.doesNotMatch(legend, /offloaded|host/);
  const rows = await page.$$eval('table.ops tbody tr', (trs) => trs.map((r) => r.textContent));
  assert.ok(rows.some((t) => /optimizer\.host_step.*host/.test(t)), 'the op table has the host step, bound by the host');
  assert.deepEqual(errors, []);
  await page.close();
});

test('weights offloaded too: the GPU keeps the units in flight, the op table fetches them; ZeRO 1 is refused at the field', async () => {
  const base = 'v=1&m=llama3.1-70b&s=dgx-a100-80gb&tp=1&dp=8&gb=32&mb=1&sl=4096&rc=full&ofl=parameters';
  const { page, errors } = await openPage(`${base}&z=3`);
  await waitEvaluated(page);
  assert.match(await page.locator('.card[data-key="memory"]').textContent(), /of 80\.0\s*GiB; 148\s*GiB in host memory \(of 256\s*GiB\)/);
  const rows = await page.$$eval('table.ops tbody tr', (trs) => trs.map((r) => r.textContent));
  assert.ok(rows.some((t) => /dp\.param_fetch_from_host/.test(t)), 'the op table has the fetches');
  assert.ok(!rows.some((t) => /weights_to_device/.test(t)), 'the updated weights stay on the host');
  await page.close();
  const short = await openPage('v=1&m=llama3.1-70b&s=dgx-a100-40gb&z=3&rc=full&ofl=parameters');
  await waitEvaluated(short.page);
  assert.match(await short.page.locator('.verdict').first().textContent(), /^Does not fit in host memory: 1\.16\s*TiB offloaded per GPU, 1\.00\s*TiB available\./);
  await short.page.close();
  const z1 = await openPage(`${base}&z=1`);
  await z1.page.locator('[data-key="training.offload"] .error').waitFor({ timeout: 30000 });
  assert.match(await z1.page.locator('[data-key="training.offload"] .error').textContent(), /needs parallelism\.zero 3/);
  assert.deepEqual([...errors, ...short.errors, ...z1.errors], []);
  await z1.page.close();
});

test('activation offload: the copies PCIe cannot hide show in the time breakdown, the activations in host memory', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-8b&tp=1&dp=8&z=1&gb=32&mb=1&sl=8192&rc=none&ofa=16');
  await waitEvaluated(page);
  assert.match(await page.locator('.card[data-key="memory"]').textContent(), /GiB in host memory/);
  assert.match(await page.locator('[data-view="time"]').textContent(), /activation offload/);
  assert.equal(await page.locator('[data-key="training.offload_activations"]').isVisible(), true, 'a set advanced field shows');
  assert.deepEqual(errors, []);
  await page.close();
});

test('offload on a system without a host side: the error names it, and three host figures from the form make it run', async () => {
  const base = 'v=1&m=llama3.1-8b&s=amd-mi300x&tp=1&dp=8&z=3&gb=64&ofl=optimizer';
  const bare = await openPage(base);
  await bare.page.locator('[data-key="training.offload"] .error').waitFor({ timeout: 30000 });
  assert.match(await bare.page.locator('[data-key="training.offload"] .error').textContent(), /the system has no host figures/);
  assert.equal(await bare.page.locator('[data-key="system.host_link_GBps"] input').getAttribute('placeholder'), 'none');
  await bare.page.close();
  const { page, errors } = await openPage(`${base}&shl=55&shm=115.2&shg=192`);
  await waitEvaluated(page);
  assert.match(await page.locator('.card[data-key="memory"]').textContent(), /in host memory \(of 192\s*GiB\)/);
  assert.deepEqual([...bare.errors, ...errors], []);
  await page.close();
});

test('long sequences: the summary gives the iteration time under each attention kernel the GPU runs', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-8b&s=dgx-a100-80gb&tp=2&dp=4&sp=1&gb=32&sl=32768&rc=full');
  await waitEvaluated(page);
  const note = await page.textContent('.summary p.kernel-note');
  assert.match(note, /^Fused attention is \d+(\.\d)?% of the op time/);
  assert.match(note, /FlashAttention 1 \/ Triton \d[\d.]*\s(s|min) \(\+\d+(\.\d)?%\), FlashAttention-2 \d[\d.]*\s(s|min)\./);
  assert.doesNotMatch(note, /FlashAttention-3/); // not on an A100
  assert.match(note, /This result runs the best kernel on this GPU/);
  // Naming a kernel: the note says which one ran; the others are measured against it.
  await reopen(page, '#v=1&m=llama3.1-8b&s=dgx-a100-80gb&tp=2&dp=4&sp=1&gb=32&sl=32768&rc=full&atk=fa1');
  assert.match(await page.textContent('.summary p.kernel-note'), /FlashAttention-2 [^,]*\(−\d+(\.\d)?%\)\. This result runs FlashAttention 1 \/ Triton/);
  // Short sequences: attention is a small share, no note.
  await reopen(page, '#v=1&m=llama3.1-8b&s=dgx-a100-80gb&tp=2&dp=4&gb=32&sl=1024');
  assert.equal(await page.locator('.summary p.kernel-note').count(), 0);
  await page.close();
  assert.deepEqual(errors, []);
});

test('element-wise kernels: the summary gives the step and memory with the other kind; LayerNorm and GELU models say nothing', async () => {
  const base = 'v=1&m=llama3.1-8b&s=dgx-h100&tp=1&dp=8&z=3&gb=8&sl=8192&rc=none';
  const { page, errors } = await openPage(base);
  await waitEvaluated(page);
  assert.match(await page.textContent('.summary p.fusion-note'), /^As PyTorch eager modules .* the step would take \d[\d.]*\s(ms|s) \(\+\d+\.\d%\) and \d[\d.]*\sGiB per GPU; the training setting “element-wise kernels”/);
  await reopen(page, `#${base}&fus=eager`);
  assert.match(await page.textContent('.summary p.fusion-note'), /^With fused element-wise kernels .* the step would take \d[\d.]*\s(ms|s) \(−\d+\.\d%\)/);
  assert.match(await page.textContent('[data-key="training.fusion"]'), /element-wise kernels/);
  await reopen(page, '#v=1&m=gpt3-175b&s=dgx-a100-80gb&tp=8&pp=8&dp=2&sp=1&gb=128');
  assert.equal(await page.locator('.summary p.fusion-note').count(), 0);
  await page.close();
  assert.deepEqual(errors, []);
});

test('a 16k-GPU run: goodput under interruptions, and the time to train with them; the inputs ride in the link', async () => {
  const run = 'v=1&m=llama3.1-405b&tp=8&pp=16&dp=128&sp=1&ps=interleaved&vs=4&gb=2048&sl=8192&rc=full&tk=15.6e12';
  const { page, errors } = await openPage(run);
  await waitEvaluated(page);
  // Llama 3's own figures are the defaults: about 90% effective training time on 16,384 H100.
  const goodput = page.locator('.card[data-key="goodput"]');
  assert.match(await goodput.locator('.value').textContent(), /^(89\.\d|90\.\d)%$/);
  // 14 bytes per parameter of 405B: a 5.2 TiB checkpoint
  assert.match(await goodput.textContent(), /an interruption every 2\.78\sh; a 5\.\d\d\sTiB checkpoint every \d/);
  assert.match(await page.locator('.card[data-key="time_to_train_s"]').textContent(), /\d[\d.]*\sdays with interruptions/);
  // Priced: the cost card adds what the GPUs cost while held through the interruptions.
  await reopen(page, `#${run}&cgh=2`);
  assert.match(await page.locator('.card[data-key="cost_to_train"]').textContent(), /GPU-hours; \$\d[\d.]*M with interruptions/);
  // A faster restart (from the link) loses less.
  await reopen(page, `#${run}&rrs=60`);
  assert.match(await page.locator('.card[data-key="goodput"] .value').textContent(), /^9[4-9]\.\d%$/);
  assert.equal(await page.locator('[data-key="reliability.restart_s"] input').inputValue(), '60');
  // Eight GPUs: an interruption every few hundred days, no goodput card.
  await reopen(page, '#v=1&tk=1e12');
  assert.equal(await goodput.count(), 0);
  await page.close();
  assert.deepEqual(errors, []);
});
