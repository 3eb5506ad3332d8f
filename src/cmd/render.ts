// `vc-hypernode-controller-manager render`: the HyperNodes a discovery
// configuration would give, computed offline from files, so an operator sees
// them before turning the configuration on. Every enabled source runs its
// real discoverer (previewDiscovery): label over the Nodes file, ufm, lldp and
// ibnetdiscover over captured answers, graph over --graph-file. Exit codes: 0
// printed, 1 a bad input or a failing source (nothing on stdout), 2 bad flags.

import { PREVIEW_INPUT_POLICY } from '../hypernode/model/input-policy.ts';
import { styleText } from 'node:util';
import { stringify as toYaml } from 'yaml';
import { stringArrayKind, stringKind } from '../app/flags/flag-kinds.ts';
import { flag, formatUsage } from '../app/flags/flag-set.ts';
import type { DiscoveredHyperNode } from '../hypernode/model/hypernode-types.ts';
import { builtinDiscoverers, newDiscovererRegistry } from '../hypernode/discovery/registry.ts';
import { createUfmDiscovererFactory } from '../hypernode/discovery/ufm/ufm-discoverer.ts';
import { createLldpDiscovererFactory } from '../hypernode/discovery/lldp/lldp-discoverer.ts';
import { captureWalks, parseLldpCaptures } from './lldp-capture.ts';
import { renderHyperNodeTree, type TreeStyle } from '../hypernode/preview/hypernode-tree.ts';
import { previewDiscovery } from '../hypernode/preview/preview.ts';
import { topologyHtml } from '../hypernode/exports/view/topology-html.ts';
import { topologyView } from '../hypernode/exports/view/topology-model.ts';
import { choiceKind } from './choice-flag.ts';
import { isSlurmFormat, SLURM_FLAGS, SLURM_FORMATS, slurmOutput, type SlurmFormat } from './slurm-output.ts';
import { readDiscoveryConfig, readHyperNodes, readNodes, type NodeFile } from './render-inputs.ts';
import { captureReader, CAPTURE_FILES, parseUfmCaptures, type UfmCaptures } from './ufm-capture.ts';
import { GRAPH_FILE_HELP, graphFileReader } from './graph-file.ts';
import { createGraphDiscovererFactory } from '../hypernode/discovery/graph/graph-discoverer.ts';
import { createIbnetdiscoverDiscovererFactory } from '../hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import { capturedOutputs, IBNETDISCOVER_CAPTURE_HELP, parseIbnetdiscoverCaptures } from './ibnetdiscover-capture.ts';
import { parseSubcommandFlags, usageError, type SubcommandResult, type SubcommandUsage } from './subcommand-flags.ts';
import { SubcommandStderr } from './subcommand-stderr.ts';
import { warningsOnly } from './warnings-only.ts';
import { errorMessage } from '../util/error-message.ts';
import { warnConfigProblems } from '../hypernode/config/loader.ts';
import { emptyResultReason, noSourceReason, unusedLabelKeyWarnings } from './empty-result.ts';
import { EXIT_FAILURE, EXIT_SUCCESS, EXIT_USAGE } from '../exit-codes.ts';

export const RENDER_COMMAND = 'render';

const OUTPUT_FORMATS = ['yaml', 'json', 'tree', 'html', ...SLURM_FORMATS] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const outputKind = choiceKind<OutputFormat>(OUTPUT_FORMATS);

const RENDER_FLAGS = {
  config: flag(
    stringKind,
    '',
    `File with the discovery configuration: the ${'`volcano-controller.conf`'} document, or the whole ConfigMap manifest holding it (YAML or JSON). Required.`,
  ),
  nodes: flag(
    stringKind,
    '',
    'File with the Nodes, as `kubectl get nodes -o json` (or -o yaml) writes them, or a YAML stream of Nodes; only names and labels are used, and for -o html the fabric taint the controller set. Required.',
  ),
  existing: flag(
    stringKind,
    '',
    'File with the HyperNodes already in the cluster (`kubectl get hypernodes -o json`): their names are adopted, and names owned by another source are left alone, as the controller does.',
  ),
  'ufm-capture': flag(
    stringArrayKind,
    [],
    `Directory holding the captured UFM answers, for every ufm endpoint, or ENDPOINT=DIR for one endpoint (a fabric of config.fabrics included): ${CAPTURE_FILES.ports} (the body of GET <endpoint>/ufmRest/resources/ports), and for config.mode fabric also ${CAPTURE_FILES.links} and ${CAPTURE_FILES.systems} (of /resources/links and /resources/systems). Repeatable. UFM is not contacted and the credentials Secret is not read.`,
  ),
  'lldp-capture': flag(
    stringArrayKind,
    [],
    "Directory of captured LLDP walks for every fabric of the lldp source, or FABRIC=DIR for one fabric: one file per switch (any name), each the output of `snmpbulkwalk -On <switch> 1.0.8802.1.1.2.1`. The files replace the fabric's switch list. Repeatable. No switch is contacted and the SNMP Secret is not read.",
  ),
  'graph-file': flag(stringKind, '', GRAPH_FILE_HELP),
  'ibnetdiscover-capture': flag(stringArrayKind, [], IBNETDISCOVER_CAPTURE_HELP),
  output: flag(
    outputKind,
    'yaml',
    "Output format: yaml or json (a v1 List of HyperNodes, as the controller would write them), tree (for people), html (one self-contained page: a picture of the tree, a collapsible list and a search box; open it in a browser), or slurm-topology-yaml / slurm-topology-conf (Slurm's topology.yaml / topology.conf).",
    'o',
  ),
  ...SLURM_FLAGS,
};

