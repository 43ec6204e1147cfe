/**
 * docker-compose.yml stays a plain file; this checks it against the service registry
 * (services.json), and that the check names what a broken copy gets wrong.
 */
import { readRegistry } from '../../gateway/src/registry';
import type { ComposeFile, ComposeService } from './support/compose';
import { registryProblems, type RegistryShape } from './support/registry-checks';
import { loadStack } from './support/stack';

let compose: ComposeFile;
let registry: RegistryShape;
beforeEach(() => {
  compose = loadStack().compose; // a fresh copy for every test to break
  registry = readRegistry();
});

const svc = (name: string) => compose.services[name] as ComposeService & { environment: Record<string, unknown> };

test('docker-compose.yml agrees with services.json', () => {
  expect(registryProblems(registry, compose)).toEqual([]);
});

test('the registry routes identity and articles through the gateway, and not the mailer (a message consumer)', () => {
  const urlEnvOf = (name: string) => registry.services.find((s) => s.name === name)?.urlEnv;

  expect([urlEnvOf('identity'), urlEnvOf('articles'), urlEnvOf('mailer')]).toEqual(['IDENTITY_URL', 'ARTICLES_URL', undefined]);
});

describe('on broken copies', () => {
  test('when a registry service has no compose service, then it is named', () => {
    delete compose.services.articles;

    expect(registryProblems(registry, compose)).toContain('articles: no compose service of that name built from this repository');
  });

  test('when a service is built from another folder or for another port, then both are named', () => {
    (svc('articles').build as { args: Record<string, string> }).args = { SERVICE: 'services/identity', PORT: '9009' };

    expect(registryProblems(registry, compose)).toEqual([
      'articles: built with SERVICE=services/identity, the registry says services/articles',
      'articles: built with PORT=9009, the registry says 9002',
    ]);
  });

  test('when a service listens on another port than the registry says, then it is named', () => {
    svc('mailer').environment.PORT = '9103';

    expect(registryProblems(registry, compose)).toEqual(['mailer: PORT=9103, the registry says 9003']);
  });

  test("when the gateway lacks a service's URL, points it elsewhere, or does not wait for it, then each is named", () => {
    delete svc('gateway').environment.ARTICLES_URL;
    svc('gateway').environment.IDENTITY_URL = 'http://identity:9999';
    delete (svc('gateway').depends_on as Record<string, unknown>).articles;

    expect(registryProblems(registry, compose)).toEqual([
      'gateway: IDENTITY_URL=http://identity:9999, expected http://identity:9001',
      'gateway: ARTICLES_URL=(unset), expected http://articles:9002',
      'gateway: does not wait for articles',
    ]);
  });

  test('when the gateway gets an upstream URL the registry does not route, then it is named', () => {
    svc('gateway').environment.MAILER_URL = 'http://mailer:9003';

    expect(registryProblems(registry, compose)).toEqual(['gateway: MAILER_URL names no service the registry routes to']);
  });

  test('when a service is given a database it does not own, then it is named', () => {
    svc('articles').environment.MONGODB_DB = 'identity';

    expect(registryProblems(registry, compose)).toEqual(['articles: MONGODB_DB=identity, the registry says it owns articles']);
  });

  test('when compose builds a service the registry does not list, then it is named', () => {
    compose.services.strays = { ...svc('articles'), build: { context: '.', args: { SERVICE: 'services/strays', PORT: '9099' } } };

    expect(registryProblems(registry, compose)).toEqual(['strays: built from this repository but not in services.json']);
  });
});
