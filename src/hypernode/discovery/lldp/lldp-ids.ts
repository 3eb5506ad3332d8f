// One canonical form per LLDP chassis id and port id, whatever form the
// vendor sends (IEEE 802.1AB LldpChassisIdSubtype / LldpPortIdSubtype). Two
// switches describing one device must produce the same key: Arista EOS and
// NX-OS send a MAC chassis id as 6 bytes, SONiC, Dell OS9 and AOS-CX send the
// same MAC as text ("74:86:e2:0a:0c:04", "e4 f0 04 fb 1f fb"), and network
// addresses come as an IANA family byte plus the address, or as text. A key
// is one short string (a neighbour table holds one per row, a large fabric
// a million rows): a MAC is its 12 hex digits, a network address `ip <addr>`,
// anything else `<subtype> <text or hex>`; `describeChassis` prints it.

import { Buffer } from 'node:buffer';
import { hexBytes, printableText } from '../../model/fabric-names.ts';

/** LldpChassisIdSubtype values (IEEE 802.1AB): what kind of identifier a chassis id holds. */
export const CHASSIS_SUBTYPE = {
  component: 1,
  interfaceAlias: 2,
  portComponent: 3,
  mac: 4,
  networkAddress: 5,
  interfaceName: 6,
  local: 7,
} as const;
/** LldpPortIdSubtype values: numbered differently from the chassis ones. */
export const PORT_SUBTYPE = {
  interfaceAlias: 1,
  portComponent: 2,
  mac: 3,
  networkAddress: 4,
  interfaceName: 5,
  agentCircuitId: 6,
  local: 7,
} as const;

/** A canonical chassis id, compared across switches (see the module comment for its forms). */
export type ChassisKey = string;

export const MAC_BYTES = 6;
/** MAC text forms: colon, dash or space separated pairs, Cisco dotted triples, 12 bare hex digits. */
const MAC_TEXT = [
  /^([0-9a-f]{1,2})([:\- ])([0-9a-f]{1,2})\2([0-9a-f]{1,2})\2([0-9a-f]{1,2})\2([0-9a-f]{1,2})\2([0-9a-f]{1,2})$/i,
  /^([0-9a-f]{4})\.([0-9a-f]{4})\.([0-9a-f]{4})$/i,
  /^([0-9a-f]{12})$/i,
];

/** `aa:bb:cc:dd:ee:ff` from 6 bytes (any bytes as colon-separated hex, the form binary ids take). */
export function macText(bytes: Uint8Array): string {
  return hexBytes(bytes);
}

/**
 * The 6 bytes of a MAC written as text in any of the forms vendors use, or
 * undefined. `bare` also accepts 12 hex digits without separators, which
 * only a MAC-typed value can be trusted to mean (a serial number may look so).
 */
export function parseMacText(text: string, bare = true): Buffer | undefined {
  const t = text.trim();
  for (const re of bare ? MAC_TEXT : MAC_TEXT.slice(0, 2)) {
    const m = re.exec(t);
    if (!m) continue;
    const groups = m.slice(1).filter((_, i) => !(re === MAC_TEXT[0] && i === 1));
    const hex = groups.map((g) => (groups.length === MAC_BYTES ? g.padStart(2, '0') : g)).join('');
    return Buffer.from(hex, 'hex');
  }
  return undefined;
}

