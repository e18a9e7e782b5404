// The official Anthropic TypeScript SDK against Switchyard's Messages API
// (POST /v1/messages, /v1/messages/count_tokens) for a model of each
// family, over the strict fake upstreams: Claude forwarded natively to the
// Anthropic fake, GPT, Gemini and Llama (the OpenAI fake standing in for
// Together) translated through chat completions. The 0.x SDK sends
// x-api-key and anthropic-version 2023-06-01 as Claude Code does; the 1.x
// SDK (package alias anthropic-sdk-v1) a Bearer key and 2026-10-21. Every
// answer shows in the account's usage with its model and tokens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import AnthropicV1 from 'anthropic-sdk-v1';
import { startGateway, Tally, expectUsage } from './harness.mjs';

let gw;
let origin; // the gateway without /v1: the SDK appends /v1/messages
let client;
const tally = new Tally();

before(async () => {
  gw = await startGateway();
  origin = gw.baseURL.replace(/\/v1$/, '');
  client = new Anthropic({ apiKey: gw.key, baseURL: origin, maxRetries: 0 });
});

after(async () => {
  await gw?.stop();
});

// The same models as openai.test.mjs: no retirement announced.
const FAMILIES = ['claude-sonnet-5', 'gpt-5.4-mini', 'gemini-3.5-flash', 'llama-3.3-70b-instruct'];

