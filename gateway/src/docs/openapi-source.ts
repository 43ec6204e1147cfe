import { errors, type Logger } from '@restgate/shared';
import type { OpenApiDocument } from '@restgate/shared/openapi';
import { mergeOpenApi, type DocsPolicyRow } from './merge-openapi';

export interface OpenApiSourceOptions {
  /** Service name → base URL; each serves its part at `<base>/openapi.json`. */
  upstreams: Record<string, string>;
  /** The gateway's policy table, with the operator's overrides applied. */
  policy: readonly DocsPolicyRow[];
  logger: Logger;
  /** How long one upstream may take to send its part. */
  timeoutMs?: number;
  /** How long a merged document is served before the parts are fetched again. */
  cacheMs?: number;
  fetch?: typeof fetch;
  /** Adds what the gateway serves itself (the realtime routes) to each merged document. */
  extend?: (doc: OpenApiDocument) => void;
}

export interface OpenApiSource {
  document: (requestId?: string) => Promise<OpenApiDocument>;
}

/** An incomplete document is kept only this long, so a service that comes back shows up soon. */
const INCOMPLETE_CACHE_MS = 1_000;

/**
 * The merged document, fetched from the upstreams and cached briefly. Concurrent requests share
 * one fetch. A part that cannot be had is replaced by the last good copy (logged); with no part
 * at all, the answer is a 503.
 */
export function createOpenApiSource(options: OpenApiSourceOptions): OpenApiSource {
  const timeoutMs = options.timeoutMs ?? 3_000;
  const cacheMs = options.cacheMs ?? 10_000;
  const fetchPart = options.fetch ?? fetch;
  const lastGood = new Map<string, OpenApiDocument>();
  let cached: { doc: OpenApiDocument; until: number } | undefined;
  let inflight: Promise<OpenApiDocument> | undefined;

  async function loadPart(name: string, baseUrl: string, requestId: string | undefined): Promise<OpenApiDocument> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (requestId) headers['x-request-id'] = requestId;
    const res = await fetchPart(`${baseUrl.replace(/\/+$/, '')}/openapi.json`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`${name} answered ${res.status}`);
    const doc = (await res.json()) as OpenApiDocument;
    if (typeof doc?.openapi !== 'string' || typeof doc.paths !== 'object' || doc.paths === null)
      throw new Error(`${name} sent no OpenAPI document`);
    return doc;
  }

  async function load(requestId: string | undefined): Promise<OpenApiDocument> {
    const names = Object.keys(options.upstreams);
    const results = await Promise.allSettled(names.map((name) => loadPart(name, options.upstreams[name]!, requestId)));
    const parts: Record<string, OpenApiDocument> = {};
    const missing: string[] = [];
    results.forEach((result, i) => {
      const name = names[i]!;
      if (result.status === 'fulfilled') {
        lastGood.set(name, result.value);
        parts[name] = result.value;
        return;
      }
      const stale = lastGood.get(name);
      options.logger.warn({ upstream: name, err: (result.reason as Error)?.message, stale: Boolean(stale) }, 'openapi part unavailable');
      if (stale) parts[name] = stale;
      else missing.push(name);
    });
    if (Object.keys(parts).length === 0) throw errors.unavailable('No service could describe its routes. Try again shortly.');
    const doc = mergeOpenApi(parts, options.policy, { missing });
    options.extend?.(doc);
    cached = { doc, until: Date.now() + (missing.length ? Math.min(cacheMs, INCOMPLETE_CACHE_MS) : cacheMs) };
    return doc;
  }

  return {
    async document(requestId) {
      if (cached && Date.now() < cached.until) return cached.doc;
      inflight ??= load(requestId).finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
  };
}
