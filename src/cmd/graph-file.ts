// The `--graph-file F` of `render` and `plan`: serves every graph source's
// document from a local file instead of its ConfigMap key, file or URL, so an
// operator previews a fabric graph offline, the way `--ufm-capture` serves
// UFM's answers. `render` never reads the configured location (no network,
// no Secret): without the flag a graph source fails with what to pass.

import { readFile } from 'node:fs/promises';
import type { GraphReader } from '../hypernode/discovery/graph/graph-discoverer.ts';
import { describeLocation } from '../hypernode/discovery/graph/graph-config.ts';
import { errorMessage } from '../util/error-message.ts';

export const GRAPH_FILE_HELP =
  'File with the fabric graph document (JSON or YAML, the format of docs/configuration.md) for every graph source, read instead of its config.configMap, config.file or config.url; the URL is not contacted and no Secret or ConfigMap is read.';

/** Reads `path` for every graph source; with no path, each read fails naming the flag. */
export function graphFileReader(path: string): GraphReader {
  return async (location) => {
    if (path === '')
      throw new Error(
        `no fabric graph for the graph source: pass --graph-file F with the document of ${describeLocation(location)}`,
      );
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : errorMessage(err);
      throw new Error(`cannot read the --graph-file ${path} (${reason})`, { cause: err });
    }
  };
}
