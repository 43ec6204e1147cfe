import { Writable } from 'node:stream';
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import pino from 'pino';
import { createAmqp, MESSAGE_HEADERS, PublishError, type AmqpClient } from '@restgate/shared/messaging';
import { declareMailTopology } from '../src/amqp/mail.topology';
import { aPasswordResetMessage } from './support/builders';
import { eventually } from './support/eventually';
import { aMailerEnv, ROUTING_KEY, testAmqpUrl, testLogger, type MailerEnv } from './support/harness';
import { freePort, startTcpProxy, type TcpProxy } from './support/tcp-proxy';

jest.setTimeout(20_000);

/**
 * The shared AMQP client, as the identity service's outbox relay uses it: a publish resolves
 * only once the broker has the message in a queue, and rejects otherwise.
 */
describe('AmqpClient.publish (shared)', () => {
  let env: MailerEnv | undefined;
  let client: AmqpClient | undefined;
  let proxy: TcpProxy | undefined;

  afterEach(async () => {
    await client?.stop();
    await env?.cleanup();
    await proxy?.close();
    env = client = proxy = undefined;
  });

  async function rejection(promise: Promise<unknown>): Promise<PublishError> {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PublishError);
    return err as PublishError;
  }

  test('when the broker confirms, then publish resolves and the queue holds the envelope as persistent JSON with its id, type and request id', async () => {
    // Arrange
    env = await aMailerEnv();
    const message = aPasswordResetMessage();

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message, { headers: { 'x-extra': 'yes' } });

    // Assert
    const [got] = await env.take(env.topology.queue, 1);
    expect(JSON.parse(got!.content.toString())).toEqual(message);
    expect(got!.properties).toMatchObject({
      messageId: message.id,
      type: 'mail.password-reset',
      contentType: 'application/json',
      deliveryMode: 2,
      headers: { [MESSAGE_HEADERS.requestId]: message.requestId, 'x-extra': 'yes' },
    });
  });

  test('when no queue is bound for the routing key, then publish rejects as unroutable (a bare confirm would have dropped it)', async () => {
    env = await aMailerEnv();

    const err = await rejection(env.publisher.publish(env.topology.exchange, 'mail.nobody-listens', aPasswordResetMessage()));

    expect(err.failure).toBe('unroutable');
    expect(await env.depth(env.topology.queue)).toBe(0);
  });

  test('when the exchange does not exist, then publish rejects with the broker reason, and the client reconnects and publishes again', async () => {
    env = await aMailerEnv();

    const err = await rejection(env.publisher.publish(`${env.topology.exchange}.missing`, ROUTING_KEY, aPasswordResetMessage()));
    expect(err.failure).toBe('disconnected');
    expect(err.message).toMatch(/NOT_FOUND/);
    await env.publisher.waitUntilConnected(10_000);
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, aPasswordResetMessage());

    expect(await env.take(env.topology.queue, 1)).toHaveLength(1);
  });

  test('when the broker is unreachable, then publish rejects at once, readiness fails, and once it is back the ready handlers run again and publishing works', async () => {
    // Arrange
    env = await aMailerEnv();
    const { topology } = env;
    proxy = await startTcpProxy(Number(new URL(testAmqpUrl()).port || 5672));
    const url = new URL(testAmqpUrl());
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    client = createAmqp({ url: url.toString(), logger: testLogger, name: 'test-relay', reconnectDelayMs: { min: 50, max: 200 } });
    let readyRuns = 0;
    client.onReady(async (channel) => {
      await declareMailTopology(channel, topology);
      readyRuns++;
    });
    client.start();
    await client.waitUntilConnected(10_000);

    // Act: the broker goes away
    proxy.cut();
    await eventually(() => !client!.isConnected(), { what: 'the client to notice' });

    // Assert
    const started = Date.now();
    expect((await rejection(client.publish(topology.exchange, ROUTING_KEY, aPasswordResetMessage()))).failure).toBe('disconnected');
    expect(Date.now() - started).toBeLessThan(100);
    await expect(client.readiness.check()).rejects.toThrow(/not connected/);

    // Act: it comes back
    proxy.restore();
    await client.waitUntilConnected(10_000);
    const message = aPasswordResetMessage();
    await client.publish(topology.exchange, ROUTING_KEY, message);

    // Assert
    expect(readyRuns).toBe(2);
    await expect(client.readiness.check()).resolves.toBeUndefined();
    const [got] = await env.take(topology.queue, 1);
    expect(got!.properties.messageId).toBe(message.id);
  });

  test('when the client is stopped, then publish rejects and it does not reconnect', async () => {
    env = await aMailerEnv();
    client = createAmqp({ url: testAmqpUrl(), logger: testLogger, name: 'test-relay' });
    client.start();
    await client.waitUntilConnected(10_000);

    await client.stop();

    expect((await rejection(client.publish(env.topology.exchange, ROUTING_KEY, aPasswordResetMessage()))).failure).toBe('disconnected');
    expect(client.isConnected()).toBe(false);
  });
});

