import { errorCatalogue, problem, sharedErrorCatalogue, type CodeOf, type ErrorEntry } from '@restgate/shared';

/**
 * The error codes only this service answers, on top of `sharedErrorCatalogue`. Route specs list
 * these entries for their error responses, and docs/errors.md is generated from them.
 */
export const auditErrorCatalogue = errorCatalogue({
  audit_event_not_found: { status: 404, title: 'Not found', detail: 'No audit event with this id.' },
} as const satisfies Record<string, ErrorEntry>);

export type AuditErrorCode = CodeOf<typeof auditErrorCatalogue>;

/** Every code this service answers: shared's and its own. */
export const auditCodes = { ...sharedErrorCatalogue, ...auditErrorCatalogue };

export const auditErrors = {
  notFound: () => problem(auditErrorCatalogue.audit_event_not_found),
};
