// The resource types the stand-in serves and their per-type rules: scope,
// subresources, name syntax, decoding and validation. Built-in kinds mirror
// k8s.io/kubernetes pkg/apis/*/validation (Lease, Event, ConfigMap, Secret);
// HyperNodes are enforced from the CRD manifest shipped beside this file.

import { fileURLToPath } from 'node:url';
import { decodeBuiltin } from './builtin-types.ts';
import {
  checkRulesKnown,
  loadCrd,
  prune,
  ruleErrors,
  validateSchema,
  type CrdVersion,
  type Schema,
} from './crd-schema.ts';
import { KAI_TOPOLOGY_WEBHOOK, type ValidatingWebhook } from './kai-topology-webhook.ts';
import { objectMetaErrors, type NameRule } from './meta-validation.ts';
import { configKeyErrors, eventErrors, leaseErrors, nodeErrors } from './builtin-validation.ts';
import { badRequest, type ErrorSubject, type FieldError } from './status.ts';
import type { Obj } from './store.ts';

export interface ResourceType extends ErrorSubject {
  /**
   * The name the stand-in files the type under (its registry key and store
   * bucket): the plural, or plural.group where two served groups share a
   * plural (Kueue's and KAI's `topologies`), as kubectl names them.
   */
  key: string;
  version: string;
  /** `v1` or `group/version`. */
  apiVersion: string;
  listKind: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  subresources: string[];
  /** Typed built-in kind: list items are served without apiVersion/kind, as Go's typed lists do. */
  builtin: boolean;
  nameRule: NameRule;
  /** PUT without metadata.resourceVersion is allowed (false for custom resources and Leases). */
  allowUnconditionalUpdate: boolean;
  /** PUT of a missing object creates it (only Leases among the served types). */
  allowCreateOnUpdate: boolean;
  /** metadata.generation starts at 1 and is bumped when anything but metadata/status changes. */
  tracksGeneration: boolean;
  /** Type-checks, prunes and converts a request body as the v1 decoding does (throws 400 StatusError). */
  decode(obj: Obj): Obj;
  /** Fills server-side defaults on create. */
  prepareCreate(obj: Obj): void;
  /** What admission adds to an object created through the API (not to test seeding). */
  admit?(obj: Obj): void;
  /** Fields of an empty object of this kind besides metadata, as a typed BOOKMARK carries them. */
  emptyFields?: Obj;
  /** Field errors beyond object metadata (422 when non-empty); `old` is the stored object on an update. */
  validate(obj: Obj, old?: Obj): FieldError[];
  /** A CRD's x-kubernetes-validations: run after the other checks, which may block them. */
  rules?(obj: Obj, prior: readonly FieldError[], old?: Obj): FieldError[];
  /** A CRD version's schema, as /openapi/v3 publishes it. */
  schema?: Schema;
  /**
   * For a CRD served at several versions: the apiVersion objects are stored
   * at. Without a conversion webhook the API server converts by rewriting
   * apiVersion alone, so a read at any version shows the same object.
   */
  storageApiVersion?: string;
  /** On the storage version's type: the CRD's other served versions, each a type over the same store bucket. */
  otherVersions?: readonly ResourceType[];
  /** The Warning header a request at this (deprecated) version gets. */
  deprecationWarning?: string;
  /** A validating admission webhook its vendor installs with the CRD, run after validation on create and update. */
  webhook?: ValidatingWebhook;
}

interface BuiltinSpec {
  resource: string;
  group?: string;
  version?: string;
  kind: string;
  singular: string;
  shortNames?: string[];
  namespaced: boolean;
  subresources?: string[];
  nameRule?: NameRule;
  allowUnconditionalUpdate?: boolean;
  allowCreateOnUpdate?: boolean;
  prepareCreate?(obj: Obj): void;
  admit?(obj: Obj): void;
  emptyFields?: Record<string, unknown>;
  prepareWrite?(obj: Obj): void;
  validate?(obj: Obj): FieldError[];
}

function builtin(spec: BuiltinSpec): ResourceType {
  const group = spec.group ?? '';
  const version = spec.version ?? 'v1';
  const apiVersion = group ? `${group}/${version}` : version;
  return {
    key: spec.resource,
    resource: spec.resource,
    group,
    version,
    apiVersion,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    singular: spec.singular,
    shortNames: spec.shortNames ?? [],
    namespaced: spec.namespaced,
    subresources: spec.subresources ?? [],
    builtin: true,
    nameRule: spec.nameRule ?? 'subdomain',
    allowUnconditionalUpdate: spec.allowUnconditionalUpdate ?? true,
    allowCreateOnUpdate: spec.allowCreateOnUpdate ?? false,
    tracksGeneration: false,
    decode: (obj) => {
      const decoded = decodeBuiltin(spec.kind, version, obj);
      spec.prepareWrite?.(decoded);
      return decoded;
    },
    prepareCreate: spec.prepareCreate ?? (() => {}),
    ...(spec.admit ? { admit: spec.admit } : {}),
    ...(spec.emptyFields ? { emptyFields: spec.emptyFields as Obj } : {}),
    validate: spec.validate ?? (() => []),
  };
}

