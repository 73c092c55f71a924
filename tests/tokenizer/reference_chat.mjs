// Reference chat-template renderings from @huggingface/jinja (the engine transformers.js uses), which the C++
// tests compare against byte for byte. Usage:
//   node reference_chat.mjs <node_modules dir> <tokenizer dir> <cases.json> <out.json>
// cases.json: [{"messages": [...], "add_generation_prompt": bool}, ...]. out.json gets, for each case,
// {"text": rendered} or {"error": message}. Variables: messages, add_generation_prompt, bos_token, eos_token.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modulesDir, tokenizerDir, casesPath, outPath] = process.argv.slice(2);
const { Template } = await import(pathToFileURL(join(modulesDir, "@huggingface/jinja/dist/index.js")).href);
const config = JSON.parse(readFileSync(join(tokenizerDir, "tokenizer_config.json"), "utf8"));
const tokenText = (value) => (typeof value === "string" ? value : (value?.content ?? ""));
const template = new Template(config.chat_template);
const cases = JSON.parse(readFileSync(casesPath, "utf8"));
const results = cases.map(({ messages, add_generation_prompt }) => {
  try {
    return {
      text: template.render({
        messages,
        add_generation_prompt,
        bos_token: tokenText(config.bos_token),
        eos_token: tokenText(config.eos_token),
      }),
    };
  } catch (error) {
    return { error: String(error?.message ?? error) };
  }
});
writeFileSync(outPath, JSON.stringify(results));
