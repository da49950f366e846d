// The README's validation tables are what the CLI prints today.
import test from 'node:test';
import assert from 'node:assert/strict';
import { currentTable, readmeTable, tables } from '../../scripts/readme-validation.mjs';

for (const name of Object.keys(tables)) {
  test(`README ${name} table matches llmcalc validate --markdown ${tables[name]}`, () => {
    assert.equal(readmeTable(name), currentTable(name));
  });
}
