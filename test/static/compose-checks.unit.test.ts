/**
 * The compose rules can fail: each test breaks a copy of the real compose file in one way and
 * expects the rule to name what broke.
 */
import {
  agreementProblems,
  dependencyProblems,
  healthcheckProblems,
  imageTagProblems,
  lifecycleProblems,
  networkProblems,
  portProblems,
  secretProblems,
  undocumentedVariables,
  wiringProblems,
} from './support/compose-checks';
import type { ComposeFile, ComposeService } from './support/compose';
import { checkEnvironment, loadConfigSchema } from './support/config-schemas';
import { interpolate, MissingVariableError, variablesIn } from './support/interpolate';
import { BACKING_PORTS, containerEnvironment, loadStack, type Stack } from './support/stack';

const PUBLISHED = { gateway: { 9000: 9000 }, mailpit: { 8025: 8025 } };
const OUTSIDE = { gateway: ['edge'], mailpit: ['edge'], identity: ['egress'] };

let stack: Stack;
beforeEach(() => {
  stack = loadStack(); // a fresh copy for every test to break
});

const svc = (compose: ComposeFile, name: string) => compose.services[name] as ComposeService;
const noImageHealthcheck = () => false;
const listensOn = (name: string) =>
  BACKING_PORTS[name] ?? { gateway: [9000], identity: [9001], articles: [9002], mailer: [9003] }[name] ?? [];

describe('interpolation', () => {
  test('when a required variable is unset or empty, then interpolation fails with its message', () => {
    expect(() => interpolate('${A:?set A}', {})).toThrow(new MissingVariableError('A: set A'));
    expect(() => interpolate('${A:?set A}', { A: '' })).toThrow(MissingVariableError);
    expect(interpolate('${A?x}', { A: '' })).toBe('');
  });

  test('defaults, alternatives and $$ follow compose', () => {
    expect(interpolate('${A:-x}/${B-y}/${C:+z}/$$D/$E', { B: '', C: 'c', E: 'e' })).toBe('x//z/$D/e');
    expect(variablesIn('amqp://${U:-guest}:${P:?pw}@h').map((u) => [u.name, u.operator])).toEqual([
      ['U', ':-'],
      ['P', ':?'],
    ]);
  });
});

