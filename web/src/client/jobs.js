// Long jobs (search, sweep, studies): they run in their own worker (so the
// calculator's worker stays free), one at a time, and Cancel terminates that
// worker and starts a fresh one.
import { Cancelled, EXPLORE_TIMEOUT_MS, Engine } from './engine.js';

export class JobRunner {
  constructor(url = 'worker.js') {
    this.url = url;
    this.engine = null;
    this.token = null;
    this.cancels = 0;
  }

  get busy() {
    return this.token !== null;
  }

  // task(call) does the work; call(fn, arg) is a worker call that rejects with
  // Cancelled once this job was cancelled or replaced.
  async run(task) {
    if (this.token) this.cancel();
    const token = {};
    this.token = token;
    if (!this.engine) this.engine = new Engine(this.url, { timeoutMs: EXPLORE_TIMEOUT_MS });
    const call = (fn, arg) => {
      if (this.token !== token) return Promise.reject(new Cancelled());
      return this.engine.call(fn, arg);
    };
    try {
      return await task(call);
    } finally {
      if (this.token === token) this.token = null;
    }
  }

  cancel() {
    if (!this.token) return false;
    this.token = null;
    this.cancels += 1;
    this.engine.restart();
    return true;
  }
}
