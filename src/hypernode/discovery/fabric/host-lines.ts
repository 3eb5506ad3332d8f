// `<id> <node>` lines: a host's hardware id (a NIC's MAC, an HCA's GUID) →
// its Kubernetes Node, for hosts a fabric cannot name by itself (NIC-firmware
// LLDP without a system name, an HCA that kept its firmware's description).
// A block string, one pair per line, `#` starting a comment; every source
// that maps hosts by id reads it here, with the same checks and messages.

import { quoteInput } from '../../../util/input-fragment.ts';

/** How one kind of id is written and read. */
export interface HostLineId {
  /** `MAC`, `GUID`: how messages name the id. */
  readonly word: string;
  /** A whole example line, e.g. `b8:ce:f6:01:02:03 gpu-node-17`. */
  readonly example: string;
  /** The id's key (one canonical form) and how messages show it, or undefined when `text` is none. */
  parse(text: string): { readonly key: string; readonly shown: string } | undefined;
}

/** Node names by id key; throws naming the line that is not `<id> node` or that maps one id twice. */
export function parseHostLines(raw: unknown, where: string, id: HostLineId): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'string')
    throw new Error(`${where} must be a block of "${id.word} node" lines (write it with |), got ${quoteInput(raw)}`);
  raw.split('\n').forEach((line, i) => {
    const text = line.replace(/#.*/, '').trim();
    if (text === '') return;
    const m = /^(\S+)\s+([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(text);
    const parsed = m ? id.parse(m[1]!) : undefined;
    if (!m || !parsed)
      throw new Error(
        `${where} line ${i + 1} ${quoteInput(line.trim())} is not "${id.word} node" (e.g. "${id.example}")`,
      );
    const have = out.get(parsed.key);
    if (have !== undefined && have !== m[2])
      throw new Error(`${where} line ${i + 1} maps ${parsed.shown} to ${m[2]}, but an earlier line maps it to ${have}`);
    out.set(parsed.key, m[2]!);
  });
  return out;
}
