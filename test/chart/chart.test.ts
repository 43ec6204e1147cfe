/**
 * deploy/helm/restgate as a platform team checks a chart before it reaches a cluster: helm lint
 * --strict, helm template with the default values and a production-like file, and what it renders
 * validated offline against Kubernetes' own JSON schemas (strict: an unknown field fails).
 */
import { CHART_DIR, PRODUCTION_VALUES, ofKind, render, run, tools, tryRender, validateSchemas, type Rendered } from './support/chart';

const VALUES = { default: [] as string[], production: [PRODUCTION_VALUES] };
const rendered: Record<string, Rendered> = {};
beforeAll(() => {
  for (const [name, values] of Object.entries(VALUES)) rendered[name] = render({ values });
});

describe.each(Object.entries(VALUES))('with the %s values', (name, values) => {
  test('helm lint --strict passes', () => {
    const out = run(tools().helm, [
      'lint',
      '--strict',
      '--kube-version',
      tools().kubernetesVersions[0]!,
      CHART_DIR,
      ...values.flatMap((f) => ['--values', f]),
    ]);

    expect(`${out.stdout}${out.stderr}`).toContain('0 chart(s) failed');
    expect(out.status).toBe(0);
  });

  test.each(tools().kubernetesVersions)('what helm template renders is valid Kubernetes %s, strictly', (version) => {
    const out = validateSchemas(rendered[name]!, version);

    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(/Invalid: 0, Errors: 0, Skipped: 0/);
    expect(out.status).toBe(0);
  });

  test('it renders a Deployment, Service, PodDisruptionBudget and NetworkPolicy per component, and no Secret', () => {
    const r = rendered[name]!;
    const deployments = ofKind(r, 'Deployment').length;

    expect(deployments).toBeGreaterThanOrEqual(4);
    expect(ofKind(r, 'Service')).toHaveLength(deployments);
    expect(ofKind(r, 'PodDisruptionBudget')).toHaveLength(deployments);
    expect(ofKind(r, 'NetworkPolicy')).toHaveLength(deployments + 1); // and the default deny
    expect(ofKind(r, 'Secret')).toEqual([]);
  });
});

describe('the validation itself', () => {
  test('when a rendered object has a field Kubernetes does not know, then kubeconform fails', () => {
    const r = rendered.default!;
    const broken = {
      ...r,
      text: r.text.replace(/\n {6}automountServiceAccountToken: false/, '\n      automountServiceAccountTokens: false'),
    };
    expect(broken.text).not.toBe(r.text);

    const out = validateSchemas(broken, tools().kubernetesVersions[0]!);

    expect(out.stdout).toMatch(/additional properties 'automountServiceAccountTokens' not allowed/);
    expect(out.status).not.toBe(0);
  });
});

describe('what the templates refuse', () => {
  test.each([
    ['image.tag=latest', /at '\/image\/tag'/], // values.schema.json
    ['config.LOG_LEVE=debug', /additional properties 'LOG_LEVE' not allowed/], // a typo'd key would do nothing: refused
    ['components.mailer.image.tag=latest', /mailer: the image tag must name a version/],
    ['ingress.enabled=true', /ingress.enabled needs at least one entry in ingress.hosts/],
  ])('--set %s fails helm template', (set, message) => {
    const out = tryRender({ set: [set] });

    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(message);
  });
});

describe('the switches', () => {
  test('autoscaling off: no HPA, and the Deployment says how many replicas', () => {
    const r = render({ set: ['defaults.autoscaling.enabled=false', 'defaults.replicas=3'] });

    expect(ofKind(r, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(ofKind(r, 'Deployment').map((d) => d.spec.replicas)).toEqual(ofKind(r, 'Deployment').map(() => 3));
  });

  test('autoscaling on (the default): one CPU HPA per Deployment, which then leaves replicas to it', () => {
    const r = rendered.default!;
    const hpas = ofKind(r, 'HorizontalPodAutoscaler');

    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(
      ofKind(r, 'Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    );
    expect(hpas.every((h) => h.spec.metrics[0].resource.name === 'cpu')).toBe(true);
    expect(ofKind(r, 'Deployment').filter((d) => d.spec.replicas !== undefined)).toEqual([]);
  });

  test('each component takes its image from image.* unless components.<name>.image names another', () => {
    const r = render({
      set: [
        'image.registry=registry.example.com/team',
        'image.tag=1.2.3',
        'components.mailer.image.repository=mirror.example.com/mailer',
        'components.mailer.image.tag=1.2.4',
      ],
    });
    const images = Object.fromEntries(
      ofKind(r, 'Deployment').map((d) => [d.metadata.labels?.['app.kubernetes.io/component'], d.spec.template.spec.containers[0].image]),
    );

    expect(images).toMatchObject({
      gateway: 'registry.example.com/team/restgate-gateway:1.2.3',
      identity: 'registry.example.com/team/restgate-identity:1.2.3',
      mailer: 'mirror.example.com/mailer:1.2.4',
    });
  });

  test('existingSecret names the Secret every secret key comes from', () => {
    const r = render({ set: ['existingSecret=my-secrets'] });
    const refs = ofKind(r, 'Deployment').flatMap((d) =>
      d.spec.template.spec.containers.flatMap((c: { env: Array<{ valueFrom?: { secretKeyRef?: { name: string } } }> }) =>
        c.env.flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.name] : [])),
      ),
    );

    expect(refs.length).toBeGreaterThan(0);
    expect(new Set(refs)).toEqual(new Set(['my-secrets']));
  });

  test('the production values expose the gateway through an Ingress, and nothing else', () => {
    const ingresses = ofKind(rendered.production!, 'Ingress');

    expect(ingresses).toHaveLength(1);
    expect(ingresses[0]!.spec.rules[0].http.paths.map((p: { backend: { service: { name: string } } }) => p.backend.service.name)).toEqual([
      'restgate-gateway',
    ]);
  });
});
