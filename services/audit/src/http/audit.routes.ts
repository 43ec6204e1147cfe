import { bindRoutes, type RouteDef } from '@restgate/shared/http';
import { listingResult, withFields } from '@restgate/shared/data';
import { auditApi } from '../api';
import type { AuditRepository } from '../data/audit.repository';
import { recordJson, type AuditRecord } from '../domain/audit-record';
import { auditErrors } from '../errors';

/** What a user sees of an event about them: not the chain's bookkeeping, nor whom else it names. */
function securityView(record: AuditRecord) {
  const { id, at, type, outcome, actor, ip, userAgent, details } = record;
  return { id, at: at.toISOString(), type, outcome, actor, ip, userAgent, details };
}

export function auditRoutes(deps: { records: AuditRepository }): RouteDef[] {
  return bindRoutes(auditApi, {
    listAuditEvents: async ({ query, url }) => {
      const { records, ...page } = await deps.records.list(query);
      return listingResult(
        records.map((r) => withFields(recordJson(r), query.fields)),
        page,
        query,
        url,
      );
    },
    exportAuditEvents: async ({ query }) => {
      const at: Record<string, Date> = {};
      if (query['at[gte]']) at.$gte = query['at[gte]'];
      if (query['at[lt]']) at.$lt = query['at[lt]'];
      const filter = {
        ...(Object.keys(at).length > 0 ? { at } : {}),
        ...(query['type[in]']?.length ? { type: { $in: query['type[in]'] } } : {}),
      };
      return {
        status: 200,
        headers: { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' },
        stream: deps.records.export(filter),
      };
    },
    verifyAuditEvents: async ({ query }) => {
      const { broken, ...checked } = await deps.records.verify(query.from, query.to);
      return { status: 200, body: { ok: broken === null, ...checked, broken } };
    },
    getAuditEvent: async ({ params }) => {
      const record = await deps.records.findById(params.id);
      if (!record) throw auditErrors.notFound();
      return { status: 200, body: recordJson(record) };
    },
    listSecurityEvents: async ({ principal, query, url }) => {
      const userId = principal.kind === 'user' ? principal.id : '';
      const { records, ...page } = await deps.records.list(query, { 'subject.kind': 'user', 'subject.id': userId });
      return listingResult(
        records.map((r) => withFields(securityView(r), query.fields)),
        page,
        query,
        url,
      );
    },
  });
}
