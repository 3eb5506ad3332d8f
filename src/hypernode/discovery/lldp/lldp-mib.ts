// One switch's LLDP-MIB (IEEE 802.1AB, 1.0.8802.1.1.2) read from the varbinds
// of an SNMP walk or a captured `snmpbulkwalk -On`: its own chassis and
// system name, its local port names and its neighbours. The remote tables are
// indexed by (timeMark, local port, remote index), and every index is a
// neighbour of its own: a port can list two neighbours under different
// timeMarks, and a row lacking its chassis id is kept (and counted) rather
// than dropped. Identifying who a neighbour is belongs to lldp-fabric-graph.ts; the
// ids are canonical (lldp-ids.ts). Nothing here depends on varbind order.

import { Buffer } from 'node:buffer';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { fabricName, fabricNameFromBytes, printableText } from '../../model/fabric-names.ts';
import { type ChassisKey, chassisKey, inetText, PORT_SUBTYPE, portMacHex, portText } from './lldp-ids.ts';

/** One varbind: a numeric OID without a leading dot, and an OCTET STRING (bytes) or an integer value. */
export interface MibVarbind {
  readonly oid: string;
  readonly value: Buffer | number;
}

/** The subtrees a walk reads: the local system data and the remote systems data. */
export const LLDP_LOCAL_SUBTREE = '1.0.8802.1.1.2.1.3';
export const LLDP_REMOTE_SUBTREE = '1.0.8802.1.1.2.1.4';
export const LLDP_SUBTREES = [LLDP_LOCAL_SUBTREE, LLDP_REMOTE_SUBTREE] as const;

export const LOC_CHASSIS_SUBTYPE = `${LLDP_LOCAL_SUBTREE}.1.0`;
export const LOC_CHASSIS_ID = `${LLDP_LOCAL_SUBTREE}.2.0`;
const LOC_SYS_NAME = `${LLDP_LOCAL_SUBTREE}.3.0`;
const LOC_PORT_TABLE = `${LLDP_LOCAL_SUBTREE}.7.1.`;
export const REM_TABLE = `${LLDP_REMOTE_SUBTREE}.1.1.`;
const REM_MAN_ADDR_TABLE = `${LLDP_REMOTE_SUBTREE}.2.1.`;

/** lldpRemSysCapEnabled bits (BITS, most significant bit first), by name, as snmpbulkwalk prints them. */
const CAPABILITY_BITS = [
  'other',
  'repeater',
  'bridge',
  'wlanAccessPoint',
  'router',
  'telephone',
  'docsisCableDevice',
  'stationOnly',
] as const;
const CAP_BRIDGE = 0x20;
const CAP_ROUTER = 0x08;
/** lldpRemTable columns this module reads. */
export const REM = {
  chassisSubtype: 4,
  chassisId: 5,
  portSubtype: 6,
  portId: 7,
  portDesc: 8,
  sysName: 9,
  capEnabled: 12,
} as const;
/** lldpLocPortTable columns. */
const LOC_PORT = { idSubtype: 2, id: 3, desc: 4 } as const;

export interface LldpNeighbour {
  /** The row's index: timeMark, local port, remote index. Every index is one neighbour. */
  readonly timeMark: number;
  readonly localPort: number;
  readonly remIndex: number;
  /** The local port's name (its id when that is a name, else its description, else its number). */
  readonly localPortName: string;
  /**
   * Its id in readable form and its description ('' when absent), for matching config.managementPorts against either.
   */
  readonly localPortId: string;
  readonly localPortDescription: string;
  /**
   * Canonical (lldp-ids.ts); undefined when the row has no lldpRemChassisIdSubtype/lldpRemChassisId (some agents omit
   * the column).
   */
  readonly chassisKey: ChassisKey | undefined;
  /** The neighbour's port (its id when that is a name, else its description). */
  readonly portName: string;
  /** Its port id as 12 hex digits when that id is a MAC (subtype 3), for config.hostMacs. */
  readonly portMac: string | undefined;
  readonly sysName: string;
  /** Enabled capabilities by name (lldpRemSysCapEnabled), e.g. ["bridge", "router"]. */
  readonly capabilities: readonly string[];
  /** The neighbour says it is acting as a bridge or router: a switch to walk next when crawling. */
  readonly networkDevice: boolean;
  /** IPv4/IPv6 management addresses it announces (lldpRemManAddrTable), sorted. */
  readonly managementAddresses: readonly string[];
}

export interface LldpTable {
  readonly chassisKey: ChassisKey;
  readonly sysName: string;
  /** Sorted by local port, then by the neighbour's chassis, port, index. */
  readonly neighbours: readonly LldpNeighbour[];
  /** Rows whose index the walk holds but that lack a column telling who the neighbour is (chassis id). */
  readonly incompleteRows: number;
}

