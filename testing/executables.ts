// Where the build (scripts/build.mjs) leaves what we ship, for tests, the soak
// run and benchmarks that start the real artifact.

import { join } from 'node:path';

/** The repository's top directory. */
export const REPO_ROOT = join(import.meta.dirname, '..');
/** The Node SEA executable. */
export const BINARY = join(REPO_ROOT, 'dist/vc-hypernode-controller-manager');
/** The CommonJS bundle: the fallback when the SEA step was skipped, and what Deno runs. */
export const BUNDLE = join(REPO_ROOT, 'dist/vc-hypernode-controller-manager.cjs');
