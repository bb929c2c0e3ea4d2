/** A failure of the eval command itself (bad task, bad flag, unreadable results), with a stable code. */
export class BridleEvalError extends Error {
  readonly code: "InvalidTask" | "NotFound" | "InvalidArgs" | "InvalidResults" | "CheckFailed";
  readonly exitCode: number;

  constructor(code: BridleEvalError["code"], message: string, exitCode = 2) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
  }
}
