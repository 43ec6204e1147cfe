import Joi from 'joi';

/**
 * The broker URLs of an `AMQP_URL`: one URL, or several separated by commas (blanks around them
 * ignored). Commas cannot occur unescaped in an amqp URL's credentials, host or vhost, so the
 * split is unambiguous.
 */
export function parseBrokerUrls(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** Where a broker URL points, for logs: `host:port`, never the credentials or the vhost. */
export function brokerAddress(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === 'amqps:' ? '5671' : '5672');
    return `${parsed.hostname}:${port}`;
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * The order in which a client tries the brokers: the first attempt goes to a random one, so the
 * replicas of a service spread over the nodes of a cluster; each later attempt (after a failed
 * one, or after a connection was lost) goes to the one after the last tried, so a dead node is
 * left for the next one at once. One URL is always that URL.
 */
export function brokerRotation(urls: readonly string[], random: () => number = Math.random): { next(): string; size: number } {
  if (urls.length === 0) throw new Error('no broker URL given');
  let index = -1;
  return {
    size: urls.length,
    next() {
      index = index === -1 ? Math.floor(random() * urls.length) % urls.length : (index + 1) % urls.length;
      return urls[index]!;
    },
  };
}

/**
 * The Joi rule of an `AMQP_URL`: one amqp(s):// URL or a comma-separated list of them. A bad entry
 * is named by its place in the list, never shown: the URLs carry the broker's password.
 */
export function brokerUrlList(): Joi.StringSchema {
  return Joi.string().custom((value: string, helpers) => {
    const urls = parseBrokerUrls(value);
    if (urls.length === 0) return helpers.message({ custom: '{{#label}} must name at least one amqp:// or amqps:// URL' });
    const bad = urls.flatMap((url, i) => (isBrokerUrl(url) ? [] : [i + 1]));
    if (bad.length > 0) {
      const which = urls.length === 1 ? 'is' : `has entries (${bad.join(', ')} of ${urls.length}) that are`;
      return helpers.message({ custom: `{{#label}} ${which} not an amqp:// or amqps:// URL with a host (comma-separated for several brokers)` });
    }
    return value;
  });
}

function isBrokerUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'amqp:' || url.protocol === 'amqps:') && url.hostname !== '';
  } catch {
    return false;
  }
}
