import type { ObjectSchema } from 'joi';
import { Joi } from '@restgate/shared';
import { listingQuerySchema, type ListingQuery, type ListingSpec } from '@restgate/shared/data';
import { DELIVERY_FILTERS, DELIVERY_STATUSES } from '../domain/delivery-status';

export const MAX_PATTERNS = 50;

const url = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .description(
    'Absolute http(s) URL the events are POSTed to. In production only https://, and never an address that is loopback, private or link-local (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS is set).',
  )
  .example('https://hooks.example.com/restgate');

const events = Joi.array()
  .items(Joi.string().trim().min(1).max(100))
  .single()
  .min(1)
  .max(MAX_PATTERNS)
  .description(
    'Event types to deliver: `*`, `<resource>.*` or `<resource>.<created|updated|deleted>` (e.g. `articles.*`, `users.created`). A form body may repeat the field or give one comma-separated value.',
  )
  .example(['articles.*', 'users.created']);

const active = Joi.boolean().description('Whether events are delivered; turning it on again clears why the service turned it off.');
const description = Joi.string().trim().allow('').max(500).description('A note for admins.');

export interface EndpointInput {
  url: string;
  events: string[];
  active: boolean;
  description: string;
}

export const createEndpointBody = Joi.object<EndpointInput>({
  url: url.required(),
  events: events.required(),
  active: active.default(true),
  description: description.default(''),
});

export const updateEndpointBody = Joi.object<Partial<EndpointInput>>({ url, events, active, description });

export const endpointParams = Joi.object<{ id: string }>({ id: Joi.string().hex().length(24).required().description('Endpoint id.') });
export const deliveryParams = Joi.object<{ id: string; deliveryId: string }>({
  id: Joi.string().hex().length(24).required().description('Endpoint id.'),
  deliveryId: Joi.string().hex().length(24).required().description('Delivery id.'),
});

export const ENDPOINT_LISTING: ListingSpec = {
  searchable: ['url', 'description'],
  sortable: ['createdAt', 'url'],
  selectable: ['id', 'url', 'events', 'active', 'description', 'createdAt', 'updatedAt', 'failingSince', 'disabled'],
  defaultSort: '-createdAt',
  filters: [
    { name: 'active', type: 'boolean', value: Joi.boolean() },
    { name: 'createdAt', type: 'date' },
  ],
};

export const DELIVERY_LISTING: ListingSpec = {
  searchable: ['type', 'eventId'],
  sortable: ['createdAt'],
  selectable: ['id', 'eventId', 'type', 'status', 'requestId', 'createdAt', 'nextAt', 'attempts'],
  defaultSort: '-createdAt',
  filters: DELIVERY_FILTERS,
};

export const listEndpointsQuery = listingQuerySchema(ENDPOINT_LISTING) as ObjectSchema<ListingQuery>;
export const listDeliveriesQuery = listingQuerySchema(DELIVERY_LISTING) as ObjectSchema<ListingQuery>;

const date = Joi.string().isoDate();
export const endpointViewSchema = Joi.object({
  id: Joi.string(),
  url: Joi.string(),
  events: Joi.array().items(Joi.string()),
  active: Joi.boolean(),
  description: Joi.string().allow(''),
  createdAt: date,
  updatedAt: date,
  failingSince: date.allow(null).description('Since when every attempt has failed; null after a success.'),
  disabled: Joi.object({ at: date, reason: Joi.string() })
    .allow(null)
    .description('Set when the service turned the endpoint off (its deliveries failed for WEBHOOK_DISABLE_AFTER_MS): when and why.'),
}).description('A webhook endpoint (never its secret).');
export const endpointWithSecretSchema = endpointViewSchema
  .keys({
    secret: Joi.string()
      .pattern(/^whsec_/)
      .description('The signing secret (`whsec_…`): shown this once, stored encrypted.'),
  })
  .description('A webhook endpoint with its new signing secret, shown this once.');
export const endpointListingSchema = Joi.object({ count: Joi.number().integer(), rows: Joi.array().items(endpointViewSchema) });

const attemptSchema = Joi.object({
  at: date,
  status: Joi.number().integer().description("The receiver's status code; absent when no answer came."),
  error: Joi.string().description('Why no answer came (a network error, `timeout`, a refused address), or `redirect not followed`.'),
  durationMs: Joi.number().integer(),
  response: Joi.string().allow('').description("The first 4 KiB of the answer's body."),
  retryAfterMs: Joi.number().integer().description('The wait the receiver asked for (Retry-After).'),
});
export const deliveryViewSchema = Joi.object({
  id: Joi.string(),
  eventId: Joi.string().description('The change event: the `webhook-id` of every attempt.'),
  type: Joi.string(),
  status: Joi.string().valid(...DELIVERY_STATUSES),
  requestId: Joi.string().allow(null).description('The request that made the change.'),
  createdAt: date,
  nextAt: date.allow(null).description('When the next attempt is due; null once none will follow.'),
  attempts: Joi.array().items(attemptSchema),
}).description('A delivery of one event to one endpoint, with each attempt.');
export const deliveryListingSchema = Joi.object({ count: Joi.number().integer(), rows: Joi.array().items(deliveryViewSchema) });
export const testDeliverySchema = Joi.object({ deliveryId: Joi.string(), eventId: Joi.string() }).description(
  'The test delivery, now due.',
);
