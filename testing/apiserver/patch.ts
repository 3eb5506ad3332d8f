// JSON merge patch (RFC 7386) and JSON patch (RFC 6902), as the API server
// applies them (apiserver/pkg/endpoints/handlers/patch.go uses
// evanphx/json-patch). Strategic merge patch is served as a merge patch: the
// only strategic bodies this project's clients send (event count/timestamp
// updates) touch scalars, where both agree.

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class PatchError extends Error {}

interface Op {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer: ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function clone<T>(v: T): T {
  return v === undefined ? v : JSON.parse(JSON.stringify(v));
}

/** Parent container and last token of a path; throws when the parent is missing. */
function locate(doc: Json, path: string): { parent: Record<string, Json> | Json[]; key: string } {
  const tokens = pointer(path);
  if (tokens.length === 0) throw new PatchError('cannot operate on the document root');
  let cur: Json = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw new PatchError(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw new PatchError(`doc is missing path: "${path}": missing value`);
  return { parent: cur, key: tokens[tokens.length - 1] };
}

function read(doc: Json, path: string): Json {
  let cur: Json = doc;
  for (const t of pointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw new PatchError(`doc is missing path: "${path}": missing value`);
  }
  return cur;
}

function arrayIndex(arr: Json[], key: string, forInsert: boolean): number {
  if (forInsert && key === '-') return arr.length;
  const i = Number(key);
  if (!/^\d+$/.test(key) || i > arr.length || (!forInsert && i === arr.length))
    throw new PatchError(`Unable to access invalid index: ${key}`);
  return i;
}

function remove(doc: Json, path: string): Json {
  const { parent, key } = locate(doc, path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, false), 1)[0];
  if (!(key in parent)) throw new PatchError(`Unable to remove nonexistent key: ${key}: missing value`);
  const v = parent[key];
  delete parent[key];
  return v;
}

function add(doc: Json, path: string, value: Json): void {
  const { parent, key } = locate(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else parent[key] = value;
}

export function jsonPatch(doc: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw new PatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  const out = clone(doc);
  for (const raw of ops as Op[]) {
    switch (raw.op) {
      case 'add':
        add(out, raw.path, clone(raw.value));
        break;
      case 'remove':
        remove(out, raw.path);
        break;
      case 'replace':
        remove(out, raw.path);
        add(out, raw.path, clone(raw.value));
        break;
      case 'move':
        add(out, raw.path, remove(out, raw.from ?? ''));
        break;
      case 'copy':
        add(out, raw.path, clone(read(out, raw.from ?? '')));
        break;
      case 'test':
        if (JSON.stringify(read(out, raw.path)) !== JSON.stringify(raw.value))
          throw new PatchError('testing value /' + raw.path.slice(1) + ' failed: test failed');
        break;
      default:
        throw new PatchError(`Unexpected kind: ${raw.op}`);
    }
  }
  return out;
}
