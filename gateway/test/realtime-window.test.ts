import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { uniqueSuffix } from '@restgate/shared/testing';
import type { ChangeEvent } from '@restgate/shared/resource';
import { createEventWindow, type EventWindow } from '../src/realtime/window';

/** The realtime window on the test Redis (REDIS_URL, from jest's global setup). */
let redis: Redis;
let window: EventWindow;
const prefix = `test-window-${uniqueSuffix()}`;

const anEvent = (recordId: string, seq: number): ChangeEvent => ({
  id: randomUUID(),
  type: 'notes.updated',
  resource: 'notes',
  recordId,
  seq,
  at: new Date().toISOString(),
  requestId: 'r',
  actor: null,
  record: { id: recordId },
  changed: [],
});

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!);
  window = createEventWindow({ redis, prefix, keepMinutes: 10, keepEvents: 100, maxEvents: 100_000 });
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('the realtime window', () => {
  test('appends each (record, seq) once: a redelivered or older event is dropped', async () => {
    const record = uniqueSuffix();
    expect(await window.append(anEvent(record, 2))).toMatch(/^\d+-\d+$/);
    expect(await window.append(anEvent(record, 2))).toBeNull();
    expect(await window.append(anEvent(record, 1))).toBeNull();
    expect(await window.append(anEvent(record, 3))).toMatch(/^\d+-\d+$/);
  });

  test('keeps at least the last keepEvents and the last keepMinutes; a resume from before what was trimmed is refused, one after it is not', async () => {
    const first = (await window.append(anEvent(uniqueSuffix(), 1)))!;
    const positions: string[] = [];
    for (let i = 0; i < 149; i += 1) positions.push((await window.append(anEvent(uniqueSuffix(), 1)))!);
    // All of it is younger than 10 minutes: nothing goes.
    await window.trim(['notes']);
    expect(await window.holdsAfter('notes', first)).toBe(true);
    // An hour later, only the newest 100 stay.
    await window.trim(['notes'], Date.now() + 60 * 60_000);
    expect(await redis.xlen(window.streamKey('notes'))).toBe(100);
    expect(await window.holdsAfter('notes', first)).toBe(false);
    const kept = positions[positions.length - 100]!;
    expect(await window.holdsAfter('notes', positions[positions.length - 101]!)).toBe(true);
    const after = await window.after('notes', positions[positions.length - 101]!, 1000);
    expect(after[0]!.position).toBe(kept);
    expect(after).toHaveLength(100);
  });
});
