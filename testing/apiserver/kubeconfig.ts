// Kubeconfig files (clientcmd v1 Config) pointing at the stand-in, for
// components under test that load their client configuration from a file.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** Bearer token for the user (default: the admin token, unless clientCert is set). */
  token?: string;
  /** Authenticate with testing/tls/client.crt (CN=cert-user), or the given files. */
  clientCert?: boolean | { certFile: string; keyFile: string };
  /** Server URL written into the cluster entry (default: the stand-in's url). */
  master?: string;
  /** File name inside `dir` (default kubeconfig-<n>.yaml). */
  fileName?: string;
}

export interface KubeconfigTarget {
  url: string;
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  adminToken: string;
}

/** Writes a v1 Config with one cluster, one user and current-context set; returns its path. */
export function writeKubeconfigFile(
  dir: string,
  fileName: string,
  target: KubeconfigTarget,
  o: KubeconfigOptions,
): string {
  mkdirSync(dir, { recursive: true });
  const user: Record<string, string> = {};
  if (o.clientCert) {
    const files =
      o.clientCert === true ? { certFile: target.clientCertFile, keyFile: target.clientKeyFile } : o.clientCert;
    user['client-certificate'] = files.certFile;
    user['client-key'] = files.keyFile;
  }
  if (o.token || !o.clientCert) user.token = o.token ?? target.adminToken;
  const server = o.master ?? target.url;
  const cluster: Record<string, string> = { server };
  if (server.startsWith('https:')) cluster['certificate-authority'] = target.caFile;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'stand-in', cluster }],
    users: [{ name: 'stand-in-user', user }],
    contexts: [{ name: 'stand-in', context: { cluster: 'stand-in', user: 'stand-in-user' } }],
    'current-context': 'stand-in',
    preferences: {},
  };
  const path = join(dir, o.fileName ?? fileName);
  writeFileSync(path, stringify(config));
  return path;
}
