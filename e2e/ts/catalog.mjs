// End-to-end check of a catalog engine (provenant serve --catalog
// warehouse) with the official TypeScript MCP SDK client, over
// streamable HTTP:
//
//   node catalog.mjs <http://127.0.0.1:PORT/mcp>
//
// It checks that the tool list and its schemas come from the warehouse
// catalog, that answers name their data version and verify, that an answer
// behind more events than it lists pages through the rest with the rows
// resource (same count and digest), that the event and dataset resources
// and the catalog's prompt work, that ask routes a warehouse question,
// and that an injected zone id is a typed rejection that does not repeat
// it. Every failed check exits 1 naming what was expected. Driven by
// e2e/e2e_test.go (TestTypeScriptClient_Catalog).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const REQUEST_TIMEOUT_MS = 15_000;
const WATCHDOG_MS = 90_000;
const INJECTED = "zone-02' OR '1'='1";

class CheckError extends Error {}

function check(ok, what, got) {
  if (!ok) {
    const detail = got === undefined ? '' : `\n  got: ${JSON.stringify(got)?.slice(0, 600)}`;
    throw new CheckError(`check failed: ${what}${detail}`);
  }
}

function verified(res, what, toolName) {
  const a = res.structuredContent;
  check(a && typeof a === 'object', `${what}: structuredContent is the answer object`, res);
  check(['answered', 'absence'].includes(a.outcome), `${what}: answered or a grounded zero`, a);
  check(a.tool === toolName, `${what}: tool ${toolName}`, a.tool);
  check(a.verdict?.provenance_valid && a.verdict?.value_matches && a.verdict?.complete, `${what}: every verdict clause holds`, a.verdict);
  check(typeof a.data_version === 'string' && a.data_version.startsWith('seq:'), `${what}: names its data version`, a.data_version);
  return a;
}

