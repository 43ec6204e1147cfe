import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ROOT } from '../../static/support/stack';

export const CHART_DIR = path.join(ROOT, 'deploy', 'helm', 'restgate');
export const POLICY_DIR = path.join(ROOT, 'deploy', 'helm', 'policy');
export const PRODUCTION_VALUES = path.join(CHART_DIR, 'examples', 'production-values.yaml');
export const VARIANTS_DIR = path.join(__dirname, '..', 'variants');
export const RELEASE = 'restgate';

/** What test/chart/global-setup.cjs installed (scripts/chart/tools.cjs). */
export interface ChartTools {
  helm: string;
  kubeconform: string;
  conftest: string;
  schemas: string;
  kubernetesVersions: string[];
}

export function tools(): ChartTools {
  const json = process.env.RESTGATE_CHART_TOOLS;
  if (!json) throw new Error('RESTGATE_CHART_TOOLS is not set: run these tests with npm run test:chart');
  return JSON.parse(json) as ChartTools;
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Run {
  const out = spawnSync(cmd, args, {
    encoding: 'utf8',
    cwd: options.cwd ?? ROOT,
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
    // helm keeps no state of ours: no repositories, no cache, no config outside a throw-away folder.
    env: {
      ...process.env,
      HELM_CACHE_HOME: scratch('helm-cache'),
      HELM_CONFIG_HOME: scratch('helm-config'),
      HELM_DATA_HOME: scratch('helm-data'),
    },
  });
  if (out.error) throw out.error;
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

let scratchRoot: string | undefined;
/** A folder in the run's scratch folder (the global teardown removes it), made per test file. */
export function scratch(name: string): string {
  if (!scratchRoot) {
    const runDir = process.env.RESTGATE_CHART_SCRATCH;
    if (!runDir) throw new Error('RESTGATE_CHART_SCRATCH is not set: run these tests with npm run test:chart');
    scratchRoot = fs.mkdtempSync(path.join(runDir, 'file-'));
  }
  const dir = path.join(scratchRoot, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  [key: string]: unknown;
}

export interface Rendered {
  text: string;
  objects: K8sObject[];
}

export interface RenderOptions {
  values?: string[];
  set?: string[];
  chartDir?: string;
}

/** `helm template` with the given values files; throws with helm's message when it fails. */
export function render(options: RenderOptions = {}): Rendered {
  const result = tryRender(options);
  if (result.status !== 0) throw new Error(`helm template failed (exit ${result.status}):\n${result.stderr}`);
  return result.rendered as Rendered;
}

export function tryRender({ values = [], set = [], chartDir = CHART_DIR }: RenderOptions = {}): Run & { rendered?: Rendered } {
  const args = [
    'template',
    RELEASE,
    chartDir,
    '--namespace',
    'restgate',
    // The oldest Kubernetes the chart allows (Chart.yaml's kubeVersion); helm's own default is older.
    '--kube-version',
    tools().kubernetesVersions[0]!,
    ...values.flatMap((f) => ['--values', f]),
    ...set.flatMap((s) => ['--set', s]),
  ];
  const out = run(tools().helm, args);
  if (out.status !== 0) return out;
  const objects = YAML.parseAllDocuments(out.stdout)
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => !!o);
  return { ...out, rendered: { text: out.stdout, objects } };
}

export const ofKind = (rendered: Rendered, kind: string) => rendered.objects.filter((o) => o.kind === kind);
export const componentOf = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'];

/** A copy of the chart (links followed) in a scratch folder, changed by `edit`. */
export function chartCopy(name: string, edit: (dir: string) => void): string {
  const dir = path.join(scratch('charts'), name);
  fs.cpSync(CHART_DIR, dir, { recursive: true, dereference: true });
  edit(dir);
  return dir;
}

/** The chart with another services.json (as the generator would leave it). */
export const chartWithRegistry = (registry: unknown, name: string) =>
  chartCopy(name, (dir) => fs.writeFileSync(path.join(dir, 'files', 'services.json'), `${JSON.stringify(registry, null, 2)}\n`));

/** Replaces `pattern` in one of a chart copy's files; throws when it is not there (the template changed). */
export function replaceIn(dir: string, file: string, pattern: RegExp, replacement: string): void {
  const full = path.join(dir, file);
  const text = fs.readFileSync(full, 'utf8');
  if (!pattern.test(text)) throw new Error(`${file} no longer has ${pattern}`);
  fs.writeFileSync(full, text.replace(pattern, replacement));
}

export interface Violation {
  rule: string;
  message: string;
}

/**
 * conftest on the release as one List, with services.json as data.restgate.registry. Returns the
 * policy's deny messages (an empty list when the release passes); throws when conftest itself fails.
 */
export function policyViolations(
  rendered: Rendered | K8sObject[],
  registry: unknown = readJson(path.join(ROOT, 'services.json')),
): Violation[] {
  const objects = Array.isArray(rendered) ? rendered : rendered.objects;
  const dir = fs.mkdtempSync(path.join(scratch('policy'), 'run-'));
  const input = path.join(dir, 'release.json');
  const data = path.join(dir, 'data', 'restgate.json');
  fs.mkdirSync(path.dirname(data));
  fs.writeFileSync(input, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  fs.writeFileSync(data, JSON.stringify({ restgate: { registry } }));
  const out = run(tools().conftest, [
    'test',
    '--no-color',
    '--output',
    'json',
    '--policy',
    POLICY_DIR,
    '--data',
    path.dirname(data),
    input,
  ]);
  let results: Array<{ failures?: Array<{ msg: string }> }>;
  try {
    results = JSON.parse(out.stdout);
  } catch {
    throw new Error(`conftest failed (exit ${out.status}): ${out.stderr || out.stdout}`);
  }
  const failures = results.flatMap((r) => r.failures ?? []).map((f) => f.msg);
  if ((out.status === 0) !== (failures.length === 0))
    throw new Error(`conftest exit ${out.status} with ${failures.length} failures: ${out.stderr}`);
  return failures.map((message) => ({ rule: message.split(':')[0] as string, message }));
}

export const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));

/** kubeconform, offline and strict, against one Kubernetes version's schemas from the kubernetes-validate wheel. */
export function validateSchemas(rendered: Rendered, kubernetesVersion: string): Run {
  const dir = fs.mkdtempSync(path.join(scratch('kubeconform'), 'run-'));
  const file = path.join(dir, 'release.yaml');
  fs.writeFileSync(file, rendered.text);
  const location = path.join(tools().schemas, `v${kubernetesVersion}`, '{{ .ResourceKind }}{{ .KindSuffix }}.json');
  return run(tools().kubeconform, [
    '-strict',
    '-summary',
    '-output',
    'text',
    '-kubernetes-version',
    kubernetesVersion,
    '-schema-location',
    location,
    file,
  ]);
}
