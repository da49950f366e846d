// The command line's contract (docs/scenario.md): every request answers one
// JSON object, --text answers lines, and a request it cannot serve (an
// unreadable file, an invalid scenario, bad arguments) exits with status 2.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = (args, input) => spawnSync(path.join(root, 'build/native/llmcalc'), args, { encoding: 'utf8', input });
const spec = (name) => path.join(root, 'tests/spec', name);
const missing = path.join(root, 'tests/spec/no-such-file.json');

test('run answers the result as JSON and exits 0; --text answers lines', () => {
  const json = cli(['run', spec('training-gpt3-175b-a100.json')]);
  assert.equal(json.status, 0);
  assert.ok(JSON.parse(json.stdout).training.iteration_time_s > 0);
  const text = cli(['run', '--text', spec('training-gpt3-175b-a100.json')]);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /^Training GPT-3 175B on /);
});

test('a file that cannot be read is an error object (a line with --text) and status 2', () => {
  for (const args of [['run', missing], ['search', missing], ['sweep', missing], ['derive', missing],
    ['study', '--json', 'systems', missing]]) {
    const r = cli(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.deepEqual(JSON.parse(r.stdout), { error: { path: '$', message: `cannot read ${missing}` } }, args.join(' '));
  }
  for (const args of [['run', '--text', missing], ['search', '--text', missing], ['study', 'systems', missing]]) {
    const r = cli(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stdout, `error: $: cannot read ${missing}\n`, args.join(' '));
  }
});

test('an invalid scenario from standard input names its JSON path and exits 2', () => {
  const bad = JSON.stringify({ mode: 'training', model: 'llama3.1-8b', system: 'dgx-h100', training: { bogus: 1 } });
  const r = cli(['run', '-'], bad);
  assert.equal(r.status, 2);
  assert.equal(JSON.parse(r.stdout).error.path, 'training.bogus');
  const text = cli(['run', '--text', '-'], bad);
  assert.equal(text.status, 2);
  assert.match(text.stdout, /^error: training\.bogus: /);
});

test('unknown commands and wrong argument counts print the usage and exit 2', () => {
  for (const args of [[], ['frobnicate'], ['run'], ['run', '--json', 'x'], ['schema', 'extra']]) {
    const r = cli(args);
    assert.equal(r.status, 2, args.join(' '));
    // an unknown command is named before the usage
    const head = args[0] === 'frobnicate' ? 'error: unknown command "frobnicate"\n' : '';
    assert.ok(r.stderr.startsWith(`${head}usage:\n  llmcalc run `), `${args.join(' ')}: ${r.stderr.slice(0, 80)}`);
  }
  // a mistyped study name is offered the closest
  const study = cli(['study', 'gpu-generation']);
  assert.equal(study.status, 2);
  assert.match(study.stdout + study.stderr, /unknown study "gpu-generation" \(did you mean "gpu-generations"\?\)/);
});
