// Bad input never throws across the wasm boundary: it comes back as
// {"error": {"path", "message"}} naming where the problem is.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { loadWasm } from './wasm.mjs';

let mod;
before(async () => {
  mod = await loadWasm();
});

const base = () => ({
  mode: 'training',
  model: 'gpt3-175b',
  system: 'dgx-a100-80gb',
  parallelism: { tp: 8, pp: 8, dp: 1 },
  training: { global_batch: 64, micro_batch: 1 },
});

function errorOf(text) {
  let out;
  assert.doesNotThrow(() => {
    out = mod.evaluate(text);
  });
  assert.equal(typeof out, 'string');
  const j = JSON.parse(out);
  assert.ok(j.error, `expected an error object, got ${out.slice(0, 200)}`);
  assert.equal(typeof j.error.message, 'string');
  assert.ok(j.error.message.length > 0);
  assert.equal(typeof j.error.path, 'string');
  return j.error;
}

test('the base scenario is valid', () => {
  const j = JSON.parse(mod.evaluate(JSON.stringify(base())));
  assert.equal(j.error, undefined, JSON.stringify(j.error));
});

test('malformed JSON', () => {
  for (const text of ['', '{', '{"mode": }', 'null', '[]', '"training"', '42', '{"mode":"training",}', '\u0000']) {
    errorOf(text);
  }
});

test('unknown key names its path', () => {
  const s = base();
  s.parallelism.bogus = 1;
  assert.equal(errorOf(JSON.stringify(s)).path, 'parallelism.bogus');
  const t = base();
  t.surprise = true;
  assert.equal(errorOf(JSON.stringify(t)).path, 'surprise');
});

test('wrong type names its path', () => {
  const s = base();
  s.parallelism.tp = 'eight';
  assert.equal(errorOf(JSON.stringify(s)).path, 'parallelism.tp');
  const t = base();
  t.training.global_batch = [64];
  assert.equal(errorOf(JSON.stringify(t)).path, 'training.global_batch');
  const u = base();
  u.mode = 'serving';
  assert.equal(errorOf(JSON.stringify(u)).path, 'mode');
});

test('out-of-range numbers name their path', () => {
  const s = base();
  s.training.global_batch = -4;
  assert.equal(errorOf(JSON.stringify(s)).path, 'training.global_batch');
  const t = base();
  t.parallelism.tp = 0;
  assert.equal(errorOf(JSON.stringify(t)).path, 'parallelism.tp');
  errorOf(JSON.stringify(base()).replace('"tp":8', '"tp":1e999'));
});

test('unknown preset', () => {
  const s = base();
  s.model = 'no-such-model';
  assert.match(errorOf(JSON.stringify(s)).path, /^model/);
});

test('deeply nested input does not crash', () => {
  errorOf('['.repeat(100000));
  errorOf('{"a":'.repeat(20000) + '1' + '}'.repeat(20000));
});

test('the module still works after errors', () => {
  errorOf('{');
  const j = JSON.parse(mod.evaluate(JSON.stringify(base())));
  assert.equal(j.error, undefined);
  assert.ok(JSON.parse(mod.schema()).fields.length > 0);
  assert.ok(Object.keys(JSON.parse(mod.presets()).models).length > 0);
  assert.equal(typeof mod.version(), 'string');
});

// The shared fixture file: the same cases GoogleTest runs on the native build
// (tests/cpp/fixtures_test.cpp) give the same path and message in wasm.
test('every shared bad-input fixture gives its path and message', () => {
  const doc = JSON.parse(readFileSync(new URL('../fixtures/bad-inputs.json', import.meta.url), 'utf8'));
  assert.ok(doc.cases.length >= 30);
  for (const c of doc.cases) {
    const text = 'text' in c ? c.text : JSON.stringify(c.input);
    const e = errorOf(text);
    assert.equal(e.path, c.path, `${c.name}: ${JSON.stringify(e)}`);
    assert.ok(e.message.includes(c.message), `${c.name}: "${e.message}" lacks "${c.message}"`);
  }
});

// The errors above are C++ exceptions caught inside the module. They are
// WebAssembly's own exceptions (wasm/CMakeLists.txt: -fwasm-exceptions): the
// module imports none of the invoke_* trampolines through which Emscripten's
// JavaScript emulation (-fexceptions) routes every call that may throw,
// which made the page's search about 1.6x slower.
test('the module throws WebAssembly exceptions, not the JavaScript emulation', () => {
  for (const file of ['llmcalc.wasm', 'llmcalc.node.wasm']) {
    const module = new WebAssembly.Module(readFileSync(new URL(`../../build/wasm/wasm/${file}`, import.meta.url)));
    const invokes = WebAssembly.Module.imports(module).filter((i) => i.name.startsWith('invoke_'));
    assert.deepEqual(invokes.map((i) => i.name), [], `${file} imports the JavaScript exception trampolines`);
    assert.ok(WebAssembly.Module.exports(module).length > 0);
  }
});
