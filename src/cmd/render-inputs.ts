// The files `render` reads, turned into the objects discovery works on:
// the discovery document (bare, or inside a ConfigMap manifest), Nodes as
// `kubectl get nodes -o json|yaml` writes them (a List) or as a YAML stream,
// with the fabric taint the controller set on them, and the HyperNodes
// already in the cluster. JSON is read with JSON.parse (fast for the large
// Node lists kubectl writes), anything else as YAML.
// Every error names the file and, where it can, the item.

import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../kube/types.ts';
import { FABRIC_TAINT_ANNOTATION } from '../hypernode/model/hypernode-labels.ts';
import type { HyperNode, NodeMeta } from '../hypernode/model/hypernode-types.ts';
import { carriedFabricTaint, type FabricTaint } from '../hypernode/reconcile/health/fabric-taints.ts';
import { nodeHealthOf } from '../hypernode/reconcile/health/node-health.ts';
import { parseConfig, type DiscoveryConfig } from '../hypernode/config/loader.ts';
import { CONFIG_KEY } from '../hypernode/config/location.ts';
import { wrapError } from '../util/error-message.ts';
import { describeSyntaxError } from '../util/syntax-error.ts';
import { isMapping } from '../util/is-mapping.ts';

type Mapping = Record<string, unknown>;

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw wrapError(`cannot read ${path}`, err);
  }
}

/** The documents of a JSON file or a YAML stream; empty documents are dropped. */
function documents(path: string, text: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    // not JSON: a YAML stream
  }
  // logLevel 'error': no Node.js process warning for a collection as a key (the configuration's loader names the
  // problem).
  const docs = parseAllDocuments(text, { logLevel: 'error' });
  if (!Array.isArray(docs)) return [];
  const out: unknown[] = [];
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error)
      throw new Error(`${path}: not valid YAML or JSON: ${describeSyntaxError(error) ?? error.message.split('\n')[0]}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

/** The objects of the file: `List`s (kind ending in `List`) are flattened into their items. */
function objects(path: string, text: string): Mapping[] {
  const out: Mapping[] = [];
  for (const doc of documents(path, text)) {
    const items =
      isMapping(doc) && typeof doc.kind === 'string' && doc.kind.endsWith('List') && Array.isArray(doc.items)
        ? doc.items
        : [doc];
    for (const item of items) {
      if (!isMapping(item)) throw new Error(`${path}: item ${out.length} is not an object`);
      out.push(item);
    }
  }
  return out;
}

/** metadata.name and metadata.labels of an object of `kind`, checked. */
function nameAndLabels(
  path: string,
  obj: Mapping,
  index: number,
  kind: string,
): { name: string; labels: Record<string, string> } {
  if (obj.kind !== undefined && obj.kind !== kind)
    throw new Error(`${path}: item ${index} is a ${String(obj.kind)}, not a ${kind}`);
  const meta = isMapping(obj.metadata) ? obj.metadata : {};
  if (typeof meta.name !== 'string' || meta.name === '')
    throw new Error(`${path}: item ${index} (${kind}) has no metadata.name`);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(isMapping(meta.labels) ? meta.labels : {})) {
    if (typeof v !== 'string') throw new Error(`${path}: ${kind} ${meta.name}: label ${k} is not a string`);
    labels[k] = v;
  }
  return { name: meta.name, labels };
}

/**
 * The discovery configuration in `path`: a ConfigMap manifest (its
 * `volcano-controller.conf` value; in a stream or List, the one ConfigMap
 * holding that key) or else the discovery document itself.
 */
export async function readDiscoveryConfig(path: string): Promise<DiscoveryConfig> {
  const text = await readText(path);
  let all: Mapping[];
  try {
    all = objects(path, text);
  } catch {
    all = []; // not a manifest: let the document parser explain what is wrong
  }
  const configMaps = all.filter((o) => o.kind === 'ConfigMap');
  const document = configMaps.length === 0 ? text : configValue(path, configMaps);
  try {
    return parseConfig(document);
  } catch (err) {
    throw wrapError(path, err);
  }
}

function configValue(path: string, configMaps: Mapping[]): string {
  const name = (cm: Mapping) => {
    const meta = isMapping(cm.metadata) ? cm.metadata : {};
    return `${meta.namespace ? `${String(meta.namespace)}/` : ''}${String(meta.name ?? '')}`;
  };
  const holding = configMaps.filter((cm) => isMapping(cm.data) && CONFIG_KEY in cm.data);
  if (holding.length === 0)
    throw new Error(`${path}: ConfigMap ${configMaps.map(name).join(', ')} has no data key ${CONFIG_KEY}`);
  if (holding.length > 1)
    throw new Error(
      `${path}: ${holding.length} ConfigMaps hold ${CONFIG_KEY} (${holding.map(name).join(', ')}); give one`,
    );
  const value = (holding[0]!.data as Mapping)[CONFIG_KEY];
  if (typeof value !== 'string')
    throw new Error(`${path}: ConfigMap ${name(holding[0]!)}: data.${CONFIG_KEY} is not a string`);
  return value;
}

/** What `render` reads of a Node file. */
export interface NodeFile {
  /** Name and labels only (what the controller's metadata-only Node cache holds). */
  readonly nodes: NodeMeta[];
  /** Node → the fabric taint of the controller it carries: its record and that taint both on it (the HTML view). */
  readonly fabricTaints: Map<string, FabricTaint>;
}

export async function readNodes(path: string): Promise<NodeFile> {
  const fabricTaints = new Map<string, FabricTaint>();
  const nodes = objects(path, await readText(path)).map((obj, i): NodeMeta => {
    const { name, labels } = nameAndLabels(path, obj, i, 'Node');
    const meta = obj.metadata as Mapping;
    // Only a Node with the record is read further; the record and its taint are checked as the controller reads them.
    if (isMapping(meta.annotations) && meta.annotations[FABRIC_TAINT_ANNOTATION] !== undefined) {
      const health = nodeHealthOf(obj as unknown as KubeObject);
      const taint = carriedFabricTaint(health.fabricTaint, health.taints);
      if (taint) fabricTaints.set(name, taint);
    }
    return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } };
  });
  return { nodes, fabricTaints };
}

/** HyperNodes as read from the cluster: metadata, spec and status as given. */
export async function readHyperNodes(path: string): Promise<HyperNode[]> {
  return objects(path, await readText(path)).map((obj, i) => {
    nameAndLabels(path, obj, i, 'HyperNode');
    if (!isMapping(obj.spec)) throw new Error(`${path}: item ${i} (HyperNode) has no spec`);
    return obj as unknown as HyperNode;
  });
}
