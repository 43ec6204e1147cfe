import { Joi } from '@restgate/shared';
import type { FilterSpec, ListingSpec } from '@restgate/shared/data';

const text = (max: number) => Joi.string().max(max);

/** The filters of `GET /audit-events` (and, on their own events, of `GET /users/me/security-events`). */
export const AUDIT_FILTERS: FilterSpec[] = [
  { name: 'type', type: 'string', value: text(100), ops: ['eq', 'ne', 'in', 'prefix'] },
  { name: 'outcome', type: 'enum', values: ['success', 'failure'] },
  { name: 'actor.kind', type: 'enum', values: ['user', 'admin', 'master-key', 'anonymous', 'system'] },
  { name: 'actor.id', type: 'string', value: text(64), ops: ['eq', 'ne', 'in'], optional: true },
  { name: 'subject.kind', type: 'string', value: text(64), ops: ['eq', 'in'] },
  { name: 'subject.id', type: 'string', value: text(64), ops: ['eq', 'ne', 'in'], optional: true },
  { name: 'ip', type: 'string', value: text(64), ops: ['eq', 'ne', 'in', 'prefix'] },
  { name: 'requestId', type: 'string', value: text(128), ops: ['eq'] },
  { name: 'at', type: 'date' },
  { name: 'seq', type: 'integer', value: Joi.number().integer().min(1) },
];

export const AUDIT_LISTING: ListingSpec = {
  searchable: ['type'],
  sortable: ['seq', 'at'],
  selectable: ['id', 'at', 'type', 'outcome', 'actor', 'subject', 'ip', 'userAgent', 'requestId', 'details', 'seq', 'prevHash', 'hash'],
  defaultSort: '-seq',
  filters: AUDIT_FILTERS,
};

/** What a user sees of their own events: these filters only (the subject is them). */
export const SECURITY_EVENT_LISTING: ListingSpec = {
  searchable: ['type'],
  sortable: ['seq', 'at'],
  selectable: ['id', 'at', 'type', 'outcome', 'actor', 'ip', 'userAgent', 'details'],
  defaultSort: '-seq',
  filters: AUDIT_FILTERS.filter((f) => ['type', 'outcome', 'at'].includes(f.name)),
};
