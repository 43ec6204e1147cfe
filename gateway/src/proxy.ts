import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type Plugin } from 'http-proxy-middleware';
import { errors, requestIdOf, requestLog, sendProblem, type ReadinessCheck } from '@restgate/shared';
import type { GatewayConfig } from './config';
import type { RoutedService } from './registry';

/** Service name → its base URL (from the config key the registry names). */
export type UpstreamUrls = Record<string, string>;
export type UpstreamAgents = Record<string, http.Agent>;

/** Each routed service's base URL, from the config key the registry names for it. */
export function upstreamUrls(config: GatewayConfig, services: readonly RoutedService[]): UpstreamUrls {
  return Object.fromEntries(services.map((s) => [s.name, config[s.urlEnv as `${string}_URL`]!]));
}

/** One keep-alive pool per upstream, so a slow service can't starve the others' sockets. */
export function createAgents(config: GatewayConfig, urls: UpstreamUrls): UpstreamAgents {
  const agents: UpstreamAgents = {};
  for (const [name, url] of Object.entries(urls)) {
    const options = { keepAlive: true, maxSockets: config.UPSTREAM_MAX_SOCKETS };
    agents[name] = url.startsWith('https:') ? new https.Agent(options) : new http.Agent(options);
  }
  return agents;
}

export function destroyAgents(agents: UpstreamAgents): void {
  for (const agent of Object.values(agents)) agent.destroy();
}

/** `/ready` at the gateway: every upstream's `/health` answers 2xx. */
export function upstreamReadiness(urls: UpstreamUrls): ReadinessCheck[] {
  return Object.entries(urls).map(([name, url]) => ({
    name,
    check: async () => {
      const res = await fetch(new URL('health', url.endsWith('/') ? url : `${url}/`), { signal: AbortSignal.timeout(1_500) });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`${name} /health answered ${res.status}`);
    },
  }));
}

/** The bytes to send upstream, set by the gate after it read (and edited) the body. */
const forwardBodies = new WeakMap<http.IncomingMessage, Buffer>();

export function setForwardBody(req: http.IncomingMessage, body: Buffer): void {
  forwardBodies.set(req, body);
}

/**
 * The gateway has consumed the request stream, so the proxy must send the edited bytes instead.
 * http-proxy's `buffer` option does exactly that; writing in a `proxyReq` handler (HPM's
 * fixRequestBody) breaks once the agent queues requests: the emptied stream ends the upstream
 * request before its socket, and thus the `proxyReq` event, arrives.
 */
const sendForwardBody: Plugin = (proxyServer) => {
  const web = proxyServer.web.bind(proxyServer);
  proxyServer.web = ((req: http.IncomingMessage, res: http.ServerResponse, options: object) => {
    const body = forwardBodies.get(req);
    return web(req, res, body ? { ...options, buffer: Readable.from([body]) } : options);
  }) as typeof proxyServer.web;
};

/** HPM's own plugins: the crash guards for socket errors, and `on` handlers. */
const DEFAULT_PLUGINS_KEPT: Plugin[] = [debugProxyErrorsPlugin, proxyEventsPlugin];

/**
 * The upstream's URL in the shape http-proxy reads (url.parse's), parsed once: given the string,
 * http-proxy parses it again on every request (2 % of the gateway's CPU per proxied request in
 * `npm run bench:gateway-alone -- --profile`).
 */
function proxyTarget(url: string): { protocol: string; host: string; hostname: string; port: string; path: string } {
  const parsed = new URL(url);
  // url.parse gives an IPv6 hostname without its brackets, and http.request wants it so.
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { protocol: parsed.protocol, host: parsed.host, hostname, port: parsed.port, path: parsed.pathname + parsed.search };
}

/**
 * Ends the request to the service when its client leaves before the answer is complete, as
 * nginx does by default. http-proxy does so only for a client that leaves while still sending
 * its body (`aborted`); one that leaves while the service works had the service finish for
 * nobody: a sign-in's whole password check (its client-gone signal never fired) and a session
 * no one receives. http-proxy reports the reset as `econnreset`, not as an upstream failure.
 */
function endWithClient(proxyReq: http.ClientRequest, req: http.IncomingMessage, res: http.ServerResponse): void {
  const end = () => {
    if (!res.writableFinished) proxyReq.destroy();
  };
  if (req.socket.destroyed) end();
  else res.once('close', end);
}

/** Sends the request to one upstream and its answer back (http-proxy-middleware, on node:http objects). */
export type Proxy = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/**
 * One proxy per upstream. Failures become problems without host names or messages (those go
 * to the log): no answer within UPSTREAM_TIMEOUT_MS → 504; refused, reset, or any other
 * failure to get an answer → 502.
 * Upstream responses, problem+json included, pass through unchanged.
 */
export function createUpstreamProxies(config: GatewayConfig, urls: UpstreamUrls, agents: UpstreamAgents): Record<string, Proxy> {
  const timedOut = new WeakSet<http.IncomingMessage>();
  const proxies: Record<string, Proxy> = {};
  for (const [name, target] of Object.entries(urls)) {
    proxies[name] = createProxyMiddleware({
      target: proxyTarget(target),
      agent: agents[name],
      proxyTimeout: config.UPSTREAM_TIMEOUT_MS,
      // The service sees the Host the client used (links it builds name the public host).
      changeOrigin: false,
      // Send req.url as is (http-proxy would otherwise re-escape it with url.parse): the path
      // the service verifies the principal signature against is then the path the gateway signed.
      toProxy: true,
      xfwd: false,
      // Without HPM's logger plugin (it builds a URL per answer to print a line we don't keep) and
      // its error-response plugin (the `error` handler below answers).
      ejectPlugins: true,
      plugins: [...DEFAULT_PLUGINS_KEPT, sendForwardBody],
      on: {
        proxyReq: (proxyReq, req, res) => {
          proxyReq.once('timeout', () => timedOut.add(req));
          endWithClient(proxyReq, req, res);
        },
        // The upstream's Connection and Keep-Alive describe the gateway's pooled socket, not the
        // client's: a client that sent `Connection: close` gets it back, and the socket closes.
        proxyRes: (proxyRes, _req, res) => {
          delete proxyRes.headers['keep-alive'];
          proxyRes.headers.connection = (res as http.ServerResponse).shouldKeepAlive ? 'keep-alive' : 'close';
        },
        error: (err: NodeJS.ErrnoException, req, res) => {
          const isTimeout = timedOut.has(req) || err.code === 'ETIMEDOUT';
          const log = requestLog(req);
          log.error({ upstream: name, errCode: err.code, errMessage: err.message, timedOut: isTimeout }, 'upstream request failed');
          if (!(res instanceof http.ServerResponse)) return; // a socket (upgrade): nothing to answer
          if (res.headersSent) {
            res.destroy();
            return;
          }
          sendProblem(res, isTimeout ? errors.gatewayTimeout() : errors.badGateway(), requestIdOf(req));
        },
      },
    });
  }
  return proxies;
}
