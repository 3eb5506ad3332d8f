// `kubectl hypernode why NODE`: every HyperNode holding the Node, lowest tier
// first, each with its source and why: the member selector and the label
// values, profile or UFM fabric that put the Node there, or the child
// HyperNode it comes through (nodeMemberships).

import { formatUsage, parseFlags } from '../app/flags/flag-set.ts';
import { nodeMemberships, type Membership } from '../hypernode/exports/view/node-membership.ts';
import { conditionTime, falseHealthConditions, NODES_READY } from '../hypernode/reconcile/health/conditions.ts';
import { recordedUntil } from '../hypernode/reconcile/health/label-holds.ts';
import { readinessProblem, type NodeHealth } from '../hypernode/reconcile/health/node-health.ts';
import {
  carriedFabricTaint,
  fabricOfTaintValue,
  formatFabricTaint,
  sourceOfTaintValue,
} from '../hypernode/reconcile/health/fabric-taints.ts';
import { terminalText } from '../hypernode/model/fabric-names.ts';
import { connectPlugin, type PluginConnection } from './plugin-kubeconfig.ts';
import type { ClusterReader } from './cluster-reads.ts';
import { usageError, type SubcommandResult, type SubcommandUsage } from './subcommand-flags.ts';
import { SubcommandStderr } from './subcommand-stderr.ts';
import { EXIT_FAILURE, EXIT_SUCCESS } from '../exit-codes.ts';

export async function pluginWhy(
  argv: readonly string[],
  command: string,
  connection: PluginConnection,
): Promise<SubcommandResult> {
  const usage: SubcommandUsage = {
    command,
    text: `Explains which HyperNodes hold NODE, and why.\n\n${formatUsage({}, `${command} NODE`)}`,
    helpCode: EXIT_SUCCESS,
    errorCode: EXIT_FAILURE,
  };
  const parsed = parseFlags({}, argv);
  if (parsed.kind === 'help') return { code: EXIT_SUCCESS, stdout: '', stderr: usage.text };
  if (parsed.kind === 'error') return usageError(usage, parsed.message);
  if (parsed.positionals.length !== 1) return usageError(usage, `${command} takes exactly one Node name`);
  const name = parsed.positionals[0]!;
  const stderr = new SubcommandStderr();
  let cluster: ClusterReader | undefined;
  try {
    cluster = connectPlugin(connection, 'kubectl-hypernode-why', stderr.logger);
    const [node, health, hyperNodes] = await Promise.all([
      cluster.node(name),
      cluster.nodeHealth(name),
      cluster.hyperNodes(),
    ]);
    const memberships = nodeMemberships(node, hyperNodes);
    const tainted = taintLines(name, health);
    if (memberships.length === 0)
      return {
        code: EXIT_SUCCESS,
        stdout: terminalText(
          [
            `Node ${name} is in no HyperNode: no member selector of any of the ${hyperNodes.length} HyperNodes picks it.`,
            ...tainted,
          ].join('\n') + '\n',
        ),
        stderr: stderr.text(),
      };
    const lines = [`Node ${name} is in ${memberships.length} HyperNode${memberships.length === 1 ? '' : 's'}:`];
    const byName = new Map(hyperNodes.map((hn) => [hn.metadata.name, hn]));
    for (const m of memberships) {
      const unhealthy = falseHealthConditions(byName.get(m.hyperNode)?.status?.conditions).map(
        (c) => `${c.type}=False: ${c.message}`,
      );
      const hn = byName.get(m.hyperNode);
      const until = hn ? recordedUntil(hn, name) : undefined;
      const held =
        until === undefined
          ? []
          : [
              `kept here by the label memory while a label that places it is missing, until ${conditionTime(until)} (health.labelGracePeriod); then it moves, unless the label comes back`,
            ];
      lines.push(
        `  ${m.hyperNode}  ${describe(m)}`,
        ...[...reasons(m), ...held, ...unhealthy].map((r) => `    - ${r}`),
      );
    }
    // Only where node health is on (a HyperNode above carries NodesReady) does the Node's own readiness count.
    const judged = memberships.some((m) =>
      byName.get(m.hyperNode)?.status?.conditions?.some((c) => c.type === NODES_READY),
    );
    if (judged) lines.push(...healthLines(name, health, memberships.length));
    lines.push(...tainted);
    // Names, patterns and condition messages are the cluster's: escaped for the terminal (model/fabric-names.ts).
    return { code: EXIT_SUCCESS, stdout: terminalText(`${lines.join('\n')}\n`), stderr: stderr.text() };
  } catch (err) {
    return stderr.failure(EXIT_FAILURE, err);
  } finally {
    cluster?.close();
  }
}

/** Why the Node counts as unhealthy in NodesReady (docs/health.md); nothing for a Ready, uncordoned Node. */
function healthLines(name: string, health: NodeHealth, above: number): string[] {
  const why = readinessProblem(health);
  if (why !== undefined)
    return [`Node ${name} is ${why}: it makes NodesReady False on the ${above} HyperNode(s) above it.`];
  if (health.unschedulable)
    return [`Node ${name} is Ready and cordoned: NodesReady stays True above it, with reason NodesCordoned.`];
  return [];
}

/** Why the Node carries the fabric taint (health.taint), when the taint its record names is on it. */
function taintLines(name: string, health: NodeHealth): string[] {
  const t = carriedFabricTaint(health.fabricTaint, health.taints);
  if (!t) return [];
  const fabric = fabricOfTaintValue(t.value);
  const where = `${fabric ? `fabric ${fabric} of ` : ''}source ${sourceOfTaintValue(t.value)}`;
  return [
    `Node ${name} is tainted ${formatFabricTaint(t)} by the controller (health.taint): every link of its hosts on ${where} has been missing for health.taint.after; the taint goes once a poll shows a link again, or once the source or health.taint is off.`,
  ];
}

function describe(m: Membership): string {
  return `tier ${m.tier}${m.tierName ? ` (${m.tierName})` : ''}, ${m.source ? `source ${m.source}` : 'no discovery source (made by hand)'}`;
}

function reasons(m: Membership): readonly string[] {
  return m.through === undefined ? m.reasons : [`through ${m.through}`];
}
