"""Reference chat-template renderings from Python Jinja2 (Debian python3-jinja2), set up as transformers does:
ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, loopcontrols), tojson without key sorting,
raise_exception. Usage: /usr/bin/python3 reference_chat.py <tokenizer dir> <cases.json> <out.json>
(same case and result format as reference_chat.mjs)."""
import json
import sys

from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


class TemplateError(Exception):
    pass


def raise_exception(message):
    raise TemplateError(message)


def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def token_text(value):
    return value if isinstance(value, str) else (value or {}).get("content", "")


def main():
    tokenizer_dir, cases_path, out_path = sys.argv[1:4]
    with open(f"{tokenizer_dir}/tokenizer_config.json", encoding="utf-8") as f:
        config = json.load(f)
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    template = env.from_string(config["chat_template"])
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    results = []
    for case in cases:
        try:
            text = template.render(messages=case["messages"], add_generation_prompt=case["add_generation_prompt"],
                                   bos_token=token_text(config.get("bos_token")),
                                   eos_token=token_text(config.get("eos_token")))
            results.append({"text": text})
        except Exception as error:  # the test compares only that both engines fail
            results.append({"error": str(error)})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False)


main()
