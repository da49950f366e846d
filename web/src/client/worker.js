// The Web Worker that owns the wasm module. It loads it once and answers
// {id, fn, json} messages with {id, ok, result} or {id, ok: false, error}.
// The functions and whether each takes an argument come from the module
// itself (functions(), listed once in wasm/bindings.cpp).
// A classic worker: importScripts loads the Emscripten glue from this folder.
/* global importScripts, createLlmcalc */
import { WARM_UP_SCENARIO } from './warm-up.js';

importScripts('llmcalc.js');

const ready = createLlmcalc().then((mod) => {
  const list = JSON.parse(mod.functions());
  return { mod, withArg: new Set(list.with_arg), noArg: new Set(list.no_arg) };
});

let evaluateAsked = false;

self.onmessage = async (event) => {
  const { id, fn, json } = event.data || {};
  if (fn === 'evaluate') evaluateAsked = true;
  try {
    const { mod, withArg, noArg } = await ready;
    if (!withArg.has(fn) && !noArg.has(fn)) throw new Error(`unknown function ${fn}`);
    const result = withArg.has(fn) ? mod[fn](String(json ?? '')) : mod[fn]();
    self.postMessage({ id, ok: true, result });
  } catch (err) {
    self.postMessage({ id, ok: false, error: String((err && err.message) || err) });
  }
};

// After the requests already waiting for the module (a timeout runs after
// their continuations), and only when no evaluation is asked for yet: a
// worker restarted to cancel one has the next one waiting, which warms it.
// The result is dropped; evaluate() returns errors as JSON, never throws.
const warmUp = ({ mod }) => {
  if (!evaluateAsked) mod.evaluate(WARM_UP_SCENARIO);
};

ready.then(
  (loaded) => {
    self.postMessage({ ready: true });
    setTimeout(() => warmUp(loaded), 0);
  },
  (err) => self.postMessage({ ready: false, error: String((err && err.message) || err) }),
);
