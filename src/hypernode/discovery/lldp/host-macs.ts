// `config.hostMacs`: MAC → Node lines, for hosts whose LLDP system name
// cannot name their Node (NIC-firmware LLDP on Intel, ConnectX and Broadcom
// NICs sends no system name, or the NIC model shared by every server). One
// `MAC node` pair per line, `#` starts a comment; a Node with several NICs
// has one line per NIC MAC. Any MAC form vendors print is accepted (aa:bb:..,
// aa-bb-.., aabb.ccdd.eeff, 12 hex digits). A line matches a neighbour's
// chassis MAC, or its port id when that is a MAC: lldpd sends the port's own
// MAC there, and ConnectX firmware the MAC the host's OS shows (its chassis
// id is another MAC, the port MAC + 2, which the OS never shows).

import { parseHostLines, type HostLineId } from '../fabric/host-lines.ts';
import { macHex, macText, parseMacText } from './lldp-ids.ts';
import type { LldpNeighbour } from './lldp-mib.ts';

/** Node names by MAC as 12 hex digits (a MAC chassis key, lldp-ids.ts). */
export type HostMacs = ReadonlyMap<string, string>;

const MAC: HostLineId = {
  word: 'MAC',
  example: 'b8:ce:f6:01:02:03 gpu-node-17',
  parse(text) {
    const mac = parseMacText(text);
    return mac && { key: mac.toString('hex'), shown: macText(mac) };
  },
};

/** Parses the lines; throws naming the line that is not `MAC node` or that maps one MAC twice. */
export function parseHostMacs(raw: unknown, where: string): HostMacs {
  return parseHostLines(raw, where, MAC);
}

/** The Node a line names for `n`: by its chassis MAC, else by its MAC-type port id; undefined when none does. */
export function nodeByMac(macs: HostMacs, n: Pick<LldpNeighbour, 'chassisKey' | 'portMac'>): string | undefined {
  const chassis = n.chassisKey === undefined ? undefined : macHex(n.chassisKey);
  return (
    (chassis === undefined ? undefined : macs.get(chassis)) ??
    (n.portMac === undefined ? undefined : macs.get(n.portMac))
  );
}
