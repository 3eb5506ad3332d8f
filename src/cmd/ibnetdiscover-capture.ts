// Saved outputs of `ibnetdiscover` on disk, for `render` and `plan`:
// `--ibnetdiscover-capture FILE` serves every fabric of the ibnetdiscover
// source, `--ibnetdiscover-capture FABRIC=FILE` one, so an operator previews
// a subnet from a copy of its output: the command is not run and config.file
// is not read. The file is read as a stream, as the source reads a command's
// output.

import { createReadStream } from 'node:fs';
import type { IbOutputReader } from '../hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import { errorMessage } from '../util/error-message.ts';
import { CAPTURE_FILE, parseCaptureDirs, type CaptureDirs } from './capture-dirs.ts';

export const IBNETDISCOVER_CAPTURE_FLAG = 'ibnetdiscover-capture';

export const IBNETDISCOVER_CAPTURE_HELP =
  "File with the output of `ibnetdiscover` (its default format, with the arguments of config.command; or ibdiagnet's ibdiagnet2.ibnetdiscover) for every fabric of the ibnetdiscover source, or FABRIC=FILE for one fabric. Repeatable. ibnetdiscover is not run and config.file is not read.";

/**
 * Parses the `--ibnetdiscover-capture` values (undefined when there are none); throws on an empty part or a repeated
 * fabric.
 */
export function parseIbnetdiscoverCaptures(values: readonly string[]): CaptureDirs | undefined {
  return values.length === 0
    ? undefined
    : parseCaptureDirs(`--${IBNETDISCOVER_CAPTURE_FLAG}`, 'fabric', values, undefined, CAPTURE_FILE);
}

/** Serves each fabric's saved output; a fabric without one fails naming the flag. */
export function capturedOutputs(captures: CaptureDirs | undefined): IbOutputReader {
  return async (fabric) => {
    const file = captures?.byKey.get(fabric.name) ?? captures?.any;
    if (file === undefined) {
      throw new Error(
        `no ibnetdiscover output for fabric ${fabric.name}: pass --${IBNETDISCOVER_CAPTURE_FLAG} ${fabric.name}=FILE with what \`ibnetdiscover\` prints on a host of that fabric`,
      );
    }
    return chunksOf(file);
  };
}

/** The file's chunks; a file that cannot be read is named with the flag. */
async function* chunksOf(file: string): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of createReadStream(file)) yield chunk as Buffer;
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : errorMessage(err);
    throw new Error(`cannot read the --${IBNETDISCOVER_CAPTURE_FLAG} ${file} (${reason})`, { cause: err });
  }
}
