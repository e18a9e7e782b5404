// The official openai Node client against Switchyard, over a strict fake
// OpenAI upstream (and the same fake standing in for Together).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startGateway } from './harness.mjs';

let gw;
let client;

before(async () => {
  gw = await startGateway();
  client = new OpenAI({ baseURL: gw.baseURL, apiKey: gw.key, maxRetries: 0 });
});

after(async () => {
  await gw?.stop();
});

// Models with no retirement announced, so the suite keeps its meaning.
const GPT = 'gpt-5.4-mini';
const FAMILIES = [GPT, 'claude-sonnet-5', 'gemini-3.5-flash', 'llama-3.3-70b-instruct'];

test('chat completion', async () => {
  const r = await client.chat.completions.create({
    model: GPT,
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello' }],
  });
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.ok(r.choices[0].message.content.length > 0);
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.ok(r.usage.total_tokens > 0);
  assert.ok(r._request_id, 'x-request-id is exposed');
});

test('chat completion on a Meta model through Together', async () => {
  const r = await client.chat.completions.create({
    model: 'llama-3.3-70b-instruct',
    messages: [{ role: 'user', content: 'Hello llama' }],
  });
  assert.equal(r.model, 'llama-3.3-70b-instruct');
  assert.ok(r.choices[0].message.content.length > 0);
});

test('streaming chat with usage', async () => {
  const stream = await client.chat.completions.create({
    model: GPT,
    messages: [{ role: 'user', content: 'Stream please' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let usage = null;
  let finish = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices) {
      text += c.delta.content ?? '';
      finish = c.finish_reason ?? finish;
    }
  }
  assert.ok(text.length > 0);
  assert.equal(finish, 'stop');
  assert.ok(usage && usage.total_tokens > 0);
});

test('streaming chat without usage sends no usage chunk', async () => {
  const stream = await client.chat.completions.create({
    model: GPT,
    messages: [{ role: 'user', content: 'Stream please' }],
    stream: true,
  });
  for await (const chunk of stream) {
    assert.equal(chunk.usage, undefined);
    assert.ok(chunk.choices.length > 0);
  }
});

test('tool calls, plain and streamed', async () => {
  const tools = [{
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
    },
  }];
  const r = await client.chat.completions.create({
    model: GPT, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools,
  });
  assert.equal(r.choices[0].finish_reason, 'tool_calls');
  const call = r.choices[0].message.tool_calls[0];
  assert.equal(call.function.name, 'get_weather');
  assert.equal(JSON.parse(call.function.arguments).location, 'Paris');

  const runner = client.chat.completions.stream({
    model: GPT, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools,
  });
  const final = await runner.finalChatCompletion();
  const sc = final.choices[0].message.tool_calls[0];
  assert.equal(sc.function.name, 'get_weather');
  assert.deepEqual(JSON.parse(sc.function.arguments), { location: 'Paris' });
});

test('legacy functions', async () => {
  const r = await client.chat.completions.create({
    model: GPT,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    functions: [{ name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } }],
    function_call: 'auto',
  });
  assert.equal(r.choices[0].finish_reason, 'function_call');
  assert.equal(r.choices[0].message.function_call.name, 'get_weather');
});

test('legacy completions, plain and streamed', async () => {
  const r = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test' });
  assert.equal(r.object, 'text_completion');
  assert.ok(r.choices[0].text.length > 0);
  const stream = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test', stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
  assert.ok(text.length > 0);
});

test('embeddings: the client default (base64) and float', async () => {
  const b = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['first', 'second'] });
  assert.equal(b.data.length, 2);
  assert.equal(b.data[0].embedding.length, 1536);
  assert.ok(b.data[0].embedding.every((x) => Number.isFinite(x) && Math.abs(x) <= 1));
  const f = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'first', encoding_format: 'float' });
  assert.equal(f.data[0].embedding.length, 1536);
  for (let i = 0; i < 8; i++) assert.ok(Math.abs(f.data[0].embedding[i] - b.data[0].embedding[i]) < 1e-6);
  const d = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'x', dimensions: 256 });
  assert.equal(d.data[0].embedding.length, 256);
});

test('models list and retrieve', async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  for (const id of FAMILIES) assert.ok(ids.includes(id), id + ' is listed');
  assert.ok(!ids.includes('gpt-3.5-turbo'), 'retired models are not listed');
  assert.ok(!ids.includes('llama-3.1-8b-instruct'), 'no Groq provider is configured');
  const m = await client.models.retrieve(GPT);
  assert.equal(m.id, GPT);
  assert.equal(m.object, 'model');
  assert.equal(m.owned_by, 'openai');
});

test('errors carry status, type and code', async () => {
  const bad = new OpenAI({ baseURL: gw.baseURL, apiKey: 'sk-switchyard-' + 'x'.repeat(32), maxRetries: 0 });
  await assert.rejects(bad.models.list(), (e) => e instanceof OpenAI.AuthenticationError && e.status === 401 && e.code === 'invalid_api_key');
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-9', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found' && e.message.includes('Model not found'),
  );
  await assert.rejects(
    client.chat.completions.create({ model: GPT, messages: [{ role: 'user', content: 'x' }], temperature: 3 }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'temperature',
  );
  // An upstream 429 cools its deployment for the upstream's Retry-After,
  // so it is asked of a model no other test uses (gpt-4o-mini's own
  // deployment); while it cools the gateway answers 429 at once.
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'fake:error:429' }] }),
    (e) => e instanceof OpenAI.RateLimitError && e.type === 'rate_limit_error' && e.code === undefined,
  );
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] }),
    (e) => e instanceof OpenAI.RateLimitError && e.message.includes('Every upstream deployment') && Number(e.headers.get('retry-after')) >= 1,
  );
});

for (const model of FAMILIES) {
  test(`same client code on ${model}: text, stream, tools, functions`, async () => {
    const r = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello' }] });
    assert.equal(r.model, model);
    assert.ok(r.choices[0].message.content.length > 0);
    assert.equal(r.choices[0].finish_reason, 'stop');
    assert.ok(r.usage.total_tokens > 0);

    const stream = await client.chat.completions.create({
      model, messages: [{ role: 'user', content: 'Stream please' }], stream: true, stream_options: { include_usage: true },
    });
    let text = '';
    let usage = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices) text += c.delta.content ?? '';
    }
    assert.ok(text.length > 0);
    assert.ok(usage && usage.total_tokens > 0);

    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } } }];
    const runner = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools });
    const final = await runner.finalChatCompletion();
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
    const call = final.choices[0].message.tool_calls[0];
    assert.equal(call.function.name, 'get_weather');
    assert.equal(typeof JSON.parse(call.function.arguments), 'object');

    const after = await client.chat.completions.create({
      model, tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: final.choices[0].message.tool_calls.map(({ id, type, function: fn }) => ({ id, type, function: { name: fn.name, arguments: fn.arguments } })) },
        { role: 'tool', tool_call_id: call.id, content: '{"temp_c":21}' },
      ],
    });
    assert.ok(after.choices[0].message.content.length > 0);

    const f = await client.chat.completions.create({
      model, messages: [{ role: 'user', content: 'Weather in Paris?' }],
      functions: [tools[0].function],
    });
    assert.equal(f.choices[0].finish_reason, 'function_call');
    assert.equal(f.choices[0].message.function_call.name, 'get_weather');
  });
}