/** RFC 5952 text of a 16-byte IPv6 address: lower case, the longest run of two or more zero words as `::`. */
export function ipv6Text(bytes: ArrayLike<number>): string {
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((bytes[i]! << 8) | bytes[i + 1]!);
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.len).join(':')}`;
}

/** An InetAddress (IANA family 1 = IPv4 with 4 bytes, 2 = IPv6 with 16), or undefined. */
export function inetText(family: number, bytes: ArrayLike<number>): string | undefined {
  if (family === 1 && bytes.length === 4) return Array.from(bytes).join('.');
  if (family === 2 && bytes.length === 16) return ipv6Text(bytes);
  return undefined;
}

const MAC_KEY = /^[0-9a-f]{12}$/;
const ipKey = (text: string) => `ip ${text}`;

/** A name or opaque value: text when printable, else colon-separated hex, after its subtype. */
function other(subtype: number, bytes: Buffer): string {
  return `${subtype} ${printableText(bytes) ?? macText(bytes)}`;
}

/** A network address id (family byte + address, or the address as text) as `ip <addr>`, or undefined. */
function networkAddress(bytes: Buffer): string | undefined {
  const binary = bytes.length > 1 ? inetText(bytes[0]!, bytes.subarray(1)) : undefined;
  if (binary) return ipKey(binary);
  const text = printableText(bytes)?.trim();
  if (text && /^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return ipKey(text);
  if (text && /^[0-9a-f:]+$/i.test(text) && text.includes(':')) {
    const parsed = parseIpv6(text);
    if (parsed) return ipKey(ipv6Text(parsed));
  }
  return undefined;
}

function parseIpv6(text: string): number[] | undefined {
  const halves = text.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const words = (s: string) =>
    s === '' ? [] : s.split(':').map((w) => (/^[0-9a-f]{1,4}$/.test(w) ? Number.parseInt(w, 16) : Number.NaN));
  const head = words(halves[0]!);
  const tail = halves.length === 2 ? words(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if ((halves.length === 1 && fill !== 0) || fill < 0 || [...head, ...tail].some(Number.isNaN)) return undefined;
  const all = [...head, ...Array<number>(fill).fill(0), ...tail];
  return all.flatMap((w) => [w >> 8, w & 0xff]);
}

/**
 * The canonical chassis id. A MAC is recognised in its 6-byte form under the
 * MAC subtype and in any text form under any subtype (agents that send the
 * base MAC as a local or interface-name id mean the same chassis).
 */
export function chassisKey(subtype: number, bytes: Buffer): ChassisKey {
  if (subtype === CHASSIS_SUBTYPE.mac && bytes.length === MAC_BYTES) return bytes.toString('hex');
  const text = printableText(bytes);
  const fromText = text === undefined ? undefined : parseMacText(text, subtype === CHASSIS_SUBTYPE.mac);
  if (fromText) return fromText.toString('hex');
  if (subtype === CHASSIS_SUBTYPE.networkAddress) return networkAddress(bytes) ?? other(subtype, bytes);
  return other(subtype, bytes);
}

/** The 12 hex digits of a MAC chassis key (switch ids, group names, config.hostMacs), or undefined for other kinds. */
export function macHex(key: ChassisKey): string | undefined {
  return MAC_KEY.test(key) ? key : undefined;
}

/** A chassis key as messages print it: `mac aa:bb:cc:dd:ee:ff`, `ip 10.0.0.9`, `7 <local id>`. */
export function describeChassis(key: ChassisKey): string {
  return MAC_KEY.test(key) ? `mac ${macText(Buffer.from(key, 'hex'))}` : key;
}

/**
 * The 12 hex digits of a MAC-type port id (6 bytes, or the MAC as text, as
 * AOS-CX sends it), else undefined. NIC-firmware LLDP (ConnectX) sends there
 * the MAC the host's OS shows, and another MAC as chassis id.
 */
export function portMacHex(subtype: number, bytes: Buffer): string | undefined {
  if (subtype !== PORT_SUBTYPE.mac) return undefined;
  const m = bytes.length === MAC_BYTES ? bytes : parseMacText(printableText(bytes) ?? '');
  return m?.toString('hex');
}

/** A port id in readable form: a MAC with colons, a network address, a name as is, else hex. */
export function portText(subtype: number, bytes: Buffer): string {
  const mac = portMacHex(subtype, bytes);
  if (mac) return macText(Buffer.from(mac, 'hex'));
  if (subtype === PORT_SUBTYPE.networkAddress) {
    const address = networkAddress(bytes);
    if (address) return address.slice('ip '.length);
  }
  return printableText(bytes) ?? macText(bytes);
}
