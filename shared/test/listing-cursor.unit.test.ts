import { ObjectId } from 'mongodb';
import type { AppError } from '../src/errors';
import { afterCondition, createListingCursors, CURSOR_PATTERN, type CursorContext } from '../src/data/listing-cursor';

const context: CursorContext = {
  sort: [
    ['createdAt', -1],
    ['_id', -1],
  ],
  filters: [{ field: 'pages', op: 'gte', value: 3 }],
};
const position = [new Date('2026-01-02T03:04:05Z'), new ObjectId('0123456789abcdef01234567')];

function refusal(run: () => unknown): { param: string; message: string } {
  try {
    run();
  } catch (err) {
    return (err as AppError).extras as never;
  }
  throw new Error('expected a refusal');
}

describe('listing cursors', () => {
  const cursors = createListingCursors('a secret of the service', 'books');

  test('when a cursor is made and read back with the same context, then it gives the position, typed', () => {
    const token = cursors.encode(position, context);

    expect(token).toMatch(CURSOR_PATTERN);
    expect(cursors.decode(token, context)).toEqual(position);
  });

  test('when a cursor is altered, signed with another secret or made for another listing, then it is a 400 naming after', () => {
    const token = cursors.encode(position, context);
    const [payload, mac] = token.split('.') as [string, string];
    const forged = `${Buffer.from(JSON.stringify({ c: 'x', p: [null, { o: '0'.repeat(24) }] })).toString('base64url')}.${mac}`;

    for (const bad of [
      forged,
      `${payload}.${'A'.repeat(43)}`,
      createListingCursors('another secret', 'books').encode(position, context),
      createListingCursors('a secret of the service', 'users').encode(position, context),
    ]) {
      expect(refusal(() => cursors.decode(bad, context))).toMatchObject({
        param: 'after',
        message: expect.stringMatching(/not a cursor|made for another/),
      });
    }
  });

  test('when a cursor is used with another sort, filter or q, then it is a 400 saying so', () => {
    const token = cursors.encode(position, context);

    for (const other of [
      {
        ...context,
        sort: [
          ['createdAt', 1],
          ['_id', 1],
        ] as CursorContext['sort'],
      },
      { ...context, filters: [] },
      { ...context, q: 'x' },
    ]) {
      expect(refusal(() => cursors.decode(token, other)).message).toMatch(/made for another sort, filter or search/);
    }
  });
});

describe('afterCondition', () => {
  test('when descending on one field, then the rows strictly after: smaller, or equal with a smaller id, or missing', () => {
    expect(
      afterCondition(
        [
          ['createdAt', -1],
          ['_id', -1],
        ],
        position,
      ),
    ).toEqual({
      $or: [{ createdAt: { $lt: position[0] } }, { createdAt: null }, { createdAt: { $eq: position[0] }, _id: { $lt: position[1] } }],
    });
  });

  test('when ascending from a missing value, then every set value, or missing with a greater id', () => {
    expect(
      afterCondition(
        [
          ['pages', 1],
          ['_id', 1],
        ],
        [null, position[1]],
      ),
    ).toEqual({
      $or: [{ pages: { $ne: null } }, { pages: null, _id: { $gt: position[1] } }],
    });
  });

  test('when the first sort field is on every record, then a bound on it leads, from which an index can start', () => {
    const sort: Array<[string, 1 | -1]> = [
      ['createdAt', -1],
      ['_id', -1],
    ];
    expect(afterCondition(sort, position, (field) => field === '_id' || field === 'createdAt')).toEqual({
      createdAt: { $lte: position[0] },
      $or: [{ createdAt: { $lt: position[0] } }, { $or: [{ _id: { $lt: position[1] } }] }],
    });
    const ascending: Array<[string, 1 | -1]> = [
      ['title', 1],
      ['_id', 1],
    ];
    expect(afterCondition(ascending, ['b', position[1]], (field) => field === '_id' || field === 'title')).toEqual({
      title: { $gte: 'b' },
      $or: [{ title: { $gt: 'b' } }, { $or: [{ _id: { $gt: position[1] } }] }],
    });
  });

  test('when the first sort field may be missing, then the plain branches stay, which reach the records without it', () => {
    const sort: Array<[string, 1 | -1]> = [
      ['pages', -1],
      ['_id', -1],
    ];
    expect(afterCondition(sort, [7, position[1]], (field) => field === '_id')).toEqual({
      $or: [{ pages: { $lt: 7 } }, { pages: null }, { pages: { $eq: 7 }, _id: { $lt: position[1] } }],
    });
  });
});
