#!/usr/bin/env python3
"""Prints every ```swift block of the documentation (doc comments, DocC articles, README, docs/)."""
import glob
import re
import sys


def snippets(root="."):
    files = sorted(f for f in glob.glob(root + "/Sources/**/*", recursive=True) if f.endswith((".swift", ".md")))
    files += [root + "/README.md"] + sorted(glob.glob(root + "/docs/*.md"))
    for path in files:
        text = open(path, encoding="utf-8").read()
        if path.endswith(".swift"):
            text = "\n".join(l.strip()[4:] if l.strip().startswith("/// ") else ("" if l.strip() == "///" else "\x00")
                             for l in text.split("\n"))
        for block in re.findall(r"```swift\n(.*?)```", text, re.S):
            yield path, block


if __name__ == "__main__":
    for path, block in snippets():
        print(f"// {path}\n{block}")
