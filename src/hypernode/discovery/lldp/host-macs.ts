// `config.hostMacs`: MAC → Node lines, for hosts whose LLDP system name
// cannot name their Node (NIC-firmware LLDP on Intel, ConnectX and Broadcom
// NICs sends no system name, or the NIC model shared by every server). One
// `MAC node` pair per line, `#` starts a comment; a Node with several NICs
// has one line per NIC MAC. Any MAC form vendors print is accepted (aa:bb:..,
// aa-bb-.., aabb.ccdd.eeff, 12 hex digits). A line matches a neighbour's
// chassis MAC, or its port id when that is a MAC: lldpd sends the port's own
// MAC there, and ConnectX firmware the MAC the host's OS shows (its chassis
// id is another MAC, the port MAC + 2, which the OS never shows).

import { macHex, macText, parseMacText } from './lldp-ids.ts';
import type { LldpNeighbour } from './lldp-mib.ts';

/** Node names by MAC as 12 hex digits (a MAC chassis key, lldp-ids.ts). */
export type HostMacs = ReadonlyMap<string, string>;

/** Parses the lines; throws naming the line that is not `MAC node` or that maps one MAC twice. */
export function parseHostMacs(raw: unknown, where: string): HostMacs {
  const out = new Map<string, string>();
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'string') throw new Error(`${where} must be a block of "MAC node" lines (write it with |), got ${JSON.stringify(raw)}`);
  raw.split('\n').forEach((line, i) => {
    const text = line.replace(/#.*/, '').trim();
    if (text === '') return;
    const m = /^(\S+)\s+([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(text);
    const mac = m ? parseMacText(m[1]!) : undefined;
    if (!m || !mac) throw new Error(`${where} line ${i + 1} ${JSON.stringify(line.trim())} is not "MAC node" (e.g. "b8:ce:f6:01:02:03 gpu-node-17")`);
    const key = mac.toString('hex');
    const have = out.get(key);
    if (have !== undefined && have !== m[2]) throw new Error(`${where} line ${i + 1} maps ${macText(mac)} to ${m[2]}, but an earlier line maps it to ${have}`);
    out.set(key, m[2]!);
  });
  return out;
}

/** The Node a line names for `n`: by its chassis MAC, else by its MAC-type port id; undefined when none does. */
export function nodeByMac(macs: HostMacs, n: Pick<LldpNeighbour, 'chassisKey' | 'portMac'>): string | undefined {
  const chassis = n.chassisKey === undefined ? undefined : macHex(n.chassisKey);
  return (chassis === undefined ? undefined : macs.get(chassis)) ?? (n.portMac === undefined ? undefined : macs.get(n.portMac));
}
