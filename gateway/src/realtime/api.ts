import Joi from 'joi';
import { defineSpec, type RouteSpec } from '@restgate/shared/http';
import {
  addErrorResponses,
  applyAccessLevel,
  buildOperation,
  openApiPath,
  type OpenApiComponents,
  type OpenApiDocument,
  type OpenApiOperation,
} from '@restgate/shared/openapi';
import { MAX_TOPICS } from './topics';

/**
 * The realtime routes as the API docs describe them (the gateway serves them itself: no service
 * describes them). docs/api.md, "Realtime", is the prose.
 */
const tags = ['realtime'];
const topics = Joi.string()
  .max(4000)
  .description(
    `Comma-separated, at most ${MAX_TOPICS}: a resource (\`articles\`: its records you may list), a record (\`articles/<id>\`: you may read it) or \`users/me\` (your own user; \`users\` is everyone's for an admin).`,
  )
  .example('articles,users/me');

const STREAM_DESCRIPTION = [
  'A `text/event-stream` of change events. The first frame is `event: connected` with `{ connectionId, topics }` (also the `X-Connection-Id` header).',
  'Then one frame per change you may see: `id: <positions>`, `event: <resource>.<created|updated|deleted>`, `data: { id, record, changed, at, requestId }`, where `record` is the record as you may read it (field rules applied) and `changed` the fields an update changed that you can see.',
  'An update after which you may no longer read the record comes as `<resource>.deleted`.',
  'A `:` comment every 25 s keeps it open. Reconnect with `Last-Event-ID` (or `lastEventId`) to receive what you missed; beyond the window: `event: reset` (refetch).',
  'The stream ends with `event: revoked` (the session ended), `expired` (the token did), `overflow` (you read too slowly) or `reconnect` (this gateway is stopping).',
  'Credentials as on every route, or a `ticket` (POST /realtime/tickets) where headers cannot be set (a browser EventSource).',
].join('\n\n');

export const realtimeApi = {
  openStream: defineSpec({
    method: 'get',
    path: '/realtime',
    level: 'public',
    summary: 'Open an event stream of change events (Server-Sent Events)',
    description: STREAM_DESCRIPTION,
    tags,
    schemas: {
      query: Joi.object({
        topics: topics.required(),
        ticket: Joi.string().description('A single-use ticket from POST /realtime/tickets, instead of a token.'),
        lastEventId: Joi.string().max(4000).description('Where to resume, for clients that cannot send the `Last-Event-ID` header.'),
      }),
    },
    responses: {
      200: { description: 'The event stream (text/event-stream)' },
      400: { description: 'No topic, more than 50, an unknown resource or a malformed id (`param: topics`)' },
      401: { description: 'A bad token or ticket, or `users/me` without a user' },
      403: { description: "A topic whose resource's level you do not pass" },
      429: { description: 'Too many streams open for this credential (5) or address (100)' },
    },
  }),
  changeTopics: defineSpec({
    method: 'patch',
    path: '/realtime/:id',
    level: 'public',
    summary: "Change an open stream's topics, without reconnecting",
    description: 'The stream must be yours (the same credential) and open on this gateway. Events of added topics start now.',
    tags,
    schemas: {
      params: Joi.object<{ id: string }>({ id: Joi.string().guid().required().description('The `connectionId` of the stream.') }),
      body: Joi.object({ topics: Joi.alternatives(topics, Joi.array().items(Joi.string()).min(1).max(MAX_TOPICS)).required() }),
    },
    responses: {
      200: {
        description: 'The topics now',
        schema: Joi.object({ connectionId: Joi.string().required(), topics: Joi.array().items(Joi.string()).required() }),
      },
      400: { description: 'As for GET /realtime' },
      401: { description: 'A bad token, or `users/me` without a user' },
      403: { description: "A topic whose resource's level you do not pass" },
      404: { description: 'No such stream of yours on this gateway' },
    },
  }),
  createTicket: defineSpec({
    method: 'post',
    path: '/realtime/tickets',
    level: 'user',
    summary: 'A single-use ticket to open a stream with (`?ticket=`), valid for 30 s',
    description:
      'For a browser EventSource, which cannot send an Authorization header, and so that no token ends up in a URL (and in logs). The stream opened with it is bound to your session: it ends when the session does.',
    tags,
    responses: {
      201: {
        description: 'The ticket',
        schema: Joi.object({ ticket: Joi.string().required(), expiresIn: Joi.number().integer().valid(30).required() }),
      },
    },
  }),
} satisfies Record<string, RouteSpec>;

