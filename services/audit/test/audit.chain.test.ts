/**
 * The audit log's store on a real MongoDB-compatible server: two writers appending at once (two
 * replicas, or the retention job beside the intake) make one chain without gaps; an id stored
 * once is not stored again; retention removes a prefix of the chain and records that it did; and
 * the records the change events make.
 */
import { randomUUID } from 'node:crypto';
import { createLogger } from '@restgate/shared';
import { createMongo, type MongoHandle } from '@restgate/shared/data';
import { adminWriteOf, type AuditEvent, type ChangeEvent } from '@restgate/shared/resource';
import { TEST_PRINCIPAL_SECRET, testMongoUrl, uniqueDbName } from '@restgate/shared/testing';
import { AuditRepository } from '../src/data/audit.repository';
import { GENESIS_HASH, hashOf, type AuditInput } from '../src/domain/audit-record';
import { recordsOf } from '../src/domain/from-events';
import { applyRetention } from '../src/retention';

let mongo: MongoHandle;

beforeAll(async () => {
  mongo = createMongo(testMongoUrl(), uniqueDbName('audit'), createLogger({ name: 'audit-test', level: 'silent' }));
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

async function aLog(): Promise<AuditRepository> {
  const records = new AuditRepository(mongo.db, TEST_PRINCIPAL_SECRET);
  await records.collection.drop().catch(() => undefined);
  await records.ensureIndexes();
  return records;
}

function anInput(fields: Partial<AuditInput> = {}): AuditInput {
  return {
    id: randomUUID(),
    at: new Date(),
    type: 'auth.logout',
    outcome: 'success',
    actor: { kind: 'user', id: 'u1' },
    subject: { kind: 'user', id: 'u1' },
    ip: '192.0.2.1',
    userAgent: 'test',
    requestId: 'r1',
    details: {},
    ...fields,
  };
}

describe('the chain', () => {
  test('two writers appending 40 records each at once make one chain: seq 1..80, each linked to the one before, verify holds', async () => {
    const first = await aLog();
    const second = new AuditRepository(mongo.db, TEST_PRINCIPAL_SECRET);
    const inputs = Array.from({ length: 80 }, () => anInput());
    const halves = [inputs.slice(0, 40), inputs.slice(40)];
    const writers = [first, second].map(async (writer, i) => {
      for (const input of halves[i]!) expect(await writer.append(input)).toBe('stored');
    });
    await Promise.all(writers);

    const docs = await first.collection.find({}).sort({ _id: 1 }).toArray();
    expect(docs.map((d) => d._id)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(docs[0]!.prevHash).toBe(GENESIS_HASH);
    for (let i = 1; i < docs.length; i++) expect(docs[i]!.prevHash).toBe(docs[i - 1]!.hash);
    expect(new Set(docs.map((d) => d.eventId))).toEqual(new Set(inputs.map((input) => input.id)));
    expect(await first.verify()).toMatchObject({ checked: 80, first: 1, last: 80, broken: null });
  });

  test('an id stored already is not stored again, from either writer', async () => {
    const records = await aLog();
    const input = anInput();
    expect(await records.append(input)).toBe('stored');
    expect(await records.append(input)).toBe('duplicate');
    expect(await new AuditRepository(mongo.db, TEST_PRINCIPAL_SECRET).append(input)).toBe('duplicate');
    expect(await records.collection.countDocuments({ eventId: input.id })).toBe(1);
  });

  test('verify names an edited record, a record whose link was rewritten, and a record missing in the middle', async () => {
    const records = await aLog();
    for (let i = 0; i < 5; i++) await records.append(anInput());
    await records.collection.updateOne({ _id: 3 }, { $set: { ip: '203.0.113.9' } });
    expect((await records.verify()).broken).toMatchObject({ seq: 3, reason: 'hash_mismatch' });

    // The edit made whole again, with a recomputed hash: the next record's link no longer holds.
    const edited = (await records.collection.findOne({ _id: 3 }))!;
    const { _id, eventId, hash: _old, ...rest } = edited;
    await records.collection.updateOne({ _id: 3 }, { $set: { hash: hashOf({ ...rest, id: eventId, seq: _id } as never) } });
    expect((await records.verify()).broken).toMatchObject({ seq: 4, reason: 'link_broken' });
    expect(await records.verify(1, 3)).toMatchObject({ broken: null, checked: 3 });

    await records.collection.deleteOne({ _id: 4 });
    expect((await records.verify(5)).broken).toBeNull();
    expect((await records.verify(1, 5)).broken).toMatchObject({ seq: 5, reason: 'record_missing' });
  });
});

describe('retention', () => {
  test('removes the records older than the retention (a prefix, never the newest) and appends its own record, once per hour', async () => {
    const records = await aLog();
    const day = 86_400_000;
    const now = Date.now();
    for (const age of [400, 380, 370, 10, 1]) await records.append(anInput({ at: new Date(now - age * day) }));

    expect(await applyRetention(records, 365, new Date(now))).toBe(3);
    // Another replica in the same hour: nothing left to remove, nothing recorded twice.
    expect(await applyRetention(records, 365, new Date(now))).toBe(0);

    const left = await records.collection.find({}).sort({ _id: 1 }).toArray();
    expect(left.map((d) => d._id)).toEqual([4, 5, 6]);
    expect(left[2]).toMatchObject({ type: 'audit.retention.applied', actor: { kind: 'system', id: null }, requestId: 'system' });
    expect(left[2]!.details).toMatchObject({ deleted: 3, lastDeletedSeq: 3, retentionDays: 365 });
    expect(left[0]!.prevHash).toBe(left[2]!.details.lastDeletedHash);
    expect(await records.verify()).toMatchObject({ checked: 3, broken: null });

    // Everything old: the newest record stays, so the chain keeps its head.
    const all = await aLog();
    for (const age of [400, 390]) await all.append(anInput({ at: new Date(now - age * day) }));
    expect(await applyRetention(all, 365, new Date(now))).toBe(1);
    expect((await all.collection.find({}).sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([2, 3]);
  });
});

describe('records made of the events', () => {
  const change = (fields: Partial<ChangeEvent>): ChangeEvent => ({
    id: randomUUID(),
    type: 'users.updated',
    resource: 'users',
    recordId: 'u9',
    seq: 2,
    at: new Date().toISOString(),
    requestId: 'r9',
    actor: { id: 'a1', role: 'admin' },
    record: { id: 'u9', role: 'admin' },
    changed: ['role'],
    previous: { role: 'user' },
    origin: { ip: '198.51.100.1', userAgent: 'ua' },
    ...fields,
  });

  test("an admin's role change is users.role_changed, and the relay's admin.write beside it; a user's own article write is neither", () => {
    const event = change({});
    expect(recordsOf(event)).toEqual([
      expect.objectContaining({
        id: event.id,
        type: 'users.role_changed',
        actor: { kind: 'admin', id: 'a1' },
        details: { from: 'user', to: 'admin' },
        ip: '198.51.100.1',
      }),
    ]);
    const adminWrite = adminWriteOf(event)!;
    expect(adminWrite).toMatchObject({ id: `${event.id}:admin.write`, type: 'admin.write', resource: 'audit' });
    expect(recordsOf(adminWrite)).toEqual([
      expect.objectContaining({
        id: `${event.id}:admin.write`,
        type: 'admin.write',
        actor: { kind: 'admin', id: 'a1' },
        subject: { kind: 'users', id: 'u9' },
        details: { resource: 'users', change: 'updated', changed: ['role'] },
        ip: '198.51.100.1',
      }),
    ]);
    const own = change({
      type: 'articles.created',
      resource: 'articles',
      actor: { id: 'u2', role: 'user' },
      changed: [],
      previous: undefined,
    });
    expect(recordsOf(own)).toEqual([]);
    expect(adminWriteOf(own)).toBeNull();
  });

  test('a sign-up with the master key is users.created, and an admin.write by the master key; an auth event is itself; no record keeps field values', () => {
    const signUp = change({
      type: 'users.created',
      actor: { id: null, role: 'master' },
      record: { id: 'u9', role: 'user', email: 'x@example.com' },
    });
    const made = [...recordsOf(signUp), ...recordsOf(adminWriteOf(signUp)!)];
    expect(made.map((r) => [r.type, r.actor.kind])).toEqual([
      ['users.created', 'master-key'],
      ['admin.write', 'master-key'],
    ]);
    expect(JSON.stringify(made)).not.toContain('x@example.com');
    const auth: AuditEvent = {
      id: randomUUID(),
      type: 'auth.sign_in.failed',
      resource: 'audit',
      recordId: 'x',
      seq: 1,
      at: new Date().toISOString(),
      requestId: 'r1',
      actor: { kind: 'anonymous', id: null },
      subject: { kind: 'user', id: 'u1' },
      outcome: 'failure',
      details: { reason: 'invalid_credentials' },
      origin: { ip: '192.0.2.7', userAgent: null },
    };
    expect(recordsOf(auth)).toEqual([
      expect.objectContaining({ id: auth.id, type: auth.type, outcome: 'failure', ip: '192.0.2.7', details: auth.details }),
    ]);
  });
});
