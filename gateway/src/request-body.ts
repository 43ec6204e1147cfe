import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { assertSupportedBody, errors } from '@restgate/shared';
import typeis from 'type-is';
import { ACCESS_TOKEN, countTopLevelKeys, takeAccessTokens, takeJsonAccessToken } from './credentials';

/**
 * Reads the whole body as bytes, whatever it is, so the gateway can find `access_token` in it:
 * 415 for a body that is neither a form nor JSON (before reading it), 413 past `limit`
 * (body-parser errors map onto the catalogue in shared's normalizeError). Compressed bodies are
 * refused (415) rather than inflated: the limit then bounds what the services receive as well.
 */
export function readBody(limit: string): BodyReader {
  const raw = express.raw({ type: () => true, limit, inflate: false });
  return (req, res) =>
    new Promise((resolve, reject) => {
      assertSupportedBody(req, res, (err?: unknown) => {
        if (err) return reject(err);
        raw(req as never, res as never, (err?: unknown) => {
          if (err) return reject(err);
          const { body } = req as { body?: unknown };
          resolve(Buffer.isBuffer(body) ? body : undefined);
        });
      });
    });
}

/** The request's body as bytes, or undefined when it has none. */
export type BodyReader = (req: IncomingMessage, res: ServerResponse) => Promise<Buffer | undefined>;

function assertUtf8Json(req: IncomingMessage): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw errors.unsupportedMediaType();
}

/** A form body that parses as a JSON object or array is JSON sent with the wrong type. */
function assertNotJson(raw: Buffer): void {
  const text = raw.toString('utf8').trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return; // a form whose first key starts with a brace, however odd: it is parsed as a form
  }
  if (typeof parsed === 'object' && parsed !== null) throw errors.jsonSentAsForm();
}

/**
 * The body to forward without `access_token`, and the tokens it held. Forms are edited as text
 * (other pairs keep their exact bytes); JSON is re-serialized only when it held a token.
 */
export function stripBodyTokens(req: IncomingMessage, raw: Buffer | undefined): { tokens: string[]; body: Buffer | undefined } {
  if (!raw || raw.length === 0) return { tokens: [], body: raw };
  if (typeis(req, ['application/x-www-form-urlencoded'])) {
    // latin1 maps each byte to one char and back, so untouched pairs survive even if not UTF-8.
    assertNotJson(raw);
    const { tokens, rest } = takeAccessTokens(raw.toString('latin1'));
    return { tokens, body: tokens.length ? Buffer.from(rest, 'latin1') : raw };
  }
  // Only JSON is left: assertSupportedBody let nothing else through.
  const parsed = parseJsonBody(req, raw);
  const { tokens, rest } = takeJsonAccessToken(parsed);
  return { tokens, body: rest === parsed ? raw : Buffer.from(JSON.stringify(rest), 'utf8') };
}

function parseJsonBody(req: IncomingMessage, raw: Buffer): unknown {
  assertUtf8Json(req);
  const text = raw.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.malformedBody('The JSON body could not be parsed.');
  }
  if (countTopLevelKeys(text, ACCESS_TOKEN) > 1) throw errors.credentialAmbiguous();
  return parsed;
}

/**
 * On provider routes the body goes to identity untouched, and its JSON parser would keep the
 * last of two `access_token` keys: the gateway refuses such a body here, as on every other route.
 */
export function assertSingleBodyToken(req: IncomingMessage, raw: Buffer | undefined): void {
  if (raw && raw.length > 0 && typeis(req, ['application/json'])) parseJsonBody(req, raw);
}
