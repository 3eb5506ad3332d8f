// The condition catalogue in docs/health.md is the one the code writes: its
// table is compared with src/hypernode/reconcile/health/condition-catalogue.ts, and every
// reason fits the CRD's pattern for status.conditions[].reason.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEALTH_CONDITION_CATALOGUE } from '../../../src/hypernode/reconcile/health/condition-catalogue.ts';

const DOC = fileURLToPath(new URL('../../../docs/health.md', import.meta.url));
const BEGIN = '<!-- condition-catalogue:begin';
const END = '<!-- condition-catalogue:end -->';
/** The CRD's pattern for a condition reason (testing/apiserver/topology.volcano.sh_hypernodes.yaml). */
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

function expectedTable(): string {
  const rows = HEALTH_CONDITION_CATALOGUE.map((r) => `| \`${r.type}\` | ${r.status} | \`${r.reason}\` | ${r.when} | ${r.message.replaceAll('|', '\\|')} |`);
  return ['| Type | Status | Reason | When | Message |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

test('the condition table in docs/health.md is the catalogue', () => {
  const doc = readFileSync(DOC, 'utf8');
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  assert.ok(begin >= 0 && end > begin, `docs/health.md lacks the ${BEGIN} … ${END} markers`);
  const want = expectedTable();
  assert.ok(doc.slice(doc.indexOf('\n', begin) + 1, end).trim() === want, `docs/health.md differs from the catalogue; paste this between the markers:\n${want}\n`);
});

test('reasons are distinct and fit the CRD pattern', () => {
  assert.is(new Set(HEALTH_CONDITION_CATALOGUE.map((r) => r.reason)).size, HEALTH_CONDITION_CATALOGUE.length);
  for (const r of HEALTH_CONDITION_CATALOGUE) assert.match(r.reason, REASON);
});

test.run();
