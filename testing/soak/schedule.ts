// The soak test's fault schedule: a seeded pseudo-random sequence, so a run
// that found something can be repeated with the same faults in the same order
// with the same parameters (the wall-clock spacing still depends on how fast
// the machine is). Pure: no I/O, no clock.

export const FAULT_KINDS = [
  'watch-cut',
  'burst-5xx',
  'burst-429',
  'apiserver-restart',
  'apiserver-restart-data-loss',
  'leader-kill',
  'leader-freeze',
  'ufm-500',
  'ufm-garbage',
  'ufm-empty',
  'config-reload-valid',
  'config-reload-broken',
  'rack-retired',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * Relative frequency after the first round: faults that take a leader away or
 * wipe the store cost a failover or a full relist each, so they come less
 * often than the cheap ones, as in a real cluster.
 */
const WEIGHT: Record<FaultKind, number> = {
  'watch-cut': 2,
  'burst-5xx': 2,
  'burst-429': 2,
  'apiserver-restart': 1,
  'apiserver-restart-data-loss': 0.5,
  'leader-kill': 0.5,
  'leader-freeze': 0.5,
  'ufm-500': 1,
  'ufm-garbage': 1,
  'ufm-empty': 1,
  'config-reload-valid': 1,
  'config-reload-broken': 1,
  'rack-retired': 0.25,
};

export interface Fault {
  kind: FaultKind;
  /** Pause before this fault, ms. */
  gapMs: number;
  /** How many requests a burst fails, or how long a UFM or configuration fault lasts (ms). */
  size: number;
  /** A number in [0, 1) for choices the fault makes when it runs (which rack, which status code). */
  pick: number;
}

export interface ScheduleOptions {
  seed: number;
  /** Faults beyond the first round, which has every kind once in a shuffled order. */
  extra: number;
  /** Range of the pause before each fault, ms. */
  gapMs: readonly [number, number];
}

/** mulberry32: a small, fast, seedable generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weightedKind(random: () => number): FaultKind {
  const total = FAULT_KINDS.reduce((s, k) => s + WEIGHT[k], 0);
  let r = random() * total;
  for (const k of FAULT_KINDS) {
    r -= WEIGHT[k];
    if (r < 0) return k;
  }
  return FAULT_KINDS[FAULT_KINDS.length - 1]!;
}

function sizeOf(kind: FaultKind, random: () => number): number {
  const between = (lo: number, hi: number) => Math.round(lo + random() * (hi - lo));
  if (kind === 'burst-5xx' || kind === 'burst-429') return between(5, 40);
  if (kind.startsWith('ufm-') || kind.startsWith('config-')) return between(2_000, 6_000);
  return 0;
}

/** Every kind once (shuffled), then `extra` weighted draws. */
export function faultSchedule(o: ScheduleOptions): Fault[] {
  const random = seededRandom(o.seed);
  const kinds: FaultKind[] = [...FAULT_KINDS];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  for (let i = 0; i < o.extra; i++) kinds.push(weightedKind(random));
  const [lo, hi] = o.gapMs;
  return kinds.map((kind) => ({
    kind,
    gapMs: Math.round(lo + random() * (hi - lo)),
    size: sizeOf(kind, random),
    pick: random(),
  }));
}
