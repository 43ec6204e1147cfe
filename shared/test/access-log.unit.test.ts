import express from 'express';
import request from 'supertest';
import { accessLog } from '../src/http/access-log';
import { capturingLogger } from '../src/testing/log-capture';

/** An app whose one route answers `status` (with `Retry-After` when asked), behind the access log. */
function anApp(status: number, retryAfter?: string) {
  const { logger, lines } = capturingLogger();
  const app = express();
  app.use(accessLog({ logger, redactUrl: (url) => url, ignore: () => false }));
  app.get('/x', (_req, res) => {
    if (retryAfter) res.set('Retry-After', retryAfter);
    res.status(status).end();
  });
  return { app, lines };
}

describe('accessLog: the completion line of a 5xx', () => {
  test('when the answer is a 503 with Retry-After (a refusal under load: come back later), then a warning, not an error', async () => {
    const { app, lines } = anApp(503, '1');

    await request(app).get('/x');

    expect(lines()).toEqual([expect.objectContaining({ level: 40, res: { statusCode: 503 }, msg: 'request refused, retry later' })]);
    expect(lines()[0]).not.toHaveProperty('err');
  });

  test.each([
    [500, undefined],
    [503, undefined],
  ])('when the answer is a %i without Retry-After, then an error line', async (status, retryAfter) => {
    const { app, lines } = anApp(status, retryAfter);

    await request(app).get('/x');

    expect(lines()).toEqual([expect.objectContaining({ level: 50, res: { statusCode: status }, msg: 'request errored' })]);
  });
});
