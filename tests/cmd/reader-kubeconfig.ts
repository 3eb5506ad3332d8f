// The users the subcommand tests run as: the `kubectl hypernode` reader,
// who may only get and list Nodes and HyperNodes as the plugin's documented
// Role grants, and the read-only account `plan` runs as.

import type { ApiServer } from '../../testing/apiserver/index.ts';

/** The name of the read-only user. */
export const READER = 'topology-reader';

/** Adds the read-only user to `api` and writes its kubeconfig into `dir`; returns the file's path. */
export function readerKubeconfig(api: ApiServer, dir: string): string {
  const read = (apiGroups: string[], resources: string[]) => ({ apiGroups, resources, verbs: ['get', 'list'] });
  const token = api.addUser(READER, [read([''], ['nodes']), read(['topology.volcano.sh'], ['hypernodes'])]);
  return api.writeKubeconfig(dir, { token, fileName: 'reader.yaml' });
}

/**
 * Adds the user `plan` runs as in the docs (the `hypernode-plan` service
 * account: get, list and watch of Nodes, ConfigMaps and HyperNodes, and of
 * Secrets when `secrets` for `--use-cluster-credentials`) and writes its
 * kubeconfig into `dir` as `fileName`; returns the file's path.
 */
export function plannerKubeconfig(api: ApiServer, dir: string, opts: { secrets: boolean; fileName: string }): string {
  const read = (apiGroups: string[], resources: string[]) => ({
    apiGroups,
    resources,
    verbs: ['get', 'list', 'watch'],
  });
  const token = api.addUser('system:serviceaccount:volcano-system:hypernode-plan', [
    read([''], ['nodes', 'configmaps', ...(opts.secrets ? ['secrets'] : [])]),
    read(['topology.volcano.sh'], ['hypernodes']),
  ]);
  return api.writeKubeconfig(dir, { token, fileName: opts.fileName });
}
