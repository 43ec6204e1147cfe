import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import fastifyCors from '@fastify/cors';
import fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import proxyaddr from 'proxy-addr';
import { AppError, createMetrics, errors, type Logger, type Metrics, type ReadinessCheck } from '@restgate/shared';
import {
  errorExplainer,
  httpObserver,
  isOperationsRequest,
  isStopping,
  onStopping,
  OPERATIONS_PATHS,
  operationsAnswerer,
  PROBLEM_CONTENT_TYPE,
  requestIdOf,
  requestTracker,
  securityHeaderEntries,
  toProblem,
  urlRedactor,
} from '@restgate/shared/http';
import { createRateLimits, type RedisHandle, type RevocationList } from '@restgate/shared/limits';
import { createAuthenticator, masterKeyCheck } from './authenticate';
import type { GatewayConfig } from './config';
import { corsFor, explainPreflight } from './cors';
import { mountDocs } from './docs';
import { parseMfaRequiredRoles } from './mfa-policy';
import { createPolicyLookup, effectivePolicy, unknownOverrides, type PolicyRow } from './policy';
import { createUpstreamProxies, upstreamReadiness, type UpstreamAgents, type UpstreamUrls } from './proxy';
import { createGatewayLimits } from './rate-limit';
import { NO_CONTENT_TYPE, readBody } from './request-body';
import { createRequestPath, splitUrl } from './request-path';
import { addRealtimeToDocument, mountRealtime, realtimeRefusal, type Realtime } from './realtime';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  /** The policy table at the services' default levels (policyRowsFrom their route specs). */
  routes: readonly PolicyRow[];
  /** The base URL of every upstream the rows name (upstreamUrls). */
  upstreams: UpstreamUrls;
  /** Keep-alive pools per upstream (createAgents); the caller destroys them on stop. */
  agents: UpstreamAgents;
  /** The rate-limit store; without it the gateway applies no per-address ceilings. */
  redis?: RedisHandle;
  /** Ended sessions (createRevocationList on `redis`); without it, tokens of ended sessions are not refused. */
  revocations?: RevocationList;
  /** Event streams (createRealtime); without it there is no /realtime. */
  realtime?: Realtime;
  metrics?: Metrics;
}

/**
 * The gateway as a node:http request listener (what `listen`, `http.createServer` and supertest
 * take). Requests that arrive while its routes are still being set up wait for them.
 */
export type GatewayApp = RequestListener;

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The gateway, on fastify: request id, access log, HTTP series and security headers for every
 * request; `/health`, `/ready`, `/metrics`; the docs; CORS; and every path of the policy table
 * served by `serveRoute` below, the request path in one place. Anything else is the table's 404
 * or 405, as problem+json.
 */
