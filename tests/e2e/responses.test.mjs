// The official openai Node client against Switchyard's Responses API
// (POST /v1/responses, GET and DELETE /v1/responses/{id}) for a model of
// each family, over the strict fake upstreams: GPT forwarded natively to
// the OpenAI fake, Claude, Gemini and Llama (the OpenAI fake standing in
// for Together) translated through chat completions. Every answer shows in
// the account's usage with its model and tokens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startGateway, Tally, expectUsage } from './harness.mjs';

let gw;
let client;
const tally = new Tally();

before(async () => {
  gw = await startGateway();
  client = new OpenAI({ baseURL: gw.baseURL, apiKey: gw.key, maxRetries: 0 });
});

after(async () => {
  await gw?.stop();
});

// The same models as openai.test.mjs: no retirement announced.
const FAMILIES = ['gpt-5.4-mini', 'claude-sonnet-5', 'gemini-3.5-flash', 'llama-3.3-70b-instruct'];

// A strict function tool, as Responses treats function tools by default.
const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The current weather in a city.',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'], additionalProperties: false },
  strict: true,
};

// count adds an answer to the tally of usage the gateway must have metered.
function count(model, response) {
  tally.add(model, response.usage.input_tokens, response.usage.output_tokens);
}

// checkDone checks a finished text answer of model: its status, one
// message item and its usage.
function checkDone(model, r) {
  assert.equal(r.object, 'response');
  assert.match(r.id, /^resp_/);
  assert.equal(r.model, model);
  assert.equal(r.status, 'completed', `status ${r.status}, incomplete ${JSON.stringify(r.incomplete_details)}`);
  assert.equal(r.error, null);
  const messages = r.output.filter((i) => i.type === 'message');
  assert.equal(messages.length, 1, `output ${JSON.stringify(r.output)}`);
  assert.equal(messages[0].role, 'assistant');
  assert.equal(messages[0].status, 'completed');
  assert.match(messages[0].id, /./);
  assert.equal(r.output.filter((i) => i.type === 'function_call').length, 0);
  assert.ok(textOf(r).length > 0, 'a text answer');
  const u = r.usage;
  assert.ok(u.input_tokens > 0 && u.output_tokens > 0, `usage ${JSON.stringify(u)}`);
  assert.equal(u.total_tokens, u.input_tokens + u.output_tokens);
  assert.equal(typeof u.input_tokens_details?.cached_tokens, 'number', `usage ${JSON.stringify(u)}`);
  assert.equal(typeof u.output_tokens_details?.reasoning_tokens, 'number', `usage ${JSON.stringify(u)}`);
}

// textOf joins the output_text parts of r's message items, as the
// client's output_text does for create and retrieve (its stream helper's
// finalResponse has none).
const textOf = (r) => r.output.filter((i) => i.type === 'message')
  .flatMap((i) => i.content).filter((c) => c.type === 'output_text').map((c) => c.text).join('');

// wire drops what the client's stream helper adds to the items of its
// finalResponse (parsed_arguments, parsed), which are not in the API, so
// that the items are sent back as they came.
const wire = (items) => items.map(({ parsed_arguments: _, ...item }) => (item.type !== 'message' ? item
  : { ...item, content: item.content.map(({ parsed: __, ...part }) => part) }));

// theCall returns the one get_weather function_call item of r's output.
function theCall(r) {
  const calls = r.output.filter((i) => i.type === 'function_call');
  assert.equal(calls.length, 1, `output ${JSON.stringify(r.output)}`);
  const [call] = calls;
  assert.equal(call.name, 'get_weather');
  assert.ok(call.call_id, 'the call has a call_id');
  assert.equal(typeof JSON.parse(call.arguments).location, 'string');
  assert.equal(r.status, 'completed', 'no "tool_calls" status: completed with a function_call item');
  return call;
}

