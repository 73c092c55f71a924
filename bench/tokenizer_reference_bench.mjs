// Encode throughput of the JS reference (@lenml/tokenizers) on a text file, line by line, for
// tokenizer_encode_bench. Usage: node tokenizer_reference_bench.mjs <node_modules> <tokenizer dir> <text file> <reps>
// Prints one JSON object: load_ms, best encode seconds, bytes, tokens.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modulesDir, tokenizerDir, textPath, repsArg] = process.argv.slice(2);
const { TokenizerLoader } = await import(pathToFileURL(join(modulesDir, "@lenml/tokenizers/dist/main.mjs")).href);
const loadStart = performance.now();
const tokenizer = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(readFileSync(join(tokenizerDir, "tokenizer.json"), "utf8")),
  tokenizerConfig: JSON.parse(readFileSync(join(tokenizerDir, "tokenizer_config.json"), "utf8")),
});
const loadMs = performance.now() - loadStart;
const text = readFileSync(textPath, "utf8");
const lines = text.split("\n");
let best = Infinity;
let tokens = 0;
for (let rep = 0; rep < Number(repsArg || 3); ++rep) {
  const start = performance.now();
  tokens = 0;
  for (const line of lines) tokens += tokenizer.encode(line, { add_special_tokens: false }).length;
  best = Math.min(best, (performance.now() - start) / 1000);
}
console.log(JSON.stringify({ load_ms: loadMs, seconds: best, bytes: Buffer.byteLength(text, "utf8"), tokens }));
