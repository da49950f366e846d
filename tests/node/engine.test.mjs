// The page's worker client (web/src/client/engine.js) with a fake Worker: latest
// request wins, a slow evaluation is cancelled by terminating the worker and
// starting a fresh one, and a stuck one times out.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { Engine } from '../../web/src/client/engine.js';

// Answers {id, fn, json} after json.delay ms with "done:<json.tag>".
class FakeWorker {
  static created = 0;
  static terminated = 0;
  constructor() {
    FakeWorker.created++;
    this.timers = new Set();
    this.onmessage = null;
  }
  postMessage({ id, json }) {
    const { delay = 0, tag = '' } = JSON.parse(json || '{}');
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.onmessage?.({ data: { id, ok: true, result: `done:${tag}` } });
    }, delay);
    this.timers.add(t);
  }
  terminate() {
    FakeWorker.terminated++;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

let saved;
beforeEach(() => {
  saved = globalThis.Worker;
  globalThis.Worker = FakeWorker;
  FakeWorker.created = 0;
  FakeWorker.terminated = 0;
});
afterEach(() => {
  globalThis.Worker = saved;
});

const req = (tag, delay) => JSON.stringify({ tag, delay });
const settle = (p) => p.then((v) => ({ v }), (e) => ({ e }));

test('latest request wins; superseded queued ones are cancelled', async () => {
  const engine = new Engine('w.js', { cancelAfterMs: 1000 });
  const a = settle(engine.evaluate(req('a', 50)));
  const b = settle(engine.evaluate(req('b', 10)));
  const c = settle(engine.evaluate(req('c', 10)));
  assert.deepEqual(await a, { v: 'done:a' }); // in flight, young: allowed to finish
  assert.ok((await b).e?.cancelled);
  assert.deepEqual(await c, { v: 'done:c' });
  assert.equal(FakeWorker.terminated, 0);
  engine.worker.terminate();
});

test('a slow evaluation is cancelled by restarting the worker', async () => {
  const engine = new Engine('w.js', { cancelAfterMs: 30 });
  const slow = settle(engine.evaluate(req('slow', 5000)));
  await new Promise((r) => setTimeout(r, 60));
  const fast = settle(engine.evaluate(req('fast', 5)));
  assert.ok((await slow).e?.cancelled);
  assert.deepEqual(await fast, { v: 'done:fast' });
  assert.equal(FakeWorker.terminated, 1);
  assert.equal(FakeWorker.created, 2);
  engine.worker.terminate();
});

test('a stuck call times out and the worker is replaced', async () => {
  const engine = new Engine('w.js', { timeoutMs: 40 });
  const r = await settle(engine.call('evaluate', req('stuck', 10000)));
  assert.match(String(r.e?.message), /longer than/);
  assert.equal(FakeWorker.terminated, 1);
  assert.deepEqual(await settle(engine.evaluate(req('after', 1))), { v: 'done:after' });
  engine.worker.terminate();
});

// web/src/boot.js starts the worker before the bundle runs; the Engine takes
// that one over once instead of starting a second, and drops one that failed.
test('the worker boot.js started early is taken over once; a restart starts a fresh one', async () => {
  const early = { url: 'w.js', worker: new FakeWorker(), error: '' };
  globalThis.llmcalcEarlyWorker = early;
  const engine = new Engine('w.js', { timeoutMs: 40 });
  assert.equal(engine.worker, early.worker);
  assert.equal(globalThis.llmcalcEarlyWorker, null);
  assert.equal(FakeWorker.created, 1);
  assert.deepEqual(await settle(engine.evaluate(req('early', 1))), { v: 'done:early' });
  await settle(engine.call('evaluate', req('stuck', 10000)));
  assert.notEqual(engine.worker, early.worker);
  assert.equal(FakeWorker.created, 2);
  delete globalThis.llmcalcEarlyWorker;
  engine.worker.terminate();
});

test('an early worker that failed to load, or one for another script, is not taken', () => {
  const failed = { url: 'w.js', worker: new FakeWorker(), error: 'failed to load' };
  globalThis.llmcalcEarlyWorker = failed;
  const engine = new Engine('w.js');
  assert.notEqual(engine.worker, failed.worker);
  assert.equal(FakeWorker.terminated, 1);
  const other = { url: 'other.js', worker: new FakeWorker(), error: '' };
  globalThis.llmcalcEarlyWorker = other;
  const second = new Engine('w.js');
  assert.notEqual(second.worker, other.worker);
  assert.equal(globalThis.llmcalcEarlyWorker, other);
  delete globalThis.llmcalcEarlyWorker;
  for (const e of [engine, second]) e.worker.terminate();
});
