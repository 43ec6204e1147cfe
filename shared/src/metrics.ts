import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';

export type { Counter, Gauge, Histogram } from 'prom-client';

/** A series' definition: prom-client's, without `registers` (the series goes to its app's registry). */
export type CounterOptions<L extends string> = Omit<CounterConfiguration<L>, 'registers'>;
export type GaugeOptions<L extends string> = Omit<GaugeConfiguration<L>, 'registers'>;
export type HistogramOptions<L extends string> = Omit<HistogramConfiguration<L>, 'registers'>;

/**
 * One app's Prometheus series. Services add their own through `counter`, `gauge` and `histogram`
 * (the outbox backlog, mails sent…); the HTTP series and the Node process series come with it.
 */
export interface Metrics {
  /** The app's own registry (never prom-client's global one, so a test can build many apps). */
  readonly registry: Registry;
  /** Registers a counter; a name registered twice on one app throws. */
  counter<L extends string = string>(options: CounterOptions<L>): Counter<L>;
  /** Registers a gauge. Give it `collect` to compute the value at scrape time (it may be async). */
  gauge<L extends string = string>(options: GaugeOptions<L>): Gauge<L>;
  /** Registers a histogram (seconds, by convention: name it `…_seconds`). */
  histogram<L extends string = string>(options: HistogramOptions<L>): Histogram<L>;
  /** The text exposition: the process series (event-loop lag, memory, CPU…), then the app's. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Label of requests no route matched (unknown paths): raw URLs would make the series unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

// Node's own series (event-loop lag, GC, heap, CPU, handles) describe the process, not an app:
// one set per process, collected once, and rendered with every app's series. Created on first use,
// so importing this module starts nothing.
let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A fresh set of series for one app, with the Node process series included in `render()`. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  const processSeries = processMetrics();
  return {
    registry,
    counter: (options) => new Counter({ ...options, registers: [registry] }),
    gauge: (options) => new Gauge({ ...options, registers: [registry] }),
    histogram: (options) => new Histogram({ ...options, registers: [registry] }),
    render: async () => `${await processSeries.metrics()}\n${await registry.metrics()}`,
    contentType: registry.contentType,
  };
}

/** Route patterns set by code that routes without Express (the gateway's policy table). */
const routeLabels = new WeakMap<IncomingMessage, string>();

/**
 * Names the route pattern of `req` for the HTTP series (e.g. `/articles/:id`), for requests that
 * an Express route does not handle. Express routes are labelled by themselves.
 */
export function labelRoute(req: IncomingMessage, pattern: string): void {
  routeLabels.set(req, pattern);
}

function routeOf(req: IncomingMessage & { route?: unknown; baseUrl?: string }): string {
  const explicit = routeLabels.get(req);
  if (explicit) return explicit;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : UNMATCHED_ROUTE;
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, by method, route pattern and status.
 * A request the client abandons before the answer is counted with status 499 (nginx's "client
 * closed request"), so aborted requests stay visible.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  const observe = httpObserver(metrics);
  return (req: Request, res: Response, next: NextFunction) => {
    observe(req, res);
    next();
  };
}

/** httpMetrics' work on node:http objects, for an app that is not Express (the gateway). */
export function httpObserver(metrics: Metrics): (req: IncomingMessage, res: ServerResponse) => void {
  const labelNames = ['method', 'route', 'status'] as const;
  const duration = metrics.histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of the answer, by method, route pattern and status.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  // The histogram's own count, under the name dashboards look for: copied at scrape time, so a
  // request pays for one series update instead of two.
  metrics.counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames,
    async collect() {
      const counts = (await duration.get()).values.filter((v) => v.metricName === 'http_request_duration_seconds_count');
      this.reset();
      for (const { labels, value } of counts) this.inc(labels, value);
    },
  });
  return (req, res) => {
    const started = process.hrtime.bigint();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const labels = { method: req.method ?? 'GET', route: routeOf(req), status: String(res.writableFinished ? res.statusCode : 499) };
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    };
    res.once('finish', record);
    res.once('close', record);
  };
}

/**
 * Who may read `GET /metrics`: anyone (`'open'`: a service on the internal network), only a caller
 * with `Authorization: Bearer <token>` (`{ bearer }`), or nobody (`'closed'`). A caller who may
 * not gets the same 404 as for an unknown path, so the endpoint's existence is not disclosed.
 */
export type MetricsAccess = 'open' | 'closed' | { bearer: string };

/** True when the request may read the metrics under `access` (the token compared in constant time). */
export function mayReadMetrics(access: MetricsAccess, authorization: string | undefined): boolean {
  if (access === 'open') return true;
  if (access === 'closed' || !access.bearer) return false;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(access.bearer);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
