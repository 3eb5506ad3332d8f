// client-go's rest.DefaultKubernetesUserAgent plus the per-client-set suffix
// (the shape Go's binary sends): `<program>/<version> (<os>/<arch>) kubernetes/<commit7>/<suffix>`.

export interface UserAgentParts {
  program: string;
  version: string;
  /** Go's `GOOS/GOARCH` spelling, e.g. `linux/amd64`. */
  platform: string;
  commit: string;
}

export function userAgent(parts: UserAgentParts, suffix: string): string {
  const commit7 = parts.commit.length >= 7 ? parts.commit.slice(0, 7) : parts.commit;
  return `${parts.program}/${parts.version} (${parts.platform}) kubernetes/${commit7}/${suffix}`;
}
