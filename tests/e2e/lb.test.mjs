// Three replicas on one PostgreSQL and one Redis behind nginx running
// deploy/nginx.conf, driven through the balancer with the official openai
// client (issue 17). .ci/lb.sh sets it up; without it this suite is
// skipped.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { failTimeout, lbEnv, startTopology, waitReady } from './lb.mjs';

const cfg = lbEnv();
const EMAIL = 'lb@example.com';
const PASSWORD = 'correct horse battery staple';
const MODEL = 'gpt-5.4-mini';

const ask = (client) => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }] });

// streamed asks for a stream and returns its text once it ended.
async function streamed(client) {
  const stream = await client.chat.completions.create({
    model: MODEL, stream: true, messages: [{ role: 'user', content: 'Count to five' }],
  });
  let text = '';
  let finished = false;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    finished ||= Boolean(chunk.choices[0]?.finish_reason);
  }
  assert.ok(finished && text.length > 0, 'the stream ended with a finish_reason and text');
  return text;
}

// signIn signs in to a replica's dashboard and returns a fetch that
// carries the session cookie, and the page's form token.
async function signIn(base) {
  const jar = new Map();
  const keep = (r) => {
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [name, value] = pair.split('=');
      jar.set(name, value);
    }
    return r;
  };
  const get = (path, init = {}) => fetch(base + path, {
    redirect: 'manual', ...init,
    headers: { ...init.headers, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
  }).then(keep);
  const token = async (path) => (await (await get(path)).text()).match(/name="csrf" value="([^"]+)"/)[1];
  const post = async (path, form, tokenPath) => get(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form, csrf: await token(tokenPath) }),
  });
  const login = await post('/dashboard/login', { email: EMAIL, password: PASSWORD, next: '' }, '/dashboard/login');
  assert.equal(login.status, 303, 'sign-in redirects');
  return { post };
}

// keyOnReplica makes a key in replica r's dashboard and returns it with its ID.
async function keyOnReplica(r, name) {
  const { post } = await signIn(r.url);
  const page = await (await post('/dashboard/keys', { name, models: '' }, '/dashboard/keys/new')).text();
  const key = page.match(/sk-switchyard-[A-Za-z0-9]{32}/)?.[0];
  const id = page.match(/<code>(key_[a-z0-9]+)<\/code>/)?.[1];
  assert.ok(key && id, 'the new key page shows the key and its ID');
  return { key, id };
}

// usageOf returns the records the database holds for key id: requests,
// and of them errors (refusals such as 429s are recorded too).
function usageOf(t, id) {
  const rows = JSON.parse(t.run('usage', '--account', EMAIL, '--by', 'key', '--json'));
  const mine = rows.filter((r) => r.key_id === id);
  return { requests: mine.reduce((n, r) => n + r.requests, 0), errors: mine.reduce((n, r) => n + r.errors, 0) };
}

// settled polls until the records of key id number requests (they are
// written in batches), waits a flush more for any stray one, and returns
// what the database holds.
async function settled(t, id, requests, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (usageOf(t, id).requests < requests && Date.now() < deadline) {
    await new Promise((ok) => setTimeout(ok, 200));
  }
  await new Promise((ok) => setTimeout(ok, 500));
  return usageOf(t, id);
}

