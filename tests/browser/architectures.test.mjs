// The architectures of issue 13 on the page: DeepSeek-V3 (MLA), gpt-oss-120b
// (sliding-window + full layers) and Qwen3-Next (linear-attention + full
// layers) evaluate in inference and the "KV cache per layer type" table shows
// their layer types; the form shows the nested model groups (model.mla.*,
// model.attention.*, model.linear_attention.*).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h, openPage, setup, shot, waitEvaluated } from './harness.mjs';

setup();

async function kvRows(page) {
  await page.waitForSelector('[data-view="kv"] table.kv-types tbody tr');
  return page.$$eval('[data-view="kv"] table.kv-types tbody tr', (trs) =>
    trs.map((tr) => ({ type: tr.dataset.type, cells: [...tr.children].map((c) => c.textContent.trim()) })),
  );
}

test('DeepSeek-V3 on GB200 NVL72 (tp 8): one MLA layer type, 1,152 bytes per token per layer in bf16', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=deepseek-v3&s=gb200-nvl72&tp=8&b=1&in=1024&out=128');
  await waitEvaluated(page);
  const verdict = await page.textContent('.verdict');
  assert.match(verdict, /^Fits/, verdict);
  const rows = await kvRows(page);
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.equal(rows[0].type, 'mla');
  assert.match(rows[0].cells[0], /MLA/);
  assert.equal(rows[0].cells[1], '61');
  assert.match(rows[0].cells[2], /^1,?152 B$/);
  assert.match(rows[0].cells[3], /^70,?272 B$/);
  assert.match(rows[0].cells[4], /^1,?152$/);
  assert.equal(await page.locator('[data-view="kv"] figcaption').textContent(), 'KV cache per layer type');
  // the nested model groups are in the form with the preset's values
  for (const [key, value] of [['model.mla.kv_lora_rank', '512'], ['model.mla.qk_rope_head_dim', '64'], ['model.mtp_layers', '1']]) {
    const input = page.locator(`[data-key="${key}"] input, input[data-key="${key}"], [name="${key}"]`).first();
    assert.equal(await input.count(), 1, `${key} in the form`);
    const v = (await input.inputValue()) || (await input.getAttribute('placeholder'));
    assert.equal(String(v).replace(/,/g, ''), value, key);
  }
  await shot(page, 'architectures-deepseek-v3');
  assert.deepEqual(errors, []);
  await page.close();
});

