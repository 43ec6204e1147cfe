import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { errors } from '@restgate/shared';
import { hasBody } from '@restgate/shared/http';
import typeis from 'type-is';
import { ACCESS_TOKEN, countTopLevelKeys, takeAccessTokens, takeJsonAccessToken } from './credentials';

/**
 * Reads the whole body as bytes, whatever it is, so the gateway can find `access_token` in it:
 * 415 for a body that is neither a form nor JSON (before reading it), 413 past `limit` (raw-body's
 * errors map onto the catalogue in shared's normalizeError). Compressed bodies are refused (415)
 * rather than inflated: the limit then bounds what the services receive as well. A refused body
 * is read off before the answer, so the client is not cut off while it still sends.
 */
export function readBody(limit: string): BodyReader {
  return async (req) => {
    if (!hasBody(req)) return undefined;
    assertSupportedBody(req);
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity') throw errors.unsupportedMediaType();
    try {
      return await getRawBody(req, { limit, length: req.headers['content-length'] });
    } catch (err) {
      await readOff(req);
      throw err;
    }
  };
}

/** The request's body as bytes, or undefined when it has none. */
export type BodyReader = (req: IncomingMessage) => Promise<Buffer | undefined>;

/** 415 for a body that is neither a form nor JSON (the types the services parse). */
function assertSupportedBody(req: IncomingMessage): void {
  if (typeis(req, BODY_TYPES)) return;
  throw errors.unsupportedMediaType(req.headers['content-type'] ? undefined : NO_CONTENT_TYPE);
}

/** The 415's detail for a body without a Content-Type. */
export const NO_CONTENT_TYPE =
  'The body came without a Content-Type: send Content-Type: application/json (or application/x-www-form-urlencoded).';

const BODY_TYPES = ['application/x-www-form-urlencoded', 'application/json'];

function readOff(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.once('end', resolve);
    req.once('close', resolve);
    req.resume();
  });
}

/** Whether the body's Content-Type is one of `types`. */
function isType(headers: IncomingHttpHeaders, types: string[]): boolean {
  const type = headers['content-type'];
  return type !== undefined && typeis.is(type, types) !== false;
}

function assertUtf8Json(headers: IncomingHttpHeaders): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(headers['content-type'] ?? '')?.[1]?.toLowerCase();
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
export function stripBodyTokens(headers: IncomingHttpHeaders, raw: Buffer | undefined): { tokens: string[]; body: Buffer | undefined } {
  if (!raw || raw.length === 0) return { tokens: [], body: raw };
  if (isType(headers, ['application/x-www-form-urlencoded'])) {
    // latin1 maps each byte to one char and back, so untouched pairs survive even if not UTF-8.
    assertNotJson(raw);
    const { tokens, rest } = takeAccessTokens(raw.toString('latin1'));
    return { tokens, body: tokens.length ? Buffer.from(rest, 'latin1') : raw };
  }
  // Only JSON is left: assertSupportedBody let nothing else through.
  const parsed = parseJsonBody(headers, raw);
  const { tokens, rest } = takeJsonAccessToken(parsed);
  return { tokens, body: rest === parsed ? raw : Buffer.from(JSON.stringify(rest), 'utf8') };
}

function parseJsonBody(headers: IncomingHttpHeaders, raw: Buffer): unknown {
  assertUtf8Json(headers);
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
export function assertSingleBodyToken(headers: IncomingHttpHeaders, raw: Buffer | undefined): void {
  if (raw && raw.length > 0 && isType(headers, ['application/json'])) parseJsonBody(headers, raw);
}
