// The one date a build carries (--version's `Built At`, every file time in
// the image and the tarballs): SOURCE_DATE_EPOCH when set, else the time of
// the commit being built, never the wall clock, so that two builds of one
// commit agree byte for byte and a rebuilt bundle never disagrees with an
// executable built earlier from the same commit.

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export function git(args) {
  return execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
}

/** Seconds since 1970: SOURCE_DATE_EPOCH, else HEAD's commit time; undefined outside a git repository. */
export function sourceDateEpoch() {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d+$/.test(epoch))
      throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got ${JSON.stringify(epoch)}`);
    return Number(epoch);
  }
  try {
    return Number(git(['log', '-1', '--format=%ct']));
  } catch {
    return undefined;
  }
}
