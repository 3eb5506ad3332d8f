// What the operator lets cluster data reach (docs/security.md §1 and §4). The
// discovery ConfigMap chooses what to read, within these bounds; it never
// chooses a program or a file outside them. The operator sets them by the
// executable's flags (src/app/options.ts); every source is handed them in its
// DiscovererOptions, and the checks live in discovery/remote/ (allowed-files.ts,
// allowed-addresses.ts). The flag names are here so that every refusal names
// the flag that changes it in one spelling.

/** Runs in place of the word `ibnetdiscover` (a program, or a wrapper and its words before the program). */
export const IBNETDISCOVER_COMMAND_FLAG = 'ibnetdiscover-command';
/** A directory under which a configured `file` may be read; repeatable. */
export const FILE_DIR_FLAG = 'allow-file-dir';
/** A network a configured URL may reach although it is loopback, link-local or a metadata address; repeatable. */
export const URL_CIDR_FLAG = 'allow-url-cidr';

/** The program the ibnetdiscover source runs unless the operator names another. */
export const DEFAULT_IBNETDISCOVER_COMMAND: readonly string[] = Object.freeze(['ibnetdiscover']);
/** Where the shipped InfiniBand sidecar (deploy/infiniband/) writes ibnetdiscover's output. */
export const DEFAULT_FILE_DIRS: readonly string[] = Object.freeze(['/var/run/ibnetdiscover']);

export interface InputPolicy {
  /** The words run for ibnetdiscover; the ConfigMap's allowlisted arguments follow them. */
  readonly ibnetdiscoverCommand: readonly string[];
  /**
   * Absolute directories under which a configured `file` may be read. Undefined where no configured file is ever
   * read (`render`, which reads only the files its flags name): paths are then checked for their form only.
   */
  readonly fileDirs: readonly string[] | undefined;
  /**
   * Networks (CIDR) that a configured URL may reach although loopback, link-local or a cloud metadata address.
   * Undefined where no configured URL is ever asked (`render`): every address then passes.
   */
  readonly urlCidrs: readonly string[] | undefined;
}

/** The executable's defaults: `ibnetdiscover` from PATH, files under /var/run/ibnetdiscover, no local URL. */
export const DEFAULT_INPUT_POLICY: InputPolicy = Object.freeze({
  ibnetdiscoverCommand: DEFAULT_IBNETDISCOVER_COMMAND,
  fileDirs: DEFAULT_FILE_DIRS,
  urlCidrs: Object.freeze([]),
});

/**
 * `render`'s: it reads only the files its own flags name (captures, --graph-file) and asks no URL, so a configuration
 * copied from a cluster is checked for its form (absolute paths without `..`, allowlisted ibnetdiscover arguments),
 * not against the directories and networks of a controller's flags, which it cannot know.
 */
export const PREVIEW_INPUT_POLICY: InputPolicy = Object.freeze({
  ibnetdiscoverCommand: DEFAULT_IBNETDISCOVER_COMMAND,
  fileDirs: undefined,
  urlCidrs: undefined,
});