const DESCRIPTION = `Prints the HyperNodes that the enabled discovery sources would create, computed
offline from files: no cluster, no UFM, no switch, no ibnetdiscover run, no credentials. Every enabled source runs
once with the real discoverer; a configuration that enables no source, a source that fails,
a result with no HyperNode at all, or a snapshot the controller would refuse to write fails
the command (exit 1) with the reason on stderr and nothing on stdout.

`;

export interface RenderEnvironment {
  /** Colour the tree (stdout is a terminal and NO_COLOR is unset). */
  readonly color: boolean;
}

export type RenderResult = SubcommandResult;

/** The help text of `render`, in the root command's style. */
function renderUsage(argv0: string): string {
  return `${DESCRIPTION}${formatUsage(RENDER_FLAGS, `${argv0} ${RENDER_COMMAND}`)}`;
}

/** Runs `render` with the arguments after the subcommand's name. Never throws for user input. */
export async function render(
  argv: readonly string[],
  argv0: string,
  env: RenderEnvironment = { color: false },
): Promise<RenderResult> {
  const usage: SubcommandUsage = {
    command: RENDER_COMMAND,
    text: renderUsage(argv0),
    helpCode: EXIT_SUCCESS,
    errorCode: EXIT_USAGE,
  };
  const parsed = parseSubcommandFlags(RENDER_FLAGS, argv, usage);
  if ('result' in parsed) return parsed.result;
  const { values } = parsed;
  const missing = (['config', 'nodes'] as const).filter((name) => values[name] === '');
  if (missing.length > 0)
    return usageError(usage, `required flag(s) ${missing.map((m) => `"${m}"`).join(', ')} not set`);
  let captures: UfmCaptures;
  let lldpCaptures: ReturnType<typeof parseLldpCaptures>;
  let ibCaptures: ReturnType<typeof parseIbnetdiscoverCaptures>;
  try {
    captures = parseUfmCaptures(values['ufm-capture']);
    lldpCaptures = parseLldpCaptures(values['lldp-capture']);
    ibCaptures = parseIbnetdiscoverCaptures(values['ibnetdiscover-capture']);
  } catch (err) {
    return usageError(usage, errorMessage(err));
  }

  const stderr = new SubcommandStderr();
  const logger = warningsOnly(stderr.logger);
  try {
    const [config, { nodes, fabricTaints }, existing] = await Promise.all([
      readDiscoveryConfig(values.config),
      readNodes(values.nodes),
      values.existing === '' ? [] : readHyperNodes(values.existing),
    ]);
    warnConfigProblems(config, logger);
    const none = noSourceReason(config);
    if (none !== undefined) throw new Error(`${values.config}: ${none}`);
    stderr.warnings(unusedLabelKeyWarnings(config, nodes));
    const registry = newDiscovererRegistry({
      ...Object.fromEntries(builtinDiscoverers),
      ufm: createUfmDiscovererFactory({ readResourceBody: captureReader(captures) }),
      // Without a capture the lldp source fails on the Secret render cannot read, naming --lldp-capture.
      lldp: createLldpDiscovererFactory({ captured: captureWalks(lldpCaptures ?? { byKey: new Map() }) }),
      graph: createGraphDiscovererFactory({ readGraph: graphFileReader(values['graph-file']) }),
      // render never runs ibnetdiscover: without a capture a fabric fails naming --ibnetdiscover-capture.
      ibnetdiscover: createIbnetdiscoverDiscovererFactory({ readOutput: capturedOutputs(ibCaptures) }),
    });
    const secrets = { namespace: '', get: () => Promise.reject(new Error('render does not read Secrets')) };
    // render reads no configured file and asks no configured URL: paths and URLs are checked for their form only.
    const preview = await previewDiscovery(
      { config, nodes, existing },
      { registry, secrets, logger, inputPolicy: PREVIEW_INPUT_POLICY },
    );
    stderr.warnings(preview.warnings);
    if (preview.hyperNodes.length === 0) throw new Error(emptyResultReason(config, nodes));
    const format = values.output;
    const stdout = isSlurmFormat(format)
      ? slurmOutput(format, {
          trees: preview.kept,
          nodes,
          config,
          flags: values,
          warn: (w) => stderr.warnings([w]),
        })
      : formatOutput(preview.hyperNodes, { nodes, fabricTaints }, format, env);
    return { code: EXIT_SUCCESS, stdout, stderr: stderr.text() };
  } catch (err) {
    return stderr.failure(EXIT_FAILURE, err);
  }
}

function formatOutput(
  hyperNodes: DiscoveredHyperNode[],
  { nodes, fabricTaints }: NodeFile,
  format: Exclude<OutputFormat, SlurmFormat>,
  env: RenderEnvironment,
): string {
  if (format === 'tree') return `${renderHyperNodeTree(hyperNodes, env.color ? COLOURED : undefined)}\n`;
  if (format === 'html')
    return topologyHtml(
      topologyView(`render: ${hyperNodes.length} HyperNodes over ${nodes.length} Nodes`, hyperNodes, nodes, {
        fabricTaints,
      }),
    );
  const list = { apiVersion: 'v1', kind: 'List', items: hyperNodes };
  return format === 'json'
    ? `${JSON.stringify(list, null, 2)}\n`
    : toYaml(list, { aliasDuplicateObjects: false, lineWidth: 0 });
}

/**
 * styleText still checks stdout itself on Node ≥ 22.13 (a terminal that is
 * not `TERM=dumb`, NO_COLOR, FORCE_COLOR), as the colour library used here
 * before did.
 */
const COLOURED: TreeStyle = { name: (text) => styleText('bold', text), detail: (text) => styleText('cyan', text) };
