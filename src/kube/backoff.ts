// Jittered exponential backoff (apimachinery's wait.Backoff with the
// reflector's defaults: 800 ms doubling to 30 s, up to +100 % jitter) and
// wait.Jitter. Randomness is injectable so tests are deterministic.

export const REFLECTOR_BACKOFF_INITIAL_MS = 800;
export const REFLECTOR_BACKOFF_MAX_MS = 30_000;

export class Backoff {
  private attempt = 0;
  constructor(
    private readonly initialMs = REFLECTOR_BACKOFF_INITIAL_MS,
    private readonly maxMs = REFLECTOR_BACKOFF_MAX_MS,
    private readonly random: () => number = Math.random,
  ) {}
  /** The next delay: initial × 2^n capped at max, plus up to the same again as jitter (capped at max). */
  next(): number {
    const base = Math.min(this.initialMs * 2 ** this.attempt, this.maxMs);
    this.attempt++;
    return Math.min(base + base * this.random(), this.maxMs);
  }
  reset(): void {
    this.attempt = 0;
  }
}

/** wait.Jitter: a duration between `ms` and `ms × (1 + factor)`. */
export function jitter(ms: number, factor: number, random: () => number = Math.random): number {
  return ms + ms * factor * random();
}
