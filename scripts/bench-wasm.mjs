// Times one evaluate() of the wasm module in Node, for each spec example.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadWasm, repoRoot } from '../tests/node/wasm.mjs';

const mod = await loadWasm();
const dir = join(repoRoot, 'tests', 'spec');
for (const name of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const json = readFileSync(join(dir, name), 'utf8');
  mod.evaluate(json); // warm up
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < 500 || n < 5) {
    mod.evaluate(json);
    n++;
    t = performance.now();
  }
  console.log(`wasm evaluate ${name}: ${((t - t0) / n).toFixed(3)} ms/eval (${n} runs)`);
}
