import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type NextFunction, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import typeis from 'type-is';
import { accessLog } from './access-log';
import { errors } from '../errors';
import { isStopping, type ReadinessCheck } from '../health';
import { createMetrics, httpMetrics, type Metrics, type MetricsAccess } from '../metrics';
import { operationsAnswerer, type OperationsAnswerer } from './operations';
import { buildOpenApiPart } from '../openapi/document';
import type { OpenApiDocument } from '../openapi/types';
import { problemHandler } from './problem';
import { mountRoutes, type RouteDef } from './routes';

export interface HttpAppOptions {
  logger: Logger;
  /** Dependencies `/ready` checks. */
  readiness?: ReadinessCheck[];
  /** The service's route table; also served as the service's OpenAPI part at `GET /openapi.json`. */
  routes?: RouteDef[];
  /** The service's name: the title of its OpenAPI part. */
  name?: string;
  /** Secret to verify the gateway's principal header; required with `routes`. */
  principalSecret?: string;
  bodyLimit?: string;
  /** False for an app that reads no request body (the mailer has no routes that take one). */
  parseBodies?: boolean;
  /** Where the app's series go (the one `runService` hands to `start`); default: a fresh set. */
  metrics?: Metrics;
  /** Who may read `GET /metrics`; default `'open'` (services are reachable on the internal network only). */
  metricsAccess?: MetricsAccess;
}

/** What the access log needs of a route to hide the credentials in its path. */
export type SecretRoute = Pick<RouteDef, 'path' | 'secretParams'>;

/** Health probes and scrapes: no access line for them. */
export function isOperationsRequest(req: IncomingMessage): boolean {
  return req.url === '/health' || req.url === '/ready' || req.url === '/metrics';
}

/** Paths the bootstrap answers itself, before any route table or proxy sees them. */
export const OPERATIONS_PATHS = ['/health', '/ready', '/metrics'] as const;

const BODY_TYPES = ['application/x-www-form-urlencoded', 'application/json'];

/** True when the request carries a body: a positive length or a chunked stream. */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** 415 for a body that is neither a form nor JSON. */
export function assertSupportedBody(req: IncomingMessage, _res: ServerResponse, next: NextFunction): void {
  if (!hasBody(req) || typeis(req, BODY_TYPES)) return next();
  next(
    errors.unsupportedMediaType(
      !req.headers['content-type']
        ? 'The body came without a Content-Type: send Content-Type: application/json (or application/x-www-form-urlencoded).'
        : undefined,
    ),
  );
}

/**
 * The bootstrap every service shares: request id → logger → metrics → security headers →
 * health, readiness, metrics → body parsers → route table → 404 → problem+json errors.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const metrics = options.metrics ?? createMetrics();
  const redact = urlRedactor(options.routes ?? []);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(accessLog({ logger: options.logger, redactUrl: redact, ignore: isOperationsRequest }), httpMetrics(metrics), securityHeaders());
  mountOperations(app, operationsAnswerer({ checks: options.readiness ?? [], metrics, metricsAccess: options.metricsAccess ?? 'open' }));
  if (options.parseBodies !== false) {
    const limit = options.bodyLimit ?? '100kb';
    app.use(assertSupportedBody);
    app.use(express.urlencoded({ extended: false, limit, parameterLimit: 200 }));
    app.use(express.json({ limit, strict: true }));
  }
  if (options.routes) {
    if (!options.principalSecret) throw new Error('createHttpApp: routes need principalSecret');
    mountOpenApi(app, options.routes, options.name);
    mountRoutes(app, options.routes, { principalSecret: options.principalSecret });
  }
  app.use((req, _res, next) => next(errors.routeNotFound(req.method, redact(req.path))));
  app.use(problemHandler(options.logger, redact));
  return app;
}

/**
 * helmet's headers, worked out once: with its defaults they are the same on every response, and
 * running its fourteen middlewares on each request cost ~100 µs of the gateway's ~800 µs per
 * proxied request in an A/B run (docs/benchmarks.md). helmet still decides what they are.
 */
export function securityHeaders(): RequestHandler {
  const entries = securityHeaderEntries();
  return (_req, res, next) => {
    for (const [name, value] of entries) res.setHeader(name, value);
    next();
  };
}

/** The headers securityHeaders sets, as helmet's defaults decide them: for apps that are not Express (the gateway). */
export function securityHeaderEntries(): ReadonlyArray<readonly [string, string | number | readonly string[]]> {
  const headers = new Map<string, string | number | readonly string[]>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.set(name, value),
    removeHeader: (name: string) => headers.delete(name),
  };
  let ran = false;
  helmet()({} as IncomingMessage, recorder as unknown as ServerResponse, () => (ran = true));
  if (!ran) throw new Error('helmet did not finish synchronously: its headers cannot be worked out once');
  return [...headers];
}

