#!/usr/bin/env node
/**
 * A tiny MCP server over stdio (one JSON-RPC message a line), for the recordings: an incident
 * team's tools, as a real server would offer them to OpenCode — seven tools with input schemas,
 * a line of instructions, answers from a fixed table. No dependencies, no state, no network.
 */
import { createInterface } from 'node:readline';

const TOOLS = [
  {
    name: 'pd_hot_regions',
    description: 'List the hottest read or write regions PD reports for a TiDB cluster, with their leader store.',
    inputSchema: {
      type: 'object',
      properties: {
        cluster: { type: 'string', description: 'The cluster name, e.g. prod-pay-tidb-hz1' },
        kind: { type: 'string', enum: ['read', 'write'], description: 'Which flow to rank by' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'How many regions to list' },
      },
      required: ['cluster', 'kind'],
    },
  },
  {
    name: 'tikv_store_status',
    description: 'The state, capacity, leader and region counts of every TiKV store of a cluster.',
    inputSchema: {
      type: 'object',
      properties: { cluster: { type: 'string', description: 'The cluster name' } },
      required: ['cluster'],
    },
  },
  {
    name: 'slow_query_digest',
    description: 'Group the slow-query log of a TiDB cluster by statement digest over a time range.',
    inputSchema: {
      type: 'object',
      properties: {
        cluster: { type: 'string' },
        from: { type: 'string', description: 'Start of the range (ISO 8601)' },
        to: { type: 'string', description: 'End of the range (ISO 8601)' },
        top: { type: 'integer', minimum: 1, maximum: 100 },
      },
      required: ['cluster', 'from', 'to'],
    },
  },
  {
    name: 'alert_timeline',
    description: 'The alerts that fired for a cluster in a time range, in the order they fired.',
    inputSchema: {
      type: 'object',
      properties: { cluster: { type: 'string' }, since: { type: 'string', description: 'ISO 8601' } },
      required: ['cluster'],
    },
  },
  {
    name: 'grafana_panel',
    description: 'Render a Grafana panel of the cluster dashboard as a table of values.',
    inputSchema: {
      type: 'object',
      properties: {
        dashboard: { type: 'string' },
        panel: { type: 'string', description: 'The panel title' },
        range: { type: 'string', description: 'A Grafana time range such as now-6h' },
      },
      required: ['dashboard', 'panel'],
    },
  },
  {
    name: 'cluster_topology',
    description: 'The components of a cluster (PD, TiDB, TiKV, TiFlash) with hosts, versions and zones.',
    inputSchema: { type: 'object', properties: { cluster: { type: 'string' } }, required: ['cluster'] },
  },
  {
    name: 'runbook_search',
    description: "Search the team's runbooks for a symptom and return the best matching sections.",
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 10 } },
      required: ['query'],
    },
  },
];

const ANSWERS = {
  pd_hot_regions:
    'region 7741 leader store 4 read 182 MB/s\nregion 7742 leader store 4 read 97 MB/s\nregion 9120 leader store 2 read 12 MB/s',
  tikv_store_status: 'store 1 Up\nstore 2 Up\nstore 3 Up\nstore 4 Up (busy: 92 % gRPC)\nstore 5 Up\nstore 6 Up',
};

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = message;
  if (id === undefined) return; // a notification
  if (method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'incident-tools', version: '1.0.0' },
        instructions: 'Incident tools for TiDB clusters: prefer them to reading raw evidence when both can answer.',
      },
    });
  } else if (method === 'tools/list') {
    send({ jsonrpc: '2.0', id, result: { tools: TOOLS } });
  } else if (method === 'tools/call') {
    const text = ANSWERS[params?.name] ?? `${params?.name}: no data for this cluster`;
    send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
  } else if (method === 'ping') {
    send({ jsonrpc: '2.0', id, result: {} });
  } else {
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: `no method ${method}` } });
  }
});
