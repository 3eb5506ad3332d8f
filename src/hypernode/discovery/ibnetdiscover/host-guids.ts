// `config.hostGuids`: HCA GUID → Node lines, for HCAs whose node description
// names no host (about one in eight on a production fabric keeps the
// firmware's `MT4129 ConnectX7   Mellanox Technologies`). A GUID is the HCA's
// node GUID (`caguid` in ibnetdiscover's output, "Node GUID" in ibstat) or one
// of its port GUIDs, written as tools print it: `0xe09d7303007a4bd8`, without
// `0x`, in either case, in 16-bit groups `e09d:7303:007a:4bd8`, or as
// ibnetdiscover names a CA, `H-e09d7303007a4bd8` (the form of many site
// tables). A block of lines (fabric/host-lines.ts) rather than a mapping: YAML
// 1.1 reads an unquoted `0x…` key as a number and loses digits.
//
// Lines in the form of rdma-core's node-name-map, `0x<GUID> "<name>"`, are
// read as that map is (ib-node-name-map.ts): the name stands for the node's
// description, so a site pastes its map here as it is.

import { parseHostLines, type HostLineId } from '../fabric/host-lines.ts';
import { isNodeNameMapLine, nodeNameMapLine, type NodeNames } from './ib-node-name-map.ts';

/** Node names by GUID as 16 lower-case hex digits. */
export type HostGuids = ReadonlyMap<string, string>;

/** What the lines say: Nodes by GUID, and names that stand for descriptions (the node-name-map's lines). */
export interface HostGuidLines {
  readonly nodes: HostGuids;
  readonly names: NodeNames;
}

/** 16 lower-case hex digits, or undefined when `text` is no GUID. */
export function parseGuid(text: string): string | undefined {
  const hex = text.replace(/^(0x|H-)/i, '');
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

/**
 * Parses the lines; throws naming the line that is neither `GUID node` nor `0x<GUID> "<name>"`, or that maps one GUID
 * to two Nodes.
 */
export function parseHostGuids(raw: unknown, where: string): HostGuidLines {
  const names = new Map<string, string>();
  // The node-name-map's lines are taken out here and left blank, so the rest keep their line numbers.
  const hostLines =
    typeof raw === 'string'
      ? raw
          .split('\n')
          .map((line, i) => {
            if (!isNodeNameMapLine(line)) return line;
            try {
              const entry = nodeNameMapLine(line);
              if (entry && !names.has(entry.guid)) names.set(entry.guid, entry.name);
            } catch (err) {
              throw new Error(`${where} line ${i + 1} ${(err as Error).message}`);
            }
            return '';
          })
          .join('\n')
      : raw;
  return { nodes: parseHostLines(hostLines, where, GUID), names };
}
