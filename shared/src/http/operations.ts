import { errors } from '../errors';
import { readiness, type ReadinessCheck } from '../health';
import { mayReadMetrics, type Metrics, type MetricsAccess } from '../metrics';

/** What an operations path answers, for any HTTP stack to write as it writes answers. */
export interface OperationsAnswer {
  status: number;
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `/health`, `/ready` and `/metrics`, written once for the services' Express apps and the gateway's
 * fastify: `/health` says the process is alive; `/ready` runs the checks (503 `unready`, or
 * `stopping` once a graceful stop began); `/metrics` is the Prometheus text for callers `access`
 * lets in and the 404 of an unknown path for anyone else. GET and HEAD only: another method is
 * 405 (on `/metrics`, only for whoever may read it). Throws the refusals as AppErrors.
 */
export function operationsAnswerer(options: { checks: readonly ReadinessCheck[]; metrics: Metrics; metricsAccess: MetricsAccess }) {
  const { checks, metrics, metricsAccess } = options;
  let beenReady = false;
  return async (
    request: { method: string; path: '/health' | '/ready' | '/metrics'; authorization?: string },
    stopping: boolean,
  ): Promise<OperationsAnswer> => {
    const { method, path } = request;
    if (path === '/metrics' && !mayReadMetrics(metricsAccess, request.authorization)) throw errors.routeNotFound(method, path);
    if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed(method, ['GET', 'HEAD']);
    if (path === '/health') return { status: 200, contentType: JSON_TYPE, body: '{"status":"ok"}', headers: {} };
    if (path === '/ready') {
      const { ready, body } = await readiness(beenReady ? checks.filter((c) => !c.untilFirstReady) : checks, stopping);
      beenReady ||= ready;
      return { status: ready ? 200 : 503, contentType: JSON_TYPE, body: JSON.stringify(body), headers: {} };
    }
    return { status: 200, contentType: metrics.contentType, body: await metrics.render(), headers: { 'Cache-Control': 'no-store' } };
  };
}

export type OperationsAnswerer = ReturnType<typeof operationsAnswerer>;
