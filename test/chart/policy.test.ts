/**
 * The policy (deploy/helm/policy/restgate.rego, run by conftest on the whole release): the chart
 * passes it with the default and the production values, and every rule can fail. Values files in
 * variants/ each break one rule (named on their first line) the way a user's values could; the
 * rules that values cannot break (the chart computes or fixes what they check) are broken by
 * editing the rendered release, as a changed template would.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  PRODUCTION_VALUES,
  VARIANTS_DIR,
  chartCopy,
  componentOf,
  policyViolations,
  render,
  replaceIn,
  type K8sObject,
  type Rendered,
} from './support/chart';

const rulesOf = (violations: Array<{ rule: string }>) => [...new Set(violations.map((v) => v.rule))].sort();

describe('the chart as it is', () => {
  test.each([
    ['default', []],
    ['production', [PRODUCTION_VALUES]],
  ])('with the %s values, it passes every rule', (_name, values) => {
    expect(policyViolations(render({ values }))).toEqual([]);
  });
});

const variants = fs
  .readdirSync(VARIANTS_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .map((file) => {
    const rule = /^# Breaks (RG-[A-Z-]+)/.exec(fs.readFileSync(path.join(VARIANTS_DIR, file), 'utf8'))?.[1];
    return [file, rule] as const;
  });

describe('values files that break one rule each', () => {
  test('there is one for each rule the issue names: a probe, a resource limit, the PDB, the non-root setting, a NetworkPolicy', () => {
    const broken = new Set(variants.map(([, rule]) => rule));
    for (const rule of ['RG-READINESS', 'RG-LIVENESS', 'RG-RESOURCES', 'RG-PDB', 'RG-NONROOT', 'RG-NETPOL']) expect(broken).toContain(rule);
    expect(variants.filter(([, rule]) => !rule)).toEqual([]);
  });

  test.each(variants)('variants/%s fails %s, and only that rule', (file, rule) => {
    const violations = policyViolations(render({ values: [path.join(VARIANTS_DIR, file)] }));

    expect(violations.length).toBeGreaterThan(0);
    expect(rulesOf(violations)).toEqual([rule]);
  });
});

/** The default release with one edit, as a template change could make it. */
function edited(edit: (objects: K8sObject[]) => void): K8sObject[] {
  const objects = structuredClone(render().objects);
  edit(objects);
  return objects;
}

let release: Rendered;
beforeAll(() => {
  release = render();
});
const find = (objects: K8sObject[], kind: string, component: string) => {
  const found = objects.find((o) => o.kind === kind && componentOf(o) === component && !o.metadata.name.endsWith('default-deny'));
  if (!found) throw new Error(`no ${kind} for ${component} in ${release.objects.length} objects`);
  return found;
};

describe('the grace period', () => {
  test('with the default values, it is preStop 5 s + DRAIN_DELAY_MS 5 s + 2 x SHUTDOWN_TIMEOUT_MS 10 s + 6 s, for every Deployment', () => {
    const graces = release.objects.filter((o) => o.kind === 'Deployment').map((d) => d.spec.template.spec.terminationGracePeriodSeconds);

    expect(graces.length).toBeGreaterThan(0);
    expect(new Set(graces)).toEqual(new Set([36]));
  });
});

