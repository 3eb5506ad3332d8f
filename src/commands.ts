// The half of the program that `--version`, `--help` and bad flags never
// load: the controller's server, the `render` and `plan` subcommands and the
// kubectl plugin.
// src/main.ts imports this one module lazily; the build bundles it on its own
// first, with full tree shaking, because esbuild keeps every module reached
// through import() whole (scripts/build.mjs, bundleLazyHalf).

export { runServer } from './app/server.ts';
export { render } from './cmd/render.ts';
export { plan } from './cmd/plan.ts';
export { kubectlHypernode } from './cmd/kubectl-hypernode.ts';
