import { addressKey } from '../src/limits/address-key';

describe('addressKey: what a per-address limit counts a client under', () => {
  test('an IPv4 address is itself', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  test('every IPv6 address of one /64 is one key, whatever its spelling', () => {
    const keys = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:9',
      '[2001:db8:1:2::3]',
      'fe80::1%eth0',
    ].map(addressKey);

    expect(new Set(keys.slice(0, 4))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(keys[4]).toBe('fe80:0:0:0::/64');
  });

  test('neighbouring /64s are different keys', () => {
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });

  test('an IPv4-mapped IPv6 address is its IPv4 address; anything else is kept as it is', () => {
    expect(addressKey('::ffff:198.51.100.4')).toBe('198.51.100.4');
    expect(addressKey('::FFFF:198.51.100.4')).toBe('198.51.100.4');
    expect(addressKey('64:ff9b::198.51.100.4')).toBe('64:ff9b:0:0::/64');
    expect(addressKey('unknown')).toBe('unknown');
  });
});