/** The status every Node is defaulted to (v1 defaulting of a NodeStatus), as a real server answers it. */
const NODE_STATUS_DEFAULTS = {
  daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
  nodeInfo: {
    machineID: '',
    systemUUID: '',
    bootID: '',
    kernelVersion: '',
    osImage: '',
    containerRuntimeVersion: '',
    kubeletVersion: '',
    kubeProxyVersion: '',
    operatingSystem: '',
    architecture: '',
  },
};

const nodes = builtin({
  resource: 'nodes',
  kind: 'Node',
  singular: 'node',
  shortNames: ['no'],
  namespaced: false,
  subresources: ['status'],
  emptyFields: { spec: {}, status: NODE_STATUS_DEFAULTS },
  validate: nodeErrors,
  admit(obj) {
    // The default admission plugins taint a new Node until its kubelet reports it ready (TaintNodesByCondition).
    const spec = (obj.spec ?? {}) as { taints?: unknown[] };
    const taints = spec.taints ?? [];
    if (!taints.some((t) => (t as { key?: string }).key === 'node.kubernetes.io/not-ready'))
      taints.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
    obj.spec = { ...spec, taints };
    obj.status = { ...structuredClone(NODE_STATUS_DEFAULTS), ...(obj.status as object | undefined) };
  },
});

const namespaces = builtin({
  resource: 'namespaces',
  kind: 'Namespace',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  subresources: ['status'],
  nameRule: 'label',
  prepareCreate(obj) {
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name };
    obj.spec = { finalizers: ['kubernetes'], ...obj.spec };
    obj.status = { phase: 'Active' };
  },
});

const configmaps = builtin({
  resource: 'configmaps',
  kind: 'ConfigMap',
  singular: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  validate: (obj) => configKeyErrors(obj, ['data', 'binaryData']),
});

const secrets = builtin({
  resource: 'secrets',
  kind: 'Secret',
  singular: 'secret',
  namespaced: true,
  prepareCreate(obj) {
    obj.type ??= 'Opaque';
  },
  prepareWrite(obj) {
    // stringData is write-only: the v1 conversion folds it into data (base64) and never stores it.
    if (obj.stringData) {
      const encoded = Object.entries(obj.stringData as Record<string, string>).map(([k, v]) => [
        k,
        Buffer.from(v).toString('base64'),
      ]);
      obj.data = { ...obj.data, ...Object.fromEntries(encoded) };
    }
    delete obj.stringData;
  },
  validate: (obj) => configKeyErrors(obj, ['data']),
});

const events = builtin({
  resource: 'events',
  kind: 'Event',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  prepareWrite(obj) {
    // Fields of the core/v1 Event without omitempty: a real server always sends them.
    obj.eventTime ??= null;
    obj.reportingComponent ??= '';
    obj.reportingInstance ??= '';
  },
  validate: eventErrors,
});

const leases = builtin({
  resource: 'leases',
  group: 'coordination.k8s.io',
  kind: 'Lease',
  singular: 'lease',
  namespaced: true,
  // pkg/registry/coordination/lease/strategy.go: a PUT may create, but an update must name its resourceVersion.
  allowUnconditionalUpdate: false,
  allowCreateOnUpdate: true,
  prepareCreate(obj) {
    // Coordinated leader election is off by default: its fields are dropped.
    if (obj.spec) {
      delete obj.spec.strategy;
      delete obj.spec.preferredHolder;
    }
  },
  validate: leaseErrors,
});

/** The HyperNode CRD file shipped beside this module (a copy of the one Volcano installs). */
export const HYPERNODE_CRD_FILE = fileURLToPath(new URL('./topology.volcano.sh_hypernodes.yaml', import.meta.url));

/**
 * Kueue's and KAI Scheduler's kinds the controller meets, with the validation
 * of their published CRDs (see each file's header for where the facts come
 * from); served only when a test asks (ApiServerOptions.extraCrds). Kueue
 * comes as a current release (Topology at v1beta2 and, deprecated, v1beta1;
 * ResourceFlavor at v1beta2), as 0.14 (Topology only at v1beta1, 16 levels),
 * 0.13 (only at v1alpha1, 16 levels) or 0.9 to 0.12 (only at v1alpha1, 8
 * levels), the older ones beside ResourceFlavor at v1beta1; KAI as 0.17
 * (levels with an `alias`, and its validating webhook) or 0.12 to 0.16.
 */
