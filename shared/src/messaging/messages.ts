import { randomUUID } from 'node:crypto';
import Joi from 'joi';

/**
 * The envelope every restgate message travels in, `{ id, type, occurredAt, requestId, data }`,
 * and the helpers that create and check it. What `data` holds is not known here: each service
 * keeps the messages it publishes or handles next to its own code, as a map of type → joi schema
 * of `data`, and passes that map in.
 */

/** The envelope of one message of type `T` with data `D`. */
export interface MessageEnvelope<T extends string = string, D = unknown> {
  /** Unique per message; also the AMQP `messageId` and the consumers' idempotency key. */
  id: string;
  type: T;
  /** When the producer decided to send it (ISO 8601). */
  occurredAt: string;
  /** The id of the HTTP request that caused it, for the logs of every hop. */
  requestId: string;
  data: D;
}

/** Message type → the joi schema of its data: one service's view of the messages it sends or handles. */
export type MessageSchemas<M> = { [T in keyof M & string]: Joi.ObjectSchema<M[T]> };

/** Any message of the map `M` (type → data), narrowed by `type`. */
export type MessageOf<M> = { [T in keyof M & string]: MessageEnvelope<T, M[T]> }[keyof M & string];

/** Message ids and request ids: safe as file names, log fields and header values. */
const MESSAGE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** Messages larger than this are refused before parsing. */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** True for CR, LF, NUL or any other control character: what header injection is made of. */
export function hasControlCharacters(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A joi `custom` rule that refuses control characters in a string field called `label`. */
export function noControlCharacters(label: string) {
  return (value: string, helpers: Joi.CustomHelpers) =>
    hasControlCharacters(value) ? helpers.message({ custom: `${label} must not contain control characters (CR, LF, ...)` }) : value;
}

/** The envelope schema, with `data` checked against the schema of `type`; other types are refused. */
function envelopeSchema(schemas: Record<string, Joi.ObjectSchema>): Joi.ObjectSchema {
  const types = Object.keys(schemas);
  return Joi.object({
    id: Joi.string().pattern(MESSAGE_ID_PATTERN, 'message id').required(),
    type: Joi.string()
      .valid(...types)
      .required(),
    occurredAt: Joi.string().isoDate().required(),
    requestId: Joi.string().pattern(REQUEST_ID_PATTERN, 'request id').required(),
    data: Joi.alternatives()
      .conditional('type', {
        switch: types.map((type) => ({ is: type, then: schemas[type]! })),
        otherwise: Joi.object(),
      })
      .required(),
  });
}

/** What the AMQP layer knows about a delivery besides its body (amqplib's `msg.properties` fits). */
export interface MessageMeta {
  messageId?: string;
  contentType?: string;
  headers?: Record<string, unknown>;
}

export type ValidationResult<M> = { ok: true; message: M } | { ok: false; reason: string };

/**
 * Parses and checks one message body against the handler's own view of its messages. Never
 * throws: a bad message yields `{ ok: false, reason }` with a reason fit for a dead-letter header
 * (no message content in it beyond field names). Unknown fields are dropped, so producers can add
 * fields before consumers know them.
 */
export function validateMessage<M>(raw: Buffer, meta: MessageMeta, schemas: MessageSchemas<M>): ValidationResult<MessageOf<M>> {
  try {
    if (meta.contentType !== undefined && meta.contentType !== 'application/json') {
      return { ok: false, reason: `content type ${JSON.stringify(String(meta.contentType).slice(0, 100))} is not application/json` };
    }
    if (raw.length > MAX_MESSAGE_BYTES) return { ok: false, reason: `message is larger than ${MAX_MESSAGE_BYTES} bytes` };
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      return { ok: false, reason: 'body is not valid JSON' };
    }
    const { value, error } = envelopeSchema(schemas).validate(parsed, {
      abortEarly: false,
      convert: true,
      stripUnknown: true,
      errors: { wrap: { label: false } },
    });
    if (error) {
      const problems = error.details.map((d) => `${d.path.join('.') || 'message'}: ${d.message}`);
      return { ok: false, reason: `schema: ${problems.join('; ')}` };
    }
    const message = value as MessageOf<M>;
    if (meta.messageId !== undefined && meta.messageId !== message.id) {
      return { ok: false, reason: 'AMQP messageId does not match the envelope id' };
    }
    return { ok: true, message };
  } catch (err) {
    return { ok: false, reason: `unreadable message: ${(err as Error).message}` };
  }
}

/**
 * A new envelope with a fresh id and the current time, its data checked against the sender's
 * schema of it. Throws on data that does not fit.
 */
export function createEnvelope<T extends string, D>(
  type: T,
  data: D,
  requestId: string,
  schema: Joi.ObjectSchema<D>,
): MessageEnvelope<T, D> {
  const envelope = { id: randomUUID(), type, occurredAt: new Date().toISOString(), requestId, data };
  const { error, value } = envelopeSchema({ [type]: schema }).validate(envelope, { abortEarly: false, convert: true, stripUnknown: true });
  if (error) throw new Error(`createEnvelope(${type}): ${error.message}`);
  return value as MessageEnvelope<T, D>;
}
