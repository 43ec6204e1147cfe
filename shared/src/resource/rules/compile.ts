import type { AnyResourceDefinition, FieldType } from '../definition';
import { modelField } from '../definition';
import { parseRule, RuleError, type ComparisonOp, type Operand, type RuleNode } from './parse';

/**
 * A rule compiled once, at start, into the two forms every read path uses: a MongoDB filter
 * (lists, reads and writes: merged into the query, so counts, pages and cursors agree with it)
 * and a predicate over a stored record (what realtime, webhooks and `expand` check). Both come
 * from one tree, and a property test holds them to each other on generated records and callers.
 */

export type RuleAction = 'list' | 'read' | 'create' | 'update' | 'delete';
export const RULE_PRESETS = ['public', 'user', 'owner', 'admin', 'master'] as const;
export type RulePreset = (typeof RULE_PRESETS)[number];

/** The caller as a rule sees it. `role` is the role it acts with (an admin short of the second factor MFA asks for acts as a user). */
export interface RuleCaller {
  id: string | null;
  role: string | null;
  amr: readonly string[];
}

/** A stored record (its stored field names: the owner is `userId`). */
export type StoredRecord = Record<string, unknown>;

export interface CompiledRule {
  /** As written in `resource.ts`: a preset or an expression. */
  source: string;
  /** The expression a preset stands for, or the expression itself. */
  expression: string;
  /** The MongoDB filter of the records the rule lets `caller` act on (`{}`: every record). */
  filter(caller: RuleCaller, body?: Record<string, unknown>): Record<string, unknown>;
  /** Whether the rule lets `caller` act on `record`. */
  test(record: StoredRecord, caller: RuleCaller, body?: Record<string, unknown>): boolean;
  /** A part of this rule's expression, compiled for the same resource and action (to name the clause that refused). */
  clause(text: string): CompiledRule;
}

/** Whether a rule as written is a preset (a level) rather than an expression. */
export const isPreset = (source: string): source is RulePreset => (RULE_PRESETS as readonly string[]).includes(source);

/** What the presets mean, written in the rule language. */
export const PRESET_EXPRESSIONS: Record<RulePreset, string> = {
  public: 'true = true',
  user: '@auth.id != null',
  // `@auth.id != null`: an anonymous caller's id is null, which a record without an owner would equal.
  owner: '(@auth.id != null && user.id = @auth.id) || @auth.role = "admin"',
  admin: '@auth.role = "admin"',
  master: '@auth.role = "master"',
};

export const RULE_LIMITS = { maxClauses: 32, maxDepth: 8 } as const;

type ValueType = 'string' | 'number' | 'boolean' | 'date';

const TYPE_OF_FIELD: Record<FieldType, ValueType> = {
  string: 'string',
  text: 'string',
  email: 'string',
  url: 'string',
  enum: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
};

/** The record fields a rule may name (API names) and their types. */
function fieldTypes(definition: AnyResourceDefinition): Map<string, ValueType> {
  const types = new Map<string, ValueType>();
  for (const [name, def] of Object.entries(definition.fields)) types.set(name, TYPE_OF_FIELD[def.type]);
  types.set('user.id', 'string');
  types.set('createdAt', 'date');
  types.set('updatedAt', 'date');
  return types;
}

/** The stored field of a rule's field name. */
const storedField = (path: string) => (path === 'user.id' ? modelField('user') : path);

/**
 * Compiles a rule of `definition` for `action`; a fault (unknown field, a comparison across
 * types, too many clauses or too deep) is a RuleError naming the resource, the action and where.
 */
export function compileRule(definition: AnyResourceDefinition, action: RuleAction, source: string): CompiledRule {
  const expression = isPreset(source) ? PRESET_EXPRESSIONS[source] : source;
  let tree: RuleNode;
  const types = fieldTypes(definition);
  try {
    tree = parseRule(expression);
    check(tree, types, action);
  } catch (err) {
    if (err instanceof RuleError) throw new RuleError(`${definition.name} rule ${action} "${source}": ${err.detail}`, err.at);
    throw err;
  }
  const dates = new Set([...types].filter(([, type]) => type === 'date').map(([name]) => name));
  const context = (caller: RuleCaller, body: Record<string, unknown> = {}): Context => ({ caller, body, dates });
  return {
    source,
    expression,
    filter: (caller, body) => toFilter(tree, context(caller, body)),
    test: (record, caller, body) => holds(tree, record, context(caller, body)),
    clause: (text) => compileRule(definition, action, text),
  };
}

