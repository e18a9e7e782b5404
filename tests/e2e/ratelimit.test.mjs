// A key's requests-per-minute limit seen by the official openai Node
// client: a burst up to the limit passes, the next request is a
// RateLimitError in OpenAI's shape, and the client's own retry waits as
// the 429 says and then succeeds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startGateway } from './harness.mjs';

let gw;

before(async () => {
  gw = await startGateway();
  // The server has not seen the key yet, so its first request reads this
  // limit from the database: no wait for the change to travel.
  gw.run('limits', 'set', '--account', 'e2e@example.com', '--key', gw.keyId, '--rpm', '60');
});

after(async () => {
  await gw?.stop();
});

const ask = (client) =>
  client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hello' }] });

test('60 requests at once pass; the 61st is a RateLimitError with retry-after about 1 s', async () => {
  const once = new OpenAI({ baseURL: gw.baseURL, apiKey: gw.key, maxRetries: 0 });
  const burst = await Promise.all(Array.from({ length: 60 }, () => ask(once).withResponse()));
  const remaining = [];
  for (const { data, response } of burst) {
    assert.equal(data.object, 'chat.completion');
    assert.equal(response.headers.get('x-ratelimit-limit-requests'), '60');
    remaining.push(Number(response.headers.get('x-ratelimit-remaining-requests')));
  }
  // Each request took its own unit: the remaining counts are 59 down to 0.
  assert.deepEqual(remaining.sort((a, b) => a - b), Array.from({ length: 60 }, (_, i) => i));

  await assert.rejects(ask(once), (err) => {
    assert.ok(err instanceof OpenAI.RateLimitError, `got ${err}`);
    assert.equal(err.status, 429);
    assert.equal(err.error.type, 'rate_limit_error');
    assert.equal(err.error.param, null);
    assert.ok(!('code' in err.error), 'a rate-limit 429 has no code key');
    assert.match(err.message, /^429 Rate limit reached for requests per minute on key key_\w+: limit 60, used 60\. Try again in 1s\.$/);
    // One request a minute comes back every second.
    assert.equal(err.headers.get('retry-after'), '1');
    const ms = Number(err.headers.get('retry-after-ms'));
    assert.ok(Number.isInteger(ms) && ms > 0 && ms <= 1000, `retry-after-ms ${ms}`);
    assert.equal(err.headers.get('x-ratelimit-remaining-requests'), '0');
    return true;
  });
});

test("the client's retry waits as the 429 says and then succeeds", async () => {
  // Take the request that comes back a second after the burst, as soon
  // as it does: the next one is then a full second away.
  const once = new OpenAI({ baseURL: gw.baseURL, apiKey: gw.key, maxRetries: 0 });
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      await ask(once);
      break;
    } catch (err) {
      assert.ok(err instanceof OpenAI.RateLimitError, `got ${err}`);
      assert.ok(Date.now() < deadline, 'no request came back within 5 s');
    }
  }

  const retrying = new OpenAI({ baseURL: gw.baseURL, apiKey: gw.key, maxRetries: 2 });
  const start = performance.now();
  const r = await ask(retrying);
  const took = performance.now() - start;
  assert.ok(took >= 900, `the call took ${took} ms: the retry came before the limit allowed it`);
  assert.ok(took < 5000, `the call took ${took} ms`);
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.ok(r.choices[0].message.content.length > 0);
  assert.equal(r.choices[0].finish_reason, 'stop');
});
