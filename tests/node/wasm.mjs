// Shared helpers for the Node tests: load the Node flavour of the wasm module
// (CommonJS glue + wasmBinary read from disk: Node's fetch cannot load a file
// path) and run the native CLI.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const wasmDir = join(repoRoot, 'build', 'wasm', 'wasm');

let modPromise = null;
export function loadWasm() {
  if (!modPromise) {
    const require = createRequire(import.meta.url);
    const createLlmcalc = require(join(wasmDir, 'llmcalc.node.cjs'));
    modPromise = createLlmcalc({ wasmBinary: readFileSync(join(wasmDir, 'llmcalc.node.wasm')) });
  }
  return modPromise;
}

// What the page's state code needs: the module, its schema and presets, and
// the page's defaults (mode, model and system from the schema, nothing set).
export async function pageContext() {
  const mod = await loadWasm();
  const schema = JSON.parse(mod.schema());
  const presets = JSON.parse(mod.presets());
  const def = (k) => schema.fields.find((f) => f.key === k).default;
  const defaults = { mode: def('mode'), model: def('model'), system: def('system'), values: {} };
  return { mod, schema, presets, defaults };
}

export function nativeCliPath() {
  for (const p of ['build/native/llmcalc', 'build/native/core/llmcalc']) {
    const full = join(repoRoot, p);
    if (existsSync(full)) return full;
  }
  throw new Error('native CLI not built (scripts/build.sh native)');
}

// Runs the CLI; returns {status, stdout}. Exit status 2 is an input error.
export function runCli(args) {
  try {
    const stdout = execFileSync(nativeCliPath(), args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    return { status: 0, stdout };
  } catch (err) {
    if (typeof err.status === 'number') return { status: err.status, stdout: String(err.stdout || '') };
    throw err;
  }
}

// Deep comparison: same keys and types, numbers equal within `rel` relative.
// Returns a list of differences ("path: why"), empty when equal.
export function diffJson(a, b, rel = 1e-9, path = '$', out = []) {
  if (out.length > 20) return out;
  if (typeof a === 'number' && typeof b === 'number') {
    const scale = Math.max(Math.abs(a), Math.abs(b));
    if (!(a === b || Math.abs(a - b) <= rel * scale)) out.push(`${path}: ${a} != ${b}`);
    return out;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) out.push(`${path}: array vs non-array`);
    else if (a.length !== b.length) out.push(`${path}: length ${a.length} != ${b.length}`);
    else a.forEach((x, i) => diffJson(x, b[i], rel, `${path}[${i}]`, out));
    return out;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (!(k in a)) out.push(`${path}.${k}: missing in first`);
      else if (!(k in b)) out.push(`${path}.${k}: missing in second`);
      else diffJson(a[k], b[k], rel, `${path}.${k}`, out);
    }
    return out;
  }
  if (a !== b) out.push(`${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
  return out;
}
