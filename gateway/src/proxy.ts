import { EventEmitter } from 'node:events';
import type { FastifyReply } from 'fastify';
import { Pool, errors as undiciErrors } from 'undici';
import { errors, type ReadinessCheck } from '@restgate/shared';
import { requestLog } from '@restgate/shared/http';
import type { GatewayConfig } from './config';
import type { RoutedService } from './registry';
import type { UpstreamRequest } from './rewrite';

/** Service name → its base URL (from the config key the registry names). */
export type UpstreamUrls = Record<string, string>;
/** Service name → its keep-alive pool. */
export type UpstreamAgents = Record<string, Pool>;

/** Each routed service's base URL, from the config key the registry names for it. */
export function upstreamUrls(config: GatewayConfig, services: readonly RoutedService[]): UpstreamUrls {
  return Object.fromEntries(services.map((s) => [s.name, config[s.urlEnv as `${string}_URL`]!]));
}

/**
 * One keep-alive pool per upstream (undici), so a slow service can't starve the others'
 * connections: at most UPSTREAM_MAX_SOCKETS each, no pipelining (a slow answer would hold up
 * the ones queued behind it), and UPSTREAM_TIMEOUT_MS for the answer's headers and between its
 * body's chunks. A connection attempt gets UPSTREAM_CONNECT_TIMEOUT_MS, well under a client's
 * patience: in a fleet, a replica that just stopped can still be the address a name resolved to,
 * and a connect to an address nobody holds any more waits for the timeout, then goes again.
 */
export function createAgents(config: GatewayConfig, urls: UpstreamUrls): UpstreamAgents {
  const agents: UpstreamAgents = {};
  for (const [name, url] of Object.entries(urls)) {
    agents[name] = new Pool(new URL(url).origin, {
      connections: config.UPSTREAM_MAX_SOCKETS,
      pipelining: 1,
      connect: { timeout: config.UPSTREAM_CONNECT_TIMEOUT_MS },
      headersTimeout: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
    });
  }
  return agents;
}

export async function destroyAgents(agents: UpstreamAgents): Promise<void> {
  await Promise.all(Object.values(agents).map((pool) => pool.destroy()));
}

/**
 * `/ready` at the gateway until it is first ready: every upstream's `/health` answers 2xx. After
 * that an upstream's outage is a 502/504 problem on its own routes, while the gateway stays in the
 * balancer for every other service's.
 */
export function upstreamReadiness(urls: UpstreamUrls): ReadinessCheck[] {
  return Object.entries(urls).map(([name, url]) => ({
    name,
    untilFirstReady: true,
    check: async () => {
      const res = await fetch(new URL('health', url.endsWith('/') ? url : `${url}/`), { signal: AbortSignal.timeout(1_500) });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`${name} /health answered ${res.status}`);
    },
  }));
}

/**
 * The service's Connection and Keep-Alive describe the gateway's pooled connection, not the
 * client's (Node sets the client's own: `close` when the client asked for it); the length is
 * framed anew by Node when the service chunked it.
 */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'trailer']);

/** Methods a retry can't make do twice what the client asked once (RFC 9110 §9.2.1). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** One try and two more: the second connection may still go to the replica that just died. */
const ATTEMPTS = 3;
/** No connection was made, so the service never saw the request: any method may be sent again. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
/** The connection broke before the answer's headers: the service may have acted on the request. */
const CONNECTION_LOST = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * The client's leaving, as undici's `signal` takes it besides an AbortSignal: an EventEmitter
 * with `aborted`, which `abort` sets and announces once. Made per proxied request, where an
 * AbortController would add an EventTarget and its listener bookkeeping to every one.
 */
export class ClientLeft extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

type PoolRequest = Parameters<Pool['request']>[0] & { signal: AbortSignal | ClientLeft };

/** Whether the request may go again after `err`: see createUpstreamProxies. */
export function mayRetry(method: string, err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return NOT_CONNECTED.has(code) || (SAFE_METHODS.has(method) && CONNECTION_LOST.has(code));
}

