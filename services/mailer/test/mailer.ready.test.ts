import { afterEach, describe, expect, jest, test } from '@jest/globals';
import request from 'supertest';
import { aMailerEnv, type MailerEnv } from './support/harness';
import { startTestSmtp, type TestSmtp } from './support/smtp';

jest.setTimeout(20_000);

describe('GET /ready', () => {
  let env: MailerEnv | undefined;
  let smtp: TestSmtp | undefined;

  afterEach(async () => {
    await env?.cleanup();
    await smtp?.stop();
    env = smtp = undefined;
  });

  test('when the broker, the database and the SMTP server answer, then 200 naming each', async () => {
    smtp = await startTestSmtp();
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    const mailer = await env.startMailer();

    const res = await request(mailer.app).get('/ready');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { rabbitmq: 'up', mongodb: 'up', smtp: 'up' } });
  });

  test('when the SMTP server does not answer, then 503 with smtp down (and /health still 200)', async () => {
    smtp = await startTestSmtp();
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    await smtp.stop();
    const mailer = await env.startMailer();

    const ready = await request(mailer.app).get('/ready');
    const health = await request(mailer.app).get('/health');

    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unready', checks: { rabbitmq: 'up', mongodb: 'up', smtp: 'down' } });
    expect(health.status).toBe(200);
  });

  test('when the mailer has stopped, then the broker check is down', async () => {
    smtp = await startTestSmtp();
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    const mailer = await env.startMailer();
    await mailer.amqp.stop();

    const res = await request(mailer.app).get('/ready');

    expect(res.status).toBe(503);
    expect(res.body.checks.rabbitmq).toBe('down');
  });
});
