// A fresh temporary directory for each test of the file that calls
// scratchDir (registered on uvu's default suite), removed after the test:
// where the render tests write their configuration, Node lists and captures.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import type { NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';

export interface ScratchDir {
  /** The path of `name` in the current test's directory. */
  path(name: string): string;
  /** Writes `text` to `name` in the current test's directory; returns its path. */
  write(name: string, text: string): string;
  /** Writes nodes.json, a kubectl List of these Nodes (a bare name is a Node without labels); returns its path. */
  nodesFile(nodes: readonly (string | NodeMeta)[]): string;
}

/** Whether `text` (a command's stderr) has `line` as one of its lines. */
export const hasLine = (text: string, line: string): boolean => text.split('\n').includes(line);

export function scratchDir(prefix: string): ScratchDir {
  let dir = '';
  test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), prefix))));
  test.after.each(() => rmSync(dir, { recursive: true, force: true }));
  const path = (name: string) => join(dir, name);
  const write = (name: string, text: string) => {
    writeFileSync(path(name), text);
    return path(name);
  };
  return {
    path,
    write,
    nodesFile: (nodes) =>
      write(
        'nodes.json',
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: nodes.map((n) => ({
            apiVersion: 'v1',
            kind: 'Node',
            ...(typeof n === 'string' ? { metadata: { name: n } } : n),
          })),
        }),
      ),
  };
}
