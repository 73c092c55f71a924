// Drives a running `modelkit serve` with the openai npm client, as users' tools do. Exits non-zero naming the first
// check that failed.
// Usage: node openai_client_test.cjs BASE_URL API_KEY MODEL GENERATE_JSON
//        node openai_client_test.cjs BASE_URL API_KEY MODEL --drain: two long streams; prints "streaming" once both
//        have a first chunk (the caller then sends SIGTERM), and checks that both still finish.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const OpenAI = require('openai');

const [baseUrl, apiKey, model, generateJson] = process.argv.slice(2);
const reference = generateJson === '--drain' ? null : JSON.parse(fs.readFileSync(generateJson, 'utf8'));
const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, maxRetries: 0, timeout: 60000 });
const hello = [{ role: 'user', content: 'Hello there' }];

async function streamed(params, onFirstChunk) {
  const stream = await client.chat.completions.create({ ...params, stream: true,
    stream_options: { include_usage: true } });
  let text = '';
  let finish = null;
  let usage = null;
  let roles = 0;
  const ids = new Set();
  for await (const chunk of stream) {
    if (ids.size === 0 && onFirstChunk) onFirstChunk();
    ids.add(chunk.id);
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.role) roles += 1;
      if (choice.delta.content) text += choice.delta.content;
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  assert.equal(roles, 1, 'the role comes in the first chunk only');
  assert.equal(ids.size, 1, 'every chunk of a stream carries its one id');
  return { text, finish, usage, id: [...ids][0] };
}

async function raw(path, init) {
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  let body = null;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: response.status, body, headers: response.headers, text };
}

