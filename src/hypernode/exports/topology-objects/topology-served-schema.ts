// What a served Topology schema (the OpenAPI v3 schema the API server
// publishes for one version of the CRD) says about the levels this
// controller writes: whether it has them at all (spec.levels[].nodeLabel),
// how many it takes (maxItems), and whether a level may carry an alias. The
// version alone does not tell: Kueue 0.13 raised v1alpha1 from 8 levels to
// 16, KAI 0.17 added `alias` at the same v1alpha1, and Kueue 0.11.0 to
// 0.11.2 served a `v1beta1` Topology of another shape. Pure; ours, no Go
// counterpart (docs/compatibility.md).

/** What one served version's schema allows for spec.levels. */
export interface ServedLevels {
  /** spec.levels is a list of objects with a nodeLabel: the shape written. */
  readonly fits: boolean;
  /** spec.levels' maxItems, when the schema sets one. */
  readonly maxLevels?: number;
  /** A level has an `alias` field (KAI 0.17 and later). */
  readonly alias: boolean;
}

type SchemaNode = { properties?: Record<string, SchemaNode>; items?: SchemaNode; maxItems?: number; type?: string };

const isNode = (v: unknown): v is SchemaNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads `schema` (one kind's OpenAPI v3 schema); undefined when there is none to read. */
export function servedLevels(schema: unknown): ServedLevels | undefined {
  if (!isNode(schema)) return undefined;
  const levels = schema.properties?.spec?.properties?.levels;
  const level = isNode(levels) ? levels.items?.properties : undefined;
  if (!isNode(levels) || !isNode(level) || !isNode(level.nodeLabel)) return { fits: false, alias: false };
  return {
    fits: true,
    ...(typeof levels.maxItems === 'number' ? { maxLevels: levels.maxItems } : {}),
    alias: isNode(level.alias),
  };
}
