// Rate limits seen by the official openai Node client: a 429 in OpenAI's
// shape, and the client's own retry honouring Retry-After.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { startGateway } from './harness.mjs';

let gw;

before(async () => {
  gw = await startGateway();
  execFileSync(gw.bin, ['limits', 'set', '--account', 'e2e@example.com', '--key', gw.keyId, '--rpm', '60'], { env: gw.env });
  await sleep(300); // the change reaches the running server
});

after(async () => {
  await gw?.stop();
});

const ask = (client) =>
  client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hello' }] });

test('a burst over the limit gets a 429, and the client retry succeeds after Retry-After', async () => {
  const once = new OpenAI({ baseURL: gw.baseURL, apiKey: gw.key, maxRetries: 0 });
  const burst = await Promise.all(Array.from({ length: 60 }, () => ask(once)));
  assert.equal(burst.length, 60);

  await assert.rejects(ask(once), (err) => {
    assert.ok(err instanceof OpenAI.RateLimitError, `got ${err}`);
    assert.equal(err.status, 429);
    assert.equal(err.type, 'rate_limit_error');
    assert.equal(err.code, undefined);
    assert.match(err.message, /Rate limit reached for requests per minute on key /);
    const ms = Number(err.headers.get('retry-after-ms'));
    assert.ok(ms > 0 && ms <= 1000, `retry-after-ms ${ms}`);
    assert.equal(err.headers.get('x-ratelimit-limit-requests'), '60');
    return true;
  });

  const retrying = new OpenAI({ baseURL: gw.baseURL, apiKey: gw.key, maxRetries: 2 });
  const start = Date.now();
  const r = await ask(retrying);
  const waited = Date.now() - start;
  assert.equal(r.object, 'chat.completion');
  assert.ok(r.choices[0].message.content.length > 0);
  assert.ok(waited >= 500, `the retry came after ${waited} ms, before the limit allowed it`);
});