const authorized = { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` };

async function main() {
  // Models and health.
  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), [model]);
  assert.equal((await raw('/health', {})).status, 200, 'health probes need no key');

  // Greedy chat: the same text as `modelkit generate` on the same prompt, streamed or not.
  const whole = await client.chat.completions.create({ model, messages: hello, max_tokens: 8, temperature: 0 });
  assert.equal(whole.object, 'chat.completion');
  assert.equal(whole.choices[0].message.role, 'assistant');
  assert.equal(whole.choices[0].message.content, reference.text, 'chat text differs from modelkit generate');
  assert.equal(whole.usage.prompt_tokens, reference.prompt_ids.length);
  assert.equal(whole.usage.completion_tokens, reference.generated_ids.length);
  assert.equal(whole.choices[0].finish_reason, reference.stop_reason === 'eos' ? 'stop' : 'length');
  const stream = await streamed({ model, messages: hello, max_tokens: 8, temperature: 0 });
  assert.equal(stream.text, whole.choices[0].message.content, 'the stream differs from the whole answer');
  assert.equal(stream.finish, whole.choices[0].finish_reason);
  assert.deepEqual(stream.usage, whole.usage);

  // Seeded sampling repeats, streamed or not.
  const sampled = { model, messages: hello, max_tokens: 12, temperature: 0.9, top_p: 0.95, seed: 1234 };
  const sampledWhole = await client.chat.completions.create(sampled);
  const sampledStream = await streamed(sampled);
  assert.equal(sampledStream.text, sampledWhole.choices[0].message.content, 'seeded sampling differs');

  // Completions: the prompt as it is.
  const completion = await client.completions.create({ model, prompt: 'Once upon', max_tokens: 6, temperature: 0 });
  assert.equal(completion.object, 'text_completion');
  let completionStream = '';
  for await (const chunk of await client.completions.create({ model, prompt: 'Once upon', max_tokens: 6,
    temperature: 0, stream: true })) {
    completionStream += chunk.choices[0]?.text ?? '';
  }
  assert.equal(completionStream, completion.choices[0].text);

  // A stop sequence cuts the text before it, streamed or not.
  const text = whole.choices[0].message.content;
  const stop = [...text].slice(2, 3).join('');
  if (stop.trim().length > 0) {
    const expected = text.slice(0, text.indexOf(stop));
    const stopped = await client.chat.completions.create({ model, messages: hello, max_tokens: 8, temperature: 0,
      stop: [stop] });
    assert.equal(stopped.choices[0].message.content, expected);
    assert.equal(stopped.choices[0].finish_reason, 'stop');
    assert.equal((await streamed({ model, messages: hello, max_tokens: 8, temperature: 0, stop: stop })).text,
      expected);
  }

  // Errors: OpenAI-style objects with the status the API uses.
  await assert.rejects(client.chat.completions.create({ model: 'nope', messages: hello }),
    (e) => e.status === 404 && e.code === 'model_not_found');
  await assert.rejects(client.chat.completions.create({ model, messages: hello, temperature: 7 }),
    (e) => e.status === 400 && e.param === 'temperature');
  await assert.rejects(client.chat.completions.create({ model,
    messages: [{ role: 'user', content: 'word '.repeat(1000) }] }),
  (e) => e.status === 400 && e.code === 'context_length_exceeded');
  const malformed = await raw('/v1/chat/completions', { method: 'POST', headers: authorized, body: '{"model":' });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.error.type, 'invalid_request_error');
  const huge = await raw('/v1/completions', { method: 'POST', headers: authorized,
    body: JSON.stringify({ model, prompt: 'x'.repeat(200 * 1024) }) });
  assert.equal(huge.status, 413);
  const anonymous = await raw('/v1/models', {});
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.error.type, 'authentication_error');
  const wrongKey = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: `${apiKey}x`, maxRetries: 0 });
  await assert.rejects(wrongKey.models.list(), (e) => e.status === 401 && e.code === 'invalid_api_key');
  const unknownPath = await raw('/v1/embeddings', { method: 'POST', headers: authorized, body: '{}' });
  assert.equal(unknownPath.status, 404);

  // A client that leaves after the first chunk: its generation stops long before its 400 tokens.
  const beforeLeaving = await metrics();
  const leaving = await client.chat.completions.create({ model, messages: hello, max_tokens: 400, temperature: 0,
    stream: true });
  for await (const chunk of leaving) {  // eslint-disable-line no-unused-vars
    leaving.controller.abort();
    break;
  }
  let afterLeaving = await metrics();
  for (let i = 0; i < 100 && afterLeaving.generations === beforeLeaving.generations; ++i) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    afterLeaving = await metrics();
  }
  assert.equal(afterLeaving.generations - beforeLeaving.generations, 1, 'the abandoned generation did not end');
  const leftTokens = afterLeaving.completion - beforeLeaving.completion;
  assert.ok(leftTokens < 400, `the abandoned stream generated all ${leftTokens} tokens`);

  // Load: 8 streams at once on 2 sessions and a queue of 2. Each completes or is refused with 429 and Retry-After;
  // none is lost, and /metrics counts the same.
  const before = await metrics();
  const outcomes = await Promise.all([...Array(8).keys()].map(async (i) => {
    try {
      const result = await streamed({ model, messages: [{ role: 'user', content: `request ${i}` }], max_tokens: 16,
        temperature: 0 });
      assert.ok(result.finish === 'stop' || result.finish === 'length', `stream ${i} did not finish`);
      assert.equal(result.usage.completion_tokens > 0, true);
      return { id: result.id, text: result.text, i };
    } catch (e) {
      if (e.status === 429) {
        assert.equal(e.headers.get('retry-after'), '1');
        return 'refused';
      }
      throw e;
    }
  }));
  const served = outcomes.filter((o) => o !== 'refused');
  const done = served.length;
  const refused = outcomes.filter((o) => o === 'refused').length;
  assert.equal(new Set(served.map((s) => s.id)).size, done, 'two streams carried the same id');
  // Each stream served under load carries exactly its own greedy answer: nothing mixed between concurrent sessions.
  for (const { text: streamedText, i } of served) {
    const alone = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `request ${i}` }],
      max_tokens: 16, temperature: 0 });
    assert.equal(streamedText, alone.choices[0].message.content, `stream ${i} under load differs from its answer alone`);
  }
  assert.equal(done + refused, 8);
  assert.ok(done >= 4, `only ${done} of 8 streams were served: 2 run and 2 wait at least`);
  const after = await metrics();
  assert.equal(after.ok - before.ok, 2 * done, '/metrics counts the served streams and their answers alone');
  assert.equal(after.refused - before.refused, refused, '/metrics counts the refused streams');
  assert.equal(after.running, 0);
  assert.equal(after.waiting, 0);
  console.log(`ok: ${done} streams served and ${refused} refused of 8; a stream left after its first chunk ` +
    `stopped after ${leftTokens} of 400 tokens`);
}

async function metrics() {
  const { status, text } = await raw('/metrics', { headers: authorized });
  assert.equal(status, 200);
  const sum = (pattern) => text.split('\n').filter((l) => pattern.test(l))
    .reduce((total, l) => total + Number(l.split(' ').pop()), 0);
  return {
    ok: sum(/^modelkit_requests_total\{.*endpoint="chat_completions",status="200"\}/),
    refused: sum(/^modelkit_requests_total\{.*status="429"\}/),
    running: sum(/^modelkit_requests_running\{/),
    completion: sum(/^modelkit_completion_tokens_total\{/),
    generations: sum(/^modelkit_time_to_first_token_seconds_count\{/),
    waiting: sum(/^modelkit_queue_depth\{/),
  };
}

// Two long streams; SIGTERM arrives while they run (sent by the caller on "streaming"): both finish.
async function drain() {
  let started = 0;
  const onFirst = () => {
    started += 1;
    if (started === 2) console.log('streaming');
  };
  const results = await Promise.all([0, 1].map((i) => streamed({ model, messages: [{ role: 'user',
    content: `long ${i}` }], max_tokens: 300, temperature: 0 }, onFirst)));
  for (const result of results) {
    assert.equal(result.finish, 'length', 'a running stream was cut by the shutdown');
    assert.equal(result.usage.completion_tokens, 300);
  }
  console.log('drained: both streams finished');
}

(generateJson === '--drain' ? drain() : main()).catch((error) => {
  console.error(error);
  process.exit(1);
});
