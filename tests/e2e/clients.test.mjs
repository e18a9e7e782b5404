// The three JavaScript clients a new user reaches for — the openai npm
// client, the Vercel AI SDK and LangChain JS — against `serve --dev`'s
// mock model, with no provider credentials: a tool loop that ends, and
// structured output that matches its schema.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, generateObject, tool, stepCountIs } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import { tool as lcTool } from '@langchain/core/tools';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { startDevGateway } from './harness.mjs';

let gw;

before(async () => {
  gw = await startDevGateway(({ run }) => {
    run('accounts', 'create', '--email', 'clients@example.com');
    return JSON.parse(run('keys', 'create', '--account', 'clients@example.com', '--name', 'clients', '--json'));
  });
});

after(async () => {
  await gw?.stop();
});

const MODEL = 'mock-chat';

// The weather tool's arguments: an enum the mock must respect.
const weatherArgs = z.object({ city: z.string(), unit: z.enum(['c', 'f']) });
const weather = ({ city, unit }) => `21 degrees ${unit.toUpperCase()} in ${city}`;

// A structured answer with an enum, a number, an array and a nested object.
const forecast = z.object({
  city: z.string(),
  unit: z.enum(['c', 'f']),
  days: z.array(z.object({ day: z.number().int(), rain: z.boolean() })).min(1),
});

test('openai: runTools ends with text after the tool result', async () => {
  const client = new OpenAI({ baseURL: gw.url + '/v1', apiKey: gw.key, maxRetries: 0 });
  const calls = [];
  const runner = client.chat.completions.runTools({
    model: MODEL,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [{
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: z.toJSONSchema(weatherArgs),
        parse: (s) => weatherArgs.parse(JSON.parse(s)),
        function: (args) => { calls.push(args); return weather(args); },
      },
    }],
  }, { maxChatCompletions: 5 });
  const content = await runner.finalContent();
  assert.equal(calls.length, 1, 'one call, then an answer');
  assert.match(content, /21 degrees/);
  const last = await runner.finalChatCompletion();
  assert.equal(last.choices[0].finish_reason, 'stop');
});

test('openai: parse with a zod response_format', async () => {
  const client = new OpenAI({ baseURL: gw.url + '/v1', apiKey: gw.key, maxRetries: 0 });
  const r = await client.chat.completions.parse({
    model: MODEL,
    messages: [{ role: 'user', content: 'Forecast for Paris' }],
    response_format: zodResponseFormat(forecast, 'forecast'),
  });
  assert.deepEqual(forecast.parse(r.choices[0].message.parsed), r.choices[0].message.parsed);
});

const aiModel = () => createOpenAI({ baseURL: gw.url + '/v1', apiKey: gw.key }).chat(MODEL);

test('AI SDK: generateText with tools stops after the tool result', async () => {
  const r = await generateText({
    model: aiModel(),
    prompt: 'Weather in Paris?',
    tools: { get_weather: tool({ inputSchema: weatherArgs, execute: async (args) => weather(args) }) },
    stopWhen: stepCountIs(5),
  });
  assert.equal(r.steps.length, 2, 'a tool step, then a text step');
  assert.equal(r.finishReason, 'stop');
  assert.match(r.text, /21 degrees/);
});

test('AI SDK: generateObject matches the schema', async () => {
  const r = await generateObject({ model: aiModel(), schema: forecast, prompt: 'Forecast for Paris' });
  assert.deepEqual(forecast.parse(r.object), r.object);
});

const lcModel = () => new ChatOpenAI({ model: MODEL, apiKey: gw.key, configuration: { baseURL: gw.url + '/v1' }, maxRetries: 0 });

test('LangChain: a tool loop ends', async () => {
  const getWeather = lcTool(weather, { name: 'get_weather', description: 'Weather in a city', schema: weatherArgs });
  const model = lcModel().bindTools([getWeather]);
  const messages = [new HumanMessage('Weather in Paris?')];
  for (let turn = 0; turn < 5; turn++) {
    const ai = await model.invoke(messages);
    messages.push(ai);
    if (!ai.tool_calls?.length) break;
    for (const call of ai.tool_calls) {
      messages.push(new ToolMessage({ content: await getWeather.invoke(call.args), tool_call_id: call.id }));
    }
  }
  const last = messages.at(-1);
  assert.equal(messages.length, 4, 'user, call, result, answer');
  assert.match(last.content, /21 degrees/);
});

test('LangChain: withStructuredOutput matches the schema', async () => {
  for (const method of ['jsonSchema', 'functionCalling']) {
    const r = await lcModel().withStructuredOutput(forecast, { method }).invoke('Forecast for Paris');
    assert.deepEqual(forecast.parse(r), r, method);
  }
});