/** The data of every event frame, per resource: `record` as that resource's GET of one record shows it. */
function eventSchemas(doc: OpenApiDocument, resources: readonly string[]) {
  return Object.fromEntries(
    resources.map((resource) => {
      const get = doc.paths[`/${resource}/{id}`]?.get?.responses?.['200'] as { content?: Record<string, { schema?: unknown }> } | undefined;
      const record = get?.content?.['application/json']?.schema ?? { type: 'object', additionalProperties: true };
      return [
        `RealtimeEvent_${resource}`,
        {
          type: 'object',
          description: `The data of \`${resource}.created\`, \`${resource}.updated\` and \`${resource}.deleted\` frames.`,
          required: ['id', 'record', 'changed', 'at', 'requestId'],
          properties: {
            id: { type: 'string', description: 'The event id: the same on every delivery (de-duplicate on it).' },
            record,
            changed: { type: 'array', items: { type: 'string' }, description: 'Fields an update changed, of those you can see.' },
            at: { type: 'string', format: 'date-time' },
            requestId: { type: 'string' },
          },
        },
      ];
    }),
  );
}

/** The grammar of `topics` with the resources there are: the pattern the document gives it. */
function topicsPatterns(resources: readonly string[]): { list: string; one: string } {
  const topic = `(?:${resources.map((r) => `${r}(?:/[0-9a-f]{24}${r === 'users' ? '|/me' : ''})?`).join('|')})`;
  return { list: `^${topic}(?:,${topic}){0,${MAX_TOPICS - 1}}$`, one: `^${topic}$` };
}

/** Sets the pattern of every `topics` schema in `operation` (the query parameter, the body's string form). */
function constrainTopics(operation: OpenApiOperation, patterns: { list: string; one: string }): void {
  const visit = (node: unknown, inTopics: boolean): void => {
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (inTopics && record.type === 'string') record.pattern = patterns.list;
    if (inTopics && record.type === 'array') {
      (record as { items?: Record<string, unknown> }).items!.pattern = patterns.one;
      return;
    }
    for (const [key, child] of Object.entries(record))
      visit(child, inTopics || key === 'topics' || (record.name === 'topics' && key === 'schema'));
  };
  visit(operation, false);
}

/** Adds the realtime routes, and each resource's event data schema, to the merged document. */
export function addRealtimeToDocument(doc: OpenApiDocument, resources: readonly string[]): void {
  const components = doc.components as OpenApiComponents;
  const patterns = topicsPatterns(resources);
  for (const spec of Object.values(realtimeApi)) {
    let operation: OpenApiOperation = applyAccessLevel(
      buildOperation({ ...spec, handler: async () => ({ status: 204 }) }, components),
      spec.level,
    );
    constrainTopics(operation, patterns);
    operation = addErrorResponses(operation, spec.method === 'get' ? [400, 429, 500, 503] : [400, 413, 415, 429, 500, 503]);
    (operation as OpenApiOperation & { 'x-restgate-upstream'?: string })['x-restgate-upstream'] = 'gateway';
    (doc.paths[openApiPath(spec.path)] ??= {})[spec.method] = operation;
  }
  const stream = doc.paths['/realtime']!.get!;
  const schemas = eventSchemas(doc, resources);
  Object.assign((components.schemas ??= {}), schemas);
  stream.responses['200'] = {
    description: 'The event stream',
    content: {
      'text/event-stream': {
        schema: { type: 'string', description: "Server-Sent Events; each frame's `data` is one of `x-restgate-events`." },
      },
    },
  } as never;
  (stream as unknown as Record<string, unknown>)['x-restgate-events'] = Object.fromEntries(
    resources.flatMap((resource) =>
      ['created', 'updated', 'deleted'].map((change) => [
        `${resource}.${change}`,
        { $ref: `#/components/schemas/RealtimeEvent_${resource}` },
      ]),
    ),
  );
  if (!doc.tags?.some((t) => t.name === 'realtime')) doc.tags?.push({ name: 'realtime' });
}
