// The README's validation table is what the CLI prints today.
import test from 'node:test';
import assert from 'node:assert/strict';
import { currentTable, readmeTable } from '../../scripts/readme-validation.mjs';

test('README validation table matches llmcalc validate --markdown', () => {
  assert.equal(readmeTable(), currentTable());
});
