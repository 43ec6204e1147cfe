import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from './principal';

/**
 * What a write needs to know of the request that caused it, without every use case passing it
 * along: the change events a repository records name the request id and the actor. The route
 * layer runs each handler inside its request's context; work outside a request (housekeeping)
 * has none, and its events name no actor.
 */
export interface RequestContext {
  requestId: string;
  principal: Principal;
  /** The client's address as the gateway resolved it (read on first use: it checks a signature). */
  readonly clientAddress?: string;
  /** The client's `User-Agent`, when it sent one. */
  userAgent?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it awaits) inside `context`. */
export function runInRequest<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The request being served, or undefined outside one. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}
