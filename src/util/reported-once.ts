// "Say it once while it holds", the rule of every repeated report (a failed
// discovery run, a failed write, a refused snapshot, a miscabled fabric): the
// message last reported per key is remembered, so the same one again is not
// reported, a different one is, and forgetting the key (its trouble is over)
// lets the next one through. firstTimeSeen is the looser rule of the export
// workers: each distinct message once, whatever came between.

/** The message last reported per key (one unnamed key by default). */
export class LastReported<K = string> {
  private readonly last = new Map<K | '', string>();

  /** True when `message` is not the one last reported for `key`; it becomes that one. */
  isNew(message: string, key: K | '' = ''): boolean {
    if (this.last.get(key) === message) return false;
    this.last.set(key, message);
    return true;
  }

  /** The message last reported for `key`, while it holds. */
  get(key: K | '' = ''): string | undefined {
    return this.last.get(key);
  }

  has(key: K | '' = ''): boolean {
    return this.last.has(key);
  }

  /** Forgets `key` (its trouble is over); true when a report was remembered, i.e. this is a recovery. */
  forget(key: K | '' = ''): boolean {
    return this.last.delete(key);
  }

  /** Keys whose report still holds. */
  keys(): (K | '')[] {
    return [...this.last.keys()];
  }
}

/** Distinct messages a firstTimeSeen remembers; past that it forgets them all, so the memory stays small. */
const MAX_REMEMBERED_MESSAGES = 1_000;

/**
 * The once-while-it-repeats rule of the Node label and Topology object
 * workers: true the first time a message is given (and again once the
 * memory has been cleared), so the caller logs it then.
 */
export function firstTimeSeen(): (message: string) => boolean {
  const seen = new Set<string>();
  return (message) => {
    if (seen.has(message)) return false;
    if (seen.size >= MAX_REMEMBERED_MESSAGES) seen.clear();
    seen.add(message);
    return true;
  };
}
