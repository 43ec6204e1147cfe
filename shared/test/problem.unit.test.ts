import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, errors } from '../src/errors';
import { MongoNetworkError, MongoNetworkTimeoutError } from 'mongodb';
import { answerError, normalizeError } from '../src/http/problem';
import { capturingLogger } from '../src/testing/log-capture';

/** A response that takes what the handler writes and throws it away. */
function aResponse(): ServerResponse {
  return {
    headersSent: false,
    setHeader: () => undefined,
    end: () => undefined,
    statusCode: 200,
    req: { method: 'GET' },
  } as unknown as ServerResponse;
}

const request = { method: 'GET', url: '/x', headers: {} } as unknown as IncomingMessage;

/** The 503 a full hash queue answers: expected under load. */
const busy = () =>
  new AppError({
    code: 'busy',
    status: 503,
    title: 'Service unavailable',
    detail: 'Too many password checks in progress.',
    expected: true,
  });

describe('answerError: what it logs', () => {
  test('when expected refusals (a full queue) come by the thousand, then one warning line without a stack, not one error per request', () => {
    const { logger, lines } = capturingLogger();
    const answer = answerError(logger);

    for (let i = 0; i < 1_000; i++) answer(busy(), request, aResponse());

    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 40, code: 'busy', status: 503 });
    expect(JSON.stringify(lines())).not.toContain('stack');
  });

  test('when an unexpected error comes, then it is still logged at error level with its stack, every time', () => {
    const { logger, lines } = capturingLogger();
    const answer = answerError(logger);

    answer(new Error('boom'), request, aResponse());
    answer(errors.unavailable('The database is unavailable.', new Error('down')), request, aResponse());

    expect(lines().map((l) => l.level)).toEqual([50, 50]);
    expect(JSON.stringify(lines()[0])).toContain('stack');
  });
});

describe('normalizeError: the database out of reach', () => {
  // The driver's pool errors are internal classes that extend MongoNetworkError; one like them.
  class PoolClearedOnNetworkError extends MongoNetworkError {
    override get name(): string {
      return 'PoolClearedOnNetworkError';
    }
  }

  test('when the driver cannot reach the database, then 503, whichever of its network errors it throws', () => {
    for (const err of [
      new MongoNetworkTimeoutError('timed out'),
      new PoolClearedOnNetworkError('interrupted due to server monitor timeout'),
    ]) {
      expect(normalizeError(err)).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
  });

  test('when another error comes, then it is not taken for the database', () => {
    expect(normalizeError(new Error('boom')).status).toBe(500);
  });
});
