// The wasm module and the native CLI give the same answer (numbers within
// 1e-9 relative) on every public validation case and spec example.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { diffJson, loadWasm, repoRoot, runCli } from './wasm.mjs';

const validationDir = join(repoRoot, 'tests', 'validation', 'public');
const specDir = join(repoRoot, 'tests', 'spec');
const jsonFiles = (dir) => readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

let mod;
let tmp;
before(async () => {
  mod = await loadWasm();
  tmp = mkdtempSync(join(tmpdir(), 'llmcalc-parity-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

function checkParity(name, scenario) {
  const text = JSON.stringify(scenario);
  const file = join(tmp, name);
  writeFileSync(file, text);
  const native = runCli(['run', file]);
  assert.ok(native.status === 0 || native.status === 2, `CLI exit status ${native.status}`);
  const fromCli = JSON.parse(native.stdout);
  const fromWasm = JSON.parse(mod.evaluate(text));
  assert.equal('error' in fromWasm, native.status === 2, 'wasm and CLI agree on whether the input is valid');
  const diffs = diffJson(fromWasm, fromCli);
  assert.deepEqual(diffs, [], `wasm vs native differ:\n${diffs.join('\n')}`);
  return fromWasm;
}

describe('wasm matches native on validation cases', () => {
  const files = jsonFiles(validationDir);
  test('there are validation cases', () => assert.ok(files.length > 0));
  for (const f of files) {
    test(f, () => {
      const c = JSON.parse(readFileSync(join(validationDir, f), 'utf8'));
      const out = checkParity(f, c.scenario);
      assert.equal(out.error, undefined, `validation scenario rejected: ${JSON.stringify(out.error)}`);
    });
  }
});

describe('wasm matches native on spec examples', () => {
  for (const f of jsonFiles(specDir)) {
    test(f, () => checkParity(f, JSON.parse(readFileSync(join(specDir, f), 'utf8'))));
  }
});

// The text summary (the page's Text export, the CLI's run --text) is the
// same text, byte for byte: every number in it comes from the same core.
describe('wasm evaluate_text matches native run --text', () => {
  for (const f of jsonFiles(specDir)) {
    test(f, () => {
      const text = readFileSync(join(specDir, f), 'utf8');
      const native = runCli(['run', '--text', join(specDir, f)]);
      assert.equal(native.status, 0, native.stdout);
      assert.equal(mod.evaluate_text(text), native.stdout);
    });
  }
  test('a bad scenario is the same error line in both', () => {
    const bad = '{"mode":"training","model":"llama3.1-8b","system":"dgx-h100","training":{"bogus":1}}';
    const file = join(tmp, 'bad-text.json');
    writeFileSync(file, bad);
    const native = runCli(['run', '--text', file]);
    assert.equal(native.status, 2);
    assert.equal(mod.evaluate_text(bad), native.stdout);
    assert.match(native.stdout, /^error: training\.bogus: unknown key; known here: .*global_batch.*\n$/);
  });
});

test('schema, presets and version agree with the CLI', () => {
  assert.deepEqual(JSON.parse(mod.schema()), JSON.parse(runCli(['schema']).stdout));
  assert.deepEqual(JSON.parse(mod.presets()), JSON.parse(runCli(['presets']).stdout));
  assert.equal(mod.version().trim(), runCli(['version']).stdout.trim());
});

describe('wasm matches native on derived technology-node devices', () => {
  for (const node of ['12nm', '7nm', '5nm', '3nm', '2nm', '1.4nm', '1nm']) {
    test(node, () => {
      const text = JSON.stringify({ node, tdp_W: 900 });
      const file = join(tmp, `derive-${node}.json`);
      writeFileSync(file, text);
      const native = runCli(['derive', file]);
      assert.equal(native.status, 0, native.stdout);
      const fromWasm = JSON.parse(mod.derive(text));
      assert.equal(fromWasm.device.node, node);
      const diffs = diffJson(fromWasm, JSON.parse(native.stdout));
      assert.deepEqual(diffs, [], `wasm vs native differ:\n${diffs.join('\n')}`);
    });
  }
  test('a bad budget is an error in both', () => {
    const fromWasm = JSON.parse(mod.derive('{"node":"4nm"}'));
    assert.equal(fromWasm.error.path, 'node');
  });
});

// The exploration functions too: the same request through wasm and the CLI.
// A search reports its own wall time (elapsed_s), which is left out.
function explorationParity(cmd, name, request, call) {
  const text = JSON.stringify(request);
  const file = join(tmp, name);
  writeFileSync(file, text);
  const native = runCli([cmd, file]);
  assert.equal(native.status, 0, native.stdout.slice(0, 300));
  const fromCli = JSON.parse(native.stdout);
  const fromWasm = JSON.parse(call(text));
  for (const out of [fromCli, fromWasm]) if (out.search) delete out.search.elapsed_s;
  const diffs = diffJson(fromWasm, fromCli);
  assert.deepEqual(diffs, [], `wasm vs native differ:\n${diffs.join('\n')}`);
  return fromWasm;
}

describe('wasm matches native on search, sweep and studies', () => {
  test('search (training, 64 GPUs)', () => {
    const r = explorationParity('search', 'search.json', {
      mode: 'training', model: 'llama3.1-8b', system: 'dgx-h100',
      training: { global_batch: 256, seq_len: 4096 }, search: { gpus: 64, top: 5 },
    }, (t) => mod.search(t));
    assert.ok(r.search.best.length > 0);
  });
  test('search (inference, 8 GPUs, TTFT bound)', () => {
    explorationParity('search', 'search-inf.json', {
      mode: 'inference', model: 'llama3.1-70b', system: 'dgx-h100',
      inference: { input_tokens: 2048, output_tokens: 256 }, search: { gpus: 8, max_ttft_s: 2 },
    }, (t) => mod.search(t));
  });
  test('sweep of a system figure with a series', () => {
    const r = explorationParity('sweep', 'sweep.json', {
      mode: 'training', model: 'llama3.1-8b', system: 'dgx-h100',
      parallelism: { tp: 2, dp: 4 }, training: { global_batch: 64, seq_len: 4096 },
      sweep: { input: 'system.hbm_GBps', from: 1000, to: 8000, steps: 4, scale: 'log',
        outputs: ['training.iteration_time_s', 'training.mfu'], series: { system: ['dgx-h100', 'dgx-b200'] } },
    }, (t) => mod.sweep(t));
    assert.equal(r.sweep.series.length, 2);
  });
  for (const [name, rows] of [['systems', 10], ['scaling', 5], ['models', 20]]) {
    test(`study ${name} (of a scenario)`, () => {
      const scenario = { mode: 'training', model: 'llama3.1-8b', system: 'dgx-h100', parallelism: { dp: 8 }, training: { global_batch: 64, seq_len: 4096 } };
      const file = join(tmp, `${name}.json`);
      writeFileSync(file, JSON.stringify(scenario));
      const native = runCli(['study', '--json', name, file]);
      assert.equal(native.status, 0, native.stdout.slice(0, 300));
      const fromWasm = JSON.parse(mod.study_request(JSON.stringify({ name, params: scenario })));
      assert.ok(fromWasm.rows.length > rows);
      const diffs = diffJson(fromWasm, JSON.parse(native.stdout));
      assert.deepEqual(diffs, [], `wasm vs native differ:\n${diffs.join('\n')}`);
    });
  }
  for (const name of ['gpu-generations', 'technology-nodes', 'dram-scaling', 'inference-boundedness', 'published-runs']) {
    test(`study ${name}`, () => {
      const native = runCli(['study', '--json', name]);
      assert.equal(native.status, 0, native.stdout.slice(0, 300));
      const diffs = diffJson(JSON.parse(mod.study(name)), JSON.parse(native.stdout));
      assert.deepEqual(diffs, [], `wasm vs native differ:\n${diffs.join('\n')}`);
    });
  }
});

// The golden outputs of the spec examples (tests/fixtures/golden), which the
// native tests check too.
describe('wasm matches the golden outputs of the spec examples', () => {
  const goldenDir = join(repoRoot, 'tests', 'fixtures', 'golden');
  for (const f of jsonFiles(specDir)) {
    test(f, () => {
      const fromWasm = JSON.parse(mod.evaluate(readFileSync(join(specDir, f), 'utf8')));
      const golden = JSON.parse(readFileSync(join(goldenDir, f), 'utf8'));
      const diffs = diffJson(fromWasm, golden);
      assert.deepEqual(diffs, [], `wasm vs golden (rerun scripts/update-golden.sh after a deliberate change):\n${diffs.join('\n')}`);
    });
  }
});
