// What a durable run keeps in Postgres and later acts on (its request, each step's checkpoint, the calls
// it waits on, a person's decision) is kept as JSON text with an HMAC over exactly that text, made with
// the approval secret, which the database does not hold. Whoever can write the database can stop a run,
// but cannot make a worker execute, or a person see, anything the run did not record itself.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { BridleError } from "@bridle/core";

/** A value as stored: its JSON text, and the seal over that text and what it is (`scope`). */
export interface Sealed {
  readonly body: string;
  readonly seal: string;
}

const PREFIX = "hmac-sha256:";

export class RunSeal {
  readonly #secret: string;

  constructor(secret: string) {
    if (secret.length < 32) {
      throw new BridleError("approval_secret_invalid", "a durable run's secret needs at least 32 characters");
    }
    this.#secret = secret;
  }

  /**
   * Seals `value` for `scope` (what it is and where it belongs: a run, a step's place in it), so a sealed
   * value moved to another run or step is refused like an edited one.
   */
  seal(scope: string, value: unknown): Sealed {
    const body = JSON.stringify(value ?? null);
    return { body, seal: this.#mac(scope, body) };
  }

  /** The value `sealed` holds, or `envelope_tampered` naming `what` when it is not what was sealed. */
  open<T>(scope: string, sealed: unknown, what: string): T {
    if (!isSealed(sealed) || !this.#matches(scope, sealed)) {
      throw new BridleError(
        "envelope_tampered",
        `refused: ${what} was changed in the database after it was recorded (its seal does not match), or was sealed with another approval secret (every process of one database needs the same); nothing of it was executed`,
      );
    }
    return JSON.parse(sealed.body) as T;
  }

  #matches(scope: string, sealed: Sealed): boolean {
    const expected = Buffer.from(this.#mac(scope, sealed.body));
    const given = Buffer.from(sealed.seal);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  #mac(scope: string, body: string): string {
    // The scope's length first: no scope and body pair can be read as another.
    return `${PREFIX}${createHmac("sha256", this.#secret).update(`${scope.length}:${scope}\n${body}`).digest("hex")}`;
  }
}

export function isSealed(value: unknown): value is Sealed {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Sealed).body === "string" &&
    typeof (value as Sealed).seal === "string"
  );
}

/** The digest a decision names the call's arguments by: the person approved exactly these bytes. */
export function argsDigest(argsJson: string): string {
  return `sha256:${createHash("sha256").update(argsJson).digest("hex")}`;
}
