// Reads the objects out of one List answer, the way apimachinery's decoder
// accepts them (client-go's meta.ExtractList): the one place a List is
// checked, shared by the reflector and the one-shot cluster reads.
//
// A real kube-apiserver answers an empty PartialObjectMetadataList (a
// metadata-only list, of a built-in or a custom resource, also when a label selector
// matches nothing) with `"items": null`; Go decodes that as an empty slice,
// so it is read here as no objects. What is refused is an answer that is not
// a List at all (a Status, an object, an array) or whose items are not
// objects with a name: taking that as "no objects" would empty a cache, and
// a controller acting on an empty cache deletes what it manages, so the caller
// fails the list and retries it instead.

import type { ObjectList } from './resource.ts';
import type { KubeObject } from './types.ts';
import { isMapping } from '../util/is-mapping.ts';

/** A List answer that cannot be read; the message names the resource and what was wrong. */
class MalformedListError extends Error {
  override readonly name = 'MalformedListError';
  constructor(resource: string, problem: string) {
    super(`the ${resource} list answer is malformed: ${problem}; no objects were taken from it`);
  }
}

/** The objects of `page`, a List answer for `resource` (e.g. `nodes`); `items: null` is an empty list. */
export function listItems<T extends KubeObject>(page: ObjectList<T>, resource: string): T[] {
  const raw: unknown = page;
  if (!isMapping(raw)) {
    throw new MalformedListError(
      resource,
      `the body is ${Array.isArray(raw) ? 'an array' : String(raw)}, not a List object`,
    );
  }
  const { kind, items } = raw;
  if (typeof kind === 'string' && !kind.endsWith('List'))
    throw new MalformedListError(resource, `its kind is "${kind}", not a List`);
  if (items === null) return [];
  if (items === undefined) throw new MalformedListError(resource, 'it has no items field');
  if (!Array.isArray(items)) throw new MalformedListError(resource, `items is ${typeof items}, not an array`);
  for (let i = 0; i < items.length; i++) {
    const name = (items[i] as { metadata?: { name?: unknown } } | null)?.metadata?.name;
    if (typeof name !== 'string' || name === '')
      throw new MalformedListError(resource, `item ${i} has no metadata.name`);
  }
  return items as T[];
}
