// A string flag limited to a fixed list of values (`-o yaml|json|tree`), for
// the subcommands; a value outside the list is a usage error naming the list.

import type { FlagKind } from '../app/flags/flag-kinds.ts';

export function choiceKind<T extends string>(choices: readonly T[]): FlagKind<T> {
  return {
    typeName: 'string',
    isBool: false,
    parse(text) {
      if (!(choices as readonly string[]).includes(text)) throw new Error(`must be one of ${choices.join(', ')}`);
      return text as T;
    },
    format: (value) => value,
  };
}
