// Walks one switch's LLDP-MIB over SNMP with the pure-JS `net-snmp` client:
// GETBULK (v2c and v3 both), a per-request timeout with retries, a deadline
// for the whole walk, and caps on what one switch may return — varbinds, bytes
// per value and bytes per walk — so a switch that answers forever, a looping
// agent or one answering 60 KB values (which took the process to 6 GB under the
// varbind cap alone) cannot exhaust memory. Errors do not name the switch: the
// caller groups switches by error and names them.

import { Buffer } from 'node:buffer';
import snmp, { type Session, type Varbind } from 'net-snmp';
import type { MibVarbind } from './lldp-mib.ts';
import { LLDP_SUBTREES } from './lldp-mib.ts';
import type { SnmpCredentials } from './snmp-credentials.ts';
import { safeFragment } from '../../../util/input-fragment.ts';

/**
 * The longest value an LLDP-MIB object holds (IEEE 802.1AB-2005 LLDP-MIB, and LLDP's TLVs have a 9-bit length):
 * chassis and port ids are SIZE(1..255), system names, descriptions and port descriptions SnmpAdminString
 * SIZE(0..255), management addresses SIZE(1..31), and the longest, lldpRemUnknownTLVInfo, SIZE(0..511). A longer
 * value is not LLDP: the walk is abandoned.
 */
export const MAX_VALUE_BYTES = 511;
/**
 * What one walk may hold before it is parsed, charged per varbind as its value and OID bytes plus VARBIND_COST_BYTES:
 * a 128-port switch's ~5,000 varbinds are charged about 1 MiB, and `concurrency` walks (32 by default) at most
 * 32 × 2 MiB in flight (docs/security.md §9).
 */
export const MAX_WALK_BYTES = 2 * 1024 * 1024;
/** What net-snmp's varbind object, its OID string and its value's Buffer cost besides their bytes. */
const VARBIND_COST_BYTES = 160;

export interface WalkLimits {
  /** One request's timeout; net-snmp re-sends it `retries` times. */
  readonly timeoutMs: number;
  readonly retries: number;
  /** Rows asked for per GETBULK. */
  readonly maxRepetitions: number;
  /** Varbinds one switch may return across its subtrees before the walk is abandoned. */
  readonly maxVarbinds: number;
}

/** Where to reach one switch. */
export interface SwitchAddress {
  readonly host: string;
  readonly port: number;
}

/** Reads one switch's walk; the stand-in and captures implement it too. */
export type SwitchWalker = (target: SwitchAddress, signal: AbortSignal) => Promise<MibVarbind[]>;

export function formatAddress(a: SwitchAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

function openSession(target: SwitchAddress, credentials: SnmpCredentials, limits: WalkLimits): Session {
  const options = {
    port: target.port,
    timeout: limits.timeoutMs,
    retries: limits.retries,
    // net-snmp's own check that each varbind follows the one before parses both
    // OIDs digit by digit and took a third of a large poll's CPU; walkSubtree checks
    // once per answer that the walk moves forward, which is what stops a loop.
    backwardsGetNexts: true,
    transport: target.host.includes(':') ? ('udp6' as const) : ('udp4' as const),
  };
  if (credentials.version === '2c')
    return snmp.createSession(target.host, credentials.community, { ...options, version: snmp.Version2c });
  return snmp.createV3Session(
    target.host,
    {
      name: credentials.username,
      level: snmp.SecurityLevel.authPriv,
      authProtocol: credentials.authProtocol === 'SHA' ? snmp.AuthProtocols.sha : snmp.AuthProtocols.sha256,
      authKey: credentials.authKey,
      privProtocol: snmp.PrivProtocols.aes,
      privKey: credentials.privKey,
    },
    { ...options, version: snmp.Version3 },
  );
}

/** A walker over real SNMP with these credentials and limits. */
export function snmpWalker(credentials: SnmpCredentials, limits: WalkLimits): SwitchWalker {
  return async (target, signal) => {
    const session = openSession(target, credentials, limits);
    const out: MibVarbind[] = [];
    // net-snmp emits socket errors on the session; they also fail the pending request.
    session.on('error', () => {});
    const onAbort = () => session.close();
    signal.addEventListener('abort', onAbort, { once: true });
    let bytes = 0;
    /** Why the walk stops early; undefined while it goes on. */
    let refused: string | undefined;
    const take = (vb: Varbind): boolean => {
      if (out.length >= limits.maxVarbinds) {
        refused = `more than ${limits.maxVarbinds} varbinds (config.snmp.maxVarbinds) in the answer`;
        return false;
      }
      const size = Buffer.isBuffer(vb.value) ? vb.value.length : 0;
      if (size > MAX_VALUE_BYTES) {
        refused = `a value of ${size} bytes under ${subtreeOf(vb.oid)}, where LLDP-MIB values are at most ${MAX_VALUE_BYTES} bytes`;
        return false;
      }
      bytes += size + vb.oid.length + VARBIND_COST_BYTES;
      if (bytes > MAX_WALK_BYTES) {
        refused = `more than ${MAX_WALK_BYTES / 2 ** 20} MiB of LLDP-MIB data in ${out.length} varbinds`;
        return false;
      }
      // net-snmp's own varbind is kept rather than copied: a large poll decodes over a
      // million, and under the executable's small-heap V8 flags every allocation costs GC time.
      if (typeof vb.value === 'number' || Buffer.isBuffer(vb.value)) out.push(vb as MibVarbind);
      return true;
    };
    try {
      for (const subtree of LLDP_SUBTREES) {
        if (!(await walkSubtree(session, subtree, limits.maxRepetitions, take))) {
          throw new Error(`${refused}; the walk was abandoned`);
        }
      }
      return out;
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!signal.aborted) session.close();
    }
  };
}

