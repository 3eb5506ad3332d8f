// Authentication (bearer tokens, client certificates whose CN is the user)
// and RBAC-style authorization for the stand-in, with the Forbidden message
// of apiserver/pkg/endpoints/handlers/responsewriters/errors.go. Also the
// least-privilege grant set of the Helm chart (deploy/kubernetes/rbac.yaml).

import { groupResource, status, StatusError } from './status.ts';

export interface PolicyRule {
  apiGroups: string[];
  /** Plural names, `resource/subresource` for subresources, or '*'. */
  resources: string[];
  verbs: string[];
  /** Set: a Role's rule, valid only for namespaced requests in these namespaces. Unset: a ClusterRole's. */
  namespaces?: string[];
  /** Restricts the rule to requests naming one of these objects. */
  resourceNames?: string[];
  /**
   * A rule for non-resource URLs (apiGroups and resources then empty); matched only by SubjectAccessReviews
   * (access-reviews.ts).
   */
  nonResourceURLs?: string[];
}

/** 'admin' allows everything. */
export type Grant = 'admin' | PolicyRule[];

/** What authorization looks at (requestinfo.RequestInfo). */
export interface Attributes {
  user: string;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

const has = (list: string[], v: string): boolean => list.includes('*') || list.includes(v);

function ruleAllows(rule: PolicyRule, a: Attributes): boolean {
  if (rule.namespaces && (!a.namespace || !rule.namespaces.includes(a.namespace))) return false;
  if (!has(rule.apiGroups, a.group) || !has(rule.verbs, a.verb)) return false;
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (!rule.resources.some((r) => r === '*' || r === res || (a.subresource && r === `*/${a.subresource}`)))
    return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(a.name)) return false;
  return true;
}

export function allowed(grant: Grant | undefined, a: Attributes): boolean {
  if (grant === 'admin') return true;
  return (grant ?? []).some((r) => ruleAllows(r, a));
}

/**
 * Whether `grant` allows `verb` on the non-resource URL `path`: a rule's nonResourceURLs match exactly or by a trailing
 * `*`.
 */
export function allowedNonResource(grant: Grant, path: string, verb: string): boolean {
  if (grant === 'admin') return true;
  return grant.some(
    (rule) =>
      has(rule.verbs, verb) &&
      (rule.nonResourceURLs ?? []).some(
        (url) => url === '*' || url === path || (url.endsWith('*') && path.startsWith(url.slice(0, -1))),
      ),
  );
}

/** 403 worded exactly like the real server. */
export function forbidden(a: Attributes): StatusError {
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const why = `User "${a.user}" cannot ${a.verb} resource "${res}" in API group "${a.group}" ${scope}`;
  const gr = groupResource(a);
  const message = a.name ? `${gr} "${a.name}" is forbidden: ${why}` : `${gr} is forbidden: ${why}`;
  const details: Record<string, string> = { kind: a.resource };
  if (a.name) details.name = a.name;
  if (a.group) details.group = a.group;
  return new StatusError(status(403, 'Forbidden', message, details));
}

/**
 * The controller's ServiceAccount rights under the Helm chart: the ClusterRole
 * (nodes list/watch; hypernodes list/watch/create/update/delete;
 * hypernodes/status update) and the Role in the release namespace
 * (configmaps list/watch, secrets get, events create/patch/update, leases
 * create, and get/update on the one named Lease).
 */
export function hypernodeControllerRbac(namespace: string, leaseName: string): PolicyRule[] {
  return [
    { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
    {
      apiGroups: ['topology.volcano.sh'],
      resources: ['hypernodes'],
      verbs: ['list', 'watch', 'create', 'update', 'delete'],
    },
    { apiGroups: ['topology.volcano.sh'], resources: ['hypernodes/status'], verbs: ['update'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'], namespaces: [namespace] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], namespaces: [namespace] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'], namespaces: [namespace] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'], namespaces: [namespace] },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['get', 'update'],
      namespaces: [namespace],
      resourceNames: [leaseName],
    },
  ];
}

export interface User {
  name: string;
  /** The user's own grant plus those of its groups. */
  grants: Grant[];
  /** Its groups (a certificate's O entries; the built-in admin is in system:masters, as a cluster's admin token is). */
  groups: readonly string[];
}

/** A request without credentials: allowed nothing a grant could name, so resources answer 403. */
export const ANONYMOUS: User = { name: 'system:anonymous', grants: [], groups: ['system:unauthenticated'] };

/** The group whose members may do anything, as in every cluster. */
export const MASTERS_GROUP = 'system:masters';

/** The audience of the tokens the API server accepts for itself (--api-audiences; kubeadm's default). */
export const API_SERVER_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

/** Who may call: tokens map to users; certificate CNs are user names and O entries their groups. */
export class Users {
  private grants = new Map<string, Grant>();
  /** Each token's user and the audiences it was issued for. */
  private tokens = new Map<string, { name: string; audiences: readonly string[] }>();
  private userGroups = new Map<string, readonly string[]>();
  private groupGrants = new Map<string, Grant>([[MASTERS_GROUP, 'admin']]);

  addGroup(group: string, grant: Grant): void {
    this.groupGrants.set(group, grant);
  }

  add(name: string, grant: Grant, token?: string, groups: readonly string[] = []): void {
    this.grants.set(name, grant);
    this.userGroups.set(name, groups);
    if (token) this.tokens.set(token, { name, audiences: [API_SERVER_AUDIENCE] });
  }

  /** A further token of the user `name` (added before), issued for `audiences` only, as `kubectl create token --audience`. */
  addToken(name: string, token: string, audiences: readonly string[]): void {
    this.tokens.set(token, { name, audiences });
  }

  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  /** A verified client certificate's CN is the user; without a grant it may do nothing (403, not 401). */
  byCertificate(cn: string, groups: string[]): User {
    const grants = [this.grants.get(cn) ?? [], ...groups.map((g) => this.groupGrants.get(g) ?? [])];
    return { name: cn, grants, groups };
  }

  /**
   * The user of `token` and those of `audiences` it was issued for, when it
   * was issued for one of them at least (the API server's own by default:
   * a token for another audience does not authenticate to the API server).
   */
  byToken(
    token: string,
    audiences: readonly string[] = [API_SERVER_AUDIENCE],
  ): (User & { audiences: readonly string[] }) | undefined {
    const issued = this.tokens.get(token);
    const shared = issued?.audiences.filter((a) => audiences.includes(a)) ?? [];
    if (!issued || shared.length === 0) return undefined;
    const { name } = issued;
    return { name, grants: [this.grants.get(name)!], groups: this.userGroups.get(name) ?? [], audiences: shared };
  }

  /** The audiences `token` was issued for, if it is known at all. */
  audiencesOf(token: string): readonly string[] | undefined {
    return this.tokens.get(token)?.audiences;
  }
}