const weatherTool = {
  name: 'get_weather',
  description: 'The current weather in a city.',
  input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

// count adds an answer to the tally of usage the gateway must have metered.
function count(model, message) {
  const u = message.usage;
  const prompt = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
  tally.add(model, prompt, u.output_tokens);
}

// checkUsage checks the usage of one answer: input and output counted.
function checkUsage(message) {
  assert.ok(Number.isInteger(message.usage.input_tokens) && message.usage.input_tokens > 0, `usage ${JSON.stringify(message.usage)}`);
  assert.ok(Number.isInteger(message.usage.output_tokens) && message.usage.output_tokens > 0, `usage ${JSON.stringify(message.usage)}`);
}

// checkEvents checks a stream's events: message_start first, blocks at
// indexes 0, 1, 2, ... each started, extended and stopped before the next
// starts, then message_delta and message_stop. It returns the event types.
function checkEvents(events) {
  const types = events.map((e) => e.type).filter((t) => t !== 'ping');
  assert.equal(types[0], 'message_start', `events ${types}`);
  assert.deepEqual(types.slice(-2), ['message_delta', 'message_stop'], `events ${types}`);
  let blocks = 0;
  let open = -1;
  for (const e of events) {
    switch (e.type) {
      case 'content_block_start':
        assert.equal(open, -1, `block ${e.index} starts while block ${open} is open`);
        assert.equal(e.index, blocks++, 'blocks are numbered 0, 1, 2, ...');
        open = e.index;
        break;
      case 'content_block_delta':
        assert.equal(e.index, open, `a delta of block ${e.index} while block ${open} is open`);
        break;
      case 'content_block_stop':
        assert.equal(e.index, open, `block ${e.index} stops while block ${open} is open`);
        open = -1;
        break;
    }
  }
  assert.equal(open, -1, 'every block stops');
  assert.ok(blocks > 0, 'a block at least');
  return types;
}

const textOf = (message) => message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');

for (const model of FAMILIES) {
  test(`${model}: messages.create answers with a text block`, async () => {
    const { data: r, response } = await client.messages.create({
      model, max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'Say hello' }],
    }).withResponse();
    count(model, r);
    assert.equal(r.type, 'message');
    assert.equal(r.role, 'assistant');
    assert.equal(r.model, model);
    assert.match(r.id, /^msg_/);
    assert.equal(r.content.length, 1, `content ${JSON.stringify(r.content)}`);
    assert.equal(r.content[0].type, 'text');
    assert.match(r.content[0].text, /hello/, 'the fake echoes the user turn');
    assert.equal(r.stop_reason, 'end_turn');
    assert.equal(r.stop_sequence, null);
    checkUsage(r);
    assert.match(response.headers.get('content-type'), /^application\/json/);
    assert.ok(r._request_id, 'the request-id header is exposed');
  });

  test(`${model}: messages.stream sends events, text and a final message with usage`, async () => {
    const stream = client.messages.stream({
      model, max_tokens: 256, messages: [{ role: 'user', content: 'Stream please' }],
    });
    const events = [];
    let text = '';
    stream.on('streamEvent', (e) => events.push(e));
    stream.on('text', (delta) => { text += delta; });
    const final = await stream.finalMessage();
    count(model, final);
    const types = checkEvents(events);
    assert.ok(types.filter((t) => t === 'content_block_delta').length >= 2, `events ${types}`);
    assert.ok(text.length > 0);
    assert.match(text, /Stream please/);
    assert.equal(textOf(final), text);
    assert.equal(final.model, model);
    assert.equal(final.stop_reason, 'end_turn');
    checkUsage(final);
  });

  test(`${model}: a tool_use, its tool_result, then a text answer`, async () => {
    const question = { role: 'user', content: 'Weather in Paris?' };
    // The call streamed (input_json_delta pieces), the answer whole.
    const stream = client.messages.stream({ model, max_tokens: 256, tools: [weatherTool], messages: [question] });
    const events = [];
    stream.on('streamEvent', (e) => events.push(e));
    const call = await stream.finalMessage();
    count(model, call);
    checkEvents(events);
    assert.ok(events.some((e) => e.type === 'content_block_delta' && e.delta.type === 'input_json_delta'), 'the input streams as input_json_delta');
    assert.equal(call.stop_reason, 'tool_use');
    const uses = call.content.filter((b) => b.type === 'tool_use');
    assert.ok(uses.length >= 1, `content ${JSON.stringify(call.content)}`);
    assert.equal(uses[0].name, 'get_weather');
    assert.match(uses[0].id, /^[a-zA-Z0-9_-]+$/);
    assert.equal(typeof uses[0].input.location, 'string');
    for (const b of call.content) if (b.type === 'text') assert.ok(b.text.length > 0, 'no empty text block');

    const answer = await client.messages.create({
      model, max_tokens: 256, tools: [weatherTool],
      messages: [
        question,
        { role: 'assistant', content: call.content },
        { role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: '{"temp_c":21}' })) },
      ],
    });
    count(model, answer);
    assert.equal(answer.stop_reason, 'end_turn');
    assert.ok(textOf(answer).length > 0);
    assert.equal(answer.content.filter((b) => b.type === 'tool_use').length, 0);
    checkUsage(answer);

    // The same call whole.
    const whole = await client.messages.create({ model, max_tokens: 256, tools: [weatherTool], messages: [question] });
    count(model, whole);
    assert.equal(whole.stop_reason, 'tool_use');
    const use = whole.content.find((b) => b.type === 'tool_use');
    assert.equal(use?.name, 'get_weather', `content ${JSON.stringify(whole.content)}`);
    assert.equal(typeof use.input.location, 'string');
  });

  test(`${model}: messages.countTokens counts the input`, async () => {
    const messages = [{ role: 'user', content: 'How many tokens is this question, with its system prompt and tool?' }];
    const small = await client.messages.countTokens({ model, messages: [{ role: 'user', content: 'Hi' }] });
    assert.ok(Number.isInteger(small.input_tokens) && small.input_tokens > 0, `count ${JSON.stringify(small)}`);
    const big = await client.messages.countTokens({ model, system: 'Be brief.', tools: [weatherTool], messages });
    assert.deepEqual(Object.keys(big), ['input_tokens']);
    assert.ok(big.input_tokens > small.input_tokens, `${big.input_tokens} tokens for more input than ${small.input_tokens}`);
  });
}

