// Random links, as a visitor could type or a stale page could write them:
// each shows a result or names what is wrong, and nothing on the page reads
// NaN, Infinity, undefined or [object ...]; no page or console error. The
// native fuzz test holds the core to the same rule; this one covers what the
// page does with the core's answers (formatting, charts, tables, the form).
// The draws are seeded, so a failure names a link that reproduces it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageContext } from '../node/wasm.mjs';
import { h, openPage, setup } from './harness.mjs';

setup();

// Park-Miller minimal standard generator: the same links on every run.
function generator(seed) {
  let s = seed;
  const next = () => (s = (s * 16807) % 2147483647) / 2147483647;
  return { next, pick: (list) => list[Math.floor(next() * list.length)] };
}

// In-range, edge and out-of-range values of each type.
const INTS = [0, 1, 2, 3, 4, 8, 16, 64, 1000, -1];
const NUMBERS = [0, 0.5, 1, 2, 10, 1e-9, 1e9, -3];
function drawValue(rng, field) {
  if (field.type === 'enum') return rng.pick(field.values);
  if (field.type === 'bool') return rng.pick(['0', '1']);
  if (field.type === 'int') return rng.pick(INTS);
  if (field.type === 'number') return rng.pick(NUMBERS);
  return null;
}

// Words that mean a value went missing or non-finite on its way to the page
// (a product name such as "AMD Infinity Fabric" or "ZeRO-Infinity" is not one).
const BROKEN = /\bNaN\b|(?<![-\w])Infinity(?! Fabric)|\bundefined\b|\[object \w+\]|\bnull\b/;

function brokenText(text) {
  const m = text.match(BROKEN);
  return m ? text.slice(Math.max(0, m.index - 60), m.index + 40) : null;
}

async function scenarioLinks(count, seed) {
  const { schema, presets } = await pageContext();
  const rng = generator(seed);
  const scenarioFields = schema.fields.filter((f) => f.url && !f.request && f.type !== 'preset' && f.key !== 'mode');
  const links = [];
  for (let i = 0; i < count; i++) {
    const p = new URLSearchParams({ v: '1', mode: rng.pick(['training', 'inference']) });
    p.set('m', rng.pick(Object.keys(presets.models)));
    p.set('s', rng.pick(Object.keys(presets.systems)));
    const changes = 1 + Math.floor(rng.next() * 5);
    for (let j = 0; j < changes; j++) {
      const f = rng.pick(scenarioFields);
      const v = drawValue(rng, f);
      if (v !== null) p.set(f.url, String(v));
    }
    links.push(p.toString());
  }
  return links;
}

test('random calculator links: a result or the bad input named, never NaN, undefined or a page error', async () => {
  const links = await scenarioLinks(40, 20261205);
  const { page, errors } = await openPage();
  const tally = { evaluated: 0, refused: 0 };
  for (const link of links) {
    await page.evaluate((hash) => {
      document.querySelector('#status').textContent = 'waiting';
      location.hash = hash;
    }, link);
    await page.waitForFunction(() => /^(Evaluated|Input error)/.test(document.querySelector('#status').textContent));
    const status = await page.textContent('#status');
    if (status.startsWith('Evaluated')) tally.evaluated += 1;
    else {
      tally.refused += 1;
      // the message names the input: a dotted path or a field's label
      assert.match(status, /^Input error: [a-z_]+[.\w[\]]*: /, `${link}: ${status}`);
    }
    const text = await page.evaluate(() => `${document.querySelector('#output').innerText}\n${document.querySelector('#form').innerText}`);
    assert.equal(brokenText(text), null, `#${link}`);
    assert.deepEqual(errors, [], `#${link}`);
  }
  // The draws reach both outcomes, so the test looks at results, not only at messages.
  assert.ok(tally.evaluated >= 5 && tally.refused >= 5, JSON.stringify(tally));
  await page.close();
});

test('random search, sweep and study links finish with a result or a named error, never NaN or undefined', async () => {
  const { schema, presets } = await pageContext();
  const rng = generator(7);
  const numeric = schema.fields.filter((f) => (f.type === 'int' || f.type === 'number') && f.url && !f.request).map((f) => f.key);
  const studies = schema.fields.find((f) => f.key === 'study.name').values.filter((s) => s !== 'models');
  for (let i = 0; i < 8; i++) {
    const p = new URLSearchParams({ v: '1', mode: rng.pick(['training', 'inference']), m: rng.pick(Object.keys(presets.models)), s: rng.pick(Object.keys(presets.systems)) });
    const view = ['search', 'sweep', 'study'][i % 3];
    p.set('view', view);
    if (view === 'search') p.set('qg', String(rng.pick([1, 3, 8, 64, 0])));
    if (view === 'sweep') {
      p.set('wi', rng.pick(numeric));
      p.set('wf', String(rng.pick([-1, 0, 1, 2])));
      p.set('wt', String(rng.pick([4, 64, 1e6])));
      p.set('wn', String(rng.pick([1, 2, 5])));
    }
    if (view === 'study') p.set('study', rng.pick(studies));
    const link = p.toString();
    const { page, errors } = await openPage(link);
    await page.waitForFunction(() => {
      const bars = [...document.querySelectorAll('.job-bar')].filter((b) => b.offsetParent);
      return bars.length > 0 && bars.every((b) => b.dataset.state === 'done' || b.dataset.state === 'error');
    }, null, { timeout: 90000 });
    const text = await page.evaluate(() => document.querySelector('#output').innerText);
    assert.equal(brokenText(text), null, `#${link}`);
    assert.deepEqual(errors, [], `#${link}`);
    await page.close();
  }
});
