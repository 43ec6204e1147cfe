import Joi from 'joi';
import { brokerAddress, brokerRotation, brokerUrlList, parseBrokerUrls } from '../src/messaging/urls';

describe('parseBrokerUrls', () => {
  test('when AMQP_URL is one URL, then the list is that URL alone', () => {
    expect(parseBrokerUrls('amqp://u:p@127.0.0.1:5672/vh')).toEqual(['amqp://u:p@127.0.0.1:5672/vh']);
  });

  test('when AMQP_URL lists URLs with blanks and an empty entry, then each URL is kept in order, trimmed', () => {
    expect(parseBrokerUrls(' amqp://a:5672 ,amqps://b:5671/vh,, amqp://c ')).toEqual(['amqp://a:5672', 'amqps://b:5671/vh', 'amqp://c']);
  });
});

describe('brokerAddress', () => {
  test('when a URL has credentials and a vhost, then only host:port is shown', () => {
    expect(brokerAddress('amqp://restgate:s3cret@rabbit-2:5673/restgate?heartbeat=15')).toBe('rabbit-2:5673');
  });

  test('when a URL has no port, then the scheme default is shown', () => {
    expect(brokerAddress('amqp://u:p@rabbit')).toBe('rabbit:5672');
    expect(brokerAddress('amqps://u:p@rabbit')).toBe('rabbit:5671');
  });

  test('when a URL cannot be parsed, then nothing of it is shown', () => {
    expect(brokerAddress('amqp://u:s3cret@[bad')).not.toContain('s3cret');
  });
});

describe('brokerRotation', () => {
  const urls = ['amqp://a', 'amqp://b', 'amqp://c'];
  const take = (rotation: { next(): string }, n: number) => Array.from({ length: n }, () => rotation.next());

  test('when the random pick is the second node, then attempts go b, c, a, b (the next after each)', () => {
    expect(take(brokerRotation(urls, () => 0.4), 4)).toEqual(['amqp://b', 'amqp://c', 'amqp://a', 'amqp://b']);
  });

  test('when replicas start, then the first node differs with the random draw (they spread over the cluster)', () => {
    const firsts = [0, 0.34, 0.67, 0.999].map((r) => brokerRotation(urls, () => r).next());

    expect(firsts).toEqual(['amqp://a', 'amqp://b', 'amqp://c', 'amqp://c']);
  });

  test('when there is one URL, then every attempt goes to it', () => {
    expect(take(brokerRotation(['amqp://only'], Math.random), 3)).toEqual(['amqp://only', 'amqp://only', 'amqp://only']);
  });

  test('when there is none, then it refuses to start', () => {
    expect(() => brokerRotation([])).toThrow(/no broker URL/);
  });
});

describe('brokerUrlList (the AMQP_URL rule)', () => {
  const schema = Joi.object({ AMQP_URL: brokerUrlList().required() });
  const problem = (value: string) => schema.validate({ AMQP_URL: value }).error?.message;

  test('when every entry is an amqp(s) URL, then the value is accepted as given', () => {
    const value = 'amqp://u:p@rabbit-1:5672/vh, amqps://u:p@rabbit-2:5671/vh';

    expect(schema.validate({ AMQP_URL: value })).toEqual({ value: { AMQP_URL: value } });
  });

  test.each([
    ['http://u:p@rabbit:5672', /AMQP_URL.* is not an amqp/],
    ['amqp://u:p@rabbit-1:5672,http://u:hunter2@rabbit-2', /AMQP_URL.* has entries \(2 of 2\)/],
    ['not a url, amqp://u:p@rabbit-2, amqp://', /AMQP_URL.* has entries \(1, 3 of 3\)/],
    [' , ', /AMQP_URL.* at least one/],
  ])('when AMQP_URL is %j, then the error names the key and the bad entries', (value, message) => {
    expect(problem(value)).toMatch(message);
  });

  test('when an entry is bad, then no credential of the list appears in the error', () => {
    const message = problem('amqp://u:hunter1@rabbit-1:5672,http://u:hunter2@rabbit-2') ?? '';

    expect(message).not.toMatch(/hunter|rabbit-/);
  });
});
