// Slurm hostlist compression: a list of names written as Slurm's hostlist
// expressions (`node[01-04,07],login1`), the form topology.conf and
// topology.yaml take for `Nodes=` and `Switches=`. Ours, no Go counterpart.
//
// Only the last run of digits of a name is ranged, and only names whose
// digit runs have the same length share a range: Slurm reads `n[01-10]` as
// zero-padded to two digits, so `n9` and `n10` stay apart rather than risk a
// width Slurm would pad differently. Correct before compact.

import { compareBytes } from '../../../util/compare-bytes.ts';

/** A name as prefix + trailing digits (digits empty when the name has none). */
interface Split {
  readonly prefix: string;
  readonly digits: string;
}

const TRAILING_DIGITS = /^(.*?)(\d+)$/s;

function split(name: string): Split {
  const m = TRAILING_DIGITS.exec(name);
  return m ? { prefix: m[1]!, digits: m[2]! } : { prefix: name, digits: '' };
}

/** `a[1-3,5]` style ranges of equal-width numbers (sorted, distinct). */
function ranges(digits: readonly string[]): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= digits.length; i++) {
    const contiguous = i < digits.length && BigInt(digits[i]!) === BigInt(digits[i - 1]!) + 1n;
    if (contiguous) continue;
    parts.push(i - 1 === start ? digits[start]! : `${digits[start]}-${digits[i - 1]}`);
    start = i;
  }
  return parts.join(',');
}

/**
 * The names as one hostlist expression: groups of a shared prefix and digit
 * width in brackets, other names as they are, in byte order of the group's
 * first name. Duplicates are written once. The names must not hold `[`, `]`,
 * `,` or blanks (see slurmName).
 */
export function compressHostlist(names: Iterable<string>): string {
  const groups = new Map<string, { prefix: string; digits: string[] }>();
  const plain: string[] = [];
  for (const name of new Set(names)) {
    const { prefix, digits } = split(name);
    if (digits === '') {
      plain.push(name);
      continue;
    }
    const key = `${digits.length}:${prefix}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { prefix, digits: [] }));
    group.digits.push(digits);
  }
  const written: string[] = [...plain];
  for (const { prefix, digits } of groups.values()) {
    // Equal width, so byte order is numeric order.
    digits.sort(compareBytes);
    written.push(digits.length === 1 ? `${prefix}${digits[0]}` : `${prefix}[${ranges(digits)}]`);
  }
  return written.sort(compareBytes).join(',');
}
