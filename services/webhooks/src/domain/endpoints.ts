import { errors, type SecretBox } from '@restgate/shared';
import type { ObjectId } from 'mongodb';
import {
  newEndpointId,
  type Endpoint,
  type EndpointChanges,
  type EndpointRepository,
  type StoredSecret,
} from '../data/endpoint.repository';
import { webhookErrors } from '../errors';
import { assertDeliverableUrl, type UrlPolicy } from './endpoint-url';
import { patternProblem } from './event-types';
import { newSigningSecret } from './signing';

/** At most this many endpoints: each event is one delivery per endpoint. */
export const MAX_ENDPOINTS = 100;

export interface EndpointDeps {
  endpoints: EndpointRepository;
  box: SecretBox;
  urlPolicy: UrlPolicy;
  /** The resources whose events may be subscribed to (users and every resource service's). */
  resources: ReadonlySet<string>;
  rotationOverlapMs: number;
  /** Called after every change, so this replica's cache reads the endpoints again. */
  changed: () => void;
}

/** `["articles.*,users.created"]` and `["articles.*", "users.created"]` alike: the patterns, checked. */
function patterns(given: string[], resources: ReadonlySet<string>): string[] {
  const list = [
    ...new Set(
      given
        .flatMap((p) => p.split(','))
        .map((p) => p.trim())
        .filter(Boolean),
    ),
  ];
  for (const pattern of list) {
    const problem = patternProblem(pattern, resources);
    if (problem) throw errors.validation([{ param: 'events', message: `events: ${problem}`, rule: 'events.unknown' }]);
  }
  if (list.length === 0)
    throw errors.validation([{ param: 'events', message: 'events must name at least one event type', rule: 'events.empty' }]);
  return list;
}

const context = (id: ObjectId) => `webhook-endpoint:${id.toHexString()}`;

/** The secrets that sign for `endpoint` at `now`: the current one and, within its overlap, the one rotated away. */
export function signingSecrets(box: SecretBox, endpoint: Endpoint, now: Date): string[] {
  return endpoint.secrets
    .filter((s) => s.expiresAt === null || s.expiresAt > now)
    .map((s) => box.open(s.sealed, context(endpoint._id)))
    .filter((s): s is string => s !== null);
}

export async function createEndpoint(
  deps: EndpointDeps,
  input: { url: string; events: string[]; active: boolean; description: string },
): Promise<{ endpoint: Endpoint; secret: string }> {
  const events = patterns(input.events, deps.resources);
  await assertDeliverableUrl(input.url, deps.urlPolicy);
  if ((await deps.endpoints.count()) >= MAX_ENDPOINTS) throw webhookErrors.limitReached(MAX_ENDPOINTS);
  const now = new Date();
  const _id = newEndpointId();
  const secret = newSigningSecret();
  const endpoint = await deps.endpoints.insert({
    _id,
    url: input.url,
    events,
    active: input.active,
    description: input.description,
    secrets: [{ sealed: deps.box.seal(secret, context(_id)), createdAt: now, expiresAt: null }],
    createdAt: now,
    updatedAt: now,
    failingSince: null,
    disabled: null,
  });
  deps.changed();
  return { endpoint, secret };
}

export async function updateEndpoint(deps: EndpointDeps, id: string, changes: EndpointChanges): Promise<Endpoint> {
  const checked = { ...changes };
  if (changes.events) checked.events = patterns(changes.events, deps.resources);
  if (changes.url) await assertDeliverableUrl(changes.url, deps.urlPolicy);
  const endpoint = await deps.endpoints.update(id, checked, new Date());
  if (!endpoint) throw webhookErrors.notFound();
  deps.changed();
  return endpoint;
}

export async function getEndpoint(deps: Pick<EndpointDeps, 'endpoints'>, id: string): Promise<Endpoint> {
  const endpoint = await deps.endpoints.get(id);
  if (!endpoint) throw webhookErrors.notFound();
  return endpoint;
}

/**
 * A new secret signs from now on; the current one goes on signing beside it for the overlap, so a
 * receiver can switch without missing a delivery. Any older one stops at once.
 */
export async function rotateSecret(deps: EndpointDeps, id: string): Promise<{ endpoint: Endpoint; secret: string }> {
  const current = await getEndpoint(deps, id);
  const now = new Date();
  const secret = newSigningSecret();
  const previous = current.secrets.find((s) => s.expiresAt === null);
  const secrets: StoredSecret[] = [
    { sealed: deps.box.seal(secret, context(current._id)), createdAt: now, expiresAt: null },
    ...(previous ? [{ ...previous, expiresAt: new Date(now.getTime() + deps.rotationOverlapMs) }] : []),
  ];
  const endpoint = await deps.endpoints.setSecrets(current._id, secrets, now);
  if (!endpoint) throw webhookErrors.notFound();
  deps.changed();
  return { endpoint, secret };
}