test('a gateway key as authToken (Authorization: Bearer) and the beta path (?beta=true)', async () => {
  const bearer = new Anthropic({ apiKey: null, authToken: gw.key, baseURL: origin, maxRetries: 0 });
  const r = await bearer.messages.create({ model: 'claude-sonnet-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello bearer' }] });
  count('claude-sonnet-5', r);
  assert.match(textOf(r), /Hello bearer/);
  // Claude Code's calls: the beta namespace adds ?beta=true to the path.
  const b = await client.beta.messages.create({ model: 'gemini-3.5-flash', max_tokens: 64, messages: [{ role: 'user', content: 'Hello beta' }] });
  count('gemini-3.5-flash', b);
  assert.match(textOf(b), /Hello beta/);
  const c = await client.beta.messages.countTokens({ model: 'claude-sonnet-5', messages: [{ role: 'user', content: 'Hello beta' }] });
  assert.ok(c.input_tokens > 0);
});

// The 1.x SDK, what `npm install @anthropic-ai/sdk` gives since October
// 2026, sends its apiKey as a Bearer token and anthropic-version
// 2026-10-21; Claude Code and the 0.x SDK send x-api-key and 2023-06-01.
test('the 1.x SDK (Bearer key, anthropic-version 2026-10-21): create and stream', async () => {
  const v1 = new AnthropicV1({ apiKey: gw.key, baseURL: origin, maxRetries: 0 });
  for (const model of ['claude-sonnet-5', 'llama-3.3-70b-instruct']) {
    const r = await v1.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello v1' }] });
    count(model, r);
    assert.equal(r.stop_reason, 'end_turn');
    assert.match(textOf(r), /Hello v1/);
    checkUsage(r);
    const final = await v1.messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Stream v1' }] }).finalMessage();
    count(model, final);
    assert.match(textOf(final), /Stream v1/);
    checkUsage(final);
  }
  const bad = new AnthropicV1({ apiKey: 'sk-switchyard-' + 'x'.repeat(32), baseURL: origin, maxRetries: 0 });
  await assert.rejects(
    bad.messages.create({ model: 'claude-sonnet-5', max_tokens: 64, messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof AnthropicV1.AuthenticationError && e.status === 401,
  );
});

test("errors in Anthropic's shape", async () => {
  const ask = (c, model = 'claude-sonnet-5') => c.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'x' }] });
  const anthropicError = (e, status, type) => {
    assert.equal(e.status, status, String(e));
    assert.equal(e.error?.type, 'error', JSON.stringify(e.error));
    assert.equal(e.error.error?.type, type, JSON.stringify(e.error));
    assert.equal(typeof e.error.error.message, 'string');
    assert.ok(e.requestID, 'the request-id header is set on errors too');
    return true;
  };
  const bad = new Anthropic({ apiKey: 'sk-switchyard-' + 'x'.repeat(32), baseURL: origin, maxRetries: 0 });
  await assert.rejects(ask(bad), (e) => e instanceof Anthropic.AuthenticationError && anthropicError(e, 401, 'authentication_error'));
  const badBearer = new Anthropic({ apiKey: null, authToken: 'sk-switchyard-' + 'y'.repeat(32), baseURL: origin, maxRetries: 0 });
  await assert.rejects(ask(badBearer), (e) => e instanceof Anthropic.AuthenticationError && anthropicError(e, 401, 'authentication_error'));
  await assert.rejects(ask(client, 'claude-sonnet-9'), (e) => {
    assert.ok(e instanceof Anthropic.NotFoundError, String(e));
    anthropicError(e, 404, 'not_found_error');
    assert.equal(e.error.error.message, 'Model not found');
    return true;
  });
  await assert.rejects(
    client.messages.countTokens({ model: 'claude-sonnet-9', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof Anthropic.NotFoundError && anthropicError(e, 404, 'not_found_error'),
  );
  // max_tokens is required by the Messages API.
  await assert.rejects(
    client.messages.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof Anthropic.BadRequestError && anthropicError(e, 400, 'invalid_request_error') && /max_tokens/.test(e.error.error.message),
  );
});

test('every answer shows in the usage with its model and tokens', async () => {
  await expectUsage(gw, tally);
  assert.deepEqual([...tally.byModel.keys()].sort(), [...FAMILIES].sort(), 'every model answered in the tests before');
});
