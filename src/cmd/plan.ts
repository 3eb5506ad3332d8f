// `vc-hypernode-controller-manager plan`: what the controller would change in
// a cluster, before it does (planChanges). It reads the cluster, runs every
// enabled source once as the controller would (UFM and the switches asked with
// their Secrets, a graph read, ibnetdiscover run, unless captures or a graph
// file stand in) and writes nothing, so get and list rights are enough. Exit
// codes, as `terraform plan -detailed-exitcode`: 0 no changes, 2 changes, 1 an
// error (bad flags included, so that 2 always means "changes"). Deletes the
// mass-delete guard would hold count as changes: the controller still reports
// them, and the cluster still differs from the sources.

import { styleText } from 'node:util';
import { stringArrayKind, stringKind } from '../app/flags/flag-kinds.ts';
import { flag, formatUsage } from '../app/flags/flag-set.ts';
import { FLAGS, validateClientFlags } from '../app/options.ts';
import { buildInfo, COMPONENT } from '../app/server.ts';
import { builtinDiscoverers, newDiscovererRegistry } from '../hypernode/discovery/registry.ts';
import { createLldpDiscovererFactory } from '../hypernode/discovery/lldp/lldp-discoverer.ts';
import { captureWalks, parseLldpCaptures, type LldpCaptures } from './lldp-capture.ts';
import { createGraphDiscovererFactory } from '../hypernode/discovery/graph/graph-discoverer.ts';
import { GRAPH_FILE_HELP, graphFileReader } from './graph-file.ts';
import { createIbnetdiscoverDiscovererFactory } from '../hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import { capturedOutputs, IBNETDISCOVER_CAPTURE_HELP, parseIbnetdiscoverCaptures } from './ibnetdiscover-capture.ts';
import type { CaptureDirs } from './capture-dirs.ts';
import { loadConfig, warnConfigProblems, type DiscoveryConfig } from '../hypernode/config/loader.ts';
import { noSourceReason, unusedLabelKeyWarnings } from './empty-result.ts';
import { configMapLocation, type ConfigMapLocation } from '../hypernode/config/location.ts';
import type { HyperNode, NodeMeta } from '../hypernode/model/hypernode-types.ts';
import { planChanges, type Plan, type PlanAction } from '../hypernode/preview/cluster-plan.ts';
import { topologyHtml } from '../hypernode/preview/view/topology-html.ts';
import { planView } from '../hypernode/preview/view/topology-model.ts';
import { StaticInformer } from '../kube/static-informer.ts';
import type { Logger } from '../log.ts';
import { choiceKind } from './choice-flag.ts';
import { connectCluster, type ClusterReader } from './cluster-reads.ts';
import { formatPlanJson, formatPlanText, planHeadline, type PlanStyle } from './plan-output.ts';
import { readDiscoveryConfig } from './render-inputs.ts';
import { parseSubcommandFlags, usageError, type SubcommandResult, type SubcommandUsage } from './subcommand-flags.ts';
import { SubcommandStderr } from './subcommand-stderr.ts';
import { warningsOnly } from './warnings-only.ts';
import { errorMessage } from '../util/error-message.ts';

export const PLAN_COMMAND = 'plan';

const EXIT_NO_CHANGES = 0;
const EXIT_ERROR = 1;
const EXIT_CHANGES = 2;

