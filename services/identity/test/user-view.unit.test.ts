import { createHash } from 'node:crypto';
import { gravatarUrl, isAddressProven, nameFromEmail, normalizeEmail, pictureAfterEmailChange, type UserRecord } from '../src/accounts/user';
import { fullView, publicView } from '../src/accounts/user.views';

const record: UserRecord = {
  id: '65f0a1b2c3d4e5f601234567',
  email: 'ada@example.com',
  name: 'Ada',
  picture: 'https://example.com/ada.png',
  role: 'admin',
  passwordHash: '$2b$10$secret',
  passwordProven: false,
  emailVerified: false,
  credentialsEpoch: 0,
  createdAt: new Date('2024-03-01T12:00:00.000Z'),
};

describe('user views', () => {
  test('the public view has id, name and picture only', () => {
    expect(publicView(record)).toEqual({ id: record.id, name: 'Ada', picture: 'https://example.com/ada.png' });
  });

  test('the full view adds e-mail, role, emailVerified and an ISO createdAt, and never the password hash', () => {
    const view = fullView(record);

    expect(view).toEqual({
      ...publicView(record),
      email: 'ada@example.com',
      role: 'admin',
      emailVerified: false,
      createdAt: '2024-03-01T12:00:00.000Z',
    });
    expect(JSON.stringify(view)).not.toContain('$2b$');
  });
});

describe('isAddressProven', () => {
  test('only emailVerified: true proves the address', () => {
    expect(isAddressProven({ emailVerified: true })).toBe(true);
    expect(isAddressProven({ emailVerified: false })).toBe(false);
    // A document written before verification existed reads as unverified.
    expect(isAddressProven({} as Pick<UserRecord, 'emailVerified'>)).toBe(false);
  });
});

describe('e-mail defaults', () => {
  test('normalizeEmail trims and lower-cases', () => {
    expect(normalizeEmail('  Ada.Lovelace@Example.COM ')).toBe('ada.lovelace@example.com');
  });

  test('the default name is the part before @', () => {
    expect(nameFromEmail('ada.lovelace@example.com')).toBe('ada.lovelace');
  });

  test('the Gravatar is the md5 of the lower-cased, trimmed e-mail, as an identicon', () => {
    const md5 = createHash('md5').update('ada@example.com').digest('hex');

    expect(gravatarUrl(' ADA@example.com')).toBe(`https://gravatar.com/avatar/${md5}?d=identicon`);
  });

  test('a Gravatar picture follows an e-mail change; a chosen picture stays', () => {
    const old = gravatarUrl('old@example.com');

    expect(pictureAfterEmailChange(old, 'new@example.com')).toBe(gravatarUrl('new@example.com'));
    expect(pictureAfterEmailChange('https://example.com/me.png', 'new@example.com')).toBe('https://example.com/me.png');
  });
});