async function session(client) {
  const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });

  const { tools } = await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
  const names = tools.map((t) => t.name).sort();
  const want = ['ask', 'check_grounding', 'count_devices_with_condition', 'count_status_events_in_window', 'get_battery_level',
    'get_device_status', 'get_temperature', 'list_devices_in_status', 'query_metric'];
  check(JSON.stringify(names) === JSON.stringify(want), 'tools/list offers the warehouse catalog\'s tools, query_metric, ask and check_grounding', names);
  const status = tools.find((t) => t.name === 'get_device_status');
  check(status.inputSchema?.properties?.device_id?.pattern === '^dev-[0-9]{4}$',
    'get_device_status: device_id has the catalog\'s pattern', status.inputSchema);
  const ask = tools.find((t) => t.name === 'ask');
  check(ask.description.includes('the warehouse equipment telemetry'), 'ask names the catalog\'s data', ask.description);

  const count = verified(await call('count_devices_with_condition', { condition: 'NEEDS_ATTENTION', as_of: '2026-01-08T12:00:00Z' }),
    'count_devices_with_condition', 'count_devices_with_condition');
  check(Number.isInteger(count.value?.count) && count.value.count === count.value.device_ids?.length,
    'count_devices_with_condition: {count, device_ids}', count.value);

  // A governed metric, with structured arguments (an array and objects).
  const metric = verified(await call('query_metric', {
    metric: 'availability', dimensions: ['zone'],
    filters: [{ dimension: 'device_type', op: 'eq', values: ['AGV'] }],
    order: { by: 'value', desc: true }, limit: 3,
    start: '2026-01-05T00:00:00Z', end: '2026-01-08T00:00:00Z',
  }), 'query_metric', 'query_metric');
  const rows = metric.value?.rows ?? [];
  check(rows.length === 3 && rows.every((r) => typeof r[0] === 'string' && r[1] >= 0 && r[1] <= 1),
    'query_metric: three zones, each a share', metric.value);
  check(rows[0][1] >= rows[1][1] && rows[1][1] >= rows[2][1], 'query_metric: ordered by value, descending', rows);
  const bad = (await call('query_metric', { metric: 'availability', dimensions: ['zone'], filters: [{ dimension: 'zone', op: 'eq', values: ['zone-99x'] }],
    start: '2026-01-05T00:00:00Z', end: '2026-01-08T00:00:00Z' })).structuredContent;
  check(bad?.outcome === 'rejected' && !JSON.stringify(bad).includes('zone-99x'), 'query_metric: a filter value outside the dimension is rejected, not echoed', bad);

  // An answer behind more events than it lists, paged through.
  const win = verified(await call('count_status_events_in_window',
    { zone_id: 'zone-02', status: 'RUNNING', start: '2026-01-05T00:00:00Z', end: '2026-01-12T00:00:00Z' }),
  'count_status_events_in_window (a week)', 'count_status_events_in_window');
  const p = win.provenance;
  check(p.event_count > p.event_ids.length && p.event_ids.length === 1000 && /^[0-9a-f]{64}$/.test(p.event_digest),
    'a large window lists 1,000 ids with the count and digest of them all', { count: p.event_count, listed: p.event_ids.length });
  const templates = await client.listResourceTemplates(undefined, { timeout: REQUEST_TIMEOUT_MS });
  check(templates.resourceTemplates.some((t) => t.uriTemplate === 'provenant://results/{result_id}/rows{?page}'),
    'resources/templates/list offers the rows resource', templates.resourceTemplates);
  const seen = [];
  for (let page = 1; ; page++) {
    const uri = `provenant://results/${win.result_ids[0]}/rows?page=${page}`;
    const read = await client.readResource({ uri }, { timeout: REQUEST_TIMEOUT_MS });
    const env = JSON.parse(read.contents[0].text);
    check(env.tainted === true, `${uri}: a tainted envelope`, env);
    check(env.data.event_count === p.event_count && env.data.event_digest === p.event_digest,
      `${uri}: the answer's count and digest`, env.data);
    seen.push(...env.data.event_ids);
    if (page === env.data.pages) break;
  }
  check(seen.length === p.event_count && JSON.stringify(seen.slice(0, 1000)) === JSON.stringify(p.event_ids),
    'the pages hold every id, the listed ones first', seen.length);

  // The row behind a provenance pointer, and the data summary.
  const ev = await client.readResource({ uri: `provenant://events/${p.event_ids[0]}` }, { timeout: REQUEST_TIMEOUT_MS });
  const row = JSON.parse(ev.contents[0].text);
  check(row.tainted === true && row.data?.event_id === p.event_ids[0] && row.data?.zone_id === 'zone-02' && row.data?.status === 'RUNNING',
    'the event resource holds the row behind the pointer', row);
  const ds = JSON.parse((await client.readResource({ uri: 'provenant://dataset' }, { timeout: REQUEST_TIMEOUT_MS })).contents[0].text);
  check(ds.data?.catalog === 'warehouse' && ds.data?.datasets?.[0]?.name === 'status_events' && ds.data.datasets[0].rows > 0,
    'the dataset resource summarises the catalog\'s data', ds);

  // The catalog's prompt, rendered with its arguments checked.
  const { prompts } = await client.listPrompts(undefined, { timeout: REQUEST_TIMEOUT_MS });
  check(prompts.some((x) => x.name === 'zone_fault_review'), 'prompts/list offers the catalog\'s prompt', prompts);
  const got = await client.getPrompt({ name: 'zone_fault_review', arguments: { zone_id: 'zone-02', start: '2026-01-05T06:00:00Z', end: '2026-01-05T14:00:00Z' } },
    { timeout: REQUEST_TIMEOUT_MS });
  check(got.messages[0].content.text.startsWith('Review zone zone-02 for the shift [2026-01-05T06:00:00Z, 2026-01-05T14:00:00Z).'),
    'the prompt renders its arguments', got);
  let refused = null;
  try {
    await client.getPrompt({ name: 'zone_fault_review', arguments: { zone_id: INJECTED, start: '2026-01-05T06:00:00Z', end: '2026-01-05T14:00:00Z' } },
      { timeout: REQUEST_TIMEOUT_MS });
  } catch (err) {
    refused = err;
  }
  check(refused !== null && !String(refused.message).includes("OR '1'"), 'an injected prompt argument is refused without being repeated', String(refused));

  const q = 'Which devices are in status RUNNING in zone-02 as of 2026-01-08T12:00:00Z?';
  verified(await call('ask', { question: q }), 'ask (RUNNING in zone-02)', 'list_devices_in_status');

  const rej = await call('count_status_events_in_window', { zone_id: INJECTED, status: 'FAULT', start: '2026-01-05T00:00:00Z', end: '2026-01-06T00:00:00Z' });
  const r = rej.structuredContent;
  check(rej.isError === true && r?.outcome === 'rejected' && r.reason?.startsWith('raw_query'),
    'an injected zone id is a raw_query rejection', r);
  check(!JSON.stringify(rej).includes("OR '1'"), 'the rejection does not repeat the injected value', rej);
}

async function main(argv) {
  if (argv.length !== 1) {
    console.error('usage: node catalog.mjs <http://127.0.0.1:PORT/mcp>');
    return 2;
  }
  const client = new Client({ name: 'provenant-e2e-catalog', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(argv[0])), { timeout: REQUEST_TIMEOUT_MS });
    await session(client);
  } finally {
    await client.close().catch(() => {});
  }
  console.log('e2e catalog: all checks passed');
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
    process.exitCode = 1;
  },
);
