// Entry point of vc-hypernode-controller-manager: it exits with the
// controller's outcome, with the code a subcommand returns, or with a panic's,
// each named in exit-codes.ts (docs/design.md §3.4). Mirrors Volcano's
// cmd/hypernode-controller-manager/main.go. The server and the subcommands
// (src/commands.ts) are loaded lazily, so --version, --help and bad flags
// never evaluate the Kubernetes client code and stay as fast as a bare
// runtime.

import { basename } from 'node:path';
import { quote } from './app/flags/go-strconv.ts';
import { ineffectiveFlags, parse, usage, validate, type ResolvedOptions } from './app/options.ts';
import { createLogger, type Logger } from './log.ts';
import { versionText } from './version.ts';
import { EXIT_FAILURE, EXIT_PANIC, EXIT_SUCCESS, EXIT_USAGE } from './exit-codes.ts';
import { errorMessage } from './util/error-message.ts';
import { didYouMean } from './util/closest-word.ts';
import { redactUrl } from './util/redact-url.ts';
import type { SubcommandResult } from './cmd/subcommand-flags.ts';

/** `announce`: where a subcommand says at once what it is about to do (plan's Secrets), before its result. */
type Subcommand = (
  argv: readonly string[],
  argv0: string,
  env: { color: boolean; announce: (text: string) => void },
) => Promise<SubcommandResult>;

const SUBCOMMANDS: Readonly<Record<string, () => Promise<Subcommand>>> = {
  render: async () => (await import('./commands.ts')).render,
  plan: async () => (await import('./commands.ts')).plan,
};

/** Words answered without a subcommand module: `help [COMMAND]` and `version`, as people type them. */
const HELP_COMMAND = 'help';
const VERSION_COMMAND = 'version';
const COMMAND_WORDS = [...Object.keys(SUBCOMMANDS), HELP_COMMAND, VERSION_COMMAND];

/** What `--help` adds after Go's flag listing: the subcommands and the kubectl plugin. */
function subcommandsHelp(argv0: string): string {
  const name = basename(argv0);
  return `
Subcommands:
  render          print the HyperNodes a discovery configuration would create, offline from
                  files (no cluster): ${name} render --config conf.yaml --nodes nodes.json -o tree
  plan            print what the controller would change in a cluster; writes nothing
  help [COMMAND]  this help, or a subcommand's (also: ${name} COMMAND --help)
  version         the version, as --version

kubectl plugin: the same executable, run under the name ${PLUGIN_NAME} (install.sh links it),
is \`kubectl hypernode tree|why|plan\`; to link it by hand:
  ln -s "$(command -v ${name})" /usr/local/bin/${PLUGIN_NAME}
`;
}

/**
 * A positional argument that looks like a mistyped command rather than the
 * chart's `2>&1`: a bare word, but not a boolean (pflag leaves the `false` of
 * `--leader-elect false` as a positional, and Go then ignores it).
 */
function isStrayWord(arg: string): boolean {
  return /^[A-Za-z][A-Za-z0-9-]*$/.test(arg) && !/^(t|f|true|false)$/i.test(arg);
}

/**
 * The name under which the executable is a kubectl plugin (`kubectl hypernode`):
 * install.sh and the krew package link it so. The bundle counts too when its
 * file is so named (`kubectl-hypernode.cjs`), for `node` and `deno run`.
 */
const PLUGIN_NAME = 'kubectl-hypernode';

/** process.argv0 is the name the process was started by (a symlink's, under the SEA); argv[1] the script's. */
function invokedAsPlugin(): boolean {
  return [process.argv0, process.argv[1]].some(
    (path) => path !== undefined && basename(path).replace(/\.c?js$/, '') === PLUGIN_NAME,
  );
}

