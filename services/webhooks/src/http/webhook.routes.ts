import { randomUUID } from 'node:crypto';
import { bindRoutes, type RouteDef } from '@restgate/shared/http';
import { listingResult, withFields } from '@restgate/shared/data';
import { webhooksApi } from '../api';
import type { DeliveryRepository } from '../data/delivery.repository';
import { createEndpoint, getEndpoint, rotateSecret, updateEndpoint, type EndpointDeps } from '../domain/endpoints';
import { TEST_EVENT_TYPE } from '../domain/event-types';
import { webhookErrors } from '../errors';
import type { AuditTrail } from '@restgate/shared/resource';
import { deliveryView, endpointView } from './webhook.views';

export interface RouteDeps extends EndpointDeps {
  deliveries: DeliveryRepository;
  /** A delivery became due now. */
  wake: () => void;
  /** Every write here is an admin's: each one is recorded for the audit log (`admin.write`). */
  audit: AuditTrail<'admin.write'>;
}

/** Records an admin's write of an endpoint (`change`: what was done to it). */
const recorded = (deps: RouteDeps, endpointId: string, change: string) =>
  deps.audit.record('admin.write', {
    outcome: 'success',
    subject: { kind: 'webhooks', id: endpointId },
    details: { resource: 'webhooks', change },
  });

export function webhookRoutes(deps: RouteDeps): RouteDef[] {
  return bindRoutes(webhooksApi, {
    createWebhook: async ({ body }) => {
      const { endpoint, secret } = await createEndpoint(deps, body);
      await recorded(deps, endpoint._id.toHexString(), 'created');
      return { status: 201, body: { ...endpointView(endpoint), secret } };
    },
    listWebhooks: async ({ query, url }) => {
      const { docs, ...page } = await deps.endpoints.list(query);
      return listingResult(
        docs.map((e) => withFields(endpointView(e), query.fields)),
        page,
        query,
        url,
      );
    },
    getWebhook: async ({ params }) => ({ status: 200, body: endpointView(await getEndpoint(deps, params.id)) }),
    changeWebhook: async ({ params, body }) => {
      const endpoint = await updateEndpoint(deps, params.id, body);
      await recorded(deps, params.id, 'updated');
      return { status: 200, body: endpointView(endpoint) };
    },
    deleteWebhook: async ({ params }) => {
      const removed = await deps.endpoints.remove(params.id);
      if (!removed) throw webhookErrors.notFound();
      await deps.deliveries.removeOf(removed._id);
      deps.changed();
      await recorded(deps, params.id, 'deleted');
      return { status: 204 };
    },
    rotateWebhookSecret: async ({ params }) => {
      const { endpoint, secret } = await rotateSecret(deps, params.id);
      await recorded(deps, params.id, 'secret_rotated');
      return { status: 200, body: { ...endpointView(endpoint), secret } };
    },
    testWebhook: async ({ params, requestId }) => {
      const endpoint = await getEndpoint(deps, params.id);
      const eventId = randomUUID();
      const now = new Date();
      const body = JSON.stringify({
        type: TEST_EVENT_TYPE,
        timestamp: now.toISOString(),
        data: { endpointId: endpoint._id.toHexString() },
      });
      await deps.deliveries.add(
        [{ endpointId: endpoint._id, eventId, type: TEST_EVENT_TYPE, orderKey: `test|${eventId}`, seq: 0, body, requestId }],
        now,
      );
      const delivery = await deps.deliveries.byEvent(endpoint._id, eventId);
      deps.wake();
      await recorded(deps, params.id, 'test_sent');
      return { status: 202, body: { deliveryId: delivery?._id.toHexString(), eventId } };
    },
    listWebhookDeliveries: async ({ params, query, url }) => {
      const endpoint = await getEndpoint(deps, params.id);
      const { docs, ...page } = await deps.deliveries.list(endpoint._id, query);
      return listingResult(
        docs.map((d) => withFields(deliveryView(d), query.fields)),
        page,
        query,
        url,
      );
    },
    getWebhookDelivery: async ({ params }) => {
      const endpoint = await getEndpoint(deps, params.id);
      const delivery = await deps.deliveries.get(endpoint._id, params.deliveryId);
      if (!delivery) throw webhookErrors.deliveryNotFound();
      return { status: 200, body: deliveryView(delivery) };
    },
    retryWebhookDelivery: async ({ params }) => {
      const endpoint = await getEndpoint(deps, params.id);
      const delivery = await deps.deliveries.retryNow(endpoint._id, params.deliveryId, new Date());
      if (!delivery) throw webhookErrors.deliveryNotFound();
      deps.wake();
      await recorded(deps, params.id, 'delivery_retried');
      return { status: 202, body: deliveryView(delivery) };
    },
  });
}
