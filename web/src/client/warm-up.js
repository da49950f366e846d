// What the worker evaluates, unasked, once its module is ready (worker.js).
// V8 compiles a WebAssembly function when it first runs (lazy compilation),
// first with its baseline compiler, so a page load's first evaluation takes
// 100-250 ms and the next ones a few: run one while the page builds its
// form, and the visitor's evaluation finds the code compiled. A training
// plan on a preset like the first screen's, so the same paths warm up;
// tests/node/web-features.test.mjs checks that it evaluates.
export const WARM_UP_SCENARIO = JSON.stringify({
  model: 'llama3.1-8b',
  system: 'dgx-h100',
  parallelism: { dp: 8 },
  training: {},
});
