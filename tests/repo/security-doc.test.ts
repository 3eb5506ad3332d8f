// docs/security.md is the threat model: every "cannot" it states names the
// test of tests/security/ that holds it. A line naming a file that is gone or
// a title that file does not spell fails here, so the document cannot promise
// more than the suite checks, and every numbered section (one per input)
// states at least one "cannot". A title counts when the file holds it as a
// string literal: the suite's tests are declared through small wrappers
// (a browser test, a lab test), each with its title written out whole.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The document without its fenced blocks, which show the format rather than state a "cannot". */
const doc = readFileSync(join(ROOT, 'docs/security.md'), 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** A "cannot" line: `- **Cannot** … Test: `tests/security/x.test.ts` › "title"`. */
const CANNOT = /^- \*\*Cannot\*\* .*Test: `(tests\/security\/[^`]+\.test\.ts)` › "(.+)"\s*$/;

interface Section {
  readonly heading: string;
  readonly lines: readonly string[];
}

/** The numbered sections (`## 1. …`), each with its lines. */
function sections(): Section[] {
  const out: Section[] = [];
  for (const part of doc.split(/\n(?=## \d+\. )/).slice(1)) {
    const [heading, ...lines] = part.split('\n');
    out.push({ heading: heading!, lines });
  }
  return out;
}

/** The string literals of a file (quoted with ', " or a backtick without placeholders), unescaped. */
function stringLiterals(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const literals = [...text.matchAll(/(['"`])((?:\\.|(?!\1)[^\\\n])*)\1/g)].filter((m) => !m[2]!.includes('${'));
  return new Set(literals.map((m) => m[2]!.replace(/\\(.)/g, '$1')));
}

test('the check sees the numbered sections (a check that sees none would pass anything)', () => {
  assert.ok(sections().length >= 9, `docs/security.md has ${sections().length} numbered sections`);
});

test('every "cannot" line names a file and a title in the one format the check reads', () => {
  const malformed = doc.split('\n').filter((l) => l.startsWith('- **Cannot**') && !CANNOT.test(l));
  assert.equal(
    malformed,
    [],
    'lines starting "- **Cannot**" that do not end in Test: `tests/security/….test.ts` › "title"',
  );
});

test('every "cannot" is held by a test of that title in the file it names', () => {
  const missing: string[] = [];
  for (const line of doc.split('\n')) {
    const m = CANNOT.exec(line);
    if (!m) continue;
    const [, file, title] = m;
    if (!existsSync(join(ROOT, file!))) missing.push(`${file} (no such file)`);
    else if (!stringLiterals(file!).has(title!)) missing.push(`${file} › "${title}"`);
  }
  assert.equal(missing, [], 'named tests that do not exist');
});

test('every input of the threat model states at least one "cannot"', () => {
  const empty = sections()
    .filter((s) => !s.lines.some((l) => CANNOT.test(l)))
    .map((s) => s.heading);
  assert.equal(empty, [], 'sections without a "cannot" line');
});

test.run();
