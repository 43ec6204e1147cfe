import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditActor, AuditOutcome, AuditSubject } from '@restgate/shared/resource';

/** What an event says, before the log gives it its place (`seq`) and its links (`prevHash`, `hash`). */
export interface AuditInput {
  /** Unique, and the same on every redelivery of what it comes from: the log stores it once. */
  id: string;
  at: Date;
  type: string;
  outcome: AuditOutcome;
  actor: AuditActor;
  subject: AuditSubject | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string;
  details: Record<string, unknown>;
}

/** A stored record: the input, its place in the log, and its links in the chain. */
export interface AuditRecord extends AuditInput {
  seq: number;
  prevHash: string;
  hash: string;
}

/** The `prevHash` of the first record ever stored. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The record as JSON, the form that is hashed and answered: `at` as ISO 8601, every member
 * present (null, not absent), so that what the API shows is what was hashed.
 */
export function recordJson(record: Omit<AuditRecord, 'hash'> & { hash?: string }): Record<string, unknown> {
  return {
    id: record.id,
    at: record.at.toISOString(),
    type: record.type,
    outcome: record.outcome,
    actor: record.actor,
    subject: record.subject,
    ip: record.ip,
    userAgent: record.userAgent,
    requestId: record.requestId,
    details: record.details,
    seq: record.seq,
    prevHash: record.prevHash,
    ...(record.hash === undefined ? {} : { hash: record.hash }),
  };
}

/**
 * A record's hash: SHA-256 (hex) of its canonical JSON (RFC 8785) without `hash`, which includes
 * `prevHash`, the previous record's hash. Changing any member of any record, or removing or
 * reordering one, breaks the chain from there on.
 */
export function hashOf(record: Omit<AuditRecord, 'hash'>): string {
  const { hash: _omitted, ...rest } = recordJson(record);
  return createHash('sha256').update(canonicalize(rest)!, 'utf8').digest('hex');
}