const here = (file: string) => fileURLToPath(new URL(`./${file}`, import.meta.url));
export const KUEUE_TOPOLOGY_CRD_FILE = here('kueue.x-k8s.io_topologies.yaml');
export const KUEUE_RESOURCE_FLAVOR_CRD_FILE = here('kueue.x-k8s.io_resourceflavors.yaml');
export const KUEUE_0_14_TOPOLOGY_CRD_FILE = here('kueue-v0.14.topologies.yaml');
export const KUEUE_0_13_TOPOLOGY_CRD_FILE = here('kueue-v0.13.topologies.yaml');
export const KUEUE_0_12_TOPOLOGY_CRD_FILE = here('kueue-v0.12.topologies.yaml');
export const KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE = here('kueue-v1beta1.resourceflavors.yaml');
export const KAI_TOPOLOGY_CRD_FILE = here('kai.scheduler_topologies.yaml');
export const KAI_0_16_TOPOLOGY_CRD_FILE = here('kai-v0.16.topologies.yaml');

/** The validating webhooks vendors install with a CRD, by CRD file. */
const WEBHOOKS: ReadonlyMap<string, ValidatingWebhook> = new Map([[KAI_TOPOLOGY_CRD_FILE, KAI_TOPOLOGY_WEBHOOK]]);

/**
 * A custom resource type enforced from a CRD manifest, at its storage
 * version, its other served versions in `otherVersions`; `qualified` files
 * it under plural.group.
 */
export function customResource(crdFile: string, qualified = false): ResourceType {
  const [stored, ...others] = loadCrd(crdFile);
  const storageApiVersion = `${stored!.group}/${stored!.version}`;
  const webhook = WEBHOOKS.get(crdFile);
  const typeOf = (crd: CrdVersion): ResourceType => {
    checkRulesKnown(crd.schema);
    return {
      key: qualified ? `${crd.plural}.${crd.group}` : crd.plural,
      resource: crd.plural,
      group: crd.group,
      version: crd.version,
      apiVersion: `${crd.group}/${crd.version}`,
      kind: crd.kind,
      listKind: crd.listKind,
      singular: crd.singular,
      shortNames: crd.shortNames,
      namespaced: crd.namespaced,
      subresources: crd.subresources,
      builtin: false,
      nameRule: 'subdomain',
      allowUnconditionalUpdate: false,
      allowCreateOnUpdate: false,
      tracksGeneration: true,
      decode(obj) {
        // Unstructured decoding needs apiVersion and kind in the body.
        if (typeof obj.kind !== 'string' || !obj.kind)
          throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
        if (typeof obj.apiVersion !== 'string' || !obj.apiVersion)
          throw badRequest(`Object 'apiVersion' is missing in '${JSON.stringify(obj)}'`);
        return prune(obj, crd.schema) as Obj;
      },
      prepareCreate() {},
      validate(obj) {
        const errs: FieldError[] = [];
        validateSchema(obj, crd.schema, '', errs);
        return errs;
      },
      rules: (obj, prior, old) => ruleErrors(obj, crd.schema, prior, old),
      schema: crd.schema,
      storageApiVersion,
      ...(crd.deprecationWarning ? { deprecationWarning: crd.deprecationWarning } : {}),
      ...(webhook ? { webhook } : {}),
    };
  };
  return { ...typeOf(stored!), ...(others.length > 0 ? { otherVersions: others.map(typeOf) } : {}) };
}

/** Every version of every type: each type and the other versions it is served at. */
export function everyVersion(types: Iterable<ResourceType>): ResourceType[] {
  return [...types].flatMap((t) => [t, ...(t.otherVersions ?? [])]);
}

/** Every resource type served, by plural name. */
export function defaultResourceTypes(): Map<string, ResourceType> {
  const all = [nodes, namespaces, configmaps, secrets, events, leases, customResource(HYPERNODE_CRD_FILE)];
  return new Map(all.map((r) => [r.key, r]));
}

/** Metadata and type validation common to all kinds (422 causes), then the kind's own rules. */
export function admissionErrors(rt: ResourceType, obj: Obj, old?: Obj): FieldError[] {
  const errs = [...objectMetaErrors(obj.metadata ?? {}, rt.namespaced, rt.nameRule), ...rt.validate(obj, old)];
  if (!rt.rules) return errs;
  // A custom resource's causes come sorted by field, the not-checked one (`<nil>`) last.
  const all = [...errs, ...rt.rules(obj, errs, old)];
  const rank = (e: FieldError) => (e.field === '<nil>' ? '\uffff' : e.field);
  return all.sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
}
