// Entry point of `bridle-eval`. The commands are filled in by the eval runner.
import packageJson from "../package.json" with { type: "json" };

const argv = process.argv.slice(2);
if (argv[0] === "--version" || argv[0] === "-v") {
  process.stdout.write(`bridle-eval ${packageJson.version}\n`);
} else {
  process.stderr.write("bridle-eval: usage: bridle-eval run PATH...\n");
  process.exitCode = 2;
}
