/**
 * The audit service's routes, described once: method, path, level, schemas and docs.
 * http/audit.routes.ts binds a handler to each; the gateway reads the compiled `api`
 * (dist/api.js) for its policy table. Data only: nothing here connects or starts.
 * No route changes or deletes an event: other methods on these paths answer 405.
 */
import { defineSpec, type ServiceApi } from '@restgate/shared/http';
import { auditCodes as E } from './errors';
import {
  auditEventParams,
  auditEventSchema,
  auditListingSchema,
  exportQuery,
  listAuditEventsQuery,
  listSecurityEventsQuery,
  securityListingSchema,
  verifyQuery,
  verifySchema,
} from './http/audit.schemas';

const tags = ['audit'];
const invalid = { errors: [E.validation_failed] };
const noCredential = { errors: [E.credential_missing, E.invalid_token, E.mfa_required] };
const notAdmin = { errors: [E.forbidden] };

export const auditApi = {
  listAuditEvents: defineSpec({
    method: 'get',
    path: '/audit-events',
    level: 'admin',
    tags,
    summary: 'The audit log: filters on type, outcome, actor, subject, ip, requestId, at, seq; page or after, limit, sort, count',
    description:
      'Sign-ins (succeeded, failed with the reason, refused), second steps, refreshes, logouts, ended sessions, password and MFA changes, e-mail verifications, social links, users created, deleted or given another role, and every write of an admin or the master key. Newest first by default.',
    schemas: { query: listAuditEventsQuery },
    responses: { 200: { description: 'One page of events', schema: auditListingSchema }, 400: invalid, 401: noCredential, 403: notAdmin },
  }),
  exportAuditEvents: defineSpec({
    method: 'get',
    path: '/audit-events/export',
    level: 'admin',
    tags,
    summary: 'Every event in a time range, oldest first, as NDJSON (one event per line), streamed',
    schemas: { query: exportQuery },
    responses: {
      200: { description: 'The events, each line one event as `GET /audit-events/:id` answers it', ndjson: true },
      400: invalid,
      401: noCredential,
      403: notAdmin,
    },
  }),
  verifyAuditEvents: defineSpec({
    method: 'get',
    path: '/audit-events/verify',
    level: 'admin',
    tags,
    summary: 'Recompute the hash chain over a range of seq: the first broken link, if any',
    description:
      "Each record's `hash` is recomputed from its content and the previous record's hash; a record changed in the database, removed, or put out of order breaks the chain there.",
    schemas: { query: verifyQuery },
    responses: { 200: { description: 'The verdict', schema: verifySchema }, 400: invalid, 401: noCredential, 403: notAdmin },
  }),
  getAuditEvent: defineSpec({
    method: 'get',
    path: '/audit-events/:id',
    level: 'admin',
    tags,
    summary: 'One audit event',
    schemas: { params: auditEventParams },
    responses: {
      200: { description: 'The event', schema: auditEventSchema },
      401: noCredential,
      403: notAdmin,
      404: { errors: [E.audit_event_not_found] },
    },
  }),
  listSecurityEvents: defineSpec({
    method: 'get',
    path: '/users/me/security-events',
    level: 'user',
    tags: ['users'],
    summary: "The caller's own security events: sign-ins and failures, devices, password, MFA and session changes",
    description:
      'What to look at after a suspicious mail: every audit event whose subject is the caller, with the address and device it came from. Newest first.',
    schemas: { query: listSecurityEventsQuery },
    responses: { 200: { description: 'One page of events', schema: securityListingSchema }, 400: invalid, 401: noCredential },
  }),
};

/** What the gateway reads (dist/api.js). */
export const api: ServiceApi = auditApi;
