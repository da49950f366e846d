// The Web Worker that owns the wasm module. It loads it once and answers
// {id, fn, json} messages with {id, ok, result} or {id, ok: false, error}.
// fn: evaluate, search, sweep (scenario JSON), study (a name), study_request
// ({"name", "params"} JSON), derive (a technology budget), presets, schema, version.
// A classic worker: importScripts loads the Emscripten glue from this folder.
/* global importScripts, createLlmcalc */
importScripts('llmcalc.js');

const ready = createLlmcalc();
const FUNCTIONS = new Set(['evaluate', 'presets', 'schema', 'version', 'search', 'sweep', 'study', 'study_request', 'derive']);
const WITH_ARG = new Set(['evaluate', 'search', 'sweep', 'study', 'study_request', 'derive']);

self.onmessage = async (event) => {
  const { id, fn, json } = event.data || {};
  try {
    if (!FUNCTIONS.has(fn)) throw new Error(`unknown function ${fn}`);
    const mod = await ready;
    const result = WITH_ARG.has(fn) ? mod[fn](String(json ?? '')) : mod[fn]();
    self.postMessage({ id, ok: true, result });
  } catch (err) {
    self.postMessage({ id, ok: false, error: String((err && err.message) || err) });
  }
};

ready.then(
  () => self.postMessage({ ready: true }),
  (err) => self.postMessage({ ready: false, error: String((err && err.message) || err) }),
);
