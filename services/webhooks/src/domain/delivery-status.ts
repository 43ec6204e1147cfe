import type { FilterSpec } from '@restgate/shared/data';

/**
 * What became of a delivery: `pending` (not tried yet), `retrying` (failed, tried again at
 * `nextAt`), `succeeded` (a 2xx), `failed` (no attempt follows: another 4xx, a redirect, a refused
 * address, or the retry schedule spent; `POST …/retry` sends it again).
 */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The filters of `GET /webhooks/:id/deliveries`. */
export const DELIVERY_FILTERS: FilterSpec[] = [
  { name: 'status', type: 'enum', values: DELIVERY_STATUSES },
  { name: 'type', type: 'string', ops: ['eq', 'in', 'prefix'] },
  { name: 'eventId', type: 'string', ops: ['eq'] },
  { name: 'createdAt', type: 'date' },
];
