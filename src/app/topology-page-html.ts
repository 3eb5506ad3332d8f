// The HTML form of /debug/topology: one small, self-contained page (no
// script, no request of its own) that lists the controller's state per
// discovery source: the last snapshot and its result, held deletes, the
// rejected snapshot, uncovered Nodes, and the desired HyperNodes as a table,
// highest tier first. Rendered on the server; every value is escaped.

import { compareBytes } from '../util/compare-bytes.ts';
import type { DiscoveredHyperNode } from '../hypernode/model/hypernode-types.ts';
import type { SourceTopologyState, TopologyState } from '../hypernode/reconcile/topology-state.ts';
import { escapeHtml } from '../util/html-escape.ts';

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}.warn{color:#a40}.ok{color:#270}pre{background:#f8f8f8;padding:.5em;white-space:pre-wrap}`;

const time = (ms: number | undefined) => (ms === undefined ? 'never' : new Date(ms).toISOString());

function resultText(s: SourceTopologyState): string {
  const r = s.lastResult;
  if (!r) return 'no snapshot yet';
  if (r.rejected) return `<span class="warn">rejected: nothing written</span> (${r.discovered} HyperNodes in the snapshot)`;
  const counts = `${r.discovered} discovered, ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.deleted} deleted`;
  const trouble = [r.failed > 0 ? `${r.failed} failed (retried)` : '', r.held > 0 ? `${r.held} deletes held` : '', r.foreign > 0 ? `${r.foreign} names held by other owners` : '']
    .filter(Boolean)
    .join(', ');
  return trouble ? `${counts}; <span class="warn">${trouble}</span>` : `<span class="ok">${counts}</span>`;
}

function membersOf(hn: DiscoveredHyperNode, type: string): string[] {
  return hn.spec.members.filter((m) => m.type === type).map((m) => m.selector?.exactMatch?.name ?? m.selector?.regexMatch?.pattern ?? 'labelMatch');
}

function hyperNodeTable(desired: readonly DiscoveredHyperNode[]): string {
  const parents = new Map<string, string>();
  for (const hn of desired) for (const child of membersOf(hn, 'HyperNode')) parents.set(child, hn.metadata.name);
  const rows = [...desired]
    .sort((a, b) => b.spec.tier - a.spec.tier || compareBytes(a.metadata.name, b.metadata.name))
    .map((hn) => {
      const name = hn.metadata.name;
      const cells = [name, String(hn.spec.tier), hn.spec.tierName ?? '', parents.get(name) ?? '', membersOf(hn, 'HyperNode').join(', '), membersOf(hn, 'Node').join(', ')];
      return `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
    });
  return `<table><tr><th>HyperNode</th><th>tier</th><th>tierName</th><th>parent</th><th>HyperNode members</th><th>Node members</th></tr>\n${rows.join('\n')}</table>`;
}

function sourceSection(s: SourceTopologyState): string {
  const parts = [`<h2>Source ${escapeHtml(s.source)}</h2>`, '<dl>'];
  parts.push(`<dt>Last snapshot</dt><dd>${escapeHtml(time(s.lastSnapshotAt))}</dd>`, `<dt>Result</dt><dd>${resultText(s)}</dd></dl>`);
  if (s.rejected) {
    parts.push(`<h3 class="warn">Rejected snapshot (since ${escapeHtml(time(s.rejected.at))}); the last accepted one below still stands</h3>`, `<pre>${escapeHtml(s.rejected.violations)}</pre>`);
  }
  if (s.heldDeletes.length > 0) {
    parts.push(`<h3 class="warn">Held deletes (${s.heldDeletes.length})</h3><ul>${s.heldDeletes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`);
  }
  if (s.uncoveredNodes && s.uncoveredNodes.count > 0) {
    const { count, listed } = s.uncoveredNodes;
    const more = count > listed.length ? `<p>… and ${count - listed.length} more</p>` : '';
    const rows = listed.map((u) => `<tr><td>${escapeHtml(u.name)}</td><td>${escapeHtml(u.why)}</td></tr>`).join('');
    parts.push(`<h3 class="warn">Uncovered Nodes (${count})</h3>`, listed.length > 0 ? `<table><tr><th>Node</th><th>why</th></tr>${rows}</table>${more}` : '');
  }
  parts.push(`<h3>Desired HyperNodes (${s.desired.length})</h3>`, s.desired.length > 0 ? hyperNodeTable(s.desired) : '<p>none</p>');
  return parts.join('\n');
}

export function renderTopologyPage(state: TopologyState, generatedAt: number): string {
  const status = state.running ? 'This replica runs the controller.' : 'This replica does not run the controller now (a standby, or stopping); what it last recorded is shown.';
  const body = state.sources.length > 0 ? state.sources.map(sourceSection).join('\n') : '<p>No discovery source has produced a snapshot yet.</p>';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>HyperNode topology</title><style>${STYLE}</style></head>
<body><h1>HyperNode topology</h1>
<p>${escapeHtml(status)} Generated ${escapeHtml(new Date(generatedAt).toISOString())}.</p>
${body}
</body></html>
`;
}
