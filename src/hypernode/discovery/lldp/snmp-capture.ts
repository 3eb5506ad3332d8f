// Captured walks for offline previews (`render`/`plan --lldp-capture DIR`):
// the plain output of net-snmp's `snmpbulkwalk -On` (or `snmpwalk -On`), one
// file per switch, so operators capture with standard tools. Each line is
// `.<numeric oid> = <TYPE>: <value>`; a STRING with a line break and a long
// Hex-STRING continue on the following lines, which never start with `.<digit>`.
// Only the types the LLDP-MIB uses matter (STRING, Hex-STRING, INTEGER);
// others are kept as numbers where they have one, and ignored otherwise.

import { Buffer } from 'node:buffer';
import type { MibVarbind } from './lldp-mib.ts';

const LINE = /^\.?((?:\d+\.)*\d+) = (?:([A-Za-z0-9-]+): ?)?(.*)$/;

function decodeValue(type: string | undefined, raw: string, where: string): Buffer | number | undefined {
  switch (type) {
    case undefined:
      // `= ""`: an empty string is printed without a type.
      return raw === '""' ? Buffer.alloc(0) : undefined;
    case 'STRING': {
      if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
        return Buffer.from(raw.slice(1, -1).replace(/\\(["\\])/g, '$1'), 'utf8');
      }
      return Buffer.from(raw, 'utf8');
    }
    case 'Hex-STRING': {
      const hex = raw.replace(/\s+/g, '');
      if (!/^([0-9A-Fa-f]{2})*$/.test(hex)) throw new Error(`${where}: Hex-STRING ${JSON.stringify(raw)} is not hex bytes`);
      return Buffer.from(hex, 'hex');
    }
    case 'INTEGER':
    case 'Gauge32':
    case 'Counter32':
    case 'Unsigned32': {
      // `INTEGER: mac(4)` when the MIB is loaded, `INTEGER: 4` with -On alone.
      const m = /(-?\d+)\)?\s*$/.exec(raw);
      if (!m) throw new Error(`${where}: ${type} ${JSON.stringify(raw)} is not a number`);
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
  let current: { oid: string; type: string | undefined; raw: string; line: number } | undefined;
  const flush = () => {
    if (!current) return;
    const value = decodeValue(current.type, current.raw, `${name}:${current.line}`);
    if (value !== undefined) out.push({ oid: current.oid, value });
    current = undefined;
  };
  lines.forEach((line, i) => {
    const m = /^\.?\d+\.\d/.test(line) ? LINE.exec(line) : null;
    if (m) {
      flush();
      current = { oid: m[1]!, type: m[2], raw: m[3]!, line: i + 1 };
      return;
    }
    if (line.trim() === '') {
      if (current?.type === 'STRING' && !isClosed(current.raw)) current.raw += '\n';
      return;
    }
    if (current && ((current.type === 'Hex-STRING' && /^\s*([0-9A-Fa-f]{2}\s*)+$/.test(line)) || (current.type === 'STRING' && !isClosed(current.raw)))) {
      current.raw += current.type === 'STRING' ? `\n${line}` : ` ${line}`;
      return;
    }
    if (/^\.?[\d.]+ = No (more variables|Such)/.test(line) || /^End of MIB/.test(line)) return;
    throw new Error(`${name}:${i + 1}: not a line of \`snmpbulkwalk -On\` output (want ".<numeric oid> = TYPE: value"): ${JSON.stringify(line.slice(0, 120))}`);
  });
  flush();
  return out;
}

/** A quoted STRING is complete once it ends with an unescaped quote. */
function isClosed(raw: string): boolean {
  if (!raw.startsWith('"')) return true;
  if (raw.length < 2 || !raw.endsWith('"')) return false;
  let backslashes = 0;
  for (let i = raw.length - 2; i >= 0 && raw[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}
