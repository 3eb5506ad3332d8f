// One switch's LLDP-MIB (IEEE 802.1AB, 1.0.8802.1.1.2) read from the varbinds
// of an SNMP walk or a captured `snmpbulkwalk -On`: its own chassis and
// system name, its local port names and its neighbours. The remote tables are
// indexed by (timeMark, local port, remote index); the timeMark changes
// whenever the switch refreshes an entry, so rows are keyed on the local port
// and remote index only, and of two rows for the same key the one with the
// newest timeMark wins (a walk can straddle a refresh). Nothing here depends
// on the order of the varbinds.

import { Buffer } from 'node:buffer';
import { compareBytes } from '../../../util/compare-bytes.ts';

/** One varbind: a numeric OID without a leading dot, and an OCTET STRING (bytes) or an integer value. */
export interface MibVarbind {
  readonly oid: string;
  readonly value: Buffer | number;
}

/** The subtrees a walk reads: the local system data and the remote systems data. */
export const LLDP_LOCAL_SUBTREE = '1.0.8802.1.1.2.1.3';
export const LLDP_REMOTE_SUBTREE = '1.0.8802.1.1.2.1.4';
export const LLDP_SUBTREES = [LLDP_LOCAL_SUBTREE, LLDP_REMOTE_SUBTREE] as const;

const LOC_CHASSIS_SUBTYPE = `${LLDP_LOCAL_SUBTREE}.1.0`;
const LOC_CHASSIS_ID = `${LLDP_LOCAL_SUBTREE}.2.0`;
const LOC_SYS_NAME = `${LLDP_LOCAL_SUBTREE}.3.0`;
const LOC_PORT_TABLE = `${LLDP_LOCAL_SUBTREE}.7.1.`;
const REM_TABLE = `${LLDP_REMOTE_SUBTREE}.1.1.`;
const REM_MAN_ADDR_TABLE = `${LLDP_REMOTE_SUBTREE}.2.1.`;

/** Chassis id subtype 4: a MAC address (IEEE 802.1AB, LldpChassisIdSubtype). */
export const CHASSIS_SUBTYPE_MAC = 4;
/** lldpRemSysCapEnabled bits (BITS, most significant bit first): bridge and router mark a network device. */
const CAP_BRIDGE = 0x20;
const CAP_ROUTER = 0x08;

export interface LldpNeighbour {
  readonly localPort: number;
  /** The local port's description, else its port id. */
  readonly localPortName: string;
  /** `<subtype>:<hex>`: compares with another switch's LocalTable.chassisKey. */
  readonly chassisKey: string;
  readonly portName: string;
  readonly sysName: string;
  /** The neighbour says it is acting as a bridge or router. */
  readonly networkDevice: boolean;
  /** IPv4/IPv6 management addresses it announces (lldpRemManAddrTable), sorted. */
  readonly managementAddresses: readonly string[];
}

export interface LldpTable {
  readonly chassisSubtype: number;
  /** The chassis id bytes as lower-case hex without separators. */
  readonly chassisHex: string;
  readonly chassisKey: string;
  readonly sysName: string;
  /** Sorted by local port, then by the neighbour's chassis key. */
  readonly neighbours: readonly LldpNeighbour[];
}

function bytes(v: Buffer | number | undefined): Buffer | undefined {
  return Buffer.isBuffer(v) ? v : undefined;
}

