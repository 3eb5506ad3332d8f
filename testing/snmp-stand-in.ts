// An SNMP stand-in for many switches in one process, for the scale benchmark
// where a real snmpd + lldpd per switch would not fit on one machine: one UDP
// socket per switch on 127.0.0.1 answering SNMPv2c GETNEXT and GETBULK for a
// community from that switch's LLDP-MIB walk (testing/lldp-fabric.ts), kept
// as pre-encoded varbinds in OID order, so the stand-in costs little next to
// the controller it measures. A minimal BER codec of its own: net-snmp's
// agent keeps a MIB tree and answered one 1,600-varbind walk in about 1.3 s.
// As a real agent, it puts in one answer only the varbinds that fit a UDP
// datagram (RFC 3416 §4.2.3). For the security suite it can also be hostile:
// loop forever, pad every value to a size no LLDP-MIB object allows, or serve
// a local port table that never ends.

import { createSocket, type Socket } from 'node:dgram';
import type { MibVarbind } from '../src/hypernode/discovery/lldp/lldp-mib.ts';
import { lldpVarbinds, type SwitchLldp } from './lldp-fabric.ts';

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const OCTET_STRING = 0x04;
const OID = 0x06;
const GET_NEXT = 0xa1;
const RESPONSE = 0xa2;
const GET_BULK = 0xa5;
const END_OF_MIB_VIEW = 0x82;
const VERSION_2C = 1;
/** What one UDP datagram carries, headers aside; an answer's varbinds stop before it. */
const MAX_MESSAGE_BYTES = 65_000;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  if (n < 0x100) return Buffer.from([0x81, n]);
  if (n < 0x10000) return Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
}
const tlv = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag]), length(body.length), body]);
function integer(n: number): Buffer {
  const bytes: number[] = [];
  let v = n;
  do {
    bytes.unshift(v & 0xff);
    v = Math.floor(v / 256);
  } while (v !== 0 && v !== -1);
  if (n >= 0 && bytes[0]! & 0x80) bytes.unshift(0);
  if (n < 0 && !(bytes[0]! & 0x80)) bytes.unshift(0xff);
  return tlv(INTEGER, Buffer.from(bytes));
}
function oidBody(arcs: readonly number[]): Buffer {
  const out = [arcs[0]! * 40 + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return Buffer.from(out);
}

/** One TLV read at `at`: its tag, where its body starts and ends. */
function read(buf: Buffer, at: number): { tag: number; start: number; end: number } {
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i]!;
    start += n;
  }
  return { tag, start, end: start + len };
}
function readInteger(buf: Buffer, at: number): number {
  const { start, end } = read(buf, at);
  let v = buf[start]! & 0x80 ? -1 : 0;
  for (let i = start; i < end; i++) v = v * 256 + buf[i]!;
  return v;
}
function readOid(buf: Buffer, start: number, end: number): number[] {
  const arcs = [Math.floor(buf[start]! / 40), buf[start]! % 40];
  let v = 0;
  for (let i = start + 1; i < end; i++) {
    v = v * 128 + (buf[i]! & 0x7f);
    if (!(buf[i]! & 0x80)) {
      arcs.push(v);
      v = 0;
    }
  }
  return arcs;
}
function compareArcs(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

interface Entry {
  readonly arcs: number[];
  /** The whole varbind, SEQUENCE { OID, value }, encoded. */
  readonly encoded: Buffer;
}

function entries(varbinds: readonly MibVarbind[], valueBytes: number | undefined): Entry[] {
  return varbinds
    .map(({ oid, value }) => {
      const arcs = oid.split('.').map(Number);
      const bytes = typeof value === 'number' || valueBytes === undefined ? value : padded(value, valueBytes);
      const v = typeof bytes === 'number' ? integer(bytes) : tlv(OCTET_STRING, bytes);
      return { arcs, encoded: tlv(SEQUENCE, Buffer.concat([tlv(OID, oidBody(arcs)), v])) };
    })
    .sort((a, b) => compareArcs(a.arcs, b.arcs));
}

/** `value` repeated to `size` bytes. */
function padded(value: Buffer, size: number): Buffer {
  const out = Buffer.alloc(size, value.length > 0 ? value : 'x');
  return out;
}

/** Index of the first entry after `arcs`. */
function after(table: readonly Entry[], arcs: readonly number[]): number {
  let lo = 0;
  let hi = table.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareArcs(table[mid]!.arcs, arcs) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** lldpLocPortId, the column an endless agent serves rows of. */
const LOC_PORT_ID = [1, 0, 8802, 1, 1, 2, 1, 3, 7, 1, 3];

/**
 * The rows after `arcs` of a port table that never ends: lldpLocPortId.<n> for every n, each value `valueBytes` long,
 * as many as `repetitions` asks for.
 */
function endlessRows(arcs: readonly number[], repetitions: number, valueBytes: number): Entry[] {
  const past = compareArcs(arcs, LOC_PORT_ID) >= 0 && arcs.length === LOC_PORT_ID.length + 1;
  let port = past ? arcs.at(-1)! + 1 : 1;
  const value = tlv(OCTET_STRING, Buffer.alloc(valueBytes, 'x'));
  return Array.from({ length: repetitions }, () => {
    const row = [...LOC_PORT_ID, port++];
    return { arcs: row, encoded: tlv(SEQUENCE, Buffer.concat([tlv(OID, oidBody(row)), value])) };
  });
}

/** The response to one request, or undefined to drop it (wrong version or community, not GETNEXT/GETBULK). */
function answer(
  msg: Buffer,
  community: Buffer,
  table: readonly Entry[],
  options: SnmpStandInOptions,
): Buffer | undefined {
  const outer = read(msg, 0);
  if (outer.tag !== SEQUENCE) return undefined;
  const version = read(msg, outer.start);
  if (readInteger(msg, outer.start) !== VERSION_2C) return undefined;
  const comm = read(msg, version.end);
  if (!msg.subarray(comm.start, comm.end).equals(community)) return undefined;
  const pdu = read(msg, comm.end);
  if (pdu.tag !== GET_NEXT && pdu.tag !== GET_BULK) return undefined;
  const reqId = read(msg, pdu.start);
  const f2 = read(msg, reqId.end);
  const f3 = read(msg, f2.end);
  const repetitions = pdu.tag === GET_BULK ? Math.max(1, readInteger(msg, f2.end)) : 1;
  const list = read(msg, f3.end);
  const out: Buffer[] = [];
  let size = 0;
  for (let at = list.start; at < list.end; ) {
    const vb = read(msg, at);
    const name = read(msg, vb.start);
    const arcs = readOid(msg, name.start, name.end);
    const rows = options.endless ? endlessRows(arcs, repetitions, options.valueBytes ?? 1) : table;
    let i = options.endless || options.looping ? 0 : after(rows, arcs);
    for (let r = 0; r < repetitions; r++, i++) {
      if (i >= rows.length) {
        out.push(tlv(SEQUENCE, Buffer.concat([msg.subarray(vb.start, name.end), Buffer.from([END_OF_MIB_VIEW, 0])])));
        break;
      }
      const encoded = rows[i]!.encoded;
      // One varbind always goes out (an agent whose values fit no datagram still answers); then only what fits.
      if (out.length > 0 && size + encoded.length > MAX_MESSAGE_BYTES) break;
      out.push(encoded);
      size += encoded.length;
    }
    at = vb.end;
  }
  const body = Buffer.concat([
    msg.subarray(pdu.start, reqId.end),
    integer(0),
    integer(0),
    tlv(SEQUENCE, Buffer.concat(out)),
  ]);
  return tlv(SEQUENCE, Buffer.concat([integer(VERSION_2C), tlv(OCTET_STRING, community), tlv(RESPONSE, body)]));
}

export interface SnmpStandIn {
  /** `host:port` of each switch (`127.0.0.1:<any port>` unless bound elsewhere), in the order given. */
  readonly addresses: readonly string[];
  close(): Promise<void>;
}

export interface SnmpStandInOptions {
  /** Answer every request from the start of the table, as a broken agent whose walk never ends. */
  readonly looping?: boolean;
  /** Where switch i listens (a loopback address and port 161 for a crawl); default 127.0.0.1, any port. */
  readonly bind?: (index: number) => { readonly host: string; readonly port: number };
  /** A neighbour's management address by its chassis id (hex), served in lldpRemManAddrTable for a crawl. */
  readonly managementAddress?: (chassisHex: string) => string | undefined;
  /** Pad every OCTET STRING value to this many bytes, as a hostile agent. */
  readonly valueBytes?: number;
  /** Serve a local port table without end (lldpLocPortId.1, .2, …, each of valueBytes), as a hostile agent. */
  readonly endless?: boolean;
}

/** One agent per switch (on 127.0.0.1 unless `options.bind` says otherwise), answering SNMPv2c `community`. */
export async function startSnmpStandIn(
  switches: readonly SwitchLldp[],
  community: string,
  options: SnmpStandInOptions = {},
): Promise<SnmpStandIn> {
  const comm = Buffer.from(community);
  const sockets: Socket[] = [];
  for (const [i, sw] of switches.entries()) {
    const table = entries(lldpVarbinds(sw, options.managementAddress), options.valueBytes);
    const socket = createSocket('udp4');
    socket.on('message', (msg, from) => {
      let reply: Buffer | undefined;
      try {
        reply = answer(msg, comm, table, options);
      } catch {
        return; // a malformed request is dropped, as agents do
      }
      if (reply) socket.send(reply, from.port, from.address);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      const at = options.bind?.(i) ?? { host: '127.0.0.1', port: 0 };
      socket.bind(at.port, at.host, () => resolve());
    });
    sockets.push(socket);
  }
  return {
    addresses: sockets.map((s) => `${s.address().address}:${s.address().port}`),
    async close() {
      await Promise.all(sockets.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