async function main(argv: readonly string[], argv0: string): Promise<number> {
  if (invokedAsPlugin()) {
    const { kubectlHypernode } = await import('./commands.ts');
    return printed(await kubectlHypernode(argv, { color: useColor(), announce }));
  }
  // Subcommands, recognised as the first argument alone; loaded lazily like the server.
  const subcommand = argv[0] !== undefined && Object.hasOwn(SUBCOMMANDS, argv[0]) ? SUBCOMMANDS[argv[0]] : undefined;
  if (subcommand) {
    const run = await subcommand();
    return printed(await run(argv.slice(1), argv0, { color: useColor(), announce }));
  }
  if ((argv[0] === VERSION_COMMAND && argv.length > 1) || (argv[0] === HELP_COMMAND && argv.length > 2)) {
    await write(
      process.stderr,
      `${argv[0]} takes ${argv[0] === HELP_COMMAND ? 'at most a command name' : 'no arguments'}: ${argv.slice(1).join(' ')}\n`,
    );
    return EXIT_USAGE;
  }
  if (argv[0] === VERSION_COMMAND) {
    await write(process.stdout, versionText());
    return EXIT_SUCCESS;
  }
  if (argv[0] === HELP_COMMAND) {
    const about = argv[1];
    if (about !== undefined && Object.hasOwn(SUBCOMMANDS, about)) return main([about, '--help'], argv0);
    if (about !== undefined && about !== HELP_COMMAND && about !== VERSION_COMMAND) return unknownCommand(about, argv0);
    await write(process.stderr, usage(argv0) + subcommandsHelp(argv0));
    return EXIT_SUCCESS;
  }
  const commandLine = parse(argv);
  if (commandLine.kind === 'help') {
    await write(process.stderr, usage(argv0) + subcommandsHelp(argv0));
    return EXIT_SUCCESS;
  }
  if (commandLine.kind === 'error') {
    await write(process.stderr, `${usage(argv0)}${commandLine.message}\n`);
    return EXIT_USAGE;
  }
  const { options, flags, positionals } = commandLine;
  const stray = positionals.find(isStrayWord);
  if (stray !== undefined) return unknownCommand(stray, argv0);
  const logger = createLogger({ verbosity: options.log.verbosity, skipHeaders: options.log.skipHeaders });
  // Guarded, not only filtered by level: quoting compiles a Unicode regex that --version does not need.
  if (logger.enabled(2))
    for (const { name, value } of flags)
      logger.v(2).info(`FLAG: --${name}=${quote(name === 'master' ? redactUrl(value) : value)}`);
  // Go ignores them silently; one line helps whoever wonders why `2>&1` (Helm's chart) did nothing.
  if (positionals.length > 0) logger.warn('Ignoring positional command-line arguments', { args: positionals });
  const ignored = ineffectiveFlags(flags);
  if (ignored.length > 0)
    logger.warn('Accepted klog flags that have no effect: logs always go to standard error, unbuffered', {
      flags: ignored,
    });

  if (options.version) {
    await write(process.stdout, versionText());
    return EXIT_SUCCESS;
  }
  const validation = await validate(options);
  if (!validation.ok) {
    await write(process.stderr, `${validation.problems.join('\n')}\n`);
    return EXIT_FAILURE;
  }
  return run(validation.config, logger);
}

/**
 * V8 heuristics for a long-running controller with a small, long-lived cache:
 * collect earlier and keep the heap tight (at 10,000 Nodes the steady RSS drops
 * by ~30 MB; scripts/bench-controller.ts). Set here rather than baked into the
 * executable's flags because as start-up flags they cost ~15 ms on every
 * `--version` and `--help`; these are read by the garbage collector at run time.
 */
const LONG_RUNNING_V8_FLAGS = '--optimize-for-size';

async function run(config: ResolvedOptions, logger: Logger): Promise<number> {
  // node:v8 is loaded here, not on top: loading it brings in the streams and costs --version ~6 %.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString(LONG_RUNNING_V8_FLAGS);
  const { runServer } = await import('./commands.ts');
  try {
    await runServer(config, logger);
    return EXIT_SUCCESS;
  } catch (err) {
    await write(process.stderr, `${errorMessage(err)}\n`);
    return EXIT_FAILURE;
  }
}

/** A word that is no subcommand: named with the nearest one, as cobra does; the usage exit code. */
async function unknownCommand(word: string, argv0: string): Promise<number> {
  const commands = COMMAND_WORDS.join(', ');
  if (COMMAND_WORDS.includes(word)) {
    await write(
      process.stderr,
      `the command ${JSON.stringify(word)} must come first, before any flag: ${basename(argv0)} ${word} [flags]\n`,
    );
    return EXIT_USAGE;
  }
  await write(
    process.stderr,
    `unknown command ${JSON.stringify(word)} for ${basename(argv0)}${didYouMean(word, COMMAND_WORDS)}; the commands are ${commands}, and a bare command line (flags only) runs the controller. Run '${basename(argv0)} --help' for usage.\n`,
  );
  return EXIT_USAGE;
}

/** Colour on a terminal, unless NO_COLOR is set. */
function useColor(): boolean {
  return process.stdout.isTTY === true && !('NO_COLOR' in process.env);
}

/** Writes to stderr at once (the result's text follows when the command is done). */
function announce(text: string): void {
  process.stderr.write(text);
}

/** Writes a command's output and resolves to its exit code. */
async function printed(result: SubcommandResult): Promise<number> {
  await Promise.all([write(process.stdout, result.stdout), write(process.stderr, result.stderr)]);
  return result.code;
}

/** Resolves once `text` is handed to the OS, so exiting right after loses nothing. */
function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

/** A bug, not a user error: report it like a Go panic (stack on stderr, exit 2). */
function panic(err: unknown): void {
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`panic: ${detail}\n`, () => process.exit(EXIT_PANIC));
}

process.on('uncaughtException', panic);
process.on('unhandledRejection', panic);
// In a single executable argv[1] is the executable itself; from a bundle it is the script.
main(process.argv.slice(2), process.argv[1] ?? process.argv0).then((code) => process.exit(code), panic);
