// The three-replica topology of deploy/ from processes, for lb.test.mjs:
// the fake upstreams, three `switchyard serve` replicas on loopback ports
// sharing one PostgreSQL database and one Redis database, and nginx
// running deploy/nginx.conf with its upstream servers and port rewritten
// to loopback. .ci/lb.sh builds the binaries, makes the database and
// passes them in SWITCHYARD_LB_* variables. Each replica can be stopped
// (SIGTERM, waiting for its drain and exit) and started again on its
// port; stop ends every process, the last started first.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { stopAll } from './harness.mjs';

const root = resolve(import.meta.dirname, '..', '..');

// lbEnv returns the SWITCHYARD_LB_* settings, or null when .ci/lb.sh did
// not set them.
export function lbEnv() {
  const e = process.env;
  if (!e.SWITCHYARD_LB_DATABASE_URL) return null;
  return {
    bin: e.SWITCHYARD_LB_BIN,
    fake: e.SWITCHYARD_LB_FAKE,
    databaseURL: e.SWITCHYARD_LB_DATABASE_URL,
    redisURL: e.SWITCHYARD_LB_REDIS_URL,
    nginx: e.SWITCHYARD_LB_NGINX || 'nginx',
  };
}

// freePort returns a loopback port nothing listens on now.
function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

// lines keeps the last lines a process wrote, to tell why it failed, and
// resolves waitFor(match) at the first line that match returns a value for.
function watch(stream, name, keep = 40) {
  const seen = [];
  const waiters = [];
  createInterface({ input: stream }).on('line', (line) => {
    seen.push(line);
    if (seen.length > keep) seen.shift();
    for (const w of [...waiters]) {
      const v = w.match(line);
      if (v !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok(v);
      }
    }
  });
  return {
    last: () => `${name}'s last lines:\n${seen.join('\n')}`,
    waitFor: (match) => new Promise((ok) => waiters.push({ match, ok })),
  };
}