export async function requestWithRetries(
  pool: Pick<Pool, 'request'>,
  request: PoolRequest,
  onRetry: (err: unknown) => void,
): Promise<Awaited<ReturnType<Pool['request']>>> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await pool.request(request);
    } catch (err) {
      if (attempt >= ATTEMPTS || request.signal.aborted || !mayRetry(request.method, err)) throw err;
      onRetry(err);
    }
  }
}

/** Sends the rewritten request to one upstream and its answer back to the client. */
export type Proxy = (upstream: UpstreamRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * One proxy per upstream. The service's answer, problem+json included, passes through unchanged
 * (status, headers but hop-by-hop ones, body streamed). Failures become problems without host
 * names or messages (those go to the log): no answer within UPSTREAM_TIMEOUT_MS → 504; refused,
 * reset, or any other failure to get an answer → 502; a failure once the answer has begun cuts
 * the connection (the client sees an incomplete answer, not a wrong one).
 *
 * The request to the service ends when its client leaves before the answer is complete, as
 * nginx does by default: a sign-in's whole password check would otherwise run for nobody.
 *
 * A request that got no answer because its connection failed goes again on another connection
 * (another replica, when the service runs several), up to ATTEMPTS in all, so a replica that
 * stops or dies costs the client nothing it could not have caused: any method when the connection
 * was never made (the service never saw the request), only a safe one (GET, HEAD, OPTIONS) when
 * it broke with the request sent (the service may have acted on it). A timeout is not retried:
 * the service is slow, not gone, and a second try would only add to its load.
 */
export function createUpstreamProxies(urls: UpstreamUrls, agents: UpstreamAgents): Record<string, Proxy> {
  const proxies: Record<string, Proxy> = {};
  for (const [name, target] of Object.entries(urls)) {
    const pool = agents[name]!;
    // A base URL with a path (`http://host/prefix`) prefixes every forwarded path.
    const prefix = new URL(target).pathname.replace(/\/$/, '');
    proxies[name] = async (upstream, reply) => {
      const res = reply.raw;
      const left = new ClientLeft();
      // After the answer is complete, its close is no one leaving.
      const onClose = () => {
        if (!res.writableFinished) left.abort();
      };
      res.once('close', onClose);
      if (res.destroyed) left.abort();
      const request = {
        method: upstream.method as 'GET',
        path: prefix + upstream.url,
        headers: upstream.headers as Record<string, string | string[]>,
        body: upstream.body ?? null,
        signal: left,
      };
      let answer: Awaited<ReturnType<Pool['request']>>;
      try {
        answer = await requestWithRetries(pool, request, (err) =>
          requestLog(reply.request.raw).warn(
            { upstream: name, errCode: (err as { code?: string }).code },
            'upstream connection failed; sending again',
          ),
        );
      } catch (err) {
        res.removeListener('close', onClose);
        if (left.aborted) {
          reply.hijack(); // the client left: no one to answer
          return reply;
        }
        const { code, message } = err as { code?: string; message?: string };
        const timedOut = err instanceof undiciErrors.HeadersTimeoutError;
        requestLog(reply.request.raw).error({ upstream: name, errCode: code, errMessage: message, timedOut }, 'upstream request failed');
        throw timedOut ? errors.gatewayTimeout() : errors.badGateway();
      }
      // Past this point the close ends the body's stream too (undici destroys it on abort).
      const headers: Record<string, string | string[]> = {};
      for (const [key, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !NOT_FORWARDED.has(key)) headers[key] = value;
      }
      reply.code(answer.statusCode).headers(headers);
      // No body to send (HEAD, 204, 304): read off what the service sent, so its connection is reused.
      if (upstream.method === 'HEAD' || answer.statusCode === 204 || answer.statusCode === 304) {
        await answer.body.dump();
        return reply.send();
      }
      // Returned, not only sent: fastify waits for the stream rather than ending the answer.
      return reply.send(answer.body);
    };
  }
  return proxies;
}
