import type { Endpoint, EndpointRepository } from '../data/endpoint.repository';

/**
 * The endpoints as this replica last read them: at most 100, read whole at most every `maxAgeMs`
 * and at once after a change made here. A change made on another replica takes effect here
 * within `maxAgeMs`.
 */
export interface EndpointCache {
  all(): Promise<Endpoint[]>;
  invalidate(): void;
}

export function createEndpointCache(repo: EndpointRepository, maxAgeMs: number): EndpointCache {
  let cached: { at: number; endpoints: Promise<Endpoint[]> } | undefined;
  return {
    all() {
      if (!cached || Date.now() - cached.at > maxAgeMs) {
        const endpoints = repo.all();
        cached = { at: Date.now(), endpoints };
        // A failed read is not kept: the next call reads again.
        endpoints.catch(() => {
          if (cached?.endpoints === endpoints) cached = undefined;
        });
      }
      return cached.endpoints;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
