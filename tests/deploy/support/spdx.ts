// SPDX 2.3 documents checked against the SPDX project's JSON Schema (shipped
// in tests/deploy/schemas/) with ajv, and read the way a scanner reads them.

import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';

type Json = Record<string, any>; // SPDX JSON, read loosely on purpose

const schema = JSON.parse(readFileSync(new URL('../schemas/spdx-2.3.schema.json', import.meta.url), 'utf8'));
// The schema uses no formats; strict mode would reject its draft-07 `$id` style only.
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** The schema violations of `doc` (empty when valid), one line each. */
export function spdxSchemaErrors(doc: unknown): string[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/** The SBOM file at `path`, parsed. */
export function readSpdx(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** `name@version` → the package, for every package whose purl is of `type` (npm, deb, ...). */
export function packagesByPurl(doc: Json, type: string): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const p of doc.packages as Json[]) {
    const purl = (p.externalRefs ?? []).find((r: Json) => r.referenceType === 'purl')?.referenceLocator as
      | string
      | undefined;
    if (purl?.startsWith(`pkg:${type}/`)) out.set(`${p.name}@${p.versionInfo}`, p);
  }
  return out;
}

/** The SPDX ids the element `id` CONTAINS. */
export function contained(doc: Json, id: string): string[] {
  return (doc.relationships as Json[])
    .filter((r) => r.spdxElementId === id && r.relationshipType === 'CONTAINS')
    .map((r) => r.relatedSpdxElement);
}