const OUTPUT_FORMATS = ['text', 'json', 'html'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const PLAN_FLAGS = {
  // The controller's own client flags, same names, defaults and checks.
  master: FLAGS.master,
  kubeconfig: FLAGS.kubeconfig,
  context: flag(stringKind, '', 'The kubeconfig context to use instead of its current-context (as kubectl --context).'),
  'kube-api-qps': FLAGS['kube-api-qps'],
  'kube-api-burst': FLAGS['kube-api-burst'],
  config: flag(
    stringKind,
    '',
    'File with a discovery configuration to try instead of the one in the cluster: the `volcano-controller.conf` document, or a ConfigMap manifest holding it (YAML or JSON). Default: the discovery ConfigMap, found as the controller finds it (KUBE_POD_NAMESPACE, HELM_RELEASE_NAME).',
  ),
  'lldp-capture': flag(
    stringArrayKind,
    [],
    "Directory of captured LLDP walks for every fabric of the lldp source, or FABRIC=DIR for one fabric: one file per switch (any name), each the output of `snmpbulkwalk -On <switch> 1.0.8802.1.1.2.1`; they replace the fabric's switch list. Repeatable. Without it the switches are walked over SNMP.",
  ),
  'graph-file': flag(stringKind, '', GRAPH_FILE_HELP),
  'ibnetdiscover-capture': flag(
    stringArrayKind,
    [],
    `${IBNETDISCOVER_CAPTURE_HELP} Without it plan runs config.command (or reads config.file) on this host.`,
  ),
  output: flag(
    choiceKind<OutputFormat>(OUTPUT_FORMATS),
    'text',
    "Output format: text (for people), json (the same as data), or html (one self-contained page: the tree with creates, updates, deletes and held deletes in their colours, each change's diff on click).",
    'o',
  ),
};

const DESCRIPTION = `Prints what the controller would change in the cluster: every enabled discovery
source runs once (UFM and LLDP switches are asked, with their Secrets read; ibnetdiscover
runs here), and the controller's own reconciler decides against the HyperNodes there.
Nothing is written: no HyperNode, no Event, no Lease; get and list rights are enough.
Deletes the mass-delete guard would hold are listed as "- name (held)".
Exit codes: 0 no changes, 2 changes (held deletes included: the controller
would report them, and the cluster differs from the sources), 1 an error.

`;

export interface PlanEnvironment {
  /** Colour the markers (stdout is a terminal and NO_COLOR is unset). */
  readonly color: boolean;
  /** Where KUBE_POD_NAMESPACE, HELM_RELEASE_NAME and the in-cluster variables are read. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly serviceAccountDir?: string;
  /** Kubeconfig files merged after --kubeconfig, as kubectl merges $KUBECONFIG (`kubectl hypernode plan`). */
  readonly mergedKubeconfigs?: readonly string[];
}

export type PlanResult = SubcommandResult;

export function planUsage(argv0: string): string {
  return `${DESCRIPTION}${formatUsage(PLAN_FLAGS, `${argv0} ${PLAN_COMMAND}`)}`;
}

/** Runs `plan` with the arguments after the subcommand's name. Never throws. */
export async function plan(
  argv: readonly string[],
  argv0: string,
  environment: PlanEnvironment = { color: false },
): Promise<PlanResult> {
  const usage: SubcommandUsage = {
    command: PLAN_COMMAND,
    text: planUsage(argv0),
    helpCode: EXIT_NO_CHANGES,
    errorCode: EXIT_ERROR,
  };
  const parsed = parseSubcommandFlags(PLAN_FLAGS, argv, usage);
  if ('result' in parsed) return parsed.result;
  const { values } = parsed;
  const flags = {
    master: values.master,
    kubeconfig: values.kubeconfig,
    context: values.context,
    kubeApiQps: values['kube-api-qps'],
    kubeApiBurst: Number(values['kube-api-burst']),
    mergedKubeconfigs: environment.mergedKubeconfigs ?? [],
  };
  const problems = validateClientFlags(flags);
  if (problems.length > 0) return usageError(usage, problems.join('\n'));
  let lldpCaptures: LldpCaptures | undefined;
  let ibCaptures: CaptureDirs | undefined;
  try {
    lldpCaptures = parseLldpCaptures(values['lldp-capture']);
    ibCaptures = parseIbnetdiscoverCaptures(values['ibnetdiscover-capture']);
  } catch (err) {
    return usageError(usage, errorMessage(err));
  }

  const stderr = new SubcommandStderr();
  const logger = stderr.logger;
  const env = environment.env ?? process.env;
  let cluster: ClusterReader | undefined;
  try {
    cluster = connectCluster(flags, { program: COMPONENT, version: buildInfo(), suffix: PLAN_COMMAND }, logger, {
      env,
      ...(environment.serviceAccountDir ? { serviceAccountDir: environment.serviceAccountDir } : {}),
    });
    const reader = cluster;
    const [config, nodes, existing] = await Promise.all([
      values.config === '' ? clusterConfig(reader, configMapLocation(env), logger) : readDiscoveryConfig(values.config),
      reader.nodes(),
      reader.hyperNodes(),
    ]);
    if (values.config !== '') warnConfigProblems(config, warningsOnly(logger));
    // Turning every source off is a change worth planning (what its Node labels lose): a warning
    // while there is something to plan, the error (exit 1) when there is nothing at all.
    const none = noSourceReason(config);
    const noSource =
      none === undefined ? undefined : `${values.config === '' ? 'the discovery ConfigMap' : values.config}: ${none}`;
    if (noSource !== undefined) stderr.warnings([noSource]);
    stderr.warnings(unusedLabelKeyWarnings(config, nodes));
    const registry = newDiscovererRegistry({
      ...Object.fromEntries(builtinDiscoverers),
      ...(values['graph-file'] === ''
        ? {}
        : { graph: createGraphDiscovererFactory({ readGraph: graphFileReader(values['graph-file']) }) }),
      ...(lldpCaptures ? { lldp: createLldpDiscovererFactory({ captured: captureWalks(lldpCaptures) }) } : {}),
      ...(ibCaptures
        ? { ibnetdiscover: createIbnetdiscoverDiscovererFactory({ readOutput: capturedOutputs(ibCaptures) }) }
        : {}),
    });
    const result = await planChanges(
      { config, nodes, existing },
      {
        registry,
        secrets: reader.secrets,
        configMaps: { get: (namespace, name) => reader.configMap({ namespace, name, key: '' }) },
        topologyObjects: reader.topologyObjects,
        logger: warningsOnly(logger),
      },
    );
    stderr.warnings(result.warnings);
    // A Node the label memory keeps in place moves by itself when its grace period ends: a change to come.
    const changes =
      result.changes.length > 0 ||
      result.nodeLabels.length > 0 ||
      result.topologies.length > 0 ||
      result.labelHolds.length > 0;
    if (!changes && noSource !== undefined)
      return {
        code: EXIT_ERROR,
        stdout: '',
        stderr: `${stderr.text()}error: nothing to plan: no source is enabled and nothing in the cluster would change\n`,
      };
    const stdout = formatPlan(result, { existing, nodes }, values.output, environment.color);
    return { code: changes ? EXIT_CHANGES : EXIT_NO_CHANGES, stdout, stderr: stderr.text() };
  } catch (err) {
    return stderr.failure(EXIT_ERROR, err);
  } finally {
    cluster?.close();
  }
}

/** The configuration the controller runs with: the discovery ConfigMap, read as its loader reads it. */
async function clusterConfig(
  cluster: ClusterReader,
  where: ConfigMapLocation,
  logger: Logger,
): Promise<DiscoveryConfig> {
  const cm = await cluster.configMap(where);
  try {
    return loadConfig(new StaticInformer(cm ? [cm] : []), where, warningsOnly(logger));
  } catch (err) {
    const hint = cm
      ? ''
      : ' (set KUBE_POD_NAMESPACE and HELM_RELEASE_NAME as the controller has them, or pass --config FILE)';
    throw new Error(`discovery ConfigMap ${where.namespace}/${where.name}: ${errorMessage(err)}${hint}`, {
      cause: err,
    });
  }
}

function formatPlan(
  result: Plan,
  cluster: { existing: readonly HyperNode[]; nodes: readonly NodeMeta[] },
  format: OutputFormat,
  color: boolean,
): string {
  if (format === 'json') return formatPlanJson(result);
  if (format === 'html')
    return topologyHtml(planView(`plan: ${planHeadline(result)}`, result, cluster.existing, cluster.nodes));
  return formatPlanText(result, color ? COLOURED : undefined);
}

const COLOURS: Readonly<Record<PlanAction, 'green' | 'yellow' | 'red'>> = {
  create: 'green',
  update: 'yellow',
  delete: 'red',
};
const COLOURED: PlanStyle = { marker: (action, text) => styleText(COLOURS[action], text) };
