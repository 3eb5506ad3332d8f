// `config.hostMacs`: chassis MAC → Node lines, for hosts whose LLDP system
// name cannot name their Node (NIC-firmware LLDP on Intel, ConnectX and
// Broadcom NICs sends no system name, or the NIC model shared by every
// server). One `MAC node` pair per line, `#` starts a comment; a Node with
// several NICs has one line per NIC MAC. Any MAC form vendors print is
// accepted (aa:bb:.., aa-bb-.., aabb.ccdd.eeff, 12 hex digits).

import { parseHostLines, type HostLineId } from '../fabric/host-lines.ts';
import { macText, parseMacText } from './lldp-ids.ts';

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
