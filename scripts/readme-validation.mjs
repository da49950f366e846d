// Regenerates (or, with --check, verifies) the validation tables in README.md
// from `llmcalc validate --markdown DIR`: one table per marker pair below;
// the "regimes" table renders core/presets/validation/accuracy.json (what
// every result quotes), kept current by scripts/update-golden.sh.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// marker name -> the case folder whose summary sits between its markers
export const tables = { validation: 'tests/validation/public', kernels: 'tests/validation/device', regimes: null };

const pct = (x) => `${(100 * x).toFixed(1)}%`;

function regimeTable() {
  const table = JSON.parse(readFileSync(path.join(root, 'core/presets/validation/accuracy.json'), 'utf8'));
  let md = '| kind of run | measured output | cases | mean abs. error | max abs. error | bias |\n|---|---|---|---|---|---|\n';
  for (const [id, r] of Object.entries(table.regimes)) {
    for (const m of r.metrics) {
      const bias = `${m.mean_error >= 0 ? '+' : '-'}${pct(Math.abs(m.mean_error))}`;
      md += `| ${r.label} (\`${id}\`) | \`${m.metric}\` | ${m.cases} | ${pct(m.mean_abs_error)} | ${pct(m.max_abs_error)} | ${bias} |\n`;
    }
  }
  return md;
}

export function currentTable(name = 'validation', cli = path.join(root, 'build/native/llmcalc')) {
  if (name === 'regimes') return regimeTable();
  return execFileSync(cli, ['validate', '--markdown', path.join(root, tables[name])], { encoding: 'utf8' });
}

function span(text, name) {
  const begin = `<!-- ${name}:begin -->\n`, end = `<!-- ${name}:end -->`;
  const a = text.indexOf(begin), b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`README.md has no ${name} markers`);
  return [a + begin.length, b];
}

export function readmeTable(name = 'validation', text = readFileSync(path.join(root, 'README.md'), 'utf8')) {
  const [a, b] = span(text, name);
  return text.slice(a, b);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = path.join(root, 'README.md');
  let text = readFileSync(file, 'utf8');
  let stale = false;
  for (const name of Object.keys(tables)) {
    const table = currentTable(name);
    if (readmeTable(name, text) === table) continue;
    stale = true;
    const [a, b] = span(text, name);
    text = text.slice(0, a) + table + text.slice(b);
  }
  if (process.argv.includes('--check')) {
    if (stale) {
      console.error('README validation tables are stale; run: node scripts/readme-validation.mjs');
      process.exit(1);
    }
  } else {
    writeFileSync(file, text);
  }
}
