/** What a change can be; an event's type is `<resource>.<action>`. */
export const ACTIONS = ['created', 'updated', 'deleted'] as const;

/** The type of the event `POST /webhooks/:id/test` sends: to that endpoint alone, whatever it subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * Why an endpoint's event pattern is not one this stack can match, or null when it is: `*` (every
 * event), `<resource>.*` or `<resource>.<action>`, for a resource that emits change events.
 */
export function patternProblem(pattern: string, resources: ReadonlySet<string>): string | null {
  if (pattern === '*') return null;
  const [resource, action, extra] = pattern.split('.');
  if (!resource || !action || extra !== undefined) return `"${pattern}" is not "*", "<resource>.*" or "<resource>.<action>"`;
  if (!resources.has(resource)) return `"${pattern}" names no resource with events (known: ${[...resources].sort().join(', ')})`;
  if (action !== '*' && !(ACTIONS as readonly string[]).includes(action))
    return `"${pattern}" names no action (one of ${ACTIONS.join(', ')}, or *)`;
  return null;
}

/** Whether an event of `type` goes to an endpoint subscribed to `patterns`. */
export function subscribed(patterns: readonly string[], type: string): boolean {
  const resource = type.slice(0, type.indexOf('.'));
  return patterns.some((p) => p === '*' || p === type || p === `${resource}.*`);
}
