import {
  assertMayActOn,
  assertMayTry,
  defineResource,
  defineView,
  resourceSchemas,
  routeLevel,
  type ModelOf,
} from '../src/resource';
import { listingSpecOf } from '../src/resource/schemas';

const gadgets = defineResource({
  name: 'gadgets',
  singular: 'gadget',
  fields: {
    name: { type: 'string', required: true, max: 10 },
    notes: { type: 'text' },
    count: { type: 'integer', min: 0 },
    active: { type: 'boolean' },
    releasedAt: { type: 'date' },
    status: { type: 'enum', values: ['draft', 'done'], required: true },
  },
  searchable: ['name', 'notes'],
  sortable: ['createdAt', 'updatedAt', 'name'],
  defaultSort: '-createdAt',
  access: { create: 'user', list: 'public', read: 'owner', update: 'owner', delete: 'admin' },
});
type Gadget = ModelOf<typeof gadgets>;

const schemas = resourceSchemas(gadgets);
const validate = (body: unknown) => schemas.createBody.validate(body, { abortEarly: false, convert: true });
const rulesOf = (body: unknown) => validate(body).error?.details.map((d) => `${d.path.join('.')}:${d.type}`) ?? [];

describe('resourceSchemas', () => {
  test('when a form-like body is valid, then values are converted to their types and strings trimmed', () => {
    const { value, error } = validate({
      name: '  box ',
      count: '7',
      active: 'true',
      releasedAt: '2026-01-02T03:04:05.006Z',
      status: 'done',
    });

    expect(error).toBeUndefined();
    expect(value).toEqual({ name: 'box', count: 7, active: true, releasedAt: new Date('2026-01-02T03:04:05.006Z'), status: 'done' });
  });

  test('when values break the definition, then each field is named with the rule it breaks', () => {
    expect(rulesOf({ name: 'x'.repeat(11), count: -1, active: 'maybe', releasedAt: 'soon', status: 'lost' }).sort()).toEqual(
      ['active:boolean.base', 'count:number.min', 'name:string.max', 'releasedAt:date.format', 'status:any.only'].sort(),
    );
    expect(rulesOf({})).toEqual(['name:any.required', 'status:any.required']);
  });

  test('when an update names no field, then it is refused with the list of fields', () => {
    const { error } = schemas.updateBody.validate({});

    expect(error?.message).toBe('send at least one of name, notes, count, active, releasedAt, status');
  });

  test('when the listing spec is derived, then every API field can be selected and the declared ones searched and sorted', () => {
    const { filters, ...spec } = listingSpecOf(gadgets);
    expect(filters!.map((f) => [f.name, f.type, f.optional ?? false])).toEqual([
      ['name', 'string', false],
      ['notes', 'string', true],
      ['count', 'integer', true],
      ['active', 'boolean', true],
      ['releasedAt', 'date', true],
      ['status', 'enum', false],
      ['user', 'id', false],
      ['createdAt', 'date', false],
      ['updatedAt', 'date', false],
    ]);
    expect(spec).toEqual({
      searchable: ['name', 'notes'],
      sortable: ['createdAt', 'updatedAt', 'name'],
      selectable: ['id', 'name', 'notes', 'count', 'active', 'releasedAt', 'status', 'user', 'createdAt', 'updatedAt'],
      defaultSort: '-createdAt',
    });
  });
});

describe('defineView', () => {
  const view = defineView<Gadget>(gadgets);
  const gadget: Gadget = {
    id: '65f0c0ffee00000000000001',
    name: 'box',
    status: 'draft',
    releasedAt: new Date('2026-01-02T03:04:05.006Z'),
    userId: '65f0c0ffee00000000000002',
    createdAt: new Date('2026-02-03T04:05:06.007Z'),
    updatedAt: new Date('2026-02-03T04:05:06.007Z'),
    version: 3,
  };

  test('when rendered, then id first, fields in declared order (unset ones left out), the owner as user.id, dates as ISO 8601', () => {
    const shown = view(gadget);

    expect(shown).toEqual({
      id: gadget.id,
      name: 'box',
      releasedAt: '2026-01-02T03:04:05.006Z',
      status: 'draft',
      user: { id: gadget.userId },
      createdAt: '2026-02-03T04:05:06.007Z',
      updatedAt: '2026-02-03T04:05:06.007Z',
    });
    expect(Object.keys(shown)).toEqual(['id', 'name', 'releasedAt', 'status', 'user', 'createdAt', 'updatedAt']);
  });

  test('when fields are selected, then only id and those', () => {
    expect(view({ id: gadget.id, userId: gadget.userId }, ['user'])).toEqual({ id: gadget.id, user: { id: gadget.userId } });
  });
});

describe('access', () => {
  const owner = { kind: 'user', id: 'o', role: 'user' } as const;

  test('when a level is owner, then the gateway sees user, and the service lets only the owner or an admin act', () => {
    expect(routeLevel('owner')).toBe('user');
    expect(routeLevel('admin')).toBe('admin');
    expect(() => assertMayTry('owner', { kind: 'anonymous' })).toThrow(expect.objectContaining({ status: 401 }));
    expect(() => assertMayTry('owner', { kind: 'master' })).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => assertMayActOn('owner', owner, 'o')).not.toThrow();
    expect(() => assertMayActOn('owner', { ...owner, role: 'admin', id: 'a' }, 'o')).not.toThrow();
    expect(() => assertMayActOn('owner', { ...owner, id: 'x' }, 'o')).toThrow(expect.objectContaining({ status: 403, code: 'not_owner' }));
  });

  test('when a level is not owner, then the service adds no check of its own (the route level holds)', () => {
    expect(() => assertMayTry('public', { kind: 'anonymous' })).not.toThrow();
    expect(() => assertMayActOn('user', { ...owner, id: 'x' }, 'o')).not.toThrow();
  });
});
