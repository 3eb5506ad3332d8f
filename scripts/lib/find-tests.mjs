// Test files under a folder, found by the end of their name, in a stable order:
// shared by the suite runner (scripts/test.mjs) and the long property run.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` whose name ends with `suffix` (e.g. `.test.ts`), sorted. */
export function findTestFiles(dir, suffix) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTestFiles(p, suffix));
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}