/**
 * GETBULKs from `base` until an answer leaves the subtree or the MIB ends,
 * handing each varbind to `take`; resolves false when `take` refuses one.
 * An answer whose last OID is not after the one asked from is an agent that
 * would loop the walk: it fails the walk.
 */
function walkSubtree(
  session: Session,
  base: string,
  maxRepetitions: number,
  take: (vb: Varbind) => boolean,
): Promise<boolean> {
  const prefix = `${base}.`;
  return new Promise((resolve, reject) => {
    const next = (from: string) =>
      session.getBulk([from], 0, maxRepetitions, (error, varbinds) => {
        if (error) {
          reject(new Error(`SNMP walk failed: ${describeSnmpError(error)}`));
          return;
        }
        const column = varbinds?.[0] ?? [];
        for (const vb of column) {
          // startsWith, not net-snmp's arc-by-arc compare: the prefix ends with a dot, so it is exact.
          if (snmp.isVarbindError(vb) || !vb.oid.startsWith(prefix)) return resolve(true);
          if (!take(vb)) return resolve(false);
        }
        const last = column.at(-1)?.oid;
        if (last === undefined) resolve(true);
        else if (!oidAfter(last, from))
          reject(
            new Error(
              `SNMP walk failed: the agent answered ${safeFragment(last)} when asked for what follows ${from}; the walk would loop`,
            ),
          );
        else next(last);
      });
    next(base);
  });
}

/** The LLDP-MIB subtree an OID is under, for messages (its index arcs may carry what the agent chose). */
function subtreeOf(oid: string): string {
  return LLDP_SUBTREES.find((t) => oid.startsWith(`${t}.`)) ?? 'the LLDP-MIB';
}

/** Whether dotted OID `a` comes after `b` in the MIB's order (arc by arc, numerically). */
export function oidAfter(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = Number(x[i]) - Number(y[i]);
    if (d !== 0) return d > 0;
  }
  return x.length > y.length;
}

/** net-snmp's messages are phrases of a few dozen bytes; anything longer quotes an answer. */
const SNMP_ERROR_MAX_BYTES = 120;

/** net-snmp's errors, in terms an operator acts on. */
function describeSnmpError(error: Error): string {
  const name = error.name;
  if (name === 'RequestTimedOutError')
    return 'no answer (timed out): is the switch reachable on UDP, is SNMP enabled, and are the community or the SNMPv3 user and keys right?';
  // The library's words, which may carry a piece of what the agent sent: bounded and printable.
  const said = safeFragment(error.message, SNMP_ERROR_MAX_BYTES);
  if (/authentication|decrypt|digest|usm/i.test(error.message))
    return `${said} (check the SNMPv3 username, authProtocol/authKey and privProtocol/privKey)`;
  return said;
}
