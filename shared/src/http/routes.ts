import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type Joi from 'joi';
import type { Logger } from 'pino';
import { requestIdOf, requestLog } from './access-log';
import { errors, type CatalogueEntry, type FieldError } from '../errors';
import { CLIENT_ADDRESS_HEADER, verifyClientAddress } from './client-address';
import { noneMatchHits } from './conditional';
import { ANONYMOUS, PRINCIPAL_HEADER, verifyPrincipal, type Principal } from '../principal';
import { runInRequest } from '../request-context';

/**
 * Who may call a route.
 * - `public`: anyone; `master`: the master key; `user`: any user token; `admin`: an admin token;
 * - `basic`: HTTP Basic of the user concerned (checked by the service);
 * - `master+basic`: the master key and HTTP Basic (sign-in);
 * - `user+basic`: the user's own token (as `access_token`) and their HTTP Basic (a password change);
 * - `provider`: public, and the credential is a third-party token passed through to the service.
 */
export type AccessLevel = 'public' | 'master' | 'user' | 'admin' | 'basic' | 'master+basic' | 'user+basic' | 'provider';
export const ACCESS_LEVELS: readonly AccessLevel[] = [
  'public',
  'master',
  'user',
  'admin',
  'basic',
  'master+basic',
  'user+basic',
  'provider',
];

/** The levels whose `Authorization` header carries HTTP Basic, for the service to check. */
export function takesBasic(level: AccessLevel): boolean {
  return level === 'basic' || level === 'master+basic' || level === 'user+basic';
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a handler gets: validated input and who is calling. Never `req`. */
export interface RouteInput<B = Record<string, unknown>, Q = Record<string, unknown>, P = Record<string, string>> {
  body: B;
  query: Q;
  params: P;
  principal: Principal;
  requestId: string;
  headers: IncomingHttpHeaders;
  /** The path and query as the client sent them (for `Link` headers). */
  url: string;
  log: Logger;
  /** The client's address: the gateway's signed one, else the socket's. Per-address limits key on it. */
  clientAddress: string;
  /** Aborts when the client goes away before its answer: costly work (hashing) is then skipped. */
  signal: AbortSignal;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  /** An HTML page to answer instead of a JSON body (a page for people, such as the reset form). */
  html?: string;
  /** A body streamed as it is produced (an export), of `headers['Content-Type']`. */
  stream?: Readable;
  headers?: Record<string, string>;
}

/**
 * One answer of a route, for the API docs. An error answer lists the catalogue entries it can be
 * (`errors`): the docs describe each code with its catalogue text, after `description` when the
 * route has more to say about them.
 */
export type ResponseDoc = {
  schema?: Joi.Schema;
  /** The route also answers this status as an HTML page (`text/html`). */
  html?: boolean;
  /** The route answers this status as NDJSON (`application/x-ndjson`: one JSON object per line), streamed. */
  ndjson?: boolean;
} & ({ description: string; errors?: readonly CatalogueEntry[] } | { description?: string; errors: readonly CatalogueEntry[] });

/** One row of a service's route table. The same row drives validation, access and the API docs. */
export interface RouteDef<B = any, Q = any, P = any> {
  method: HttpMethod;
  path: string;
  level: AccessLevel;
  summary: string;
  /** Longer text for the API docs (markdown), under the summary. */
  description?: string;
  tags?: string[];
  schemas?: { body?: Joi.ObjectSchema<B>; query?: Joi.ObjectSchema<Q>; params?: Joi.ObjectSchema<P> };
  responses?: Record<number, ResponseDoc>;
  /** Path parameters that are credentials (a reset token): access logs show `[redacted]` in their place. */
  secretParams?: string[];
  /**
   * Every answer of the route (errors too) says `Cache-Control: no-store`: it carries tokens (a
   * sign-in) or a secret (a webhook's signing secret), or answers for a token in its URL (a
   * mailed link), and no cache may keep it.
   */
  noStore?: boolean;
  /** The resource's rule for this route (docs/api.md, "Rules"): the API docs show it, as `x-restgate-rule` and in the description. */
  rule?: string;
  handler: (input: RouteInput<B, Q, P>) => Promise<RouteResult>;
}

/** Keeps the handler's input types tied to the row's schemas. */
export function defineRoute<B = Record<string, unknown>, Q = Record<string, unknown>, P = Record<string, string>>(
  route: RouteDef<B, Q, P>,
): RouteDef<B, Q, P> {
  return route;
}

/**
 * What a route is, apart from what it does: method, path, level, schemas and docs. A service
 * declares its routes once, as specs in `src/api.ts`; the service binds handlers to them, and the
 * gateway reads the same specs (at start, through the service registry) for its policy table.
 */
export type RouteSpec<B = any, Q = any, P = any> = Omit<RouteDef<B, Q, P>, 'handler'>;

/** A service's routes, by operation name. `src/api.ts` exports one as `api`. */
export type ServiceApi = Readonly<Record<string, RouteSpec>>;

/** The names of the parameters in a route path: `'/users/:id/sessions'` → `'id'`. */
type PathParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParamNames<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : never;

/**
 * The path parameters of a route path, each a string: `'/users/:id/sessions'` → `{ id: string }`.
 * A path known only as `string` may name any.
 */
export type PathParams<Path extends string> = string extends Path ? Record<string, string> : { [Name in PathParamNames<Path>]: string };

/**
 * Keeps a spec's input types for the handler that `bindRoutes` attaches: the path parameters from
 * the path string, the body and query from their schemas (`Joi.object<T>(…)`), so a spec needs no
 * type arguments. Freezes the spec: a route is declared once, and the service, the gateway and the
 * docs all read that one declaration, so nothing may change it in place (ROUTE_POLICY overrides
 * make copies).
 */
export function defineSpec<const Path extends string, B = Record<string, unknown>, Q = Record<string, unknown>>(
  spec: RouteSpec<B, Q, NoInfer<PathParams<Path>>> & { path: Path },
): Readonly<RouteSpec<B, Q, PathParams<Path>>> {
  return deepFreeze(spec);
}

/**
 * Freezes plain objects and arrays all the way down. Other objects, joi schemas above all, stay as
 * they are: joi keeps caches inside its schemas, and a schema is immutable through its own API.
 */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}

