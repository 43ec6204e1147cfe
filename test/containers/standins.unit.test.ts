/**
 * The stand-in override of the container test: only image names and the Node base image change,
 * every image the compose file names has a stand-in under restgate-standin/, and an image without
 * one stops the test with its name (so a new backing service can't go untested).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

import { standinOverride, repositoryOf, STANDIN_NODE_IMAGE } from '../../scripts/containers/standins.cjs';

const ROOT = path.resolve(__dirname, '..', '..');

test('repositoryOf drops the tag, the digest and the docker.io/library/ prefix', () => {
  expect(['mongo:7', 'docker.io/library/redis:7@sha256:ab', 'axllent/mailpit:v1.31', 'localhost:5000/x/y'].map(repositoryOf)).toEqual([
    'mongo',
    'redis',
    'axllent/mailpit',
    'localhost:5000/x/y',
  ]);
});

test('the real compose file: every named image gets a restgate-standin/ image, every built service the stand-in Node base, and nothing else changes', () => {
  const model = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));

  const override = standinOverride(model);

  for (const [service, spec] of Object.entries(model.services as Record<string, { image?: string; build?: unknown }>)) {
    const expected = spec.build
      ? { build: { args: { NODE_IMAGE: STANDIN_NODE_IMAGE } } }
      : { image: expect.stringMatching(/^restgate-standin\//) };
    expect({ service, override: override.services[service] }).toEqual({ service, override: expected });
  }
  expect(Object.keys(override)).toEqual(['services']);
});

test('a redis service (official image) gets the redis stand-in', () => {
  const override = standinOverride({ services: { redis: { image: 'redis:7' } } });

  expect(override.services.redis).toEqual({ image: 'restgate-standin/redis:7' });
});

test('an image without a stand-in stops the test, naming the service and the image', () => {
  expect(() => standinOverride({ services: { search: { image: 'opensearchproject/opensearch:2' }, mongo: { image: 'mongo:7' } } })).toThrow(
    /no stand-in image for search \(opensearchproject\/opensearch:2\)/,
  );
});
