// Regenerates (or, with --check, verifies) the validation table in README.md
// from `llmcalc validate --markdown tests/validation/public`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const begin = '<!-- validation:begin -->\n';
const end = '<!-- validation:end -->';

export function currentTable(cli = path.join(root, 'build/native/llmcalc')) {
  return execFileSync(cli, ['validate', '--markdown', path.join(root, 'tests/validation/public')], { encoding: 'utf8' });
}

export function readmeTable(text = readFileSync(path.join(root, 'README.md'), 'utf8')) {
  const a = text.indexOf(begin), b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error('README.md has no validation markers');
  return text.slice(a + begin.length, b);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = path.join(root, 'README.md');
  const text = readFileSync(file, 'utf8');
  const table = currentTable();
  if (process.argv.includes('--check')) {
    if (readmeTable(text) !== table) {
      console.error('README validation table is stale; run: node scripts/readme-validation.mjs');
      process.exit(1);
    }
  } else {
    const a = text.indexOf(begin) + begin.length, b = text.indexOf(end);
    writeFileSync(file, text.slice(0, a) + table + text.slice(b));
  }
}