/** Text of an OCTET STRING: printable UTF-8 as is, anything else as colon-separated hex. */
function displayText(v: Buffer | number | undefined): string {
  if (typeof v === 'number') return String(v);
  if (!v) return '';
  const text = v.toString('utf8');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what marks a value as binary
  if (!text.includes('\uFFFD') && !/[\u0000-\u001f\u007f]/.test(text.replace(/\0+$/, ''))) return text.replace(/\0+$/, '');
  return [...v].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function integer(v: Buffer | number | undefined): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/** The dotted address in an InetAddress index part (subtype, length, bytes), or undefined for other kinds. */
function managementAddress(subtype: number, octets: number[]): string | undefined {
  if (subtype === 1 && octets.length === 4) return octets.join('.');
  if (subtype === 2 && octets.length === 16) {
    const words: string[] = [];
    for (let i = 0; i < 16; i += 2) words.push(((octets[i]! << 8) | octets[i + 1]!).toString(16));
    return words.join(':');
  }
  return undefined;
}

interface RemoteRow {
  timeMark: number;
  columns: Map<number, Buffer | number>;
  addresses: Set<string>;
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
  let chassisId: Buffer | undefined;
  let sysName = '';
  const portColumns = new Map<number, Map<number, Buffer | number>>();
  const remote = new Map<string, RemoteRow>();
  const row = (timeMark: number, key: string): RemoteRow | undefined => {
    const have = remote.get(key);
    if (have && have.timeMark > timeMark) return undefined;
    if (have && have.timeMark === timeMark) return have;
    const fresh = { timeMark, columns: new Map(), addresses: new Set<string>() };
    remote.set(key, fresh);
    return fresh;
  };
  // Rows of older timeMarks are dropped when a newer one shows up, whatever the order; buffered here first.
  const addressRows: { timeMark: number; key: string; address: string }[] = [];
  for (const { oid, value } of varbinds) {
    if (oid === LOC_CHASSIS_SUBTYPE) chassisSubtype = integer(value);
    else if (oid === LOC_CHASSIS_ID) chassisId = bytes(value);
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
      if (column.value < 0 || timeMark.value < 0 || localPort.value < 0 || remIndex.value < 0 || remIndex.next !== oid.length + 1) continue;
      row(timeMark.value, oid.slice(timeMark.next))?.columns.set(column.value, value);
    } else if (oid.startsWith(REM_MAN_ADDR_TABLE)) {
      const parts = oid.slice(REM_MAN_ADDR_TABLE.length).split('.').map(Number);
      const [, timeMark, localPort, remIndex, subtype, length, ...octets] = parts;
      if (length === undefined || octets.length !== length || parts.some(Number.isNaN)) continue;
      const address = managementAddress(subtype!, octets);
      if (address) addressRows.push({ timeMark: timeMark!, key: `${localPort}.${remIndex}`, address });
    }
  }
  if (chassisId === undefined || chassisId.length === 0) {
    throw new Error('the walk holds no lldpLocChassisId (1.0.8802.1.1.2.1.3.2.0): is LLDP enabled and is the LLDP-MIB served?');
  }
  for (const a of addressRows) {
    const r = remote.get(a.key);
    if (r && r.timeMark === a.timeMark) r.addresses.add(a.address);
  }
  const neighbours: LldpNeighbour[] = [];
  for (const [key, r] of remote) {
    const subtype = integer(r.columns.get(4));
    const id = bytes(r.columns.get(5));
    if (subtype === undefined || !id || id.length === 0) continue;
    const localPort = Number(key.slice(0, key.indexOf('.')));
    const port = portColumns.get(localPort);
    const caps = bytes(r.columns.get(12));
    neighbours.push({
      localPort,
      localPortName: displayText(port?.get(4)) || displayText(port?.get(3)) || String(localPort),
      chassisKey: `${subtype}:${id.toString('hex')}`,
      portName: displayText(r.columns.get(8)) || displayText(r.columns.get(7)),
      sysName: displayText(r.columns.get(9)),
      networkDevice: caps !== undefined && caps.length > 0 && (caps[0]! & (CAP_BRIDGE | CAP_ROUTER)) !== 0,
      managementAddresses: [...r.addresses].sort(),
    });
  }
  neighbours.sort((x, y) => x.localPort - y.localPort || compareBytes(x.chassisKey, y.chassisKey) || compareBytes(x.portName, y.portName));
  const subtype = chassisSubtype ?? 0;
  const chassisHex = chassisId.toString('hex');
  return { chassisSubtype: subtype, chassisHex, chassisKey: `${subtype}:${chassisHex}`, sysName, neighbours };
}