describe('three replicas behind nginx', { skip: !cfg && 'SWITCHYARD_LB_* unset: run .ci/lb.sh' }, () => {
  let t;
  before(async () => {
    t = await startTopology(cfg);
    t.runWithStdin(PASSWORD + '\n', 'accounts', 'create', '--email', EMAIL, '--password-stdin');
  });
  after(async () => {
    await t?.stop();
  });

  test("a key made in one replica's dashboard works through the balancer and on every replica", async () => {
    const { key } = await keyOnReplica(t.replicas[0], 'made-on-1');
    const lb = new OpenAI({ baseURL: t.url + '/v1', apiKey: key, maxRetries: 0 });
    for (let i = 0; i < 6; i++) assert.equal((await ask(lb)).object, 'chat.completion');
    for (const r of t.replicas) {
      const direct = new OpenAI({ baseURL: r.url + '/v1', apiKey: key, maxRetries: 0 });
      assert.equal((await ask(direct)).object, 'chat.completion', `replica ${r.i + 1}`);
    }
  });

  test('a revoke from another process is refused by every replica within 100 ms', async (ctx) => {
    const { key, id } = await keyOnReplica(t.replicas[1], 'to-revoke');
    // Each replica knows the key (it is cached) before the revoke.
    const models = (r) => fetch(r.url + '/v1/models', { headers: { authorization: `Bearer ${key}` } });
    for (const r of t.replicas) assert.equal((await models(r)).status, 200);
    t.run('keys', 'revoke', id);
    const revoked = performance.now();
    const took = await Promise.all(t.replicas.map(async (r) => {
      while ((await models(r)).status !== 401) {
        if (performance.now() - revoked > 2000) return Infinity;
      }
      return performance.now() - revoked;
    }));
    ctx.diagnostic(`refused after (ms): ${took.map((ms) => ms.toFixed(1)).join(', ')}`);
    for (const [i, ms] of took.entries()) assert.ok(ms <= 100, `replica ${i + 1} refused the key after ${ms} ms`);
    const lb = new OpenAI({ baseURL: t.url + '/v1', apiKey: key, maxRetries: 0 });
    await assert.rejects(ask(lb), (err) => err instanceof OpenAI.AuthenticationError);
  });

  test('one RPM limit holds across the three replicas; every request is one usage record, the refused ones errors', async () => {
    const { key, id } = await keyOnReplica(t.replicas[2], 'limited');
    const N = 12;
    t.run('limits', 'set', '--account', EMAIL, '--key', id, '--rpm', String(N));
    // The new limit reaches each replica through the change feed.
    await new Promise((ok) => setTimeout(ok, 300));
    const lb = new OpenAI({ baseURL: t.url + '/v1', apiKey: key, maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: N + 8 }, () => ask(lb)));
    const answered = results.filter((r) => r.status === 'fulfilled').length;
    for (const r of results.filter((x) => x.status === 'rejected')) {
      assert.ok(r.reason instanceof OpenAI.RateLimitError, `a refusal that is not a 429: ${r.reason}`);
    }
    assert.equal(answered, N, `${answered} of ${N + 8} requests passed an RPM limit of ${N}`);
    // One record per request; the refused ones are errors.
    assert.deepEqual(await settled(t, id, N + 8), { requests: N + 8, errors: 8 }, 'usage records');
  });

  test('a rolling restart under load loses no accepted request and no usage record', async (ctx) => {
    const { key, id } = await keyOnReplica(t.replicas[0], 'rolling');
    // The SDK's default retries: a 502 from nginx or a dropped connection
    // is retried (and counted here); anything else is a failure.
    let retried = 0;
    const counting = async (url, init) => {
      try {
        const r = await fetch(url, init);
        if (r.status >= 500) retried++;
        return r;
      } catch (err) {
        retried++;
        throw err;
      }
    };
    const lb = new OpenAI({ baseURL: t.url + '/v1', apiKey: key, maxRetries: 2, fetch: counting });
    let answered = 0;
    let inflight = 0;
    const failures = [];
    let loading = true;
    const worker = async (i) => {
      while (loading) {
        inflight++;
        try {
          await (i % 2 ? streamed(lb) : ask(lb));
          answered++;
        } catch (err) {
          failures.push(String(err).split('\n')[0]);
        } finally {
          inflight--;
        }
      }
    };
    const workers = Array.from({ length: 9 }, (_, i) => worker(i));
    await new Promise((ok) => setTimeout(ok, 1000));
    const atStop = [];
    for (const r of t.replicas) {
      const before = answered;
      atStop.push(inflight);
      const exit = await r.stop();
      assert.deepEqual(exit, { code: 0, signal: null }, `replica ${r.i + 1} exits 0 after its drain`);
      await r.start();
      await waitReady(t.url + '/readyz');
      // nginx gives the replica requests again after its fail_timeout.
      await new Promise((ok) => setTimeout(ok, failTimeout() + 500));
      assert.ok(answered > before, `requests were answered while replica ${r.i + 1} restarted`);
    }
    loading = false;
    await Promise.all(workers);
    ctx.diagnostic(`${answered} requests answered; in flight through nginx at each SIGTERM: ${atStop.join(', ')}; ` +
      `answers and errors the SDK retried: ${retried}`);
    const nginxErrors = t.nginxLog.last().split('\n').filter((l) => !l.includes('no live upstreams')).join('\n');
    assert.deepEqual(failures, [], `${failures.length} requests failed through the restarts; ${nginxErrors}`);
    assert.ok(atStop.every((n) => n > 0), 'requests were in flight at each SIGTERM');
    assert.ok(answered > 50, `only ${answered} requests answered`);
    assert.deepEqual(await settled(t, id, answered), { requests: answered, errors: 0 }, 'usage records = answered requests');
  });
});