/**
 * `/health`, `/ready` and `/metrics` (operations.ts, the same for the gateway), every method: what
 * they refuse stops here, so nothing after (the body parsers, the route table) sees these paths.
 */
function mountOperations(app: Express, answer: OperationsAnswerer): void {
  for (const path of OPERATIONS_PATHS) {
    app.all(path, async (req, res, next) => {
      try {
        const reply = await answer({ method: req.method, path, authorization: req.headers.authorization }, isStopping(req.app));
        res.status(reply.status).set(reply.headers).type(reply.contentType).send(reply.body);
      } catch (err) {
        next(err);
      }
    });
  }
}

/** `GET /openapi.json`: the service's part, built on first request (so app creation stays cheap). */
function mountOpenApi(app: Express, routes: RouteDef[], name = 'restgate service'): void {
  let part: OpenApiDocument | undefined;
  app.get('/openapi.json', (_req, res) => {
    part ??= buildOpenApiPart(routes, { title: name });
    res.json(part);
  });
}

/**
 * The access log's view of a URL, with the secrets a URL can carry hidden by rules that path
 * tricks can't get around (`//password-resets/<t>`, `/password-resets//<t>`, `%2F`, `%252D`,
 * `\`, dot segments, other cases, full-width letters):
 * - a path that names a secret route anywhere (the literal segment before the route's first
 *   secret parameter, `password-resets` for `/password-resets/:token`), once decoded until it
 *   stops changing, NFKC-normalised and lower-cased, is shown up to that name, with
 *   `/[redacted]` for anything after it and `?[redacted]` for any query;
 * - anywhere else, a run of 32 or more base64url characters mixing cases and digits (what a
 *   random token looks like: a reset token is 43) is `[redacted]`, looked for in the URL decoded;
 * - `access_token` in the query is `[redacted]` (redactUrl).
 */
export function urlRedactor(routes: readonly SecretRoute[]): (url: string) => string {
  const names = [...new Set(routes.flatMap((route) => secretRouteName(route) ?? []))];
  return (url) => {
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const plain = readable(path).toLowerCase().replaceAll('\\', '/');
    for (const name of names) {
      const at = plain.indexOf(name);
      if (at === -1) continue;
      const rest = plain.slice(at + name.length);
      return `${hideTokenRuns(plain.slice(0, at + name.length))}${/[^/]/.test(rest) ? '/[redacted]' : rest}${q === -1 ? '' : '?[redacted]'}`;
    }
    const decoded = readable(url);
    const hidden = hideTokenRuns(decoded);
    return redactUrl(hidden === decoded ? url : hidden);
  };
}

/** The literal segment just before a route's first secret parameter, lower-cased. */
function secretRouteName(route: SecretRoute): string | undefined {
  const segments = route.path.split('/');
  const secret = segments.findIndex((segment) => segment.startsWith(':') && route.secretParams?.includes(segment.slice(1)));
  const name = segments[secret - 1];
  return secret > 0 && name && !name.startsWith(':') ? name.toLowerCase() : undefined;
}

/** Runs of base64url characters long enough to be a random secret (linear to scan: no lookarounds). */
const LONG_RUNS = /[A-Za-z0-9_-]{32,}/g;

/** A run that looks like a random secret: mixing lower case, upper case, and digits or `-`/`_`. */
const looksRandom = (run: string): boolean => /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9_-]/.test(run);

function hideTokenRuns(text: string): string {
  return text.replace(LONG_RUNS, (run) => (looksRandom(run) ? '[redacted]' : run));
}

/** `text` as a reader may take it: %-escapes decoded until nothing changes (a few rounds), NFKC. */
function readable(text: string): string {
  let current = text;
  for (let round = 0; round < 4 && current.includes('%'); round++) {
    const next = decodeLoosely(current);
    if (next === current) break;
    current = next;
  }
  // Only text beyond printable ASCII can change (full-width letters become ASCII).
  return /[^ -~]/.test(current) ? current.normalize('NFKC') : current;
}

/** decodeURIComponent, or byte by byte when a malformed escape makes it throw. */
function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** Hides credentials that travel in the query string. */
export function redactUrl(url: string): string {
  // Names are compared decoded: `access%5Ftoken` is the same parameter to the gateway.
  return url.replace(/([?&])([^=&]*)=([^&]*)/g, (pair, sep: string, name: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // a malformed escape is not access_token; keep the pair as it is
    }
    return decoded.toLowerCase() === 'access_token' ? `${sep}${name}=[redacted]` : pair;
  });
}
