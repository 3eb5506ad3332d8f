// Freezing a whole object graph, for values that many readers share (cached
// API objects, resolved options, validated configuration) so none of them can
// change what the others see.

/**
 * Freezes `value` and everything reachable from it; returns it. An already
 * frozen object is taken as frozen all the way down, which keeps re-freezing
 * cached objects cheap and makes cycles harmless.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}
