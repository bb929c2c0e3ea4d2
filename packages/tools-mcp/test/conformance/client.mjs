#!/usr/bin/env node
// The client runner for the official MCP conformance suite (@modelcontextprotocol/conformance). It drives
// the built bridge as a user's harness would: connect to the one server at the URL given, discover its
// tools, and call the ones the scenario names (or each one, with arguments made from its input schema),
// answering elicitation by accepting
// (so SEP-1034 defaults are filled in) and offering the current folder as the root.
//   node packages/tools-mcp/test/conformance/client.mjs <server URL>      (after a build, from the repo root)
import { declaredInputSchema, McpServers } from "../../dist/index.js";

const url = process.argv[2];
if (!url) {
  process.stderr.write("usage: client.mjs <server URL>\n");
  process.exit(2);
}

/** A value the schema accepts, for each required property (the suite's tools take numbers or nothing). */
function sampleArguments(schema) {
  const args = {};
  const properties = schema?.properties ?? {};
  for (const name of schema?.required ?? []) {
    const property = properties[name] ?? {};
    if (property.default !== undefined) args[name] = property.default;
    else if (Array.isArray(property.enum)) args[name] = property.enum[0];
    else if (property.type === "number" || property.type === "integer") args[name] = 1;
    else if (property.type === "boolean") args[name] = true;
    else if (property.type === "array") args[name] = [];
    else if (property.type === "object") args[name] = {};
    else args[name] = "conformance";
  }
  return args;
}

/**
 * SEP-1613's round trip (json-schema-2020-12-preservation): the echo tool is handed the input schema the
 * bridge holds for the scenario's other tool, so the suite can see which keywords the bridge kept.
 */
function echoArguments(tool, tools) {
  if (!tool.name.endsWith("_json_schema_echo")) return undefined;
  const focal = tools.find((other) => other.name.endsWith("_json_schema_2020_12_tool"));
  return focal ? { schema: declaredInputSchema(focal) } : undefined;
}

/** Kept in memory: a conformance run must not touch the user's saved sessions. */
const sessions = new Map();
const memoryStore = {
  load: (server, url) => structuredClone(sessions.get(`${server} ${url}`) ?? {}),
  save: (server, url, record) => sessions.set(`${server} ${url}`, structuredClone(record)),
};

/** The suite's authorization servers approve at once: follow the redirect and read the code off it. */
async function authorize(_server, authorizationUrl) {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  const location = response.headers.get("location");
  if (!location) throw new Error(`the authorization server answered ${response.status} without a redirect`);
  const answer = new URL(location, authorizationUrl).searchParams;
  if (!answer.get("code")) throw new Error(`the redirect carried no code: ${location}`);
  // The whole query: its `iss` lets the SDK check which authorization server answered (RFC 9207).
  return answer;
}

/**
 * What the scenario hands over (MCP_CONFORMANCE_CONTEXT): a pre-registered client, or credentials for
 * machine use. Otherwise the user's flow: dynamic registration or a client ID metadata document.
 */
function oauthFor(context) {
  const interactive = {
    authorize,
    redirectUrl: "http://localhost:3000/callback",
    store: memoryStore,
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
  };
  if (context.idp_token_endpoint) {
    return {
      enterprise: {
        clientId: context.client_id,
        clientSecret: context.client_secret,
        idpTokenEndpoint: context.idp_token_endpoint,
        idpClientId: context.idp_client_id,
        idToken: () => context.idp_id_token,
      },
    };
  }
  if (context.valid_jwt) {
    return { workload: { clientId: context.client_id, assertion: () => context.valid_jwt } };
  }
  if (context.private_key_pem) {
    return {
      clientCredentials: {
        clientId: context.client_id,
        privateKey: context.private_key_pem,
        algorithm: context.signing_algorithm ?? "ES256",
      },
    };
  }
  if (context.client_id && /client-credentials/.test(process.env.MCP_CONFORMANCE_SCENARIO ?? "")) {
    return { clientCredentials: { clientId: context.client_id, clientSecret: context.client_secret } };
  }
  if (context.client_id) {
    return { ...interactive, client: { clientId: context.client_id, clientSecret: context.client_secret } };
  }
  return interactive;
}
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");

const mcp = new McpServers(
  { mcpServers: { conformance: { type: "http", url } } },
  {
    clientName: "bridle-conformance",
    clientVersion: "0.1.0",
    connectTimeoutMs: 20_000,
    callTimeoutMs: 20_000,
    resources: false,
    onElicitation: async () => ({ action: "accept", content: {} }),
    oauth: oauthFor(context),
    onWarning: (warning) => process.stderr.write(`warning: ${warning.message}\n`),
  },
);
let failed = false;
try {
  const { tools, failures } = await mcp.discover();
  for (const failure of failures) {
    failed = true;
    process.stderr.write(`${failure.server}: ${failure.message}\n`);
  }
  // The calls the scenario asks for (MCP_CONFORMANCE_CONTEXT's toolCalls), with its arguments; otherwise
  // every tool once, with arguments made from its schema. A planned call that fails fails the run; an
  // exploratory one is reported and the run goes on, as an agent's would (the suite's checks judge the wire).
  const planned = Array.isArray(context.toolCalls) ? context.toolCalls : undefined;
  const calls = planned
    ? planned.map((call) => ({
        tool: tools.find(
          (tool) => tool.name === `mcp_conformance_${call.name.replace(/[^A-Za-z0-9_-]/g, "_")}`,
        ),
        name: call.name,
        args: call.arguments ?? {},
      }))
    : tools.map((tool) => ({
        tool,
        name: tool.name,
        args: echoArguments(tool, tools) ?? sampleArguments(tool.inputSchema.meta?.() ?? {}),
      }));
  for (const { tool, name, args } of calls) {
    if (!tool) {
      failed = true;
      process.stderr.write(`the scenario asked for the tool ${name}, which the bridge does not offer\n`);
      continue;
    }
    const controller = new AbortController();
    try {
      const output = await tool.execute(args, {
        signal: controller.signal,
        workspace: undefined,
        runId: "conformance",
        toolCallId: tool.name,
        progress: () => {},
      });
      process.stdout.write(`${tool.name}: ${JSON.stringify(output.content).slice(0, 500)}\n`);
    } catch (error) {
      if (planned) failed = true;
      process.stderr.write(
        `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
} finally {
  await mcp.close();
}
process.exit(failed ? 1 : 0);
