// The part of the `net-snmp` package (plain JavaScript, no bundled types)
// that snmp-walker.ts and the in-process SNMP stand-in use.

declare module 'net-snmp' {
  import type { Buffer } from 'node:buffer';

  export interface Varbind {
    oid: string;
    type: number;
    value: Buffer | number | string | null;
  }
  export interface SessionOptions {
    port?: number;
    retries?: number;
    timeout?: number;
    version?: number;
    backwardsGetNexts?: boolean;
    transport?: 'udp4' | 'udp6';
  }
  export interface User {
    name: string;
    level: number;
    authProtocol?: number;
    authKey?: string;
    privProtocol?: number;
    privKey?: string;
  }
  export interface Session {
    /** With no non-repeaters, `varbinds[i]` holds the answers for `oids[i]`, in order. */
    getBulk(
      oids: string[],
      nonRepeaters: number,
      maxRepetitions: number,
      done: (error: Error | null, varbinds?: Varbind[][]) => void,
    ): void;
    close(): void;
    on(event: 'error', listener: (err: Error) => void): void;
  }
  export function createSession(target: string, community: string, options?: SessionOptions): Session;
  export function createV3Session(target: string, user: User, options?: SessionOptions): Session;
  export function isVarbindError(varbind: Varbind): boolean;
  export function varbindError(varbind: Varbind): string;
  export const Version2c: number;
  export const Version3: number;
  export const SecurityLevel: { noAuthNoPriv: number; authNoPriv: number; authPriv: number };
  export const AuthProtocols: {
    md5: number;
    sha: number;
    sha224: number;
    sha256: number;
    sha384: number;
    sha512: number;
  };
  export const PrivProtocols: { des: number; aes: number; aes256b: number; aes256r: number };
  export const ObjectType: Record<string, number>;
  const snmp: {
    createSession: typeof createSession;
    createV3Session: typeof createV3Session;
    isVarbindError: typeof isVarbindError;
    varbindError: typeof varbindError;
    Version2c: number;
    Version3: number;
    SecurityLevel: typeof SecurityLevel;
    AuthProtocols: typeof AuthProtocols;
    PrivProtocols: typeof PrivProtocols;
    ObjectType: typeof ObjectType;
    // The agent side, for the in-process stand-in.
    [key: string]: unknown;
  };
  export default snmp;
}
