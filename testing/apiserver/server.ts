// The Kubernetes API server stand-in for integration tests: real HTTP(S) on
// 127.0.0.1, authentication and RBAC, the REST verbs over the resource types
// in resources.ts, watches, a request log and fault injection. Plays the part
// of kube-apiserver (k8s.io/apiserver pkg/endpoints) as strictly as the tests
// need: where it differs from a real server, it is never more permissive.

import { runKueueTopologyController } from './kueue-topology-controller.ts';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { gzip } from 'node:zlib';
import { answerAccessReview, isAccessReview } from './access-reviews.ts';
import { allowed, ANONYMOUS, forbidden, MASTERS_GROUP, Users, type Attributes, type Grant, type User } from './auth.ts';
import { discovery, VERSION_INFO } from './discovery.ts';
import { negotiateForm, objectJson, type Form } from './encoding.ts';
import { Faults, type FailureSpec } from './faults.ts';
import { writeKubeconfigFile, type KubeconfigOptions } from './kubeconfig.ts';
import { listBody, parseRv } from './list.ts';
import type { Query } from './list-options.ts';
import { validateListOptions } from './list-options.ts';
import { managerFromUserAgent } from './managed-fields.ts';
import {
  DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT,
  DEFAULT_MAX_REQUESTS_INFLIGHT,
  MaxInFlight,
  TOO_MANY_REQUESTS_RETRY_AFTER,
  TOO_MANY_REQUESTS_TEXT,
  type InFlightCounts,
} from './max-in-flight.ts';
import { Registry, type DeletePreconditions } from './registry.ts';
import { RequestLog, matchesRequest, type RequestMatch, type RequestRecord } from './request-log.ts';
import { requestInfo, type RequestInfo } from './request-info.ts';
import { openApiDocument } from './openapi.ts';
import { customResource, defaultResourceTypes, everyVersion, type ResourceType } from './resources.ts';
import { parseFieldSelector, parseLabelSelector } from './selectors.ts';
import {
  badRequest,
  methodNotAllowed,
  pageNotFound,
  status,
  StatusError,
  unauthorized,
  unsupportedMediaType,
} from './status.ts';
import { ObjectStore, DEFAULT_HISTORY_EVENTS, type Obj, type Stored } from './store.ts';
import { TestStore } from './test-store.ts';
import { serveWatch, type OpenWatch } from './watch.ts';

const TLS_DIR = fileURLToPath(new URL('../tls/', import.meta.url));

/** Token of the built-in `admin` user (every right). */
export const ADMIN_TOKEN = 'admin-token';
export const ADMIN_USER = 'admin';

/** kube-apiserver's default --min-request-timeout (seconds). */
export const DEFAULT_MAX_WATCH_SECONDS = 1800;
/** The watch cache sends bookmarks about once a minute. */
export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
/** Responses larger than this are gzipped for clients that accept it (APIResponseCompression). */
const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** How far revisions jump when data is wiped (as after an etcd restore). */
const RESTORE_RV_JUMP = 10_000;

export interface ApiServerOptions {
  /** HTTPS with testing/tls/server.crt (default true); false serves plain HTTP. */
  tls?: boolean;
  /** Port on 127.0.0.1 (default 0 = any free port). */
  port?: number;
  /** Users besides `admin`: name → grant and optional bearer token. Certificate users are their CN. */
  users?: Record<string, { grant: Grant; token?: string }>;
  /** Namespaces to create at start besides default, kube-system, kube-public, kube-node-lease. */
  namespaces?: string[];
  /** Server-side watch cutoff when the client sets no timeoutSeconds: random in [1x, 2x) (default 1800). */
  maxWatchSeconds?: number;
  /** Interval between BOOKMARK events on watches that allow them (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Events kept for watch resumption and paged lists (default 102,400, the watch cache's upper bound). */
  historyLimit?: number;
  /** Start as a cluster where the HyperNode CRD is not installed (404 for hypernodes until installHyperNodeCrd()). */
  withoutHyperNodeCrd?: boolean;
  /**
   * More CRD manifests to serve (KUEUE_TOPOLOGY_CRD_FILE, KAI_TOPOLOGY_CRD_FILE),
   * each filed under plural.group: `store.get('topologies.kueue.x-k8s.io', name)`.
   */
  extraCrds?: readonly string[];
  /** Runs the model of Kueue's Topology controller from the start (see startKueueTopologyController). */
  kueueTopologyController?: boolean;
  /**
   * Time each matching request spends being served, in its in-flight seat, as
   * a real server spends it in admission and etcd (default none; the same as
   * latency() called at once). A real kube-apiserver took ~11 ms a HyperNode create.
   */
  latency?: { ms: number; match?: RequestMatch };
  /** kube-apiserver's --max-requests-inflight (default 400; 0 = no limit): seats for reads. */
  maxRequestsInflight?: number;
  /** kube-apiserver's --max-mutating-requests-inflight (default 200; 0 = no limit): seats for writes. */
  maxMutatingRequestsInflight?: number;
}

