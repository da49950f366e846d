// Accessibility audit with axe-core (the engine behind Lighthouse's and
// Deque's checkers) inside the real page: every view a visitor can reach,
// in light and dark mode, at desktop and phone width, with the dialogs
// open, must have no WCAG 2.0/2.1 A and AA violation and none of axe's
// best-practice ones. axe's "incomplete" results (text over SVG charts,
// whose background it cannot compute) are not failures; the rules that
// judge colour are run in both colour schemes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { openPage, setup, waitEvaluated } from './harness.mjs';

setup();

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

// Runs axe on the page as it stands; returns its violations, one line each.
// page.evaluate goes through the DevTools protocol, which the page's CSP
// does not govern, so the page keeps its production policy.
async function audit(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags } }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }))),
    TAGS,
  );
  return violations.map((v) => `${v.id} [${v.impact}] at ${v.targets.join(', ')}`);
}

const exploreDone = (page, view) =>
  page.waitForFunction((v) => document.querySelector(`[data-explore="${v}"] .job-bar`)?.dataset.state === 'done', view, { timeout: 60000 });

// [name, hash, how to wait until the view is drawn]
const VIEWS = [
  ['calculator, training', 'v=1&tp=2&dp=4&sp=1&z=1&gb=256&sl=8192', waitEvaluated],
  ['calculator, inference (MoE, MLA)', 'v=1&mode=inference&m=deepseek-v3&s=gb200-nvl72&tp=8&b=64', waitEvaluated],
  ['calculator, does not fit', 'v=1&m=llama3.1-70b&tp=1&dp=8&gb=64', waitEvaluated],
  ['calculator, a bad link (input error and notice)', 'v=1&tp=banana&zz=3', (p) => p.waitForFunction(() => document.querySelector('#status')?.textContent.startsWith('Input error'))],
  ['search with results', 'v=1&gb=64&view=search&qg=16', (p) => exploreDone(p, 'search')],
  ['sweep with results', 'v=1&tp=2&dp=4&gb=64&view=sweep&wi=system.matmul_eff&wf=0.5&wt=0.8&wn=4&wl=lin', (p) => exploreDone(p, 'sweep')],
  ['study with results', 'view=study&study=gpu-generations', (p) => exploreDone(p, 'study')],
  ['systems study (bars and table)', 'v=1&dp=8&gb=64&sl=4096&view=study&study=systems', (p) => exploreDone(p, 'study')],
  ['models study (bars and table)', 'v=1&dp=8&gb=64&sl=4096&view=study&study=models', (p) => exploreDone(p, 'study')],
  ['published-runs study (error dots and tables)', 'view=study&study=published-runs', (p) => exploreDone(p, 'study')],
  ['embed, summary', 'v=1&embed=1&view=summary', waitEvaluated],
  ['embed, operations table', 'v=1&embed=1&view=ops', waitEvaluated],
];

for (const scheme of ['light', 'dark']) {
  test(`axe: no violations in any view (${scheme} mode)`, async () => {
    const found = [];
    for (const [name, hash, drawn] of VIEWS) {
      const { page, errors } = await openPage(hash);
      await page.emulateMedia({ colorScheme: scheme });
      await drawn(page);
      for (const v of await audit(page)) found.push(`${name}: ${v}`);
      await page.close();
      assert.deepEqual(errors, [], name);
    }
    assert.deepEqual(found, []);
  });
}

test('axe: no violations at phone width, with a pinned comparison, and in the dialogs', async () => {
  const { page, errors } = await openPage('v=1&tp=2&dp=4&sp=1&z=1&gb=256&sl=8192', { viewport: { width: 390, height: 844 } });
  await waitEvaluated(page);
  const found = (await audit(page)).map((v) => `phone: ${v}`);

  await page.click('#pin');
  await page.locator('[data-key="parallelism.tp"] input').fill('4');
  await page.locator('[data-view="compare"]').waitFor();
  found.push(...(await audit(page)).map((v) => `pinned comparison: ${v}`));

  for (const [button, dialog] of [['#embed', 'Embed'], ['#import', 'Import']]) {
    await page.click(button);
    await page.locator('dialog[open]').waitFor();
    found.push(...(await audit(page)).map((v) => `${dialog} dialog: ${v}`));
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
  }
  await page.close();
  assert.deepEqual(found, []);
  assert.deepEqual(errors, []);
});
