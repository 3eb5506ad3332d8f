// Captured LLDP walks on disk, for `render` and `plan`: `--lldp-capture DIR`
// serves every fabric of the lldp source, `--lldp-capture FABRIC=DIR` one. A
// walk is the plain output of `snmpbulkwalk -On` (snmp-capture.ts), so
// operators capture with the tools they have. The files stand in for the
// fabric's switch list: no switch is contacted and no Secret is read.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CapturedWalk } from '../hypernode/discovery/lldp/lldp-discoverer.ts';
import { parseSnmpCapture } from '../hypernode/discovery/lldp/snmp-capture.ts';
import { wrapError } from '../util/error-message.ts';
import { parseCaptureDirs, type CaptureDirs } from './capture-dirs.ts';

export type LldpCaptures = CaptureDirs;

/** Parses the `--lldp-capture` values (undefined when there are none); throws on an empty part or a repeated fabric. */
export function parseLldpCaptures(values: readonly string[]): LldpCaptures | undefined {
  return values.length === 0 ? undefined : parseCaptureDirs('--lldp-capture', 'fabric', values);
}

/** Reads a fabric's captured walks, one per file of its directory (hidden files skipped), in name order. */
export function captureWalks(captures: LldpCaptures): (fabric: string) => Promise<CapturedWalk[]> {
  return async (fabric) => {
    const dir = captures.byKey.get(fabric) ?? captures.any;
    if (dir === undefined)
      throw new Error(
        `no LLDP capture for fabric ${fabric}: pass --lldp-capture ${fabric}=DIR with one \`snmpbulkwalk -On <switch> 1.0.8802.1.1.2.1\` output per switch in DIR`,
      );
    let names: string[];
    try {
      names = (await readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isFile() && !e.name.startsWith('.'))
        .map((e) => e.name)
        .sort();
    } catch (err) {
      throw wrapError(`cannot read the LLDP capture directory ${dir}`, err);
    }
    if (names.length === 0)
      throw new Error(
        `the LLDP capture directory ${dir} holds no file: save one \`snmpbulkwalk -On <switch> 1.0.8802.1.1.2.1\` output per switch there`,
      );
    return Promise.all(
      names.map(async (name) => ({
        address: name,
        varbinds: parseSnmpCapture(await readFile(join(dir, name), 'utf8'), join(dir, name)),
      })),
    );
  };
}
