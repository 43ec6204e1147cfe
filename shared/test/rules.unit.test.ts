import {
  compileResourceRules,
  compileRule,
  defineResource,
  ruleRefusal,
  RuleError,
  visibleTag,
  versionInIfMatch,
  type RuleCaller,
} from '../src/resource';

const notes = defineResource({
  name: 'notes',
  singular: 'note',
  fields: {
    title: { type: 'string', required: true, max: 200 },
    status: { type: 'enum', values: ['draft', 'published'], required: true },
    pages: { type: 'integer' },
    due: { type: 'date' },
    featured: { type: 'boolean' },
  },
  searchable: ['title'],
  sortable: ['createdAt'],
  defaultSort: '-createdAt',
  access: { create: 'user', list: 'public', read: 'public', update: 'owner', delete: 'owner' },
});

const anonymous: RuleCaller = { id: null, role: null, amr: [] };
const alice: RuleCaller = { id: 'u1', role: 'user', amr: ['pwd'] };
const admin: RuleCaller = { id: 'u9', role: 'admin', amr: ['pwd', 'mfa'] };

function refusal(source: string, action: 'list' | 'read' | 'create' | 'update' | 'delete' = 'read'): RuleError {
  try {
    compileRule(notes, action, source);
  } catch (err) {
    if (err instanceof RuleError) return err;
    throw err;
  }
  throw new Error(`compiled: ${source}`);
}

describe('compiling a rule', () => {
  test('when a rule reads published records or the caller’s own, then the filter says so for that caller', () => {
    const rule = compileRule(notes, 'read', 'status = "published" || user.id = @auth.id');
    expect(rule.filter(alice)).toEqual({ $or: [{ status: { $eq: 'published' } }, { userId: { $eq: 'u1' } }] });
    expect(rule.test({ status: 'draft', userId: 'u1' }, alice)).toBe(true);
    expect(rule.test({ status: 'draft', userId: 'u2' }, alice)).toBe(false);
  });

  test('when a clause depends on the caller alone, then it is decided before the query', () => {
    const rule = compileRule(notes, 'delete', 'admin');
    expect(rule.filter(admin)).toEqual({});
    expect(rule.filter(alice)).toEqual({ _id: { $in: [] } });
  });

  test('when the preset is owner, then an anonymous caller owns nothing, not even a record without an owner', () => {
    const rule = compileRule(notes, 'update', 'owner');
    expect(rule.test({ title: 'x' }, anonymous)).toBe(false);
    expect(rule.filter(anonymous)).toEqual({ _id: { $in: [] } });
    expect(rule.test({ userId: 'u1' }, alice)).toBe(true);
    expect(rule.test({ userId: 'u1' }, admin)).toBe(true);
  });

  test('when a rule compares a date field with an ISO string, then both forms compare dates', () => {
    const rule = compileRule(notes, 'list', 'due < "2026-06-01T00:00:00Z"');
    expect(rule.filter(alice)).toEqual({ due: { $lt: new Date('2026-06-01T00:00:00Z') } });
    expect(rule.test({ due: new Date('2026-01-01') }, alice)).toBe(true);
    expect(rule.test({}, alice)).toBe(false);
  });

  test('when a rule refuses values of the body, then it sees the body on create', () => {
    const rule = compileRule(notes, 'create', 'status != "published" || @auth.role = "admin"');
    expect(rule.filter(alice, { status: 'published' })).toEqual({ status: { $ne: 'published' } });
    const bodyRule = compileRule(notes, 'create', '@request.body.status != "published" || @auth.role = "admin"');
    expect(bodyRule.filter(alice, { status: 'published' })).toEqual({ _id: { $in: [] } });
    expect(bodyRule.filter(admin, { status: 'published' })).toEqual({});
  });
});

describe('a rule that cannot compile stops the service at start, saying where', () => {
  test.each([
    ['unknown field', 'titel = "x"', /^notes rule read "titel = "x"": unknown field titel \(fields: title, status/, 1],
    ['a field compared with a value of another type', 'pages = "ten"', /compares a number with a string/, 1],
    ['a field compared with a field', 'title = status', /not with another field/, 1],
    ['an ordering on booleans', 'featured < true', /booleans compare with = and != only/, 1],
    ['null ordered', 'pages < null', /null compares with = and != only/, 1],
    ['an unknown caller value', '@auth.email = "x"', /@auth has id, role and amr/, 1],
    ['the body on a read', '@request.body.title = "x"', /@request.body exists on create and update only/, 1],
    ['an unclosed string', 'title = "x', /a string is not closed/, 9],
    ['a regular expression', 'title ~ "x"', /unexpected "~"/, 7],
    ['text after the rule', 'title = "x" title', /unexpected text after the rule/, 13],
  ])('%s', (_what, source, message, position) => {
    const err = refusal(source);
    expect(err.message).toMatch(message);
    expect(err.at + 1).toBe(position);
  });

  test('more than 32 comparisons, or deeper than 8 levels', () => {
    const many = Array.from({ length: 33 }, (_, i) => `pages = ${i}`).join(' || ');
    expect(refusal(many).message).toMatch(/more than 32 comparisons/);
    const deep = `${'!('.repeat(8)}pages = 1${')'.repeat(8)}`;
    expect(refusal(deep).message).toMatch(/deeper than 8 levels/);
    expect(() => compileRule(notes, 'read', `${'!('.repeat(7)}pages = 1${')'.repeat(7)}`)).not.toThrow();
  });
});

describe('refusals and tags', () => {
  const rule = compileRule(notes, 'update', 'user.id = @auth.id && status != "published"');

  test('when not in production, then the refusal names the clause that refused; in production it does not', () => {
    const record = { userId: 'u1', status: 'published' };
    expect(ruleRefusal(false, rule, record, alice).detail).toBe('Refused by the rule: status != "published"');
    expect(ruleRefusal(false, rule, record, admin).detail).toBe('Refused by the rule: user.id = @auth.id');
    const production = ruleRefusal(true, rule, record, alice);
    expect(production.code).toBe('rule_denied');
    expect(production.detail).not.toContain('status');
  });

  test('when fields are hidden, then the ETag says which; If-Match gives back the version for this record only', () => {
    const id = '0123456789abcdef01234567';
    expect(visibleTag(id, 3, [])).toBe(`"${id}.3"`);
    expect(visibleTag(id, 3, ['secret', 'note'])).toBe(`"${id}.3~note,secret"`);
    expect(versionInIfMatch(`W/"x", "${id}.3~note,secret"`, id)).toBe(3);
    expect(versionInIfMatch(`"${id}.4"`, id)).toBe(4);
    expect(versionInIfMatch('"ffffffffffffffffffffffff.4"', id)).toBe(-1);
    expect(versionInIfMatch('*', id)).toBeUndefined();
    expect(versionInIfMatch(undefined, id)).toBeUndefined();
  });

  test('when a field with a read rule is sortable or searched, then the resource does not start', () => {
    expect(() =>
      compileResourceRules({ ...notes, fields: { ...notes.fields, title: { ...notes.fields.title, read: 'user.id = @auth.id' } } }),
    ).toThrow(/notes field title: a field with a read rule can be neither sortable nor searched/);
  });
});
