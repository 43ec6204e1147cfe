import fs from 'node:fs';
import path from 'node:path';
import { errors } from '../errors';
import { assertAccess } from '../http/routes';
import type { Principal } from '../principal';
import { ROOT_DIR, type RoutedService } from '../registry';
import { routeLevel } from './definition';
import { defineView } from './view';
import { compileRule, type CompiledRule } from './rules/compile';
import { compileResourceRules, hiddenFields, ruleCaller, type ResourceRules } from './rules/resource-rules';

/**
 * Who may see what of a change event, decided with the resource's own compiled rules: the same
 * `compileResourceRules` of the same `resource.ts` the service runs (read from the file it
 * builds), so neither realtime nor webhooks can check access differently from REST. A collection
 * scope follows the list rule, a record scope the read rule; field read rules hide fields in both.
 */
export interface RecordAccess {
  name: string;
  /** Refuses (401/403) a topic the principal may never see anything of: the action's level is a preset it does not pass. */
  assertMayWatch(principal: Principal, scope: 'collection' | 'record'): void;
  /** The reader's view of a record (an event's, as stored), or null when their rule refuses it. */
  view(record: Record<string, unknown>, principal: Principal, scope: 'collection' | 'record'): Record<string, unknown> | null;
}

type Definition = Parameters<typeof compileResourceRules>[0];

/** A stored record as JSON carried it, with its dates made dates again (rules compare dates as dates). */
function hydrate(definition: Definition, record: Record<string, unknown>): Record<string, unknown> {
  const dates = [
    'createdAt',
    'updatedAt',
    ...Object.entries(definition.fields)
      .filter(([, f]) => f.type === 'date')
      .map(([n]) => n),
  ];
  const out = { ...record };
  for (const name of dates) if (typeof out[name] === 'string') out[name] = new Date(out[name] as string);
  return out;
}

export function recordAccess(definition: Definition): RecordAccess {
  const rules: ResourceRules = compileResourceRules(definition);
  const render = defineView(definition);
  const ruleOf = (scope: 'collection' | 'record') => rules.actions[scope === 'collection' ? 'list' : 'read'];
  return {
    name: definition.name,
    assertMayWatch(principal, scope) {
      const rule = ruleOf(scope);
      const action = scope === 'collection' ? 'list' : 'read';
      if (rule.preset) assertAccess(routeLevel(definition.access[action]), principal);
    },
    view(record, principal, scope) {
      const stored = hydrate(definition, record);
      const caller = ruleCaller(principal);
      if (!ruleOf(scope).test(stored, caller)) return null;
      const hidden = new Set(hiddenFields(rules, stored, caller));
      const view = render(stored as { id: string });
      return hidden.size === 0 ? view : Object.fromEntries(Object.entries(view).filter(([key]) => !hidden.has(key)));
    },
  };
}

/** What the users' events show: a user's full view (GET /users/:id), nothing of their credentials. */
const USER_VIEW_FIELDS = ['id', 'name', 'picture', 'email', 'role', 'emailVerified', 'createdAt'];

/** Users as rules see them: the fields of the view. */
const USERS: Definition = {
  name: 'users',
  singular: 'user',
  fields: {
    name: { type: 'string' },
    picture: { type: 'url' },
    email: { type: 'email' },
    role: { type: 'enum', values: ['user', 'admin'] },
    emailVerified: { type: 'boolean' },
  },
  searchable: [],
  sortable: [],
  defaultSort: '-createdAt',
  access: { create: 'user', list: 'admin', read: 'user', update: 'user', delete: 'user' },
};

/**
 * Users: each user sees their own record, an admin (with the second factor MFA_REQUIRED_ROLES
 * asks for) everyone's, as GET /users/:id answers them. Compiled as a rule like any resource's.
 */
export function usersAccess(): RecordAccess {
  // A user owns their own record: the `owner` preset, with the record's id as its owner's.
  const self: CompiledRule = compileRule(USERS, 'read', 'owner');
  return {
    name: 'users',
    assertMayWatch(principal) {
      if (principal.kind === 'anonymous') throw errors.unauthorized('This topic needs a credential.', false);
      if (principal.kind !== 'user') throw errors.forbidden('Users topics need a user token.');
    },
    view(record, principal) {
      if (!self.test({ ...record, userId: record.id }, ruleCaller(principal))) return null;
      return Object.fromEntries(USER_VIEW_FIELDS.filter((key) => record[key] !== undefined).map((key) => [key, record[key]]));
    },
  };
}

/** Where a service's compiled resource definition is: `<dir>/dist/resource.js` (a generated resource's service has one). */
export const compiledResourceFile = (service: RoutedService): string => path.join(ROOT_DIR, service.dir, 'dist', 'resource.js');

/**
 * The resource definitions of the services that have one, read from the files they build (data
 * only, like their route specs): the export that is a definition (`name`, `fields`, `access`).
 */
export function loadRecordAccess(services: readonly RoutedService[], fileOf = compiledResourceFile): RecordAccess[] {
  const found: RecordAccess[] = [usersAccess()];
  for (const service of services) {
    const file = fileOf(service);
    if (!fs.existsSync(file)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exported = Object.values(require(file) as Record<string, unknown>);
    const definition = exported.find(
      (value): value is Definition => !!value && typeof value === 'object' && 'name' in value && 'fields' in value && 'access' in value,
    );
    if (definition) found.push(recordAccess(definition));
  }
  return found;
}