function check(tree: RuleNode, types: Map<string, ValueType>, action: RuleAction): void {
  let clauses = 0;
  const visit = (node: RuleNode, depth: number) => {
    if (depth > RULE_LIMITS.maxDepth) throw new RuleError(`deeper than ${RULE_LIMITS.maxDepth} levels`, node.at);
    if (node.kind === 'compare') {
      clauses += 1;
      if (clauses > RULE_LIMITS.maxClauses) throw new RuleError(`more than ${RULE_LIMITS.maxClauses} comparisons`, node.at);
      checkComparison(node, types, action);
    } else if (node.kind === 'not') visit(node.item, depth + 1);
    else node.items.forEach((item) => visit(item, depth + 1));
  };
  visit(tree, 1);
}

/** The type an operand has (`null` for the null literal, which compares with any type). */
function operandType(operand: Operand, types: Map<string, ValueType>, action: RuleAction): ValueType | 'null' | 'list' | 'amr' {
  switch (operand.kind) {
    case 'field': {
      const type = types.get(operand.path);
      if (!type) throw new RuleError(`unknown field ${operand.path} (fields: ${[...types.keys()].join(', ')})`, operand.at);
      return type;
    }
    case 'auth':
      return operand.name === 'amr' ? 'amr' : 'string';
    case 'body': {
      if (action === 'list' || action === 'read' || action === 'delete')
        throw new RuleError('@request.body exists on create and update only', operand.at);
      const type = types.get(operand.field);
      if (!type || operand.field === 'id' || operand.field === 'user.id' || operand.field === 'createdAt' || operand.field === 'updatedAt')
        throw new RuleError(`@request.body has the fields a client sends, not ${operand.field}`, operand.at);
      return type;
    }
    case 'literal':
      return operand.value === null ? 'null' : (typeof operand.value as 'string' | 'number' | 'boolean');
    case 'list':
      return 'list';
  }
}

function checkComparison(node: Extract<RuleNode, { kind: 'compare' }>, types: Map<string, ValueType>, action: RuleAction): void {
  const left = operandType(node.left, types, action);
  const right = operandType(node.right, types, action);
  if (node.left.kind === 'field' && node.right.kind === 'field')
    throw new RuleError('a rule compares a field with a value, not with another field', node.at);
  if (node.op === 'in') {
    if (right !== 'list' && right !== 'amr') throw new RuleError('in takes a list on its right: [..] or @auth.amr', node.right.at);
    if (right === 'amr' && left !== 'string') throw new RuleError('@auth.amr holds strings', node.left.at);
    if (right === 'list' && node.right.kind === 'list') {
      for (const value of node.right.values) {
        if (value !== null && !sameType(left, typeof value as ValueType))
          throw new RuleError(`the list holds a ${typeof value}, the left side is a ${left}`, node.right.at);
      }
    }
    return;
  }
  if (left === 'list' || right === 'list' || left === 'amr' || right === 'amr')
    throw new RuleError('a list is compared with in only', node.at);
  if (left === 'null' || right === 'null') {
    if (node.op !== '=' && node.op !== '!=') throw new RuleError('null compares with = and != only', node.at);
    return;
  }
  if (!sameType(left, right)) throw new RuleError(`compares a ${left} with a ${right}`, node.at);
  if (left === 'boolean' && node.op !== '=' && node.op !== '!=') throw new RuleError('booleans compare with = and != only', node.at);
}

/** Dates are written as strings in a rule (ISO 8601), so a date compares with a string. */
function sameType(a: ValueType | 'null' | 'list' | 'amr', b: ValueType | 'null' | 'list' | 'amr'): boolean {
  if (a === b) return true;
  return (a === 'date' && b === 'string') || (a === 'string' && b === 'date');
}

// ---------------------------------------------------------------------------------------------
// Evaluation: everything but the record's fields is known per request.

type Side = { record: true; field: string } | { record: false; value: unknown };
/** What a rule is evaluated with: the caller, the body, and which fields hold dates (whose literals are ISO strings). */
type Context = { caller: RuleCaller; body: Record<string, unknown>; dates: ReadonlySet<string> };

function resolve(operand: Operand, { caller, body }: Context, dateField: boolean): Side {
  switch (operand.kind) {
    case 'field':
      return { record: true, field: storedField(operand.path) };
    case 'auth':
      return { record: false, value: operand.name === 'amr' ? caller.amr : operand.name === 'id' ? caller.id : caller.role };
    case 'body':
      return { record: false, value: body[operand.field] ?? null };
    case 'literal':
      return { record: false, value: dateField && typeof operand.value === 'string' ? new Date(operand.value) : operand.value };
    case 'list':
      return { record: false, value: operand.values.map((v) => (dateField && typeof v === 'string' ? new Date(v) : v)) };
  }
}

