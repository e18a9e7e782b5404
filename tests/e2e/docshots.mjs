// Takes the dashboard screenshots of docs/img/dashboard/ that need a day
// of traffic: overview-health.png and admin-providers-health.png, the
// overview and the providers page with their health charts.
// Run from the repository: `node tests/e2e/docshots.mjs`. It starts
// `switchyard serve --dev`, sends requests through the official openai
// client, adds a day of earlier records of the same kinds straight into
// its SQLite database (so that the hourly charts have a day to show),
// signs in through the form and saves full-page PNGs.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { startDevGateway } from './harness.mjs';
import { launchChromium } from './browser.mjs';

const OWNER = 'owner@example.com';
const OPERATOR = 'ops@example.com';
const PASSWORD = 'correct horse battery staple';
const out = resolve(import.meta.dirname, '..', '..', 'docs', 'img', 'dashboard');

// seedSQL writes records of the 24 hours before now into the ledger and
// its daily rollup: per hour a daily rhythm of requests of account on
// three models, a few failing, with latencies spread per model.
function seedSQL(account, key, nowMs) {
  return `
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999)
INSERT INTO usage_records (id, request_id, created_at, account_id, key_id, endpoint, model, provider, upstream_model,
  prompt_tokens, completion_tokens, total_tokens, cached_tokens, tokens_estimated, input_price, output_price, price_version,
  cost, latency_us, ttft_us, status, error_type, streamed, cancelled, requested_model, deployment, attempts)
SELECT 'seed_' || i, 'seed', ${nowMs} - 3600000 - (i * 86400000 / 2000) - (abs(random()) % 1000), '${account}', '${key}', 'chat.completions',
  m, 'mock', m, 400, 120, 520, 0, false, 1000000, 2000000, 'dev', 640000000,
  CASE m WHEN 'mock-chat' THEN 180000 + abs(random()) % 900000 WHEN 'mock-instruct' THEN 60000 + abs(random()) % 200000
    ELSE 8000 + abs(random()) % 30000 END,
  0, CASE WHEN abs(random()) % 40 = 0 THEN 502 WHEN abs(random()) % 60 = 0 THEN 429 ELSE 200 END, '', false, false, '', 'mock/' || m, 1
FROM (SELECT i, CASE i % 5 WHEN 0 THEN 'mock-instruct' WHEN 1 THEN 'mock-embedding' ELSE 'mock-chat' END AS m FROM n)
WHERE abs(random()) % 100 < 40 + 35 * ((i / 83) % 12 < 8);
UPDATE usage_records SET error_type = 'server_error' WHERE id LIKE 'seed_%' AND status = 502;
UPDATE usage_records SET error_type = 'rate_limit_exceeded' WHERE id LIKE 'seed_%' AND status = 429;
INSERT INTO usage_daily (account_id, day, model, key_id, requests, errors, prompt_tokens, completion_tokens, total_tokens, cost)
SELECT account_id, date(created_at / 1000, 'unixepoch'), model, key_id, COUNT(*), SUM(status >= 400),
  SUM(prompt_tokens), SUM(completion_tokens), SUM(total_tokens), SUM(cost)
FROM usage_records WHERE id LIKE 'seed_%' GROUP BY 1, 2, 3, 4
ON CONFLICT (account_id, day, model, key_id) DO UPDATE SET requests = usage_daily.requests + excluded.requests,
  errors = usage_daily.errors + excluded.errors, prompt_tokens = usage_daily.prompt_tokens + excluded.prompt_tokens,
  completion_tokens = usage_daily.completion_tokens + excluded.completion_tokens,
  total_tokens = usage_daily.total_tokens + excluded.total_tokens, cost = usage_daily.cost + excluded.cost;
`;
}

const gw = await startDevGateway(({ run, runWithStdin }) => {
  runWithStdin(PASSWORD + '\n', 'accounts', 'create', '--email', OWNER, '--password-stdin');
  runWithStdin(PASSWORD + '\n', 'accounts', 'create', '--email', OPERATOR, '--password-stdin', '--admin');
  const key = JSON.parse(run('keys', 'create', '--account', OWNER, '--name', 'CI pipeline', '--json'));
  const account = JSON.parse(run('accounts', 'list', '--json')).find((a) => a.email === OWNER);
  return { key, account };
});
let browser;
try {
  const api = new OpenAI({ baseURL: gw.url + '/v1', apiKey: gw.key.key, maxRetries: 0 });
  for (let i = 0; i < 30; i++) {
    await api.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: `Request ${i}` }] });
  }
  await api.embeddings.create({ model: 'mock-embedding', input: 'hello' });
  await api.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }).catch(() => {});
  execFileSync('sqlite3', [gw.env.SWITCHYARD_DATABASE_URL], { input: seedSQL(gw.account.id, gw.key.id, Date.now()) });

  browser = await launchChromium();
  // Each shot: who signs in, the page, the PNG's name, a heading that
  // shows the page is drawn.
  const shots = [
    [OWNER, '/dashboard', 'overview-health', 'Last 24 hours'],
    [OPERATOR, '/dashboard/admin/providers', 'admin-providers-health', 'Last 24 hours'],
    // The request log is wide: a wider window shows every column.
    [OPERATOR, '/dashboard/requests', 'requests', 'Requests', 1920],
  ];
  for (const [email, path, name, ready, width = 1280] of shots) {
    const ctx = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: 'light' });
    const page = await ctx.newPage();
    await page.goto(gw.url + '/dashboard/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(gw.url + '/dashboard');
    await page.goto(gw.url + path);
    await page.getByRole('heading', { name: ready }).waitFor();
    await page.screenshot({ path: join(out, name + '.png'), fullPage: true, animations: 'disabled' });
    await ctx.close();
    console.log('saved', join(out, name + '.png'));
  }
} finally {
  await browser?.close();
  await gw.stop();
}
