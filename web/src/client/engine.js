// Talks to the worker. Requests are promises; evaluate() keeps at most one
// evaluation in flight and coalesces the rest, and a slow one is cancelled by
// terminating the worker and starting a fresh one.
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.cancelled = true;
  }
}

// The limit of a search, sweep or study call (an evaluation's is 20 s).
export const EXPLORE_TIMEOUT_MS = 120000;

// The worker web/src/boot.js started before this bundle ran, taken once (a
// restart starts a fresh one). One that failed to load is dropped: a new one
// reports its error to the handler the Engine sets.
function takeEarlyWorker(url) {
  const early = globalThis.llmcalcEarlyWorker;
  if (!early || early.url !== url) return null;
  globalThis.llmcalcEarlyWorker = null;
  if (!early.error) return early.worker;
  early.worker.terminate();
  return null;
}

export class Engine {
  constructor(url = 'worker.js', { cancelAfterMs = 300, timeoutMs = 20000 } = {}) {
    this.url = url;
    this.cancelAfterMs = cancelAfterMs;
    this.timeoutMs = timeoutMs;
    this.seq = 0;
    this.calls = new Map();
    this.inflight = null; // {id, started}
    this.queued = null; // {json, resolve, reject}
    this.restarts = 0;
    this.start();
  }

  start() {
    this.worker = takeEarlyWorker(this.url) || new Worker(this.url);
    this.worker.onmessage = (e) => this.onMessage(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.failAll(new Error(`worker error: ${e.message || 'failed to load'}`));
    };
  }

  onMessage(msg) {
    if (!msg || msg.id === undefined) return;
    const call = this.calls.get(msg.id);
    if (!call) return;
    this.calls.delete(msg.id);
    clearTimeout(call.timer);
    if (msg.ok) call.resolve(msg.result);
    else call.reject(new Error(msg.error));
  }

  failAll(err) {
    for (const call of this.calls.values()) {
      clearTimeout(call.timer);
      call.reject(err);
    }
    this.calls.clear();
  }

  restart() {
    this.worker.terminate();
    this.restarts += 1;
    this.failAll(new Cancelled());
    this.inflight = null;
    this.start();
  }

  // timeoutMs: this call's limit, when it may take longer than an evaluation (a study).
  call(fn, json, { timeoutMs = this.timeoutMs } = {}) {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const call = this.calls.get(id);
        if (!call) return;
        this.calls.delete(id);
        call.reject(new Error(`${fn} took longer than ${timeoutMs / 1000} s and was stopped`));
        this.restart();
      }, timeoutMs);
      this.calls.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, fn, json });
    });
  }

  // Latest-wins evaluation. Resolves with the result JSON string; rejects with
  // Cancelled when a newer request superseded this one.
  evaluate(json) {
    return new Promise((resolve, reject) => {
      if (this.queued) this.queued.reject(new Cancelled());
      this.queued = { json, resolve, reject };
      if (this.inflight && performance.now() - this.inflight.started > this.cancelAfterMs) this.restart();
      this.pump();
    });
  }

  pump() {
    if (this.inflight || !this.queued) return;
    const { json, resolve, reject } = this.queued;
    this.queued = null;
    const token = { started: performance.now() };
    this.inflight = token;
    this.call('evaluate', json)
      .then(resolve, reject)
      .finally(() => {
        if (this.inflight === token) this.inflight = null;
        this.pump();
      });
  }
}