/** One handler per operation of `A`, typed by that operation's schemas. */
export type ApiHandlers<A extends ServiceApi> = {
  [K in keyof A]: A[K] extends RouteSpec<infer B, infer Q, infer P> ? RouteDef<B, Q, P>['handler'] : never;
};

/** The route table: each spec of `api` with its handler, in the order of `api`. */
export function bindRoutes<A extends ServiceApi>(api: A, handlers: ApiHandlers<A>): RouteDef[] {
  return Object.keys(api).map((name) => ({ ...api[name]!, handler: handlers[name] as RouteDef['handler'] }));
}

export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/**
 * Parses `ROUTE_POLICY` ("POST /users=public;GET /users=user") into a map of overrides.
 * Throws on a malformed entry or an unknown level, so a typo fails the start.
 */
export function parsePolicyOverrides(spec: string): Map<string, AccessLevel> {
  const overrides = new Map<string, AccessLevel>();
  for (const entry of spec
    .split(/[;\n]/)
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)\s*=\s*(\S+)$/i.exec(entry);
    const level = match?.[3] as AccessLevel | undefined;
    if (!match || !level || !ACCESS_LEVELS.includes(level)) {
      throw new Error(`ROUTE_POLICY: cannot read "${entry}" (expected "METHOD /path=level", level one of ${ACCESS_LEVELS.join(', ')})`);
    }
    overrides.set(routeKey(match[1]!, match[2]!), level);
  }
  return overrides;
}

