import path from 'node:path';
import { loadConfig } from '@restgate/shared';
import { configSchema } from '../src/config';

const base = {
  PRINCIPAL_SECRET: 'x'.repeat(32),
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  MONGODB_URL: 'mongodb://127.0.0.1:27017',
};

describe('mailer config', () => {
  test('when only the required keys are set, then the defaults apply and OUTBOX_DIR is absolute', () => {
    const config = loadConfig(configSchema, base);

    expect(config).toMatchObject({
      PORT: 9003,
      MONGODB_DB: 'mailer',
      SMTP_URL: '',
      SMTP_POOL_SIZE: 5,
      RETRY_DELAYS_MS: [1_000, 5_000, 30_000, 120_000, 600_000],
      TOPOLOGY_PREFIX: '',
    });
    expect(config.OUTBOX_DIR).toBe(path.resolve('.data/outbox'));
  });

  test('when RETRY_DELAYS_MS and OUTBOX_DIR are given, then the list is parsed and the folder resolved', () => {
    const config = loadConfig(configSchema, { ...base, RETRY_DELAYS_MS: '100, 200,5000', OUTBOX_DIR: 'tmp/out' });

    expect(config.RETRY_DELAYS_MS).toEqual([100, 200, 5000]);
    expect(config.OUTBOX_DIR).toBe(path.resolve('tmp/out'));
  });

  test('when AMQP_URL lists the nodes of a cluster, then it is accepted as given', () => {
    const nodes = 'amqp://u:p@rabbit-1:5672/vh,amqp://u:p@rabbit-2:5672/vh, amqps://u:p@rabbit-3:5671/vh';

    expect(loadConfig(configSchema, { ...base, AMQP_URL: nodes }).AMQP_URL).toBe(nodes);
  });

  test.each([
    ['RETRY_DELAYS_MS', 'soon'],
    ['RETRY_DELAYS_MS', '5000,1000'],
    ['RETRY_DELAYS_MS', ''],
    ['SMTP_URL', 'http://mail.example.test'],
    ['MAIL_FROM', 'a@example.test\r\nBcc: b@example.test'],
    ['TOPOLOGY_PREFIX', 'has space'],
    ['AMQP_URL', 'amqp://u:p@rabbit-1:5672,http://u:p@rabbit-2:5672'],
  ])('when %s is %j, then the start fails naming it', (key, value) => {
    expect(() => loadConfig(configSchema, { ...base, [key]: value })).toThrow(new RegExp(key));
  });
});
