import { errors, type AppError } from '../../errors';
import { entityTag, ifMatchTags } from '../../http/conditional';
import type { Principal } from '../../principal';
import type { ListingQuery } from '../../data/listing';
import { allOf } from '../../data/listing-page';
import type { ResourceRepository } from '../repository';
import type { StoredRecord } from './compile';
import { assertFieldsWritable, hiddenFields, ruleCaller, ruleRefusal, type ResourceRules } from './resource-rules';

/**
 * The use cases of a resource whose action has a rule expression (a preset keeps the level
 * checks it always had). Every read path takes the rule's filter into its query, so a record the
 * rule refuses is never loaded; a write is one call filtered by id, rule, the rules of the fields
 * it writes and the If-Match version, and only when it matches nothing is the record read again,
 * to answer why: 404 (not readable), 412 (another version), 403 `field_not_writable`, 403 `rule_denied`.
 * A write also needs the read rule: a record the caller may not read is a 404 to every action.
 */
export interface RuleGuard {
  /** What a list adds to its query for `principal`: the rule, and for each filtered field with a read rule, that rule. */
  listWhere(principal: Principal, query: ListingQuery): Record<string, unknown>;
  /**
   * One record as `principal` may read it, or null (a 404, as for an unknown id). Read by id, then
   * the rule's predicate: the same compiled rule as the filter (the property test holds them to
   * each other), without making PostgreSQL combine the id's index with the rule's.
   */
  read<M extends { id: string; version: number }>(repository: ResourceRepository<M>, id: string, principal: Principal): Promise<M | null>;
  /** Refuses a create the rule (or a field's write rule) refuses, judged on the record it would make. */
  assertCreate(record: StoredRecord, body: Record<string, unknown>, principal: Principal): void;
  update<M extends { id: string; version: number }>(
    repository: ResourceRepository<M>,
    input: { id: string; changes: Record<string, unknown>; principal: Principal; ifMatch?: string },
  ): Promise<M>;
  remove<M extends { id: string; version: number }>(
    repository: ResourceRepository<M>,
    input: { id: string; principal: Principal; ifMatch?: string },
  ): Promise<void>;
  /** The fields `principal` may not see of `record`, and the record's ETag as they see it. */
  view(record: StoredRecord & { id: string; version: number }, principal: Principal): { hidden: string[]; etag: string };
}

/** The version an If-Match names for record `id`: undefined for none or `*`, -1 for a tag of something else. */
export function versionInIfMatch(ifMatch: string | undefined, id: string): number | undefined {
  const tags = ifMatchTags(ifMatch);
  if (tags === undefined || tags === '*') return undefined;
  for (const tag of tags) {
    const match = /^"([0-9a-f]{24})\.(\d+)(~[A-Za-z0-9_,]*)?"$/.exec(tag);
    if (match && match[1] === id) return Number(match[2]);
  }
  return -1;
}

/** The ETag of what a caller sees: the record's own tag, marked with the fields hidden from them (another view, another tag). */
export function visibleTag(id: string, version: number, hidden: readonly string[]): string {
  const tag = entityTag(id, version);
  return hidden.length === 0 ? tag : `${tag.slice(0, -1)}~${[...hidden].sort().join(',')}"`;
}

export function createRuleGuard(rules: ResourceRules, options: { production: boolean; notFound: () => AppError }): RuleGuard {
  const { actions, fields } = rules;
  const writtenFieldRules = (body: Record<string, unknown>) =>
    Object.entries(fields).filter(([name, field]) => body[name] !== undefined && field.write) as Array<
      [string, { write: NonNullable<(typeof fields)[string]['write']> }]
    >;

  /** After a write matched nothing: why, from the record as the caller may read it. */
  async function whyRefused<M extends { id: string; version: number }>(
    repository: ResourceRepository<M>,
    action: 'update' | 'delete',
    input: { id: string; principal: Principal; ifMatch?: string },
    body: Record<string, unknown>,
  ): Promise<AppError | null> {
    const caller = ruleCaller(input.principal);
    const current = await repository.findById(input.id, actions.read.filter(caller));
    if (!current) return options.notFound();
    const version = versionInIfMatch(input.ifMatch, input.id);
    if (version !== undefined && version !== current.version) return errors.preconditionFailed();
    const record = current as unknown as StoredRecord;
    for (const [name, field] of writtenFieldRules(body)) {
      if (!field.write.test(record, caller, body))
        return errors.fieldNotWritable(
          name,
          options.production ? undefined : `You may not write ${name}: its rule is ${field.write.expression}`,
        );
    }
    if (!actions[action].test(record, caller, body)) return ruleRefusal(options.production, actions[action], record, caller, body);
    return null; // it changed in between: the caller may try again
  }

  return {
    listWhere(principal, query) {
      const caller = ruleCaller(principal);
      const filtered = new Set((query.filters ?? []).map((f) => f.field));
      const fieldRules = Object.entries(fields)
        .filter(([name, field]) => field.read && filtered.has(name))
        .map(([, field]) => field.read!.filter(caller));
      return allOf(actions.list.filter(caller), ...fieldRules);
    },

    async read(repository, id, principal) {
      const record = await repository.findById(id);
      return record && actions.read.test(record as unknown as StoredRecord, ruleCaller(principal)) ? record : null;
    },

    assertCreate(record, body, principal) {
      const caller = ruleCaller(principal);
      if (!actions.create.test(record, caller, body)) throw ruleRefusal(options.production, actions.create, record, caller, body);
      assertFieldsWritable(rules, body, record, caller);
    },

    async update(repository, input) {
      const caller = ruleCaller(input.principal);
      const version = versionInIfMatch(input.ifMatch, input.id);
      // A record is written only where the caller may read it: no answer tells of one it may not.
      const where = allOf(
        actions.read.filter(caller),
        actions.update.filter(caller, input.changes),
        ...writtenFieldRules(input.changes).map(([, f]) => f.write.filter(caller, input.changes)),
      );
      // Two tries: a record that changed between a refused write and the read that explains it is written again.
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const updated = await repository.update(input.id, { ...input.changes, updatedAt: new Date() } as never, version, where);
        if (updated) return updated;
        const refusal = await whyRefused(repository, 'update', input, input.changes);
        if (refusal) throw refusal;
      }
      throw errors.preconditionFailed();
    },

    async remove(repository, input) {
      const caller = ruleCaller(input.principal);
      const version = versionInIfMatch(input.ifMatch, input.id);
      for (let attempt = 0; attempt < 2; attempt += 1) {
        if (await repository.remove(input.id, version, allOf(actions.read.filter(caller), actions.delete.filter(caller)))) return;
        const refusal = await whyRefused(repository, 'delete', input, {});
        if (refusal) throw refusal;
      }
      throw errors.preconditionFailed();
    },

    view(record, principal) {
      const hidden = hiddenFields(rules, record, ruleCaller(principal));
      return { hidden, etag: visibleTag(record.id, record.version, hidden) };
    },
  };
}
