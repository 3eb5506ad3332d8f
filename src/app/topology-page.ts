// /debug/topology on the metrics listener (--enable-topology-page): the
// controller's state as the HTML topology view, or as JSON when the request
// accepts application/json. Reads it through TopologyStateView, and the
// cached Nodes (to resolve regex and label members) through a Lister; the gate
// in front (request-auth.ts) has already authenticated and authorised the
// caller. Ours: the Go controller has no such page.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../kube/clock.ts';
import type { Lister } from '../kube/types.ts';
import type { NodeMeta } from '../hypernode/model/hypernode-types.ts';
import { TOPOLOGY_PAGE_CSP } from '../hypernode/exports/view/topology-html.ts';
import type { FabricTaint } from '../hypernode/reconcile/health/fabric-taints.ts';
import type { SourceTopologyState, TopologyState, TopologyStateView } from '../hypernode/reconcile/topology-state.ts';
import { compareBytes } from '../util/compare-bytes.ts';
import { sendOk, type ListenerRoute } from './metrics.ts';
import { sendText } from './probes.ts';
import { renderTopologyPage } from './topology-page-html.ts';

export const TOPOLOGY_PAGE_PATH = '/debug/topology';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

function sourceJson(s: SourceTopologyState) {
  return {
    source: s.source,
    lastSnapshotTime: iso(s.lastSnapshotAt),
    lastResult: s.lastResult ?? null,
    heldDeletes: s.heldDeletes,
    heldNodes: (s.heldNodes ?? []).map((h) => ({
      node: h.node,
      keys: h.keys,
      since: iso(h.since),
      until: iso(h.until),
    })),
    rejectedSnapshot: s.rejected ? { since: iso(s.rejected.at), violations: s.rejected.violations.split('\n') } : null,
    uncoveredNodes: s.uncoveredNodes ?? null,
    hyperNodes: s.desired,
  };
}

/** The Nodes carrying the fabric taint, by name; null while the taint writer has said nothing (health.taint off). */
function fabricTaintsJson(carried: ReadonlyMap<string, FabricTaint> | undefined) {
  if (!carried) return null;
  return [...carried]
    .sort(([a], [b]) => compareBytes(a, b))
    .map(([node, t]) => ({ node, key: t.key, value: t.value, effect: t.effect }));
}

/**
 * The JSON form: times in RFC 3339, absent parts as null, the HyperNodes as the controller keeps them (as written, with
 * the held deletes), and the Nodes the controller's fabric taint is on.
 */
export function topologyJson(state: TopologyState, generatedAt: number): string {
  return `${JSON.stringify({
    generatedAt: iso(generatedAt),
    controllerRunning: state.running,
    sources: state.sources.map(sourceJson),
    fabricTaints: fabricTaintsJson(state.fabricTaints),
  })}\n`;
}

const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  // The page's own policy (its inline style and script by hash, no request of
  // any kind), plus what only a header can say: no other site may frame it.
  'Content-Security-Policy': `${TOPOLOGY_PAGE_CSP}; frame-ancestors 'none'`,
};

export function topologyPageRoute(view: TopologyStateView, nodes: Lister<NodeMeta>, clock: Clock): ListenerRoute {
  return async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return sendText(res, 405, 'Method Not Allowed\n');
    }
    const state = view.current();
    const now = clock.now();
    // Gzipped when asked: the JSON of a 65,000-Node topology is about 5 MiB.
    if (/\bapplication\/json\b/.test(String(req.headers.accept ?? '')))
      sendOk(req, res, topologyJson(state, now), { ...PAGE_HEADERS, 'Content-Type': 'application/json' });
    else
      sendOk(req, res, renderTopologyPage(state, now, nodes.list()), {
        ...PAGE_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
      });
  };
}
