// Tests that need something this machine may lack (root, a tool): whether they
// run is decided when they are registered, so uvu counts them as skipped, and
// the suite's closing line says so, instead of counting an early return as a pass.

import { spawnSync } from 'node:child_process';
import { test, type Callback } from 'uvu';

/**
 * `test` when `missing` is undefined; otherwise registers the test as skipped
 * and prints one line naming it and what it lacks.
 */
export function testNeeding(missing: string | undefined): (name: string, fn: Callback) => void {
  if (missing === undefined) return test;
  return (name) => {
    console.log(`SKIP "${name}": ${missing}`);
    test.skip(name);
  };
}

/** Undefined when `command` is on PATH, else why a test that runs it cannot. */
export function missingCommand(command: string, debianPackage = command): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { stdio: 'ignore' }).status === 0;
  return found ? undefined : `${command} is not installed (apt-get install -y ${debianPackage})`;
}

/** Undefined when running as root, else why a test that mounts or enters namespaces cannot. */
export function missingRoot(): string | undefined {
  return process.getuid?.() === 0 ? undefined : 'not running as root';
}
