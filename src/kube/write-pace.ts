// How many writes one client set keeps in flight, so that its token bucket
// (--kube-api-qps / --kube-api-burst), not the API server's answer time,
// sets the pace. One write at a time is bound by latency: a real
// kube-apiserver took ~11 ms to create a custom resource, so 11,000 writes
// took 138 s where the rate limit of 1000 qps allowed 11 s.
// client-go leaves this to each controller's worker count; ours follows the
// answer times it measures.

/** The answer time assumed before any write was answered: what a real kube-apiserver took for a CRD create. */
export const ASSUMED_WRITE_LATENCY_MS = 10;
/** Never fewer in flight: a low first estimate must not turn into one write at a time. */
export const MIN_WRITE_CONCURRENCY = 4;
/**
 * Never more in flight: kube-apiserver serves 200 writes at once by default
 * (--max-mutating-requests-inflight) for every client of the cluster, and
 * answers the rest 429; one client set takes at most a quarter of that.
 */
export const MAX_WRITE_CONCURRENCY = 50;
/** Room for answer times that vary, and for the work between one write and the next. */
export const WRITE_CONCURRENCY_HEADROOM = 2;
/** Weight of the newest answer time in the running average: about the last ten writes count. */
const LATENCY_WEIGHT = 0.1;

export class WritePace {
  private latencyMs = ASSUMED_WRITE_LATENCY_MS;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {}

  /** One write's answer time, from the request leaving to the answer's head (the rate limiter's wait excluded). */
  observe(ms: number): void {
    if (!(ms >= 0)) return;
    this.latencyMs += LATENCY_WEIGHT * (ms - this.latencyMs);
  }

  /** The running average of the writes' answer times. */
  latency(): number {
    return this.latencyMs;
  }

  /**
   * Writes to keep in flight. By Little's law, sending `qps` writes a second
   * that each take `latency` seconds to answer needs qps × latency of them in
   * flight at any moment; twice that as headroom. More in flight than the
   * bucket's burst never helps (the bucket hands out no more tokens at once),
   * and the bounds above hold it between MIN and MAX. At 1000 qps and 10 ms:
   * 20; at the default 50 qps: 4.
   */
  concurrency(): number {
    const upper = Math.max(1, Math.min(MAX_WRITE_CONCURRENCY, Math.floor(this.burst)));
    const wanted = Math.ceil(this.qps * (this.latencyMs / 1000) * WRITE_CONCURRENCY_HEADROOM);
    return Math.min(upper, Math.max(MIN_WRITE_CONCURRENCY, wanted));
  }
}
