import { errors } from '../../errors';
import { actsAsAdmin, type Principal } from '../../principal';
import type { AccessLevel } from '../../http/routes';
import { routeLevel, type AnyResourceDefinition } from '../definition';
import { compileRule, isPreset, type CompiledRule, type RuleAction, type RuleCaller, type StoredRecord } from './compile';

/**
 * A resource's rules, compiled once at start (a fault throws, and the service does not start):
 * per action the rule `resource.ts` gives in `rules`, else its `access` level as a preset; per
 * field its optional `read` and `write` rules.
 */
export interface ResourceRules {
  actions: Record<RuleAction, CompiledRule & { preset: boolean }>;
  fields: Record<string, { read?: CompiledRule; write?: CompiledRule }>;
}

export const RULE_ACTIONS: readonly RuleAction[] = ['list', 'read', 'create', 'update', 'delete'];

export function compileResourceRules(definition: AnyResourceDefinition): ResourceRules {
  const actions = {} as ResourceRules['actions'];
  for (const action of RULE_ACTIONS) {
    const source = definition.rules?.[action] ?? definition.access[action];
    actions[action] = { ...compileRule(definition, action, source), preset: isPreset(source) };
  }
  const fields: ResourceRules['fields'] = {};
  for (const [name, def] of Object.entries(definition.fields)) {
    if (!def.read && !def.write) continue;
    if (def.read && (definition.sortable.includes(name) || definition.searchable.includes(name))) {
      throw new Error(
        `${definition.name} field ${name}: a field with a read rule can be neither sortable nor searched (its order or matches would show what the rule hides)`,
      );
    }
    fields[name] = {
      ...(def.read ? { read: compileRule(definition, 'read', def.read) } : {}),
      ...(def.write ? { write: compileRule(definition, 'update', def.write) } : {}),
    };
  }
  return { actions, fields };
}

/**
 * A route's level and rule, for its spec: a preset keeps its level at the gateway; an expression
 * is decided by the service (the gateway lets every caller through, a credential still verified).
 */
export function ruleSpec(definition: AnyResourceDefinition, action: RuleAction): { level: AccessLevel; rule: string } {
  const source = definition.rules?.[action] ?? definition.access[action];
  return { level: isPreset(source) ? routeLevel(source) : 'public', rule: source };
}

/** The caller as rules see it: an admin short of the second factor MFA asks for acts as a user; the master key's role is `master`. */
export function ruleCaller(principal: Principal): RuleCaller {
  if (principal.kind === 'user') return { id: principal.id, role: actsAsAdmin(principal) ? 'admin' : 'user', amr: principal.amr ?? [] };
  if (principal.kind === 'master') return { id: null, role: 'master', amr: [] };
  return { id: null, role: null, amr: [] };
}

/** The fields of `record` that `caller` may not read (by their field rules). */
export function hiddenFields(rules: ResourceRules, record: StoredRecord, caller: RuleCaller): string[] {
  return Object.entries(rules.fields)
    .filter(([, field]) => field.read && !field.read.test(record, caller))
    .map(([name]) => name);
}

/** Refuses (403 `field_not_writable`) a body that sets a field whose write rule refuses the caller on `record` (the would-be record on create). */
export function assertFieldsWritable(rules: ResourceRules, body: Record<string, unknown>, record: StoredRecord, caller: RuleCaller): void {
  for (const [name, field] of Object.entries(rules.fields)) {
    if (body[name] === undefined || !field.write) continue;
    if (!field.write.test(record, caller, body))
      throw errors.fieldNotWritable(name, `You may not write ${name}: its rule is ${field.write.expression}`);
  }
}

/**
 * The clause of `rule` that refuses `record` (the first top-level `&&` item that fails, or the
 * whole rule), for the problem's detail outside production.
 */
export function refusingClause(rule: CompiledRule, record: StoredRecord, caller: RuleCaller, body?: Record<string, unknown>): string {
  const parts = splitTopLevelAnd(rule.expression);
  if (parts.length > 1) {
    for (const part of parts) {
      if (!rule.clause(part).test(record, caller, body)) return part;
    }
  }
  return rule.expression;
}

/** The rule's refusal: in production without the clause (it would tell how to get around it). */
export function ruleRefusal(
  production: boolean,
  rule: CompiledRule,
  record: StoredRecord,
  caller: RuleCaller,
  body?: Record<string, unknown>,
) {
  return errors.ruleDenied(production ? undefined : `Refused by the rule: ${refusingClause(rule, record, caller, body)}`);
}

/** `a && (b || c) && d` → [`a`, `(b || c)`, `d`], at parenthesis depth 0 and outside strings. */
function splitTopLevelAnd(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (depth === 0 && text.startsWith('&&', i)) {
      parts.push(text.slice(start, i).trim());
      start = i + 2;
      i += 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}
