// Captured walks for offline previews (`render`/`plan --lldp-capture DIR`):
// the plain output of net-snmp's `snmpbulkwalk -On` (or `snmpwalk -On`), one
// file per switch, so operators capture with standard tools. Each line is
// `.<numeric oid> = <TYPE>: <value>`; a STRING with a line break and a long
// Hex-STRING continue on the following lines, which never start with `.<digit>`.
// Only the types the LLDP-MIB uses matter (STRING, Hex-STRING, BITS, INTEGER),
// printed with or without the MIBs loaded (`BITS: 28 00 bridge(2) router(4)`
// or `Hex-STRING: 28 00`, `INTEGER: macAddress(4)` or `INTEGER: 4`); others
// are kept as numbers where they have one, and ignored otherwise. Output
// options that lose bytes or types (-Oa prints every byte string as text,
// replacing bytes with '.'; -Oq, -OQ, -Ov drop the types) are refused, the
// flag named: a silent misreading would merge or split switches.

import { Buffer } from 'node:buffer';
import { CHASSIS_SUBTYPE, MAC_BYTES, parseMacText } from './lldp-ids.ts';
import { LOC_CHASSIS_ID, LOC_CHASSIS_SUBTYPE, type MibVarbind, REM, REM_TABLE } from './lldp-mib.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

const LINE = /^\.?((?:\d+\.)*\d+) = (?:([A-Za-z0-9-]+): ?)?(.*)$/;

