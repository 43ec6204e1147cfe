import type { DeliveryDocument } from '../data/delivery.repository';
import type { Endpoint } from '../data/endpoint.repository';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An endpoint as admins see it: never a secret. */
export function endpointView(e: Endpoint) {
  return {
    id: e._id.toHexString(),
    url: e.url,
    events: e.events,
    active: e.active,
    description: e.description,
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
    failingSince: iso(e.failingSince),
    disabled: e.disabled ? { at: iso(e.disabled.at), reason: e.disabled.reason } : null,
  };
}

export function deliveryView(d: Omit<DeliveryDocument, 'body'>) {
  return {
    id: d._id.toHexString(),
    eventId: d.eventId,
    type: d.type,
    status: d.status,
    requestId: d.requestId,
    createdAt: iso(d.createdAt),
    nextAt: iso(d.nextAt),
    attempts: d.attempts.map((a) => ({ ...a, at: iso(a.at) })),
  };
}
