// Every citation id used in the presets, the core, the tests and the README
// ([HF1.1], [TS7a], [CE4.1], [CE-K38], [R5], [R28b]) resolves to an entry of docs/sources.md, and
// the presets and README cite no document outside the repository.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from './wasm.mjs';

const doc = readFileSync(join(repoRoot, 'docs', 'sources.md'), 'utf8');
const entries = new Set([...doc.matchAll(/(?:\*\*|### )\[([A-Za-z0-9.-]+)\]/g)].map((m) => m[1]));

function files(dir, exts) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, exts);
    return exts.some((e) => name.endsWith(e)) ? [path] : [];
  });
}

const cited = [
  ...files(join(repoRoot, 'core'), ['.json', '.cpp', '.h']),
  ...files(join(repoRoot, 'tests', 'cpp'), ['.cpp', '.h']),
  join(repoRoot, 'README.md'),
];

// "[R28a,R28d]" -> R28, "[HF1.3]" -> HF1.3; R codes with a letter suffix resolve to their group.
function ids(text) {
  const out = [];
  for (const m of text.matchAll(/\[((?:HF|TS|CE)[0-9][0-9.a-z]*|CE-K[0-9]+|R[0-9]+[a-z]?(?:\s*,\s*R[0-9]+[a-z]?)*)\]/g)) {
    for (const id of m[1].split(',').map((x) => x.trim())) out.push(id);
  }
  return out;
}
const resolves = (id) => entries.has(id) || (/^R[0-9]+[a-z]$/.test(id) && entries.has(id.replace(/[a-z]$/, '')));

test('docs/sources.md has the entries the ids point at', () => {
  for (const id of ['HF1.1', 'HF3', 'TS7a', 'TS12c', 'CE4.1', 'CE-K38', 'R1', 'R22', 'Korthikanti22', 'Kundu24', 'DF-HW']) assert.ok(entries.has(id), id);
});

test('every citation id resolves in docs/sources.md', () => {
  let seen = 0;
  for (const file of cited) {
    for (const id of ids(readFileSync(file, 'utf8'))) {
      seen += 1;
      assert.ok(resolves(id), `${relative(repoRoot, file)}: [${id}] is not in docs/sources.md`);
    }
  }
  assert.ok(seen > 100, `citations found: ${seen}`);
});

test('presets and README cite no document outside the repository', () => {
  const outside = /hardware-facts|technology-scaling|model-architectures|cost-and-energy|\/work\/|shared data/;
  for (const file of [...files(join(repoRoot, 'core', 'presets'), ['.json']), join(repoRoot, 'README.md'), ...files(join(repoRoot, 'docs'), ['.md'])]) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => assert.doesNotMatch(line, outside, `${relative(repoRoot, file)}:${i + 1}`));
  }
});