/** The filter no record matches (what a refusal known before the query becomes). */
const NEVER: Record<string, unknown> = Object.freeze({ _id: Object.freeze({ $in: Object.freeze([]) }) });

function toFilter(node: RuleNode, ctx: Context): Record<string, unknown> {
  switch (node.kind) {
    case 'and': {
      const parts = node.items.map((item) => toFilter(item, ctx));
      if (parts.some((p) => p === NEVER)) return NEVER;
      const kept = parts.filter((p) => Object.keys(p).length > 0);
      return kept.length === 0 ? {} : kept.length === 1 ? kept[0]! : { $and: kept };
    }
    case 'or': {
      const parts = node.items.map((item) => toFilter(item, ctx));
      if (parts.some((p) => Object.keys(p).length === 0)) return {};
      const kept = parts.filter((p) => p !== NEVER);
      return kept.length === 0 ? NEVER : kept.length === 1 ? kept[0]! : { $or: kept };
    }
    case 'not': {
      const inner = toFilter(node.item, ctx);
      if (inner === NEVER) return {};
      if (Object.keys(inner).length === 0) return NEVER;
      return { $nor: [inner] };
    }
    case 'compare':
      return compareFilter(node, ctx);
  }
}

/** Whether a comparison is about a date field (or a body's date field): its string literals are dates. */
function aboutDates(node: Extract<RuleNode, { kind: 'compare' }>, { dates }: Context): boolean {
  const isDate = (o: Operand) => (o.kind === 'field' && dates.has(o.path)) || (o.kind === 'body' && dates.has(o.field));
  return isDate(node.left) || isDate(node.right);
}

function compareFilter(node: Extract<RuleNode, { kind: 'compare' }>, ctx: Context): Record<string, unknown> {
  const dates = aboutDates(node, ctx);
  const left = resolve(node.left, ctx, dates);
  const right = resolve(node.right, ctx, dates);
  if (!left.record && !right.record) return compareValues(node.op, left.value, right.value) ? {} : NEVER;
  // A field on the left; a comparison written the other way round is turned.
  const [field, value, op] = left.record
    ? [left.field, (right as { value: unknown }).value, node.op]
    : [(right as { field: string }).field, left.value, mirror(node.op)];
  switch (op) {
    case '=':
      return { [field]: value === null ? null : { $eq: value } };
    case '!=':
      return { [field]: { $ne: value } };
    case 'in':
      return { [field]: { $in: value as unknown[] } };
    default:
      if (value === null) return NEVER;
      return { [field]: { [`$${({ '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' } as const)[op]}`]: value } };
  }
}

/** `5 < f` is `f > 5`. `in` is not turned: its field is always on the left. */
function mirror(op: ComparisonOp): ComparisonOp {
  return ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as Record<string, ComparisonOp>)[op] ?? op;
}

function holds(node: RuleNode, record: StoredRecord, ctx: Context): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.every((item) => holds(item, record, ctx));
    case 'or':
      return node.items.some((item) => holds(item, record, ctx));
    case 'not':
      return !holds(node.item, record, ctx);
    case 'compare': {
      const dates = aboutDates(node, ctx);
      const value = (side: Side) => (side.record ? (record[side.field] ?? null) : side.value);
      return compareValues(node.op, value(resolve(node.left, ctx, dates)), value(resolve(node.right, ctx, dates)));
    }
  }
}

/** MongoDB's comparison for one type: null equals null (and a missing field); an order needs two values of one type. */
export function compareValues(op: ComparisonOp, a: unknown, b: unknown): boolean {
  if (op === 'in') return Array.isArray(b) && b.some((item) => equal(a, item));
  if (op === '=') return equal(a, b);
  if (op === '!=') return !equal(a, b);
  if (a === null || b === null || a === undefined || b === undefined) return false;
  const x = comparable(a);
  const y = comparable(b);
  if (typeof x !== typeof y || typeof x === 'boolean') return false;
  // Strings in MongoDB's order: by their UTF-8 bytes.
  const order = typeof x === 'string' ? Buffer.compare(Buffer.from(x), Buffer.from(y as string)) : Math.sign((x as number) - (y as number));
  switch (op) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

function comparable(value: unknown): string | number | boolean {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'object' && value !== null && 'toHexString' in value) return (value as { toHexString(): string }).toHexString();
  return value as string | number | boolean;
}

function equal(a: unknown, b: unknown): boolean {
  const x = a === undefined ? null : a;
  const y = b === undefined ? null : b;
  if (x === null || y === null) return x === y;
  const cx = comparable(x);
  const cy = comparable(y);
  return typeof cx === typeof cy && cx === cy;
}