/** Returns the routes with the operator's overrides applied. */
export function applyPolicy<R extends { method: string; path: string; level: AccessLevel }>(routes: R[], spec: string): R[] {
  const overrides = parsePolicyOverrides(spec);
  return routes.map((route) => {
    const level = overrides.get(routeKey(route.method, route.path));
    return level ? { ...route, level } : route;
  });
}

/** Throws 401 or 403 unless `principal` passes `level`. Basic credentials are the service's own check. */
export function assertAccess(level: AccessLevel, principal: Principal): void {
  const need = (kind: 'master' | 'user', role?: 'admin') => {
    if (principal.kind === 'anonymous') {
      const wanted = kind === 'master' ? 'the master key' : role ? "an admin's user token" : 'a user token (from POST /auth)';
      throw errors.unauthorized(`This route needs ${wanted}: send it as access_token or in Authorization: Bearer.`, false);
    }
    if (principal.kind !== kind || (role && principal.kind === 'user' && principal.role !== role)) {
      throw errors.forbidden(
        kind === 'master' ? 'This route needs the master key.' : role ? 'This route needs an admin.' : 'This route needs a user token.',
      );
    }
  };
  switch (level) {
    case 'master':
    case 'master+basic':
      return need('master');
    case 'user':
    case 'user+basic':
      return need('user');
    case 'admin':
      return need('user', 'admin');
    default:
      return;
  }
}

/** The path to the first string (within `value`) that holds U+0000, if any. */
function pathOfNul(value: unknown, at: string[] = []): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (typeof value !== 'object' || value === null || value instanceof Date) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = pathOfNul(child, Array.isArray(value) ? at : [...at, key]);
    if (found) return found;
  }
  return undefined;
}

const namedKeysBySchema = new WeakMap<Joi.ObjectSchema, string[]>();

/** The keys an object schema names, read from its description once per schema (`describe()` is costly per request). */
function namedKeys(schema: Joi.ObjectSchema): string[] {
  let keys = namedKeysBySchema.get(schema);
  if (!keys) {
    keys = Object.keys((schema.describe() as { keys?: Record<string, unknown> }).keys ?? {});
    namedKeysBySchema.set(schema, keys);
  }
  return keys;
}

/** Runs a joi schema the way every edge does: all failures, conversion, unknown keys dropped. */
export function validateInput<T>(schema: Joi.ObjectSchema<T>, value: unknown, location: string): T {
  const { value: valid, error } = schema.validate(value ?? {}, {
    abortEarly: false,
    convert: true,
    stripUnknown: true,
    errors: { wrap: { label: false } },
  });
  if (!error) {
    // Never meaningful in a field, cut short by bcrypt, and not storable by every MongoDB-compatible database.
    // Only the keys the schema names: an object that lets unknown keys through keeps them unread.
    // A key the schema moves elsewhere (a listing's filters) is read as sent.
    const nul = namedKeys(schema)
      .map((key) => pathOfNul((valid as Record<string, unknown>)?.[key] ?? (value as Record<string, unknown> | undefined)?.[key], [key]))
      .find(Boolean);
    if (nul)
      throw errors.validation([
        {
          param: nul.join('.') || location,
          message: `${nul.join('.') || location} must not contain the NUL character`,
          rule: 'string.nul',
        },
      ]);
    return valid;
  }
  const fieldErrors: FieldError[] = error.details.map((d) => {
    const param = d.path.length ? d.path.join('.') : location;
    // `limit=2&limit=3` arrives as an array: say that, rather than "limit must be a number".
    const given = d.path.length === 1 ? (value as Record<string, unknown> | undefined)?.[d.path[0]!] : undefined;
    if (location === 'query' && Array.isArray(given) && d.type.endsWith('.base')) {
      return { param, message: `${param} was given ${given.length} times; send it once`, rule: 'query.repeated' };
    }
    return { param, message: d.message, rule: d.type };
  });
  throw errors.validation(fieldErrors);
}

