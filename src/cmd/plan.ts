// `vc-hypernode-controller-manager plan`: what the controller would change in
// a cluster, before it does (planChanges). It reads the cluster, runs every
// enabled source once as the controller would, each fabric source on what the
// operator gave it (plan-sources.ts: captures, the topology the controller
// published, or with --use-cluster-credentials the live fabric, its Secrets
// listed first; never a program), and writes nothing, so get and list rights
// are enough. Exit
// codes, as `terraform plan -detailed-exitcode`: 0 no changes, 2 changes, 1 an
// error (bad flags included, so that 2 always means "changes"). Deletes the
// mass-delete guard would hold count as changes: the controller still reports
// them, and the cluster still differs from the sources.

import { styleText } from 'node:util';
import { boolKind, stringArrayKind, stringKind } from '../app/flags/flag-kinds.ts';
import { flag, formatUsage } from '../app/flags/flag-set.ts';
import { FLAGS, resolveInputPolicy, validateClientFlags } from '../app/options.ts';
import { PREVIEW_INPUT_POLICY, URL_CIDR_FLAG } from '../hypernode/model/input-policy.ts';
import { buildInfo, COMPONENT } from '../version.ts';
import { parseLldpCaptures } from './lldp-capture.ts';
import { GRAPH_FILE_HELP } from './graph-file.ts';
import { IBNETDISCOVER_CAPTURE_HELP, parseIbnetdiscoverCaptures } from './ibnetdiscover-capture.ts';
import { CAPTURE_FILES, parseUfmCaptures } from './ufm-capture.ts';
import {
  liveReads,
  ownNamespaceConfigMaps,
  planRegistry,
  publishedWarnings,
  USE_CLUSTER_CREDENTIALS_FLAG,
  type PlanFabricInputs,
} from './plan-sources.ts';
import { loadConfig, warnConfigProblems, type DiscoveryConfig } from '../hypernode/config/loader.ts';
import { noSourceReason, unusedLabelKeyWarnings } from './empty-result.ts';
import { configMapLocation, type ConfigMapLocation } from '../hypernode/config/location.ts';
import type { HyperNode, NodeMeta } from '../hypernode/model/hypernode-types.ts';
import { planChanges, planDrawing, type Plan, type PlanAction } from '../hypernode/preview/cluster-plan.ts';
import { topologyHtml } from '../hypernode/exports/view/topology-html.ts';
import { planView } from '../hypernode/exports/view/topology-model.ts';
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
import { EXIT_CHANGES, EXIT_FAILURE, EXIT_SUCCESS } from '../exit-codes.ts';

export const PLAN_COMMAND = 'plan';

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
  'ufm-capture': flag(
    stringArrayKind,
    [],
    `Directory holding the captured UFM answers, for every ufm endpoint, or ENDPOINT=DIR for one endpoint: ${CAPTURE_FILES.ports} (the body of GET <endpoint>/ufmRest/resources/ports), and for config.mode fabric also ${CAPTURE_FILES.links} and ${CAPTURE_FILES.systems}. Repeatable. UFM is not contacted and no Secret is read.`,
  ),
  'lldp-capture': flag(
    stringArrayKind,
    [],
    "Directory of captured LLDP walks for every fabric of the lldp source, or FABRIC=DIR for one fabric: one file per switch (any name), each the output of `snmpbulkwalk -On <switch> 1.0.8802.1.1.2.1`; they replace the fabric's switch list. Repeatable. No switch is contacted and no Secret is read.",
  ),
  'graph-file': flag(stringKind, '', GRAPH_FILE_HELP),
  // The controller's bound on the URLs the configuration reaches, for what --use-cluster-credentials asks; plan reads
  // no configured file, so the controller's --allow-file-dir has nothing to bound here.
  [URL_CIDR_FLAG]: FLAGS[URL_CIDR_FLAG],
  'ibnetdiscover-capture': flag(
    stringArrayKind,
    [],
    `${IBNETDISCOVER_CAPTURE_HELP} plan never runs ibnetdiscover: without it the source is planned from its HyperNodes in the cluster.`,
  ),
  [USE_CLUSTER_CREDENTIALS_FLAG]: flag(
    boolKind,
    false,
    "Ask UFM, the LLDP switches and a graph URL or ConfigMap as the controller does, with the Secrets of the controller's namespace (KUBE_POD_NAMESPACE, default volcano-system), each Secret allowing it as the controller needs: plan first prints each Secret it reads and where its credentials go. Without it (and without a capture), a fabric source is planned from the HyperNodes it has in the cluster and no Secret is read.",
  ),
  output: flag(
    choiceKind<OutputFormat>(OUTPUT_FORMATS),
    'text',
    "Output format: text (for people), json (the same as data), or html (one self-contained page: the tree with creates, updates, deletes and held deletes in their colours, each change's diff on click).",
    'o',
  ),
};

