// client-go's rest.DefaultKubernetesUserAgent plus the per-client-set suffix
// (02-runtime §2.3): `<program>/<version> (<os>/<arch>) kubernetes/<commit7>/<suffix>`.

/** Go's GOOS/GOARCH names for the running platform. */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): string {
  const goArch: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };
  const goOs: Record<string, string> = { win32: 'windows' };
  return `${goOs[platform] ?? platform}/${goArch[arch] ?? arch}`;
}

export function userAgent(program: string, version: string, commit: string, suffix: string): string {
  const commit7 = commit.length >= 7 ? commit.slice(0, 7) : commit;
  return `${program}/${version} (${goPlatform()}) kubernetes/${commit7}/${suffix}`;
}
