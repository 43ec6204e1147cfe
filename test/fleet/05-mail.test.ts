/**
 * Scenario 5: mail is exactly-once with identity ×3 and mailer ×2, across a rolling update of both
 * and the loss of the RabbitMQ node leading the mail queue: every accepted reset request (202 for a
 * registered address, under its cap) yields exactly one mail in Mailpit. The mailer's own
 * de-duplication would hide a mail request published twice from Mailpit, so the relays' claims are
 * checked too: each attempt at an outbox entry is one relay's alone.
 */
import {
  accounts,
  containersOf,
  deleteAllMail,
  docker,
  eventually,
  fleetSettled,
  logRecordsOf,
  mailRecipients,
  replicas,
  rollingUpdate,
  signUp,
  underLoad,
  type Account,
} from './support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SUBJECT = 'Reset your password';
let pool: Account[];
let fresh: string[];

beforeAll(async () => {
  await fleetSettled();
  pool = await accounts(12);
  fresh = [];
  for (let i = 0; i < 160; i += 4)
    fresh.push(...(await Promise.all(Array.from({ length: 4 }, async () => (await signUp()).user.email.toLowerCase()))));
  await deleteAllMail();
});

/** The broker node leading the mail queue, by its service name (rabbitmq-N). */
async function mailQueueLeader(): Promise<string> {
  const [container] = await containersOf('rabbitmq-1');
  const out = await docker(['exec', container!, 'rabbitmqctl', 'list_queues', 'name', 'leader', '--formatter', 'json']);
  // The CLI may print a warning before its JSON.
  const queues = JSON.parse(out.slice(out.search(/^\[/m))) as Array<{ name: string; leader: string }>;
  const leader = queues.find((q) => q.name === 'mail.send')?.leader;
  if (!leader) throw new Error(`no leader for mail.send in ${out}`);
  return leader.replace(/^rabbit@/, '');
}

test('a rolling update of identity and the mailer and the loss of the mail queue leader: one mail per accepted reset', async () => {
  const { report, result: leader } = await underLoad(
    'mail across updates and a broker node loss',
    { accounts: pool, resetAddresses: fresh },
    async () => {
      const leader = await mailQueueLeader();
      const update = rollingUpdate(['identity', 'mailer']);
      await sleep(10_000);
      const [victim] = await containersOf(leader);
      await docker(['kill', '--signal', 'KILL', victim!]);
      await update;
      await eventually(`${leader} back`, async () => ((await replicas(leader)).running === 1 ? true : undefined));
      await fleetSettled();
      return leader;
    },
  );

  const accepted = report.resets;
  const counts = await eventually(
    'a mail for every accepted reset',
    async () => {
      const got = await mailRecipients(SUBJECT);
      return accepted.every((a) => got.includes(a)) ? got : undefined;
    },
    240_000,
    3_000,
  );
  // Late duplicates (a redelivery) would come within the mailer's retry: look again after it.
  await sleep(10_000);
  const final = await mailRecipients(SUBJECT);
  const perAddress = new Map<string, number>();
  for (const a of final) perAddress.set(a, (perAddress.get(a) ?? 0) + 1);
  const missing = accepted.filter((a) => !perAddress.has(a));
  const twice = accepted.filter((a) => (perAddress.get(a) ?? 0) > 1);
  process.stdout.write(
    `[fleet]   leader ${leader} killed; accepted resets ${accepted.length}, mails ${final.length} (first complete count ${counts.length}): missing ${missing.length}, more than once ${twice.length}\n`,
  );

  // Each relay logs every attempt it claimed (published, or failed and to be retried) with the
  // message id and the attempt's number: across every identity replica the stack has had, stopped
  // ones included, no attempt may appear twice.
  const attempts = new Map<string, number>();
  for (const record of await logRecordsOf('identity')) {
    if (record.component !== 'outbox-relay' || typeof record.messageId !== 'string' || typeof record.attempts !== 'number') continue;
    const key = `${record.messageId}#${record.attempts}`;
    attempts.set(key, (attempts.get(key) ?? 0) + 1);
  }
  const claimedTwice = [...attempts].filter(([, n]) => n > 1).map(([key]) => key);
  process.stdout.write(`[fleet]   relay attempts logged ${attempts.size}; claimed by two relays ${claimedTwice.length}\n`);

  expect(attempts.size).toBeGreaterThanOrEqual(accepted.length);
  expect(claimedTwice).toEqual([]);
  expect(accepted.length).toBeGreaterThan(50);
  expect(missing).toEqual([]);
  expect(twice).toEqual([]);
  expect(report.failures.filter((f) => f.kind === 'reset')).toEqual([]);
});
