// Reading a HyperNode's members by name, for tests and benchmarks that check
// where a Node or a child HyperNode ended up.

/** The part of a HyperNode (stored, or as discovery built it) read here. */
interface WithMembers {
  spec?: { members?: ReadonlyArray<{ selector?: { exactMatch?: { name: string } } }> };
}

/**
 * The exact-match name of each member, in order; '' for a member selected
 * some other way, so that counts and comparisons still see it.
 */
export function memberNames(hn: WithMembers | undefined): string[] {
  return (hn?.spec?.members ?? []).map((m) => m.selector?.exactMatch?.name ?? '');
}
