import { randomUUID } from 'node:crypto';
import Joi from 'joi';

/**
 * The messages restgate services exchange over RabbitMQ (architecture.md "Messages").
 * Every message is an envelope `{ id, type, occurredAt, requestId, data }`; `data` depends on
 * `type`. To add a type: add its data interface to `MessageDataByType` and its schema to
 * `MESSAGE_DATA_SCHEMAS` (the compiler insists on both).
 */

/** Data of `mail.password-reset`: one mail with a reset link. */
export interface PasswordResetMailData {
  /** Recipient address (a bare address; never a display name or a list). */
  to: string;
  /** The user's name, shown in the greeting. */
  name: string;
  /** The full link to the reset page, token included. */
  link: string;
  /** When the token stops working (ISO 8601). */
  expiresAt: string;
}

/** Message type → its data. */
export interface MessageDataByType {
  'mail.password-reset': PasswordResetMailData;
}

export type MessageType = keyof MessageDataByType;

/** The envelope of one message of type `T`. */
export interface MessageEnvelope<T extends MessageType = MessageType> {
  /** Unique per message; also the AMQP `messageId` and the consumers' idempotency key. */
  id: string;
  type: T;
  /** When the producer decided to send it (ISO 8601). */
  occurredAt: string;
  /** The id of the HTTP request that caused it, for the logs of every hop. */
  requestId: string;
  data: MessageDataByType[T];
}

/** Any valid message, narrowed by `type`. */
export type Message = { [T in MessageType]: MessageEnvelope<T> }[MessageType];

/** Message ids and request ids: safe as file names, log fields and header values. */
export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** True for CR, LF, NUL or any other control character: what header injection is made of. */
export function hasControlCharacters(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
/**
 * A bare address: no display name, no list, no quoting, no comments. Narrower than RFC 5322
 * on purpose — an address we put into an SMTP envelope must not be able to add recipients
 * or headers.
 */
const BARE_ADDRESS = /^[^\s<>()[\]\\,;:"@]+@[^\s<>()[\]\\,;:"@]+$/;
/** Messages larger than this are refused before parsing. */
export const MAX_MESSAGE_BYTES = 64 * 1024;

const noControlCharacters = (label: string) => (value: string, helpers: Joi.CustomHelpers) =>
  hasControlCharacters(value) ? helpers.message({ custom: `${label} must not contain control characters (CR, LF, ...)` }) : value;

const recipientSchema = Joi.string()
  .max(254)
  .custom(noControlCharacters('to'))
  .pattern(BARE_ADDRESS, 'bare address')
  .email({ tlds: { allow: false }, multiple: false, ignoreLength: false })
  .description('Recipient: one bare e-mail address.');

const passwordResetMailSchema = Joi.object<PasswordResetMailData>({
  to: recipientSchema.required(),
  name: Joi.string().min(1).max(200).custom(noControlCharacters('name')).required().description("The user's name."),
  link: Joi.string()
    .max(2048)
    .uri({ scheme: ['https', 'http'] })
    .custom(noControlCharacters('link'))
    .required()
    .description('Reset page link with the token.'),
  expiresAt: Joi.string().isoDate().required().description('When the token expires (ISO 8601).'),
});

/** Type → schema of its `data`. The keys are the registry of known message types. */
export const MESSAGE_DATA_SCHEMAS: { [T in MessageType]: Joi.ObjectSchema<MessageDataByType[T]> } = {
  'mail.password-reset': passwordResetMailSchema,
};

export const MESSAGE_TYPES = Object.keys(MESSAGE_DATA_SCHEMAS) as MessageType[];

/** The envelope, with `data` checked against the schema of `type`. */
export const envelopeSchema = Joi.object({
  id: Joi.string().pattern(MESSAGE_ID_PATTERN, 'message id').required(),
  type: Joi.string()
    .valid(...MESSAGE_TYPES)
    .required(),
  occurredAt: Joi.string().isoDate().required(),
  requestId: Joi.string().pattern(REQUEST_ID_PATTERN, 'request id').required(),
  data: Joi.alternatives()
    .conditional('type', {
      switch: MESSAGE_TYPES.map((type) => ({ is: type, then: MESSAGE_DATA_SCHEMAS[type] })),
      otherwise: Joi.object(),
    })
    .required(),
});

/** What the AMQP layer knows about a delivery besides its body (amqplib's `msg.properties` fits). */
export interface MessageMeta {
  messageId?: string;
  contentType?: string;
  headers?: Record<string, unknown>;
}

export type ValidationResult = { ok: true; message: Message } | { ok: false; reason: string };

/**
 * Parses and checks one message body. Never throws: a bad message yields `{ ok: false, reason }`
 * with a reason fit for a dead-letter header (no message content in it beyond field names).
 * Unknown fields are dropped, so producers can add fields before consumers know them.
 */
export function validateMessage(raw: Buffer, meta: MessageMeta = {}): ValidationResult {
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
    const { value, error } = envelopeSchema.validate(parsed, {
      abortEarly: false,
      convert: true,
      stripUnknown: true,
      errors: { wrap: { label: false } },
    });
    if (error) {
      const problems = error.details.map((d) => `${d.path.join('.') || 'message'}: ${d.message}`);
      return { ok: false, reason: `schema: ${problems.join('; ')}` };
    }
    const message = value as Message;
    if (meta.messageId !== undefined && meta.messageId !== message.id) {
      return { ok: false, reason: 'AMQP messageId does not match the envelope id' };
    }
    return { ok: true, message };
  } catch (err) {
    return { ok: false, reason: `unreadable message: ${(err as Error).message}` };
  }
}

/** A new envelope with a fresh id and the current time. Throws on data that does not fit the schema. */
export function createEnvelope<T extends MessageType>(type: T, data: MessageDataByType[T], requestId: string): MessageEnvelope<T> {
  const envelope = { id: randomUUID(), type, occurredAt: new Date().toISOString(), requestId, data };
  const { error, value } = envelopeSchema.validate(envelope, { abortEarly: false, convert: true, stripUnknown: true });
  if (error) throw new Error(`createEnvelope(${type}): ${error.message}`);
  return value as MessageEnvelope<T>;
}