// checkEvents checks a stream's events as newer openai-node clients do:
// response.created first, sequence numbers 0, 1, 2, ..., items appended
// at the next output_index and never interleaved, each delta naming the
// id of the item it extends, output_item.done keeping the item's type, id
// and call_id, and one terminal event last. It returns the event types.
function checkEvents(events) {
  const types = events.map((e) => e.type);
  assert.deepEqual(types.slice(0, 2), ['response.created', 'response.in_progress'], `events ${types}`);
  assert.equal(types.at(-1), 'response.completed', `events ${types}`);
  assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i), 'sequence numbers 0, 1, 2, ...');
  const items = [];
  let open = -1; // the output_index of the item under way
  for (const e of events.slice(2, -1)) {
    if (e.type === 'response.output_item.added') {
      assert.equal(open, -1, `item ${e.output_index} added while item ${open} is under way`);
      assert.equal(e.output_index, items.length, 'items are appended');
      assert.ok(e.item.id, `item ${JSON.stringify(e.item)} has an id`);
      if (e.item.type === 'function_call') assert.ok(e.item.call_id, 'a function_call item has a call_id');
      items.push(e.item);
      open = e.output_index;
      continue;
    }
    assert.equal(e.output_index, open, `${e.type} on item ${open}`);
    if (e.type === 'response.output_item.done') {
      const { type, id, call_id: callID } = items[open];
      assert.deepEqual({ type: e.item.type, id: e.item.id, call_id: e.item.call_id }, { type, id, call_id: callID });
      // Reasoning items carry no status at OpenAI.
      if (e.item.type !== 'reasoning') assert.equal(e.item.status, 'completed', `item ${JSON.stringify(e.item)}`);
      open = -1;
      continue;
    }
    assert.equal(e.item_id, items[open].id, `${e.type} names its item`);
    const on = e.type.startsWith('response.function_call_arguments.') ? 'function_call'
      : e.type.startsWith('response.reasoning_') ? 'reasoning' : 'message';
    assert.equal(items[open].type, on, `${e.type} on a ${items[open].type} item`);
  }
  assert.equal(open, -1, 'every item is done before the response');
  assert.deepEqual(events.at(-1).response.output.map((i) => i.id), items.map((i) => i.id), 'the final output holds the streamed items');
  return types;
}

const question = [{ role: 'user', content: 'Weather in Paris?' }];
const result = (call) => ({ type: 'function_call_output', call_id: call.call_id, output: '{"temp_c":21}' });

for (const model of FAMILIES) {
  test(`${model}: responses.create answers with output_text and usage`, async () => {
    const r = await client.responses.create({ model, instructions: 'Be brief.', input: 'Say hello', max_output_tokens: 256 });
    count(model, r);
    checkDone(model, r);
    assert.equal(r.output_text, textOf(r));
    assert.match(r.output_text, /hello/, 'the fake echoes the user turn');
    assert.equal(r.instructions, 'Be brief.');
    assert.equal(r.max_output_tokens, 256);
    assert.equal(r.store, true);
    assert.ok(r._request_id, 'x-request-id is exposed');
  });

  test(`${model}: responses.stream sends events and a final response`, async () => {
    const stream = client.responses.stream({ model, input: [{ role: 'user', content: 'Stream please' }] });
    const events = [];
    let text = '';
    stream.on('response.output_text.delta', (e) => { text += e.delta; });
    for await (const e of stream) events.push(e);
    const final = await stream.finalResponse();
    count(model, final);
    checkDone(model, final);
    const types = checkEvents(events);
    assert.ok(types.filter((t) => t === 'response.output_text.delta').length >= 2, `events ${types}`);
    // One message item with one part (a reasoning model's reasoning item
    // may come before it).
    const ofMessage = events.filter((e) => (e.item?.type ?? 'message') === 'message').map((e) => e.type);
    for (const t of ['response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done']) {
      assert.equal(ofMessage.filter((x) => x === t).length, 1, `one ${t} of a message in ${types}`);
    }
    assert.equal(events[0].response.id, final.id);
    assert.equal(events.at(-1).response.id, final.id);
    assert.match(text, /Stream please/);
    assert.equal(textOf(final), text);
  });

  test(`${model}: a function call answered statelessly by echoing the output items`, async () => {
    // The call streamed, then the answer with the call's items sent back.
    const stream = client.responses.stream({ model, input: question, tools: [weatherTool], store: false });
    const events = [];
    for await (const e of stream) events.push(e);
    const call = await stream.finalResponse();
    count(model, call);
    const fc = theCall(call);
    const types = checkEvents(events);
    assert.ok(types.includes('response.function_call_arguments.delta'), `events ${types}`);
    assert.equal(events.find((e) => e.type === 'response.function_call_arguments.done').arguments, fc.arguments);
    const answer = await client.responses.create({
      model, tools: [weatherTool], store: false,
      input: [...question, ...wire(call.output), result(fc)],
    });
    count(model, answer);
    checkDone(model, answer);
    assert.equal(answer.store, false);
  });

  test(`${model}: a function call answered through previous_response_id`, async () => {
    const call = await client.responses.create({ model, input: question, tools: [weatherTool] });
    count(model, call);
    const fc = theCall(call);
    const answer = await client.responses.create({
      model, tools: [weatherTool], previous_response_id: call.id, input: [result(fc)],
    });
    count(model, answer);
    checkDone(model, answer);
    assert.equal(answer.previous_response_id, call.id);
    // The chain is billed as input again: the answer's input holds the call's.
    assert.ok(answer.usage.input_tokens > call.usage.input_tokens, `${answer.usage.input_tokens} input tokens after ${call.usage.input_tokens}`);
  });

  test(`${model}: retrieve, delete; store:false is never kept`, async () => {
    const r = await client.responses.create({ model, input: 'Keep this' });
    count(model, r);
    const got = await client.responses.retrieve(r.id);
    assert.equal(got.id, r.id);
    assert.equal(got.model, model);
    assert.equal(got.status, 'completed');
    assert.equal(got.output_text, r.output_text);
    assert.deepEqual(got.output, r.output);
    assert.deepEqual(got.usage, r.usage);

    // This client returns the body, which OpenAI's spec example shows.
    assert.deepEqual(await client.responses.delete(r.id), { id: r.id, object: 'response', deleted: true });
    await assert.rejects(client.responses.retrieve(r.id), (e) => e instanceof OpenAI.NotFoundError && e.status === 404);
    await assert.rejects(client.responses.delete(r.id), (e) => e instanceof OpenAI.NotFoundError);

    const unkept = await client.responses.create({ model, input: 'Forget this', store: false });
    count(model, unkept);
    assert.equal(unkept.store, false);
    await assert.rejects(client.responses.retrieve(unkept.id), (e) => e instanceof OpenAI.NotFoundError && e.status === 404);
    await assert.rejects(
      client.responses.create({ model, input: 'Go on', previous_response_id: unkept.id }),
      (e) => e instanceof OpenAI.BadRequestError && e.code === 'previous_response_not_found' && e.param === 'previous_response_id',
    );
  });
}

