import net from 'node:net';
import express from 'express';
import { createLogger } from '@restgate/shared';
import { createHttpApp, listen, type RunningServer } from '@restgate/shared/http';

/** Every process listens through the shared `listen`: a slow request is cut with a 408. */
describe('REQUEST_TIMEOUT_MS', () => {
  let running: RunningServer;
  beforeAll(async () => {
    const app = express();
    app.post('/echo', express.json(), (req, res) => res.json(req.body));
    app.use(createHttpApp({ logger: createLogger({ name: 'timeout-test', level: 'silent' }) }));
    running = await listen(app, 0, '127.0.0.1', { requestTimeoutMs: 1_000 });
  });
  afterAll(() => running.stop(1_000));

  test('when a client sends its headers and never finishes, then the server answers 408 and closes the connection', async () => {
    const socket = net.connect(running.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"slow":');

    await new Promise<void>((resolve) => socket.once('close', () => resolve()));

    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
});
