// The Web Worker that owns the wasm module. It loads it once and answers
// {id, fn, json} messages with {id, ok, result} or {id, ok: false, error}.
// The functions and whether each takes an argument come from the module
// itself (functions(), listed once in wasm/bindings.cpp).
// A classic worker: importScripts loads the Emscripten glue from this folder.
/* global importScripts, createLlmcalc */
importScripts('llmcalc.js');

const ready = createLlmcalc().then((mod) => {
  const list = JSON.parse(mod.functions());
  return { mod, withArg: new Set(list.with_arg), noArg: new Set(list.no_arg) };
});

self.onmessage = async (event) => {
  const { id, fn, json } = event.data || {};
  try {
    const { mod, withArg, noArg } = await ready;
    if (!withArg.has(fn) && !noArg.has(fn)) throw new Error(`unknown function ${fn}`);
    const result = withArg.has(fn) ? mod[fn](String(json ?? '')) : mod[fn]();
    self.postMessage({ id, ok: true, result });
  } catch (err) {
    self.postMessage({ id, ok: false, error: String((err && err.message) || err) });
  }
};

ready.then(
  () => self.postMessage({ ready: true }),
  (err) => self.postMessage({ ready: false, error: String((err && err.message) || err) }),
);