export function createApp({
  config,
  logger,
  routes,
  upstreams,
  agents,
  redis,
  revocations,
  realtime,
  metrics = createMetrics(),
}: GatewayDeps): GatewayApp {
  const unrouted = [...new Set(routes.map((row) => row.upstream))].filter((name) => !upstreams[name]);
  if (unrouted.length > 0) throw new Error(`routes name upstreams without a URL: ${unrouted.join(', ')}`);
  const table = effectivePolicy(config.ROUTE_POLICY, routes);
  for (const key of unknownOverrides(config.ROUTE_POLICY, routes)) {
    logger.warn({ route: key }, `ROUTE_POLICY names a route the gateway does not know: ${key}`);
  }
  const policy = createPolicyLookup(table);
  const authenticate = createAuthenticator({
    masterKey: config.MASTER_KEY,
    jwtSecret: config.JWT_SECRET,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    maxLifetimeSeconds: config.JWT_TTL_SECONDS,
    revocations,
  });
  const isMasterKey = masterKeyCheck(config.MASTER_KEY);
  const mfaRequiredRoles = parseMfaRequiredRoles(config.MFA_REQUIRED_ROLES);
  const limits = redis
    ? createGatewayLimits(
        createRateLimits({ redis: redis.client, logger, metrics, keyPrefix: `${config.REDIS_KEY_PREFIX}:gateway` }),
        config,
      )
    : undefined;
  const trust = trustedProxies(config.TRUSTED_PROXIES);
  // With no proxy trusted, proxy-addr's answer is the socket's address: X-Forwarded-For is not read.
  const clientAddress = trust
    ? (req: IncomingMessage) => proxyaddr(req, trust)
    : (req: IncomingMessage) => req.socket.remoteAddress as string;
  // The services' own secret path parameters (a reset token in the path), hidden here as there.
  const redact = urlRedactor(table.flatMap((row) => (row.spec ? [row.spec] : [])));
  const checks: ReadinessCheck[] = [
    ...upstreamReadiness(upstreams),
    ...(redis ? [redis.readiness] : []),
    // Not ready until the ended sessions are known: until then user tokens get 503 here.
    ...(revocations ? [{ name: 'revocations', check: async () => assertLoaded(revocations) }] : []),
  ];
  const metricsAccess = config.METRICS_TOKEN ? { bearer: config.METRICS_TOKEN } : 'closed';

  const requestPath = createRequestPath({
    policy,
    limits,
    clientAddress,
    isMasterKey,
    authenticate,
    mfaRequiredRoles,
    bodyOf: readBody(config.BODY_LIMIT),
    proxies: createUpstreamProxies(upstreams, agents),
    principalSecret: config.PRINCIPAL_SECRET,
  });

  const refusal = (req: IncomingMessage) => {
    const { path } = splitUrl(req.url ?? '/');
    return (realtime && realtimeRefusal(req.method ?? 'GET', path)) || policy.refusal(req.method ?? 'GET', path);
  };
  const app = gatewayFastify({ logger, redact, metrics, refusal });

  // `/health`, `/ready`, `/metrics` as every service answers them (shared's operations.ts), every
  // method: nothing after (the policy table) sees these paths. The only public port: its metrics
  // only for the scraper holding the token, a 404 for anyone else.
  const operations = operationsAnswerer({ checks, metrics, metricsAccess });
  for (const path of OPERATIONS_PATHS) {
    app.route({
      method: [...ALL_METHODS],
      url: path,
      handler: async (request, reply) => {
        // shared's listen marks the listener it was given (this app) when a graceful stop begins.
        const answer = await operations(
          { method: request.method, path, authorization: request.headers.authorization },
          isStopping(gateway),
        );
        return reply.code(answer.status).headers(answer.headers).type(answer.contentType).send(answer.body);
      },
    });
  }
  mountDocs(app, {
    upstreams,
    policy: table,
    logger,
    timeoutMs: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
    extend: realtime ? (doc) => addRealtimeToDocument(doc, [...realtime.resources.keys()]) : undefined,
  });
  if (realtime) {
    mountRealtime(
      app,
      {
        hub: realtime.hub,
        resources: realtime.resources,
        limits: realtime.limits,
        tickets: realtime.tickets,
        authenticate,
        mfaRequiredRoles,
        clientAddress,
        bodyOf: readBody(config.BODY_LIMIT),
        revocations,
        app: () => gateway,
      },
      realtime.settings,
    );
  }

  const cors = corsFor(config.CORS_ORIGINS);
  if (cors) void app.register(fastifyCors, cors);
  // The request path (request-path.ts) runs as the request arrives, after CORS has set its
  // headers (plugins load in the order they are registered): a table route is answered there.
  void app.register(rootHook('onRequest', requestPath));
  // What is left: the table's 404 or 405 (with CORS on, its plugin answers preflights first).
  const refuse = async (request: FastifyRequest) => {
    throw explainPreflight(request.raw, refusal(request.raw));
  };
  app.route({ method: ALL_METHODS.filter((m) => !cors || m !== 'OPTIONS'), url: '*', handler: refuse });
  app.setNotFoundHandler(refuse);

  const gateway = asListener(app, logger);
  // A stopping replica ends its streams at once, with `reconnect`: clients move to another first.
  if (realtime) onStopping(gateway, () => realtime.hub.drain());
  return gateway;
}

/**
 * fastify's own refusals in the catalogue's terms. It refuses a body whose Content-Type it cannot
 * parse as a media type (an empty one included) before the handler runs: the same 415 the
 * gateway's body reader gives.
 */
function fromFastify(err: unknown, req: IncomingMessage, refusal: (req: IncomingMessage) => AppError): unknown {
  const { code, statusCode } = (err ?? {}) as { code?: unknown; statusCode?: unknown };
  // fastify refuses a QUERY without a Content-Type (400) before routing it; the gateway serves no
  // QUERY route, so it is the refusal of any method the table does not list.
  if (code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE') return refusal(req);
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return errors.unsupportedMediaType(req.headers['content-type'] ? undefined : NO_CONTENT_TYPE);
  }
  if (typeof code === 'string' && code.startsWith('FST_') && typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return errors.badRequest(statusCode, err);
  }
  return err;
}

