/**
 * The webhooks service's routes, described once: method, path, level, schemas and docs.
 * http/webhook.routes.ts binds a handler to each; the gateway reads the compiled `api`
 * (dist/api.js) for its policy table. Data only: nothing here connects or starts.
 */
import { defineSpec, type ServiceApi } from '@restgate/shared/http';
import { webhookCodes as E } from './errors';
import {
  createEndpointBody,
  deliveryListingSchema,
  deliveryParams,
  deliveryViewSchema,
  endpointListingSchema,
  endpointParams,
  endpointViewSchema,
  endpointWithSecretSchema,
  listDeliveriesQuery,
  listEndpointsQuery,
  testDeliverySchema,
  updateEndpointBody,
} from './http/webhook.schemas';

const tags = ['webhooks'];
const level = 'admin' as const;
const invalid = { errors: [E.validation_failed] };
const noCredential = { errors: [E.credential_missing, E.invalid_token, E.mfa_required] };
const notAdmin = { errors: [E.forbidden] };
const notFound = { errors: [E.webhook_not_found] };
const endpoint = { description: 'The endpoint', schema: endpointViewSchema };

export const webhooksApi = {
  createWebhook: defineSpec({
    method: 'post',
    path: '/webhooks',
    level,
    tags,
    summary: 'Register an endpoint for change events; its signing secret is in this answer only',
    noStore: true,
    description:
      'Each event of a subscribed type is POSTed to `url` signed as [Standard Webhooks](https://www.standardwebhooks.com/): headers `webhook-id` (the event id, the same on every retry), `webhook-timestamp`, `webhook-signature`; body `{ type, timestamp, data }`. At most 100 endpoints.',
    schemas: { body: createEndpointBody },
    responses: {
      201: { description: 'The endpoint, with its signing secret', schema: endpointWithSecretSchema },
      400: { errors: [E.validation_failed, E.endpoint_limit_reached] },
      401: noCredential,
      403: notAdmin,
    },
  }),
  listWebhooks: defineSpec({
    method: 'get',
    path: '/webhooks',
    level,
    tags,
    summary: 'List endpoints: q (url, description), filters on active and createdAt, page or after, limit, sort, count',
    schemas: { query: listEndpointsQuery },
    responses: {
      200: { description: 'One page of endpoints', schema: endpointListingSchema },
      400: invalid,
      401: noCredential,
      403: notAdmin,
    },
  }),
  getWebhook: defineSpec({
    method: 'get',
    path: '/webhooks/:id',
    level,
    tags,
    summary: 'Get an endpoint: its subscription, and whether (and why) it was turned off',
    schemas: { params: endpointParams },
    responses: { 200: endpoint, 401: noCredential, 403: notAdmin, 404: notFound },
  }),
  changeWebhook: defineSpec({
    method: 'patch',
    path: '/webhooks/:id',
    level,
    tags,
    summary: 'Change an endpoint: url, events, active, description; omitted fields stay',
    schemas: { params: endpointParams, body: updateEndpointBody },
    responses: { 200: endpoint, 400: invalid, 401: noCredential, 403: notAdmin, 404: notFound },
  }),
  deleteWebhook: defineSpec({
    method: 'delete',
    path: '/webhooks/:id',
    level,
    tags,
    summary: 'Delete an endpoint and its delivery log; nothing more is sent to it',
    schemas: { params: endpointParams },
    responses: { 204: { description: 'Deleted' }, 401: noCredential, 403: notAdmin, 404: notFound },
  }),
  rotateWebhookSecret: defineSpec({
    method: 'post',
    path: '/webhooks/:id/secret',
    level,
    tags,
    summary: 'Rotate the signing secret: the new one is in this answer only; the old one signs beside it for 24 h',
    noStore: true,
    description:
      'During the overlap (WEBHOOK_ROTATION_OVERLAP_MS) `webhook-signature` holds two signatures, space-separated: a receiver holding either secret verifies.',
    schemas: { params: endpointParams },
    responses: {
      200: { description: 'The endpoint, with its new signing secret', schema: endpointWithSecretSchema },
      401: noCredential,
      403: notAdmin,
      404: notFound,
    },
  }),
  testWebhook: defineSpec({
    method: 'post',
    path: '/webhooks/:id/test',
    level,
    tags,
    summary: 'Send a `webhook.test` event to this endpoint now (whatever it subscribed to)',
    schemas: { params: endpointParams },
    responses: {
      202: { description: 'The test delivery; its attempts are in the delivery log', schema: testDeliverySchema },
      401: noCredential,
      403: notAdmin,
      404: notFound,
    },
  }),
  listWebhookDeliveries: defineSpec({
    method: 'get',
    path: '/webhooks/:id/deliveries',
    level,
    tags,
    summary: 'The delivery log of an endpoint: filters on status, type, eventId, createdAt; page or after, limit, count',
    description:
      'Each delivery with every attempt: its time, status code or error, duration and the first 4 KiB of the answer. Kept WEBHOOK_LOG_RETENTION_MS (30 days).',
    schemas: { params: endpointParams, query: listDeliveriesQuery },
    responses: {
      200: { description: 'One page of deliveries', schema: deliveryListingSchema },
      400: invalid,
      401: noCredential,
      403: notAdmin,
      404: notFound,
    },
  }),
  getWebhookDelivery: defineSpec({
    method: 'get',
    path: '/webhooks/:id/deliveries/:deliveryId',
    level,
    tags,
    summary: 'One delivery with every attempt',
    schemas: { params: deliveryParams },
    responses: {
      200: { description: 'The delivery', schema: deliveryViewSchema },
      401: noCredential,
      403: notAdmin,
      404: { errors: [E.webhook_not_found, E.delivery_not_found] },
    },
  }),
  retryWebhookDelivery: defineSpec({
    method: 'post',
    path: '/webhooks/:id/deliveries/:deliveryId/retry',
    level,
    tags,
    summary: 'Send a delivery again now, whatever became of it; should it fail, the retry schedule goes on from where the delivery was',
    schemas: { params: deliveryParams },
    responses: {
      202: { description: 'The delivery, now due', schema: deliveryViewSchema },
      401: noCredential,
      403: notAdmin,
      404: { errors: [E.webhook_not_found, E.delivery_not_found] },
    },
  }),
};

/** What the gateway reads: every route with its default level. */
export const api: ServiceApi = webhooksApi;
