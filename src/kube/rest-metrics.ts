// client-go's REST client metrics (k8s.io/component-base/metrics/prometheus/restclient)
// on a prom-client registry, with the same family and label names so existing
// dashboards work: requests by code/host/method, latency and rate-limiter wait by host/verb.

import { Counter, Histogram, type Registry } from 'prom-client';
import type { RestMetrics } from './rest.ts';

/** client-go's latency buckets (seconds). */
const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

export function createRestMetrics(registry: Registry): RestMetrics {
  const requests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'host', 'method'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency in seconds. Broken down by verb, and host.',
    labelNames: ['host', 'verb'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const limiter = new Histogram({
    name: 'rest_client_rate_limiter_duration_seconds',
    help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
    labelNames: ['host', 'verb'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const retries = new Counter({
    name: 'rest_client_request_retries_total',
    help: 'Number of request retries, partitioned by status code, verb, and host.',
    labelNames: ['code', 'host', 'verb'],
    registers: [registry],
  });
  return {
    requestDone(host, method, code, ms) {
      requests.inc({ code, host, method });
      duration.observe({ host, verb: method }, ms / 1000);
    },
    rateLimiterWaited(host, method, ms) {
      limiter.observe({ host, verb: method }, ms / 1000);
    },
    retried(host, method, code) {
      retries.inc({ code, host, verb: method });
    },
  };
}
