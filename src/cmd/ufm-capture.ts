// UFM answers captured on disk, for `render`: `--ufm-capture DIR` serves every
// UFM endpoint, `--ufm-capture ENDPOINT=DIR` one, so an operator previews a
// UFM fabric from files: UFM is not asked and no Secret is read. A directory
// holds one body per resource the source reads (CAPTURE_FILES). Endpoints
// compare by the base URL the discoverer requests from, so `ufm:8080` and
// `https://ufm:8080/` are one endpoint.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResourceBodyReader, UfmResource } from '../hypernode/discovery/ufm/ufm-discoverer.ts';
import { resourceUrl } from '../hypernode/discovery/ufm/ufm-endpoint.ts';
import { endpointBase } from '../hypernode/discovery/ufm/ufm-config.ts';
import { errorMessage } from '../util/error-message.ts';
import { redactUrl } from '../util/redact-url.ts';
import { parseCaptureDirs } from './capture-dirs.ts';

/** The file holding the body of each resource inside a capture directory. */
export const CAPTURE_FILES: Readonly<Record<UfmResource, string>> = Object.freeze({
  ports: 'ports.json',
  links: 'links.json',
  systems: 'systems.json',
});

export interface UfmCaptures {
  /** The directory for every endpoint without its own. */
  readonly anyEndpoint?: string;
  /** Base URL of an endpoint → its directory. */
  readonly byEndpoint: ReadonlyMap<string, string>;
}

/** Parses the `--ufm-capture` values; throws on an empty part or a repeated endpoint. */
export function parseUfmCaptures(values: readonly string[]): UfmCaptures {
  const { any, byKey } = parseCaptureDirs('--ufm-capture', 'endpoint', values, endpointBase);
  return { anyEndpoint: any, byEndpoint: byKey };
}

/** Serves a resource body of an endpoint from its capture directory. */
export function captureReader(captures: UfmCaptures): ResourceBodyReader {
  return async (endpoint, resource) => {
    const key = endpointBase(endpoint);
    const url = resourceUrl(endpoint, 'basic', `/resources/${resource}`);
    const name = CAPTURE_FILES[resource];
    const dir = captures.byEndpoint.get(key) ?? captures.anyEndpoint;
    if (dir === undefined) {
      throw new Error(
        `no UFM capture for endpoint ${redactUrl(endpoint)}: pass --ufm-capture ${redactUrl(endpoint)}=DIR with the body of GET ${redactUrl(url)} saved as DIR/${name}`,
      );
    }
    const file = join(dir, name);
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : errorMessage(err);
      throw new Error(`cannot read the UFM capture ${file} (${reason}): save the body of GET ${redactUrl(url)} there`, {
        cause: err,
      });
    }
  };
}
