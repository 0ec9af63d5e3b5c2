#!/usr/bin/env python3
"""Adds EXAMPLES and ENVIRONMENT sections to the manual pages generate-manual wrote, from the
same text as `--help`: each command's "Example: vibes-analyze …" lines, and the root command's
"Environment:" paragraph (NAME: meaning, one a line).

    scripts/man-sections.py BIN MAN_DIR    (`make install` runs it after generate-manual)
"""
import os
import subprocess
import sys


def help_text(binary, words):
    environment = dict(os.environ, COLUMNS="1000", NO_COLOR="1")
    result = subprocess.run([binary] + words + ["--help"], capture_output=True, text=True, env=environment)
    return result.stdout


def escape(text):
    """Text safe on an mdoc line: a leading dot or quote is protected, backslashes doubled."""
    text = text.replace("\\", "\\e")
    return "\\&" + text if text[:1] in (".", "'") else text


def examples(help):
    lines = [line.strip() for line in help.splitlines()]
    return [line[len("Example: "):] for line in lines if line.startswith("Example: vibes-analyze ")]


def environment(help):
    found, entries = False, []
    for line in help.splitlines():
        if line.strip() == "Environment:":
            found = True
            continue
        if found:
            if not line.strip():
                break
            name, _, meaning = line.strip().partition(": ")
            entries.append((name, meaning))
    return entries


def insert_before(page, headers, block):
    """`block` before the first of `headers` the page has, else at its end."""
    lines = page.split("\n")
    # generate-manual quotes titles with a space: .Sh "EXIT STATUS".
    plain = [line.replace('"', "") for line in lines]
    for header in headers:
        if header in plain:
            index = plain.index(header)
            return "\n".join(lines[:index] + block + lines[index:])
    return "\n".join(lines + block)


def main():
    binary, folder = sys.argv[1], sys.argv[2]
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".1"):
            continue
        words = name[: -len(".1")].split(".")[1:]
        help = help_text(binary, words)
        path = os.path.join(folder, name)
        with open(path) as file:
            page = file.read()
        if ".Sh ENVIRONMENT" not in page and not words:
            entries = environment(help)
            if entries:
                block = [".Sh ENVIRONMENT", ".Bl -tag -width 6n"]
                for variable, meaning in entries:
                    block += [".It Ev " + variable, escape(meaning)]
                block += [".El"]
                page = insert_before(page, [".Sh EXIT STATUS", ".Sh SEE ALSO", ".Sh AUTHORS"], block)
        if ".Sh EXAMPLES" not in page:
            found = examples(help)
            if found:
                block = [".Sh EXAMPLES"]
                for example in found:
                    block += [".Bd -literal -offset indent", escape(example), ".Ed"]
                page = insert_before(page, [".Sh SEE ALSO", ".Sh AUTHORS"], block)
        with open(path, "w") as file:
            file.write(page)


if __name__ == "__main__":
    main()
