import Joi from 'joi';
import { bindRoutes, defineSpec, type RouteInput } from '@restgate/shared/http';

// The types are the subject here: `npm test`'s type-check (tsconfig.check.json) reads this file, so
// each `@ts-expect-error` fails the run when the error it expects is gone.
describe('defineSpec', () => {
  test('when a path names parameters, then the handler gets them as strings, read from the path alone', async () => {
    const api = {
      sessions: defineSpec({
        method: 'get',
        path: '/users/:id/sessions/:sessionId',
        level: 'user',
        summary: 'One session.',
        schemas: { query: Joi.object<{ page: number }>({ page: Joi.number() }) },
      }),
      own: defineSpec({ method: 'get', path: '/users/me', level: 'user', summary: 'Me.' }),
    };
    const [sessions, own] = bindRoutes(api, {
      sessions: async ({ params, query }) => {
        const page: number = query.page;
        // @ts-expect-error the path names no `userId`
        const unknownName: string = params.userId;
        return { status: 200, body: { id: params.id, sessionId: params.sessionId, page, unknownName } };
      },
      own: async ({ params }) => {
        // @ts-expect-error `/users/me` has no parameters
        const id: string = params.id;
        return { status: 200, body: { id } };
      },
    });

    expect(sessions!.path).toBe('/users/:id/sessions/:sessionId');
    await expect(own!.handler({ params: {} } as unknown as RouteInput)).resolves.toEqual({ status: 200, body: {} });
  });

  test('when defined, then the spec is frozen all the way down, and its joi schemas are left as they are', () => {
    const body = Joi.object({ name: Joi.string() });
    const spec = defineSpec({
      method: 'post',
      path: '/things',
      level: 'public',
      summary: 'Create.',
      tags: ['things'],
      schemas: { body },
    });

    expect(Object.isFrozen(spec)).toBe(true);
    expect(Object.isFrozen(spec.tags)).toBe(true);
    expect(Object.isFrozen(spec.schemas)).toBe(true);
    expect(Object.isFrozen(body)).toBe(false);
  });
});