test("errors in OpenAI's shape", async () => {
  const bad = new OpenAI({ baseURL: gw.baseURL, apiKey: 'sk-switchyard-' + 'x'.repeat(32), maxRetries: 0 });
  await assert.rejects(
    bad.responses.create({ model: 'gpt-5.4-mini', input: 'x' }),
    (e) => e instanceof OpenAI.AuthenticationError && e.status === 401 && e.code === 'invalid_api_key',
  );
  await assert.rejects(
    client.responses.create({ model: 'gpt-9', input: 'x' }),
    (e) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found' && e.message.includes('Model not found'),
  );
  await assert.rejects(
    client.responses.retrieve('resp_' + '0'.repeat(48)),
    (e) => e instanceof OpenAI.NotFoundError && e.status === 404,
  );
  await assert.rejects(
    client.responses.create({ model: 'claude-sonnet-5', input: 'x', previous_response_id: 'resp_' + '1'.repeat(48) }),
    (e) => e instanceof OpenAI.BadRequestError && e.code === 'previous_response_not_found' && e.param === 'previous_response_id',
  );
  // A response is its key's account's: another account cannot see it.
  const mine = await client.responses.create({ model: 'llama-3.3-70b-instruct', input: 'Mine' });
  count('llama-3.3-70b-instruct', mine);
  gw.run('accounts', 'create', '--email', 'other@example.com');
  const other = JSON.parse(gw.run('keys', 'create', '--account', 'other@example.com', '--name', 'other', '--json'));
  const stranger = new OpenAI({ baseURL: gw.baseURL, apiKey: other.key, maxRetries: 0 });
  await assert.rejects(stranger.responses.retrieve(mine.id), (e) => e instanceof OpenAI.NotFoundError);
  await assert.rejects(stranger.responses.delete(mine.id), (e) => e instanceof OpenAI.NotFoundError);
  assert.equal((await client.responses.retrieve(mine.id)).id, mine.id);
});

test('every answer shows in the usage with its model and tokens', async () => {
  await expectUsage(gw, tally);
  assert.deepEqual([...tally.byModel.keys()].sort(), [...FAMILIES].sort(), 'every model answered in the tests before');
});
