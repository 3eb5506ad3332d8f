// The user the `kubectl hypernode` tests run as: one who may only get and
// list Nodes and HyperNodes, as the plugin's documented Role grants.

import type { ApiServer } from '../../testing/apiserver/index.ts';

/** The name of the read-only user. */
export const READER = 'topology-reader';

/** Adds the read-only user to `api` and writes its kubeconfig into `dir`; returns the file's path. */
export function readerKubeconfig(api: ApiServer, dir: string): string {
  const read = (apiGroups: string[], resources: string[]) => ({ apiGroups, resources, verbs: ['get', 'list'] });
  const token = api.addUser(READER, [read([''], ['nodes']), read(['topology.volcano.sh'], ['hypernodes'])]);
  return api.writeKubeconfig(dir, { token, fileName: 'reader.yaml' });
}
