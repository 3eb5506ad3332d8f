// Reads of label maps (Node labels, HyperNode labels, matchLabels). Label
// maps are plain objects parsed from JSON, so `key in labels` and
// `labels[key]` also see Object.prototype: a selector on the valid label key
// `constructor` or `toString` would find it on every object. Only own
// properties are labels.

type Labels = Readonly<Record<string, string>> | null | undefined;

/** True when `labels` has its own `key`. */
export function hasLabel(labels: Labels, key: string): boolean {
  return labels != null && Object.hasOwn(labels, key);
}

/** The value of the own label `key`, or undefined. */
export function labelValue(labels: Labels, key: string): string | undefined {
  return hasLabel(labels, key) ? labels![key] : undefined;
}