/**
 * fastify with what every answer of the gateway gets, in this order, as a request arrives: its
 * request id, access line, HTTP series and security headers; anything thrown answered as problem+json.
 * The gateway reads request bodies itself, raw, on the table's routes only: fastify parses none.
 */
export function gatewayFastify(options: {
  logger: Logger;
  /** How the access log and a 404 may show a URL (the secrets in it hidden). */
  redact: (url: string) => string;
  metrics: Metrics;
  /** The refusal of a request no route serves (the table's 404 or 405); default: the 404. */
  refusal?: (req: IncomingMessage) => AppError;
}): FastifyInstance {
  const { logger, redact, metrics } = options;
  const refusal =
    options.refusal ?? ((req: IncomingMessage) => errors.routeNotFound(req.method ?? 'GET', redact(splitUrl(req.url ?? '/').path)));
  const explain = errorExplainer(logger, redact);
  const track = requestTracker({ logger, redactUrl: redact, ignore: isOperationsRequest });
  const observe = httpObserver(metrics);
  const securityHeaders = securityHeaderEntries();
  const app = fastify({
    // The shared access log writes the request lines; fastify's own logger and ids stay off.
    logger: false,
    requestIdHeader: false,
    genReqId: () => '',
    exposeHeadRoutes: false,
    return503OnClosing: false,
    routerOptions: {
      // The request line as the client sent it is what the policy table and the signatures see.
      ignoreTrailingSlash: false,
      ignoreDuplicateSlashes: false,
      // The gateway reads no query itself but `access_token`, from the raw URL.
      querystringParser: () => ({}),
    },
    // A malformed %-escape or an over-long parameter: the 404 of an unknown path, as problem+json.
    // It comes before any hook has run: the request gets its id, access line and headers here.
    frameworkErrors: (_err, request, reply) => {
      prelude(request.raw, reply.raw);
      answer(errors.routeNotFound(request.raw.method ?? 'GET', redact(splitUrl(request.raw.url ?? '/').path)), request, reply);
    },
  });

  /** What every request gets first: its id, access line, HTTP series and security headers. */
  function prelude(req: IncomingMessage, res: ServerResponse): void {
    track(req, res);
    observe(req, res);
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
  }

  /** Answers `err` as problem+json; a failure after the answer began cuts the connection. */
  function answer(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const appError = explain(fromFastify(err, request.raw, refusal), request.raw);
    if (reply.raw.headersSent) {
      reply.raw.destroy();
      return;
    }
    void reply
      .code(appError.status)
      .headers(appError.headers)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(toProblem(appError, requestIdOf(request.raw))));
  }

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  app.setErrorHandler((err, request, reply) => answer(err, request, reply));
  app.addHook('onRequest', (request, reply, done) => {
    prelude(request.raw, reply.raw);
    done();
  });
  return app;
}

/**
 * `app` as a node:http request listener, through fastify's own `routing`: the server is shared's
 * `listen` (or a test's), fastify only routes. Requests that arrive while its plugins load wait.
 */
export function asListener(app: FastifyInstance, logger: Logger): GatewayApp {
  const ready = app.ready();
  let isReady = false;
  ready.then(
    () => (isReady = true),
    (err: unknown) => logger.fatal({ err }, 'the gateway could not set up its routes'),
  );
  return (req, res) => {
    if (isReady) return app.routing(req, res);
    ready.then(
      () => app.routing(req, res),
      () => res.destroy(),
    );
  };
}

/** TRUSTED_PROXIES compiled as Express would compile it for `trust proxy`; undefined when empty (none trusted). */
function trustedProxies(spec: string): ((address: string, hop: number) => boolean) | undefined {
  const list = spec
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return list.length > 0 ? proxyaddr.compile(list) : undefined;
}

function assertLoaded(revocations: RevocationList): void {
  if (!revocations.loaded()) throw new Error('the list of ended sessions has not been read yet');
}

/**
 * A hook on the root instance, added when the plugins load: after those registered before it (CORS),
 * where a hook added directly would run before them. (fastify-plugin's skip-override, by hand.)
 */
function rootHook(
  name: 'onRequest',
  hook: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): FastifyPluginAsync & { [key: symbol]: boolean } {
  const plugin = async (instance: FastifyInstance) => {
    instance.addHook(name, hook);
  };
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}
