/**
 * What the stack exposes: the gateway (9000, every address) and Mailpit's page (8025, loopback
 * only), nothing else — neither a service port nor a database's. Other processes on this machine
 * (other test runs, a local broker and its epmd) may listen on the same port numbers, so a port they
 * hold is left out of the host-side probes, and the engine is asked what it published. A machine
 * elsewhere is played by a container on a network of its own: it reaches no container of the stack
 * directly, while the gateway's own network namespace, probed the same way, reaches them all.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { api, compose, containers, docker, mailpitUrl } from './support';

/** Every port a container of the stack listens on (what its image EXPOSEs), by container. */
async function innerEndpoints(): Promise<Array<{ service: string; ip: string; port: number }>> {
  const ids = (await compose(['ps', '--quiet'])).split('\n').filter(Boolean);
  const format =
    '{{index .Config.Labels "com.docker.compose.service"}}|{{json .Config.ExposedPorts}}|{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}';
  return (await docker(['inspect', '--format', format, ...ids]))
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      const [service, exposed, ips] = line.split('|') as [string, string, string];
      const ports = Object.keys(JSON.parse(exposed) ?? {})
        .filter((p) => p.endsWith('/tcp'))
        .map((p) => Number.parseInt(p, 10));
      return ips
        .trim()
        .split(' ')
        .filter(Boolean)
        .flatMap((ip) => ports.map((port) => ({ service, ip, port })));
    });
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(3000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Ports that processes other than the engine's port proxy listen on, on this machine. */
function othersListening(): Promise<Set<number>> {
  return new Promise((resolve, reject) => {
    execFile('ss', ['-Htlnp'], (err, stdout) => {
      if (err) return reject(err);
      // State, Recv-Q, Send-Q, local address:port, peer, process.
      const ports = stdout
        .split('\n')
        .filter((line) => line && !line.includes('"docker-proxy"'))
        .map((line) => line.trim().split(/\s+/)[3] ?? '')
        .map((local) => Number(local.slice(local.lastIndexOf(':') + 1)));
      resolve(new Set(ports.filter((p) => p > 0)));
    });
  });
}

/** The host's own IPv4 addresses other than loopback and the engine's bridges. */
function hostAddresses(): string[] {
  return Object.entries(os.networkInterfaces())
    .filter(([name]) => name !== 'docker0' && !name.startsWith('br-') && !name.startsWith('veth'))
    .flatMap(([, addrs]) => addrs ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

/** Which of `targets` (host:port) a fresh container on `network` can open a TCP connection to. */
async function reachableFrom(network: string, targets: string[]): Promise<string[]> {
  const gateway = (await containers()).find((c) => c.service === 'gateway')!;
  const image = (await docker(['inspect', '--format', '{{.Config.Image}}', gateway.id])).trim();
  const script = `
    const net = require('node:net');
    const probe = (t) => new Promise((resolve) => {
      const [host, port] = t.split(':');
      const s = net.connect({ host, port: Number(port) });
      s.setTimeout(2000, () => { s.destroy(); resolve(null); });
      s.once('connect', () => { s.destroy(); resolve(t); });
      s.once('error', () => resolve(null));
    });
    Promise.all(JSON.parse(process.argv[1]).map(probe)).then((r) => process.stdout.write(JSON.stringify(r.filter(Boolean))));`;
  const out = await docker(['run', '--rm', '--network', network, '--entrypoint', 'node', image, '-e', script, JSON.stringify(targets)]);
  return JSON.parse(out) as string[];
}

test('the engine publishes exactly 0.0.0.0:9000 → gateway:9000 and 127.0.0.1:8025 → mailpit:8025', async () => {
  const ids = (await compose(['ps', '--quiet'])).split('\n').filter(Boolean);
  const format = '{{index .Config.Labels "com.docker.compose.service"}} {{json .NetworkSettings.Ports}}';
  const published = (await docker(['inspect', '--format', format, ...ids]))
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      const [service, json] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
      const bindings = (JSON.parse(json) ?? {}) as Record<string, Array<{ HostIp: string; HostPort: string }> | null>;
      return Object.entries(bindings).flatMap(([port, hosts]) =>
        (hosts ?? []).map((h) => `${h.HostIp}:${h.HostPort} → ${service}:${port}`),
      );
    })
    .filter((binding, index, all) => all.indexOf(binding) === index && !binding.startsWith('::')) // the IPv6 twin of 0.0.0.0
    .sort();

  expect(published).toEqual(['0.0.0.0:9000 → gateway:9000/tcp', '127.0.0.1:8025 → mailpit:8025/tcp']);
});

test('on loopback, 9000 is the gateway and 8025 is Mailpit', async () => {
  const health = await api.get('/health');
  const mailpit = await fetch(`${mailpitUrl}/api/v1/messages?limit=1`, { signal: AbortSignal.timeout(5000) });

  expect(health.status).toBe(200);
  expect(health.body).toEqual({ status: 'ok' });
  expect(mailpit.status).toBe(200);
  expect(await mailpit.json()).toHaveProperty('messages');
});

test("on the host's addresses, no port of a service, a database, the broker or Mailpit's SMTP answers; off loopback, not Mailpit's page either", async () => {
  const inner = [...new Set((await innerEndpoints()).map((e) => e.port))].filter((p) => p !== 9000 && p !== 8025);
  const others = await othersListening();
  const addresses = hostAddresses();
  expect(addresses.length).toBeGreaterThan(0);
  expect(inner).toEqual(expect.arrayContaining([9001, 9002, 9003, 27017, 5672, 1025]));

  for (const host of ['127.0.0.1', ...addresses]) {
    const ports = host === '127.0.0.1' ? inner : [8025, ...inner];
    const open: number[] = [];
    for (const port of ports) if (!others.has(port) && (await answers(host, port))) open.push(port);
    expect({ host, open }).toEqual({ host, open: [] });
  }
  for (const host of addresses) {
    const gateway = await fetch(`http://${host}:9000/health`, { signal: AbortSignal.timeout(5000) });
    expect({ host, status: gateway.status }).toEqual({ host, status: 200 });
  }
});

test('from a network of its own (another machine), no container of the stack is reachable; from the gateway’s, every inner port is', async () => {
  const endpoints = (await innerEndpoints()).filter((e) => !(e.service === 'gateway' && e.port === 9000));
  const targets = endpoints.map((e) => `${e.ip}:${e.port}`);
  const network = `restgate-ct-outside-${process.pid}`;
  const gateway = (await containers()).find((c) => c.service === 'gateway')!;

  await docker(['network', 'create', network]);
  let fromOutside: string[];
  try {
    fromOutside = await reachableFrom(network, targets);
  } finally {
    await docker(['network', 'rm', network]);
  }
  const fromGateway = await reachableFrom(`container:${gateway.id}`, targets);

  expect(fromOutside).toEqual([]);
  // The control: the same probe does reach the services, databases and broker from inside.
  expect(fromGateway.length).toBeGreaterThan(0);
  for (const needed of ['identity', 'articles', 'mongo', 'rabbitmq']) {
    expect({ needed, reached: endpoints.some((e, i) => e.service === needed && fromGateway.includes(targets[i]!)) }).toEqual({
      needed,
      reached: true,
    });
  }
});
