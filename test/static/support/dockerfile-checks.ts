/**
 * Rules for the Dockerfile and .dockerignore, each returning a list of problems (empty when the rule
 * holds), so that the tests can run them on the real files and on broken copies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isIgnored, parseDockerignore } from './dockerignore';
import { copySources, effective, substituteArgs, type Dockerfile, type Stage } from './dockerfile';

type IgnoreRules = ReturnType<typeof parseDockerignore>;

const finalStage = (df: Dockerfile) => df.stages[df.stages.length - 1] as Stage;
const isStageName = (df: Dockerfile, stage: Stage) => df.stages.some((s) => s.index < stage.index && s.name === stage.from);

function globalArgDefaults(df: Dockerfile): Record<string, string> {
  return Object.fromEntries(df.globalArgs.map((a) => a.args.split('=', 2)).filter((kv): kv is [string, string] => kv.length === 2));
}

/** Several stages, and the last one takes its files from the earlier ones (nothing to build in it). */
export function multiStageProblems(df: Dockerfile): string[] {
  if (df.stages.length < 2) return ['the Dockerfile has a single stage'];
  const final = finalStage(df);
  return final.instructions.some((i) => i.keyword === 'COPY' && i.flags.from) ? [] : ['the final stage copies nothing from a build stage'];
}

/** Every base image is pinned to at least a major version (never `latest`, never no tag). */
export function baseImageProblems(df: Dockerfile): string[] {
  const args = globalArgDefaults(df);
  return df.stages
    .filter((stage) => !isStageName(df, stage))
    .flatMap((stage) => {
      const image = substituteArgs(stage.from, args);
      if (/@sha256:[0-9a-f]{64}$/.test(image)) return [];
      const tag = /:([^/:]+)$/.exec(image)?.[1];
      return tag && /^\d+/.test(tag) ? [] : [`stage ${stage.name ?? stage.index}: base image ${image} is not pinned to a version`];
    });
}

/** The base image of the runtime stage: node:<major>…, a Node LTS line (even major) no older than `engines` allows. */
export function nodeRuntimeProblems(df: Dockerfile, minimumMajor: number): string[] {
  let stage = finalStage(df);
  while (isStageName(df, stage)) stage = df.stages.find((s) => s.index < stage.index && s.name === stage.from) as Stage;
  const image = substituteArgs(stage.from, globalArgDefaults(df));
  const major = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)/.exec(image)?.[1];
  if (!major) return [`the runtime stage is not built on an official node image (${image})`];
  const problems: string[] = [];
  if (Number(major) % 2 !== 0) problems.push(`node ${major} is not an LTS line (odd majors never become LTS)`);
  if (Number(major) < minimumMajor) problems.push(`node ${major} is older than package.json engines allow (${minimumMajor})`);
  if (!/-slim\b|alpine/.test(image)) problems.push(`${image} is not a slim image`);
  return problems;
}

/** The image runs as a user other than root, says how to check its health, and starts node itself. */
export function runtimeProblems(df: Dockerfile): string[] {
  const final = finalStage(df);
  const problems: string[] = [];
  const user = effective(df, final, 'USER')?.args.trim();
  if (!user) problems.push('the final stage has no USER: it would run as root');
  else if (/^(root|0)(:|$)/.test(user)) problems.push(`the final stage runs as ${user}`);

  const health = effective(df, final, 'HEALTHCHECK');
  if (!health || /^NONE\b/i.test(health.args)) problems.push('the final stage has no HEALTHCHECK');

  const cmd = effective(df, final, 'CMD');
  if (!cmd?.exec) problems.push('CMD is not in exec form (a shell as PID 1 does not pass SIGTERM on)');
  else if (cmd.exec[0] !== 'node') problems.push(`CMD starts ${cmd.exec[0]}, not node (npm or a shell in between swallows SIGTERM)`);
  const entrypoint = final.instructions.filter((i) => i.keyword === 'ENTRYPOINT').pop();
  if (entrypoint && !entrypoint.exec) problems.push('ENTRYPOINT is not in exec form');
  return problems;
}

const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|PASS|TOKEN|CREDENTIALS?|PRIVATE_KEY|(^|_)KEY)$/i;

/** No ARG or ENV that looks like a secret: both stay readable in the image. */
export function bakedSecretProblems(df: Dockerfile): string[] {
  return [...df.globalArgs, ...df.stages.flatMap((s) => s.instructions)]
    .filter((i) => i.keyword === 'ARG' || i.keyword === 'ENV')
    .flatMap((i) => [...i.args.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?==|\s|$)/g)].map((m) => ({ i, name: m[1] as string })))
    .filter(({ name }) => SECRET_NAME.test(name))
    .map(({ i, name }) => `line ${i.line}: ${i.keyword} ${name} would bake a secret into the image`);
}

/** Dependencies install from the lockfile (`npm ci`), never with `npm install`. */
export function installProblems(df: Dockerfile): string[] {
  const runs = df.stages.flatMap((s) => s.instructions).filter((i) => i.keyword === 'RUN');
  const problems = runs.filter((i) => /\bnpm\s+(install|i|add)\b/.test(i.args)).map((i) => `line ${i.line}: npm install instead of npm ci`);
  if (!runs.some((i) => /\bnpm\s+ci\b/.test(i.args))) problems.push('no RUN installs with npm ci');
  if (!runs.some((i) => /\bnpm\s+ci\b.*--omit[= ]dev/.test(i.args)))
    problems.push('no RUN installs the production dependencies alone (npm ci --omit=dev)');
  return problems;
}

/**
 * COPY/ADD sources from the build context exist in it and are not kept out by .dockerignore, for
 * every set of build arguments the compose file passes.
 */
export function contextProblems(
  df: Dockerfile,
  contextDir: string,
  rules: IgnoreRules,
  argSets: Record<string, string | undefined>[],
): string[] {
  const problems = new Set<string>();
  for (const args of argSets) {
    for (const stage of df.stages) {
      for (const i of stage.instructions.filter((x) => (x.keyword === 'COPY' || x.keyword === 'ADD') && !x.flags.from)) {
        for (const source of copySources(i).map((s) => substituteArgs(s, args))) {
          const rel = path.posix.normalize(source.replace(/^\/+/, ''));
          if (rel.startsWith('..')) problems.add(`line ${i.line}: ${source} is outside the build context`);
          else if (!fs.existsSync(path.join(contextDir, rel)))
            problems.add(`line ${i.line}: ${source} does not exist in the build context`);
          else if (rel !== '.' && isIgnored(rules, rel)) problems.add(`line ${i.line}: ${source} is excluded by .dockerignore`);
        }
      }
    }
  }
  return [...problems];
}

/** What must stay out of the context, and what the build needs, against .dockerignore. */
export function ignoreProblems(rules: IgnoreRules, mustIgnore: string[], mustKeep: string[]): string[] {
  return [
    ...mustIgnore.filter((p) => !isIgnored(rules, p)).map((p) => `.dockerignore lets ${p} into the build context`),
    ...mustKeep.filter((p) => isIgnored(rules, p)).map((p) => `.dockerignore keeps out ${p}, which the build needs`),
  ];
}
