#!/usr/bin/env python3
"""Files of one job: no source file in sim/, models/, app/ or analysis/ over 600 lines and no
function there over 80 (function bodies found by matching braces after a parameter list, with
comments and literals removed). Prints each offender; exits 1 if any."""
import pathlib
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
ROOMS = ("sim", "models", "app", "analysis", "python")


def strip(text):
    """`text` without comments and literals' contents, its newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i); j = n if j < 0 else j
            i = j; continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j)); i = j; continue
        if text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if m:
                end = ')' + m.group(1) + '"'
                j = text.find(end, i); j = n if j < 0 else j + len(end)
                out.append('""' + '\n' * text.count('\n', i, j)); i = j; continue
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c); i = j + 1; continue
        out.append(c); i += 1
    return ''.join(out)

def functions(path):
    """(first line, lines, the text before its brace) of every function body in `path`."""
    text = strip(path.read_text(encoding="utf-8"))
    stack = []  # (kind, start_line)
    line, head = 1, ''
    for c in text:
        if c == '\n':
            line += 1
        if c == '{':
            h = head.strip()
            scope_kinds = [s[0] for s in stack]
            in_function = 'function' in scope_kinds
            if in_function:
                kind = 'block'
            elif re.search(r'\b(namespace|struct|class|union|enum)\b[^()]*$', h) or h.endswith('='):
                kind = 'scope'
            elif re.search(r'\)\s*(const|override|final|noexcept|mutable|->[^;{]*|\s)*$', h) or re.search(r'\)\s*:\s*.*$', h, re.S):
                kind = 'function'
            else:
                kind = 'block'
            stack.append((kind, line, h[-60:]))
            head = ''
        elif c == '}':
            if stack:
                kind, start, h = stack.pop()
                if kind == 'function':
                    yield start, line - start + 1, h
            head = ''
        elif c == ';':
            head = ''
        else:
            head += c


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    bad = 0
    for room in ROOMS:
        for path in sorted((root / room).rglob("*.[ch]pp")):
            name = path.relative_to(root)
            lines = path.read_text(encoding="utf-8").count("\n")
            if lines > MAX_FILE_LINES:
                print(f"sizes: {name}: {lines} lines (at most {MAX_FILE_LINES}: split it by job)")
                bad += 1
            for start, length, head in functions(path):
                if length > MAX_FUNCTION_LINES:
                    print(f"sizes: {name}:{start}: a function of {length} lines "
                          f"(at most {MAX_FUNCTION_LINES}): ...{head.strip()[-50:]}")
                    bad += 1
    if bad == 0:
        print(f"sizes: no file over {MAX_FILE_LINES} lines, no function over {MAX_FUNCTION_LINES}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
