// Turns a request's method and path into Kubernetes request attributes
// (verb, group, version, resource, subresource, namespace, name), like
// apiserver/pkg/endpoints/request/requestinfo.go, including the legacy
// /watch/ prefix and the namespace-as-name rule of /api/v1/namespaces/<ns>.

import type { Verb } from './request-log.ts';

export interface RequestInfo {
  isResource: boolean;
  verb: Verb;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** Discovery paths (/api, /apis/...) below the resource level. */
  parts: string[];
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const parts = path.split('/').filter(Boolean);
  const info: RequestInfo = {
    isResource: false,
    verb: '',
    group: '',
    version: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    parts,
  };
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    info.version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    info.group = parts[1];
    info.version = parts[2];
    rest = parts.slice(3);
  } else {
    return info;
  }
  info.isResource = true;
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest.slice(2).join('/');
  const watchParam = query.get('watch');
  const isWatch = watchPrefix || watchParam === '1' || watchParam === 'true';
  switch (method) {
    case 'GET':
    case 'HEAD':
      info.verb = isWatch ? 'watch' : info.name ? 'get' : 'list';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
  }
  return info;
}
