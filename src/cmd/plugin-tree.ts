// `kubectl hypernode tree`: the live HyperNodes as the text tree `render -o
// tree` prints, as the HTML view, or as Slurm's topology files (the same
// writer and flags as `render`); --source keeps one discovery source's,
// --node only those holding a Node (its path up the tiers).

import { stringKind } from '../app/flags/flag-kinds.ts';
import { flag, formatUsage } from '../app/flags/flag-set.ts';
import type { HyperNode, NodeMeta } from '../hypernode/model/hypernode-types.ts';
import { renderHyperNodeTree } from '../hypernode/preview/hypernode-tree.ts';
import { publishedTrees, withSpec } from '../hypernode/preview/published-topology.ts';
import { isOwnedBy, SOURCE_KEYS } from '../hypernode/model/hypernode-labels.ts';
import { nodeMemberships } from '../hypernode/exports/view/node-membership.ts';
import { topologyHtml } from '../hypernode/exports/view/topology-html.ts';
import { topologyView } from '../hypernode/exports/view/topology-model.ts';
import { EMPTY_CONFIG } from '../hypernode/config/loader.ts';
import { choiceKind } from './choice-flag.ts';
import { readDiscoveryConfig } from './render-inputs.ts';
import { isSlurmFormat, SLURM_FLAGS, SLURM_FORMATS, slurmOutput } from './slurm-output.ts';
import { connectPlugin, type PluginConnection } from './plugin-kubeconfig.ts';
import type { ClusterReader } from './cluster-reads.ts';
import { parseSubcommandFlags, type SubcommandResult, type SubcommandUsage } from './subcommand-flags.ts';
import { SubcommandStderr } from './subcommand-stderr.ts';
import { EXIT_FAILURE, EXIT_SUCCESS } from '../exit-codes.ts';

const OUTPUT_FORMATS = ['text', 'html', ...SLURM_FORMATS] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const TREE_FLAGS = {
  source: flag(
    stringKind,
    '',
    `Only the HyperNodes of this discovery source (${SOURCE_KEYS.join(', ')}): their volcano.sh/network-topology-source label.`,
  ),
  node: flag(stringKind, '', 'Only the HyperNodes holding this Node, directly or through a child.'),
  output: flag(
    choiceKind<OutputFormat>(OUTPUT_FORMATS),
    'text',
    "Output format: text, html (one self-contained page to open in a browser), or slurm-topology-yaml / slurm-topology-conf (Slurm's topology.yaml / topology.conf).",
    'o',
  ),
  ...SLURM_FLAGS,
  // The plugin reads no ConfigMap (its user may only get HyperNodes and Nodes), so the host mapping comes from a file.
  config: flag(
    stringKind,
    '',
    'For the Slurm outputs: a discovery configuration file (as `plan --config` takes) whose ufm hostMapping.nodeLabel gives Slurm the host names back. Default: Node names are the host names.',
  ),
};

export async function pluginTree(
  argv: readonly string[],
  command: string,
  connection: PluginConnection,
): Promise<SubcommandResult> {
  const usage: SubcommandUsage = {
    command,
    text: `Draws the cluster's HyperNodes, highest tier first.\n\n${formatUsage(TREE_FLAGS, command)}`,
    helpCode: EXIT_SUCCESS,
    errorCode: EXIT_FAILURE,
  };
  const parsed = parseSubcommandFlags(TREE_FLAGS, argv, usage);
  if ('result' in parsed) return parsed.result;
  const { source, node, output } = parsed.values;
  const slurm = isSlurmFormat(output) ? output : undefined;
  const stderr = new SubcommandStderr();
  let cluster: ClusterReader | undefined;
  try {
    cluster = connectPlugin(connection, 'kubectl-hypernode-tree', stderr.logger);
    const reader = cluster;
    // Nodes are read only when needed: to resolve regex and label members (page, Slurm), or to place --node.
    const [all, nodes, target] = await Promise.all([
      reader.hyperNodes(),
      output === 'html' || slurm ? reader.nodes() : Promise.resolve([] as NodeMeta[]),
      node === '' ? Promise.resolve(undefined) : reader.node(node),
    ]);
    let hyperNodes: HyperNode[] = source === '' ? all : all.filter((hn) => isOwnedBy(hn, source));
    if (target) {
      const holding = new Set(nodeMemberships(target, hyperNodes).map((m) => m.hyperNode));
      hyperNodes = hyperNodes.filter((hn) => holding.has(hn.metadata.name));
    }
    const scope = [source === '' ? '' : `source ${source}`, node === '' ? '' : `holding Node ${node}`]
      .filter((s) => s !== '')
      .join(', ');
    if (output === 'html') {
      return {
        code: EXIT_SUCCESS,
        stdout: topologyHtml(
          topologyView(`HyperNodes${scope ? ` (${scope})` : ''}: ${hyperNodes.length}`, hyperNodes, nodes),
        ),
        stderr: stderr.text(),
      };
    }
    if (slurm) {
      const config = parsed.values.config === '' ? EMPTY_CONFIG : await readDiscoveryConfig(parsed.values.config);
      const text = slurmOutput(slurm, {
        trees: publishedTrees(hyperNodes),
        nodes,
        config,
        flags: parsed.values,
        warn: (w) => stderr.warnings([w]),
      });
      return { code: EXIT_SUCCESS, stdout: text, stderr: stderr.text() };
    }
    if (hyperNodes.length === 0)
      return {
        code: EXIT_SUCCESS,
        stdout: '',
        stderr: `${stderr.text()}No HyperNodes${scope ? ` (${scope})` : ''}.\n`,
      };
    // Node lists only for --node, narrowed to that Node (previewing-changes.md): a rack's list would hide it.
    const members = node === '' ? ({ show: 'none' } as const) : ({ show: 'focus', focus: node } as const);
    return {
      code: EXIT_SUCCESS,
      stdout: `${renderHyperNodeTree(hyperNodes.map(withSpec), undefined, members)}\n`,
      stderr: stderr.text(),
    };
  } catch (err) {
    return stderr.failure(EXIT_FAILURE, err);
  } finally {
    cluster?.close();
  }
}