export interface MountOptions {
  principalSecret: string;
}

/**
 * Mounts a route table: for each row, principal → access → validation → handler → response.
 * Paths that exist with other methods answer 405 with `Allow`.
 */
export function mountRoutes(app: Express, routes: RouteDef[], options: MountOptions): void {
  const router = express.Router();
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method.toUpperCase()]);
    // Described now, at bind time, so that no request pays for it.
    for (const schema of Object.values(route.schemas ?? {})) if (schema) namedKeys(schema);
    router[route.method](route.path, async (req: Request, res: Response, next: NextFunction) => {
      // Before anything can fail, so that the error answers carry it too.
      if (route.noStore) res.set('Cache-Control', 'no-store');
      try {
        const principal = readPrincipal(req, options.principalSecret);
        assertAccess(route.level, principal);
        let address: string | undefined;
        let signal: AbortSignal | undefined;
        const input: RouteInput = {
          params: route.schemas?.params
            ? validateInput(route.schemas.params, req.params, 'params')
            : (req.params as Record<string, string>),
          query: route.schemas?.query ? validateInput(route.schemas.query, req.query, 'query') : {},
          body: route.schemas?.body ? validateInput(route.schemas.body, req.body, 'body') : {},
          principal,
          requestId: requestIdOf(req),
          headers: req.headers,
          url: req.originalUrl,
          // Made on first use, like the two below: most requests write nothing but their
          // completion line, and only the password checks read the address or the signal.
          get log() {
            return requestLog(req);
          },
          get clientAddress() {
            address ??= clientAddressOf(req, options.principalSecret);
            return address;
          },
          get signal() {
            signal ??= abortOnClose(res);
            return signal;
          },
        };
        // The request's context for what the handler writes: its change and audit events name the
        // request, the actor and where the request came from.
        const context = {
          requestId: input.requestId,
          principal,
          get clientAddress() {
            return input.clientAddress;
          },
          userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : undefined,
        };
        const result = await runInRequest(context, () => route.handler(input));
        const etag = result.headers?.ETag;
        if (
          (req.method === 'GET' || req.method === 'HEAD') &&
          result.status === 200 &&
          etag &&
          noneMatchHits(req.headers['if-none-match'], etag)
        ) {
          res.status(304).set(result.headers).end();
          return;
        }
        res.status(result.status).set(result.headers ?? {});
        if (result.stream) {
          // Headers are gone once the first line is: a failure later ends the stream short, logged.
          await pipeline(result.stream, res).catch((err: Error) =>
            requestLog(req).warn({ err: err.message }, 'a streamed answer ended early'),
          );
        } else if (result.html !== undefined) res.type('html').send(result.html);
        else if (result.body === undefined) res.end();
        else res.json(result.body);
      } catch (err) {
        next(err);
      }
    });
  }
  for (const [path, methods] of methodsByPath) {
    const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    router.all(path, (req, _res, next) => next(errors.methodNotAllowed(req.method, allowed)));
  }
  app.use(router);
}

function readPrincipal(req: Request, secret: string): Principal {
  const header = req.headers[PRINCIPAL_HEADER];
  if (typeof header !== 'string') return ANONYMOUS;
  return verifyPrincipal(header, secret, req.method, req.originalUrl.split('?')[0] ?? '/');
}

function clientAddressOf(req: Request, secret: string): string {
  const signed = verifyClientAddress(req.headers[CLIENT_ADDRESS_HEADER], secret, req.method, req.originalUrl.split('?')[0] ?? '/');
  return signed ?? req.socket.remoteAddress ?? 'unknown';
}

function abortOnClose(res: Response): AbortSignal {
  const controller = new AbortController();
  // Made on first use: the client may have gone already.
  if (res.closed) {
    if (!res.writableFinished) controller.abort();
    return controller.signal;
  }
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
