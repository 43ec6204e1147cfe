import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import jwt from 'jsonwebtoken';
import { errors, problem, sharedErrorCatalogue, type Principal } from '@restgate/shared';
import { isStopping } from '@restgate/shared/http';
import type { RevocationList } from '@restgate/shared/limits';
import type { Authenticator } from '../authenticate';
import { credentialsInSight, decide, tokensGiven, type Admission } from '../decide';
import { withMfaPolicy } from '../mfa-policy';
import type { PolicyRow } from '../policy';
import { stripBodyTokens, type BodyReader } from '../request-body';
import { splitUrl } from '../request-path';
import type { ResourceAccess } from './access';
import { principalKey, topicText, type Hub, type StreamSession } from './hub';
import { TICKET_TTL_SECONDS, type StreamLimits, type TicketClaims, createTickets } from './registrations';
import { parseTopics } from './topics';

export interface RealtimeRouteDeps {
  hub: Hub;
  resources: ReadonlyMap<string, ResourceAccess>;
  limits: StreamLimits;
  tickets: ReturnType<typeof createTickets>;
  authenticate: Authenticator;
  mfaRequiredRoles: readonly string[];
  clientAddress: (req: IncomingMessage) => string;
  bodyOf: BodyReader;
  revocations?: RevocationList;
  /** The listener whose graceful stop refuses new streams. */
  app: () => object;
}

const row = (method: 'get' | 'patch' | 'post', path: string, level: PolicyRow['level']): PolicyRow => ({
  method,
  path,
  level,
  upstream: 'gateway',
});
const STREAM = row('get', '/realtime', 'public');
const RETOPIC = row('patch', '/realtime/:id', 'public');
const TICKET = row('post', '/realtime/tickets', 'user');

/** What the credential a request was admitted with says beyond its principal: its session, and when it expires. */
function tokenFacts(token: string | undefined, principal: Principal): Pick<TicketClaims, 'session' | 'expiresAt'> {
  if (!token || principal.kind !== 'user' || !principal.sid) return {};
  const claims = jwt.decode(token) as { exp?: number; cep?: number } | null;
  return {
    session: { sid: principal.sid, userId: principal.id, credentialsEpoch: typeof claims?.cep === 'number' ? claims.cep : 0 },
    ...(typeof claims?.exp === 'number' ? { expiresAt: claims.exp * 1000 } : {}),
  };
}

function tooMany(which: 'principal' | 'address', limit: number): Error {
  return problem(sharedErrorCatalogue.rate_limited, {
    detail: `Too many event streams open for this ${which === 'principal' ? 'credential' : 'address'} (at most ${limit}). Close one first.`,
    extras: { limit: `realtime-${which}` },
    headers: { 'Retry-After': '5' },
  });
}

/**
 * The refusal of a method the realtime paths do not serve (405 with `Allow`), or undefined for
 * any other path (the policy table's refusal then).
 */
export function realtimeRefusal(method: string, path: string) {
  const allowed =
    path === '/realtime' ? ['GET'] : path === '/realtime/tickets' ? ['POST'] : /^\/realtime\/[^/]+$/.test(path) ? ['PATCH'] : undefined;
  return allowed && !allowed.includes(method.toUpperCase()) ? errors.methodNotAllowed(method, allowed) : undefined;
}

/** The topics a PATCH sends, as a form or JSON (`topics`: a comma list, or an array). */
function topicsOfBody(req: IncomingMessage, body: Buffer | undefined): string | undefined {
  if (!body || body.length === 0) return undefined;
  const type = String(req.headers['content-type'] ?? '');
  if (type.includes('json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw errors.malformedBody('The body is not valid JSON.');
    }
    const topics = (parsed as { topics?: unknown } | null)?.topics;
    if (Array.isArray(topics) && topics.every((t) => typeof t === 'string')) return topics.join(',');
    return typeof topics === 'string' ? topics : undefined;
  }
  return new URLSearchParams(body.toString('utf8')).get('topics') ?? undefined;
}

/**
 * `GET /realtime` (an event stream), `PATCH /realtime/:id` (its topics), `POST /realtime/tickets`
 * (a single-use ticket to open one with, for a browser's EventSource, which cannot send headers).
 * Credentials are decided as on every route (decide.ts).
 */
