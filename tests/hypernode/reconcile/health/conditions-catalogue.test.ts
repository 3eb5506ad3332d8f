// The condition catalogue in docs/health.md is the one the code writes: its
// table is compared with the reasons of src/hypernode/reconcile/health/conditions.ts,
// and every reason fits the CRD's pattern for status.conditions[].reason.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as conditions from '../../../../src/hypernode/reconcile/health/conditions.ts';
import { CONDITION_REASONS } from '../../../../src/hypernode/reconcile/health/conditions.ts';

const DOC = fileURLToPath(new URL('../../../../docs/health.md', import.meta.url));
const BEGIN = '<!-- condition-catalogue:begin';
const END = '<!-- condition-catalogue:end -->';
/** The CRD's pattern for a condition reason (testing/apiserver/topology.volcano.sh_hypernodes.yaml). */
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

function expectedTable(): string {
  const rows = CONDITION_REASONS.map(
    (r) => `| \`${r.type}\` | ${r.status} | \`${r.reason}\` | ${r.when} | ${r.message.replaceAll('|', '\\|')} |`,
  );
  return ['| Type | Status | Reason | When | Message |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

test('the condition table in docs/health.md is the catalogue', () => {
  const doc = readFileSync(DOC, 'utf8');
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  assert.ok(begin >= 0 && end > begin, `docs/health.md lacks the ${BEGIN} … ${END} markers`);
  const want = expectedTable();
  assert.ok(
    doc.slice(doc.indexOf('\n', begin) + 1, end).trim() === want,
    `docs/health.md differs from the catalogue; paste this between the markers:\n${want}\n`,
  );
});

test('every reason defined is in the catalogue, so none goes undocumented', () => {
  const isReason = (v: unknown): v is conditions.ConditionReason => typeof v === 'object' && v !== null && 'when' in v;
  const defined = Object.values(conditions).filter(isReason);
  assert.equal(new Set(defined), new Set(CONDITION_REASONS));
});

test('reasons are distinct and fit the CRD pattern', () => {
  assert.is(new Set(CONDITION_REASONS.map((r) => r.reason)).size, CONDITION_REASONS.length);
  for (const r of CONDITION_REASONS) assert.match(r.reason, REASON);
});

test.run();
