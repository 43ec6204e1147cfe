import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A pino logger whose JSON lines the test can read back. */
export function capturingLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines: () => records };
}