function bytes(v: Buffer | number | undefined): Buffer | undefined {
  return Buffer.isBuffer(v) ? v : undefined;
}

/**
 * Text of an OCTET STRING as a name (model/fabric-names.ts): printable UTF-8 as is, anything else as colon-separated
 * hex, cut to the names' length.
 */
function displayText(v: Buffer | number | undefined): string {
  if (typeof v === 'number') return String(v);
  if (!v) return '';
  return fabricNameFromBytes(v);
}

function integer(v: Buffer | number | undefined): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/** Port id subtypes that hold the port's name; a locally assigned id (Junos: the ifIndex) yields to the description. */
const NAMED_PORT_SUBTYPES = [PORT_SUBTYPE.interfaceAlias, PORT_SUBTYPE.interfaceName];

/**
 * A neighbour's port name from its id when the id is a name (interface name or alias), else its description, else the
 * id.
 */
function portName(subtype: number | undefined, id: Buffer | undefined, desc: Buffer | number | undefined): string {
  const idText =
    id && subtype !== undefined && (NAMED_PORT_SUBTYPES as readonly number[]).includes(subtype)
      ? printableText(id)?.trim()
      : undefined;
  if (idText) return fabricName(idText);
  const descText = displayText(desc).trim();
  if (descText || !id) return descText;
  // Neither a name nor a description: the id in its readable form (a MAC, an address), or as text without a subtype.
  return subtype === undefined ? displayText(id).trim() : portText(subtype, id);
}

/** The names of the bits of each first capability byte seen, shared by every neighbour announcing it. */
const capabilitySets = new Map<number, readonly string[]>();
const NO_CAPABILITIES: readonly string[] = Object.freeze([]);

function capabilityNames(caps: Buffer | undefined): readonly string[] {
  if (!caps || caps.length === 0) return NO_CAPABILITIES;
  const first = caps[0]!;
  let names = capabilitySets.get(first);
  if (!names)
    capabilitySets.set(first, (names = Object.freeze(CAPABILITY_BITS.filter((_, bit) => first & (0x80 >> bit)))));
  return names;
}

interface RemoteRow {
  readonly timeMark: number;
  readonly localPort: number;
  readonly remIndex: number;
  readonly columns: Map<number, Buffer | number>;
  readonly addresses: Set<string>;
}

/** The number at `from` up to the next dot (-1 when there is none), and where the arc after it starts. */
function arcAt(oid: string, from: number): { value: number; next: number } {
  let value = 0;
  let i = from;
  for (; i < oid.length; i++) {
    const c = oid.charCodeAt(i) - 48;
    if (c === -2) break; // '.'
    if (c < 0 || c > 9) return { value: -1, next: i };
    value = value * 10 + c;
  }
  return { value: i === from ? -1 : value, next: i + 1 };
}

