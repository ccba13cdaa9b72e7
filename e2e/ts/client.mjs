// End-to-end check of the provenant MCP server with the official
// TypeScript MCP SDK client: a client nobody on this project wrote.
//
//   node client.mjs stdio <provenant-binary> <transcript-file>
//   node client.mjs http  <http://127.0.0.1:PORT/mcp> <transcript-file>
//
// It lists tools, calls three of them, follows a provenance pointer to the
// event resource, gets a prompt and checks that an injected argument is a
// typed rejection. Every check that fails exits 1 with a message saying
// what was expected; on success it writes a readable transcript of part of
// the session (tool list, one call, one resource read, the rejection) to
// the transcript file. Driven by e2e/e2e_test.go.

import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const AS_OF = '2026-01-06T08:00:00Z';
const INJECTED = "st-003' OR '1'='1";
const REQUEST_TIMEOUT_MS = 15_000; // per request
const WATCHDOG_MS = 90_000; // the whole session

const usage = 'usage: node client.mjs stdio <provenant-binary> <transcript-file>\n' +
  '       node client.mjs http <http://127.0.0.1:PORT/mcp> <transcript-file>';

class CheckError extends Error {}

// check fails the run with a message naming what was expected, and the
// offending value when there is one.
function check(ok, what, got) {
  if (!ok) {
    const detail = got === undefined ? '' : `\n  got: ${JSON.stringify(got)}`;
    throw new CheckError(`check failed: ${what}${detail}`);
  }
}

