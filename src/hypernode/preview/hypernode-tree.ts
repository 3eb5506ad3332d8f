// Renders HyperNodes as the tree a person reads: highest tier first, each
// HyperNode with its tier, tierName, nodeCount and members; Node members are
// listed compactly (first … last) since racks hold many of them, or left out,
// or narrowed to the one Node asked about. Used by `render -o tree`,
// `kubectl hypernode tree` and the demo (scripts/demo.ts). What it prints from
// the cluster is escaped for the terminal (model/fabric-names.ts).

import { compareBytes } from '../../util/compare-bytes.ts';
import { falseHealthConditions } from '../reconcile/health/conditions.ts';
import { terminalText } from '../model/fabric-names.ts';

/** The parts of a HyperNode the tree shows (also fits objects read back from a store). */
export interface TreeHyperNode {
  metadata: { name: string };
  spec: {
    tier: number;
    tierName?: string;
    members?: Array<{ type: string; selector: { exactMatch?: { name: string } } }>;
  };
  status?: { nodeCount?: number; conditions?: Array<{ type: string; status: string; message: string }> };
}

/** How names and details are decorated; plain text by default (colour is the caller's choice). */
export interface TreeStyle {
  name(text: string): string;
  detail(text: string): string;
}

const PLAIN: TreeStyle = { name: (t) => t, detail: (t) => t };

/**
 * Which Node members a line shows: all of them (compacted), none (the
 * plugin's overview, where a rack's list is noise), or only `focus` (the Node
 * asked about, which a compacted list could hide) with how many others share it.
 */
export type NodeMembers =
  | { readonly show: 'all' }
  | { readonly show: 'none' }
  | { readonly show: 'focus'; readonly focus: string };

function nodeList(names: string[], members: NodeMembers): string {
  if (members.show === 'none' || names.length === 0) return '';
  if (members.show === 'all') return `  nodes: ${compact(names)}`;
  if (!names.includes(members.focus)) return '';
  return `  nodes: ${members.focus}${names.length > 1 ? ` and ${names.length - 1} more` : ''}`;
}

function memberNames(hn: TreeHyperNode, type: string): string[] {
  return (hn.spec.members ?? [])
    .filter((m) => m.type === type && m.selector.exactMatch)
    .map((m) => m.selector.exactMatch!.name);
}

function compact(names: string[]): string {
  if (names.length <= 4) return names.join(', ');
  return `${names[0]}, ${names[1]} … ${names[names.length - 1]} (${names.length} nodes)`;
}

export function renderHyperNodeTree(
  hyperNodes: readonly TreeHyperNode[],
  style: TreeStyle = PLAIN,
  members: NodeMembers = { show: 'all' },
): string {
  const byName = new Map(hyperNodes.map((hn) => [hn.metadata.name, hn]));
  const children = new Set(hyperNodes.flatMap((hn) => memberNames(hn, 'HyperNode')));
  const roots = hyperNodes
    .filter((hn) => !children.has(hn.metadata.name))
    .sort((a, b) => b.spec.tier - a.spec.tier || compareBytes(a.metadata.name, b.metadata.name));
  const lines: string[] = [];
  const walk = (hn: TreeHyperNode, prefix: string, last: boolean, isRoot: boolean) => {
    const head = isRoot ? '' : `${prefix}${last ? '└─ ' : '├─ '}`;
    // What the cluster holds is escaped before it is styled (model/fabric-names.ts): anyone who may write a HyperNode
    // chooses its tierName, members and condition messages.
    const details = terminalText(
      `tier=${hn.spec.tier}${hn.spec.tierName ? ` (${hn.spec.tierName})` : ''}  nodeCount=${hn.status?.nodeCount ?? 0}`,
    );
    const nodes = memberNames(hn, 'Node');
    lines.push(
      `${head}${style.name(terminalText(hn.metadata.name))}  ${style.detail(details)}${terminalText(nodeList(nodes, members))}`,
    );
    // Health (docs/health.md): a False condition is marked under its HyperNode, with the controller's message.
    const pad = isRoot ? '   ' : `${prefix}${last ? '   ' : '│  '}   `;
    for (const c of falseHealthConditions(hn.status?.conditions))
      lines.push(`${pad}✗ UNHEALTHY ${terminalText(`${c.type}=False: ${c.message}`)}`);
    const kids = memberNames(hn, 'HyperNode')
      .map((n) => byName.get(n))
      .filter((c): c is TreeHyperNode => c !== undefined);
    const next = isRoot ? '' : `${prefix}${last ? '   ' : '│  '}`;
    kids.forEach((c, i) => {
      walk(c, next, i === kids.length - 1, false);
    });
  };
  for (const root of roots) walk(root, '', true, true);
  return lines.join('\n');
}
