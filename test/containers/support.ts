/**
 * What the container tests share: where the stack answers (set by scripts/containers/test-containers.cjs),
 * `docker compose` with the same project, files and env file, Mailpit's API, and bounded waits.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { aUser, type UserInput } from '../support/actors';
import { client, type Client, type Reply } from '../support/http';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests with npm run test:containers`);
  return value;
}

export const gatewayUrl = required('RESTGATE_CT_GATEWAY_URL');
export const mailpitUrl = required('RESTGATE_CT_MAILPIT_URL');
export const masterKey = required('RESTGATE_CT_MASTER_KEY');
const composeArgs = JSON.parse(required('RESTGATE_CT_COMPOSE')) as string[];

export const api: Client = client(gatewayUrl);

/** Runs `docker <args>`; resolves with stdout, rejects with stderr on a non-zero exit. */
export function docker(args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('docker', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`docker ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** `docker compose …` on the stack under test. */
export function compose(args: string[], timeoutMs?: number): Promise<string> {
  return docker([...composeArgs, ...args], timeoutMs);
}

export interface ContainerState {
  service: string;
  id: string;
  state: string;
  health: string;
  exitCode: number;
  restartCount: number;
  pid: number;
}

/** Every container of the stack, running or not. */
export async function containers(): Promise<ContainerState[]> {
  const ids = (await compose(['ps', '--all', '--quiet'])).split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const format =
    '{{index .Config.Labels "com.docker.compose.service"}}|{{.Id}}|{{.State.Status}}|{{if .State.Health}}{{.State.Health.Status}}{{end}}|{{.State.ExitCode}}|{{.RestartCount}}|{{.State.Pid}}';
  const lines = (await docker(['inspect', '--format', format, ...ids])).split('\n').filter(Boolean);
  return lines.map((line) => {
    const [service, id, state, health, exitCode, restartCount, pid] = line.split('|') as string[];
    return {
      service: service!,
      id: id!,
      state: state!,
      health: health!,
      exitCode: Number(exitCode),
      restartCount: Number(restartCount),
      pid: Number(pid),
    };
  });
}

export async function container(service: string): Promise<ContainerState> {
  const found = (await containers()).find((c) => c.service === service);
  if (!found) throw new Error(`no container for service ${service}`);
  return found;
}

/** Polls `check` every `everyMs` until it returns a value other than undefined; fails after `limitMs` with the last state. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, limitMs = 180_000, everyMs = 1000): Promise<T> {
  const deadline = Date.now() + limitMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`${what}: not within ${limitMs / 1000} s${last ? ` (last error: ${String(last)})` : ''}`);
}

/** Waits until every container runs and each one with a healthcheck is healthy. */
export function allHealthy(limitMs = 240_000): Promise<ContainerState[]> {
  return eventually(
    'every container running and healthy',
    async () => {
      const all = await containers();
      return all.length > 0 && all.every((c) => c.state === 'running' && (c.health === '' || c.health === 'healthy')) ? all : undefined;
    },
    limitMs,
  );
}

// --- the API, as its README shows it --------------------------------------------------------

export async function signedUp(user: UserInput = aUser()): Promise<{ user: UserInput; id: string }> {
  const reply = await api.post('/users', { form: { ...user, access_token: masterKey } });
  if (reply.status !== 201) throw new Error(`sign-up: ${reply.status} ${reply.text}`);
  return { user, id: reply.body.id };
}

export function signIn(user: UserInput): Promise<Reply> {
  return api.post('/auth', { basic: { user: user.email, password: user.password }, form: { access_token: masterKey } });
}

export function requestReset(email: string): Promise<Reply> {
  return api.post('/password-resets', { form: { email, access_token: masterKey } });
}

// --- Mailpit's API ------------------------------------------------------------------------

export interface MailSummary {
  ID: string;
  MessageID: string;
  To: Array<{ Address: string }>;
  Subject: string;
}

async function mailpit(path: string, init?: RequestInit): Promise<any> {
  const res = await fetch(`${mailpitUrl}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`Mailpit ${init?.method ?? 'GET'} ${path}: ${res.status}`);
  return res.headers.get('content-type')?.includes('json') ? res.json() : res.text();
}

/** Every message Mailpit holds (newest first). */
export async function mails(): Promise<MailSummary[]> {
  const page = await mailpit('/api/v1/messages?limit=1000');
  return page.messages as MailSummary[];
}

export async function mailsTo(address: string): Promise<MailSummary[]> {
  return (await mails()).filter((m) => m.To.some((to) => to.Address.toLowerCase() === address.toLowerCase()));
}

/** The mails to `address` with this subject (sign-up sends a verification mail, a reset request a reset mail). */
export async function mailsWithSubject(address: string, subject: string): Promise<MailSummary[]> {
  return (await mailsTo(address)).filter((m) => m.Subject === subject);
}

export async function mailText(id: string): Promise<string> {
  const message = await mailpit(`/api/v1/message/${encodeURIComponent(id)}`);
  return `${message.Text ?? ''}\n${message.HTML ?? ''}`;
}

export async function deleteAllMail(): Promise<void> {
  await mailpit('/api/v1/messages', { method: 'DELETE' });
}

/** The reset token in a reset mail: the last path segment of its link to /password-resets/. */
export function verificationTokenIn(text: string): string {
  const match = /\/email-verifications\/([A-Za-z0-9_-]{20,})/.exec(text);
  if (!match) throw new Error(`no verification link in the mail:\n${text.slice(0, 1000)}`);
  return match[1] as string;
}

export function resetTokenIn(text: string): string {
  const match = /\/password-resets\/([A-Za-z0-9_-]{20,})/.exec(text);
  if (!match) throw new Error(`no reset link in the mail:\n${text.slice(0, 1000)}`);
  return match[1] as string;
}

/**
 * SIGKILLs the service's node process from this host: the container's init (PID 1 inside, which
 * `docker kill` would signal, and which Docker would count as a stop by hand) sees its child die
 * and exits with it, and the restart policy brings the container back, as after a crash.
 */
export function killNode(init: number): void {
  const [node] = fs.readFileSync(`/proc/${init}/task/${init}/children`, 'utf8').trim().split(/\s+/).map(Number);
  if (!node) throw new Error(`no child process under the container's init (pid ${init})`);
  process.kill(node, 'SIGKILL');
}

export async function restarted(service: string, before: { id: string; restartCount: number; pid: number }): Promise<void> {
  await eventually(`${service} running again`, async () => {
    const now = await container(service);
    return now.state === 'running' && now.health === 'healthy' && now.pid !== before.pid ? true : undefined;
  });
}
