// The HTML form of /debug/topology, drawn by the same topology view
// `render -o html` writes (src/hypernode/exports/view/), so the controller's
// state reads like a preview. Every value goes through the view's
// script-safe JSON and is shown as text, so none can become markup. The Nodes
// carrying the fabric taint, as the taint writer last read them, are marked.

import type { HyperNode, NodeMeta } from '../hypernode/model/hypernode-types.ts';
import { nodeCount } from '../hypernode/model/member-selector.ts';
import { topologyHtml } from '../hypernode/exports/view/topology-html.ts';
import type { TopologyView } from '../hypernode/exports/view/browser/topology-data.ts';
import { topologyView } from '../hypernode/exports/view/topology-model.ts';
import type { SourceTopologyState, TopologyState } from '../hypernode/reconcile/topology-state.ts';

const time = (ms: number) => new Date(ms).toISOString();

function resultNote(s: SourceTopologyState): string {
  const r = s.lastResult;
  if (!r || s.lastSnapshotAt === undefined) return `Source ${s.source}: no snapshot yet.`;
  const at = `Source ${s.source}: last snapshot ${time(s.lastSnapshotAt)}`;
  if (r.rejected) return `${at}: rejected, nothing written (${r.discovered} HyperNodes in it).`;
  const trouble = [
    r.failed > 0 ? `${r.failed} failed (retried)` : '',
    r.held > 0 ? `${r.held} deletes held` : '',
    r.foreign > 0 ? `${r.foreign} names held by other owners` : '',
  ].filter(Boolean);
  const counts = `${r.discovered} discovered, ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.deleted} deleted`;
  return `${at}: ${counts}${trouble.length > 0 ? `; ${trouble.join(', ')}` : ''}.`;
}

/** One line per fact a person would act on; a source with nothing wrong gets its result line only. */
function sourceNotes(s: SourceTopologyState): string[] {
  const notes = [resultNote(s)];
  if (s.rejected) {
    notes.push(
      `Source ${s.source}: snapshot rejected since ${time(s.rejected.at)}; the last accepted one is drawn. It breaks:`,
    );
    // Listed items start with a dash: the page collapses leading spaces.
    for (const line of s.rejected.violations.split('\n')) notes.push(`- ${line}`);
  }
  if (s.heldDeletes.length > 0)
    notes.push(
      `Source ${s.source}: ${s.heldDeletes.length} deletes held by the mass-delete guard: ${s.heldDeletes.join(', ')}`,
    );
  const held = s.heldNodes ?? [];
  if (held.length > 0) {
    notes.push(
      `Source ${s.source}: ${held.length} Nodes kept in place while labels that place them are missing (health.labelGracePeriod):`,
    );
    for (const h of held)
      notes.push(`- ${h.node}: ${h.keys.join(', ')} missing since ${time(h.since)}, moves at ${time(h.until)}`);
  }
  if (s.uncoveredNodes && s.uncoveredNodes.count > 0) {
    const { count, listed } = s.uncoveredNodes;
    notes.push(
      `Source ${s.source}: Nodes in no HyperNode (${count}${listed.length < count ? `, the first ${listed.length} named` : ''}):`,
    );
    for (const u of listed) notes.push(`- ${u.name}: ${u.why}`);
  }
  return notes;
}

/** The view of the state: every source's HyperNodes as kept; `nodes` resolve regex and label members. */
function topologyPageView(state: TopologyState, generatedAt: number, nodes: readonly NodeMeta[]): TopologyView {
  // The desired objects carry no status (the status writer writes it after the create): show the nodeCount it writes.
  const hyperNodes: HyperNode[] = state.sources.flatMap((s) =>
    s.desired.map((hn) => ({ ...hn, status: { nodeCount: nodeCount(hn, nodes) } })),
  );
  const replica = state.running
    ? 'This replica runs the controller.'
    : 'This replica does not run the controller now (a standby, or stopping); what it last recorded is shown.';
  const notes = [
    `${replica} Generated ${time(generatedAt)}.`,
    ...(state.sources.length > 0
      ? state.sources.flatMap(sourceNotes)
      : ['No discovery source has produced a snapshot yet.']),
  ];
  const sources = state.sources.map((s) => s.source).join(', ');
  return topologyView(
    `HyperNode topology: ${hyperNodes.length} desired HyperNodes${sources ? ` from ${sources}` : ''}`,
    hyperNodes,
    nodes,
    { notes, ...(state.fabricTaints ? { fabricTaints: state.fabricTaints } : {}) },
  );
}

export function renderTopologyPage(state: TopologyState, generatedAt: number, nodes: readonly NodeMeta[]): string {
  return topologyHtml(topologyPageView(state, generatedAt, nodes));
}
