// The end state the soak expects: what the shipped executable's offline
// `render` subcommand computes from the final inputs (Nodes, discovery
// configuration, captured UFM answer) and the HyperNodes in the store (whose
// names it adopts, as the controller does), compared with the store.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ApiServer } from '../apiserver/index.ts';
import { BINARY, BUNDLE } from '../executables.ts';
import type { SoakInputs } from './inputs.ts';

const run = promisify(execFile);
const RENDER_TIMEOUT_MS = 60_000;

interface HyperNodeLike {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { tier?: number | string; members?: unknown[] };
  status?: { nodeCount?: number };
}

/** One line per HyperNode: name, labels, tier, members (sorted), and nodeCount when `withCount`. */
function describe(
  hns: HyperNodeLike[],
  labelKeys: (hn: HyperNodeLike) => string[],
  withCount: (name: string) => boolean,
): string[] {
  return hns
    .map((hn) => {
      const labels = Object.fromEntries(labelKeys(hn).map((k) => [k, hn.metadata.labels?.[k]]));
      const members = (hn.spec?.members ?? []).map((m) => JSON.stringify(m)).sort();
      const count = withCount(hn.metadata.name) ? ` nodeCount=${hn.status?.nodeCount}` : '';
      return `${hn.metadata.name} ${JSON.stringify(labels)} tier=${hn.spec?.tier} ${members.join(',')}${count}`;
    })
    .sort();
}

export interface RenderComparison {
  equal: boolean;
  /** Lines only in the store (-) or only in render's answer (+), at most a few. */
  diff: string[];
  expected: number;
}

export async function compareWithRender(api: ApiServer, inputs: SoakInputs, dir: string): Promise<RenderComparison> {
  mkdirSync(join(dir, 'ufm'), { recursive: true });
  const stored = api.store.list('hypernodes') as unknown as HyperNodeLike[];
  writeFileSync(join(dir, 'nodes.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: inputs.nodes }));
  writeFileSync(join(dir, 'existing.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: stored }));
  writeFileSync(join(dir, 'config.yaml'), inputs.config());
  writeFileSync(join(dir, 'ufm', 'ports.json'), JSON.stringify(inputs.ufmPorts));
  const flags = [
    'render',
    `--config=${join(dir, 'config.yaml')}`,
    `--nodes=${join(dir, 'nodes.json')}`,
    `--existing=${join(dir, 'existing.json')}`,
    `--ufm-capture=${join(dir, 'ufm')}`,
    '-o',
    'json',
  ];
  const [cmd, args] = existsSync(BINARY) ? [BINARY, flags] : [process.execPath, [BUNDLE, ...flags]];
  const { stdout } = await run(cmd, args, { timeout: RENDER_TIMEOUT_MS, maxBuffer: 256 * 1024 * 1024 });
  const rendered = (JSON.parse(stdout) as { items: HyperNodeLike[] }).items;
  const keysOf = new Map(rendered.map((hn) => [hn.metadata.name, Object.keys(hn.metadata.labels ?? {})]));
  const counted = new Set(rendered.filter((hn) => hn.status?.nodeCount !== undefined).map((hn) => hn.metadata.name));
  const labelKeys = (hn: HyperNodeLike) => keysOf.get(hn.metadata.name) ?? Object.keys(hn.metadata.labels ?? {});
  const want = describe(rendered, labelKeys, (n) => counted.has(n));
  const have = describe(stored, labelKeys, (n) => counted.has(n));
  const wantSet = new Set(want);
  const haveSet = new Set(have);
  const diff = [
    ...have.filter((l) => !wantSet.has(l)).map((l) => `- ${l}`),
    ...want.filter((l) => !haveSet.has(l)).map((l) => `+ ${l}`),
  ];
  return { equal: diff.length === 0, diff: diff.slice(0, 8), expected: rendered.length };
}