export function mountRealtime(app: FastifyInstance, deps: RealtimeRouteDeps, limits: { perPrincipal: number; perAddress: number }) {
  const admit = (route: PolicyRow, req: IncomingMessage, query: string, body: Buffer | undefined): Admission & { token?: string } => {
    const seen = credentialsInSight(query, req.headers.authorization);
    const admission = decide(route, { headers: req.headers, query, body, seen }, deps.authenticate, deps.mfaRequiredRoles);
    return { ...admission, token: tokensGiven(seen)[0] ?? stripBodyTokens(req.headers, body).tokens[0] };
  };

  app.get('/realtime', async (request, reply) => {
    const req = request.raw;
    if (isStopping(deps.app())) throw errors.unavailable('This gateway is stopping; connect again (another one will answer).');
    const { query } = splitUrl(req.url ?? '/');
    const params = new URLSearchParams(query);
    const ticket = params.get('ticket');
    let claims: TicketClaims;
    if (ticket !== null) {
      if (tokensGiven(credentialsInSight(query, req.headers.authorization)).length > 0) throw errors.credentialAmbiguous();
      const redeemed = await deps.tickets.redeem(ticket);
      if (!redeemed) throw errors.unauthorized('The ticket is unknown, used or expired: ask POST /realtime/tickets for another.', true);
      // The session it was asked with must still be open.
      if (redeemed.session && deps.revocations?.isRevoked({ ...redeemed.session, sessionId: redeemed.session.sid }))
        throw errors.unauthorized('The session this ticket was asked with has ended.', true);
      claims = { ...redeemed, principal: withMfaPolicy(deps.mfaRequiredRoles, redeemed.principal) };
    } else {
      const admission = admit(STREAM, req, query, undefined);
      claims = { principal: admission.principal, ...tokenFacts(admission.token, admission.principal) };
    }
    const topics = parseTopics(params.get('topics') ?? undefined, deps.resources, claims.principal);
    await deps.hub.whenReady();
    const address = deps.clientAddress(req);
    const registration = `${Date.now()}:${Math.random().toString(36).slice(2)}`;
    const taken = await deps.limits.acquire(registration, principalKey(claims.principal), address);
    if (taken !== 'ok') throw tooMany(taken, taken === 'principal' ? limits.perPrincipal : limits.perAddress);
    const resumeFrom = (req.headers['last-event-id'] as string | undefined) ?? params.get('lastEventId') ?? undefined;
    reply.hijack();
    // The answer's headers so far (request id, security headers, CORS) go out with the stream's.
    const headers = Object.fromEntries(Object.entries(reply.getHeaders()).map(([k, v]) => [k, String(v)]));
    const opening = deps.hub.open({
      res: reply.raw,
      principal: claims.principal,
      session: claims.session,
      expiresAt: claims.expiresAt,
      topics,
      resumeFrom,
      headers,
      onClose: () => void deps.limits.release(registration),
    });
    // Past this point the answer is the stream: a failure (Redis gone during a resume) ends it, and the client reconnects.
    await opening.catch((err: Error) => {
      request.log.warn?.({ err: err.message }, 'realtime: a stream failed to start');
      reply.raw.end();
    });
  });

  app.patch('/realtime/:id', async (request, reply) => {
    const req = request.raw;
    // The tickets path is not a stream's: only POST goes there.
    if ((request.params as { id: string }).id === 'tickets') throw errors.methodNotAllowed('PATCH', ['POST']);
    const { query } = splitUrl(req.url ?? '/');
    const admission = admit(RETOPIC, req, query, await deps.bodyOf(req));
    const topics = parseTopics(topicsOfBody(req, admission.body), deps.resources, admission.principal);
    const id = (request.params as { id: string }).id;
    if (!deps.hub.retopic(id, admission.principal, topics)) throw errors.notFound('No such event stream of yours on this gateway.');
    return reply
      .code(200)
      .header('Cache-Control', 'no-store')
      .send({ connectionId: id, topics: topics.map(topicText) });
  });

  app.post('/realtime/tickets', async (request, reply) => {
    const req = request.raw;
    const { query } = splitUrl(req.url ?? '/');
    const admission = admit(TICKET, req, query, await deps.bodyOf(req));
    const ticket = await deps.tickets.issue({ principal: admission.principal, ...tokenFacts(admission.token, admission.principal) });
    return reply.code(201).header('Cache-Control', 'no-store').send({ ticket, expiresIn: TICKET_TTL_SECONDS });
  });
}

export type { StreamSession };
