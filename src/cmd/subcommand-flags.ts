// The flag handling `render` and `plan` share: `-h` prints the usage on
// stderr (as the root command's help does), and a bad flag or any positional
// argument prints the usage and the reason with the subcommand's usage exit
// code. The subcommands return their outcome rather than exit (main.ts does
// that), so these helpers return results too.

import { parseFlags, type FlagTable, type FlagValues } from '../app/flags/flag-set.ts';

/** What a subcommand run ends with: main.ts writes the two texts and exits with the code. */
export interface SubcommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface SubcommandUsage {
  /** The subcommand's name, as in "render takes only flags". */
  readonly command: string;
  /** The help text: the description and the flags. */
  readonly text: string;
  /** The exit code after `-h`. */
  readonly helpCode: number;
  /** The exit code of a usage error. */
  readonly errorCode: number;
}

/** The usage and `message` on stderr, nothing on stdout, the usage exit code. */
export function usageError(usage: SubcommandUsage, message: string): SubcommandResult {
  return { code: usage.errorCode, stdout: '', stderr: `${usage.text}${message}\n` };
}

/** The flag values, or the result to return at once (the help, or a usage error). */
export function parseSubcommandFlags<T extends FlagTable>(
  table: T,
  argv: readonly string[],
  usage: SubcommandUsage,
): { readonly values: FlagValues<T> } | { readonly result: SubcommandResult } {
  const parsed = parseFlags(table, argv);
  if (parsed.kind === 'help') return { result: { code: usage.helpCode, stdout: '', stderr: usage.text } };
  if (parsed.kind === 'error') return { result: usageError(usage, parsed.message) };
  const [extra] = parsed.positionals;
  if (extra !== undefined)
    return {
      result: usageError(usage, `unexpected argument ${JSON.stringify(extra)}: ${usage.command} takes only flags`),
    };
  return { values: parsed.values };
}
