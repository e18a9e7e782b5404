// Starts Switchyard gateways on loopback ports for the end-to-end tests:
// startGateway over a fake upstream, startDevGateway with the built-in mock
// provider (serve --dev). Each lives in a temp dir of its own, and its stop
// ends its processes and removes that dir; a start that fails cleans up
// what it had started before it throws. Tally and expectUsage compare
// what the answers said with the account's usage.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

const root = resolve(import.meta.dirname, '..', '..');

// firstLine resolves when child prints its line: 'urls' (the fake
// upstream's addresses, then "ready") on stdout or 'listening' (the
// gateway's address) on stderr. Should child exit before it is stopped,
// its last lines are written to stderr.
function firstLine(child, match) {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('timed out waiting for ' + match)), 120_000);
    const lines = createInterface({ input: match === 'urls' ? child.stdout : child.stderr });
    const urls = {};
    const seen = []; // the last lines, to tell why it exited
    lines.on('line', (line) => {
      seen.push(line);
      if (seen.length > 20) seen.shift();
      if (match === 'urls') {
        const [name, value] = line.trim().split('=', 2);
        if (value) urls[name] = value;
        if (line.trim() === 'ready') {
          clearTimeout(timer);
          ok(urls);
        }
      }
      if (match === 'listening' && line.includes('"switchyard listening"')) {
        clearTimeout(timer);
        ok('http://' + JSON.parse(line).addr);
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const why = `${child.spawnargs.join(' ')} exited (code ${code}, signal ${signal}) before it was stopped; its last lines:\n${seen.join('\n')}`;
      if (!child.stopping) process.stderr.write(why + '\n');
      fail(new Error(why));
    });
  });
}

// stopAll ends the processes that still run with SIGTERM, the last
// started first, waiting for each, then removes dir.
export async function stopAll(procs, dir) {
  for (const p of [...procs].reverse()) {
    if (p.exitCode === null && p.signalCode === null) {
      const exited = new Promise((ok) => p.on('exit', ok));
      p.stopping = true;
      p.kill('SIGTERM');
      await exited;
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

// workspace is a temp dir for binaries and databases, and the processes
// started in it.
function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-e2e-'));
  const procs = [];
  return {
    dir,
    build(pkg, name) {
      const bin = join(dir, name);
      execFileSync('go', ['build', '-o', bin, pkg], { cwd: root, stdio: 'inherit' });
      return bin;
    },
    // start spawns a process and waits for its line: 'urls' on stdout or
    // 'listening' on stderr.
    start(bin, args, opts, match) {
      const p = spawn(bin, args, opts);
      procs.push(p);
      return firstLine(p, match);
    },
    // stop ends the processes, the last started first, and removes dir.
    stop: () => stopAll(procs, dir),
  };
}

// gateway runs setup in a fresh workspace, which builds and starts what it
// needs and returns the gateway's fields; stop is added. If setup throws,
// the workspace is stopped first.
async function gateway(setup) {
  const ws = workspace();
  try {
    return { ...(await setup(ws)), stop: ws.stop };
  } catch (err) {
    await ws.stop();
    throw err;
  }
}

// switchyard builds the binary and returns it with an env on a database in
// the workspace, listening on a free loopback port, and two functions that
// run a switchyard command (limits set, keys create, ...) on that database
// and return its stdout: run(...args), and runWithStdin(input, ...args).
function switchyard(ws, extraEnv = {}) {
  const bin = ws.build('./cmd/switchyard', 'switchyard');
  const env = {
    ...process.env,
    SWITCHYARD_DATABASE_URL: join(ws.dir, 'gw.db'),
    SWITCHYARD_LISTEN: '127.0.0.1:0',
    ...extraEnv,
  };
  const runWithStdin = (input, ...args) => execFileSync(bin, args, { env, encoding: 'utf8', input });
  return { bin, env, run: (...args) => runWithStdin('', ...args), runWithStdin };
}

// startGateway starts `switchyard serve` over the fake upstream, with one
// account, e2e@example.com, and its key.
export function startGateway() {
  return gateway(async (ws) => {
    const fakeBin = ws.build('./tests/e2e/fakeupstream', 'fakeupstream');
    const up = await ws.start(fakeBin, [], { stdio: ['pipe', 'pipe', 'inherit'] }, 'urls');
    const { bin, env, run } = switchyard(ws, {
      OPENAI_BASE_URL: up.openai,
      OPENAI_API_KEY: 'test-upstream-key',
      TOGETHER_BASE_URL: up.openai,
      TOGETHER_API_KEY: 'test-upstream-key',
      ANTHROPIC_BASE_URL: up.anthropic,
      ANTHROPIC_API_KEY: 'test-upstream-key',
      GEMINI_BASE_URL: up.gemini,
      GEMINI_API_KEY: up.gemini_key,
    });
    run('accounts', 'create', '--email', 'e2e@example.com');
    const created = JSON.parse(run('keys', 'create', '--account', 'e2e@example.com', '--name', 'e2e', '--json'));
    const url = await ws.start(bin, ['serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] }, 'listening');
    return { baseURL: url + '/v1', key: created.key, keyId: created.id, bin, env, run };
  });
}

// startDevGateway starts `switchyard serve --dev` (the mock provider's
// models, no upstream) after prepare({ run, runWithStdin }) has set up its
// database with switchyard commands. It resolves to what prepare returned
// with url (the gateway's origin), bin, env, run and runWithStdin.
export function startDevGateway(prepare = () => ({})) {
  return gateway(async (ws) => {
    const sy = switchyard(ws);
    const prepared = await prepare(sy);
    const url = await ws.start(sy.bin, ['serve', '--dev'], { env: sy.env, stdio: ['ignore', 'ignore', 'pipe'] }, 'listening');
    return { ...prepared, ...sy, url };
  });
}

// Tally counts what the gateway answered a client, per model: requests,
// prompt and completion tokens as the answers' usage said, to be compared
// with the account's usage (expectUsage).
export class Tally {
  byModel = new Map();

  add(model, prompt, completion) {
    const t = this.byModel.get(model) ?? { model, requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0 };
    t.requests++;
    t.prompt_tokens += prompt;
    t.completion_tokens += completion;
    this.byModel.set(model, t);
  }
}

// expectUsage waits until the account's usage by model (`switchyard usage
// --by model --json`; records are written in batches) shows, for each
// model of tally, exactly its requests and tokens and no errors, and
// fails with the difference when it does not within 15 s.
export async function expectUsage(gw, tally, account = 'e2e@example.com') {
  const want = [...tally.byModel.values()].sort((a, b) => a.model.localeCompare(b.model));
  const read = () => {
    const rows = JSON.parse(gw.run('usage', '--account', account, '--by', 'model', '--json'));
    return want.map(({ model }) => {
      const r = rows.find((row) => row.model === model);
      return r && { model, requests: r.requests, errors: r.errors, prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens };
    });
  };
  const deadline = Date.now() + 15_000;
  let got = read();
  while (JSON.stringify(got) !== JSON.stringify(want) && Date.now() < deadline) {
    await new Promise((ok) => setTimeout(ok, 250));
    got = read();
  }
  assert.deepEqual(got, want, 'the usage by model (actual) against what the answers said (expected)');
}
