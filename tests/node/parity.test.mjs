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
