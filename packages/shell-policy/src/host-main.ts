// The policy process (see isolation.ts): started by a PolicyHost with --liftoff-only, it judges the
// commands its parent sends and exits when the parent goes away.
import { Workspace } from "@bridle/core";
import { CommandPolicy } from "./check.js";
import type { HostReply, HostRequest } from "./host-protocol.js";

const policies = new Map<string, CommandPolicy>();

function policyFor(options: HostRequest["options"]): CommandPolicy {
  const key = JSON.stringify(options);
  let policy = policies.get(key);
  if (!policy) {
    // A parent with many configurations should not grow this map without bound.
    if (policies.size >= 16) policies.clear();
    policy = new CommandPolicy({ ...options, isolation: "inline" });
    policies.set(key, policy);
  }
  return policy;
}

async function answer(request: HostRequest): Promise<HostReply> {
  try {
    const workspace = new Workspace({ roots: [...request.roots], allowSecrets: request.allowSecrets });
    const result = await policyFor(request.options).check(request.command, workspace, request.cwd);
    return { id: request.id, result };
  } catch (error) {
    return { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
}

process.on("message", (message: HostRequest) => {
  void answer(message).then((reply) => process.send?.(reply));
});
process.on("disconnect", () => process.exit(0));