const DESCRIPTION = `Prints what the controller would change in the cluster: every enabled discovery
source runs once, and the controller's own reconciler decides against the HyperNodes there.
A fabric source reads its capture flag, or stands as the HyperNodes it has in the cluster;
with --use-cluster-credentials UFM, LLDP switches and a graph URL are asked with the Secrets
of the controller's namespace, listed first. No program runs (not even ibnetdiscover).
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
  /** Where the Secrets plan is about to read are said at once (stderr); without it they lead the result's stderr. */
  readonly announce?: (text: string) => void;
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
    helpCode: EXIT_SUCCESS,
    errorCode: EXIT_FAILURE,
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
  const urlPolicy = resolveInputPolicy({ allowFileDirs: [], allowUrlCidrs: values[URL_CIDR_FLAG] }, problems);
  // Only what plan asks is bounded by address: without --use-cluster-credentials it asks no URL of the configuration,
  // which is then checked for its form alone, as render checks it.
  const inputPolicy = values[USE_CLUSTER_CREDENTIALS_FLAG]
    ? { ...PREVIEW_INPUT_POLICY, urlCidrs: urlPolicy.urlCidrs }
    : PREVIEW_INPUT_POLICY;
  if (problems.length > 0) return usageError(usage, problems.join('\n'));
  let fabricInputs: PlanFabricInputs;
  try {
    fabricInputs = {
      ufmCaptures: values['ufm-capture'].length > 0 ? parseUfmCaptures(values['ufm-capture']) : undefined,
      lldpCaptures: parseLldpCaptures(values['lldp-capture']),
      graphFile: values['graph-file'],
      ibnetdiscoverCaptures: parseIbnetdiscoverCaptures(values['ibnetdiscover-capture']),
      live: values[USE_CLUSTER_CREDENTIALS_FLAG],
    };
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
    // The controller's namespace (the discovery ConfigMap's): the only one plan reads a Secret or graph ConfigMap of.
    const where = configMapLocation(env);
    const [config, nodes, existing] = await Promise.all([
      values.config === '' ? clusterConfig(reader, where, logger) : readDiscoveryConfig(values.config),
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
    stderr.warnings(publishedWarnings(config, existing, fabricInputs, where.namespace));
    // Said before any Secret is read: which, and where their credentials go. Only those are read.
    const live = liveReads(config, fabricInputs, reader.secrets(where.namespace), inputPolicy);
    stderr.notes(live.lines, environment.announce);
    const configMaps = ownNamespaceConfigMaps(
      { get: (namespace, name) => reader.configMap({ namespace, name, key: '' }) },
      where.namespace,
    );
    const result = await planChanges(
      { config, nodes, existing },
      {
        registry: planRegistry(fabricInputs),
        secrets: live.secrets,
        configMaps,
        topologyObjects: reader.topologyObjects,
        logger: warningsOnly(logger),
        inputPolicy,
      },
    );
    stderr.warnings(result.warnings);
    // A Node the label memory keeps in place moves by itself when its grace period ends: a change to come.
    const changes =
      result.changes.length > 0 ||
      result.nodeLabels.length > 0 ||
      result.topologies.length > 0 ||
      result.labelHolds.length > 0 ||
      result.taints.length > 0;
    if (!changes && noSource !== undefined)
      return {
        code: EXIT_FAILURE,
        stdout: '',
        stderr: `${stderr.text()}error: nothing to plan: no source is enabled and nothing in the cluster would change\n`,
      };
    const stdout = formatPlan(result, { existing, nodes }, values.output, environment.color);
    return { code: changes ? EXIT_CHANGES : EXIT_SUCCESS, stdout, stderr: stderr.text() };
  } catch (err) {
    return stderr.failure(EXIT_FAILURE, err);
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
    return await loadConfig(new StaticInformer(cm ? [cm] : []), where, warningsOnly(logger));
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
    return topologyHtml(
      planView(`plan: ${planHeadline(result)}`, planDrawing(result), cluster.existing, cluster.nodes),
    );
  return formatPlanText(result, color ? COLOURED : undefined);
}

const COLOURS: Readonly<Record<PlanAction, 'green' | 'yellow' | 'red'>> = {
  create: 'green',
  update: 'yellow',
  delete: 'red',
};
const COLOURED: PlanStyle = { marker: (action, text) => styleText(COLOURS[action], text) };
