// UFM answers captured on disk, for `render`: `--ufm-capture DIR` serves
// every UFM entry, `--ufm-capture ENDPOINT=DIR` the entry with that endpoint.
// DIR holds the bodies of the UFM resources the UFM source reads, one file
// per resource (today only ports.json, the body of GET
// <endpoint>/ufmRest/resources/ports). Endpoints are compared by the URL the
// discoverer would request, so `ufm:8080`, `https://ufm:8080` and
// `https://ufm:8080/` are the same endpoint.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PortsBodyReader } from '../hypernode/discovery/ufm/ufm-discoverer.ts';
import { portsUrl } from '../hypernode/discovery/ufm/ports.ts';
import { errorMessage } from '../util/error-message.ts';

/** The file holding the body of the ports resource inside a capture directory. */
export const PORTS_CAPTURE_FILE = 'ports.json';

export interface UfmCaptures {
  /** The directory for every endpoint without its own. */
  readonly anyEndpoint?: string;
  /** Ports URL of an endpoint → its directory. */
  readonly byEndpoint: ReadonlyMap<string, string>;
}

/** Parses the `--ufm-capture` values; throws on an empty part or a repeated endpoint. */
export function parseUfmCaptures(values: readonly string[]): UfmCaptures {
  let anyEndpoint: string | undefined;
  const byEndpoint = new Map<string, string>();
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq < 0) {
      if (value === '') throw new Error('--ufm-capture needs a directory');
      if (anyEndpoint !== undefined) throw new Error(`--ufm-capture ${value}: a directory for every endpoint is already given (${anyEndpoint}); use ENDPOINT=DIR for more than one`);
      anyEndpoint = value;
      continue;
    }
    const endpoint = value.slice(0, eq);
    const dir = value.slice(eq + 1);
    if (endpoint === '' || dir === '') throw new Error(`--ufm-capture ${value}: want ENDPOINT=DIR or DIR`);
    const key = portsUrl(endpoint);
    if (byEndpoint.has(key)) throw new Error(`--ufm-capture ${value}: endpoint ${endpoint} is already given`);
    byEndpoint.set(key, dir);
  }
  return { anyEndpoint, byEndpoint };
}

/** Serves the ports body of an endpoint from its capture directory. */
export function captureReader(captures: UfmCaptures): PortsBodyReader {
  return async (endpoint) => {
    const url = portsUrl(endpoint);
    const dir = captures.byEndpoint.get(url) ?? captures.anyEndpoint;
    if (dir === undefined) {
      throw new Error(`no UFM capture for endpoint ${endpoint}: pass --ufm-capture ${endpoint}=DIR with the body of GET ${url} saved as DIR/${PORTS_CAPTURE_FILE}`);
    }
    const file = join(dir, PORTS_CAPTURE_FILE);
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : errorMessage(err);
      throw new Error(`cannot read the UFM capture ${file} (${reason}): save the body of GET ${url} there`, { cause: err });
    }
  };
}
