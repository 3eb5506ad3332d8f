// `config.hostGuids`: HCA GUID → Node lines, for HCAs whose node description
// names no host (about one in eight on a production fabric keeps the
// firmware's `MT4129 ConnectX7   Mellanox Technologies`). A GUID is the HCA's
// node GUID (`caguid` in ibnetdiscover's output, "Node GUID" in ibstat) or one
// of its port GUIDs, written as tools print it: `0xe09d7303007a4bd8`, without
// `0x`, in either case, or in 16-bit groups `e09d:7303:007a:4bd8`. A block of
// lines (fabric/host-lines.ts) rather than a mapping: YAML 1.1 reads an
// unquoted `0x…` key as a number and loses digits.

import { parseHostLines, type HostLineId } from '../fabric/host-lines.ts';

/** Node names by GUID as 16 lower-case hex digits. */
export type HostGuids = ReadonlyMap<string, string>;

/** 16 lower-case hex digits, or undefined when `text` is no GUID. */
export function parseGuid(text: string): string | undefined {
  const hex = text.replace(/^0x/i, '');
  const plain = /^[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){3}$/.test(hex) ? hex.replaceAll(':', '') : hex;
  return /^[0-9a-fA-F]{1,16}$/.test(plain) ? plain.toLowerCase().padStart(16, '0') : undefined;
}

const GUID: HostLineId = {
  word: 'GUID',
  example: '0xe09d7303007a4bd8 gpu-node-17',
  parse(text) {
    const guid = parseGuid(text);
    return guid === undefined ? undefined : { key: guid, shown: `0x${guid}` };
  },
};

/** Parses the lines; throws naming the line that is not `GUID node` or that maps one GUID twice. */
export function parseHostGuids(raw: unknown, where: string): HostGuids {
  return parseHostLines(raw, where, GUID);
}
