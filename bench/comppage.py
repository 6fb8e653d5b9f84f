#!/usr/bin/env python3
"""Writes the page bench/comp.sh compresses: an HTML document made of this repository's own
documentation (doc/*.md: real prose, headings, lists, code), marked up as a site would
serve it (a head with styles, navigation, paragraphs, lists, code blocks, links with
attributes), cut to exactly SIZE bytes. Deterministic for a given
checkout.

  comppage.py OUT SIZE
"""
import html
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hapx documentation</title>
<link rel="stylesheet" href="/static/site.css?v=20261125">
<style>
body { font-family: -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #222; }
nav.top { background: #1d3557; padding: 0.5em 1em; } nav.top a { color: #f1faee; }
main { max-width: 52em; margin: 2em auto; line-height: 1.5; }
pre { background: #f4f4f4; padding: 0.8em; overflow-x: auto; }
</style>
</head>
<body>
<nav class="top"><a href="/">Home</a> <a href="/doc/configuration.html">Configuration</a>
<a href="/doc/management.html">Management</a> <a href="/doc/lua.html">Lua</a></nav>
<main id="content">
"""


def render(md):
    out, in_code, in_list = [], False, False
    for line in md.splitlines():
        if line.startswith("```"):
            out.append("</code></pre>" if in_code else '<pre class="code"><code>')
            in_code = not in_code
            continue
        if in_code:
            out.append(html.escape(line))
            continue
        if in_list and not line.startswith(("- ", "* ", "  ")):
            out.append("</ul>")
            in_list = False
        if line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")), 4)
            text = html.escape(line.lstrip("# "))
            anchor = "-".join(text.lower().split())[:40]
            out.append('<h%d id="%s"><a class="anchor" href="#%s">%s</a></h%d>'
                       % (level, anchor, anchor, text, level))
        elif line.startswith(("- ", "* ")):
            if not in_list:
                out.append('<ul class="items">')
                in_list = True
            out.append("<li>%s</li>" % html.escape(line[2:]))
        elif line.strip():
            out.append('<p class="text">%s</p>' % html.escape(line))
    return "\n".join(out)


def main(path, size):
    body = HEAD
    for name in ("configuration.md", "management.md", "lua.md", "bench.md"):
        p = ROOT / "doc" / name
        if p.exists():
            body += '<section class="doc" data-src="%s">\n%s\n</section>\n' % (
                name, render(p.read_text(errors="replace")))
        if len(body) > size:
            break
    data = body.encode()
    if len(data) < size:
        sys.exit("comppage.py: the docs give only %d bytes" % len(data))
    pathlib.Path(path).write_bytes(data[:size])
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
