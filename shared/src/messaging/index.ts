/**
 * `@restgate/shared/messaging`: the messaging mechanism every service uses the same way — a RabbitMQ
 * connection that stays up and publishes on a confirm channel, the message envelope and its
 * checks. Which exchanges, queues and messages exist is each service's own business.
 */
export { createAmqp, MESSAGE_HEADERS, PublishError, type AmqpClient, type AmqpOptions, type ReadyHandler } from './client';
export {
  createEnvelope,
  hasControlCharacters,
  noControlCharacters,
  validateMessage,
  MAX_MESSAGE_BYTES,
  type MessageEnvelope,
  type MessageMeta,
  type MessageOf,
  type MessageSchemas,
} from './messages';
export { publishBackoff } from './backoff';
export { brokerAddress, brokerRotation, brokerUrlList, parseBrokerUrls } from './urls';
