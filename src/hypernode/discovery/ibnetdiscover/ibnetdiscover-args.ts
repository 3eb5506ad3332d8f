// The arguments the discovery ConfigMap may give ibnetdiscover (`config.command`
// after its first word): an allowlist. The program itself, and any wrapper, is
// the operator's (--ibnetdiscover-command); the ConfigMap's writer picks the
// subnet and the pace, never a file to write, a file to read beyond the
// allowed directories, or another output format. Each argument is read as
// getopt_long reads it (clusters `-sf`, values attached `-Cmlx5_0` or apart,
// `--Ca=mlx5_0`); long options must be written whole, as getopt's abbreviations
// (`--cach` for `--cache`) would otherwise slip past an allowlist. The result is
// written again in one canonical form, so what runs is exactly what was checked.

import { quoteInput } from '../../../util/input-fragment.ts';

/** The first word of `config.command`: it names the program, which the operator's flag supplies. */
export const IBNETDISCOVER_WORD = 'ibnetdiscover';

/** An allowed option: its short and long names and the form of its value (none for a switch). */
interface AllowedOption {
  readonly short: string;
  readonly long: string;
  readonly value?: { readonly form: RegExp; readonly want: string };
}

const ALLOWED: readonly AllowedOption[] = [
  { short: 'C', long: '--Ca', value: { form: /^[A-Za-z0-9_.:-]{1,64}$/, want: 'an HCA name such as mlx5_0' } },
  { short: 'P', long: '--Port', value: { form: /^\d{1,3}$/, want: 'a port number such as 1' } },
  { short: 't', long: '--timeout', value: { form: /^\d{1,7}$/, want: 'milliseconds such as 1000' } },
  // How many SMPs are in flight: the pace of a large fabric's scan, no file and no format.
  { short: 'o', long: '--outstanding_smps', value: { form: /^\d{1,4}$/, want: 'a number such as 16' } },
  // Port details and progress lines, which the reader reads past.
  { short: 's', long: '--show' },
  { short: 'f', long: '--full' },
];
/** Read by ibnetdiscover itself: a file, so the file rule (allowed-files.ts) decides, and it reaches the run as an open descriptor. */
export const NODE_NAME_MAP_OPTION = '--node-name-map';

/** Short options that print another format than the default one, by what they print. */
const FORMAT_FLAGS: Readonly<Record<string, string>> = {
  p: 'the ports report',
  g: 'the grouping',
  l: 'a node list',
  H: 'a node list',
  S: 'a node list',
  R: 'a node list',
};
const LONG_FORMAT_FLAGS: Readonly<Record<string, string>> = {
  '--ports': 'p',
  '--grouping': 'g',
  '--list': 'l',
  '--Hca_list': 'H',
  '--Switch_list': 'S',
  '--Router_list': 'R',
};
/** Options that read or write a file of their own choosing, and what they do with it. */
const FILE_OPTIONS: Readonly<Record<string, string>> = {
  '--cache': 'writes its scan to a file',
  '--load-cache': 'reads a saved scan instead of the fabric',
  '--diff': 'reads a saved scan to compare',
  '--config': 'reads a configuration file',
  z: 'reads a configuration file',
};

/** The checked arguments: the canonical words, and the node-name-map path if one is named. */
export interface IbnetdiscoverArgs {
  readonly args: readonly string[];
  readonly nodeNameMap?: string;
}

/** What is passed on, for messages: every allowed option by both names. */
const ALLOWED_TEXT = `${ALLOWED.map((o) => `-${o.short}/${o.long}`).join(', ')} and ${NODE_NAME_MAP_OPTION}`;

/**
 * Checks `words` (the arguments after the program's word) of `where` against the allowlist; throws (through `fail`)
 * naming the first refused argument and why.
 */
export function checkIbnetdiscoverArgs(
  words: readonly string[],
  where: string,
  fail: (message: string) => never,
): IbnetdiscoverArgs {
  const args: string[] = [];
  let nodeNameMap: string | undefined;
  const refuse = (what: string, why: string): never => fail(`${where} passes ${what}, which ${why}`);
  const notAllowed = (what: string): never =>
    refuse(
      what,
      `is not an argument this source passes on (it passes ${ALLOWED_TEXT}); the program and its other options are the operator's (--ibnetdiscover-command)`,
    );
  const formatOf = (flag: string, letter: string): never =>
    fail(
      `${where} asks for ${FORMAT_FLAGS[letter]} (${flag}); this source reads ibnetdiscover's default topology format: drop ${flag}`,
    );
  const checkedValue = (option: AllowedOption, shown: string, value: string | undefined): string => {
    if (value === undefined) return fail(`${where}: ${shown} needs a value (${option.value!.want})`);
    if (!option.value!.form.test(value))
      return fail(`${where}: ${shown} ${quoteInput(value)} is not ${option.value!.want}`);
    return value;
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq < 0 ? word : word.slice(0, eq);
      const attached = eq < 0 ? undefined : word.slice(eq + 1);
      if (name === '--') refuse('"--"', 'ends the options: the words after it would name an output file');
      const letter = LONG_FORMAT_FLAGS[name];
      if (letter) formatOf(name, letter);
      if (FILE_OPTIONS[name]) refuse(name, `${FILE_OPTIONS[name]}`);
      if (name === NODE_NAME_MAP_OPTION) {
        nodeNameMap = attached ?? words[++i];
        if (nodeNameMap === undefined) fail(`${where}: ${NODE_NAME_MAP_OPTION} needs a path`);
        continue;
      }
      const option = ALLOWED.find((o) => o.long === name);
      if (!option) return notAllowed(quoteInput(name));
      if (!option.value) {
        if (attached !== undefined) fail(`${where}: ${name} takes no value`);
        args.push(`-${option.short}`);
        continue;
      }
      args.push(`-${option.short}`, checkedValue(option, name, attached ?? words[++i]));
      continue;
    }
    if (!word.startsWith('-') || word === '-')
      refuse(quoteInput(word), 'is not an option: ibnetdiscover writes its output to a file named that way');
    // A cluster of short options, as getopt reads it: `-sf`, `-Cmlx5_0`.
    for (let j = 1; j < word.length; j++) {
      const letter = word[j]!;
      if (FORMAT_FLAGS[letter]) formatOf(`-${letter}`, letter);
      if (FILE_OPTIONS[letter]) refuse(`-${letter}`, `${FILE_OPTIONS[letter]}`);
      const option = ALLOWED.find((o) => o.short === letter);
      if (!option) return notAllowed(quoteInput(`-${letter}`));
      if (!option.value) {
        args.push(`-${letter}`);
        continue;
      }
      const rest = word.slice(j + 1);
      args.push(`-${letter}`, checkedValue(option, `-${letter}`, rest === '' ? words[++i] : rest));
      break;
    }
  }
  return Object.freeze({ args: Object.freeze(args), ...(nodeNameMap === undefined ? {} : { nodeNameMap }) });
}
