// Reference encodings from @lenml/tokenizers (a JS port of Hugging Face's tokenizers, via transformers.js), which
// the C++ tests compare against. Usage:
//   node reference_encode.mjs <node_modules dir> <tokenizer dir with tokenizer.json> <corpus.json> <out.json>
// corpus.json is a JSON array of strings. out.json gets, for each string, in order:
//   {"ids": encode(add_special_tokens=false), "ids_special": encode(add_special_tokens=true),
//    "decoded": decode(ids) with the tokenizer_config defaults, "decoded_skip": decode(ids_special, skip_special_tokens)}
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modulesDir, tokenizerDir, corpusPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node reference_encode.mjs <node_modules> <tokenizer dir> <corpus.json> <out.json>");
  process.exit(2);
}
const { TokenizerLoader } = await import(pathToFileURL(join(modulesDir, "@lenml/tokenizers/dist/main.mjs")).href);
const readJson = (name) => JSON.parse(readFileSync(join(tokenizerDir, name), "utf8"));
const tokenizer = TokenizerLoader.fromPreTrained({
  tokenizerJSON: readJson("tokenizer.json"),
  tokenizerConfig: readJson("tokenizer_config.json"),
});
const decode = (ids, options) => (ids.length === 0 ? "" : tokenizer.decode(ids, options));

const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
const results = corpus.map((text) => {
  const ids = tokenizer.encode(text, { add_special_tokens: false });
  const idsSpecial = tokenizer.encode(text, { add_special_tokens: true });
  return {
    ids,
    ids_special: idsSpecial,
    decoded: decode(ids, {}),
    decoded_skip: decode(idsSpecial, { skip_special_tokens: true }),
  };
});
writeFileSync(outPath, JSON.stringify(results));
