export { type CapturedOutput, type CaptureOptions, OutputCapture } from "./output/capture.js";
export { type BubblewrapOptions, BubblewrapRunner, type SandboxProbe } from "./runners/bubblewrap.js";
export { LocalRunner, type LocalRunnerOptions } from "./runners/local.js";
export type { PidNamespaceProbe } from "./runners/pid-namespace.js";
export {
  type CommandExit,
  type CommandRequest,
  type CommandRunner,
  exitCodeOf,
  type OutputStream,
  type RunningCommand,
} from "./runners/runner.js";
export { type RunnerChoice, type SandboxMode, selectRunner } from "./runners/select.js";
export {
  commandEnv,
  DEFAULT_ALLOWED_ENV,
  type LimitEnforcement,
  type NetworkPolicy,
  type SandboxPolicy,
  type SandboxPolicyInput,
  sandboxPolicy,
  sandboxPolicySchema,
} from "./sandbox/policy.js";
export type { SandboxView } from "./sandbox/view.js";
export { BackgroundCommands, type BackgroundStatus } from "./tools/background.js";
export { type BashDetails, type BashResult, bashInputSchema } from "./tools/bash.js";
export {
  type Admission,
  type CommandArgs,
  ShellEnvironment,
  type ShellToolsOptions,
} from "./tools/environment.js";
export type { CapturedRun, ExitDescription } from "./tools/exit-description.js";
export type { PermissionMode, SandboxPermissions } from "./tools/permission-mode.js";
export type { ShellProgress } from "./tools/progress.js";
export { createShellTools, type ShellPermissionsFact, type ShellTools } from "./tools/shell-tools.js";
