// Commit subjects are at most 72 characters, with the why in the body: the
// rule holds for every commit after the one that introduced it, so `git log
// --oneline` reads in one line per change. Earlier history is left as it is
// (it cannot be rewritten without changing every later commit).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testNeeding } from '../support/skip.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The last commit before the rule; everything after it must follow it. */
const RULE_STARTS_AFTER = 'b245d7af5b3c559a67dffcb86c342ba59dc3f308';
const MAX_SUBJECT = 72;

function git(...args: string[]): { ok: boolean; out: string } {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return { ok: r.status === 0, out: r.stdout ?? '' };
}

const hasHistory = git('cat-file', '-e', `${RULE_STARTS_AFTER}^{commit}`).ok;
const gitTest = testNeeding(
  hasHistory
    ? undefined
    : `the checkout has no git history back to ${RULE_STARTS_AFTER.slice(0, 12)} (a shallow clone or no git)`,
);

gitTest('every commit subject since the rule is at most 72 characters', () => {
  const log = git('log', '--format=%H%x00%s%x1e', `${RULE_STARTS_AFTER}..HEAD`);
  assert.ok(log.ok, 'git log failed');
  const bad = log.out
    .split('\x1e')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => entry.split('\x00') as [string, string])
    .filter(([, subject]) => subject.length > MAX_SUBJECT)
    .map(([hash, subject]) => `${hash.slice(0, 12)} (${subject.length} characters): ${subject}`);
  assert.equal(bad, []);
});

test.run();
