#!/usr/bin/python3
"""The man pages and the bash completion the build wrote agree with what modelkit accepts.

For every command: its man page exists, lists exactly the options `modelkit COMMAND --help` lists, and renders
without a groff warning; the man pages name no command --help does not. The completion script, loaded into a real
bash, completes commands, subcommands, options (the same sets as --help), EP and device names and option choices.
Usage: cli_docs_test.py BUILD_DIR
"""
import os
import re
import subprocess
import sys

build = sys.argv[1]
modelkit = os.path.join(build, "bin", "modelkit")
man_dir = os.path.join(build, "share", "man", "man1")
completion = os.path.join(build, "share", "bash-completion", "completions", "modelkit")
env = {k: v for k, v in os.environ.items() if k not in ("MODELKIT_EP_CATALOG", "MODELKIT_EP_LIBRARIES")}
failures = []


def fail(message):
    failures.append(message)


def help_of(path):
    return subprocess.run([modelkit, *path, "--help"], capture_output=True, text=True, check=True, env=env).stdout


def help_options(text):
    """Option names of a CLI11 --help: lines under OPTIONS (or any group) that start with '-'."""
    names = set()
    for line in text.splitlines():
        match = re.match(r"^\s+(-[^\s]+)", line)
        if match:
            for name in match.group(1).split(","):
                name = re.sub(r"\{.*\}$", "", name)  # "--no-compile{false}": a negated flag's default
                if name.startswith("-"):
                    names.add(name)
    return names


def help_subcommands(text):
    subcommands = []
    in_section = False
    for line in text.splitlines():
        if line.rstrip().lower() == "subcommands:":
            in_section = True
            continue
        if in_section:
            match = re.match(r"^  ([a-z][\w-]*)(\s|$)", line)
            if not match:
                in_section = False
                continue
            subcommands.append(match.group(1))
    return subcommands


def man_options(text):
    names = set()
    lines = text.splitlines()
    in_options = False
    for index, line in enumerate(lines):
        if line.startswith(".SH"):
            in_options = line.strip() == ".SH OPTIONS"
        if in_options and line == ".TP" and index + 1 < len(lines):
            for name in re.findall(r"\\fB(.*?)\\fR", lines[index + 1]):
                name = name.replace("\\-", "-")
                if name.startswith("-"):
                    names.add(name)
    return names


# Commands, from modelkit --help down.
commands = [[]]
queue = [[]]
while queue:
    path = queue.pop(0)
    for sub in help_subcommands(help_of(path)):
        commands.append(path + [sub])
        queue.append(path + [sub])
if len(commands) < 10:
    fail(f"only {len(commands)} commands found in --help: {commands}")

expected_pages = {"-".join(["modelkit", *path]) + ".1" for path in commands}
actual_pages = set(os.listdir(man_dir))
if expected_pages != actual_pages:
    fail(f"man pages {sorted(actual_pages ^ expected_pages)} differ from the commands of --help")

for path in commands:
    page = os.path.join(man_dir, "-".join(["modelkit", *path]) + ".1")
    if not os.path.exists(page):
        continue
    text = open(page, encoding="utf-8").read()
    wanted = help_options(help_of(path))
    got = man_options(text)
    if wanted != got:
        fail(f"{page}: options differ from --help: only in --help {sorted(wanted - got)}, only in the page "
             f"{sorted(got - wanted)}")
    render = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page], capture_output=True, text=True)
    if render.returncode != 0 or render.stderr:
        fail(f"{page}: groff says {render.stderr.strip()}")


def complete(words):
    """COMPREPLY of the completion function for the command line `words` (the last word is being completed)."""
    line = " ".join(f"'{w}'" for w in words)
    script = (f"source '{completion}'; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _modelkit; "
              'printf "%s\\n" "${COMPREPLY[@]}"')
    out = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True, check=True)
    return [w for w in out.stdout.splitlines() if w]


def expect_completion(words, expected, exact=False):
    got = complete(words)
    ok = set(got) == set(expected) if exact else set(expected) <= set(got)
    if not ok:
        fail(f"completing {words}: got {got}, expected {'exactly ' if exact else ''}{expected}")


expect_completion(["modelkit", "pe"], ["perf"], exact=True)
expect_completion(["modelkit", ""], [" ".join(p) for p in commands if len(p) == 1], exact=True)
expect_completion(["modelkit", "perf", "--iter"], ["--iterations"], exact=True)
expect_completion(["modelkit", "perf", "--ep", ""], ["cpu", "webgpu", "simnpu"])
expect_completion(["modelkit", "generate", "-m", "b", "--device", "n"], ["npu"], exact=True)
expect_completion(["modelkit", "perf", "-f", ""], ["text", "json", "csv", "jsonl", "md", "html"], exact=True)
cache_subcommands = [p[1] for p in commands if len(p) == 2 and p[0] == "cache"]
expect_completion(["modelkit", "cache", ""], cache_subcommands, exact=True)
for path in commands:
    expect_completion(["modelkit", *path, "-"], sorted(help_options(help_of(path))), exact=True)

for message in failures:
    print("FAIL:", message)
if failures:
    sys.exit(1)
print(f"ok: {len(commands)} commands, their man pages and completions agree with --help")
