import dns from 'node:dns/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { errors } from '@restgate/shared';
import { ipLiteral, isPublicAddress } from './addresses';

export interface UrlPolicy {
  allowPrivateNetworks: boolean;
  production: boolean;
}

/** How long registration waits for a name to resolve. */
const LOOKUP_MS = 2_000;

const refuse = (message: string) => errors.validation([{ param: 'url', message, rule: 'url.notAllowed' }]);

/**
 * Refuses (400 naming `url`) an endpoint URL this service will not deliver to: credentials in it;
 * plain http:// in production; an address that is not public, written in the URL or what its name
 * resolves to now (unless private networks are allowed). Connecting checks the address again, so
 * a name that resolves elsewhere later is refused then.
 */
export async function assertDeliverableUrl(text: string, policy: UrlPolicy): Promise<void> {
  const url = new URL(text);
  if (url.username || url.password) throw refuse('url must not hold credentials: the signature authenticates each delivery');
  if (policy.allowPrivateNetworks) return;
  if (policy.production && url.protocol !== 'https:') throw refuse('url must be https:// in production');
  const literal = ipLiteral(url.hostname);
  if (literal) {
    if (!isPublicAddress(literal)) throw refuse(`url's address ${literal} is not a public address`);
    return;
  }
  // A name that does not resolve (or not within LOOKUP_MS) is let through: connecting checks again.
  const addresses = await Promise.race([dns.lookup(url.hostname, { all: true }).catch(() => []), delay(LOOKUP_MS, [])]);
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (refused) throw refuse(`url's host ${url.hostname} resolves to ${refused.address}, not a public address`);
}
