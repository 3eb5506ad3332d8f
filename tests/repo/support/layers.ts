// The layers of src/, lowest first: a file may import its own layer and the
// layers below it. Within src/hypernode/ the model is the vocabulary, the
// metrics and the Event catalogue are what every wing reports through, the
// exports follow the tree the reconcile core keeps (so the core never knows
// an export), and the controller on top wires discovery to the core and the
// core to the exports. docs/design.md
// §1 draws the same stack and orders its module map by it
// (tests/repo/design-map.test.ts); tests/repo/layout.test.ts holds the
// imports to it.

export const LAYERS: readonly (readonly string[])[] = [
  ['src/util/'],
  ['src/log.ts', 'src/version.ts', 'src/exit-codes.ts'],
  ['src/kube/'],
  ['src/hypernode/model/'],
  ['src/hypernode/hypernode-metrics.ts', 'src/hypernode/event-reasons.ts'],
  ['src/hypernode/config/'],
  ['src/hypernode/discovery/'],
  ['src/hypernode/reconcile/'],
  ['src/hypernode/exports/'],
  ['src/hypernode/preview/'],
  ['src/hypernode/controller.ts'],
  ['src/app/', 'src/cmd/'],
  ['src/commands.ts'],
  ['src/main.ts'],
];

/** The layer of a src/ path, a file or a folder (the longest prefix that names it), or undefined. */
export function layerOf(path: string): number | undefined {
  let best: { layer: number; length: number } | undefined;
  LAYERS.forEach((prefixes, layer) => {
    for (const p of prefixes)
      if ((p.endsWith('/') ? path.startsWith(p) : path === p) && (!best || p.length > best.length))
        best = { layer, length: p.length };
  });
  return best?.layer;
}