// Tap records every JSON-RPC message the client sends and receives, so the
// transcript shows the wire format rather than the SDK's objects.
class Tap {
  constructor(inner) {
    this.inner = inner;
    this.log = []; // {dir: '->' | '<-', msg}
    inner.onmessage = (msg, extra) => {
      this.log.push({ dir: '<-', msg });
      this.onmessage?.(msg, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (err) => this.onerror?.(err);
    if (typeof inner.setProtocolVersion === 'function') {
      this.setProtocolVersion = (v) => inner.setProtocolVersion(v);
    }
  }
  get sessionId() { return this.inner.sessionId; }
  start() { return this.inner.start(); }
  send(msg, opts) {
    this.log.push({ dir: '->', msg });
    return this.inner.send(msg, opts);
  }
  close() { return this.inner.close(); }

  // exchange returns the request with the given method whose arguments
  // satisfy match, and the response to it.
  exchange(method, match = () => true) {
    const req = this.log.find((e) => e.dir === '->' && e.msg.method === method && match(e.msg.params));
    check(req !== undefined, `the transcript has a ${method} request`);
    const res = this.log.find((e) => e.dir === '<-' && e.msg.id === req.msg.id && !('method' in e.msg));
    check(res !== undefined, `the transcript has the response to ${method} (id ${req.msg.id})`);
    return [req.msg, res.msg];
  }
}

function sdkVersion() {
  const url = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

function structured(res, what) {
  check(res.structuredContent && typeof res.structuredContent === 'object',
    `${what}: the result carries structuredContent (the answer object)`, res);
  return res.structuredContent;
}

function answered(res, what, toolName) {
  const a = structured(res, what);
  check(a.outcome === 'answered', `${what}: outcome "answered"`, a);
  check(res.isError !== true, `${what}: isError is not set on an answer`, res.isError);
  check(a.tool === toolName, `${what}: tool "${toolName}"`, a.tool);
  check(Array.isArray(a.provenance?.event_ids) && a.provenance.event_ids.length > 0,
    `${what}: provenance lists event ids`, a.provenance);
  check(a.verdict?.provenance_valid === true && a.verdict?.value_matches === true && a.verdict?.complete === true,
    `${what}: every verdict clause holds`, a.verdict);
  check(Array.isArray(a.result_ids) && a.result_ids.length > 0, `${what}: result ids to cite`, a.result_ids);
  const text = res.content?.find((c) => c.type === 'text')?.text;
  check(typeof text === 'string' && text.length > 0, `${what}: a human-readable text content`, res.content);
  return a;
}

async function session(client, tap) {
  const server = client.getServerVersion();
  check(server?.name === 'provenant', 'the server names itself provenant', server);

  // Tools: the six of the closed menu plus ask, annotated truthfully.
  const { tools } = await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
  check(tools.length === 9, 'tools/list returns 9 tools (the 6 menu tools, query_metric, ask and check_grounding)', tools.map((t) => t.name));
  for (const t of tools) {
    check(t.annotations?.readOnlyHint === true, `tool ${t.name}: annotations.readOnlyHint is true`, t.annotations);
    check(t.annotations?.idempotentHint === true, `tool ${t.name}: annotations.idempotentHint is true`, t.annotations);
    check(t.annotations?.openWorldHint === false, `tool ${t.name}: annotations.openWorldHint is false`, t.annotations);
    check(t.inputSchema?.type === 'object', `tool ${t.name}: an object input schema`, t.inputSchema);
  }
  for (const name of ['get_price', 'count_stores_with_condition', 'ask']) {
    check(tools.some((t) => t.name === name), `tools/list offers ${name}`, tools.map((t) => t.name));
  }

  // Three calls.
  const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
  const priceArgs = { store_id: 'st-003', product_id: 'pr-007', as_of: AS_OF };
  const price = answered(await call('get_price', priceArgs), 'get_price st-003/pr-007', 'get_price');
  check(price.value === 781, 'get_price st-003/pr-007: value 781 (cents)', price.value);

  const oos = answered(await call('count_stores_with_condition', { condition: 'OUT_OF_STOCK', as_of: AS_OF }),
    'count_stores_with_condition OUT_OF_STOCK', 'count_stores_with_condition');
  check(Number.isInteger(oos.value?.count) && Array.isArray(oos.value?.store_ids) && oos.value.count === oos.value.store_ids.length,
    'count_stores_with_condition: value {count, store_ids} with count = number of store ids', oos.value);

  const question = `Which products are in state LOW_STOCK at st-003 as of ${AS_OF}?`;
  const low = answered(await call('ask', { question }), 'ask (LOW_STOCK at st-003)', 'list_products_in_state');
  check(JSON.stringify(low.value?.product_ids) === JSON.stringify(['pr-021', 'pr-024']),
    'ask (LOW_STOCK at st-003): products pr-021, pr-024', low.value);

  // Follow the provenance pointer of the price to the scan behind it.
  const templates = await client.listResourceTemplates(undefined, { timeout: REQUEST_TIMEOUT_MS });
  check(templates.resourceTemplates.some((t) => t.uriTemplate === 'provenant://events/{event_id}'),
    'resources/templates/list offers provenant://events/{event_id}', templates.resourceTemplates);
  const eventID = price.provenance.event_ids[0];
  const uri = `provenant://events/${eventID}`;
  const read = await client.readResource({ uri }, { timeout: REQUEST_TIMEOUT_MS });
  check(read.contents?.length === 1 && typeof read.contents[0].text === 'string',
    `${uri}: one text content`, read.contents);
  check(read.contents[0].mimeType === 'application/json', `${uri}: MIME type application/json`, read.contents[0].mimeType);
  let env;
  try {
    env = JSON.parse(read.contents[0].text);
  } catch (err) {
    check(false, `${uri}: the content is JSON (${err.message})`, read.contents[0].text);
  }
  check(env.tainted === true && env.kind === 'data', `${uri}: an envelope marked tainted, kind data`, env);
  check(env.data?.event_id === eventID, `${uri}: the envelope holds event ${eventID}`, env.data);
  check(env.data?.store_id === 'st-003' && env.data?.product_id === 'pr-007',
    `${uri}: the event is a scan of pr-007 at st-003`, env.data);
  check(env.data?.price_cents === 781, `${uri}: price_cents 781, the value the tool returned`, env.data);
  check(env.data?.timestamp <= AS_OF, `${uri}: the scan is at or before as_of`, env.data);

  // A prompt that tells the client to cite result ids.
  const { prompts } = await client.listPrompts(undefined, { timeout: REQUEST_TIMEOUT_MS });
  for (const name of ['investigate_condition', 'shift_handover']) {
    check(prompts.some((p) => p.name === name), `prompts/list offers ${name}`, prompts.map((p) => p.name));
  }
  const prompt = await client.getPrompt({ name: 'investigate_condition', arguments: { condition: 'OUT_OF_STOCK', as_of: AS_OF } },
    { timeout: REQUEST_TIMEOUT_MS });
  const ptext = prompt.messages?.[0]?.content?.text;
  check(typeof ptext === 'string', 'investigate_condition: a text message', prompt.messages);
  check(/cite the result id/i.test(ptext), 'investigate_condition: the text asks to cite result ids', ptext);
  check(ptext.includes('count_stores_with_condition') && ptext.includes(AS_OF),
    'investigate_condition: the text names the tool and the instant', ptext);

  // An injected argument is a typed rejection that does not repeat it.
  const rej = await call('get_price', { store_id: INJECTED, product_id: 'pr-007', as_of: AS_OF });
  const r = structured(rej, 'get_price with an injected store_id');
  check(r.outcome === 'rejected', 'get_price with an injected store_id: outcome "rejected"', r);
  check(typeof r.reason === 'string' && r.reason.startsWith('raw_query'),
    'get_price with an injected store_id: reason starts with raw_query', r.reason);
  check(rej.isError === true, 'get_price with an injected store_id: isError is true', rej.isError);
  const whole = JSON.stringify(rej);
  for (const fragment of [INJECTED, "'1'='1", "OR '1'"]) {
    check(!whole.includes(fragment), `get_price with an injected store_id: the result does not contain ${JSON.stringify(fragment)}`, rej);
  }

  return { tools, eventID, server };
}

function transcript(mode, target, tap, { tools, eventID, server }) {
  // Requests on one line, responses indented.
  const json = (m) => JSON.stringify(m, null, 2);
  const line = (m) => JSON.stringify(m);
  const [, init] = tap.exchange('initialize');
  const [priceReq, priceRes] = tap.exchange('tools/call',
    (p) => p.name === 'get_price' && p.arguments?.store_id === 'st-003');
  const [readReq, readRes] = tap.exchange('resources/read', (p) => p.uri === `provenant://events/${eventID}`);
  const [rejReq, rejRes] = tap.exchange('tools/call', (p) => p.name === 'get_price' && p.arguments?.store_id === INJECTED);
  const lines = [
    `# provenant over MCP (${mode === 'stdio' ? 'stdio: provenant mcp --log-level error' : 'streamable HTTP: provenant serve, POST /mcp'}),`,
    `# driven by the official TypeScript SDK client (@modelcontextprotocol/sdk ${sdkVersion()}).`,
    '# Produced by e2e/ts/client.mjs via `go test ./e2e -update`; "->" is sent by the client, "<-" received.',
    '',
    `## initialize: protocol ${init.result?.protocolVersion}, server ${server.name} ${server.version}`,
    '',
    `## tools/list: ${tools.length} tools`,
    ...tools.map((t) => `${t.name}  ${JSON.stringify(t.annotations)}`),
    '',
    '## tools/call get_price',
    `-> ${line(priceReq)}`,
    `<- ${json(priceRes)}`,
    '',
    '## resources/read: the provenance pointer of that answer',
    `-> ${line(readReq)}`,
    `<- ${json(readRes)}`,
    '',
    '## tools/call get_price with an injected store_id: a typed rejection that does not repeat it',
    `-> ${line(rejReq)}`,
    `<- ${json(rejRes)}`,
    '',
  ];
  return lines.join('\n');
}

async function main(argv) {
  const [mode, target, out] = argv;
  if (argv.length !== 3 || !['stdio', 'http'].includes(mode)) {
    console.error(usage);
    return 2;
  }
  let inner;
  if (mode === 'stdio') {
    inner = new StdioClientTransport({ command: target, args: ['mcp', '--log-level', 'error'], stderr: 'inherit' });
  } else {
    inner = new StreamableHTTPClientTransport(new URL(target));
  }
  const tap = new Tap(inner);
  const client = new Client({ name: 'provenant-e2e', version: '1.0.0' });
  try {
    await client.connect(tap, { timeout: REQUEST_TIMEOUT_MS });
    const got = await session(client, tap);
    writeFileSync(out, transcript(mode, target, tap, got));
  } finally {
    await client.close().catch(() => {});
  }
  console.log(`e2e ${mode}: all checks passed (${tap.log.length} messages); transcript in ${out}`);
  return 0;
}

const watchdog = setTimeout(() => {
  console.error(`e2e: no result after ${WATCHDOG_MS / 1000}s; giving up`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    console.error(err instanceof CheckError ? `e2e: ${err.message}` : `e2e: ${err?.stack ?? err}`);
    if (err?.cause) console.error(`  cause: ${err.cause}`);
    process.exitCode = 1;
  },
);
