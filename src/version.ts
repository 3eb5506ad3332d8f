// Build information and the `--version` text. Mirrors Volcano's
// pkg/version/version.go: Version, GitSHA and Built are injected at build time
// (scripts/build.mjs passes them to esbuild's `define`); from the sources each
// reads `Not provided.`, as an uninjected Go binary does.

declare const VC_BUILD_VERSION: string | undefined;
declare const VC_BUILD_GIT_SHA: string | undefined;
declare const VC_BUILD_DATE: string | undefined;

const NOT_PROVIDED = 'Not provided.';

/** The program's name: the User-Agent's product and the Event source's component. */
export const COMPONENT = 'vc-hypernode-controller-manager';

/** The HyperNode API version this binary serves. */
export const API_VERSION = 'v1alpha1';

// `typeof` keeps these readable when nothing was injected (running from the sources).
export const VERSION: string = typeof VC_BUILD_VERSION === 'string' ? VC_BUILD_VERSION : NOT_PROVIDED;
export const GIT_SHA: string = typeof VC_BUILD_GIT_SHA === 'string' ? VC_BUILD_GIT_SHA : NOT_PROVIDED;
export const BUILT: string = typeof VC_BUILD_DATE === 'string' ? VC_BUILD_DATE : NOT_PROVIDED;

/** Without build stamping, the User-Agent reads like an un-stamped client-go. */
export function buildInfo(): { gitVersion: string; gitCommit: string } {
  const stamped = (v: string) => v !== NOT_PROVIDED && v !== '';
  return { gitVersion: stamped(VERSION) ? VERSION : 'v0.0.0', gitCommit: stamped(GIT_SHA) ? GIT_SHA : '$Format' };
}

interface DenoGlobal {
  readonly version: { readonly deno: string };
}

/** The JavaScript runtime and its version, e.g. `node v26.12.1` or `deno 2.9.6` (the `Go Version:` line). */
export function runtimeVersion(): string {
  const deno = (globalThis as { Deno?: DenoGlobal }).Deno;
  // Deno also defines `process` (with a Node-compatible version), so check for Deno first.
  return deno ? `deno ${deno.version.deno}` : `node ${process.version}`;
}

const GO_OS: Readonly<Record<string, string>> = { win32: 'windows', sunos: 'solaris' };
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', ppc64: 'ppc64le', mipsel: 'mipsle' };

/** `GOOS/GOARCH` names for where we run, e.g. `linux/amd64` (the `Go OS/Arch:` line). */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): string {
  return `${GO_OS[platform] ?? platform}/${GO_ARCH[arch] ?? arch}`;
}

/** The six lines `--version` prints, each ending in a newline. */
export function versionText(): string {
  return [
    `API Version: ${API_VERSION}`,
    `Version: ${VERSION}`,
    `Git SHA: ${GIT_SHA}`,
    `Built At: ${BUILT}`,
    `Go Version: ${runtimeVersion()}`,
    `Go OS/Arch: ${goPlatform()}`,
  ]
    .map((line) => `${line}\n`)
    .join('');
}
