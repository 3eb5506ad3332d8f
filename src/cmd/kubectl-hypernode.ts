// `kubectl hypernode`: the executable run under the name kubectl-hypernode
// (the symlink install.sh and the krew package make; src/main.ts checks the
// name) is a kubectl plugin. `tree` draws the live HyperNodes, `why NODE`
// explains where a Node sits, `plan` is the plan subcommand with the user's
// kubeconfig. All of them only read (get and list): safe to hand to anyone who
// may look at HyperNodes. Exit codes as kubectl's: 0 done, 1 an error; `plan`
// keeps its own (2 = changes).

import { plan } from './plan.ts';
import { kubeconfigFlags, resolveKubeconfig, takeConnectionFlags, type PluginConnection } from './plugin-kubeconfig.ts';
import { pluginTree } from './plugin-tree.ts';
import { pluginWhy } from './plugin-why.ts';
import type { SubcommandResult } from './subcommand-flags.ts';
import { didYouMean } from '../util/closest-word.ts';
import { versionText } from '../version.ts';
import { EXIT_FAILURE, EXIT_SUCCESS } from '../exit-codes.ts';

const COMMAND = 'kubectl hypernode';
const PLUGIN_COMMANDS = ['tree', 'why', 'plan', 'version', 'help'];

export interface PluginEnvironment {
  /** Colour the output (stdout is a terminal and NO_COLOR is unset). */
  readonly color: boolean;
  /** KUBECONFIG, HOME and, for plan, KUBE_POD_NAMESPACE / HELM_RELEASE_NAME are read here. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly serviceAccountDir?: string;
  /** Where `plan` says at once which Secrets it is about to read. */
  readonly announce?: (text: string) => void;
}

const USAGE = `Shows the cluster's HyperNodes (topology.volcano.sh) as a tree or a picture, and
why a Node sits where it does. Reads only: get/list on hypernodes and nodes.

Usage:
  ${COMMAND} tree [--source SOURCE] [--node NODE] [-o text|html|slurm-topology-yaml|slurm-topology-conf]
  ${COMMAND} why NODE
  ${COMMAND} plan [-o text|json|html] [--config FILE] [--use-cluster-credentials] [--ufm-capture DIR] ...
  ${COMMAND} version

Commands:
  tree   the HyperNodes, highest tier first; --node keeps only the ones holding NODE,
         --source only those of one discovery source; -o html writes one self-contained
         page (a picture, a collapsible list, a search box) to open in a browser;
         -o slurm-topology-yaml|slurm-topology-conf writes Slurm's topology file
  why    every HyperNode holding NODE, directly or through a child, with the reason:
         the member selector, the label values, the label profile or the UFM fabric
  plan   what the HyperNode controller would create, update and delete (exit 2 on changes);
         fabric sources stand as their HyperNodes unless given captures, or
         --use-cluster-credentials (their Secrets listed first); no program runs
  version  the version of this executable (the controller's)

Flags for every command:
      --kubeconfig string   the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)
      --context string      the kubeconfig context (default: its current-context)
`;

/** Runs the plugin with the arguments kubectl passes (those after `kubectl hypernode`). Never throws. */
export async function kubectlHypernode(
  argv: readonly string[],
  environment: PluginEnvironment,
): Promise<SubcommandResult> {
  const taken = takeConnectionFlags(argv);
  if ('error' in taken) return { code: EXIT_FAILURE, stdout: '', stderr: `${USAGE}error: ${taken.error}\n` };
  const [command, ...args] = taken.rest;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    return { code: command === undefined ? EXIT_FAILURE : EXIT_SUCCESS, stdout: '', stderr: USAGE };
  }
  if (command === 'version') return { code: EXIT_SUCCESS, stdout: versionText(), stderr: '' };
  const env = environment.env ?? process.env;
  const connection: PluginConnection = {
    kubeconfig: resolveKubeconfig(taken.kubeconfig, env),
    context: taken.context,
    env,
    color: environment.color,
    ...(environment.serviceAccountDir ? { serviceAccountDir: environment.serviceAccountDir } : {}),
  };
  switch (command) {
    case 'tree':
      return pluginTree(args, `${COMMAND} tree`, connection);
    case 'why':
      return pluginWhy(args, `${COMMAND} why`, connection);
    case 'plan': {
      const { kubeconfig, mergedKubeconfigs } = kubeconfigFlags(connection.kubeconfig);
      const target = [
        ...(kubeconfig ? [`--kubeconfig=${kubeconfig}`] : []),
        ...(connection.context ? [`--context=${connection.context}`] : []),
      ];
      return plan([...target, ...args], COMMAND, {
        color: connection.color,
        env,
        mergedKubeconfigs,
        ...(connection.serviceAccountDir ? { serviceAccountDir: connection.serviceAccountDir } : {}),
        ...(environment.announce ? { announce: environment.announce } : {}),
      });
    }
    default:
      return {
        code: EXIT_FAILURE,
        stdout: '',
        stderr: `${USAGE}error: unknown command ${JSON.stringify(command)} for "${COMMAND}"${didYouMean(command, PLUGIN_COMMANDS)}\n`,
      };
  }
}
