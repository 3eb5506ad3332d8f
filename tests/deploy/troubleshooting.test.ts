// docs/troubleshooting.md quotes what an operator greps for: every `Log:` item
// is a message the code logs, every `Event:` item a reason it emits, every
// `Metric:` item a family it exports. Messages and reasons are looked up among
// the string literals of src/ (a template literal matches with any text in
// place of its ${…} parts). Every quoted line and reason is also produced
// and asserted by some test: its longest fixed part appears in a test file.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exportedFamilies } from './support/metric-families.ts';
import { repoRoot } from './support/releases.ts';

const doc = readFileSync(join(repoRoot, 'docs/troubleshooting.md'), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every string literal of src/ as a whole-string pattern (templates with 8 or more literal characters). */
function literals(): RegExp[] {
  const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const out: RegExp[] = [];
  for (const file of sourceFiles(join(repoRoot, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g))
      out.push(new RegExp(`^${escapeRegExp(m[1] ?? m[2] ?? '')}$`));
    for (const m of text.matchAll(/`((?:[^`\\]|\\.)*)`/g)) {
      const parts = m[1]!.split(/\$\{[^}]*\}/);
      // A template that is mostly placeholders (`${what}: ${err}`) would match anything.
      if (parts.join('').length >= 8) out.push(new RegExp(`^${parts.map(escapeRegExp).join('.+')}$`));
    }
  }
  return out;
}

/** The code spans of `- <kind>: ` items. */
function items(kind: string): string[] {
  return [...doc.matchAll(new RegExp(`^- ${kind}: \`([^\`]+)\``, 'gm'))].map((m) => m[1]!);
}

test('every quoted log line is one the code prints', () => {
  const patterns = literals();
  const logs = items('Log');
  assert.ok(logs.length >= 20, `${logs.length} log lines quoted`);
  for (const line of logs)
    assert.ok(
      patterns.some((p) => p.test(line)),
      `"${line}" is logged nowhere in src/`,
    );
});

test('every quoted Event reason is one the code emits', () => {
  const patterns = literals();
  const reasons = items('Event');
  assert.ok(reasons.length >= 8, `${reasons.length} reasons quoted`);
  for (const reason of reasons)
    assert.ok(
      patterns.some((p) => p.test(reason)),
      `Event reason ${reason} appears nowhere in src/`,
    );
});

test('every quoted metric is a family the controller exports', () => {
  const families = exportedFamilies();
  for (const metric of items('Metric')) assert.ok(families.has(metric), `${metric} is not exported`);
});

/** Every test file's text, regular-expression escapes undone (`\(` reads `(`), this file left out. */
function testTexts(): string {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? files(join(dir, e.name))
        : e.name.endsWith('.ts') && e.name !== 'troubleshooting.test.ts'
          ? [join(dir, e.name)]
          : [],
    );
  return files(join(repoRoot, 'tests'))
    .map((f) => readFileSync(f, 'utf8').replace(/\\(.)/g, '$1'))
    .join('\n');
}

test('every quoted log line and Event reason is asserted by a test', () => {
  const texts = testTexts();
  const unasserted = [...items('Log'), ...items('Event')].filter((quote) => {
    const fixed = quote
      .split(/\$\{[^}]*\}/)
      .map((part) => part.trim())
      .sort((a, b) => b.length - a.length)[0]!;
    return !texts.includes(fixed);
  });
  assert.equal(
    unasserted,
    [],
    'quoted in docs/troubleshooting.md but produced by no test (tests/e2e/troubleshooting-messages.test.ts is a place for them)',
  );
});

test('the check itself catches a message the code does not print', () => {
  const patterns = literals();
  assert.not.ok(patterns.some((p) => p.test('Failed to fetch UFM data, giving up')));
  assert.ok(
    patterns.some((p) => p.test('Failed to update HyperNode, will retry')),
    'a template literal matches',
  );
});

test.run();
