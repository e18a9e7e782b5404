// Starts a fake upstream and a Switchyard gateway on loopback ports for the
// end-to-end tests, and stops both when the tests end.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '..', '..');

function firstLine(child, match) {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('timed out waiting for ' + match)), 120_000);
    const lines = createInterface({ input: match === 'urls' ? child.stdout : child.stderr });
    const urls = {};
    lines.on('line', (line) => {
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
    child.on('exit', (code) => fail(new Error(`process exited with ${code} before ${match}`)));
  });
}

export async function startGateway() {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-e2e-'));
  const bin = join(dir, 'switchyard');
  const fakeBin = join(dir, 'fakeupstream');
  execFileSync('go', ['build', '-o', bin, './cmd/switchyard'], { cwd: root, stdio: 'inherit' });
  execFileSync('go', ['build', '-o', fakeBin, './tests/e2e/fakeupstream'], { cwd: root, stdio: 'inherit' });

  const fake = spawn(fakeBin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const up = await firstLine(fake, 'urls');

  const env = {
    ...process.env,
    SWITCHYARD_DATABASE_URL: join(dir, 'gw.db'),
    SWITCHYARD_LISTEN: '127.0.0.1:0',
    OPENAI_BASE_URL: up.openai,
    OPENAI_API_KEY: 'test-upstream-key',
    TOGETHER_BASE_URL: up.openai,
    TOGETHER_API_KEY: 'test-upstream-key',
    ANTHROPIC_BASE_URL: up.anthropic,
    ANTHROPIC_API_KEY: 'test-upstream-key',
    GEMINI_BASE_URL: up.gemini,
    GEMINI_API_KEY: up.gemini_key,
  };
  execFileSync(bin, ['accounts', 'create', '--email', 'e2e@example.com'], { env });
  const created = JSON.parse(execFileSync(bin, ['keys', 'create', '--account', 'e2e@example.com', '--name', 'e2e', '--json'], { env }));

  const gw = spawn(bin, ['serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const baseURL = (await firstLine(gw, 'listening')) + '/v1';

  const stop = async () => {
    for (const p of [gw, fake]) {
      if (p.exitCode === null) {
        const exited = new Promise((ok) => p.on('exit', ok));
        p.kill('SIGTERM');
        await exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // run runs another switchyard command (limits set, keys create, ...) on
  // the gateway's database and returns its stdout.
  const run = (...args) => execFileSync(bin, args, { env, encoding: 'utf8' });
  return { baseURL, key: created.key, keyId: created.id, bin, env, run, stop };
}
