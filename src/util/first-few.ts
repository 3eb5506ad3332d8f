// Naming a few of many in one message line: an Event, a condition or a log
// line about a 10,000-object snapshot must not list 10,000 names.

/** `a, b, c and 4 more`: the first `max` items joined by `separator`, then how many were left out. */
export function firstFew(items: readonly string[], max: number, separator = ', '): string {
  const shown = items.slice(0, max).join(separator);
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