function decodeValue(type: string | undefined, raw: string, where: string): Buffer | number | undefined {
  switch (type) {
    case undefined:
      // `= ""`: an empty string is printed without a type; any other value without one is -OQ's.
      if (raw === '""') return Buffer.alloc(0);
      throw new Error(
        `${where}: the value ${quoteInput(raw)} has no type: captured with -OQ, which drops types; capture again with -On only`,
      );
    case 'STRING': {
      if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
        return Buffer.from(raw.slice(1, -1).replace(/\\(["\\])/g, '$1'), 'utf8');
      }
      return Buffer.from(raw, 'utf8');
    }
    case 'BITS':
    case 'Hex-STRING': {
      // BITS: the hex octets, then the names of the bits set; -OT appends the bytes as text in brackets.
      const octets = type === 'BITS' ? raw.replace(/\s\S*\(\d+\).*$/, '') : raw.replace(/\s*\[.*\]\s*$/s, '');
      const hex = octets.replace(/\s+/g, '');
      if (!/^([0-9A-Fa-f]{2})*$/.test(hex)) throw new Error(`${where}: ${type} ${quoteInput(raw)} is not hex bytes`);
      return Buffer.from(hex, 'hex');
    }
    case 'INTEGER':
    case 'Gauge32':
    case 'Counter32':
    case 'Unsigned32': {
      // `INTEGER: mac(4)` when the MIB is loaded, `INTEGER: 4` with -On alone.
      const m = /(-?\d+)\)?\s*$/.exec(raw);
      if (!m) throw new Error(`${where}: ${type} ${quoteInput(raw)} is not a number`);
      return Number(m[1]);
    }
    default:
      return undefined;
  }
}

/** The varbinds of one capture; `name` (the file) prefixes errors with the line number. */
export function parseSnmpCapture(text: string, name: string): MibVarbind[] {
  const out: MibVarbind[] = [];
  const lines = text.split(/\r?\n/);
  const textValues = new Set<string>();
  let current: { oid: string; type: string | undefined; raw: string; line: number } | undefined;
  const flush = () => {
    if (!current) return;
    const value = decodeValue(current.type, current.raw, `${name}:${current.line}`);
    if (value !== undefined) out.push({ oid: current.oid, value });
    if (current.type === 'STRING') textValues.add(current.oid);
    current = undefined;
  };
  lines.forEach((line, i) => {
    const m = /^\.?\d+\.\d/.test(line) ? LINE.exec(line) : null;
    if (m && m[2] === undefined && /^No (more variables|Such)/.test(m[3]!)) return;
    if (m) {
      flush();
      current = { oid: m[1]!, type: m[2], raw: m[3]!, line: i + 1 };
      return;
    }
    if (line.trim() === '') {
      if (current?.type === 'STRING' && !isClosed(current.raw)) current.raw += '\n';
      return;
    }
    if (
      current &&
      ((current.type === 'Hex-STRING' && /^\s*([0-9A-Fa-f]{2}\s*)+$/.test(line)) ||
        (current.type === 'STRING' && !isClosed(current.raw)))
    ) {
      current.raw += current.type === 'STRING' ? `\n${line}` : ` ${line}`;
      return;
    }
    if (/^\.?[\d.]+ = No (more variables|Such)/.test(line) || /^End of MIB/.test(line)) return;
    if (/^\.?\d+(\.\d+)+ \S/.test(line) || /^(STRING|INTEGER|Hex-STRING|BITS|"|\d)/.test(line)) {
      throw new Error(
        `${name}:${i + 1}: a line without "= TYPE:" (captured with -Oq, -OQ or -Ov, which drop types or OIDs): capture again with -On only`,
      );
    }
    if (/^[A-Za-z][\w-]*::/.test(line) || /^\.?iso\./.test(line)) {
      throw new Error(`${name}:${i + 1}: a symbolic OID: capture with -On (numeric OIDs)`);
    }
    throw new Error(
      `${name}:${i + 1}: not a line of \`snmpbulkwalk -On\` output (want ".<numeric oid> = TYPE: value"): ${quoteInput(line)}`,
    );
  });
  flush();
  refuseLostBytes(out, textValues, name);
  return out;
}

/** lldpRemChassisIdSubtype and lldpRemChassisId, each followed by a row's index. */
const REM_CHASSIS_SUBTYPE = `${REM_TABLE}${REM.chassisSubtype}.`;
const REM_CHASSIS_ID = `${REM_TABLE}${REM.chassisId}.`;

/**
 * A MAC chassis id (subtype 4) printed as a 6-character STRING holding '.':
 * net-snmp prints 6 bytes as a STRING only when all are printable, but under
 * -Oa it prints every byte string as text with unprintable bytes as '.', so
 * two switches' MACs may read the same.
 */
function refuseLostBytes(varbinds: readonly MibVarbind[], textValues: ReadonlySet<string>, name: string): void {
  const values = new Map(varbinds.map((v) => [v.oid, v.value]));
  const idOf = (subtypeOid: string) =>
    subtypeOid === LOC_CHASSIS_SUBTYPE
      ? LOC_CHASSIS_ID
      : subtypeOid.startsWith(REM_CHASSIS_SUBTYPE)
        ? `${REM_CHASSIS_ID}${subtypeOid.slice(REM_CHASSIS_SUBTYPE.length)}`
        : undefined;
  for (const [oid, value] of values) {
    const idOid = value === CHASSIS_SUBTYPE.mac ? idOf(oid) : undefined;
    const id = idOid === undefined ? undefined : values.get(idOid);
    if (
      !idOid ||
      !textValues.has(idOid) ||
      !Buffer.isBuffer(id) ||
      id.length !== MAC_BYTES ||
      !id.includes(0x2e) ||
      parseMacText(id.toString('latin1'))
    )
      continue;
    throw new Error(
      `${name}: the MAC chassis id at .${idOid} is printed as the text ${quoteInput(id.toString('latin1'))}: the capture was made with -Oa, which replaces bytes with '.', so MACs are lost; capture again without -Oa (snmpbulkwalk -On)`,
    );
  }
}

/** A quoted STRING is complete once it ends with an unescaped quote. */
function isClosed(raw: string): boolean {
  if (!raw.startsWith('"')) return true;
  if (raw.length < 2 || !raw.endsWith('"')) return false;
  let backslashes = 0;
  for (let i = raw.length - 2; i >= 0 && raw[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}
