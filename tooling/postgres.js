// Starts a throwaway Postgres on loopback for tests and benchmarks (vitest globalSetup `setup`, once per run;
// or `startLocalPostgres` for a test file of its own), from Debian's binaries (/usr/lib/postgresql/<version>/bin, or initdb and pg_ctl on PATH). Postgres refuses
// to run as root, so under root the server runs as the `postgres` user. With BRIDLE_DATABASE_URL set, that
// server is used instead and nothing is started. Without either, the tests skip and say why.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/** The variable the test files read: a connection string, or empty with the reason in SKIP_VARIABLE. */
export const URL_VARIABLE = "BRIDLE_TEST_DATABASE_URL";
export const SKIP_VARIABLE = "BRIDLE_TEST_DATABASE_SKIP";

function findBinDir() {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(join(root, name, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], "bin");
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** @param {string} name @param {"-u" | "-g"} [flag] */
function userId(name, flag = "-u") {
  try {
    return Number(execFileSync("id", [flag, name], { encoding: "utf8" }).trim());
  } catch {
    return undefined;
  }
}

/** A fresh cluster in a temp dir on a free loopback port; undefined plus the reason when it cannot start. */
export async function startLocalPostgres() {
  const bin = findBinDir();
  if (!bin)
    return { skip: "no Postgres server binaries (apt-get install postgresql) and no BRIDLE_DATABASE_URL" };
  const root = process.getuid?.() === 0;
  const postgresUid = root ? userId("postgres") : undefined;
  if (root && postgresUid === undefined) {
    return { skip: "running as root without a `postgres` user to run the server as" };
  }
  const dir = mkdtempSync(join(tmpdir(), "bridle-pg-"));
  if (root && postgresUid !== undefined) chownSync(dir, postgresUid, userId("postgres", "-g") ?? 0);
  /** @param {string} program @param {string[]} args */
  const run = (program, args) => {
    const command = root ? "runuser" : join(bin, program);
    const argv = root ? ["-u", "postgres", "--", join(bin, program), ...args] : args;
    execFileSync(command, argv, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  };
  const data = join(dir, "data");
  const port = await freePort();
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"]);
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=200`;
    run("pg_ctl", ["start", "-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", "-o", options]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = error?.stderr?.toString().trim() ?? String(error);
    return { skip: `could not start Postgres from ${bin}: ${stderr.slice(-500)}` };
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** BRIDLE_DATABASE_URL's server, else a local one started for the caller (stop it after), else why not. */
export async function testPostgres() {
  const given = process.env.BRIDLE_DATABASE_URL;
  if (given) return { url: given, skip: "", stop() {} };
  const started = await startLocalPostgres();
  if ("skip" in started) return { url: "", skip: started.skip, stop() {} };
  return { url: started.url, skip: "", stop: () => started.stop() };
}

export async function setup() {
  const database = await testPostgres();
  if (database.skip) process.env[SKIP_VARIABLE] = database.skip;
  else process.env[URL_VARIABLE] = database.url;
  return () => database.stop();
}
