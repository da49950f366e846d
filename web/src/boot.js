// Starts the calculator's worker from <head>, before the page's main bundle
// has downloaded and run, so the WebAssembly module downloads and compiles
// alongside it (with the worker's warm-up, client/warm-up.js, 0.1-0.2 s
// sooner to the first result on a 2-core VM from localhost; more where the
// bundle's download takes time). A classic script: it runs as soon as it
// arrives. The Engine (client/engine.js) takes the worker over; an error the
// worker reports before then is kept for it.
try {
  const url = 'worker.js';
  const early = { url, worker: new Worker(url), error: '' };
  early.worker.onerror = (e) => {
    e.preventDefault();
    early.error = e.message || 'failed to load';
  };
  self.llmcalcEarlyWorker = early;
} catch {
  // No worker here (the Engine starts its own, and reports why it cannot).
}
