// The README's validation tables are what the CLI prints today.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentTable, readmeTable, tables } from '../../scripts/readme-validation.mjs';

for (const name of Object.keys(tables)) {
  test(`README ${name} table matches llmcalc validate --markdown ${tables[name]}`, () => {
    assert.equal(readmeTable(name), currentTable(name));
  });
}

// The README's `run --text` example is what the CLI prints for that scenario
// today: each line as printed, or its start where the README cuts it at "...".
test('README run --text example matches the CLI', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const at = readme.indexOf('`run --text` prints');
  assert.ok(at > 0, 'README describes run --text');
  const block = readme.slice(readme.indexOf('```\n', at) + 4, readme.indexOf('\n```', readme.indexOf('```\n', at) + 4));
  const printed = execFileSync(path.join(root, 'build/native/llmcalc'),
    ['run', '--text', path.join(root, 'tests/spec/training-gpt3-175b-a100.json')], { encoding: 'utf8' }).split('\n');
  for (const line of block.split('\n')) {
    const cut = line.endsWith(' ...');
    const head = cut ? line.slice(0, -' ...'.length) : line;
    assert.ok(printed.some((p) => (cut ? p.startsWith(head) : p === line)), `not printed: ${line}`);
  }
});