// waitReady polls url until it answers 200, for up to ms.
export async function waitReady(url, ms = 30_000) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status === 200) return;
      last = `${r.status} ${await r.text()}`;
    } catch (err) {
      last = String(err.cause ?? err); // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready within ${ms} ms; last: ${last}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

// failTimeout returns deploy/nginx.conf's fail_timeout in ms: how long
// nginx skips a replica that refused a connection.
export function failTimeout() {
  const conf = readFileSync(join(root, 'deploy', 'nginx.conf'), 'utf8');
  const s = conf.match(/fail_timeout=(\d+)s/);
  if (!s) throw new Error('deploy/nginx.conf has no fail_timeout=Ns');
  return Number(s[1]) * 1000;
}

// nginxConf rewrites deploy/nginx.conf for loopback: the three upstream
// servers to ports, the listen port to lbPort, temp files into dir.
export function nginxConf(ports, lbPort, dir) {
  let conf = readFileSync(join(root, 'deploy', 'nginx.conf'), 'utf8');
  let n = 0;
  conf = conf.replace(/server switchyard-(\d):8080/g, (_, i) => {
    n++;
    return `server 127.0.0.1:${ports[Number(i) - 1]}`;
  });
  if (n !== 3) throw new Error(`deploy/nginx.conf has ${n} upstream servers switchyard-N:8080, want 3`);
  if (!/^\s*listen 80;$/m.test(conf)) throw new Error('deploy/nginx.conf has no "listen 80;"');
  conf = conf.replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${lbPort};`);
  conf = conf.replace(/^http \{$/m, `http {\n    client_body_temp_path ${dir}/body;\n    proxy_temp_path ${dir}/proxy;`);
  return conf;
}

// startTopology starts the fake upstreams, three replicas and nginx.
export async function startTopology(cfg) {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-lb-'));
  const procs = [];
  const t = { dir, replicas: [], procs };
  t.stop = () => stopAll(procs, dir);
  try {
    await startProcesses(t, cfg);
    return t;
  } catch (err) {
    await t.stop();
    throw err;
  }
}

async function startProcesses(t, cfg) {
  // Slow answers and streams, so that a replica told to stop has requests
  // in flight to drain.
  const fake = spawn(cfg.fake, ['-latency', '100ms', '-token-delay', '60ms'], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.procs.push(fake);
  const up = await watchStart(fake, fake.stdout, 'fakeupstream', collectURLs());
  t.env = {
    ...process.env,
    SWITCHYARD_DATABASE_URL: cfg.databaseURL,
    SWITCHYARD_REDIS_URL: cfg.redisURL,
    OPENAI_BASE_URL: up.openai,
    OPENAI_API_KEY: 'test-upstream-key',
    ANTHROPIC_BASE_URL: up.anthropic,
    ANTHROPIC_API_KEY: 'test-upstream-key',
  };
  t.run = (...args) => execFileSync(cfg.bin, args, { env: t.env, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  t.runWithStdin = (input, ...args) => execFileSync(cfg.bin, args, { env: t.env, encoding: 'utf8', input });
  t.run('migrate'); // once, before three replicas race to it
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const r = { i, port, url: `http://127.0.0.1:${port}` };
    r.config = join(t.dir, `replica-${i + 1}.yaml`);
    writeFileSync(r.config, [
      'server:', '  shutdown_grace: 20s',
      'limits:', '  replicas: 3',
      'metering:', `  journal_dir: ${join(t.dir, `journal-${i + 1}`)}`,
      'dashboard:', '  trusted_proxies: ["127.0.0.1/32"]', '',
    ].join('\n'));
    r.start = () => startReplica(t, cfg, r);
    r.stop = () => stopReplica(r);
    t.replicas.push(r);
  }
  await Promise.all(t.replicas.map((r) => r.start()));
  const lbPort = await freePort();
  const ndir = join(t.dir, 'nginx');
  mkdirSync(ndir);
  writeFileSync(join(ndir, 'nginx.conf'), nginxConf(t.replicas.map((r) => r.port), lbPort, ndir));
  const nginx = spawn(cfg.nginx, ['-e', 'stderr', '-p', ndir, '-c', join(ndir, 'nginx.conf'),
    '-g', `daemon off; pid ${join(ndir, 'nginx.pid')};`], { stdio: ['ignore', 'ignore', 'pipe'] });
  t.procs.push(nginx);
  t.nginxLog = watch(nginx.stderr, 'nginx', 1000);
  nginx.on('exit', (code) => {
    if (!nginx.stopping) process.stderr.write(`nginx exited (${code}) before it was stopped; ${t.nginxLog.last()}\n`);
  });
  t.url = `http://127.0.0.1:${lbPort}`;
  await waitReady(t.url + '/readyz').catch((err) => {
    throw new Error(`${err.message}; ${t.nginxLog.last()}`);
  });
}

// collectURLs matches the fake upstream's "name=url" lines until "ready".
function collectURLs() {
  const urls = {};
  return (line) => {
    const [name, value] = line.trim().split('=', 2);
    if (value) urls[name] = value;
    return line.trim() === 'ready' ? urls : undefined;
  };
}

// watchStart resolves with match's value, or rejects when proc exits first.
function watchStart(proc, stream, name, match) {
  const w = watch(stream, name);
  proc.log = w;
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start in 60 s; ${w.last()}`)), 60_000);
    const early = (code) => fail(new Error(`${name} exited (${code}) while starting; ${w.last()}`));
    proc.once('exit', early);
    w.waitFor(match).then((v) => {
      clearTimeout(timer);
      proc.off('exit', early);
      ok(v);
    });
  });
}

// startReplica starts replica r on its port and waits for its /readyz.
async function startReplica(t, cfg, r) {
  const env = { ...t.env, SWITCHYARD_LISTEN: `127.0.0.1:${r.port}`, SWITCHYARD_CONFIG: r.config };
  const p = spawn(cfg.bin, ['serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  t.procs.push(p);
  r.proc = p;
  r.exited = new Promise((ok) => p.on('exit', (code, signal) => ok({ code, signal })));
  await watchStart(p, p.stderr, `replica ${r.i + 1}`, (line) => (line.includes('"switchyard listening"') ? true : undefined));
  await waitReady(r.url + '/readyz');
}

// stopReplica sends SIGTERM and resolves with how the replica exited.
async function stopReplica(r) {
  r.proc.stopping = true;
  r.proc.kill('SIGTERM');
  return r.exited;
}