/** A logger whose lines the test reads back. */
function recordingLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

/** The test broker's URL with its host and port replaced (its credentials and vhost kept). */
function brokerAt(port: number): string {
  const url = new URL(testAmqpUrl());
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

/**
 * AMQP_URL as a list of a cluster's nodes: each node here is a loopback port, either dead or a
 * proxy to the test broker that the test can cut (a node going away, as far as a client can tell).
 */
describe('AmqpClient with a list of brokers (shared)', () => {
  let env: MailerEnv | undefined;
  let client: AmqpClient | undefined;
  const proxies: TcpProxy[] = [];

  afterEach(async () => {
    jest.restoreAllMocks();
    await client?.stop();
    await env?.cleanup();
    await Promise.all(proxies.splice(0).map((p) => p.close()));
    env = client = undefined;
  });

  test('when the first broker of the list refuses connections, then the client connects to the next one and publishes there', async () => {
    // Arrange: the random first pick is the first entry, the dead one
    env = await aMailerEnv();
    const { topology } = env;
    const deadPort = await freePort();
    const live = new URL(testAmqpUrl());
    const { logger, lines } = recordingLogger();
    jest.spyOn(Math, 'random').mockReturnValue(0);
    client = createAmqp({
      url: `${brokerAt(deadPort)}, ${testAmqpUrl()}`,
      logger,
      name: 'test-list',
      reconnectDelayMs: { min: 50, max: 200 },
    });
    client.onReady((channel) => declareMailTopology(channel, topology));

    // Act
    client.start();
    await client.waitUntilConnected(10_000);
    const message = aPasswordResetMessage();
    await client.publish(topology.exchange, ROUTING_KEY, message);

    // Assert
    const [got] = await env.take(topology.queue, 1);
    expect(got!.properties.messageId).toBe(message.id);
    expect(lines.find((l) => l.msg === 'cannot connect to the broker')).toMatchObject({ broker: `127.0.0.1:${deadPort}` });
    expect(lines.find((l) => l.msg === 'connected to the broker')).toMatchObject({ broker: `${live.hostname}:${live.port || 5672}` });
    // The logs name nodes, never the credentials of their URLs.
    if (live.password) expect(JSON.stringify(lines)).not.toContain(live.password);
  });

  test('when the connection to one node is lost, then the client reconnects to the other node of the list, runs its ready handlers again, and publishes', async () => {
    // Arrange: two nodes, each a proxy to the test broker; the client starts on the first
    env = await aMailerEnv();
    const { topology } = env;
    const target = Number(new URL(testAmqpUrl()).port || 5672);
    const [first, second] = [await startTcpProxy(target), await startTcpProxy(target)];
    proxies.push(first!, second!);
    const { logger, lines } = recordingLogger();
    jest.spyOn(Math, 'random').mockReturnValue(0);
    client = createAmqp({
      url: [first!, second!].map((p) => brokerAt(p.port)).join(','),
      logger,
      name: 'test-list',
      reconnectDelayMs: { min: 50, max: 200 },
    });
    let readyRuns = 0;
    client.onReady(async (channel) => {
      await declareMailTopology(channel, topology);
      readyRuns++;
    });
    client.start();
    await client.waitUntilConnected(10_000);
    const connected = () => lines.filter((l) => l.msg === 'connected to the broker').map((l) => l.broker);
    expect(connected()).toEqual([`127.0.0.1:${first!.port}`]);

    // Act: the first node goes away for good
    first!.cut();
    await eventually(() => !client!.isConnected(), { what: 'the client to notice' });
    await client.waitUntilConnected(10_000);
    const message = aPasswordResetMessage();
    await client.publish(topology.exchange, ROUTING_KEY, message);

    // Assert
    expect(connected()).toEqual([`127.0.0.1:${first!.port}`, `127.0.0.1:${second!.port}`]);
    expect(readyRuns).toBe(2);
    const [got] = await env.take(topology.queue, 1);
    expect(got!.properties.messageId).toBe(message.id);
  });
});
