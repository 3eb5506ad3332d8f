// A fresh temporary directory for each test of the file that calls
// scratchDir (registered on uvu's default suite), removed after the test:
// where the render tests write their configuration, Node lists and captures.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';

export interface ScratchDir {
  /** The path of `name` in the current test's directory. */
  path(name: string): string;
  /** Writes `text` to `name` in the current test's directory; returns its path. */
  write(name: string, text: string): string;
}

export function scratchDir(prefix: string): ScratchDir {
  let dir = '';
  test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), prefix))));
  test.after.each(() => rmSync(dir, { recursive: true, force: true }));
  const path = (name: string) => join(dir, name);
  return {
    path,
    write(name, text) {
      writeFileSync(path(name), text);
      return path(name);
    },
  };
}
