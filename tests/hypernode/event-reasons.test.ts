// The Event reasons in the docs are the ones the code emits: docs/design.md's
// table is compared with the catalogue, and no code may emit a reason that is
// not in it.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HYPERNODE_EVENT_REASONS } from '../../src/hypernode/event-reasons.ts';
import { LEADER_ELECTION_EVENT } from '../../src/kube/leader-election.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BEGIN = '<!-- event-reasons:begin';
const END = '<!-- event-reasons:end -->';
const catalogue = [...HYPERNODE_EVENT_REASONS, LEADER_ELECTION_EVENT];

function expectedTable(): string {
  const rows = catalogue.map((r) => `| \`${r.reason}\` | ${r.type} | ${r.description} |`);
  return ['| Reason | Type | When |', '| --- | --- | --- |', ...rows].join('\n');
}

function documentedTable(): string {
  const doc = readFileSync(join(root, 'docs/design.md'), 'utf8');
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  assert.ok(begin >= 0 && end > begin, `docs/design.md lacks the ${BEGIN} … ${END} markers`);
  return doc.slice(doc.indexOf('\n', begin) + 1, end).trim();
}

test('the Event table in docs/design.md is the catalogue', () => {
  const want = expectedTable();
  assert.ok(
    documentedTable() === want,
    `docs/design.md §7 differs from the catalogue; paste this between the markers:\n${want}\n`,
  );
});

test('reasons are distinct CamelCase words with a one-line description', () => {
  assert.is(new Set(catalogue.map((r) => r.reason)).size, catalogue.length);
  for (const r of catalogue) {
    assert.match(r.reason, /^[A-Z][A-Za-z]+$/);
    assert.ok(r.description.length > 0 && !r.description.includes('\n'), r.reason);
  }
});

test('no code emits an Event reason written inline instead of taken from the catalogue', () => {
  const inline = /(['"])(?:Warning|Normal)\1\s*,\s*(['"`])[A-Z]/;
  const catalogueFile = join(root, 'src/hypernode/event-reasons.ts');
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts') && path !== catalogueFile && inline.test(readFileSync(path, 'utf8')))
        offenders.push(path.slice(root.length));
    }
  };
  walk(join(root, 'src'));
  assert.equal(offenders, []);
});

test.run();
