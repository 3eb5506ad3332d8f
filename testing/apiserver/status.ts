// Kubernetes `Status` error bodies and field errors, worded like the real
// kube-apiserver (apimachinery pkg/api/errors/errors.go and
// pkg/util/validation/field/errors.go) so clients are tested against the
// messages and reasons they will meet in a cluster.

/** What the stand-in needs to know about a resource to word an error. */
export interface ErrorSubject {
  /** Plural resource name, e.g. `hypernodes`. */
  resource: string;
  /** API group, '' for core. */
  group: string;
  /** Kind, e.g. `HyperNode`. */
  kind: string;
}

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  /** Empty, except the fresh continue token of an expired one. */
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  code: number;
}

/** A request that ends with a Status body (thrown through the handlers). */
export class StatusError extends Error {
  constructor(
    readonly status: Status,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(status.message);
  }
}

export function status(code: number, reason: string, message: string, details?: Status['details']): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) s.details = details;
  return s;
}

/** `hypernodes.topology.volcano.sh` or `nodes`: how Go prints a GroupResource. */
export function groupResource(s: Pick<ErrorSubject, 'resource' | 'group'>): string {
  return s.group ? `${s.resource}.${s.group}` : s.resource;
}

function qualifiedKind(s: ErrorSubject): string {
  return s.group ? `${s.kind}.${s.group}` : s.kind;
}

function details(s: ErrorSubject, name: string): Status['details'] {
  const d: Status['details'] = { name, kind: s.resource };
  if (s.group) d.group = s.group;
  return d;
}

export const notFound = (s: ErrorSubject, name: string): StatusError =>
  new StatusError(status(404, 'NotFound', `${groupResource(s)} "${name}" not found`, details(s, name)));

/** `terminating`: the name is held by an object being deleted (the store's "object is being deleted: " prefix). */
export const alreadyExists = (s: ErrorSubject, name: string, terminating = false): StatusError =>
  new StatusError(
    status(
      409,
      'AlreadyExists',
      `${terminating ? 'object is being deleted: ' : ''}${groupResource(s)} "${name}" already exists`,
      details(s, name),
    ),
  );

export const MODIFIED_DETAIL =
  'the object has been modified; please apply your changes to the latest version and try again';

export const conflict = (s: ErrorSubject, name: string, detail = MODIFIED_DETAIL): StatusError =>
  new StatusError(
    status(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${groupResource(s)} "${name}": ${detail}`,
      details(s, name),
    ),
  );

export const badRequest = (message: string): StatusError => new StatusError(status(400, 'BadRequest', message));

/** A storage error that is not a Status: ErrorToAPIStatus answers 500 with reason Unknown and the bare text. */
export const unknownError = (message: string): StatusError => new StatusError(status(500, 'Unknown', message));

export const methodNotAllowed = (): StatusError =>
  new StatusError(status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));

export const pageNotFound = (): StatusError =>
  new StatusError(status(404, 'NotFound', 'the server could not find the requested resource', {}));

export const unauthorized = (): StatusError => new StatusError(status(401, 'Unauthorized', 'Unauthorized'));

export const notAcceptable = (accepted: string): StatusError =>
  new StatusError(status(406, 'NotAcceptable', `only the following media types are accepted: ${accepted}`));

export const unsupportedMediaType = (accepted: string[]): StatusError =>
  new StatusError(
    status(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  );

/** 410 with reason Expired: a resourceVersion or continue token the server no longer has. */
export const expired = (message: string): StatusError => new StatusError(status(410, 'Expired', message));

/** etcd's request limit (--max-request-bytes default, 1.5 MiB): a larger object is never stored. */
export const ETCD_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/** etcd's refusal passed through as is: a 500 whose Status has no reason at all. */
export const etcdTooLarge = (): StatusError => {
  const s = status(500, '', 'etcdserver: request is too large');
  delete (s as Partial<Status>).reason;
  return new StatusError(s);
};

// ---- field errors (k8s.io/apimachinery/pkg/util/validation/field) ----

export type FieldErrorType =
  | 'Required'
  | 'Invalid'
  | 'TypeInvalid'
  | 'NotSupported'
  | 'TooLong'
  | 'Forbidden'
  | 'Duplicate';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  Required: 'Required value',
  Invalid: 'Invalid value',
  TypeInvalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  TooLong: 'Too long',
  Forbidden: 'Forbidden',
  Duplicate: 'Duplicate value',
};

const TYPE_REASON: Record<FieldErrorType, string> = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  TypeInvalid: 'FieldValueTypeInvalid',
  NotSupported: 'FieldValueNotSupported',
  TooLong: 'FieldValueTooLong',
  Forbidden: 'FieldValueForbidden',
  Duplicate: 'FieldValueDuplicate',
};

const OMIT = Symbol('omit value');

/** A bad value printed as Go prints it with %#v, unquoted (e.g. `0x0` for a uint64 zero). */
export class GoLiteral {
  constructor(readonly text: string) {}
}

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value: unknown;
  detail: string;
}

export const fieldRequired = (field: string, detail = ''): FieldError => ({
  type: 'Required',
  field,
  value: OMIT,
  detail,
});
export const fieldInvalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'Invalid',
  field,
  value,
  detail,
});
export const fieldTypeInvalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'TypeInvalid',
  field,
  value,
  detail,
});
export const fieldTooLong = (field: string, max: number): FieldError => ({
  type: 'TooLong',
  field,
  value: OMIT,
  detail: `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`,
});
export const fieldNotSupported = (field: string, value: unknown, supported: string[]): FieldError => ({
  type: 'NotSupported',
  field,
  value,
  detail: `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
});
export const fieldForbidden = (field: string, detail: string): FieldError => ({
  type: 'Forbidden',
  field,
  value: OMIT,
  detail,
});

export const fieldDuplicate = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'Duplicate',
  field,
  value,
  detail,
});

/** Go's ErrorBody(): `Invalid value: "x": detail`; strings quoted, numbers and booleans bare. */
export function fieldErrorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  if (e.value !== OMIT && e.type !== 'Required' && e.type !== 'TooLong' && e.type !== 'Forbidden') {
    const v = e.value;
    if (v === null || v === undefined) s += ': "null"';
    else if (typeof v === 'string') s += `: ${JSON.stringify(v)}`;
    else if (typeof v === 'number' || typeof v === 'boolean') s += `: ${v}`;
    else if (v instanceof GoLiteral) s += `: ${v.text}`;
    else s += `: ${JSON.stringify(v)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export const fieldErrorString = (e: FieldError): string => `${e.field}: ${fieldErrorBody(e)}`;

/**
 * 422 Invalid with the aggregate message and one cause per field error;
 * `subject` overrides how the object is named (`Kind.group` by default).
 */
export function invalid(s: ErrorSubject, name: string, errors: FieldError[], subject = qualifiedKind(s)): StatusError {
  const texts = [...new Set(errors.map(fieldErrorString))];
  const aggregate = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  // Go omits an empty name from details (omitempty).
  const d: Status['details'] = {
    ...(name ? { name } : {}),
    kind: s.kind,
    causes: errors.map((e) => ({ reason: TYPE_REASON[e.type], message: fieldErrorBody(e), field: e.field })),
  };
  if (s.group) d.group = s.group;
  return new StatusError(status(422, 'Invalid', `${subject} "${name}" is invalid: ${aggregate}`, d));
}
