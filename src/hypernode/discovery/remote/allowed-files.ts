// The one way a source reads a file that the discovery ConfigMap names (the
// graph source's config.file, the ibnetdiscover source's file, a node-name
// map): only under the directories the operator allows (--allow-file-dir),
// never through a symbolic link or `..` out of them, and only a regular file.
// The ConfigMap's writer may choose which of the operator's files is read, not
// make the controller read its ServiceAccount token or a key of the host.
//
// A path is checked twice: its form when the configuration is loaded (absolute,
// no `..`, under an allowed directory as written), and where it leads when it
// is opened: the real path (links resolved) must lie inside an allowed
// directory's real path, the last component is opened without following a
// link, and the path of what was actually opened (/proc/self/fd) is checked
// again, so a link swapped in between the two steps is caught too. Refusals
// name the key and the flag, never the file's content or where a link leads.

import { constants, realpathSync } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { posix } from 'node:path';
import { LOCATION_MAX_BYTES, quoteInput } from '../../../util/input-fragment.ts';
import { FILE_DIR_FLAG, type InputPolicy } from '../../model/input-policy.ts';

/** Not blocking on a FIFO (the open would hang a thread of the pool), not following a link at the last component. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** An error of the file rule: the path is outside what the operator allows. */
export class FileRefusedError extends Error {
  override readonly name = 'FileRefusedError';
}

const dirsText = (dirs: readonly string[]) =>
  dirs.length === 0 ? `none: the controller runs with --${FILE_DIR_FLAG}=` : dirs.join(', ');

const howToAllow = (dirs: readonly string[]) =>
  `files are read only under the directories the operator allows with --${FILE_DIR_FLAG} (now ${dirsText(dirs)}): put the file there, or have the operator add its directory`;

const quotePath = (path: unknown) => quoteInput(path, LOCATION_MAX_BYTES);

const isUnder = (path: string, dir: string) => dir === '/' || path === dir || path.startsWith(`${dir}/`);

/**
 * The configured path `raw` of `key` (e.g. `config.file`), checked for its form and, when the policy names
 * directories, for lying under one of them as written. Throws a FileRefusedError naming the key and the flag.
 */
export function checkConfiguredPath(raw: unknown, key: string, policy: InputPolicy): string {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.includes('\0'))
    throw new FileRefusedError(`${key} must be an absolute path, got ${quotePath(raw)}`);
  if (raw.split('/').includes('..'))
    throw new FileRefusedError(
      `${key} ${quotePath(raw)} has a ".." segment, which could lead out of the allowed directories: write the path without it`,
    );
  const path = posix.normalize(raw);
  const dirs = policy.fileDirs;
  if (dirs !== undefined && !dirs.some((d) => isUnder(path, d) || isUnder(path, realDirSync(d))))
    throw new FileRefusedError(`${key} ${quotePath(raw)} is outside the allowed directories; ${howToAllow(dirs)}`);
  return path;
}

/**
 * Opens the configured `path` of `key` for reading, if it leads to a regular file inside an allowed directory. Throws
 * a FileRefusedError for a path the rule refuses; errors of the file system (ENOENT, EACCES) pass through.
 */
export async function openAllowedFile(path: string, key: string, policy: InputPolicy): Promise<FileHandle> {
  const checked = checkConfiguredPath(path, key, policy);
  const dirs = policy.fileDirs;
  const realDirs = dirs === undefined ? undefined : await realDirsOf(dirs);
  const inside = (real: string) => realDirs === undefined || realDirs.some((d) => isUnder(real, d));
  const real = await realpath(checked);
  const leaves = () =>
    new FileRefusedError(
      `${key} ${quotePath(path)} leads through a symbolic link out of the allowed directories; ${howToAllow(dirs ?? [])}`,
    );
  if (!inside(real)) throw leaves();
  let file: FileHandle;
  try {
    file = await open(real, OPEN_FLAGS);
  } catch (err) {
    // ELOOP: the last component became a link after realpath read it.
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw leaves();
    throw err;
  }
  try {
    const opened = await openedPath(file);
    if (opened !== undefined && !inside(opened)) throw leaves();
    if (!(await file.stat()).isFile())
      throw new FileRefusedError(`${key} ${quotePath(path)} is not a regular file (a directory, a device or a pipe)`);
    return file;
  } catch (err) {
    await file.close();
    throw err;
  }
}

/** What the kernel says `file` is, where /proc shows it (Linux); undefined elsewhere. */
async function openedPath(file: FileHandle): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${file.fd}`);
  } catch {
    return undefined;
  }
}

/** The allowed directories with their links resolved; one that does not exist allows nothing. */
async function realDirsOf(dirs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const d of dirs) {
    try {
      out.push(await realpath(d));
    } catch {
      // not there (yet): nothing under it can be opened either
    }
  }
  return out;
}

function realDirSync(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return dir;
  }
}