describe('compose rules on broken copies', () => {
  test('when mongo has no healthcheck, then it and the services waiting for it are named', () => {
    delete svc(stack.compose, 'mongo').healthcheck;
    expect(healthcheckProblems(stack.compose, noImageHealthcheck)).toContain('mongo: no healthcheck');
    const healthy = (name: string) => !!svc(stack.compose, name).healthcheck;
    expect(dependencyProblems(stack.compose, healthy)).toContain('identity: depends on mongo, which has no healthcheck');
  });

  test('when a built service image has no HEALTHCHECK and compose adds none, then it is named', () => {
    expect(healthcheckProblems(stack.compose, noImageHealthcheck)).toEqual(
      expect.arrayContaining(['gateway: no healthcheck', 'mailer: no healthcheck']),
    );
  });

  test('when depends_on is a plain list or waits for service_started, then the condition is named', () => {
    svc(stack.compose, 'gateway').depends_on = ['identity'];
    svc(stack.compose, 'mailer').depends_on = { rabbitmq: { condition: 'service_started' } };
    const problems = dependencyProblems(stack.compose, () => true);
    expect(problems).toContain('gateway: depends on identity with condition service_started, not service_healthy');
    expect(problems).toContain('mailer: depends on rabbitmq with condition service_started, not service_healthy');
  });

  test('when another service publishes, or the gateway on a random host port, then it is named', () => {
    svc(stack.compose, 'mongo').ports = ['27017:27017'];
    svc(stack.compose, 'articles').ports = [{ target: 9002, published: 9002 }];
    svc(stack.compose, 'gateway').ports = ['9000'];
    svc(stack.compose, 'rabbitmq').network_mode = 'host';
    const problems = portProblems(stack.compose, PUBLISHED).join('\n');
    for (const name of ['mongo', 'articles', 'gateway', 'rabbitmq']) expect(problems).toContain(`${name}:`);
  });

  test('when a service joins the edge or no network at all, then it is named', () => {
    svc(stack.compose, 'identity').networks = ['internal', 'edge'];
    svc(stack.compose, 'articles').networks = ['internal', 'egress'];
    delete svc(stack.compose, 'mongo').networks;
    const problems = networkProblems(stack.compose, OUTSIDE);
    expect(problems).toContain('identity: on edge, which is not internal');
    expect(problems).toContain('articles: on egress, which is not internal');
    expect(problems).toContain('mongo: on no internal network (default)');
  });

  test('when the internal network is not marked internal, then every service on it is named', () => {
    stack.compose.networks = { internal: {}, edge: {}, egress: {} };
    expect(networkProblems(stack.compose, OUTSIDE).length).toBeGreaterThanOrEqual(7);
  });

  test('when a secret is a literal, has a default, sits in a URL or in a build argument, then it is named', () => {
    const env = svc(stack.raw, 'gateway').environment as Record<string, string>;
    env.MASTER_KEY = 'a-literal-master-key-that-is-long-enough-to-pass';
    env.JWT_SECRET = '${JWT_SECRET:-changeme-changeme-changeme-changeme}';
    env.PRINCIPAL_SECRET = '${PRINCIPAL_SECRET}';
    (svc(stack.raw, 'mailer').environment as Record<string, string>).AMQP_URL = 'amqp://restgate:hunter2@rabbitmq:5672';
    svc(stack.raw, 'identity').build = { context: '.', args: { SERVICE: 'services/identity', NPM_TOKEN: 'x' } };
    const problems = secretProblems(stack.raw).join('\n');
    expect(problems).toContain('gateway: MASTER_KEY');
    expect(problems).toContain('gateway: JWT_SECRET');
    expect(problems).toContain('gateway: PRINCIPAL_SECRET');
    expect(problems).toContain('mailer: AMQP_URL has a password');
    expect(problems).toContain('identity: build argument NPM_TOKEN');
  });

  test('when an image has no tag or latest, then it is named', () => {
    svc(stack.compose, 'mongo').image = 'mongo';
    svc(stack.compose, 'mailpit').image = 'axllent/mailpit:latest';
    expect(imageTagProblems(stack.compose)).toEqual([
      'mongo: image mongo does not name a version',
      'mailpit: image axllent/mailpit:latest does not name a version',
    ]);
  });

  test('when a built service has no init or too short a grace period, then it is named', () => {
    delete svc(stack.compose, 'identity').init;
    svc(stack.compose, 'articles').stop_grace_period = '5s';
    expect(lifecycleProblems(stack.compose, () => 10_000)).toEqual([
      'identity: needs init: true',
      'articles: stop_grace_period 5s is shorter than DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + 2 s (12000 ms)',
    ]);
  });

  test('when a drain delay is set, then the grace period must cover it too', () => {
    expect(lifecycleProblems(stack.compose, () => 10_000, () => 0)).toEqual([]);
    expect(lifecycleProblems(stack.compose, () => 10_000, (name) => (name === 'gateway' ? 5_000 : 0))).toEqual([
      'gateway: stop_grace_period 15s is shorter than DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + 2 s (17000 ms)',
    ]);
  });

  test('when a URL names the wrong port or a service not depended on, then it is named', () => {
    (svc(stack.compose, 'gateway').environment as Record<string, string>).ARTICLES_URL = 'http://articles:9003';
    delete (svc(stack.compose, 'mailer').depends_on as Record<string, unknown>).mailpit;
    const problems = wiringProblems(stack.compose, listensOn).join('\n');
    expect(problems).toContain('gateway: ARTICLES_URL points at articles:9003, but articles listens on 9002');
    expect(problems).toContain('mailer: SMTP_URL points at mailpit, but mailer does not depend on it');
  });

  test('when two services disagree on a shared setting, then the setting is named', () => {
    const configs = { gateway: { JWT_ISSUER: 'restgate' }, identity: { JWT_ISSUER: 'someone-else' }, articles: {} };
    expect(agreementProblems(configs, ['JWT_ISSUER'])).toEqual(['JWT_ISSUER differs between gateway, identity']);
  });

  test('when a variable is missing from .env.example, then it is named', () => {
    expect(undocumentedVariables(variablesIn('${A:?x} ${B:-y}'), 'A=\n# C=1\n')).toEqual(['B is not in .env.example']);
  });

  test('when identity lacks MONGODB_URL or carries a misspelt key, then its schema check names both', async () => {
    const env = svc(stack.compose, 'identity').environment as Record<string, string>;
    delete env.MONGODB_URL;
    env.MONGO_URL = 'mongodb://mongo:27017';
    const schema = await loadConfigSchema(stack.built.identity!.packageDir);
    const { problems } = checkEnvironment(schema, containerEnvironment(stack, 'identity'));
    expect(problems).toEqual(expect.arrayContaining(['"MONGODB_URL" is required', '"MONGO_URL" is not allowed']));
  });

  test('when JWT_SECRET equals PRINCIPAL_SECRET (identity) or MASTER_KEY is short (gateway), then the schema checks fail', async () => {
    const env = svc(stack.compose, 'identity').environment as Record<string, string>;
    env.JWT_SECRET = env.PRINCIPAL_SECRET as string;
    const schema = await loadConfigSchema(stack.built.identity!.packageDir);
    expect(checkEnvironment(schema, containerEnvironment(stack, 'identity')).problems.join('\n')).toContain('JWT_SECRET');
    (svc(stack.compose, 'gateway').environment as Record<string, string>).MASTER_KEY = 'short';
    const gateway = await loadConfigSchema(stack.built.gateway!.packageDir);
    expect(checkEnvironment(gateway, containerEnvironment(stack, 'gateway')).problems.join('\n')).toContain('MASTER_KEY');
  });
});
