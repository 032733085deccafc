#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every public function in include/ carries its comment, and every header installs.

A public function is one declared DMAMAP_API or defined static inline in a
header under include/. Its declaration must follow a comment that ends on the
line just above it and names the function (kernel-doc style: "name() - what").
Prints each function that breaks the rule with its file and line; exits 1 if
any does. Every header under include/ must also be named in the meson.build
of its folder or of one above it, which installs it: a header left out
builds here and is missing for a user of the installed library.
"""
import os
import re
import sys

DECL_START = re.compile(r'^(DMAMAP_API\b|static inline\b)')
NAME = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
SKIP_WORDS = {'DMAMAP_API', 'DMAMAP_MUST_CHECK', 'DMAMAP_PRINTF', '__attribute__', 'static', 'inline', 'extern',
              'const', 'struct', 'enum', 'unsigned', 'signed'}


def function_name(decl):
    """The declared name: the last identifier before the parameter list's '('."""
    text = re.sub(r'__attribute__\s*\(\(.*?\)\)', ' ', decl)
    text = re.sub(r'DMAMAP_PRINTF\s*\([^)]*\)', ' ', text)
    for m in NAME.finditer(text):
        if m.group(1) not in SKIP_WORDS:
            return m.group(1)
    return None


def comment_above(lines, i):
    """The comment block ending on line i - 1, or None."""
    j = i - 1
    if j < 0 or not lines[j].rstrip().endswith('*/'):
        return None
    block = [lines[j]]
    while '/*' not in lines[j]:
        j -= 1
        if j < 0:
            return None
        block.append(lines[j])
    return '\n'.join(reversed(block))


def check(path):
    bad = []
    with open(path, encoding='utf-8') as fh:
        lines = fh.read().split('\n')
    for i, line in enumerate(lines):
        if not DECL_START.match(line):
            continue
        decl = line
        k = i
        while '(' not in decl and k + 1 < len(lines):
            k += 1
            decl += ' ' + lines[k]
        if re.match(r'^DMAMAP_API\s+extern\b', line):
            continue  # data, not a function
        name = function_name(decl)
        if not name:
            continue
        doc = comment_above(lines, i)
        if doc is None:
            bad.append((i + 1, name, 'no comment above it'))
        elif not re.search(r'\b' + re.escape(name) + r'\b', doc):
            bad.append((i + 1, name, 'the comment above it does not name it'))
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'include')
    headers = []
    for d, _, files in os.walk(root):
        headers += [os.path.join(d, f) for f in files if f.endswith('.h') or f.endswith('.h.in')]
    if not headers:
        print('no headers found under', root)
        return 1
    failures = 0
    functions = 0
    for h in sorted(headers):
        with open(h, encoding='utf-8') as fh:
            functions += sum(1 for line in fh if DECL_START.match(line))
        for line, name, why in check(h):
            print(f'{os.path.relpath(h, root)}:{line}: {name}(): {why}')
            failures += 1
    print(f'{functions} public functions in {len(headers)} headers, {failures} without their comment')
    missing = not_installed(root, headers)
    for h in missing:
        print(f'{os.path.relpath(h, root)}: not named in any meson.build above it: it would not be installed')
    return 1 if failures or missing else 0


def not_installed(root, headers):
    """The headers no meson.build between their folder and @root names (by their path from that folder)."""
    missing = []
    for h in headers:
        d, named = os.path.dirname(h), False
        while not named:
            build = os.path.join(d, 'meson.build')
            if os.path.exists(build):
                with open(build, encoding='utf-8') as fh:
                    named = "'" + os.path.relpath(h, d).replace(os.sep, '/') + "'" in fh.read()
            if d == os.path.normpath(root) or os.path.dirname(d) == d:
                break
            d = os.path.dirname(d)
        if not named:
            missing.append(h)
    return missing


if __name__ == '__main__':
    sys.exit(main())
