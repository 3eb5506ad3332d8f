// TokenReview (authentication.k8s.io/v1) and SubjectAccessReview
// (authorization.k8s.io/v1) for the stand-in, answered from its users and
// their grants as kube-apiserver answers them from its authenticators and
// RBAC: a create (201) that echoes the spec with a status; an unknown token
// is `status: { user: {} }` (not an error); a TokenReview's `spec.audiences`
// (the API server's own when empty) must share one with the token's, and
// `status.audiences` names those shared (a token for another audience is not
// authenticated, with the API server's error); a SubjectAccessReview allows when
// a grant of the user or one of its groups covers the attributes, with
// nonResourceURLs matched exactly or by a trailing `*`. Who may create the
// reviews is checked before, like any create (RBAC on tokenreviews /
// subjectaccessreviews).

import { allowed, allowedNonResource, API_SERVER_AUDIENCE, type PolicyRule, type Users } from './auth.ts';
import type { RequestInfo } from './request-info.ts';
import { fieldInvalid, invalid, methodNotAllowed } from './status.ts';

const TOKEN_REVIEW = { group: 'authentication.k8s.io', resource: 'tokenreviews', kind: 'TokenReview' };
const ACCESS_REVIEW = { group: 'authorization.k8s.io', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview' };
/** Every authenticated user is in this group (apiserver adds it). */
const AUTHENTICATED_GROUP = 'system:authenticated';

interface ReviewSpec {
  token?: string;
  audiences?: string[];
  user?: string;
  groups?: string[];
  resourceAttributes?: {
    verb?: string;
    group?: string;
    resource?: string;
    subresource?: string;
    namespace?: string;
    name?: string;
  };
  nonResourceAttributes?: { path?: string; verb?: string };
}

/** What a component needs to delegate authentication and authorisation (the rights of system:auth-delegator). */
export function accessReviewerRbac(): PolicyRule[] {
  return [
    { apiGroups: [TOKEN_REVIEW.group], resources: [TOKEN_REVIEW.resource], verbs: ['create'] },
    { apiGroups: [ACCESS_REVIEW.group], resources: [ACCESS_REVIEW.resource], verbs: ['create'] },
  ];
}

/** True for the two review resources (v1), which the stand-in answers here instead of storing. */
export function isAccessReview(info: RequestInfo): boolean {
  if (info.version !== 'v1' || info.namespace) return false;
  return [TOKEN_REVIEW, ACCESS_REVIEW].some((r) => r.group === info.group && r.resource === info.resource);
}

function tokenStatus(spec: ReviewSpec, users: Users): object {
  const wanted = spec.audiences?.length ? spec.audiences : [API_SERVER_AUDIENCE];
  const user = spec.token ? users.byToken(spec.token, wanted) : undefined;
  if (!user) {
    const issued = spec.token ? users.audiencesOf(spec.token) : undefined;
    // kube-apiserver's union of authenticators: the ServiceAccount token authenticator's audience error.
    return issued
      ? {
          user: {},
          error: `[invalid bearer token, token audiences ${JSON.stringify(issued)} is invalid for the target audiences ${JSON.stringify(wanted)}]`,
        }
      : { user: {} };
  }
  return {
    authenticated: true,
    user: { username: user.name, groups: [AUTHENTICATED_GROUP] },
    audiences: user.audiences,
  };
}

function accessStatus(spec: ReviewSpec, users: Users): object {
  // Kubernetes' ValidateSubjectAccessReviewSpec: 422 for a spec no review can answer.
  if (!spec.user && !spec.groups?.length)
    throw invalid(ACCESS_REVIEW, '', [
      fieldInvalid('spec.user', '', 'at least one of user or group must be specified'),
    ]);
  if (!spec.resourceAttributes === !spec.nonResourceAttributes) {
    throw invalid(ACCESS_REVIEW, '', [
      fieldInvalid(
        'spec.resourceAttributes',
        null,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    ]);
  }
  const subject = users.byCertificate(spec.user ?? '', spec.groups ?? []);
  const nr = spec.nonResourceAttributes;
  const ra = spec.resourceAttributes;
  const ok = nr
    ? subject.grants.some((g) => allowedNonResource(g, nr.path ?? '', nr.verb ?? ''))
    : subject.grants.some((g) =>
        allowed(g, {
          user: subject.name,
          verb: ra!.verb ?? '',
          group: ra!.group ?? '',
          resource: ra!.resource ?? '',
          subresource: ra!.subresource ?? '',
          namespace: ra!.namespace ?? '',
          name: ra!.name ?? '',
        }),
      );
  return ok ? { allowed: true, reason: `RBAC: allowed by a grant to User "${subject.name}"` } : { allowed: false };
}

/**
 * The created review, with its status, for a POST the caller was allowed to make; other verbs are 405 before the body
 * is read.
 */
export async function answerAccessReview(
  info: RequestInfo,
  readBody: () => Promise<unknown>,
  users: Users,
): Promise<object> {
  if (info.verb !== 'create' || info.name) throw methodNotAllowed();
  const body = await readBody();
  const kind = info.resource === TOKEN_REVIEW.resource ? TOKEN_REVIEW : ACCESS_REVIEW;
  const spec = ((body as { spec?: ReviewSpec } | undefined)?.spec ?? {}) as ReviewSpec;
  const statusOf = kind === TOKEN_REVIEW ? tokenStatus(spec, users) : accessStatus(spec, users);
  return {
    kind: kind.kind,
    apiVersion: `${kind.group}/v1`,
    metadata: { creationTimestamp: null },
    spec,
    status: statusOf,
  };
}