test('DeepSeek-V3.2 on GB200 NVL72 (tp 8): the MLA cache of every token and the sparse-attention indexer\'s keys beside it', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=deepseek-v3.2&s=gb200-nvl72&tp=8&b=1&in=32768&out=128');
  await waitEvaluated(page);
  assert.match(await page.textContent('.verdict'), /^Fits/);
  const rows = await kvRows(page);
  assert.deepEqual(rows.map((r) => r.type), ['mla', 'indexer_keys']);
  assert.match(rows[1].cells[0], /indexer/);
  assert.equal(rows[1].cells[1], '61');
  assert.match(rows[1].cells[2], /^132 B$/);
  assert.match(rows[1].cells[4], /^32,?896$/);
  // the two rows are the same 61 layers
  assert.equal((await page.textContent('[data-view="kv"] tfoot td')).trim(), '61');
  const input = page.locator('[data-key="model.sparse_attention.top_k"] input').first();
  assert.equal(String((await input.inputValue()) || (await input.getAttribute('placeholder'))).replace(/,/g, ''), '2048');
  // no published run had the layer kind: the validation line says so
  assert.match(await page.textContent('.summary .accuracy-note'), /sparse attention/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('gpt-oss-120b on GB200 NVL72 (tp 2): sliding-window and full layers, 18 each', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=gpt-oss-120b&s=gb200-nvl72&tp=2&b=1&in=1024&out=128');
  await waitEvaluated(page);
  const verdict = await page.textContent('.verdict');
  assert.match(verdict, /^Fits/, verdict);
  const rows = await kvRows(page);
  assert.deepEqual(rows.map((r) => r.type).sort(), ['full', 'sliding_window']);
  for (const r of rows) assert.equal(r.cells[1], '18');
  const sliding = rows.find((r) => r.type === 'sliding_window');
  const full = rows.find((r) => r.type === 'full');
  assert.equal(sliding.cells[4], '128', 'a sliding layer keeps its window');
  assert.match(full.cells[4], /^1,?152$/, 'a full layer keeps the whole sequence');
  // 8 kv heads over tp 2: 4 x 64 x 2 (K and V) x 2 bytes
  assert.match(full.cells[2], /^1,?024 B$/);
  const foot = await page.$$eval('[data-view="kv"] tfoot td', (tds) => tds.map((t) => t.textContent.trim()));
  assert.equal(foot[0], '36');
  await shot(page, 'architectures-gpt-oss-120b');
  // the embed view shows the table alone
  const embed = await openPage('v=1&mode=inference&m=gpt-oss-120b&s=gb200-nvl72&tp=2&b=1&in=1024&out=128&embed=1&view=kv');
  await waitEvaluated(embed.page).catch(() => {});
  await embed.page.waitForSelector('[data-view="kv"] table.kv-types');
  assert.equal(await embed.page.locator('.summary').count(), 0);
  assert.deepEqual([...errors, ...embed.errors], []);
  await embed.page.close();
  await page.close();
});

// gpt-oss-120b in bf16 does not fit one H100; the page names the release
// format (MXFP4 experts), and served so it fits.
test('gpt-oss-120b on one H100: bf16 does not fit and the page names its mxfp4 release, which fits', async () => {
  const url = (wp) => `v=1&mode=inference&m=gpt-oss-120b&s=dgx-h100&tp=1&b=1&in=1024&out=128${wp ? `&wp=${wp}` : ''}`;
  const { page, errors } = await openPage(url(''));
  await waitEvaluated(page);
  assert.match(await page.textContent('.verdict'), /^Does not fit/);
  assert.match(await page.locator('#results ul.warnings').textContent(), /gpt-oss-120b is released with mxfp4 weights.*inference\.weight_precision "mxfp4"/);
  const mx = await openPage(url('mxfp4'));
  await waitEvaluated(mx.page);
  assert.match(await mx.page.textContent('.verdict'), /^Fits/);
  assert.equal(await mx.page.locator('#results ul.warnings li', { hasText: /released/ }).count(), 0);
  assert.deepEqual([...errors, ...mx.errors], []);
  await mx.page.close();
  await page.close();
});

test('Qwen3-Next on DGX H100 (tp 4): 12 full layers with a KV cache, 36 linear layers with a fixed state', async () => {
  const url = (input) => `v=1&mode=inference&m=qwen3-next-80b-a3b&tp=4&b=1&in=${input}&out=128`;
  const { page, errors } = await openPage(url(1024));
  await waitEvaluated(page);
  const rows = await kvRows(page);
  assert.deepEqual(rows.map((r) => [r.type, r.cells[1]]), [['full', '12'], ['linear_state', '36']]);
  const state = rows[1];
  assert.match(state.cells[0], /linear-attention state/);
  assert.deepEqual(state.cells.slice(2, 5), ['–', '–', 'fixed state']);
  // 2 KV heads replicated over tp 4: one head of 256 x 2 (K and V) x 2 bytes
  assert.match(rows[0].cells[2], /^1,?024 B$/);
  // the form shows the linear-attention group and the gated attention with the preset's values
  for (const [key, value] of [['model.linear_attention.value_heads', '32'], ['model.linear_attention.full_every', '4']]) {
    const input = page.locator(`[data-key="${key}"] input, input[data-key="${key}"], [name="${key}"]`).first();
    assert.equal(await input.count(), 1, `${key} in the form`);
    const v = (await input.inputValue()) || (await input.getAttribute('placeholder'));
    assert.equal(String(v).replace(/,/g, ''), value, key);
  }
  // an 8x longer prompt: the state's bytes per sequence stay, the full layers' grow
  const longer = await openPage(url(8192));
  await waitEvaluated(longer.page);
  const rows8 = await kvRows(longer.page);
  assert.equal(rows8[1].cells[5], state.cells[5]);
  assert.notEqual(rows8[0].cells[5], rows[0].cells[5]);
  await shot(page, 'architectures-qwen3-next');
  assert.deepEqual([...errors, ...longer.errors], []);
  await longer.page.close();
  await page.close();
});

test('Bamba-9B on one H100: Mamba-2 layers keep a fixed state; tp 8 splits their heads', async () => {
  const { page, errors } = await openPage('v=1&mode=inference&m=bamba-9b&tp=1&b=1&in=4096&out=128');
  await waitEvaluated(page);
  const rows = await kvRows(page);
  assert.deepEqual(rows.map((r) => [r.type, r.cells[1]]), [['full', '3'], ['linear_state', '29']]);
  // 29 x (128 heads x 128 x 64 x 4 B + 3 x 8448 x 2 B) = 117.4 MiB per sequence
  assert.match(rows[1].cells[5], /^117\sMiB$/);
  const kind = page.locator('select[data-key="model.linear_attention.kind"], [data-key="model.linear_attention.kind"] select').first();
  assert.equal(await kind.count(), 1, 'the mixer kind in the form');
  assert.equal(await kind.inputValue(), 'mamba2');
  // the validation line says that none of the quoted runs had Mamba-2 layers
  assert.match(await page.textContent('.accuracy-note'), /None of these runs had Mamba-2 layers: the model costs them from the work and traffic it counts/);
  // tp 8: 16 heads per rank and a copy of the one B/C group, an eighth of the state and a little more
  const tp8 = await openPage('v=1&mode=inference&m=bamba-9b&tp=8&b=1&in=4096&out=128');
  await waitEvaluated(tp8.page);
  const rows8 = await kvRows(tp8.page);
  assert.match(rows8[1].cells[5], /^14\.\d\sMiB$/);
  await shot(page, 'architectures-bamba');
  assert.deepEqual([...errors, ...tp8.errors], []);
  await tp8.page.close();
  await page.close();
});

// The link an import of a Nemotron 3 Nano-shaped config.json writes: custom
// on Qwen3-Next (whose full_every 4 stays in the preset), 29 mixers of which
// 6 softmax (full_layers) and 6 without their MoE block.
test('a hybrid MoE with an irregular pattern: 6 softmax layers of 29, full_layers over the preset\'s full_every', async () => {
  const model = 'm=qwen3-next-80b-a3b&ml=29&mh=2688&ma=32&md=128&mf=1856&mt=relu2&mv=131072&xe=128&xk=6&xf=1856&xsf=3712&aog=0'
    + '&lakn=mamba2&lak=8&lav=64&lavd=64&lach=128&lafn=6&mxo=6';
  const { page, errors } = await openPage(`v=1&mode=inference&${model}&tp=1&b=1&in=4096&out=128`);
  await waitEvaluated(page);
  const verdict = await page.textContent('.verdict');
  assert.match(verdict, /^Fits/, verdict);
  const rows = await kvRows(page);
  assert.deepEqual(rows.map((r) => [r.type, r.cells[1]]), [['full', '6'], ['linear_state', '23']]);
  assert.match(await page.locator('[data-key="parameters"] .value').textContent(), /^31\.6B$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a training scenario has no KV view', async () => {
  const { page, errors } = await openPage('v=1&m=llama3.1-8b');
  await waitEvaluated(page);
  assert.equal(await page.locator('[data-view="kv"]').count(), 0);
  assert.deepEqual(errors, []);
  assert.deepEqual(h.problems, []);
  await page.close();
});
