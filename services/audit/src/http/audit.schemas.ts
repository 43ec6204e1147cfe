import type { ObjectSchema } from 'joi';
import { Joi } from '@restgate/shared';
import { listingQuerySchema, type ListingQuery } from '@restgate/shared/data';
import { AUDIT_LISTING, SECURITY_EVENT_LISTING } from '../domain/audit-filters';

const date = Joi.string().isoDate();
const hash = Joi.string().pattern(/^[0-9a-f]{64}$/);

export const listAuditEventsQuery = listingQuerySchema(AUDIT_LISTING) as ObjectSchema<ListingQuery>;
export const listSecurityEventsQuery = listingQuerySchema(SECURITY_EVENT_LISTING) as ObjectSchema<ListingQuery>;

export const auditEventParams = Joi.object<{ id: string }>({
  id: Joi.string().max(200).required().description('Audit event id.'),
});

/** `GET /audit-events/export`: what to export, by time (and type); no paging: it streams. */
export interface ExportQuery {
  'at[gte]'?: Date;
  'at[lt]'?: Date;
  'type[in]'?: string[];
}
export const exportQuery = Joi.object<ExportQuery>({
  'at[gte]': Joi.date().iso().description('Events at or after this time (RFC 3339).'),
  'at[lt]': Joi.date().iso().description('Events before this time (RFC 3339).'),
  'type[in]': Joi.array()
    .items(Joi.string().max(100))
    .max(50)
    .single()
    .description('Only these types, comma-separated.')
    .custom((value: string[]) => value.flatMap((v) => v.split(',')).filter(Boolean)),
});

/** `GET /audit-events/verify`: the range of `seq` to check (both ends included; the whole log by default). */
export const verifyQuery = Joi.object<{ from?: number; to?: number }>({
  from: Joi.number().integer().min(1).description('The first `seq` to check.'),
  to: Joi.number().integer().min(Joi.ref('from')).description('The last `seq` to check.'),
});

const actor = Joi.object({
  kind: Joi.string().valid('user', 'admin', 'master-key', 'anonymous', 'system'),
  id: Joi.string().allow(null),
});
const subject = Joi.object({ kind: Joi.string(), id: Joi.string().allow(null) }).allow(null);

export const auditEventSchema = Joi.object({
  id: Joi.string(),
  at: date,
  type: Joi.string().example('auth.sign_in.succeeded'),
  outcome: Joi.string().valid('success', 'failure'),
  actor,
  subject,
  ip: Joi.string()
    .allow(null)
    .description("The client's address as the gateway resolved it (through TRUSTED_PROXIES); null only for work outside a request."),
  userAgent: Joi.string().allow(null),
  requestId: Joi.string().description('The request (`X-Request-Id`); `system` for work outside a request.'),
  details: Joi.object()
    .unknown(true)
    .description('What else the event says: reason codes, methods, ids. Never a password, token, code or secret.'),
  seq: Joi.number().integer().description('Its place in the log: 1, 2, 3… with no gaps.'),
  prevHash: hash.description("The previous record's `hash` (64 zeros for the first)."),
  hash: hash.description("SHA-256 (hex) of this record's RFC 8785 canonical JSON without `hash`."),
}).description('One audit event.');
export const auditListingSchema = Joi.object({ count: Joi.number().integer(), rows: Joi.array().items(auditEventSchema) });

export const securityEventSchema = Joi.object({
  id: Joi.string(),
  at: date,
  type: Joi.string(),
  outcome: Joi.string().valid('success', 'failure'),
  actor,
  ip: Joi.string().allow(null),
  userAgent: Joi.string().allow(null),
  details: Joi.object().unknown(true),
}).description("One security event of the caller's own account.");
export const securityListingSchema = Joi.object({ count: Joi.number().integer(), rows: Joi.array().items(securityEventSchema) });

export const verifySchema = Joi.object({
  ok: Joi.boolean().description('Every record checked holds.'),
  checked: Joi.number().integer(),
  first: Joi.number().integer().allow(null).description('The first `seq` checked.'),
  last: Joi.number().integer().allow(null).description('The last `seq` checked.'),
  broken: Joi.object({
    seq: Joi.number().integer(),
    id: Joi.string(),
    reason: Joi.string()
      .valid('hash_mismatch', 'link_broken', 'record_missing')
      .description(
        "`hash_mismatch`: the record was changed; `link_broken`: its `prevHash` is not the previous record's hash; `record_missing`: the record before it is gone.",
      ),
  })
    .allow(null)
    .description('The first broken link, or null.'),
});
