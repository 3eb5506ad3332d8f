// The fenced examples of README.md and docs/*.md, with the marker that may
// precede each (an HTML comment on the line before the fence, invisible when
// the Markdown is rendered). docs/design.md, "Examples in the docs", is the
// reference for the markers; tests/repo/docs-examples.test.ts runs them.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Fence {
  /** `docs/configuration.md`, relative to the repository. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The info string's first word: `sh`, `yaml`, `text`, or '' for none. */
  readonly lang: string;
  readonly body: string;
  /** The marker's text after `example:`, trimmed; undefined without a marker. */
  readonly marker: string | undefined;
}

/** `<!-- example: … -->` on the line before a fence (blank lines between are allowed). */
const MARKER = /^<!--\s*example:\s*([\s\S]*?)\s*-->$/;

/** The Markdown files whose examples are held to the code: README.md and every docs/*.md. */
export function documentedFiles(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

/** The fences of `file` in order. */
export function fencesOf(root: string, file: string): Fence[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const fences: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(open[1]!) && l.trim() === open[1]);
    const close = end < 0 ? lines.length : end;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = before >= 0 ? MARKER.exec(lines[before]!.trim())?.[1] : undefined;
    fences.push({ file, line: i + 1, lang: open[2]!, body: lines.slice(i + 1, close).join('\n'), marker });
    i = close;
  }
  return fences;
}

/** `<file>:<line>`, for messages. */
export const where = (f: Fence): string => `${f.file}:${f.line}`;
