// Links of hand-built fabric graphs for this folder's tests. The fabric layer
// reads ports only to name them in problems, so every host sits on port 1 of
// its switch unless a test names one.

import type { FabricLink } from '../../../../src/hypernode/discovery/fabric/fabric-graph.ts';

/** `host` (its eth0) cabled to `port` of switch `sw`. */
export const hostLink = (host: string, sw: string, port = '1'): FabricLink => ({
  a: { kind: 'host', name: host, port: 'eth0' },
  b: { kind: 'switch', id: sw, port },
});

/** Switches `x` and `y` cabled to each other, each port named after the other end. */
export const swLink = (x: string, y: string): FabricLink => ({
  a: { kind: 'switch', id: x, port: `to-${y}` },
  b: { kind: 'switch', id: y, port: `to-${x}` },
});
