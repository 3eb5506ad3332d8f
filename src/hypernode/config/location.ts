// Where the discovery configuration lives: the ConfigMap shared with Volcano's
// aggregate vc-controller-manager. Mirrors the constants and environment
// look-ups of pkg/controllers/hypernode/config/loader.go (docs/configuration.md).

import type { KubeObject } from '../../kube/types.ts';

export const DEFAULT_CONFIGMAP_NAMESPACE = 'volcano-system';
export const DEFAULT_HELM_RELEASE_NAME = 'volcano';
export const CONFIGMAP_NAME_SUFFIX = '-controller-configmap';
export const CONFIG_KEY = 'volcano-controller.conf';

export interface ConfigMapLocation {
  readonly namespace: string;
  readonly name: string;
  /** The data key holding the YAML document. */
  readonly key: string;
}

/** Reads KUBE_POD_NAMESPACE and HELM_RELEASE_NAME; unset or empty means the default. */
export function configMapLocation(env: Readonly<Record<string, string | undefined>> = process.env): ConfigMapLocation {
  const namespace = env.KUBE_POD_NAMESPACE || DEFAULT_CONFIGMAP_NAMESPACE;
  const release = env.HELM_RELEASE_NAME || DEFAULT_HELM_RELEASE_NAME;
  return Object.freeze({ namespace, name: `${release}${CONFIGMAP_NAME_SUFFIX}`, key: CONFIG_KEY });
}

/** The ConfigMap as the regarding object of Events (the recorder looks up the cached one for its uid). */
export function configMapRef({ namespace, name }: ConfigMapLocation): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name } };
}
