// A JSON merge patch (RFC 7386) that changes only some labels and
// annotations of an object: a value sets the key, null removes it, and every
// key not named is left as the server holds it. Unlike a PUT it needs no
// resourceVersion and cannot undo a concurrent writer's other keys.

export interface MetadataKeyChanges {
  readonly labels?: Readonly<Record<string, string | null>>;
  readonly annotations?: Readonly<Record<string, string | null>>;
}

export function metadataMergePatch(changes: MetadataKeyChanges): {
  metadata: Record<string, Readonly<Record<string, string | null>>>;
} {
  const metadata: Record<string, Readonly<Record<string, string | null>>> = {};
  if (changes.labels && Object.keys(changes.labels).length > 0) metadata.labels = changes.labels;
  if (changes.annotations && Object.keys(changes.annotations).length > 0) metadata.annotations = changes.annotations;
  return { metadata };
}