/** The plural the HyperNode CRD registers (absent while withoutHyperNodeCrd). */
const HYPERNODE_RESOURCE = 'hypernodes';

/** Answered without credentials: the health checks and the version. */
const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);

/** kube-apiserver's limit on a request body (--max-request-bytes default for JSON writes). */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new StatusError(
        status(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`),
      );
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

export class ApiServer {
  /** Base URL, e.g. https://127.0.0.1:41234. */
  url = '';
  port = 0;
  /** CA that signed the server certificate (for clients' certificate-authority). */
  readonly caFile = join(TLS_DIR, 'ca.crt');
  readonly clientCertFile = join(TLS_DIR, 'client.crt');
  readonly clientKeyFile = join(TLS_DIR, 'client.key');
  readonly adminToken = ADMIN_TOKEN;
  /** Every request, in arrival order. */
  readonly requests = new RequestLog();
  /** Direct object access for tests (no HTTP, no authorization). */
  readonly store: TestStore;

  private readonly objects: ObjectStore;
  private readonly registry: Registry;
  private readonly users = new Users();
  private readonly faults = new Faults();
  private readonly inFlight: MaxInFlight;
  private readonly openWatches = new Set<OpenWatch>();
  private readonly sockets = new Set<Socket>();
  private server: Server;
  private kubeconfigs = 0;
  private readonly tls: boolean;
  private readonly maxWatchSeconds: number;
  private readonly bookmarkIntervalMs: number;

  constructor(private readonly opts: ApiServerOptions = {}) {
    this.tls = opts.tls ?? true;
    this.maxWatchSeconds = opts.maxWatchSeconds ?? DEFAULT_MAX_WATCH_SECONDS;
    this.bookmarkIntervalMs = opts.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS;
    this.inFlight = new MaxInFlight(
      opts.maxRequestsInflight ?? DEFAULT_MAX_REQUESTS_INFLIGHT,
      opts.maxMutatingRequestsInflight ?? DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT,
    );
    if (opts.latency) this.faults.latency(opts.latency.ms, opts.latency.match);
    this.objects = new ObjectStore(opts.historyLimit ?? DEFAULT_HISTORY_EVENTS);
    this.registry = new Registry(this.objects, defaultResourceTypes());
    if (opts.withoutHyperNodeCrd) this.registry.types.delete(HYPERNODE_RESOURCE);
    for (const file of opts.extraCrds ?? []) this.installCrd(file);
    this.store = new TestStore(this.registry);
    // As a cluster's admin token: in system:masters, so never turned away by the in-flight limit.
    this.users.add(ADMIN_USER, 'admin', ADMIN_TOKEN, [MASTERS_GROUP]);
    for (const [name, u] of Object.entries(opts.users ?? {})) this.users.add(name, u.grant, u.token);
    this.registry.ensureSystemNamespaces(opts.namespaces);
    // The watch cache starts once the server has bootstrapped, as a real one does: a watch from an earlier revision is
    // 410.
    this.objects.resetWatchCache();
    this.server = this.createServer();
    if (opts.kueueTopologyController) this.startKueueTopologyController();
  }

  private stopKueue?: () => void;

  /**
   * Runs the model of Kueue's Topology controller (kueue-topology-controller.ts)
   * until close(): its finalizer on every Kueue Topology, released once no
   * ResourceFlavor names it. Serve the Kueue CRDs first.
   */
  startKueueTopologyController(): void {
    this.stopKueue ??= runKueueTopologyController(this.objects, this.store);
  }

  /**
   * Calls `listener` synchronously with every stored state of `resource`
   * (`plural` or `plural.group` as store.get takes it) and whether it was
   * deleted, so a test can check an invariant at every step; returns the
   * unsubscribe.
   */
  onStoreChange(resource: string, listener: (obj: Obj, deleted: boolean) => void): () => void {
    return this.objects.subscribe(resource, (ev) =>
      listener(JSON.parse(JSON.stringify(ev.object.obj)) as Obj, ev.type === 'DELETED'),
    );
  }

  /** Serves HyperNodes from now on, as when an operator applies the CRD (only after withoutHyperNodeCrd). */
  installHyperNodeCrd(): void {
    this.registry.types.set(HYPERNODE_RESOURCE, defaultResourceTypes().get(HYPERNODE_RESOURCE)!);
  }

  /** Serves the CRD in `file` from now on (filed under plural.group), as when an operator applies it. */
  installCrd(file: string): void {
    const rt = customResource(file, true);
    this.registry.types.set(rt.key, rt);
  }

  private createServer(): Server {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((err) => {
        if (!res.headersSent)
          this.sendStatus(
            res,
            undefined,
            status(500, 'InternalError', `Internal error occurred: ${(err as Error).message}`),
          );
        else res.destroy();
      });
    };
    const server = this.tls
      ? createHttpsServer(
          {
            cert: readFileSync(join(TLS_DIR, 'server.crt')),
            key: readFileSync(join(TLS_DIR, 'server.key')),
            ca: readFileSync(this.caFile),
            requestCert: true,
            rejectUnauthorized: false,
          },
          handler,
        )
      : createHttpServer(handler);
    server.requestTimeout = 0;
    // Raw TCP sockets, so that connections still in their TLS handshake are dropped on close too.
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  async listen(port = this.opts.port ?? 0): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  /** Registers a user with a grant; returns its bearer token (generated when not given). */
  addUser(
    name: string,
    grant: Grant,
    token = `token-${name.replace(/[^A-Za-z0-9]/g, '-')}-${Math.random().toString(36).slice(2, 10)}`,
  ): string {
    this.users.add(name, grant, token);
    return token;
  }

  /**
   * A new token of the user `name` (added before) issued for `audiences`
   * only, as `kubectl create token <sa> --audience <a>` makes one: it does not
   * authenticate to the stand-in itself unless the API server's audience is among them.
   */
  createToken(name: string, audiences: readonly string[]): string {
    const token = `token-${name.replace(/[^A-Za-z0-9]/g, '-')}-aud-${Math.random().toString(36).slice(2, 10)}`;
    this.users.addToken(name, token, audiences);
    return token;
  }

  /** Grants rights to every certificate user whose subject has this O (system:masters is 'admin' already). */
  addGroup(group: string, grant: Grant): void {
    this.users.addGroup(group, grant);
  }

  /** Makes a token unknown (401 from now on), e.g. to test token rotation. */
  revokeToken(token: string): void {
    this.users.revokeToken(token);
  }

  /** Writes a kubeconfig (v1 Config, current-context set) for one user; returns its path. */
  writeKubeconfig(dir: string, o: KubeconfigOptions = {}): string {
    return writeKubeconfigFile(dir, `kubeconfig-${++this.kubeconfigs}.yaml`, this, o);
  }

  // ---- fault injection ----

  /** Answers the next `n` matching requests with the given error. */
  failNext(n: number, spec: FailureSpec): void {
    this.faults.failNext(n, spec);
  }

  /** Delays matching requests by `ms` (in their in-flight seat) until the returned function is called. */
  latency(ms: number, match?: RequestMatch): () => void {
    return this.faults.latency(ms, match);
  }

  /** Seats of the in-flight limit taken now, and the most taken at once since the start. */
  inFlightRequests(): { now: InFlightCounts; peak: InFlightCounts; rejected: number } {
    return {
      now: this.inFlight.inFlight(),
      peak: this.inFlight.peakInFlight(),
      rejected: this.inFlight.rejectedCount(),
    };
  }

  clearFaults(): void {
    this.faults.clear();
  }

  /** Open watch requests (optionally matching), e.g. to wait until a client is watching. */
  watches(match?: RequestMatch): RequestRecord[] {
    return [...this.openWatches].filter((w) => matchesRequest(w.request, match)).map((w) => w.request);
  }

  /** Drops matching watch connections abruptly; returns how many. */
  cutWatches(match?: RequestMatch): number {
    const victims = [...this.openWatches].filter((w) => matchesRequest(w.request, match));
    for (const w of victims) w.cut();
    return victims.length;
  }

  /** Sends a BOOKMARK now on every open watch that allows bookmarks. */
  sendBookmarks(): void {
    for (const w of this.openWatches) w.sendBookmark?.();
  }

  /** Forgets history: watches and continue tokens from before now get 410 Expired. */
  compact(o: { watchCache?: boolean } = {}): void {
    this.objects.compact(o.watchCache ?? true);
  }

  /** The current global resourceVersion. */
  get resourceVersion(): string {
    return String(this.objects.rv);
  }

  private async stopListening(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const w of [...this.openWatches]) w.cut();
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  async close(): Promise<void> {
    this.stopKueue?.();
    await this.stopListening();
  }

  /**
   * Restarts on the same port: every connection and watch is dropped and the
   * watch cache starts afresh (resuming a watch from before gets 410; etcd
   * history, hence continue tokens, survive). With
   * keepData false the store is emptied (system namespaces excepted) and
   * resourceVersions jump ahead, as after an etcd restore.
   */
  async restart(o: { keepData: boolean } = { keepData: true }): Promise<void> {
    await this.stopListening();
    if (o.keepData) this.objects.resetWatchCache();
    else {
      this.objects.wipe(RESTORE_RV_JUMP);
      this.registry.ensureSystemNamespaces();
    }
    this.server = this.createServer();
    await this.listen(this.port);
  }

  // ---- request handling ----

  /**
   * A Status body ends with a newline, except towards a request that asked for a transformed (`as=`) answer: Go's
   * encoders differ there.
   */
  private sendStatus(
    res: ServerResponse,
    record: RequestRecord | undefined,
    s: StatusError['status'],
    headers: Record<string, string> = {},
  ): void {
    const transformed = /;\s*as=/.test(String(res.req.headers.accept ?? ''));
    this.send(res, record, s.code, transformed ? JSON.stringify(s) : `${JSON.stringify(s)}\n`, headers);
  }

  /**
   * A 200 JSON body made of pieces: one piece is sent like any body; more are
   * streamed chunked, yielding between pieces (and waiting for the socket to
   * drain), so other requests (a Lease renewal) are served meanwhile.
   */
  private async sendPieces(res: ServerResponse, record: RequestRecord, pieces: Generator<string>): Promise<void> {
    const first = pieces.next();
    const second = first.done ? first : pieces.next();
    if (second.done) return this.send(res, record, 200, `${first.done ? '' : first.value}\n`);
    const acceptsGzip = /\bgzip\b/.test(String(res.req.headers['accept-encoding'] ?? ''));
    // A gzip-capable client gets the whole body at once, compressed as before.
    if (acceptsGzip) return this.send(res, record, 200, `${first.value}${second.value}${[...pieces].join('')}\n`);
    record.code = 200;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    for (const piece of [first.value, second.value]) res.write(piece);
    for (const piece of pieces) {
      if (res.destroyed) return;
      if (!res.write(piece)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.once('drain', done);
          res.once('close', done);
        });
      }
      await new Promise((r) => setImmediate(r));
    }
    res.end('\n');
  }

  private send(
    res: ServerResponse,
    record: RequestRecord | undefined,
    code: number,
    body: string,
    headers: Record<string, string> = {},
    contentType = 'application/json',
  ): void {
    if (record) record.code = code;
    const head = { 'Content-Type': contentType, ...headers };
    const acceptsGzip = /\bgzip\b/.test(String(res.req.headers['accept-encoding'] ?? ''));
    if (acceptsGzip && body.length > GZIP_THRESHOLD_BYTES) {
      gzip(body, (err, zipped) => {
        if (err) return res.destroy(err);
        res.writeHead(code, { ...head, 'Content-Encoding': 'gzip', 'Content-Length': zipped.length });
        res.end(res.req.method === 'HEAD' ? undefined : zipped);
      });
      return;
    }
    res.writeHead(code, { ...head, 'Content-Length': Buffer.byteLength(body) });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  }

  private authenticate(req: IncomingMessage): User | undefined {
    if (this.tls) {
      const socket = req.socket as TLSSocket;
      const subject = socket.authorized ? socket.getPeerCertificate()?.subject : undefined;
      const cn = subject?.CN;
      if (typeof cn === 'string' && cn) return this.users.byCertificate(cn, ([] as string[]).concat(subject?.O ?? []));
      // A certificate that does not verify fails authentication (a real server refuses the handshake).
      if (!socket.authorized && socket.getPeerCertificate()?.subject) return undefined;
    }
    const auth = req.headers.authorization;
    // No credentials, or an empty bearer token, is the anonymous user (403 on resources); only a wrong token is 401.
    if (auth === undefined || /^Bearer\s*$/.test(auth)) return ANONYMOUS;
    if (auth.startsWith('Bearer ')) return this.users.byToken(auth.slice('Bearer '.length).trim());
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    const info = requestInfo(method, url.pathname, url.searchParams);
    const record: RequestRecord = {
      time: new Date().toISOString(),
      user: '',
      verb: info.verb,
      method,
      path: url.pathname,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
      query: Object.fromEntries(url.searchParams),
      code: 0,
      userAgent: req.headers['user-agent'] ?? '',
      durationMs: 0,
    };
    this.requests.add(record);
    const arrived = performance.now();
    // The answer is complete when the handler ends it, as kube-apiserver's filters count it; 'finish'
    // and 'close' come a turn of the event loop later, which on a busy loop is many milliseconds.
    const whenAnswered = new Set<() => void>();
    const answered = () => {
      for (const f of whenAnswered) f();
      whenAnswered.clear();
    };
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<typeof end>) => {
      answered();
      return end(...args);
    }) as typeof res.end;
    res.once('close', answered);
    whenAnswered.add(() => {
      record.durationMs = performance.now() - arrived;
    });
    const user = this.authenticate(req);
    record.user = user?.name ?? '';
    try {
      // As in kube-apiserver's handler chain: authentication (the health checks and the version
      // are answered to anyone), then the in-flight limit, then the rest.
      const publicPath = PUBLIC_PATHS.has(url.pathname);
      const caller = user ?? (publicPath ? ANONYMOUS : undefined);
      if (!caller) throw unauthorized();
      const seat = this.inFlight.admit(info.verb, method, info.subresource, caller.groups);
      if (seat === 'rejected') {
        record.code = 429;
        res.writeHead(429, {
          'Content-Type': 'text/plain; charset=utf-8',
          'X-Content-Type-Options': 'nosniff',
          'Retry-After': TOO_MANY_REQUESTS_RETRY_AFTER,
        });
        res.end(TOO_MANY_REQUESTS_TEXT);
        return;
      }
      if (seat !== 'exempt') whenAnswered.add(seat.release);
      const delay = this.faults.delayFor(record);
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      if (url.pathname === '/version') return this.send(res, record, 200, JSON.stringify(VERSION_INFO));
      if (publicPath) return this.send(res, record, 200, 'ok', {}, 'text/plain; charset=utf-8');
      const injected = this.faults.take(record);
      if (injected) throw injected;
      if (!info.isResource) {
        // Discovery is for authenticated users only (system:discovery), as on a real server.
        if (caller === ANONYMOUS)
          throw new StatusError(
            status(403, 'Forbidden', `forbidden: User "${caller.name}" cannot get path "${url.pathname}"`, {}),
          );
        const types = everyVersion(this.registry.types.values());
        const doc = openApiDocument(url.pathname, types) ?? discovery(info.parts, types, `127.0.0.1:${this.port}`);
        if (doc === undefined || method !== 'GET') throw pageNotFound();
        return this.send(res, record, 200, `${JSON.stringify(doc)}\n`);
      }
      await this.serveResource(req, res, url.searchParams, info, caller, record);
    } catch (err) {
      if (err instanceof StatusError) return this.sendStatus(res, record, err.status, err.headers);
      throw err;
    }
  }

  private resolveType(info: RequestInfo): ResourceType {
    const served = this.registry.types.get(info.resource) ?? this.registry.types.get(`${info.resource}.${info.group}`);
    const rt = served && [served, ...(served.otherVersions ?? [])].find((t) => t.version === info.version);
    if (!rt || rt.group !== info.group) throw pageNotFound();
    if (info.subresource && !rt.subresources.includes(info.subresource)) throw pageNotFound();
    if (!rt.namespaced && info.namespace && info.resource !== 'namespaces') throw pageNotFound();
    if (rt.namespaced && !info.namespace && info.verb !== 'list' && info.verb !== 'watch') throw pageNotFound();
    return rt;
  }

  private async serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    q: URLSearchParams,
    info: RequestInfo,
    user: User,
    record: RequestRecord,
  ): Promise<void> {
    const fieldSel = parseFieldSelector(q.get('fieldSelector'));
    const attrs: Attributes = {
      user: user.name,
      verb: info.verb,
      group: info.group,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name || ((info.verb === 'list' || info.verb === 'watch') && fieldSel.name) || '',
    };
    if (!user.grants.some((g) => allowed(g, attrs))) throw forbidden(attrs);
    if (isAccessReview(info))
      return this.send(
        res,
        record,
        201,
        JSON.stringify(await answerAccessReview(info, async () => parseJson(await readBody(req)), this.users)),
      );
    const rt = this.resolveType(info);
    // apiextensions-apiserver warns on every request at a version its CRD marks deprecated.
    if (rt.deprecationWarning) res.setHeader('Warning', `299 - ${JSON.stringify(rt.deprecationWarning)}`);
    const ns = rt.namespaced ? info.namespace : undefined;
    const write = {
      subresource: info.subresource,
      manager: q.get('fieldManager') || managerFromUserAgent(record.userAgent),
    };
    if (info.verb === 'create' || info.verb === 'update') {
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim();
      if (type && type !== 'application/json') throw unsupportedMediaType(['application/json']);
    }
    switch (info.verb) {
      case 'get': {
        const form = negotiateForm(req.headers.accept, false, rt);
        return this.send(
          res,
          record,
          200,
          `${objectJson(this.registry.get(rt, ns, info.name), form, rt.apiVersion)}\n`,
        );
      }
      case 'list': {
        const form = negotiateForm(req.headers.accept, true, rt);
        return this.sendPieces(res, record, await listBody(this.objects, rt, info.namespace, q, form));
      }
      case 'watch':
        return this.watch(req, res, q, rt, info, record);
      case 'create': {
        if (info.name || info.subresource) throw methodNotAllowed();
        const created = this.registry.create(rt, ns, parseJson(await readBody(req)), write);
        return this.send(res, record, 201, `${objectJson(created, 'full', rt.apiVersion)}\n`);
      }
      case 'update': {
        if (!info.name) throw methodNotAllowed();
        const body = parseJson(await readBody(req));
        const existed = this.registry.exists(rt, ns, info.name);
        const updated = this.registry.update(rt, ns, info.name, body, write);
        return this.send(res, record, existed ? 200 : 201, `${objectJson(updated, 'full', rt.apiVersion)}\n`);
      }
      case 'patch': {
        if (!info.name) throw methodNotAllowed();
        const type = (req.headers['content-type'] ?? '').split(';')[0].trim();
        const patched = this.registry.patch(rt, ns, info.name, type, await readBody(req), write);
        return this.send(res, record, 200, `${objectJson(patched, 'full', rt.apiVersion)}\n`);
      }
      case 'delete': {
        if (info.subresource) throw methodNotAllowed();
        const text = await readBody(req);
        const opts = text.trim() ? (parseJson(text) as { preconditions?: DeletePreconditions }) : {};
        const deleted = this.registry.delete(rt, ns, info.name, opts.preconditions ?? {});
        return this.send(res, record, 200, `${this.deleteResponse(rt, deleted)}\n`);
      }
      case 'deletecollection': {
        const labels = parseLabelSelector(q.get('labelSelector'));
        for (const s of this.objects.list(rt.key)) {
          if ((ns === undefined || s.obj.metadata.namespace === ns) && labels(s.obj) && fieldSel.matches(s.obj)) {
            this.registry.delete(rt, s.obj.metadata.namespace, s.obj.metadata.name);
          }
        }
        return this.send(
          res,
          record,
          200,
          `${JSON.stringify({ ...status(200, '', ''), status: 'Success', message: undefined, reason: undefined })}\n`,
        );
      }
      default:
        throw methodNotAllowed();
    }
  }

  /** Built-in kinds answer a delete with a Success Status; custom resources and namespaces with the object. */
  private deleteResponse(rt: ResourceType, deleted: Stored): string {
    // Namespaces answer the object (they are finalized, not gone); everything else, CRDs included, a Success Status.
    if (rt.resource === 'namespaces') return objectJson(deleted, 'full');
    // A deletion a finalizer holds answers the object, marked with its deletionTimestamp.
    if (deleted.obj.metadata.deletionTimestamp !== undefined) return objectJson(deleted, 'full', rt.apiVersion);
    const details: Record<string, string> = {
      name: deleted.obj.metadata.name,
      kind: rt.resource,
      uid: deleted.obj.metadata.uid,
    };
    if (rt.group) details.group = rt.group;
    return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
  }

  private async watch(
    req: IncomingMessage,
    res: ServerResponse,
    q: Query,
    rt: ResourceType,
    info: RequestInfo,
    record: RequestRecord,
  ): Promise<void> {
    // A watch asked for as a PartialObjectMetadataList is served, and ends silently at its first event.
    const listAccept = /;\s*as=PartialObjectMetadataList\b/.test(String(req.headers.accept ?? ''));
    const form: Form = listAccept ? 'meta' : negotiateForm(req.headers.accept, false, rt);
    const labels = parseLabelSelector(q.get('labelSelector'));
    const fields = parseFieldSelector(info.name ? `metadata.name=${info.name}` : q.get('fieldSelector'));
    const rv = parseRv(q.get('resourceVersion'));
    validateListOptions(q, true);
    // A resourceVersion the store has not reached: the stream stays silent until it has (no 504 on a watch).
    const timeoutSeconds = Number(q.get('timeoutSeconds') ?? 0);
    const timeoutMs = timeoutSeconds > 0 ? timeoutSeconds * 1000 : this.maxWatchSeconds * 1000 * (1 + Math.random());
    const bookmarks = q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1';
    record.code = 200;
    serveWatch(
      this.objects,
      res,
      req.socket,
      {
        rt,
        namespace: info.namespace,
        matches: (o) => labels(o) && fields.matches(o),
        form,
        sinceRv: rv === undefined || rv === 0 ? undefined : rv,
        bookmarks,
        bookmarkIntervalMs: this.bookmarkIntervalMs,
        timeoutMs,
        endAtFirstEvent: listAccept,
      },
      record,
      this.openWatches,
    );
  }
}

/** Starts a stand-in on 127.0.0.1 and resolves once it listens. */
export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const s = new ApiServer(opts);
  await s.listen();
  return s;
}