describe('template changes that break the rules values cannot reach', () => {
  test.each<[string, string, (objects: K8sObject[]) => void]>([
    [
      'a grace period shorter than the drain',
      'RG-GRACE',
      (o) => (find(o, 'Deployment', 'identity').spec.template.spec.terminationGracePeriodSeconds = 10),
    ],
    [
      // 5 s preStop + (2 x 10 s + 6 s) would be enough without the chart's 5 s DRAIN_DELAY_MS
      'a grace period that leaves out DRAIN_DELAY_MS',
      'RG-GRACE',
      (o) => (find(o, 'Deployment', 'identity').spec.template.spec.terminationGracePeriodSeconds = 31),
    ],
    ['a service exposed as a LoadBalancer', 'RG-EXPOSURE', (o) => (find(o, 'Service', 'articles').spec.type = 'LoadBalancer')],
    [
      'an Ingress to a service',
      'RG-EXPOSURE',
      (o) => {
        const service = find(o, 'Service', 'identity');
        o.push({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'side-door' },
          spec: {
            rules: [
              {
                http: {
                  paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service.metadata.name, port: { number: 9001 } } } }],
                },
              },
            ],
          },
        });
      },
    ],
    [
      'a service reachable from any namespace',
      'RG-NETPOL',
      (o) => (find(o, 'NetworkPolicy', 'identity').spec.ingress[0].from = [{ namespaceSelector: {} }]),
    ],
    [
      'an egress rule on every port',
      'RG-NETPOL',
      (o) => find(o, 'NetworkPolicy', 'articles').spec.egress.push({ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }),
    ],
    [
      'an HPA for a Deployment that is not there',
      'RG-HPA',
      (o) => (find(o, 'HorizontalPodAutoscaler', 'mailer').spec.scaleTargetRef.name = 'mailer-old'),
    ],
    [
      'a mounted service account token',
      'RG-TOKEN',
      (o) => (find(o, 'Deployment', 'articles').spec.template.spec.automountServiceAccountToken = true),
    ],
    [
      'an image on latest',
      'RG-IMAGE',
      (o) => (find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].image = 'restgate-gateway:latest'),
    ],
    [
      'an image without a tag',
      'RG-IMAGE',
      (o) => (find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].image = 'registry:5000/restgate-gateway'),
    ],
    [
      'a Secret with values in the chart',
      'RG-SECRETS',
      (o) => o.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'restgate-secrets' }, stringData: { MASTER_KEY: 'changeme' } }),
    ],
    [
      'a secret key given as a literal',
      'RG-SECRETS',
      (o) => {
        const env = find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].env as Array<Record<string, unknown>>;
        const entry = env.find((e) => e.name === 'JWT_SECRET')!;
        delete entry.valueFrom;
        entry.value = 'a-literal-jwt-secret-0123456789abcdef';
      },
    ],
  ])('%s fails %s, and only that rule', (_what, rule, edit) => {
    const violations = policyViolations(edited(edit));

    expect(rulesOf(violations)).toEqual([rule]);
  });
});

describe('chart changes that drop what the issue names', () => {
  const deployment = 'templates/deployment.yaml';
  test.each<[string, string, (dir: string) => void]>([
    ['the readiness probe', 'RG-READINESS', (dir) => replaceIn(dir, deployment, /\{\{- with \.readiness \}\}[\s\S]*?\{\{- end \}\}/, '')],
    ['the liveness probe', 'RG-LIVENESS', (dir) => replaceIn(dir, deployment, /\{\{- with \.liveness \}\}[\s\S]*?\{\{- end \}\}/, '')],
    [
      'the resource limits (requests kept)',
      'RG-RESOURCES',
      (dir) =>
        replaceIn(
          dir,
          deployment,
          /(\n\s*resources:\n\s*)\{\{- toYaml \. \| nindent 12 \}\}/,
          '$1requests: {{- toYaml .requests | nindent 14 }}',
        ),
    ],
    ['the PodDisruptionBudgets', 'RG-PDB', (dir) => fs.rmSync(path.join(dir, 'templates', 'pdb.yaml'))],
    [
      "the pod's security context (runAsNonRoot)",
      'RG-NONROOT',
      (dir) => replaceIn(dir, deployment, /\{\{- with \$s\.podSecurityContext \}\}[\s\S]*?\{\{- end \}\}/, ''),
    ],
    ['the NetworkPolicies', 'RG-NETPOL', (dir) => fs.rmSync(path.join(dir, 'templates', 'networkpolicy.yaml'))],
  ])('a chart without %s fails %s, and only that rule', (what, rule, edit) => {
    const chartDir = chartCopy(what.replace(/\W+/g, '-'), edit);

    expect(rulesOf(policyViolations(render({ chartDir })))).toEqual([rule]);
  });
});