/** Parses a walk; throws when the switch's own chassis id is missing (not an LLDP agent, or a cut walk). */
export function parseLldpTable(varbinds: Iterable<MibVarbind>): LldpTable {
  let chassisSubtype: number | undefined;
  let ownChassis: Buffer | undefined;
  let sysName = '';
  const portColumns = new Map<number, Map<number, Buffer | number>>();
  const remote = new Map<string, RemoteRow>();
  const addressRows: { index: string; portIndex: string; address: string }[] = [];
  for (const { oid, value } of varbinds) {
    if (oid === LOC_CHASSIS_SUBTYPE) chassisSubtype = integer(value);
    else if (oid === LOC_CHASSIS_ID) ownChassis = bytes(value);
    else if (oid === LOC_SYS_NAME) sysName = displayText(value);
    else if (oid.startsWith(LOC_PORT_TABLE)) {
      const [column, port] = oid.slice(LOC_PORT_TABLE.length).split('.').map(Number);
      if (column === undefined || port === undefined || Number.isNaN(port)) continue;
      let cols = portColumns.get(port);
      if (!cols) portColumns.set(port, (cols = new Map()));
      cols.set(column, value);
    } else if (oid.startsWith(REM_TABLE)) {
      // The hot path (a leaf's walk is mostly this table): the four index arcs read in place.
      const column = arcAt(oid, REM_TABLE.length);
      const timeMark = arcAt(oid, column.next);
      const localPort = arcAt(oid, timeMark.next);
      const remIndex = arcAt(oid, localPort.next);
      // Exactly four numeric arcs: the last one ends the OID.
      if (
        column.value < 0 ||
        timeMark.value < 0 ||
        localPort.value < 0 ||
        remIndex.value < 0 ||
        remIndex.next !== oid.length + 1
      )
        continue;
      const index = oid.slice(column.next);
      let row = remote.get(index);
      if (!row) {
        row = {
          timeMark: timeMark.value,
          localPort: localPort.value,
          remIndex: remIndex.value,
          columns: new Map(),
          addresses: new Set(),
        };
        remote.set(index, row);
      }
      row.columns.set(column.value, value);
    } else if (oid.startsWith(REM_MAN_ADDR_TABLE)) {
      const parts = oid.slice(REM_MAN_ADDR_TABLE.length).split('.').map(Number);
      const [, timeMark, localPort, remIndex, subtype, length, ...octets] = parts;
      if (length === undefined || octets.length !== length || parts.some(Number.isNaN)) continue;
      const address = inetText(subtype!, octets);
      if (address)
        addressRows.push({
          index: `${timeMark}.${localPort}.${remIndex}`,
          portIndex: `${localPort}.${remIndex}`,
          address,
        });
    }
  }
  if (ownChassis === undefined || ownChassis.length === 0) {
    throw new Error(
      'the walk holds no lldpLocChassisId (1.0.8802.1.1.2.1.3.2.0): is LLDP enabled and is the LLDP-MIB served?',
    );
  }
  joinAddresses(remote, addressRows);
  // One set of names per local port, the same string instances for all its neighbours (a table holds a row per cable).
  const localPorts = new Map<number, { name: string; id: string; description: string }>();
  const localPort = (num: number) => {
    let known = localPorts.get(num);
    if (!known) {
      const port = portColumns.get(num);
      const id = bytes(port?.get(LOC_PORT.id));
      const subtype = integer(port?.get(LOC_PORT.idSubtype));
      const idText = id && id.length > 0 && subtype !== undefined ? portText(subtype, id) : '';
      const descText = displayText(port?.get(LOC_PORT.desc)).trim();
      const description = descText === idText ? idText : descText;
      const named =
        idText !== '' && subtype !== undefined && (NAMED_PORT_SUBTYPES as readonly number[]).includes(subtype);
      known = { name: (named ? idText : description || idText) || String(num), id: idText, description };
      localPorts.set(num, known);
    }
    return known;
  };
  const neighbours: LldpNeighbour[] = [];
  let incompleteRows = 0;
  for (const r of remote.values()) {
    const subtype = integer(r.columns.get(REM.chassisSubtype));
    const id = bytes(r.columns.get(REM.chassisId));
    const chassis = subtype !== undefined && id && id.length > 0 ? chassisKey(subtype, id) : undefined;
    if (chassis === undefined) incompleteRows++;
    const local = localPort(r.localPort);
    const caps = bytes(r.columns.get(REM.capEnabled));
    const portSubtype = integer(r.columns.get(REM.portSubtype));
    const portId = bytes(r.columns.get(REM.portId));
    neighbours.push({
      timeMark: r.timeMark,
      localPort: r.localPort,
      remIndex: r.remIndex,
      localPortName: local.name,
      localPortId: local.id,
      localPortDescription: local.description,
      chassisKey: chassis,
      portName: portName(portSubtype, portId, r.columns.get(REM.portDesc)),
      portMac: portSubtype !== undefined && portId ? portMacHex(portSubtype, portId) : undefined,
      sysName: displayText(r.columns.get(REM.sysName)).trim(),
      capabilities: capabilityNames(caps),
      networkDevice: caps !== undefined && caps.length > 0 && (caps[0]! & (CAP_BRIDGE | CAP_ROUTER)) !== 0,
      managementAddresses: [...r.addresses].sort(),
    });
  }
  neighbours.sort(
    (x, y) =>
      x.localPort - y.localPort ||
      compareBytes(x.chassisKey ?? '', y.chassisKey ?? '') ||
      compareBytes(x.portName, y.portName) ||
      x.timeMark - y.timeMark ||
      x.remIndex - y.remIndex,
  );
  return {
    chassisKey: chassisKey(chassisSubtype ?? 0, ownChassis),
    sysName: sysName.trim(),
    neighbours,
    incompleteRows,
  };
}

/**
 * Management addresses join their neighbour on the full index when the
 * switch writes the same timeMark in both tables; SONiC writes 0 in
 * lldpRemTable and the real mark in lldpRemManAddrTable, so an address whose
 * index matches no row joins the rows of its local port and remote index.
 */
function joinAddresses(
  remote: Map<string, RemoteRow>,
  addressRows: readonly { index: string; portIndex: string; address: string }[],
): void {
  let byPort: Map<string, RemoteRow[]> | undefined;
  for (const a of addressRows) {
    const exact = remote.get(a.index);
    if (exact) {
      exact.addresses.add(a.address);
      continue;
    }
    if (!byPort) {
      byPort = new Map();
      for (const r of remote.values()) {
        const key = `${r.localPort}.${r.remIndex}`;
        byPort.set(key, [...(byPort.get(key) ?? []), r]);
      }
    }
    for (const r of byPort.get(a.portIndex) ?? []) r.addresses.add(a.address);
  }
}
