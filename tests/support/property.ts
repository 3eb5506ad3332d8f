// Settings for the property-based (fast-check) tests: bounded and seeded in
// the normal suite, longer from `scripts/property-long.mjs`. A failure prints
// the seed and the shrunk counterexample; re-run that case with
// PROPERTY_SEED=<seed> (and PROPERTY_PATH=<path> to replay it exactly).

import type { Parameters } from 'fast-check';

/** Cases per property in the normal suite: enough to find shape bugs, cheap on 2 cores. */
export const SUITE_RUNS = 200;

function envInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * fast-check parameters for one property: `PROPERTY_RUNS` scales the case
 * count (the long run sets it), `PROPERTY_SEED` fixes the seed; without one the
 * seed is derived from the time and printed with any failure.
 */
export function propertyParameters<T>(runs: number = SUITE_RUNS): Parameters<T> {
  const seed = envInt('PROPERTY_SEED');
  const path = process.env.PROPERTY_PATH;
  return {
    numRuns: envInt('PROPERTY_RUNS') ?? runs,
    ...(seed === undefined ? {} : { seed }),
    ...(path ? { path } : {}),
    verbose: 1,
  };
}

/** A deterministic permutation (Fisher–Yates over a small linear congruential generator). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
